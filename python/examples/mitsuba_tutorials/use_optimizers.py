"""Mitsuba 3's how-to guide "Use optimizers" (mitsuba-tutorials: how_to_guides/use_optimizers.ipynb)
on dray, cell by cell: SGD over a dict of values, in-place changes to an optimizer's values,
gradients by backpropagation, one step; a scene's parameters kept by regular expression, given to
an optimizer, scaled in place and written back; a latent translation of the Cornell box's red wall;
reset, mask_updates and per-parameter learning rates.

What differs from the notebook:
- `import drjit as dr; import mitsuba as mi` -> `import dray as mi, torch`; `mi.set_variant` as is
- `mi.Float(1.0)` -> `torch.tensor(1.0)`, `mi.TensorXf(…)` -> `torch.tensor(…)` (Dr.Jit arrays are
  torch tensors here), `dr.backward(z)` -> `z.backward()`, `dr.grad(x)` -> `x.grad`,
  `dr.grad_enabled(x)` -> `x.requires_grad`, `dr.copy(x)` -> `x.copy()` (numpy)

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/use_optimizers.py; prints the notebook's figures
(x: 1, y: 2; y 3 with its gradient enabled; gradients 1 and 2; after the step x 0.75, y 2.5; the red
reflectance (0.570068, 0.0430135, 0.0443706) and its half).
"""
import torch

import dray as mi
from _tutorial import arguments

args = arguments(__doc__)
mi.set_variant('llvm_ad_rgb')

# --- cell 4 ---
opt = mi.ad.SGD(lr=0.25)
# --- cell 6 ---
opt['x'] = torch.tensor(1.0)
print(opt)
# --- cell 8 ---
opt = mi.ad.SGD(lr=0.25, params={'x': torch.tensor(1.0), 'y': torch.tensor(2.0)})
print(opt)
# --- cell 10 ---
for k, v in opt.items():
    print(f"{k}: {v.item():g}")
# --- cell 12 ---
y = torch.tensor(2.0)
opt['y'] = y  # A copy is made here
opt['y'] += 1.0
print(f"Original:  {y.item():g}, grad_enabled={y.requires_grad}.")
print(f"Optimizer: {opt['y'].item():g}, grad_enabled={opt['y'].requires_grad}.")
# --- cell 14 ---
z = opt['x'] + 2.0 * opt['y']
z.backward()
print(f"x grad={opt['x'].grad.item():g}")
print(f"y grad={opt['y'].grad.item():g}")
# --- cell 16 ---
print(f"Before the gradient step: x={opt['x'].item():g}, y={opt['y'].item():g}")
opt.step()
print(f"After the gradient step:  x={opt['x'].item():g}, y={opt['y'].item():g}")
# --- cell 19 ---
scene = mi.load_file('../scenes/cbox.xml')
params = mi.traverse(scene)
print(params)
# --- cell 21 ---
params.keep(r'.*\.reflectance\.value')
print(params)
# --- cell 23 ---
opt = mi.ad.SGD(lr=0.25, params=params)
print(opt)
# --- cell 25 ---
opt = mi.ad.SGD(lr=0.25)
opt['red.reflectance.value'] = params['red.reflectance.value']
print(opt)
# --- cell 27 ---
opt['red.reflectance.value'] *= 0.5
print(f"params:   {params['red.reflectance.value']}")
print(f"optimize: {opt['red.reflectance.value'].detach().numpy()}")
# --- cell 29 ---
params.update(opt)
print(f"params:   {params['red.reflectance.value']}")
print(f"optimize: {opt['red.reflectance.value'].detach().numpy()}")
# --- cell 31 ---
params = mi.traverse(scene)
opt = mi.ad.SGD(lr=0.25)
# --- cell 33 ---
opt['translation'] = torch.tensor([[0.0, 0.0, 0.0]])
# --- cell 35 ---
# Independent copy of the initial vertex positions
initial_vertex_pos = params['redwall.positions'].copy()


def update_vertex_pos():
    # Translate every vertex by the latent variable
    params['redwall.positions'] = torch.tensor(initial_vertex_pos) + opt['translation']
    # Propagate changes through the scene (e.g. rebuild BVH)
    params.update()


update_vertex_pos()
print("redwall moved by", params['redwall.positions'][0] - initial_vertex_pos[0])
# --- cell 39 ---
opt.reset('translation')
# --- cell 41 ---
opt = mi.ad.SGD(lr=0.25, mask_updates=True)
# --- cell 43 ---
opt['x'] = torch.tensor(1.0)
opt['y'] = torch.tensor(1.0)
opt.set_learning_rate({'x': 0.125, 'y': 0.25})
print("learning rates:", opt.learning_rate('x'), opt.learning_rate('y'))
