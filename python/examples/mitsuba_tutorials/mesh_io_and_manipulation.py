"""Mitsuba 3's how-to guide "Mesh I/O and manipulation" (mitsuba-tutorials:
how_to_guides/mesh_io_and_manipulation.ipynb) on dray, cell by cell: the bunny loaded alone as a
mesh, a wavy disk built from arrays, scaled and half its faces dropped by assignment, placed in a
scene and rendered, written as a PLY, loaded back with a mesh_attribute BSDF, given vertex colours
with add_attribute and rendered again.

What differs from the notebook:
- `import drjit as dr; import mitsuba as mi` -> `import dray as mi, numpy as np`; `mi.set_variant`
  as is (the CUDA variant is skipped, as Mitsuba skips it without a GPU)
- Dr.Jit's array calls are numpy's: `dr.linspace(mi.Float, a, b, n)` -> `np.linspace(a, b, n)`,
  `dr.sincos` -> `np.sin`, `np.cos`, `dr.column_stack` -> `np.column_stack`, `dr.arange(mi.UInt32, n)`
  -> `np.arange(n)`, `dr.full(mi.UInt32, v, shape=n)` -> `np.full(n, v)`, `dr.zeros(mi.TensorXf, s)`
  -> `np.zeros(s)`, `dr.two_pi` -> `2 * np.pi`
- images written to OUTPUT/mesh_io_*.png instead of shown with matplotlib; --spp for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/mesh_io_and_manipulation.py [--spp S] [--output DIR];
prints the notebook's figures (the bunny's bbox and counts: 35947 vertices, 69451 faces, 843 KiB and
814 KiB; the wavy disk's bbox after scaling, 100 vertices, 99 faces).
"""
import os

import numpy as np

import dray as mi
from _tutorial import arguments

args = arguments(__doc__, spp=16)
os.makedirs(args.output, exist_ok=True)

# --- cell 1 ---
mi.set_variant("cuda_ad_rgb", "llvm_ad_rgb")
# --- cell 3 ---
bunny = mi.load_dict({
    "type": "ply",
    "filename": "../scenes/meshes/bunny.ply",
    "face_normals": False,
    "to_world": mi.ScalarTransform4f().rotate([0, 0, 1], angle=10),
})
print(bunny)
# --- cell 6 ---
# Disk with a wavy fringe parameters
N = 100
frequency = 12.0
amplitude = 0.4
# Generate the vertex positions (one vertex per row)
theta = np.linspace(0.0, 2 * np.pi, N)
x, y = np.sin(theta), np.cos(theta)
z = amplitude * np.sin(theta * frequency)
vertex_pos = np.column_stack([x, y, z])
# Move the last vertex to the center
vertex_pos[N - 1, :] = 0.0
# Generate the face indices, likewise one face per row
idx = np.arange(N - 1)
center = np.full(N - 1, N - 1)
face_indices = np.column_stack([center, (idx + 1) % (N - 2), idx % (N - 2)])
# --- cell 8 ---
# Create the mesh, providing its data as field tensors
mesh = mi.Mesh("wavydisk", faces=face_indices, positions=vertex_pos)
# --- cell 10 ---
mesh_params = mi.traverse(mesh)
mesh_params["positions"] = 1.1 * mesh_params["positions"]
print(mesh_params.update())
# --- cell 12 ---
mesh_params["faces"] = mesh_params["faces"][::2]
mesh_params.update()
print("faces after dropping every other one:", mesh.face_count())
# --- cell 14 ---
scene = mi.load_dict({
    "type": "scene",
    "integrator": {"type": "path"},
    "light": {"type": "constant"},
    "sensor": {
        "type": "perspective",
        "to_world": mi.ScalarTransform4f().look_at(
            origin=[0, -5, 5], target=[0, 0, 0], up=[0, 0, 1]
        ),
    },
    "wavydisk": mesh,
})
img = mi.render(scene, spp=args.spp)
mi.util.write_bitmap(os.path.join(args.output, "mesh_io_wavydisk.png"), mi.util.convert_to_bitmap(img))
# --- cell 16 ---
mesh.write_ply(os.path.join(args.output, "wavydisk.ply"))
# --- cell 18 ---
mesh = mi.load_dict({
    "type": "ply",
    "filename": os.path.join(args.output, "wavydisk.ply"),
    "bsdf": {
        "type": "diffuse",
        "reflectance": {
            "type": "mesh_attribute",
            "name": "vertex_color",  # This will be used to visualize our attribute
        },
    },
})
# Needs to start with vertex_ or face_
mesh.add_attribute("vertex_color", np.zeros((mesh.vertex_count(), 3)))  # Add 3 floats per vertex (initialized at 0)
# --- cell 20 ---
mesh_params = mi.traverse(mesh)
print(mesh_params)
# --- cell 22 ---
N = mesh.vertex_count()
vertex_colors = np.zeros((N, 3))
vertex_colors[:N - 1, 0] = 1  # Fringe is red
vertex_colors[N - 1, 2] = 1  # Center is blue
mesh_params["vertex_color"] = vertex_colors
mesh_params.update()
# --- cell 24 ---
scene = mi.load_dict(
    {
        "type": "scene",
        "integrator": {"type": "path"},
        "light": {"type": "constant"},
        "sensor": {
            "type": "perspective",
            "to_world": mi.ScalarTransform4f().look_at(
                origin=[0, -5, 5], target=[0, 0, 0], up=[0, 0, 1]
            ),
        },
        "wavydisk": mesh,
    }
)
img = mi.render(scene, spp=args.spp)
mi.util.write_bitmap(os.path.join(args.output, "mesh_io_coloured.png"), mi.util.convert_to_bitmap(img))
print("coloured disk: mean red %.3f, mean blue %.3f" % (img[..., 0].mean(), img[..., 2].mean()))
