"""Optimizers over scene parameters, as Mitsuba's ``mi.ad.Adam``: a mapping {name: value} that
``step(grads)`` moves (grads from dray.backward) and that ``scene.params().update(opt)`` writes
back. Given the scene's parameters, each step is projected onto every parameter's domain (a
roughness stays > 0, a reflectance in [0, 1]), as ``dray optimize`` does.

    params = scene.params()
    opt = dray.optimizers.Adam(lr=0.02, params=params, keys=["materials.white.reflectance"])
    for i in range(100):
        params.update(opt)
        image = dray.render(scene, seed=2 * i)
        opt.step(dray.backward(scene, 2 * (image - target) / image.size, wrt=list(opt), seed=2 * i + 1))
"""
from collections.abc import MutableMapping

import numpy as np


class Adam(MutableMapping):
    """Adam (Kingma and Ba 2015) with Mitsuba's defaults (beta_1 0.9, beta_2 0.999, epsilon 1e-8).
    ``lr``: one rate, or {name: rate}. ``params`` (a scene's parameters) with ``keys`` registers
    those names at their current values and lets steps be projected onto their domains;
    ``opt[name] = value`` registers one more (and resets its moments)."""

    def __init__(self, lr, params=None, keys=(), beta_1=0.9, beta_2=0.999, epsilon=1e-8):
        if isinstance(lr, dict):
            self.lr = dict(lr)
            self._default_lr = None
        else:
            self.lr, self._default_lr = {}, float(lr)
        if not 0 <= beta_1 < 1 or not 0 <= beta_2 < 1:
            raise ValueError("beta_1 and beta_2 must be in [0, 1)")
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self._params = params
        self._values, self._m, self._v, self._t = {}, {}, {}, {}
        for k in keys:
            self[k] = params[k]

    def set_learning_rate(self, lr):
        """A new rate for every parameter (a number) or for those named ({name: rate})."""
        if isinstance(lr, dict):
            self.lr.update(lr)
        else:
            self._default_lr = float(lr)
            self.lr = {}

    def __getitem__(self, name):
        return self._values[name]

    def __setitem__(self, name, value):
        value = np.array(value, dtype=np.float64)
        self._values[name] = value
        self._m[name] = np.zeros_like(value)
        self._v[name] = np.zeros_like(value)
        self._t[name] = 0

    def __delitem__(self, name):
        for d in (self._values, self._m, self._v, self._t):
            del d[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def step(self, grads):
        """One Adam step from {name: ∂L/∂value} (dray.backward's result); names without a gradient
        stay. Non-finite gradient entries move nothing."""
        for name, g in grads.items():
            if name not in self._values:
                continue
            rate = self.lr.get(name, self._default_lr)
            if rate is None:
                raise ValueError("no learning rate for %s (give lr as a number or include it)" % name)
            g = np.asarray(g, dtype=np.float64).reshape(self._values[name].shape)
            finite = np.isfinite(g)
            g = np.where(finite, g, 0.0)
            self._t[name] += 1
            t = self._t[name]
            self._m[name] = np.where(finite, self.beta_1 * self._m[name] + (1 - self.beta_1) * g, self._m[name])
            self._v[name] = np.where(finite, self.beta_2 * self._v[name] + (1 - self.beta_2) * g * g, self._v[name])
            m_hat = self._m[name] / (1 - self.beta_1 ** t)
            v_hat = self._v[name] / (1 - self.beta_2 ** t)
            value = self._values[name] - rate * m_hat / (np.sqrt(v_hat) + self.epsilon)
            if self._params is not None:
                value = np.asarray(self._params.project(name, value), dtype=np.float64)
            self._values[name] = value

    def __repr__(self):
        return "Adam(%d parameters)" % len(self)
