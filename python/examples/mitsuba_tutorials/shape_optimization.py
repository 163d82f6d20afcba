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
- the remeshing (cell 45: gpytoolbox's remesh_botsch to half the mean edge length, not a Debian
  package) is each triangle split in four at its edges' midpoints (the edges halved); the new faces
  and positions are assigned as in the notebook, and `mi.render(..., integrator=)` is dray's
- the script also prints the Chamfer distance to suzanne after each stage (points drawn by area
  on both meshes, nearest points by scipy's k-d tree), as a share of its bounding-box diagonal
- images written to PNG files instead of plotted; --res, --spp, --iterations (both large-steps
  stages), --remesh-iterations for a quick run (the notebook: 256, 128, 100, 100)

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/shape_optimization.py [--res R] [--spp S]
[--iterations N] [--remesh-iterations N] [--output DIR]; prints the notebook's last "Loss =" of each stage
"""
import math

import numpy as np
import torch

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, res=256, spp=128, iterations=100, remesh_iterations=100)

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

# The Chamfer distance to suzanne.
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


def chamfer(positions, faces):
    p = surface_points(positions.astype(np.float64), faces, 100000, 1)
    return 0.5 * (cKDTree(q).query(p)[0].mean() + cKDTree(p).query(q)[0].mean())


def print_chamfer(stage):
    final = chamfer(params['shape.positions'], params['shape.faces'])
    print(f"Chamfer distance to suzanne after {stage}: {final:.5f} ({100 * final / diagonal:.2f}% of its bounding-box "
          f"diagonal {diagonal:.3f}; the icosphere's {100 * start / diagonal:.2f}%)")


start = chamfer(start_positions, params['shape.faces'])
print_chamfer("large steps")

# --- cell 17 ---
final_imgs = [dray.render(scene_source, sensor=sensors[i], spp=args.spp) for i in range(sensor_count)]
for i, image in enumerate(final_imgs):
    save(args, "shape_optimization_final_%d" % i, image)


# --- cell 41 ---
v_np = params['shape.positions'].astype(np.float64)
f_np = params['shape.faces']

# --- cell 43 ---
# Compute average edge length
l0 = np.linalg.norm(v_np[f_np[:,0]] - v_np[f_np[:,1]], axis=1)
l1 = np.linalg.norm(v_np[f_np[:,1]] - v_np[f_np[:,2]], axis=1)
l2 = np.linalg.norm(v_np[f_np[:,2]] - v_np[f_np[:,0]], axis=1)

target_l = np.mean([l0, l1, l2]) / 2


# --- cell 45 (remesh_botsch's stand-in: each edge halved) ---
def remesh_midpoints(v, f):
    edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    unique, index = np.unique(edges, axis=0, return_inverse=True)
    middle = len(v) + index.reshape(3, -1).T  # the midpoints of edges (0 1), (1 2), (2 0) of each face
    v_new = np.concatenate([v, 0.5 * (v[unique[:, 0]] + v[unique[:, 1]])])
    a, b, c = f.T
    ab, bc, ca = middle.T
    f_new = np.concatenate([np.stack(t, axis=1) for t in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))])
    return v_new, f_new


v_new, f_new = remesh_midpoints(v_np, f_np)

# --- cell 47 ---
params['shape.faces'] = f_new.astype(np.uint32)
params['shape.positions'] = v_new.astype(np.float32)
params['shape.texcoords'] = np.zeros(0, dtype=np.float32)
params.update()

# --- cell 49 ---
ls = dray.ad.LargeSteps(params['shape.positions'], params['shape.faces'], lambda_)
opt = dray.ad.Adam(lr=1e-1, uniform=True)
opt['u'] = ls.to_differential(params['shape.positions'])

# --- cell 51 ---
integrator = dray.load_dict({
    'type': 'direct_projective'
})

# --- cell 53 ---
for it in range(args.remesh_iterations):
    total_loss = 0.0
    for sensor_idx in range(sensor_count):
        # Retrieve the surface point positions from the latent variable
        params['shape.positions'] = ls.from_differential(opt['u'])
        params.update()

        img = dray.torch.render(scene_source, params, sensor=sensors[sensor_idx], seed=it, integrator=integrator)

        # L1 Loss
        loss = torch.mean(torch.abs(img - ref_images[sensor_idx]))
        loss.backward()
        total_loss += loss.item()
    opt.step()

    print(f"Iteration {1+it:03d}: Loss = {total_loss:.6f}", end='\r')
print()

# --- cell 55 ---
params['shape.positions'] = ls.from_differential(opt['u'])
params.update()

# --- cell 57 ---
final_imgs = [dray.render(scene_source, sensor=sensors[i], spp=args.spp) for i in range(sensor_count)]
for i, image in enumerate(final_imgs):
    save(args, "shape_optimization_remeshed_%d" % i, image)
print_chamfer("remeshing")
