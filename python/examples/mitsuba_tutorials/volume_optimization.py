"""Mitsuba 3's tutorial "Volumetric inverse rendering" (mitsuba-tutorials:
inverse_rendering/volume_optimization.ipynb) on dray: a heterogeneous medium's density grid inside
a cube recovered from 5 views under a constant sky: a 16^3 grid fitted for 20 iterations at 8 spp,
then resampled to 64^3 by assignment and fitted for 20 more at 64 spp (Adam lr 0.02, L2 loss, the
density clipped to [1e-6, 1] after every step).

What differs from the notebook (dray's autodiff is torch's, not Dr.Jit's):
- `import drjit as dr; import mitsuba as mi` -> `import dray, dray.torch, torch`
- `mitsuba.ScalarTransform4f` -> `dray.ScalarTransform4f`; `mi.VolumeGrid` -> `dray.VolumeGrid`;
  `dr.full(mi.TensorXf, 0.002, shape)` -> `numpy.full`
- `mi.load_dict`, `mi.traverse`, `mi.ad.Adam` -> `dray.` the same
- `mi.render(scene, params, sensor=, spp=, seed=)` -> `dray.torch.render(...)`; `dr.backward` ->
  `loss.backward()`; `dr.mean(dr.square(...))`, `dr.clip` -> torch's
- `dr.resample(x, shape=(64, 64, 64, 1), filter='linear')` -> torch's trilinear `interpolate`
  (voxel centres aligned, as a linear resampling)
- images written to PNG files instead of plotted; --res, --iterations, --ref-spp, --spp and
  --fine (the grid's second resolution) for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/volume_optimization.py [--iterations N]
[--spp S] [--ref-spp S] [--res R] [--fine F] [--output DIR]; prints each stage's last loss and the
views' mean absolute error against the references (initial, 16^3, 64^3).
"""
import numpy as np
import torch

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, res=64, iterations=20, spp=8, ref_spp=512, fine=64)

# --- cell 2 ---
from dray import ScalarTransform4f as T

sensor_count = 5
sensors = []

for i in range(sensor_count):
    angle = 180.0 / sensor_count * i - 90.0
    sensor_rotation = T().rotate([0, 1, 0], angle)
    sensor_to_world = T().look_at(target=[0, 0, 0], origin=[0, 0, 4], up=[0, 1, 0])
    sensors.append(dray.load_dict({
        'type': 'perspective',
        'fov': 45,
        'to_world': sensor_rotation @ sensor_to_world,
        'film': {
            'type': 'hdrfilm',
            'width': args.res, 'height': args.res,
            'filter': {'type': 'tent'}
        }
    }))

# --- cell 3 ---
scene_dict = {
    'type': 'scene',
    'integrator': {'type': 'prbvolpath'},
    'object': {
        'type': 'cube',
        'bsdf': {'type': 'null'},
        'interior': {
            'type': 'heterogeneous',
            'sigma_t': {
                'type': 'gridvolume',
                'filename': '../scenes/volume.vol',
                'to_world': T().rotate([1, 0, 0], -90).scale(2).translate(-0.5)
            },
            'scale': 40
        }
    },
    'emitter': {'type': 'constant'}
}

scene_ref = dray.load_dict(scene_dict)

# Number of samples per pixel for reference images
ref_spp = args.ref_spp

# --- cell 5 ---
ref_images = [torch.from_numpy(dray.render(scene_ref, sensor=sensors[i], spp=ref_spp)) for i in range(sensor_count)]
for i in range(sensor_count):
    save(args, "volume_optimization_ref_%d" % i, ref_images[i].numpy())

# --- cell 7 ---
v_res = 16

# Modify the scene dictionary
scene_dict['object'] = {
    'type': 'cube',
    'interior': {
        'type': 'heterogeneous',
        'sigma_t': {
            'type': 'gridvolume',
            'grid': dray.VolumeGrid(np.full((v_res, v_res, v_res, 1), 0.002)),
            'to_world': T().translate(-1).scale(2.0)
        },
        'scale': 40.0,
    },
    'bsdf': {'type': 'null'}
}

scene = dray.load_dict(scene_dict)

# --- cell 8 ---
def image_error():
    images = [dray.render(scene, sensor=sensors[i], spp=ref_spp) for i in range(sensor_count)]
    return float(np.mean([np.mean(np.abs(images[i] - ref_images[i].numpy())) for i in range(sensor_count)])), images


error, init_images = image_error()
print(f"initial grid: mean absolute error of the views {error:.5f}")

# --- cell 9 ---
params = dray.traverse(scene)

key = 'object.interior_medium.sigma_t.data'

opt = dray.ad.Adam(lr=0.02)
opt[key] = params[key]
params.update(opt)

iteration_count = args.iterations
spp = args.spp


# --- cells 11 and 14 ---
def fit(spp):
    for it in range(iteration_count):
        total_loss = 0.0
        for sensor_idx in range(sensor_count):
            # Perform the differentiable light transport simulation
            img = dray.torch.render(scene, params, sensor=sensors[sensor_idx], spp=spp, seed=it)

            # L2 loss function
            loss = torch.mean(torch.square(img - ref_images[sensor_idx]))

            # Backpropagate gradients
            loss.backward()

            # Take a gradient step
            opt.step()

            # Clamp the optimized density values. Since we used the `scale` parameter
            # when instantiating the volume, we are in fact optimizing extinction
            # in a range from [1e-6 * scale, scale].
            opt[key] = torch.clip(opt[key], 1e-6, 1.0)

            # Propagate changes to the scene
            params.update(opt)

            total_loss += loss.item()
        print(f"Iteration {it:02d}: error={total_loss:.6g}", end='\r')
    print()


fit(spp)
error, intermediate_images = image_error()
print(f"{v_res}^3 grid: mean absolute error of the views {error:.5f}")

# --- cell 13 ---
fine = args.fine
coarse = opt[key].detach().permute(3, 0, 1, 2)[None]  # 1 x C x Z x Y x X
opt[key] = torch.nn.functional.interpolate(coarse, size=(fine, fine, fine), mode='trilinear',
                                           align_corners=False)[0].permute(1, 2, 3, 0).contiguous()
params.update(opt)

# --- cell 15 ---
fit(8 * spp)
error, final_images = image_error()
print(f"{fine}^3 grid: mean absolute error of the views {error:.5f}")
for i in range(sensor_count):
    save(args, "volume_optimization_final_%d" % i, final_images[i])
