"""Mitsuba's curve control points as a parameter (``params['curve.control_points']``, Mitsuba's
key): dray draws a curve as a mesh over its tube (renderer/shapes/curve_mesh.h), whose vertices
are a smooth function of the control points, evaluated here as the loader evaluates it, in numpy,
or in torch for a torch tensor, so that a render's gradient with respect to the vertices reaches
the control points through torch's autograd (``dray.torch.render``)."""
import math

import numpy as np

# A vertex's recipe (renderer/shapes/curve_mesh.h, CurveVertex::Kind).
BSPLINE_RING, CONE_RING, JOINT = 0, 1, 2


class _Ops:
    """numpy's or torch's operations, as the control points are."""

    def __init__(self, like):
        self.torch = not isinstance(like, np.ndarray)
        if self.torch:
            import torch
            self.lib = torch
        else:
            self.lib = np

    def array(self, values, like):
        if self.torch:
            return self.lib.as_tensor(np.asarray(values), dtype=like.dtype, device=like.device)
        return np.asarray(values, dtype=like.dtype)

    def cross(self, a, b):
        return self.lib.linalg.cross(a, b) if self.torch else np.cross(a, b)

    def norm(self, a):
        return self.lib.linalg.norm(a, axis=-1, keepdims=True) if not self.torch else self.lib.linalg.norm(a, dim=-1, keepdim=True)

    def clip(self, a, lo, hi):
        return self.lib.clamp(a, lo, hi) if self.torch else np.clip(a, lo, hi)

    def where(self, mask, a, b):
        return self.lib.where(mask, a, b)

    def stack(self, parts, axis):
        return self.lib.stack(parts, dim=axis) if self.torch else np.stack(parts, axis=axis)

    def place(self, out, index, values):
        if self.torch:
            return out.index_put((self.lib.as_tensor(index, device=out.device),), values)
        out[index] = values
        return out


def _frame(ops, t):
    """Mitsuba's local_frame of unit tangents t: rot the guide z projected off t ((0, 1, 0) where t
    is z), rad = rot x t."""
    z = ops.array([0.0, 0.0, 1.0], t)
    off = z - t * t[:, 2:3]
    length = ops.norm(off)
    y = ops.array([0.0, 1.0, 0.0], t)
    rot = ops.where(length > 1e-12, off / ops.where(length > 1e-12, length, length * 0 + 1), y + off * 0)
    return rot, ops.cross(rot, t)


def _ring(ops, c, dc, r, dr, phi, rim):
    """The swept sphere's ring corner at angle phi (renderer/shapes/curve_mesh.cpp, ring_at)."""
    speed = ops.norm(dc)
    t = dc / speed
    lean = ops.clip(dr[:, None] / speed, -1.0, 1.0)
    centre = c - t * (r[:, None] * lean)
    radius = r[:, None] * (1 - lean * lean) ** 0.5
    rot, rad = _frame(ops, t)
    cos, sin = ops.array(np.cos(phi)[:, None], c), ops.array(np.sin(phi)[:, None], c)
    return centre + (rad * cos + rot * sin) * (radius * rim)


def _bspline(v):
    """The uniform cubic B-spline's basis and its derivative at v (4 x V each)."""
    v2, v3 = v * v, v * v * v
    b = np.stack([-v3 + 3 * v2 - 3 * v + 1, 3 * v3 - 6 * v2 + 4, -3 * v3 + 3 * v2 + 3 * v + 1, v3]) / 6
    db = np.stack([-3 * v2 + 6 * v - 3, 9 * v2 - 12 * v, -9 * v2 + 6 * v + 3, 3 * v2]) / 6
    return b, db


def tube_vertices(points, recipe):
    """The tube's vertex positions (V x 3) for control points `points` (N x 4: x, y, z, radius),
    a numpy array or a torch tensor (then a tensor, differentiable), by the loader's `recipe`."""
    ops = _Ops(points)
    kind, point, axis = recipe["kind"], recipe["point"].astype(np.int64), recipe["axis"].astype(np.int64)
    v, phi, local = recipe["v"], recipe["phi"], recipe["local"]
    rim = math.pi / (recipe["around"] * math.sin(math.pi / recipe["around"]))
    out = ops.lib.zeros((len(kind), 3), dtype=points.dtype, **({"device": points.device} if ops.torch else {}))
    rows = np.nonzero(kind == BSPLINE_RING)[0]
    if len(rows):
        b, db = _bspline(v[rows].astype(np.float64))
        c = dc = r = dr = 0
        for k in range(4):
            p = points[point[rows] + k]
            bk, dbk = ops.array(b[k], points), ops.array(db[k], points)
            c, dc = c + p[:, :3] * bk[:, None], dc + p[:, :3] * dbk[:, None]
            r, dr = r + p[:, 3] * bk, dr + p[:, 3] * dbk
        out = ops.place(out, rows, _ring(ops, c, dc, r, dr, phi[rows], rim))
    rows = np.nonzero(kind == CONE_RING)[0]
    if len(rows):
        p0, p1, end = points[axis[rows]], points[axis[rows] + 1], points[point[rows]]
        out = ops.place(out, rows, _ring(ops, end[:, :3], p1[:, :3] - p0[:, :3], end[:, 3], p1[:, 3] - p0[:, 3], phi[rows], rim))
    rows = np.nonzero(kind == JOINT)[0]
    if len(rows):
        d = points[axis[rows] + 1][:, :3] - points[axis[rows]][:, :3]
        length = ops.norm(d)
        z = ops.array([0.0, 0.0, 1.0], points)
        t = ops.where(length > 0, d / ops.where(length > 0, length, length * 0 + 1), z + d * 0)
        rot, rad = _frame(ops, t)
        w = ops.array(local[rows], points)
        centre = points[point[rows]]
        out = ops.place(out, rows, centre[:, :3] + (rad * w[:, 0:1] + rot * w[:, 1:2] + t * w[:, 2:3]) * centre[:, 3:4])
    return out
