"""Mitsuba 3's how-to guide "Transformation toolbox" (mitsuba-tutorials:
how_to_guides/transformation_toolbox.ipynb) on dray, cell by cell: frames, 3x3 and 4x4 transforms,
translations, scales, rotations, look_at, perspective and orthographic projections, to_frame, and
points, vectors and normals mapped by their kinds.

What differs from the notebook:
- `import mitsuba as mi` -> `import dray as mi`; `mi.set_variant` as is
- `mi.Matrix3f(…)` -> a numpy array (Dr.Jit's matrices are numpy arrays here)
- a cell's last expression is printed (a notebook shows it)

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/transformation_toolbox.py; prints the notebook's
figures (the perspective and orthographic printouts, t @ v=[3, 8, 15], t @ p=[3, 9, 17],
t @ n=[1, 0, 0], [6, 2, 2]).
"""
import numpy as np

import dray as mi
from _tutorial import arguments

arguments(__doc__)
mi.set_variant("scalar_rgb")

# --- cell 5 ---
print(mi.Frame3f())  # Empty frame
print(mi.Frame3f(
    [1, 0, 0],  # s
    [0, 1, 0],  # t
    [0, 0, 1],  # n
))
print(mi.Frame3f([0, 1, 0]))  # n
# --- cell 7 ---
frame = mi.Frame3f(
    [0, 0, 1],
    [0, 1, 0],
    [1, 0, 0],
)
world_vector = mi.Vector3f([3, 2, 1])  # In world frame
local_vector = frame.to_local(world_vector)
print(local_vector)
# --- cell 11 ---
# Default constructor is identity matrix
identity = mi.Transform4f()
np_mat = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
mi_mat = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
list_mat = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
# Build from different types
t_from_np = mi.Transform3f(np_mat)
t_from_mi = mi.Transform3f(mi_mat)
t_from_list = mi.Transform3f(list_mat)
# Broadcasting
t_from_value = mi.Transform3f(3)  # Scaled identity matrix
t_from_row = mi.Transform3f([3, 2, 3])  # Broadcast over matrix columns
print(t_from_row)
# --- cell 14 ---
print(mi.Transform4f().translate([10, 20, 30]))
# --- cell 16 ---
print(mi.Transform4f().scale([10, 20, 30]))
# --- cell 18 ---
print(mi.Transform4f().rotate(axis=[0, 1, 0], angle=90))
# --- cell 20 ---
print(mi.Transform4f().look_at(origin=[0, 0, 2], target=[0, 0, 0], up=[0, 1, 0]))
# --- cell 23 ---
trafo = mi.ProjectiveTransform4f().perspective(fov=90, near=0.1, far=10)
print(trafo)
print(trafo @ mi.Point3f(2, -2, 2))
# --- cell 26 ---
trafo = mi.Transform4f().orthographic(near=0.1, far=10)
print(trafo)
print(trafo @ mi.Point3f(1, 2, 3))
# --- cell 28 ---
frame = mi.Frame3f(
    [0, 0, 1],
    [0, 2, 0],
    [3, 0, 0],
)
print(mi.Transform4f().to_frame(frame))
# --- cell 30 ---
t = mi.Transform4f().translate([0, 1, 2])
t = t @ mi.Transform4f().scale([1, 2, 3])
v = mi.Vector3f([3, 4, 5])
p = mi.Point3f([3, 4, 5])
n = mi.Normal3f([1, 0, 0])
print(f"{t @ v=}")
print(f"{t @ p=}")
print(f"{t @ n=}")
# --- cell 32 ---
S = mi.Transform4f().scale(2.0)
T = mi.Transform4f().translate([4, 0, 0])
v = mi.Point3f([1, 1, 1])
trasfo = T @ S
print(trasfo @ v)
# --- cell 34 ---
print(mi.Transform4f().scale(2.0).translate([1, 0, 0]))
# --- cell 36 ---
print(mi.Transform4f().scale(2.0) @ mi.Transform4f().translate([1, 0, 0]))
