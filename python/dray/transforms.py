"""Mitsuba's transforms and the vectors they map: ``ScalarTransform4f`` (also ``Transform4f`` and
``ProjectiveTransform4f``: a 4×4 matrix chained as Mitsuba's, with perspective, orthographic and
to_frame), ``Transform3f`` (3×3, of the plane), ``Point3f``, ``Vector3f`` and ``Normal3f`` (a point
moves with the whole transform, a vector without its translation, a normal by the inverse
transpose) and ``Frame3f``. Numbers print as Dr.Jit prints them: ``[3, 8, 15]``."""
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

    def perspective(self, fov, near, far):
        """Mitsuba's perspective projection: x and y over cot(fov/2), depth from near (0) to far (1)."""
        cot = 1.0 / math.tan(math.radians(fov) / 2)
        m = np.diag([cot, cot, far / (far - near), 0.0])
        m[2, 3], m[3, 2] = -near * far / (far - near), 1.0
        return self._then(m)

    def orthographic(self, near, far):
        """Mitsuba's orthographic projection: depth from near (0) to far (1)."""
        return self._then(np.diag([1.0, 1.0, 1.0 / (far - near), 1.0]) @ ScalarTransform4f().translate([0, 0, -near]).matrix)

    def to_frame(self, frame):
        """The transform from a frame's local coordinates to the world: its axes s, t, n as columns."""
        m = np.eye(4)
        m[:3, 0], m[:3, 1], m[:3, 2] = frame.s, frame.t, frame.n
        return self._then(m)

    def inverse(self):
        return type(self)(np.linalg.inv(self.matrix))

    def __matmul__(self, other):
        if isinstance(other, ScalarTransform4f):
            return type(self)(self.matrix @ other.matrix)
        if isinstance(other, Vector3f) and not isinstance(other, Normal3f):
            return Vector3f(self.matrix[:3, :3] @ other)
        if isinstance(other, Normal3f):
            return Normal3f(np.linalg.inv(self.matrix)[:3, :3].T @ other)
        p = self.matrix @ np.array([*_vec3(other), 1.0])
        return Point3f(p[:3] / p[3])

    def __repr__(self):
        it = _inverse(self.matrix).T
        return "Transform[\n  matrix=%s,\n  inverse_transpose=%s\n]" % (_matrix_text(self.matrix, 9), _matrix_text(it, 20))


def _vec3(v):
    a = np.asarray(v, dtype=np.float64).reshape(-1)
    if a.size == 1:
        return np.full(3, a[0])
    if a.size != 3:
        raise ValueError("expected three numbers, got %r" % (v,))
    return a


def _text(values):
    """Numbers as Dr.Jit prints them: [3, 8, 15], [0.5, 1e-05, -2]."""
    return "[" + ", ".join("%.6g" % float(x) for x in np.asarray(values).reshape(-1)) + "]"


class _Triple(np.ndarray):
    """Three numbers (a numpy array of shape (3,)) that a transform maps by their kind."""

    def __new__(cls, *values):
        a = np.asarray(values[0] if len(values) == 1 else values, dtype=np.float64).reshape(-1)
        if a.size == 1:
            a = np.repeat(a, 3)
        if a.size != 3:
            raise ValueError("%s: expected three numbers (or one, repeated), got %r" % (cls.__name__, values))
        return a.view(cls)

    def __array_wrap__(self, out, context=None, return_scalar=False):
        return np.asarray(out) if out.shape != (3,) else out.view(type(self))

    def __repr__(self):
        return _text(self)

    __str__ = __repr__


class Point3f(_Triple):
    """Mitsuba's Point3f: a transform moves it (translation and projection included)."""


class Vector3f(_Triple):
    """Mitsuba's Vector3f: a transform turns and scales it, without the translation."""


class Normal3f(_Triple):
    """Mitsuba's Normal3f: a transform maps it by its inverse transpose, so that it stays normal
    to the surfaces the transform maps."""


def coordinate_system(n):
    """Two unit vectors s, t completing unit n to a right-handed frame (Duff et al. 2017, as
    Mitsuba's coordinate_system)."""
    n = np.asarray(n, dtype=np.float64)
    sign = math.copysign(1.0, n[2])
    a = -1.0 / (sign + n[2])
    b = n[0] * n[1] * a
    return (np.array([1 + sign * n[0] * n[0] * a, sign * b, -sign * n[0]]),
            np.array([b, sign + n[1] * n[1] * a, -n[1]]))


class Frame3f:
    """Mitsuba's Frame3f: axes s, t, n. ``Frame3f()`` the standard axes, ``Frame3f(n)`` one completed
    around n (coordinate_system), ``Frame3f(s, t, n)`` as given; ``to_local(v)`` and ``to_world(v)``."""

    def __init__(self, *axes):
        if len(axes) == 0:
            s, t, n = np.eye(3)
        elif len(axes) == 1:
            n = np.asarray(axes[0], dtype=np.float64).reshape(3)
            s, t = coordinate_system(n)
        elif len(axes) == 3:
            s, t, n = (np.asarray(a, dtype=np.float64).reshape(3) for a in axes)
        else:
            raise ValueError("Frame3f: give nothing, n, or s, t and n")
        self.s, self.t, self.n = Vector3f(s), Vector3f(t), Normal3f(n)

    def to_local(self, v):
        v = np.asarray(v, dtype=np.float64)
        return Vector3f(np.dot(v, self.s), np.dot(v, self.t), np.dot(v, self.n))

    def to_world(self, v):
        v = np.asarray(v, dtype=np.float64)
        return Vector3f(self.s * v[0] + self.t * v[1] + self.n * v[2])

    def __repr__(self):
        return "Frame3f[\n  s = %s,\n  t = %s,\n  n = %s\n]" % (self.s, self.t, self.n)


def _inverse(m):
    """The inverse, or NaNs for a singular matrix (printed, as Mitsuba prints one)."""
    try:
        return np.linalg.inv(m)
    except np.linalg.LinAlgError:
        return np.full_like(m, np.nan)


def _matrix_text(m, indent):
    rows = [_text(r) for r in m]
    return "[" + (",\n" + " " * (indent + 1)).join(rows) + "]"


class Transform3f:
    """Mitsuba's Transform3f: a 3 × 3 homogeneous transform of the plane. Built from a matrix, a
    number (a scaled identity) or three numbers (each row filled with one of them, Dr.Jit's
    broadcast); translate, scale and rotate (degrees) chain on the right; ``@`` composes and maps
    2-D points."""

    def __init__(self, matrix=None):
        if matrix is None:
            m = np.eye(3)
        else:
            a = np.asarray(matrix, dtype=np.float64)
            m = a * np.eye(3) if a.ndim == 0 else np.repeat(a.reshape(3, 1), 3, axis=1) if a.size == 3 else a.reshape(3, 3)
        self.matrix = np.array(m, dtype=np.float64)

    def _then(self, m):
        return Transform3f(self.matrix @ m)

    def translate(self, v):
        m = np.eye(3)
        m[:2, 2] = np.asarray(v, dtype=np.float64).reshape(2)
        return self._then(m)

    def scale(self, v):
        s = np.asarray(v, dtype=np.float64).reshape(-1)
        return self._then(np.diag([*(np.repeat(s, 2) if s.size == 1 else s), 1.0]))

    def rotate(self, angle):
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        return self._then(np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]))

    def inverse(self):
        return Transform3f(np.linalg.inv(self.matrix))

    def __matmul__(self, other):
        if isinstance(other, Transform3f):
            return Transform3f(self.matrix @ other.matrix)
        p = self.matrix @ np.array([*np.asarray(other, dtype=np.float64).reshape(2), 1.0])
        return p[:2] / p[2]

    def __repr__(self):
        it = _inverse(self.matrix).T
        return "Transform[\n  matrix=%s,\n  inverse_transpose=%s\n]" % (_matrix_text(self.matrix, 9), _matrix_text(it, 20))


Transform4f = ScalarTransform4f  # Mitsuba's names of the same transform in scalar code
ProjectiveTransform4f = ScalarTransform4f
