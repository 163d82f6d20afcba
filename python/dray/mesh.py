"""Mitsuba's ``mi.Mesh``: a triangle mesh built from arrays in Python, its buffers under Mitsuba's
keys, written as a binary PLY that a scene (or ``load_dict``'s ``{'type': 'ply', 'filename': …}``)
loads, its vertices then a parameter block (``NAME.vertex_positions``).

    mesh = dray.Mesh("lens", vertex_count, face_count, has_vertex_texcoords=True)
    params = dray.traverse(mesh)
    params['vertex_positions'] = positions.ravel()   # x0, y0, z0, x1, …
    params['faces'] = faces.ravel()                   # three vertex indices per triangle
    params['vertex_texcoords'] = uv.ravel()           # u0, v0, u1, …
    params.update()
    mesh.write_ply("lens.ply")

or, as Mitsuba 3.6's, from its arrays: ``dray.Mesh("lens", faces=F×3, positions=V×3, texcoords=V×2)``.
"""
from collections.abc import MutableMapping

import numpy as np

from .ad import as_numpy

# Each buffer's values per element and its type.
_BUFFERS = {"vertex_positions": (3, np.float32), "vertex_normals": (3, np.float32),
            "vertex_texcoords": (2, np.float32), "faces": (3, np.uint32)}


class Mesh(MutableMapping):
    """A mesh of `vertex_count` vertices and `face_count` triangles, zero until set; a vertex
    normal and texture coordinate buffer only when asked for, as Mitsuba's."""

    def __init__(self, name, vertex_count=None, face_count=None, has_vertex_normals=False, has_vertex_texcoords=False,
                 faces=None, positions=None, texcoords=None, normals=None):
        if positions is not None or faces is not None:  # the arrays themselves
            if positions is None or faces is None:
                raise ValueError("Mesh %r: give positions and faces together" % name)
            arrays = {"vertex_positions": positions, "faces": faces, "vertex_texcoords": texcoords, "vertex_normals": normals}
            self.__init__(name, np.size(as_numpy(positions, np.float32)) // 3, np.size(as_numpy(faces, np.float64)) // 3,
                          normals is not None, texcoords is not None)
            for key, value in arrays.items():
                if value is not None:
                    self[key] = value
            return
        if vertex_count is None or face_count is None or int(vertex_count) < 3 or int(face_count) < 1:
            raise ValueError("Mesh %r: needs at least 3 vertices and 1 face, got %s and %s" % (name, vertex_count, face_count))
        self.name = str(name)
        self._counts = {"vertex_positions": int(vertex_count), "vertex_normals": int(vertex_count),
                        "vertex_texcoords": int(vertex_count), "faces": int(face_count)}
        self._buffers = {"vertex_positions": None, "faces": None}
        if has_vertex_normals:
            self._buffers["vertex_normals"] = None
        if has_vertex_texcoords:
            self._buffers["vertex_texcoords"] = None
        for key in self._buffers:
            width, kind = _BUFFERS[key]
            self._buffers[key] = np.zeros(self._counts[key] * width, dtype=kind)

    # Mitsuba's traverse(mesh): the buffers by key, flat.
    def __getitem__(self, key):
        return self._buffers[key]

    def __setitem__(self, key, value):
        if key not in self._buffers:
            raise KeyError("Mesh %r has no buffer %r (it has: %s)" % (self.name, key, ", ".join(self._buffers)))
        width, kind = _BUFFERS[key]
        a = np.asarray(as_numpy(value, kind)).reshape(-1).astype(kind)
        if a.size != self._counts[key] * width:
            raise ValueError("Mesh %r: %s needs %d values (%d x %d), got %d" % (self.name, key, self._counts[key] * width,
                                                                          self._counts[key], width, a.size))
        if key == "faces" and a.size and int(a.max()) >= self._counts["vertex_positions"]:
            raise ValueError("Mesh %r: a face refers to vertex %d of %d" % (self.name, int(a.max()), self._counts["vertex_positions"]))
        self._buffers[key] = a

    def __delitem__(self, key):
        raise TypeError("a mesh's buffers cannot be removed")

    def __iter__(self):
        return iter(self._buffers)

    def __len__(self):
        return len(self._buffers)

    def update(self, *args, **kwargs):
        """Mitsuba's ``params.update()``: the buffers are the mesh (nothing to rebuild); with a
        mapping, sets its entries first."""
        if args or kwargs:
            MutableMapping.update(self, *args, **kwargs)

    def vertex_count(self):
        return self._counts["vertex_positions"]

    def face_count(self):
        return self._counts["faces"]

    def write_ply(self, filename):
        """A binary little-endian PLY: x, y, z (nx, ny, nz; u, v) per vertex, a uchar-counted
        uint32 list per face (as Mitsuba's write_ply)."""
        n, f = self.vertex_count(), self.face_count()
        fields = [("x", "<f4"), ("y", "<f4"), ("z", "<f4")]
        columns = [self._buffers["vertex_positions"].reshape(n, 3)]
        if "vertex_normals" in self._buffers:
            fields += [("nx", "<f4"), ("ny", "<f4"), ("nz", "<f4")]
            columns.append(self._buffers["vertex_normals"].reshape(n, 3))
        if "vertex_texcoords" in self._buffers:
            fields += [("u", "<f4"), ("v", "<f4")]
            columns.append(self._buffers["vertex_texcoords"].reshape(n, 2))
        vertices = np.empty(n, dtype=np.dtype(fields))
        values = np.concatenate(columns, axis=1)
        for k, (name, _) in enumerate(fields):
            vertices[name] = values[:, k]
        faces = np.empty(f, dtype=np.dtype([("n", "u1"), ("i", "<u4", (3,))]))
        faces["n"] = 3
        faces["i"] = self._buffers["faces"].reshape(f, 3)
        header = ["ply", "format binary_little_endian 1.0", "element vertex %d" % n]
        header += ["property float %s" % name for name, _ in fields]
        header += ["element face %d" % f, "property list uchar uint vertex_indices", "end_header"]
        with open(filename, "wb") as out:
            out.write(("\n".join(header) + "\n").encode("ascii"))
            out.write(vertices.tobytes())
            out.write(faces.tobytes())
