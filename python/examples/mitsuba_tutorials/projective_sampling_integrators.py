"""Mitsuba 3's tutorial "Projective sampling integrators" (mitsuba-tutorials:
inverse_rendering/projective_sampling_integrators.ipynb) on dray: a B-spline loop's control points
(`curve.control_points`) moved so that its shadows on two walls, seen by a batch of two sensors,
draw the star and the moon of starmoon.exr; first the derivative image of a rotation about y by
finite differences and by the projective integrator (direct_projective, sppi 1024), then the fit
(Adam lr 0.01, 450 iterations, the radii held).

What differs from the notebook (dray's autodiff is torch's, not Dr.Jit's):
- `import drjit as dr; import mitsuba as mi` -> `import dray, dray.torch, torch`
- `mi.load_file`, `mi.load_dict`, `mi.traverse`, `mi.Bitmap`, `mi.ad.Adam` -> `dray.` the same
- `dr.unravel(mi.Point4f, params[key])` -> the N x 4 array `params[key]` itself; `dr.ravel` -> the
  array (Mitsuba's flat layout is accepted too); `mi.Transform4f().rotate(...)` on points ->
  `dray.torch.Transform4f()` (torch, differentiable in the angle)
- `dr.enable_grad(theta)` and `dr.forward(theta)`, `dr.forward_to(image)` -> torch's forward mode
  (`fwAD.make_dual(theta, 1)`, the image's tangent), of the tube's rotation about y
  (`shapes.curve.rotate_y`): dray's forward mode through torch takes a few scalars, not a block's
  direction; `dr.backward(loss)` -> `loss.backward()`
- `mi.render(scene, params, sensor=, integrator=, seed=)` -> `dray.torch.render(...)`
- `guiding` is read and ignored (dray samples its visibility edges its own way): the "unguided"
  image is the guided one's estimator, another seed
- images written to PNG/EXR files instead of plotted; --res (the batch's height; the notebook 128),
  --spp (its 256), --fd-spp, --fd-repeat, --sppi, --iterations (the notebook: 2048, 32, 1024, 450),
  --view-spp (the notebook's 4096 renders of the views)

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/projective_sampling_integrators.py [--res R]
[--spp S] [--iterations N] [--output DIR]; prints the notebook's last "loss:" and the derivative
images' agreement with the finite differences
"""
import numpy as np
import torch
import torch.autograd.forward_ad as fwAD

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, res=128, spp=256, fd_spp=2048, fd_repeat=32, sppi=1024, iterations=450, view_spp=4096)

# --- cell 2 ---
scene = dray.load_file('../scenes/shadow_art.xml', resx=2 * args.res, resy=args.res)
save(args, "projective_view_initial", dray.render(scene, spp=args.view_spp))

# --- cell 3 ---
res = [args.res * 2, args.res]
dist = 5
batch_sensor = dray.load_dict({
    'type': 'batch',
    'sensor1': {
        'type': 'perspective',
        'fov': 100,
        'to_world': dray.ScalarTransform4f().look_at(origin=[0, 0, -dist + 1], target=[0, 0, -dist], up=[0, 1, 0]),
    },
    'sensor2': {
        'type': 'perspective',
        'fov': 100,
        'to_world': dray.ScalarTransform4f().look_at(origin=[-dist + 1, 0, 0], target=[-dist, 0, 0], up=[0, 1, 0]),
    },
    'film': {
        'type': 'hdrfilm',
        'width': res[0], 'height': res[1],
        'sample_border': True,
        'filter': {'type': 'box'},
    },
    'sampler': {
        'type': 'independent',
        'sample_count': args.spp,
    },
})
save(args, "projective_walls_initial", dray.render(scene, sensor=batch_sensor, spp=args.view_spp))

# --- cell 4 ---
reference = dray.Bitmap('../scenes/references/starmoon.exr').resample(res)
image_ref = torch.tensor(np.array(reference), dtype=torch.float32).reshape(res[1], res[0], 1)

# --- cell 5 ---
key = 'curve.control_points'
params = dray.traverse(scene)
initial_control_points = torch.tensor(params[key])


def apply_y_rotation(params, value):
    control_points = initial_control_points
    radii = control_points[:, 3]
    points = dray.torch.Transform4f().rotate([0, 1, 0], value) @ control_points[:, :3]
    params[key] = torch.cat([points, radii[:, None]], dim=1)
    params.update()


# --- cell 6 ---
epsilon = 1e-3
img_fd = torch.zeros((res[1], res[0], 3))
for it in range(args.fd_repeat):
    apply_y_rotation(params, -epsilon)
    img1 = torch.as_tensor(dray.render(scene, sensor=batch_sensor, spp=args.fd_spp, seed=it))
    apply_y_rotation(params, epsilon)
    img2 = torch.as_tensor(dray.render(scene, sensor=batch_sensor, spp=args.fd_spp, seed=it))
    img_fd += (img2 - img1) / (2 * epsilon) / args.fd_repeat
print(f"{args.fd_repeat}/{args.fd_repeat}")

# --- cell 7 ---
vlim = img_fd.abs().max().item()
save(args, "projective_gradient_fd", img_fd.sum(dim=2, keepdim=True).numpy(), ".exr")


# --- cells 8 and 9 ---
def forward_image(integrator, seed):
    # dray's forward mode through torch takes up to 64 scalars, not a block: the control points'
    # rotation about y is taken as the tube's (its transform's rotate_y, degrees about the origin,
    # as Mitsuba's rotate): the same rotation of the same surface.
    apply_y_rotation(params, 0.0)
    with fwAD.dual_level():
        params['shapes.curve.rotate_y'] = fwAD.make_dual(torch.tensor(0.0), torch.tensor(1.0))
        params.update()
        image = dray.torch.render(scene, params, sensor=batch_sensor, integrator=integrator, seed=seed)
        tangent = fwAD.unpack_dual(image).tangent
    params['shapes.curve.rotate_y'] = 0.0
    params.update()
    return tangent


integrator = dray.load_dict({'type': 'direct_projective', 'sppc': 0, 'sppp': 0, 'sppi': args.sppi})
img_guided = forward_image(integrator, 0)
integrator_unguided = dray.load_dict({'type': 'direct_projective', 'sppc': 0, 'sppp': 0, 'sppi': args.sppi, 'guiding': 'none'})
img_unguided = forward_image(integrator_unguided, 1)

# --- cell 10 ---
for name, img in (("guided", img_guided), ("unguided", img_unguided)):
    save(args, "projective_gradient_" + name, img.sum(dim=2, keepdim=True).numpy(), ".exr")
    # Against the finite differences: their sums over each wall, and the images' correlation.
    ours, theirs = img.sum(dim=2).numpy(), img_fd.sum(dim=2).numpy()
    half = res[0] // 2
    corr = np.corrcoef(ours.ravel(), theirs.ravel())[0, 1]
    print(f"{name}: per-wall sums {ours[:, :half].sum():.1f}, {ours[:, half:].sum():.1f} against finite differences "
          f"{theirs[:, :half].sum():.1f}, {theirs[:, half:].sum():.1f}; correlation {corr:.3f}; vlim {vlim:.2f}")

# --- cell 11 ---
params[key] = initial_control_points.numpy()
params.update()

# --- cell 12 ---
integrator = dray.load_dict({
    'type': 'direct_projective',
    'sppc': 0,
    'sppp': 0,
    'sppi': args.sppi,
})

radii = initial_control_points[:, 3]

opt = dray.ad.Adam(lr=1e-2)
opt[key] = params[key]

for it in range(args.iterations):
    control_points = opt[key].reshape(-1, 4)
    control_points = torch.cat([control_points[:, :3], radii[:, None]], dim=1)  # Do not optimize the radius
    params[key] = control_points
    params.update()

    img = dray.torch.render(scene, params, sensor=batch_sensor, integrator=integrator, seed=it, spp=args.spp)

    # L2 loss
    loss = torch.mean(torch.square(img - image_ref))
    loss.backward()
    opt.step()

    print(f"{it+1}/{args.iterations} loss: {loss.item():.8f}", end='\r')
print()

# --- cells 13 and 14 ---
params[key] = opt[key].detach().reshape(-1, 4).numpy()
params.update()
save(args, "projective_view_final", dray.render(scene, spp=args.view_spp))
save(args, "projective_walls_final", dray.render(scene, sensor=batch_sensor, spp=args.view_spp))
save(args, "projective_walls_reference", image_ref.numpy(), ".exr")
