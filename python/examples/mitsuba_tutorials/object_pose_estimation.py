"""Mitsuba 3's tutorial "Object pose estimation" (mitsuba-tutorials:
inverse_rendering/object_pose_estimation.ipynb) on dray: the bunny's rotation about y and its
translation in x and y recovered from a reference image, through its vertex positions, by the
notebook's loop (16 spp, 100 iterations, Adam lr 0.025, the latent pose clipped each iteration).

What differs from the notebook (dray's autodiff is torch's, not Dr.Jit's):
- `import drjit as dr; import mitsuba as mi` -> `import dray, dray.torch, torch`
- `mitsuba.scalar_rgb.Transform4f` -> `dray.ScalarTransform4f` (the scene's dict);
  `mi.Transform4f` (the differentiable pose) -> `dray.torch.Transform4f`
- `mi.load_dict`, `mi.traverse`, `mi.ad.Adam` -> `dray.` the same
- `mi.Point3f(params['bunny.positions'], flip_axes=True)` -> a V×3 tensor (dray's blocks are V×3);
  `mi.TensorXf(trafo @ p, flip_axes=True)` -> `trafo @ p`
- `mi.Float(0.25)`, `mi.Point2f(0.1, -0.25)` -> a number, a list; `.x`/`.y` -> `[0]`/`[1]`
- `mi.render(scene, params, seed=, spp=)` -> `dray.torch.render(scene, params, seed=, spp=)`;
  `dr.backward` -> `loss.backward()`; `dr.clip`, `dr.sum`, `dr.square` -> torch's
- images written to PNG files instead of shown; --iterations, --spp for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/object_pose_estimation.py [--iterations N]
[--spp S] [--output DIR]; prints the notebook's line: "Iteration 99: error=..., angle=..., trans=[...]".
"""
import torch

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, iterations=100, spp=16)

# --- cell 2 ---
integrator = {
    'type': 'direct_projective',
}

# --- cell 3 ---
from dray import ScalarTransform4f as T

scene = dray.load_dict({
    'type': 'scene',
    'integrator': integrator,
    'sensor':  {
        'type': 'perspective',
        'to_world': T().look_at(
                        origin=(0, 0, 2),
                        target=(0, 0, 0),
                        up=(0, 1, 0)
                    ),
        'fov': 60,
        'film': {
            'type': 'hdrfilm',
            'width': 64,
            'height': 64,
            'rfilter': { 'type': 'gaussian' },
            'sample_border': True
        },
    },
    'wall': {
        'type': 'obj',
        'filename': '../scenes/meshes/rectangle.obj',
        'to_world': T().translate([0, 0, -2]).scale(2.0),
        'face_normals': True,
        'bsdf': {
            'type': 'diffuse',
            'reflectance': { 'type': 'rgb', 'value': (0.5, 0.5, 0.5) },
        }
    },
    'bunny': {
        'type': 'ply',
        'filename': '../scenes/meshes/bunny.ply',
        'to_world': T().scale(6.5),
        'bsdf': {
            'type': 'diffuse',
            'reflectance': { 'type': 'rgb', 'value': (0.3, 0.3, 0.75) },
        },
    },
    'light': {
        'type': 'obj',
        'filename': '../scenes/meshes/sphere.obj',
        'emitter': {
            'type': 'area',
            'radiance': {'type': 'rgb', 'value': [1e3, 1e3, 1e3]}
        },
        'to_world': T().translate([2.5, 2.5, 7.0]).scale(0.25)
    }
})

# --- cell 4 ---
img_ref = torch.from_numpy(dray.render(scene, seed=0, spp=1024))
save(args, "object_pose_estimation_ref", img_ref.numpy())

# --- cell 5 ---
params = dray.traverse(scene)
initial_vertex_positions = torch.from_numpy(params['bunny.positions'])

# --- cell 6 ---
opt = dray.ad.Adam(lr=0.025)
opt['angle'] = 0.25
opt['trans'] = [0.1, -0.25]


# --- cell 7 ---
def apply_transformation(params, opt):
    opt['trans'] = torch.clip(opt['trans'], -0.5, 0.5)
    opt['angle'] = torch.clip(opt['angle'], -0.5, 0.5)

    trafo = dray.torch.Transform4f().translate([opt['trans'][0], opt['trans'][1], 0.0]).rotate([0, 1, 0], opt['angle'] * 100.0)

    params['bunny.positions'] = trafo @ initial_vertex_positions
    params.update()


# --- cell 8 ---
apply_transformation(params, opt)

img_init = dray.render(scene, seed=0, spp=1024)
save(args, "object_pose_estimation_init", img_init)

# --- cell 9 ---
iteration_count = args.iterations
spp = args.spp

# --- cell 11 ---
loss_hist = []
for it in range(iteration_count):
    # Apply the mesh transformation
    apply_transformation(params, opt)

    # Perform a differentiable rendering
    img = dray.torch.render(scene, params, seed=it, spp=spp)

    # Evaluate the objective function
    loss = torch.sum(torch.square(img - img_ref)) / img.numel()

    # Backpropagate through the rendering process
    loss.backward()

    # Optimizer: take a gradient descent step
    opt.step()

    loss_hist.append(loss.item())
    print(f"Iteration {it:02d}: error={loss.item():.6g}, angle={opt['angle'].item():.4f}, "
          f"trans=[{opt['trans'][0].item():.4f}, {opt['trans'][1].item():.4f}]", end='\r')
print()

# --- cell 12 ---
img_final = dray.render(scene, seed=0, spp=1024)
save(args, "object_pose_estimation_final", img_final)
