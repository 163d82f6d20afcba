"""Mitsuba 3's tutorial "Shape optimization" (mitsuba-tutorials: inverse_rendering/shape_optimization.ipynb)
on dray: suzanne's shape recovered from 8 views by moving the vertices of a 10k-vertex icosphere,
first naively (5 iterations, L2, Adam lr 0.03), then with large steps (λ 25, uniform Adam lr 0.1,
L1, 100 iterations, a step per view), and the Chamfer distance to suzanne printed.

What differs from the notebook (dray's autodiff is torch's, not Dr.Jit's):
- `import drjit as dr; import mitsuba as mi` -> `import dray, dray.torch, torch`
- `mitsuba.ScalarTransform4f` -> `dray.ScalarTransform4f`; `dr.pi`, `dr.cos`, ... -> `math`'s
- `mi.load_dict`, `mi.traverse`, `mi.ad.Adam`, `mi.ad.LargeSteps` -> `dray.` the same
- `mi.render(scene, params, sensor=, seed=)` -> `dray.torch.render(...)`; `dr.backward` ->
  `loss.backward()`; `dr.mean(dr.square(...))`, `dr.abs` -> torch's; `mi.Float(0.0)` -> 0.0
- the remeshing stage (cells 18-27: gpytoolbox's remesh_botsch, not a Debian package) is left out;
  the script prints the Chamfer distance to suzanne instead (points drawn by area on both meshes,
  nearest points by scipy's k-d tree), as a share of suzanne's bounding-box diagonal
- images written to PNG files instead of plotted; --res, --spp, --iterations for a quick run (the
  notebook: 256, 128, 100)

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/shape_optimization.py [--res R] [--spp S]
[--iterations N] [--output DIR]
"""
import math

import numpy as np
import torch

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, res=256, spp=128, iterations=100)

# --- cell 2 ---
from dray import ScalarTransform4f as T

sensor_count = 8
sensors = []

golden_ratio = (1 + 5**0.5)/2
for i in range(sensor_count):
    theta = 2 * math.pi * i / golden_ratio
    phi = math.acos(1 - 2*(i+0.5)/sensor_count)

    d = 5
    origin = [
        d * math.cos(theta) * math.sin(phi),
        d * math.sin(theta) * math.sin(phi),
        d * math.cos(phi)
    ]

    sensors.append(dray.load_dict({
        'type': 'perspective',
        'fov': 45,
        'to_world': T().look_at(target=[0, 0, 0], origin=origin, up=[0, 1, 0]),
        'film': {
            'type': 'hdrfilm',
            'width': args.res, 'height': args.res,
            'filter': {'type': 'gaussian'},
            'sample_border': True,
        },
        'sampler': {
            'type': 'independent',
            'sample_count': args.spp
        },
    }))

# --- cell 3 ---
scene_dict = {
    'type': 'scene',
    'integrator': {
        'type': 'direct_projective',
        # Indirect visibility effects aren't that important here
        # let's turn them off and save some computation time
        'sppi': 0,
    },
    'emitter': {
        'type': 'envmap',
        'filename': "../scenes/textures/envmap2.exr",
    },
    'shape': {
        'type': 'ply',
        'filename': "../scenes/meshes/suzanne.ply",
        'bsdf': {'type': 'diffuse'}
    }
}

scene_target = dray.load_dict(scene_dict)

# --- cell 5 ---
ref_images = [torch.from_numpy(dray.render(scene_target, sensor=sensors[i], spp=2 * args.spp)) for i in range(sensor_count)]
for i, image in enumerate(ref_images):
    save(args, "shape_optimization_ref_%d" % i, image.numpy())

# --- cell 6 ---
scene_dict['shape']['filename'] = '../scenes/meshes/ico_10k.ply'
scene_source = dray.load_dict(scene_dict)

# --- cell 7 ---
params = dray.traverse(scene_source)
start_positions = params['shape.positions']

opt = dray.ad.Adam(lr=3e-2)
opt['shape.positions'] = params['shape.positions']

# --- cell 8 ---
for it in range(5):
    total_loss = 0.0
    for sensor_idx in range(sensor_count):
        params.update(opt)

        img = dray.torch.render(scene_source, params, sensor=sensors[sensor_idx], seed=it)
        # L2 Loss
        loss = torch.mean(torch.square(img - ref_images[sensor_idx]))
        loss.backward()

        opt.step()
        total_loss += loss.item()

    print(f"Iteration {1+it:03d}: Loss = {total_loss:.6f}", end='\r')
print()

# --- cell 10 ---
# Reset the scene
scene_source = dray.load_dict(scene_dict)
params = dray.traverse(scene_source)

# --- cell 12 ---
lambda_ = 25
ls = dray.ad.LargeSteps(params['shape.positions'], params['shape.faces'], lambda_)

# --- cell 13 ---
opt = dray.ad.Adam(lr=1e-1, uniform=True)

# --- cell 14 ---
opt['u'] = ls.to_differential(params['shape.positions'])

# --- cell 15 ---
iterations = args.iterations
for it in range(iterations):
    total_loss = 0.0

    for sensor_idx in range(sensor_count):
        # Retrieve the surface point positions from the latent variable
        params['shape.positions'] = ls.from_differential(opt['u'])
        params.update()

        img = dray.torch.render(scene_source, params, sensor=sensors[sensor_idx], seed=it)

        # L1 Loss
        loss = torch.mean(torch.abs(img - ref_images[sensor_idx]))

        loss.backward()
        opt.step()

        total_loss += loss.item()

    print(f"Iteration {1+it:03d}: Loss = {total_loss:.6f}", end='\r')
print()

# --- cell 16 ---
# Update the mesh after the last iteration's gradient step
params['shape.positions'] = ls.from_differential(opt['u'])
params.update()

# --- cell 17 ---
final_imgs = [dray.render(scene_source, sensor=sensors[i], spp=args.spp) for i in range(sensor_count)]
for i, image in enumerate(final_imgs):
    save(args, "shape_optimization_final_%d" % i, image)


# The Chamfer distance to suzanne (in place of the notebook's remeshing stage).
def surface_points(positions, faces, n, seed):
    a, b, c = (positions[faces[:, k]] for k in range(3))
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    rng = np.random.default_rng(seed)
    f = rng.choice(len(faces), size=n, p=area / area.sum())
    r1, r2 = np.sqrt(rng.random(n)), rng.random(n)
    return (1 - r1)[:, None] * a[f] + (r1 * (1 - r2))[:, None] * b[f] + (r1 * r2)[:, None] * c[f]


from scipy.spatial import cKDTree  # noqa: E402

target = dray.traverse(scene_target)
ref_v, ref_f = target['shape.positions'].astype(np.float64), target['shape.faces']
q = surface_points(ref_v, ref_f, 100000, 2)
diagonal = np.linalg.norm(ref_v.max(0) - ref_v.min(0))


def chamfer(positions):
    p = surface_points(positions.astype(np.float64), params['shape.faces'], 100000, 1)
    return 0.5 * (cKDTree(q).query(p)[0].mean() + cKDTree(p).query(q)[0].mean())


start, final = chamfer(start_positions), chamfer(params['shape.positions'])
print(f"Chamfer distance to suzanne: {final:.5f} ({100 * final / diagonal:.2f}% of its bounding-box diagonal "
      f"{diagonal:.3f}; the icosphere's {100 * start / diagonal:.2f}%)")
