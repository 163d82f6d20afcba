"""dray as a PyTorch function: ``image = dray.torch.render(scene, {name: tensor}, spp, seed,
seed_grad)`` renders the scene with the tensors' values and, on ``backward()``, passes each tensor
∂L/∂θ from dray's reverse mode (the adjoint image of whatever loss torch computed). Needs torch
(Debian python3-torch); dray itself does not."""
import numpy as np
import torch

import dray


class _Render(torch.autograd.Function):
    @staticmethod
    def forward(ctx, scene, names, spp, seed, seed_grad, comm, *tensors):
        values = {n: t.detach().cpu().numpy().astype(np.float32) for n, t in zip(names, tensors)}
        scene.update(values)
        image = dray.render(scene, spp=spp, seed=seed, comm=comm)
        ctx.dray = (scene, names, values, spp, seed_grad, comm)
        ctx.tensors = [(t.shape, t.dtype, t.device) for t in tensors]
        return torch.from_numpy(image)

    @staticmethod
    def backward(ctx, grad_image):
        scene, names, values, spp, seed_grad, comm = ctx.dray
        scene.update(values)  # the values this image was rendered with
        d = grad_image.detach().cpu().numpy().astype(np.float32)
        g = dray.backward(scene, d, wrt=names, spp=spp, seed=seed_grad, comm=comm)
        grads = tuple(torch.from_numpy(np.asarray(g[n], dtype=np.float32)).reshape(shape).to(dtype=dtype, device=device)
                      for n, (shape, dtype, device) in zip(names, ctx.tensors))
        return (None,) * 6 + grads


def render(scene, params, spp=None, seed=0, seed_grad=1, comm=None):
    """Renders `scene` with `params` ({name: tensor}, each of the parameter's shape as
    scene.params() gives it) as an H×W×3 float32 tensor. Gradients flow to every tensor given:
    the backward pass renders again with `seed_grad` (independent of the primal's `seed`, so that
    the gradient of a loss of the image is unbiased) and replays those samples."""
    names = list(params)
    return _Render.apply(scene, names, spp, seed, seed_grad, comm, *[params[n] for n in names])
