"""Optimizers over scene parameters as Mitsuba's ``mi.ad``: ``dray.ad.Adam``, ``dray.ad.SGD`` and
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
import sys
from collections.abc import Mapping, MutableMapping

import numpy as np

from . import _dray
from .shard import Shard


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _is_tensor(value):
    """Whether value is a torch tensor (torch is not imported for the question)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def as_numpy(value, dtype=np.float64):
    """A value (number, sequence, numpy array or torch tensor) as a numpy array, detached."""
    if _is_tensor(value):
        value = value.detach().cpu().numpy()
    return np.array(value, dtype=dtype)


def _in_place_free(torch):
    """A leaf tensor type whose in-place arithmetic (``opt[k] *= 0.5``, ``opt[k] += 1``) gives a new
    tensor, which ``opt[k] = …`` then takes, as Mitsuba's optimizers allow; other operations give
    plain tensors."""
    global _Value
    if _Value is None:
        class Value(torch.Tensor):
            __torch_function__ = torch._C._disabled_torch_function_impl

            def __iadd__(self, other):
                return torch.Tensor.__add__(self, other)

            def __isub__(self, other):
                return torch.Tensor.__sub__(self, other)

            def __imul__(self, other):
                return torch.Tensor.__mul__(self, other)

            def __itruediv__(self, other):
                return torch.Tensor.__truediv__(self, other)

        _Value = Value
    return _Value


_Value = None


class Optimizer(MutableMapping):
    """What Mitsuba's optimizers share (drjit.opt.Optimizer): a mapping of named values, each with
    its own state, stepped by gradients. ``opt[name] = value`` registers a parameter or, when it is
    known and keeps its shape, overwrites its value and keeps its state (Mitsuba's rule: a clip of
    the value does not reset it); a new shape resets it. In-place arithmetic on a value
    (``opt[name] *= 0.5``) assigns the result. ``params``: a mapping whose entries are registered
    (a scene's parameters: all of them, or those named by ``keys``; with a scene's parameters every
    step is projected onto their domains, as ``dray optimize`` does).

    ``lr``: one rate, or {name: rate}. ``mask_updates=True``: components whose gradient is 0 stay,
    with their state. ``torch``: the values are leaf tensors that require grad (float32;
    ``step()`` reads their ``.grad``), by default whenever torch can be imported; else numpy
    arrays (float64). ``comm`` (an mpi4py communicator): the state sharded over its ranks as
    ``dray optimize`` shards it (python/dray/shard.py): each rank holds the moments of its 1/N of
    every parameter, steps that piece of the gradient (the same on every rank: ``dray.backward``
    with the same ``comm``) and the values are allgathered; bitwise one process's steps."""

    def __init__(self, lr, params=None, keys=(), mask_updates=False, torch=None, comm=None):
        self._shard = Shard(comm) if comm is not None else None
        if isinstance(lr, dict):
            self.lr, self._default_lr = dict(lr), None
        else:
            self.lr, self._default_lr = {}, float(lr)
        self.mask_updates = mask_updates
        self._torch = _torch() if torch is None or torch else None
        if torch and self._torch is None:
            raise ImportError("%s(torch=True) needs torch (Debian: python3-torch)" % type(self).__name__)
        self._params = params if hasattr(params, "project") else None  # a scene's parameters: their domains
        self._values, self._leaves, self._state, self._t = {}, {}, {}, {}
        if isinstance(keys, str):
            keys = [keys]
        if params is not None and not isinstance(params, Mapping):
            raise TypeError("params must be a mapping of names to values (a dict or a scene's parameters), got %r"
                            % type(params).__name__)
        for k in (keys or (list(params) if params is not None else [])):
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
        leaf = self._torch.tensor(value, dtype=self._torch.float32).as_subclass(_in_place_free(self._torch))
        leaf.requires_grad_(True)
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
            self._state[name], self._t[name] = self._new_state(self._owned(name, value)), 0

    def __delitem__(self, name):
        for d in (self._values, self._state, self._t):
            del d[name]
        self._leaves.pop(name, None)

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def reset(self, name=None):
        """Forgets the state (moments, momentum) of one parameter, or of all."""
        for n in [name] if name is not None else list(self._values):
            self._state[n], self._t[n] = self._new_state(self._owned(n, self._values[n])), 0

    def _owned(self, name, value):
        """The part of `value` whose state this rank holds: all of it, or its piece under `comm`."""
        if self._shard is None:
            return value
        begin, end = self._shard.bounds(value.size, whole=self._whole())
        return value.reshape(-1)[begin:end]

    def _whole(self):
        """Whether a parameter's step needs the whole of it (then rank 0 owns it under `comm`)."""
        return False

    def _gradients(self):
        """{name: gradient} of the leaf tensors handed out since the last step (torch's .grad)."""
        return {n: leaf.grad for n, leaf in self._leaves.items() if leaf.grad is not None}

    def step(self, grads=None):
        """One step: from {name: ∂L/∂value} (dray.backward's result), or without it from the
        ``.grad`` torch left on the values (after ``loss.backward()``). A parameter without a
        gradient stays; non-finite gradient components move nothing."""
        if grads is None:
            if self._torch is None:
                raise ValueError("step() without gradients reads torch's .grad: give step(grads) (dray.backward's result)")
            grads = self._gradients()
        for name, g in grads.items():
            if name in self._values:
                # The gradient's own float64 copy, which the step overwrites: one array of the
                # parameter's size beside its value and state (a 192³ grid: 8 B a scalar).
                g = as_numpy(g).reshape(self._values[name].shape)
                rate = self.lr.get(name, self._default_lr)
                if rate is None:
                    raise ValueError("no learning rate for %s (give lr as a number or include it)" % name)
                self._t[name] += 1
                value = self._values[name]
                if self._shard is None:
                    step = self._update(name, g)
                    step *= rate
                    value -= step
                else:  # this rank's piece stepped, then every rank's gathered
                    flat = value.reshape(-1)
                    begin, end = self._shard.bounds(flat.size, whole=self._whole())
                    step = self._update(name, np.ascontiguousarray(g.reshape(-1)[begin:end]))
                    step *= rate
                    flat[begin:end] -= step
                    self._shard.allgather(flat, self._whole())
                del step, g
                if self._params is not None:
                    self._params._project_in_place(name, value)
        self._leaves.clear()  # the next opt[name] is a new leaf at the new value

    def __repr__(self):
        lr = self._default_lr if not self.lr else dict(self.lr, default=self._default_lr)
        return "%s[\n  lr = %s,\n  variables = %s\n]" % (type(self).__name__, lr, list(self._values))


class Adam(Optimizer):
    """Adam (Kingma and Ba 2015) as Mitsuba's (drjit.opt.Adam; dray's one Adam, ad/adam.h, which
    ``dray optimize`` steps too): beta_1 0.9, beta_2 0.999, epsilon 1e-8, the step
    lr·√(1−β₂ᵗ)/(1−β₁ᵗ)·m/(√v + ε). ``uniform=True``: UniformAdam (Nicolet et al. 2021), v the
    largest second moment of each parameter. The rest as dray.ad.Optimizer's."""

    def __init__(self, lr, params=None, keys=(), beta_1=0.9, beta_2=0.999, epsilon=1e-8, uniform=False,
                 mask_updates=False, torch=None, comm=None):
        if not 0 <= beta_1 < 1 or not 0 <= beta_2 < 1:
            raise ValueError("beta_1 and beta_2 must be in [0, 1)")
        if epsilon < 0:
            raise ValueError("epsilon must be >= 0")
        self.beta_1, self.beta_2, self.epsilon, self.uniform = beta_1, beta_2, epsilon, uniform
        super().__init__(lr, params, keys, mask_updates, torch, comm)

    def _new_state(self, value):
        return np.zeros_like(value), np.zeros_like(value)

    def _whole(self):
        return self.uniform  # the largest second moment of the whole parameter

    def _update(self, name, g):
        m, v = self._state[name]
        return _dray.adam_step(g.reshape(-1), m.reshape(-1), v.reshape(-1), self._t[name], self.beta_1, self.beta_2,
                               self.epsilon, self.uniform, self.mask_updates).reshape(g.shape)


class SGD(Optimizer):
    """Stochastic gradient descent as Mitsuba's (drjit.opt.SGD): the step lr·g, or with
    ``momentum`` μ > 0 the velocity v ← μv + g and the step lr·v (``nesterov=True``: lr·(g + μv)).
    The rest as dray.ad.Optimizer's."""

    def __init__(self, lr, params=None, keys=(), momentum=0.0, nesterov=False, mask_updates=False, torch=None,
                 comm=None):
        if momentum < 0:
            raise ValueError("momentum must be >= 0, got %r" % momentum)
        if nesterov and momentum == 0:
            raise ValueError("nesterov momentum needs momentum > 0")
        self.momentum, self.nesterov = float(momentum), nesterov
        super().__init__(lr, params, keys, mask_updates, torch, comm)

    def _new_state(self, value):
        return np.zeros_like(value)

    def _update(self, name, g):
        finite = np.isfinite(g)
        keep = ~finite | (g == 0) if self.mask_updates else ~finite
        g = np.where(finite, g, 0.0)
        if self.momentum == 0:
            return np.where(keep, 0.0, g)
        v = self._state[name]
        v[...] = np.where(keep, v, self.momentum * v + g)
        return np.where(keep, 0.0, g + self.momentum * v if self.nesterov else v)


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
