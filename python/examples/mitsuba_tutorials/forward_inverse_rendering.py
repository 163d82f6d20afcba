"""Mitsuba 3's tutorial "Forward-mode and reverse-mode differentiation" (mitsuba-tutorials:
inverse_rendering/forward_inverse_rendering.ipynb) on dray: the derivative image of the tutorial's
cbox.xml by the green wall's colour (forward mode), then through a latent θ (the colour θ·(0.2,
0.5, 0.8)), with torch's forward mode on dray's.

What differs from the notebook (dray's autodiff is torch's, not Dr.Jit's):
- `import drjit as dr; import mitsuba as mi` -> `import dray, dray.torch, torch` and
  `torch.autograd.forward_ad as fwAD`
- `dr.enable_grad(params[key])` ... `dr.forward(params[key])` -> `params[key] =
  fwAD.make_dual(value, tangent)` inside `with fwAD.dual_level():`, the tangent (1, 1, 1) as
  dr.forward's; `dr.grad(image)` -> `fwAD.unpack_dual(image).tangent`
- `mi.render(scene, params, spp=128)` -> `dray.torch.render(scene, params, spp=128)`
- `mi.Float(0.5)`, `mi.Color3f(...)` -> torch tensors; `dr.max(dr.abs(...))` -> torch's
- images written to EXR files instead of plotted (matplotlib); --spp, --res for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/forward_inverse_rendering.py [--spp S]
[--res R] [--output DIR]; prints the notebook's line "Remapping colors within range: [-v, v]".
"""
import torch
import torch.autograd.forward_ad as fwAD

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, spp=128, res=256)

# --- cell 1 ---
scene = dray.load_file('../scenes/cbox.xml', res=args.res)

with fwAD.dual_level():
    # --- cell 2 ---
    params = dray.traverse(scene)

    key = 'green.reflectance.value'

    # Mark the green wall color parameter as differentiable (its tangent: dr.forward's ones)
    params[key] = fwAD.make_dual(torch.from_numpy(params[key]), torch.ones(3))

    # Propagate this change to the scene internal state
    params.update()

    # --- cell 3 ---
    image = dray.torch.render(scene, params, spp=args.spp)

    # --- cell 4 ---
    # Fetch the image gradient values
    grad_image = fwAD.unpack_dual(image).tangent

# --- cell 6 ---
vlim = torch.max(torch.abs(grad_image)).item()
print(f'Remapping colors within range: [{-vlim:.2f}, {vlim:.2f}]')
save(args, "forward_inverse_rendering_grad", grad_image.numpy(), ".exr")

with fwAD.dual_level():
    # --- cell 7 ---
    # Our latent variable
    theta = fwAD.make_dual(torch.tensor(0.5), torch.tensor(1.0))

    # The wall color now depends on `theta`
    params[key] = torch.stack([0.2 * theta, 0.5 * theta, 0.8 * theta])

    # Propagate this change to the scene internal state
    params.update()

    # --- cell 9 ---
    image = dray.torch.render(scene, params, spp=args.spp)

    # Forward-propagate the gradients to the image
    theta_grad_image = fwAD.unpack_dual(image).tangent

print(f'd image / d theta: mean {theta_grad_image.mean().item():.5f}')
save(args, "forward_inverse_rendering_theta", theta_grad_image.numpy(), ".exr")
