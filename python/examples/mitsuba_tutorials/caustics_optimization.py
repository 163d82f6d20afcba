"""Mitsuba 3's tutorial "Caustics optimization" (mitsuba-tutorials:
inverse_rendering/caustics_optimization.ipynb) on dray: a glass lens whose caustic draws an image.
Collimated light from a `directionalarea` emitter crosses a glass slab and a lens (a grid mesh
displaced along its normals by a heightmap), and a `ptracer` renders the receiving plane through a
Gaussian filter; Adam on the heightmap against a scale-independent L2 loss, the heightmap
upsampled in steps, as the notebook.

What differs from the notebook (dray's autodiff is torch's, not Dr.Jit's):
- `import drjit as dr; import mitsuba as mi` -> `import dray, dray.torch, torch`
- `mi.Mesh(...)`, `mesh.write_ply`, `mi.load_dict`, `mi.traverse`, `mi.ad.Adam` -> `dray.` the same;
  `mi.Bitmap(tensor)` in a dict -> `dray.Bitmap(array)`
- the heightmap texture (`mi.load_dict({'type': 'bitmap', …})` and its `eval_1` at the lens's UVs)
  -> a torch tensor looked up bilinearly with wrapping (the bitmap's default filter and wrap mode)
  at `params_scene['lens.texcoords']`; `dr.resample(..., filter='linear')` -> torch's bilinear
  interpolation; the optimizer's moments reset on the new shape, as Mitsuba's
- `mi.render(scene, params, seed=, spp=, spp_grad=)` -> `dray.torch.render(...)` the same;
  `dr.backward` -> `loss.backward()`; `dr.mean`, `dr.square`, `dr.clip`, `dr.detach` -> torch's
- the reference image read by `dray.read_image` (linear) and resampled to the film by torch's
  area interpolation; figures written to PNG files instead of shown
- printed at the end: the normalized cross-correlation of the final render with the reference
  (and of the flat lens's render), which the notebook shows as pictures

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/caustics_optimization.py [--config wave]
[--render-res 128] [--heightmap-res 512] [--upsampling-steps 4] [--spp 32] [--iterations 1000]
[--output DIR]
"""
import os
import sys
import time

import numpy as np
import torch

import dray
import dray.torch
from dray import ScalarTransform4f as T
from _tutorial import arguments, save

args = arguments(__doc__, config="sunday", render_res=128, heightmap_res=512, upsampling_steps=4, spp=32,
                 iterations=1000, learning_rate=3e-5)

# --- cell 6 ---
CONFIGS = {
    'wave': {'emitter': 'gray', 'reference': 'references/wave-1024.jpg'},
    'sunday': {'emitter': 'bayer', 'reference': 'references/sunday-512.jpg'},
}
if args.config not in CONFIGS:
    sys.exit("--config: wave or sunday")
config = CONFIGS[args.config]
config.update({
    'render_resolution': (args.render_res, args.render_res),
    'heightmap_resolution': (args.heightmap_res, args.heightmap_res),
    'n_upsampling_steps': args.upsampling_steps,
    'spp': args.spp,
    'max_iterations': args.iterations,
    'learning_rate': args.learning_rate,
})
os.makedirs(args.output, exist_ok=True)


# --- cell 14 ---
def create_flat_lens_mesh(resolution):
    # UV coordinates, one vertex per row
    U, V = np.meshgrid(np.linspace(0, 1, resolution[0]), np.linspace(0, 1, resolution[1]), indexing='ij')
    texcoords = np.column_stack([U.ravel(), V.ravel()])
    # The lens starts out flat, so z stays 0
    vertices = np.column_stack([2.0 * (U.ravel() - 0.5), 2.0 * (V.ravel() - 0.5), np.zeros(U.size)])
    # Two triangles per grid cell
    i, j = np.meshgrid(np.arange(resolution[0] - 1), np.arange(resolution[1] - 1), indexing='ij')
    v00 = (i * resolution[1] + j).ravel()
    v01, v10 = v00 + 1, v00 + resolution[1]
    v11 = v10 + 1
    faces = np.stack([np.column_stack([v00, v10, v01]), np.column_stack([v01, v10, v11])], axis=1).reshape(-1, 3)
    return dray.Mesh("lens-mesh", faces=faces, positions=vertices, texcoords=texcoords)


# --- cell 15 ---
lens_res = config['heightmap_resolution']
lens_fname = os.path.join(args.output, 'lens_{}_{}.ply'.format(*lens_res))
m = create_flat_lens_mesh(lens_res)
m.write_ply(lens_fname)

# --- cell 18 ---
if config['emitter'] == 'gray':
    emitter = {'type': 'directionalarea', 'radiance': {'type': 'spectrum', 'value': 0.8}}
else:
    bayer = np.zeros((32, 32, 3), dtype=np.float32)
    bayer[::2, ::2, 2] = 2.2
    bayer[::2, 1::2, 1] = 2.2
    bayer[1::2, 1::2, 0] = 2.2
    emitter = {'type': 'directionalarea',
               'radiance': {'type': 'bitmap', 'bitmap': dray.Bitmap(bayer), 'raw': True, 'filter_type': 'nearest'}}

# --- cell 21 ---
integrator = {'type': 'ptracer', 'samples_per_pass': 256, 'max_depth': 4, 'hide_emitters': False}

# --- cell 24 ---
resx, resy = config['render_resolution']
sensor = {
    'type': 'perspective', 'near_clip': 1, 'far_clip': 1000, 'fov': 45,
    'to_world': T().look_at(target=[0, -20, 0], origin=[0, -4.65, 0], up=[0, 0, 1]),
    'sampler': {'type': 'independent', 'sample_count': 512},  # not really used
    'film': {'type': 'hdrfilm', 'width': resx, 'height': resy, 'pixel_format': 'rgb',
             # Important: a smooth reconstruction filter with a footprint larger than 1 pixel
             'rfilter': {'type': 'gaussian'}},
}

# --- cell 26 ---
scene = dray.load_dict({
    'type': 'scene',
    'sensor': sensor,
    'integrator': integrator,
    'simple-glass': {'type': 'dielectric', 'id': 'simple-glass-bsdf', 'ext_ior': 'air', 'int_ior': 1.5,
                     'specular_reflectance': {'type': 'spectrum', 'value': 0}},
    'white-bsdf': {'type': 'diffuse', 'id': 'white-bsdf', 'reflectance': {'type': 'rgb', 'value': (1, 1, 1)}},
    'black-bsdf': {'type': 'diffuse', 'id': 'black-bsdf', 'reflectance': {'type': 'spectrum', 'value': 0}},
    'receiving-plane': {'type': 'obj', 'id': 'receiving-plane', 'filename': 'meshes/rectangle.obj',
                        'to_world': T().look_at(target=[0, 1, 0], origin=[0, -7, 0], up=[0, 0, 1]).scale((5, 5, 5)),
                        'bsdf': {'type': 'ref', 'id': 'white-bsdf'}},
    'slab': {'type': 'obj', 'id': 'slab', 'filename': 'meshes/slab.obj',
             'to_world': T().rotate(axis=(1, 0, 0), angle=90), 'bsdf': {'type': 'ref', 'id': 'simple-glass'}},
    'lens': {'type': 'ply', 'id': 'lens', 'filename': lens_fname,
             'to_world': T().rotate(axis=(1, 0, 0), angle=90), 'bsdf': {'type': 'ref', 'id': 'simple-glass'}},
    'focused-emitter-shape': {'type': 'obj', 'filename': 'meshes/rectangle.obj',
                              'to_world': T().look_at(target=[0, 0, 0], origin=[0, 5, 0], up=[0, 0, 1]),
                              'bsdf': {'type': 'ref', 'id': 'black-bsdf'}, 'focused-emitter': emitter},
})


# --- cell 31 ---
def load_ref_image(config, resolution):
    b = torch.from_numpy(dray.read_image(config['reference'])[..., :3]).permute(2, 0, 1)[None]
    b = torch.nn.functional.interpolate(b, size=resolution, mode='area')
    return b[0].permute(1, 2, 0).contiguous()


image_ref = load_ref_image(config, (resy, resx))
save(args, "caustics_ref", image_ref.numpy())

# --- cell 34 ---
initial_heightmap_resolution = [r // (2 ** config['n_upsampling_steps']) for r in config['heightmap_resolution']]
upsampling_steps = np.square(np.linspace(0, 1, config['n_upsampling_steps'] + 1, endpoint=False)[1:])
upsampling_steps = (config['max_iterations'] * upsampling_steps).astype(int)
print('The resolution of the heightfield will be doubled at iterations:', upsampling_steps)

opt = dray.ad.Adam(lr=config['learning_rate'])
opt['data'] = torch.zeros(initial_heightmap_resolution, dtype=torch.float32)

# --- cell 37 ---
params_scene = dray.traverse(scene)
positions_initial = torch.from_numpy(params_scene['lens.positions'].copy())
normals_initial = torch.from_numpy(params_scene['lens.normals'].copy())
lens_uv = torch.from_numpy(params_scene['lens.texcoords'].copy())


def eval_1(texture, uv):
    """The bitmap's bilinear lookup with wrapping (u along columns, v along rows)."""
    h, w = texture.shape
    x, y = uv[:, 0] * w - 0.5, uv[:, 1] * h - 0.5
    x0, y0 = torch.floor(x), torch.floor(y)
    fx, fy = x - x0, y - y0
    i, j = x0.long(), y0.long()
    at = lambda di, dj: texture[(j + dj) % h, (i + di) % w]  # noqa: E731
    return (1 - fx) * (1 - fy) * at(0, 0) + fx * (1 - fy) * at(1, 0) + (1 - fx) * fy * at(0, 1) + fx * fy * at(1, 1)


def apply_displacement(amplitude=1.):
    # Enforce a reasonable range: the receiving plane is 7 scene units away from the lens
    vmax = 1 / 100.
    opt['data'] = torch.clip(opt['data'], -vmax, vmax)
    heights = eval_1(opt['data'], lens_uv)[:, None]
    params_scene['lens.positions'] = positions_initial + heights * normals_initial * amplitude
    params_scene.update()


# --- cell 40 ---
def scale_independent_loss(image, ref):
    """Brightness-independent L2 loss function."""
    scaled_image = image / torch.mean(image.detach())
    scaled_ref = ref / torch.mean(ref)
    return torch.mean(torch.square(scaled_image - scaled_ref))


def ncc(a, b):
    """Normalized cross-correlation of two images."""
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / torch.sqrt((a * a).sum() * (b * b).sum()))


flat = torch.from_numpy(dray.render(scene, seed=0, spp=2 * config['spp']))
save(args, "caustics_flat", flat.numpy())

# --- cell 42 ---
start_time = time.time()
iterations = config['max_iterations']
loss_values = []
spp = config['spp']
for it in range(iterations):
    t0 = time.time()
    apply_displacement()
    image = dray.torch.render(scene, params_scene, seed=it, spp=2 * spp, spp_grad=spp)
    loss = scale_independent_loss(image, image_ref)
    loss.backward()
    opt.step()
    if it in upsampling_steps:
        h, w = opt['data'].shape
        opt['data'] = torch.nn.functional.interpolate(opt['data'].detach()[None, None], size=(2 * h, 2 * w),
                                                      mode='bilinear', align_corners=False)[0, 0]
    loss_values.append(loss.item())
    print(f"Iteration {it:03d}: loss={loss.item():g} (took {1000 * (time.time() - t0):.0f}ms)", end='\r')
    if it in (int(0.7 * iterations), int(0.9 * iterations)):
        spp *= 2
        opt.set_learning_rate(0.5 * opt.learning_rate())
print()
print(((time.time() - start_time) * 1000) / iterations, ' ms per iteration on average')

# --- cell 44 / 47 ---
apply_displacement()
final = torch.from_numpy(dray.render(scene, seed=0, spp=2 * spp))
save(args, "caustics_final", final.numpy())
heightmap = opt['data'].detach().numpy()
save(args, "caustics_heightmap", np.repeat(((heightmap - heightmap.min()) / max(np.ptp(heightmap), 1e-12))[..., None], 3, axis=2))
print(f"loss {loss_values[0]:.4f} -> {loss_values[-1]:.4f}; normalized cross-correlation with the reference: "
      f"flat lens {ncc(flat, image_ref):.3f}, final {ncc(final, image_ref):.3f}")
