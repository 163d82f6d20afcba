#!/usr/bin/env python3
"""The Cornell box's wall colours and light (12 scalars) recovered with torch, as
scenes/cbox-fit.job.json does with `dray optimize`: the same target (cbox-truth.json at 1024 spp,
seed 1000003), the same Adam (lr 0.02 for colours, 0.3 for the light, decaying to 0.1x over 300
iterations), bounds, loss (mean squared error) and seeds (iteration i: seed 2i, its gradient 2i + 1).
Run: PYTHONPATH=build/python /usr/bin/python3 python/examples/fit_cbox.py [ITERATIONS]"""
import os
import sys
import time

import torch

import dray
import dray.torch

scenes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenes")
iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 300
target = torch.from_numpy(dray.render(dray.load(os.path.join(scenes, "cbox-truth.json")), spp=1024, seed=1000003))
scene = dray.load(os.path.join(scenes, "cbox-fit.json"))
start = scene.params()
colours = ["materials.red.reflectance", "materials.green.reflectance", "materials.white.reflectance"]
params = {n: torch.tensor(start[n], requires_grad=True) for n in colours + ["materials.lamp.emission"]}
opt = torch.optim.Adam([{"params": [params[n] for n in colours], "lr": 0.02},
                        {"params": [params["materials.lamp.emission"]], "lr": 0.3}])
decay = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.1 ** (1 / (iterations - 1)))
t0 = time.time()
for i in range(iterations):
    opt.zero_grad()
    image = dray.torch.render(scene, params, spp=16, seed=2 * i, seed_grad=2 * i + 1)
    loss = torch.mean((image - target) ** 2)
    loss.backward()
    opt.step()
    decay.step()
    with torch.no_grad():  # the job's bounds
        for n in colours:
            params[n].clamp_(0, 1)
        params["materials.lamp.emission"].clamp_(min=0)
    if i % 50 == 0 or i == iterations - 1:
        print(f"iter {i + 1:4d}  loss {loss.item():.6e}  {time.time() - t0:.1f} s")
for n, t in params.items():
    print(f"  {n:36s} {' '.join(f'{x:.5f}' for x in t.tolist())}")
