"""Mitsuba 3's tutorial "Editing a scene" (mitsuba-tutorials: rendering/editing_a_scene.ipynb) on
dray: the tutorial's simple.xml (a teapot under two point lights) loaded, its parameters listed by
Mitsuba's keys, the lights tinted and the teapot moved through them, and rendered again.

What differs from the notebook:
- `import drjit as dr; import mitsuba as mi` -> `import dray, numpy as np`
- `mi.load_file`, `mi.render`, `mi.traverse` -> `dray.` the same; `print(params)` prints Mitsuba's
  table with dray's names, each beside its Mitsuba key
- `mi.TensorXf([[0, 0, 0.5]])` -> `np.array([[0, 0, 0.5]])`
- images written to PNG files instead of shown (matplotlib); --spp for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/editing_a_scene.py [--spp S] [--output DIR]
"""
import numpy as np

import dray
from _tutorial import arguments, save

args = arguments(__doc__, spp=128)

# --- cell 1 ---
scene = dray.load_file("../scenes/simple.xml")

# --- cell 2 ---
original_image = dray.render(scene, spp=args.spp)
save(args, "editing_a_scene_original", original_image)

# --- cell 3 ---
params = dray.traverse(scene)
print(params)

# --- cell 4 ---
print('sensor.near_clip:             ', params['sensor.near_clip'])
print('teapot.bsdf.reflectance.value:', params['teapot.bsdf.reflectance.value'])
print('light1.intensity.value:       ', params['light1.intensity.value'])

# --- cell 5 ---
# Give a red tint to light1 and a green tint to light2
params['light1.intensity.value'] *= [1.5, 0.2, 0.2]
params['light2.intensity.value'] *= [0.2, 1.5, 0.2]

# Apply updates
params.update()

# --- cell 6 ---
# Translate the teapot a little bit
params['teapot.positions'] += np.array([[0, 0, 0.5]])

# Apply changes
params.update()

# --- cell 7 ---
modified_image = dray.render(scene, spp=args.spp)
save(args, "editing_a_scene_modified", modified_image)
