"""Mitsuba 3's "Quickstart" (mitsuba-tutorials: quickstart/mitsuba_quickstart.ipynb) on dray: the
variants, the tutorial's Cornell box loaded and rendered, written as PNG and EXR.

What differs from the notebook:
- `import mitsuba as mi` -> `import dray as mi`
- the image written to a PNG (OUTPUT/quickstart_preview.png, the notebook's `image ** (1 / 2.2)`)
  instead of shown with matplotlib; --spp for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/mitsuba_quickstart.py [--spp S] [--output DIR]
"""
import os

import dray as mi
from _tutorial import arguments

args = arguments(__doc__, spp=256)

# --- cell 5 ---
print(mi.variants())
# --- cell 7 ---
mi.set_variant("scalar_rgb")
# --- cell 10 ---
scene = mi.load_file("../scenes/cbox.xml")
# --- cell 12 ---
image = mi.render(scene, spp=args.spp)
# --- cell 14 ---
os.makedirs(args.output, exist_ok=True)
mi.util.write_bitmap(os.path.join(args.output, "quickstart_preview.png"), (image ** (1.0 / 2.2)), write_async=True)
# --- cell 16 ---
mi.util.write_bitmap(os.path.join(args.output, "my_first_render.png"), image)
mi.util.write_bitmap(os.path.join(args.output, "my_first_render.exr"), image)
print("rendered", image.shape, "mean", image.mean())
