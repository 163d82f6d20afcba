"""Mitsuba 3's tutorial "Gradient-based optimization" (mitsuba-tutorials:
inverse_rendering/gradient_based_opt.ipynb) on dray: the red wall of the tutorial's cbox.xml
recovered from a reference image, cell by cell as the notebook writes it.

What differs from the notebook (dray's autodiff is torch's, not Dr.Jit's):
- `import drjit as dr; import mitsuba as mi; mi.set_variant(...)` -> `import dray, dray.torch, torch`
- `mi.load_file`, `mi.render(scene, spp=)`, `mi.traverse`, `mi.ad.Adam` -> `dray.` the same
- `mi.render(scene, params, spp=4)` (differentiable) -> `dray.torch.render(scene, params, spp=4)`
- `mi.Color3f(...)` -> a list; `dr.mean(dr.square(...))` -> `torch.mean(torch.square(...))`;
  `dr.backward(loss)` -> `loss.backward()`; `dr.clip` -> `torch.clip`; `dr.sum` -> `np.sum`
- the images are written to PNG files instead of shown (`mi.util.convert_to_bitmap`, matplotlib)
- the sizes are options (--iterations, --res) for a quick run; the defaults are the notebook's

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/gradient_based_opt.py [--iterations N] [--res R]
[--output DIR]; the scenes are read from ../shared/mitsuba-tutorials/scenes beside the checkout (or
$DRAY_TUTORIAL_SCENES). Prints the notebook's line: "Iteration 49: parameter error = ...".
"""
import numpy as np
import torch

import dray
import dray.torch
from _tutorial import arguments, save

args = arguments(__doc__, iterations=50, res=128)

# --- cell 2 ---
scene = dray.load_file('../scenes/cbox.xml', res=args.res, integrator='prb')

# --- cell 3 ---
image_ref = dray.render(scene, spp=512)
save(args, "gradient_based_opt_ref", image_ref)

# --- cell 4 ---
params = dray.traverse(scene)

key = 'red.reflectance.value'

# Save the original value
param_ref = np.array(params[key])

# Set another color value and update the scene
params[key] = [0.01, 0.2, 0.9]
params.update()

# --- cell 5 ---
image_init = dray.render(scene, spp=128)
save(args, "gradient_based_opt_init", image_init)

# --- cell 6 ---
opt = dray.ad.Adam(lr=0.05)
opt[key] = params[key]
params.update(opt)

# --- cell 7 ---
image_ref = torch.from_numpy(image_ref)


def mse(image):
    return torch.mean(torch.square(image - image_ref))


# --- cell 8 ---
iteration_count = args.iterations

# --- cell 10 ---
errors = []
for it in range(iteration_count):
    # Perform a (noisy) differentiable rendering of the scene
    image = dray.torch.render(scene, params, spp=4)

    # Evaluate the objective function from the current rendered image
    loss = mse(image)

    # Backpropagate through the rendering process
    loss.backward()

    # Optimizer: take a gradient descent step
    opt.step()

    # Post-process the optimized parameters to ensure legal color values.
    opt[key] = torch.clip(opt[key], 0.0, 1.0)

    # Update the scene state to the new optimized values
    params.update(opt)

    # Track the difference between the current color and the true value
    err_ref = np.sum(np.square(param_ref - params[key]))
    print(f"Iteration {it:02d}: parameter error = [{err_ref:.8g}]", end='\r')
    errors.append(err_ref)
print('\nOptimization complete.')

# --- cell 11 ---
image_final = dray.render(scene, spp=128)
save(args, "gradient_based_opt_final", image_final)
