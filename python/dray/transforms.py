"""Mitsuba's transforms: ``ScalarTransform4f`` (a 4×4 matrix chained as Mitsuba's)."""
import math
import numbers

import numpy as np


class ScalarTransform4f:
    """Mitsuba's ScalarTransform4f: a 4×4 matrix (``.matrix``). Chained calls multiply on the right,
    as Mitsuba's (``T().translate(t).rotate(axis, deg)`` rotates, then translates); ``a @ b``
    composes; ``T @ point`` (three numbers) maps a point."""

    def __init__(self, matrix=None):
        self.matrix = np.eye(4) if matrix is None else np.array(matrix, dtype=np.float64).reshape(4, 4)

    def _then(self, m):
        return ScalarTransform4f(self.matrix @ m)

    def translate(self, v):
        m = np.eye(4)
        m[:3, 3] = _vec3(v)
        return self._then(m)

    def scale(self, v):
        s = np.full(3, float(v)) if isinstance(v, numbers.Number) else _vec3(v)
        return self._then(np.diag([*s, 1.0]))

    def rotate(self, axis, angle):
        """A rotation by `angle` degrees about `axis` (Rodrigues' formula, Mitsuba's)."""
        a = _vec3(axis)
        a = a / np.linalg.norm(a)
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        m = np.eye(4)
        m[:3, :3] = c * np.eye(3) + s * np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]]) + (1 - c) * np.outer(a, a)
        return self._then(m)

    def look_at(self, origin, target, up):
        """Mitsuba's look_at: +z towards the target, +x = up × z (the image's left)."""
        o, t, u = _vec3(origin), _vec3(target), _vec3(up)
        d = (t - o) / np.linalg.norm(t - o)
        left = np.cross(u, d)
        if np.linalg.norm(left) == 0:
            raise ValueError("look_at: up is parallel to the view direction")
        left /= np.linalg.norm(left)
        m = np.eye(4)
        m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = left, np.cross(d, left), d, o
        return self._then(m)

    def inverse(self):
        return ScalarTransform4f(np.linalg.inv(self.matrix))

    def __matmul__(self, other):
        if isinstance(other, ScalarTransform4f):
            return ScalarTransform4f(self.matrix @ other.matrix)
        p = self.matrix @ np.array([*_vec3(other), 1.0])
        return p[:3] / p[3]

    def __repr__(self):
        return "ScalarTransform4f(%s)" % np.array2string(self.matrix, precision=4)


def _vec3(v):
    a = np.asarray(v, dtype=np.float64).reshape(-1)
    if a.size == 1:
        return np.full(3, a[0])
    if a.size != 3:
        raise ValueError("expected three numbers, got %r" % (v,))
    return a
