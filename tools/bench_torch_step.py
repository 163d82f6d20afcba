#!/usr/bin/python3
"""tools/bench's torch figure: the median seconds of one torch step (dray.torch.render with the
seeds of python/examples/fit_cbox.py, the mean squared error, backward, Adam) on the same job as
the bench's `dray optimize` iteration (cbox-fit's colours and emission against cbox-truth at 64
spp, 16 spp). Usage: bench_torch_step.py SCENES ITERATIONS; prints `#kv torch_step_seconds S`."""
import os
import statistics
import sys
import time

import torch

import dray
import dray.torch

scenes, iterations = sys.argv[1], int(sys.argv[2])
target = torch.from_numpy(dray.render(dray.load(os.path.join(scenes, "cbox-truth.json")), spp=64, seed=1000003))
scene = dray.load(os.path.join(scenes, "cbox-fit.json"))
start = scene.params()
names = ["materials.red.reflectance", "materials.green.reflectance", "materials.white.reflectance", "materials.lamp.emission"]
params = {n: torch.tensor(start[n], requires_grad=True) for n in names}
opt = torch.optim.Adam(list(params.values()), lr=0.02)
seconds = []
for i in range(iterations):
    t0 = time.perf_counter()
    opt.zero_grad()
    image = dray.torch.render(scene, params, spp=16, seed=2 * i, seed_grad=2 * i + 1)
    torch.mean((image - target) ** 2).backward()
    opt.step()
    seconds.append(time.perf_counter() - t0)
print(f"#kv torch_step_seconds {statistics.median(seconds[1:]):.6f}")  # the first (warm-up) left out
