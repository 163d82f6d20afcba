"""Mitsuba 3's tutorial "PyTorch and Mitsuba interoperability" (mitsuba-tutorials:
inverse_rendering/pytorch_mitsuba_interoperability.ipynb) on dray: a torch network (one linear
layer of res^2 x res^2 and a sigmoid, per channel) learns to distort a texture so that, seen
through a glass sphere, it renders as the texture itself: four textures, L1 loss, torch's Adam
(lr 2e-4), 100 iterations at 4 spp, the renderer a step of the network's graph.

What differs from the notebook (dray's autodiff is torch's already):
- `import drjit as dr; import mitsuba as mi` -> `import dray, dray.torch`
- `mi.TensorXf(mi.Bitmap(f).convert(RGB, Float32))` (the PNG's values, sRGB-encoded) ->
  `dray.read_image(f)` (linear) encoded back to sRGB
- `@dr.wrap(source='torch', target='drjit')` around `mi.render(scene, params, spp=, seed=,
  seed_grad=)` -> `dray.torch.render(...)`, a torch function itself; `texture.torch()` -> `texture`
- `mitsuba.scalar_rgb.Transform4f` -> `dray.ScalarTransform4f`; `mi.load_dict`, `mi.traverse` ->
  `dray.` the same
- images written to PNG files instead of plotted; --iterations, --spp, --res (the textures
  averaged down: the layer has res^4 weights, 268M at the notebook's 128) for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/pytorch_mitsuba_interoperability.py
[--iterations N] [--spp S] [--res R] [--output DIR]; prints the notebook's line "Training iteration N/N, loss: ...".
"""
import numpy as np
import torch
import torch.nn as nn

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, iterations=100, spp=4, final_spp=512, res=128)


def srgb(linear):
    """The sRGB encoding (what the PNG stores, as Mitsuba's Bitmap.convert keeps it)."""
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(np.maximum(linear, 0), 1 / 2.4) - 0.055)


# --- cell 8 ---
filenames = [
    '../scenes/textures/image_001.png',
    '../scenes/textures/image_002.png',
    '../scenes/textures/image_003.png',
    '../scenes/textures/image_004.png'
]

def texture_at(f, res):
    """The PNG's values at res x res (block means: --res below the files' 128 for a quick run)."""
    t = srgb(dray.read_image(f)[..., :3])
    k = t.shape[0] // res
    return torch.from_numpy(t.reshape(res, k, res, k, 3).mean(axis=(1, 3)).astype(np.float32))


textures = [texture_at(f, args.res) for f in filenames]

# --- cell 10 ---
res = textures[0].shape[0]

# --- cell 12 ---
from dray import ScalarTransform4f as T

scene = dray.load_dict({
    'type': 'scene',
    'integrator': {'type': 'prb'},
    'sensor':  {
        'type': 'perspective',
        'to_world': T().look_at(
                        origin=(0, 0, -2),
                        target=(0, 0, 0),
                        up=(0, -1, 0)
                    ),
        'fov': 60,
        'film': {
            'type': 'hdrfilm',
            'width':  res,
            'height': res,
        },
    },
    'textured_plane': {
        'type': 'rectangle',
        'to_world': T().scale(1.2),
        'bsdf': {
            'type': 'twosided',
            'nested': {
                'type': 'diffuse',
                'reflectance': {
                    'type': 'bitmap',
                    'filename': filenames[0],
                    'format': 'variant'
                },
            }
        }
    },
    'glass_sphere': {
        'type': 'sphere',
        'to_world': T().translate([0, 0, -1]).scale(0.45),
        'bsdf': {
            'type': 'dielectric',
            'int_ior': 1.06,
        },
    },
    'light': {
        'type': 'constant',
    }
})

params = dray.traverse(scene)
key = 'textured_plane.bsdf.brdf_0.reflectance.data'


# --- cell 14 ---
def render_texture(texture, spp=256, seed=1):
    params[key] = texture
    params.update()
    return dray.torch.render(scene, params, spp=spp, seed=seed, seed_grad=seed+1)


# --- cell 18 ---
class Model1(nn.Module):
    def __init__(self):
        super(Model1, self).__init__()
        self.layers = nn.Sequential(
            nn.Linear(res**2, res**2),
            nn.Sigmoid(),
        )

    def forward(self, texture):
        # Evaluate the model one channel as a time
        rgb = [self.layers(texture[:, :, i].reshape(-1)) for i in range(3)]
        # Reconstruct and return the 3D tensor
        return torch.stack([c.view(res, res) for c in rgb], dim=2)


torch.manual_seed(0)
model = Model1()

# --- cell 22 ---
optimizer = torch.optim.Adam(model.parameters(), lr=0.0002)
loss_fn = nn.L1Loss()

# Optimization hyper-parameters
iteration_count = args.iterations
spp = args.spp

# --- cell 25 ---
model.train(mode=True)

train_losses = []
for i in range(iteration_count):
    loss_accum = 0
    optimizer.zero_grad()
    for j, texture in enumerate(textures):
        rendered_img = render_texture(model(texture), spp=spp, seed=i*len(textures)+j)
        loss = loss_fn(rendered_img, texture)
        loss.backward()
        loss_accum += loss.item()
    optimizer.step()
    train_losses.append(loss_accum)
    print(f'Training iteration {i+1}/{iteration_count}, loss: {train_losses[-1]}', end='\r')
print()

model.train(mode=False)

# --- cell 27 ---
with torch.no_grad():
    for j, texture in enumerate(textures):
        distorted = model(texture)
        save(args, "pytorch_interop_%d_initial" % j, render_texture(texture, spp=args.final_spp).numpy())
        save(args, "pytorch_interop_%d_distorted" % j, distorted.numpy())
        save(args, "pytorch_interop_%d_rendered" % j, render_texture(distorted, spp=args.final_spp).numpy())
