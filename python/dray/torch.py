"""dray as a PyTorch function, as Mitsuba's ``mi.render(scene, params, spp=, seed=, sensor=)``:
``image = dray.torch.render(scene, params, spp, seed)`` renders the scene and, on ``backward()``,
passes each input tensor ∂L/∂θ from dray's reverse mode (the adjoint image of whatever loss torch
computed). ``params`` is the scene's parameters (``dray.traverse(scene)``: its values set from
tensors that require grad are the inputs, a dray.ad.Adam's or a latent variable's image) or a
dict {name: tensor}. Needs torch (Debian python3-torch); dray itself does not."""
import numpy as np
import torch

import dray
from .params import SceneParameters


def _values(tensors):
    return {n: t.detach().cpu().numpy().astype(np.float32) for n, t in tensors.items()}


def _ensure(scene, values):
    """Sets the values unless the scene holds them already (a mesh is not rebuilt for nothing)."""
    changed = {n: v for n, v in values.items() if not np.array_equal(scene._param(n).reshape(v.shape), v)}
    if changed:
        scene.update(changed)


class _Render(torch.autograd.Function):
    @staticmethod
    def forward(ctx, scene, names, options, *tensors):
        values = _values(dict(zip(names, tensors)))
        _ensure(scene, values)
        image = dray.render(scene, spp=options["spp"], seed=options["seed"], comm=options["comm"], sensor=options["sensor"],
                            integrator=options["integrator"])
        ctx.dray = (scene, names, values, options)
        ctx.tensors = [(t.shape, t.dtype, t.device) for t in tensors]
        ctx.shape = image.shape
        return torch.from_numpy(image)

    @staticmethod
    def backward(ctx, grad_image):
        scene, names, values, options = ctx.dray
        _ensure(scene, values)  # the values this image was rendered with
        d = grad_image.detach().cpu().numpy().astype(np.float32)
        g = dray.backward(scene, d, wrt=names, spp=options["spp_grad"], seed=options["seed_grad"], comm=options["comm"],
                          sensor=options["sensor"], integrator=options["integrator"])
        grads = tuple(torch.from_numpy(np.asarray(g[n], dtype=np.float32)).reshape(shape).to(dtype=dtype, device=device)
                      for n, (shape, dtype, device) in zip(names, ctx.tensors))
        return (None,) * 3 + grads

    @staticmethod
    def jvp(ctx, scene_tangent, names_tangent, options_tangent, *tangents):
        """Forward mode (torch.autograd.forward_ad): Σ tangent · ∂image/∂θ from dray's forward mode
        with the primal's samples, one derivative image per scalar with a tangent (at most 64)."""
        scene, names, values, options = ctx.dray
        _ensure(scene, values)
        wanted = [(n, t.detach().cpu().numpy().astype(np.float64).reshape(-1)) for n, t in zip(names, tangents) if t is not None]
        if sum(t.size for _, t in wanted) > 64:
            raise ValueError("forward mode through torch takes up to 64 scalars (one derivative image each); "
                             "use reverse mode (loss.backward()) for blocks")
        images = dray.render_forward(scene, [n for n, _ in wanted], spp=options["spp"], seed=options["seed"],
                                     comm=options["comm"], sensor=options["sensor"],
                                     integrator=options["integrator"]) if wanted else {}
        out = np.zeros(ctx.shape, dtype=np.float64)
        for name, tangent in wanted:
            parts = images[name] if isinstance(images[name], list) else [images[name]]
            for k, image in enumerate(parts):
                out += tangent[k] * image
        return torch.from_numpy(out.astype(np.float32))


def render(scene, params=None, spp=None, seed=0, seed_grad=None, comm=None, sensor=None, spp_grad=None, integrator=None):
    """Renders `scene` as an H×W×3 float32 tensor through which gradients reach the tensors of
    `params`: a SceneParameters (those of its values set from tensors that require grad) or a
    dict {name: tensor} (each of the parameter's shape as scene.params() gives it; set on the
    scene). The backward pass renders again with `seed_grad` (default seed + 1, independent of
    the primal's samples, so that the gradient of a loss of the image is unbiased; Mitsuba's
    seed_grad) at `spp_grad` (default spp) and replays those samples; `sensor` and `integrator` as
    dray.render's."""
    if params is None:
        tensors = {}
    elif isinstance(params, SceneParameters):
        tensors = params.tensors()
    else:
        tensors = dict(params)
    options = {"spp": spp, "seed": seed, "comm": comm, "sensor": sensor, "integrator": integrator,
               "spp_grad": spp if spp_grad is None else spp_grad,
               "seed_grad": seed + 1 if seed_grad is None else seed_grad}
    names = list(tensors)
    return _Render.apply(scene, names, options, *[tensors[n] for n in names])


def _tensor(v):
    """Numbers, tensors or a sequence mixing them as one float32 tensor (gradients kept)."""
    if isinstance(v, torch.Tensor):
        return v.to(torch.float32)
    if isinstance(v, (list, tuple)):
        return torch.stack([_tensor(x).reshape(()) for x in v])
    return torch.as_tensor(np.asarray(v, dtype=np.float32))


class Transform4f:
    """Mitsuba's Transform4f on torch tensors: the chain of dray.ScalarTransform4f (translate,
    scale, rotate(axis, degrees), look_at; each multiplying on the right), differentiable in its
    arguments, so that a pose is a latent variable: ``Transform4f().translate([tx, ty, 0]).rotate([0,
    1, 0], angle) @ points`` maps N×3 points."""

    def __init__(self, matrix=None):
        self.matrix = torch.eye(4) if matrix is None else _tensor(matrix).reshape(4, 4)

    def _then(self, m):
        return Transform4f(self.matrix @ m)

    def translate(self, v):
        v = _tensor(v).reshape(3)
        top = torch.cat([torch.eye(3), v.reshape(3, 1)], dim=1)
        return self._then(torch.cat([top, torch.tensor([[0.0, 0.0, 0.0, 1.0]])], dim=0))

    def scale(self, v):
        v = _tensor(v).reshape(-1)
        v = v.expand(3) if v.numel() == 1 else v
        return self._then(torch.diag(torch.cat([v, torch.ones(1)])))

    def rotate(self, axis, angle):
        a = _tensor(axis).reshape(3)
        a = a / torch.linalg.norm(a)
        theta = _tensor(angle).reshape(()) * (np.pi / 180)
        c, s = torch.cos(theta), torch.sin(theta)
        zero = torch.zeros(())
        cross = torch.stack([torch.stack([zero, -a[2], a[1]]), torch.stack([a[2], zero, -a[0]]),
                             torch.stack([-a[1], a[0], zero])])
        r = c * torch.eye(3) + s * cross + (1 - c) * torch.outer(a, a)
        top = torch.cat([r, torch.zeros(3, 1)], dim=1)
        return self._then(torch.cat([top, torch.tensor([[0.0, 0.0, 0.0, 1.0]])], dim=0))

    def look_at(self, origin, target, up):
        from .mitsuba_dict import ScalarTransform4f
        return self._then(_tensor(ScalarTransform4f().look_at(origin, target, up).matrix))

    def __matmul__(self, other):
        if isinstance(other, Transform4f):
            return Transform4f(self.matrix @ other.matrix)
        p = _tensor(other)
        flat = p.reshape(-1, 3)
        out = flat @ self.matrix[:3, :3].T + self.matrix[:3, 3]
        return out.reshape(p.shape)
