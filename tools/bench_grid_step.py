#!/usr/bin/python3
"""tools/bench's density-grid figure (issue 54): the median seconds of a gradient iteration (render,
then dray.backward by the whole sigma_t block) of scenes/smoke-fit.json with a 64^3 grid at 64 spp
against a 16^3 one at 8 spp (Mitsuba's volume tutorial's two stages): a grid's gradient should
cost its samples (8x), not its voxels (64x). Usage: bench_grid_step.py SCENES ITERATIONS; prints
`#kv grid_64_over_16 R`."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import dray

scenes, iterations = sys.argv[1], int(sys.argv[2])
make_vol = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-vol")
seconds = {}
with tempfile.TemporaryDirectory() as folder:
    for res, spp in ((16, 8), (64, 64)):
        grid = os.path.join(folder, "g%d.vol" % res)
        subprocess.run([sys.executable, make_vol, grid, "--res", str(res), "--constant", "0.05"], check=True, capture_output=True)
        scene = dray.load(os.path.join(scenes, "smoke-fit.json"), **{"media.smoke.sigma_t.filename": grid})
        target = np.zeros((scene.height, scene.width, 3), np.float32)
        times = []
        for i in range(iterations):
            t0 = time.perf_counter()
            image = dray.render(scene, spp=spp, seed=2 * i)
            dray.backward(scene, 2 * (image - target) / image.size, wrt=["media.smoke.sigma_t"], spp=spp, seed=2 * i + 1)
            times.append(time.perf_counter() - t0)
        seconds[res] = statistics.median(times)
print("#kv grid_64_over_16 %.3f" % (seconds[64] / seconds[16]))
