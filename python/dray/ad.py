"""Optimizers over scene parameters as Mitsuba's ``mi.ad``: ``dray.ad.Adam`` and
``dray.ad.LargeSteps``. Mitsuba's loop runs as written, with torch as the autodiff:

    params = dray.traverse(scene)
    opt = dray.ad.Adam(lr=0.05)
    opt[key] = params[key]                 # a leaf tensor that requires grad
    params.update(opt)
    for it in range(50):
        image = dray.torch.render(scene, params, spp=4)
        loss = torch.mean(torch.square(image - image_ref))
        loss.backward()                    # dray's reverse mode fills opt[key].grad
        opt.step()
        opt[key] = torch.clip(opt[key], 0.0, 1.0)   # keeps Adam's moments (same shape)
        params.update(opt)

Without torch (or with ``torch=False``) the values are numpy arrays and ``opt.step(grads)`` takes
``dray.backward``'s result.
"""
from collections.abc import MutableMapping

import numpy as np

from . import _dray


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _is_tensor(value):
    torch = _torch() if type(value).__module__.startswith("torch") else None
    return torch is not None and isinstance(value, torch.Tensor)


def as_numpy(value, dtype=np.float64):
    """A value (number, sequence, numpy array or torch tensor) as a numpy array, detached."""
    if _is_tensor(value):
        value = value.detach().cpu().numpy()
    return np.array(value, dtype=dtype)


class Adam(MutableMapping):
    """Adam (Kingma and Ba 2015) as Mitsuba's (drjit.opt.Adam; dray's one Adam, ad/adam.h, which
    ``dray optimize`` steps too): beta_1 0.9, beta_2 0.999, epsilon
    1e-8, the step lr·√(1−β₂ᵗ)/(1−β₁ᵗ)·m/(√v + ε). ``uniform=True``: UniformAdam (Nicolet et al.
    2021), v the largest second moment of each parameter. ``mask_updates=True``: components
    whose gradient is 0 stay, with their moments.

    ``lr``: one rate, or {name: rate}. ``opt[name] = value`` registers a parameter or, when it is
    known and keeps its shape, overwrites its value and keeps its moments (Mitsuba's rule: a
    clip of the value does not reset Adam); a new shape resets them. ``params`` (a scene's
    parameters) with ``keys`` registers those names and projects every step onto their domains
    (a roughness > 0, a reflectance in [0, 1]), as ``dray optimize`` does.

    ``torch``: the values are leaf tensors that require grad (float32; ``step()`` reads their
    ``.grad``), by default whenever torch can be imported; else numpy arrays (float64)."""

    def __init__(self, lr, params=None, keys=(), beta_1=0.9, beta_2=0.999, epsilon=1e-8, uniform=False,
                 mask_updates=False, torch=None):
        if isinstance(lr, dict):
            self.lr, self._default_lr = dict(lr), None
        else:
            self.lr, self._default_lr = {}, float(lr)
        if not 0 <= beta_1 < 1 or not 0 <= beta_2 < 1:
            raise ValueError("beta_1 and beta_2 must be in [0, 1)")
        if epsilon < 0:
            raise ValueError("epsilon must be >= 0")
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.uniform, self.mask_updates = uniform, mask_updates
        self._torch = _torch() if torch is None or torch else None
        if torch and self._torch is None:
            raise ImportError("Adam(torch=True) needs torch (Debian: python3-torch)")
        self._params = params
        self._values, self._leaves, self._m, self._v, self._t = {}, {}, {}, {}, {}
        for k in keys:
            self[k] = params[k]

    def set_learning_rate(self, lr):
        """A new rate for every parameter (a number) or for those named ({name: rate})."""
        if isinstance(lr, dict):
            self.lr.update(lr)
        else:
            self._default_lr, self.lr = float(lr), {}

    def learning_rate(self, name=None):
        """The rate of parameter `name`, or the default rate (Mitsuba's ``opt.learning_rate()``)."""
        return self.lr.get(name, self._default_lr) if name is not None else self._default_lr

    def _leaf(self, name):
        value = self._values[name]
        if self._torch is None:
            return value.copy()
        leaf = self._torch.tensor(value, dtype=self._torch.float32, requires_grad=True)
        self._leaves[name] = leaf
        return leaf

    def __getitem__(self, name):
        if self._torch is not None and name in self._leaves:
            return self._leaves[name]
        return self._leaf(name)

    def __setitem__(self, name, value):
        value = as_numpy(value)
        known = name in self._values and self._values[name].shape == value.shape
        self._values[name] = value
        self._leaves.pop(name, None)
        if not known:
            self._m[name], self._v[name], self._t[name] = np.zeros_like(value), np.zeros_like(value), 0

    def __delitem__(self, name):
        for d in (self._values, self._m, self._v, self._t):
            del d[name]
        self._leaves.pop(name, None)

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def reset(self, name=None):
        """Forgets the moments of one parameter, or of all."""
        for n in [name] if name is not None else list(self._values):
            self._m[n], self._v[n], self._t[n] = np.zeros_like(self._values[n]), np.zeros_like(self._values[n]), 0

    def _gradients(self):
        """{name: gradient} of the leaf tensors handed out since the last step (torch's .grad)."""
        return {n: leaf.grad for n, leaf in self._leaves.items() if leaf.grad is not None}

    def step(self, grads=None):
        """One Adam step: from {name: ∂L/∂value} (dray.backward's result), or without it from the
        ``.grad`` torch left on the values (after ``loss.backward()``). A parameter without a
        gradient stays; non-finite gradient components move nothing."""
        if grads is None:
            if self._torch is None:
                raise ValueError("step() without gradients reads torch's .grad: give step(grads) (dray.backward's result)")
            grads = self._gradients()
        for name, g in grads.items():
            if name in self._values:
                self._step(name, as_numpy(g).reshape(self._values[name].shape))
        self._leaves.clear()  # the next opt[name] is a new leaf at the new value

    def _step(self, name, g):
        rate = self.lr.get(name, self._default_lr)
        if rate is None:
            raise ValueError("no learning rate for %s (give lr as a number or include it)" % name)
        self._t[name] += 1
        step = _dray.adam_step(np.ascontiguousarray(g, dtype=np.float64).reshape(-1), self._m[name].reshape(-1),
                               self._v[name].reshape(-1), self._t[name], self.beta_1, self.beta_2, self.epsilon,
                               self.uniform, self.mask_updates)
        value = self._values[name] - rate * step.reshape(self._values[name].shape)
        if self._params is not None:
            value = np.asarray(self._params.project(name, value), dtype=np.float64)
        self._values[name] = value

    def __repr__(self):
        return "Adam(%d parameters)" % len(self)


class LargeSteps:
    """"Large Steps in Inverse Rendering of Geometry" (Nicolet et al. 2021) as Mitsuba's
    ``mi.ad.LargeSteps(verts, faces, lambda_)``: the latent u = (I + λL) v of vertex positions v
    (V×3), L the mesh's combinatorial Laplacian, with coincident vertices fused (a seam cannot
    tear). ``to_differential(v)`` gives u, ``from_differential(u)`` solves for v; both take numpy
    arrays or torch tensors, and with tensors ``from_differential`` is differentiable (its
    adjoint is the same solve: the matrix is symmetric). The factorization is scipy's (splu)."""

    def __init__(self, verts, faces, lambda_=19.0):
        import scipy.sparse
        import scipy.sparse.linalg
        v, f = as_numpy(verts), np.asarray(as_numpy(faces, np.int64))
        if v.ndim != 2 or v.shape[1] != 3 or f.ndim != 2 or f.shape[1] != 3:
            raise ValueError("LargeSteps: expected (V, 3) vertices and (F, 3) faces, got %s and %s" % (v.shape, f.shape))
        _, self.index, inverse = np.unique(v, return_index=True, return_inverse=True, axis=0)
        self.inverse = inverse.reshape(-1)
        n = len(self.index)
        fu = self.inverse[f]
        i = fu[:, [1, 2, 0]].reshape(-1)
        j = fu[:, [2, 0, 1]].reshape(-1)
        edges = np.unique(np.stack([np.concatenate([i, j]), np.concatenate([j, i])]), axis=1)
        adjacency = scipy.sparse.coo_matrix((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(n, n)).tocsr()
        degree = np.asarray(adjacency.sum(axis=1)).reshape(-1)
        self.matrix = (scipy.sparse.identity(n) + lambda_ * (scipy.sparse.diags(degree) - adjacency)).tocsc()
        self._solve = scipy.sparse.linalg.factorized(self.matrix)

    def to_differential(self, verts):
        """u = (I + λL) v over the fused vertices (U×3)."""
        if _is_tensor(verts):
            torch = _torch()
            return torch.from_numpy(self.matrix @ as_numpy(verts)[self.index]).to(verts.dtype)
        return self.matrix @ as_numpy(verts)[self.index]

    def _solve_columns(self, u):
        return np.stack([self._solve(u[:, c]) for c in range(u.shape[1])], axis=1)

    def from_differential(self, u):
        """v (V×3) from u: (I + λL)⁻¹ u, unfused; differentiable for tensors."""
        if not _is_tensor(u):
            return self._solve_columns(as_numpy(u))[self.inverse]
        return _solve_op(self).apply(u)[self.inverse]


def _solve_op(steps):
    torch = _torch()

    class Solve(torch.autograd.Function):
        @staticmethod
        def forward(ctx, u):
            return torch.from_numpy(steps._solve_columns(as_numpy(u))).to(u.dtype)

        @staticmethod
        def backward(ctx, grad):
            return torch.from_numpy(steps._solve_columns(as_numpy(grad))).to(grad.dtype)

    return Solve
