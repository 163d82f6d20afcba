"""Mitsuba 3's how-to guide "Image I/O and manipulation" (mitsuba-tutorials:
how_to_guides/image_io_and_manipulation.ipynb) on dray, cell by cell: a JPEG read as an 8-bit sRGB
Bitmap, converted to float, given metadata, made from and into numpy arrays; the tutorials'
14-channel EXR split into its layers; Mitsuba's Cornell box rendered, with an aov integrator's
channels read from the sensor's film; a photo resampled with a box filter and written as JPEG.

What differs from the notebook:
- `import drjit as dr; import mitsuba as mi` -> `import dray as mi`; `mi.set_variant` as is (the
  CUDA variant is skipped as Mitsuba skips it without a GPU, so the OptiX denoiser cells, which
  run only under CUDA, do nothing here as they do in Mitsuba on a CPU)
- `mi.TensorXf(bmp)` -> `np.array(bmp)` (Dr.Jit's tensors are numpy arrays here)
- images written to OUTPUT/image_io_*.png instead of shown with matplotlib (`plt.imshow`)

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/image_io_and_manipulation.py [--spp S] [--output DIR];
prints the notebook's Bitmap printouts (uint8 rgb 1500 x 1500, 6.44 MiB; float32, 25.7 MiB; the
EXR's 14 channels; 64 x 64, 48 KiB).
"""
import os
import tempfile

import numpy as np

import dray as mi
from _tutorial import arguments

args = arguments(__doc__, spp=1)
os.makedirs(args.output, exist_ok=True)


def show(name, image):
    mi.util.write_bitmap(os.path.join(args.output, "image_io_%s.png" % name), image)


mi.set_variant('scalar_rgb')
# --- cell 4 ---
bmp = mi.Bitmap('../scenes/textures/flower_photo.jpeg')
# --- cell 6 ---
print(bmp)
# --- cell 10 ---
bmp = bmp.convert(
    pixel_format=mi.Bitmap.PixelFormat.RGB,
    component_format=mi.Struct.Type.Float32,
    srgb_gamma=True
)
print(bmp)
# --- cell 12 ---
bmp.metadata()['test'] = 'foo'
bmp.metadata()['bar'] = 4.0
print(bmp)
# --- cell 14 ---
show("flower", bmp)
# --- cell 16 ---
# Seamless convertion Bitmap -> np.ndarray
bmp_np = np.array(bmp)
print(type(bmp_np), bmp_np.dtype, bmp_np.shape)
# --- cell 17 ---
# It is also possible to create a Bitmap object from a numpy array
bmp_np = mi.Bitmap(np.tile(np.linspace(0, 1, 100), (100, 1)).reshape((100, 100, 1)))
show("ramp", bmp_np)
print(bmp_np)
# --- cell 19 ---
bmp_exr = mi.Bitmap('../scenes/textures/multi_channels.exr')
print(bmp_exr)
# --- cell 21 ---
# Here we convert the list of pairs into a dict for easier use
res = dict(bmp_exr.split())
for name in ('image', 'sh_normal', 'depth'):
    print(name, res[name].pixel_format(), res[name].channel_names())
show("image", res['image'].convert(mi.Bitmap.PixelFormat.RGB))
# --- cell 23 ---
data = np.zeros((64, 64, 5))
# Construct a bitmap object giving channel names
bmp_multi = mi.Bitmap(data, channel_names=['A.x', 'A.y', 'B.x', 'B.y', 'B.z'])
print(bmp_multi)
# --- cell 25 ---
# Set a variant (in order of preference)
mi.set_variant('cuda_ad_rgb', 'llvm_ad_rgb')
# Use the `box` reconstruction filter
scene_description = mi.cornell_box()
scene_description['sensor']['film']['rfilter']['type'] = 'box'
scene = mi.load_dict(scene_description)
noisy = mi.render(scene, spp=args.spp)
if 'cuda' in mi.variant():
    raise SystemExit("unreachable: dray has no CUDA variant")
show("cbox_noisy", mi.util.convert_to_bitmap(noisy))
# --- cell 27 ---
integrator = mi.load_dict({
    'type': 'aov',
    'aovs': 'albedo:albedo,normals:sh_normal',
    'integrator': {
        'type': 'path',
    }
})
sensor = scene.sensors()[0]
to_sensor = sensor.world_transform().inverse()
mi.render(scene, spp=args.spp, integrator=integrator)
noisy_multichannel = sensor.film().bitmap()
print("film channels:", noisy_multichannel.channel_names())
noisy = dict(noisy_multichannel.split())['<root>']
show("cbox_root", mi.util.convert_to_bitmap(noisy))
show("cbox_albedo", dict(noisy_multichannel.split())['albedo'])
# --- cell 30 ---
mi.set_variant('scalar_rgb')
rfilter = mi.load_dict({'type': 'box'})
bmp_small = bmp.resample([64, 64], rfilter)
show("flower_small", bmp_small)
print(bmp_small)
# --- cell 32 ---
# Convert image to uint8
bmp_small = bmp_small.convert(mi.Bitmap.PixelFormat.RGB, mi.Struct.Type.UInt8, True)
# Write image to a JPEG file (here, in a temporary directory)
output_file = os.path.join(tempfile.gettempdir(), 'flower_photo_downscale.jpeg')
bmp_small.write(output_file)
# Use the helper function to achieve the same result
mi.util.write_bitmap(output_file, bmp_small, write_async=True)
# --- cell 34 ---
img = np.array(bmp)
print(img.shape)
# --- cell 36 ---
# Some tensorial manipulation (here we blackout the upper left corner of the image)
img[:750, :750, :] = 0.0
# Create a Bitmap from the TensorXf object
bmp_new = mi.Bitmap(img)
# Specify that the underlying data is already gamma corrected
bmp_new.set_srgb_gamma(True)
show("flower_corner", bmp_new)
print(bmp_new)
