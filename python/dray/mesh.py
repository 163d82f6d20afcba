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
# Mitsuba 3.6's shorter keys, read and set as rows (V × 3), and the faces read as rows (F × 3).
_ROWS = {"positions": "vertex_positions", "normals": "vertex_normals", "texcoords": "vertex_texcoords", "faces": "faces"}


def _attribute_fields(name, width):
    """The PLY properties of an attribute, as Mitsuba's reader groups them back: r, g, b for a
    colour (NAME "color"), NAME_x, _y, _z for another of 3 values, NAME for one value."""
    if width == 1:
        return [(name, "<f4")]
    if name == "color":
        return [(c, "<f4") for c in "rgb"]
    return [(name + "_" + c, "<f4") for c in "xyz"]


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
        self.face_normals = False
        self._plugin = {}  # a loaded mesh's other keys (its bsdf, emitter, …), kept for a scene dict
        self._attributes = {}  # name -> values per vertex or face (Mitsuba's add_attribute)
        self._changed = set()
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

    # Mitsuba's traverse(mesh): the buffers by key, flat; `positions`, `faces` and the attributes as rows.
    def __getitem__(self, key):
        if key in self._attributes:
            return self._attributes[key].copy()
        if key in _ROWS:
            return self._buffers[_ROWS[key]].reshape(-1, _BUFFERS[_ROWS[key]][0]).copy()
        return self._buffers[key]

    def __setitem__(self, key, value):
        if key in self._attributes:
            a = np.asarray(as_numpy(value, np.float32), dtype=np.float32)
            if a.size != self._attributes[key].size:
                raise ValueError("Mesh %r: %s needs %s values, got %d" % (self.name, key, self._attributes[key].shape, a.size))
            self._attributes[key] = a.reshape(self._attributes[key].shape)
            self._changed.add(key)
            return
        key = _ROWS.get(key, key)
        if key not in self._buffers:
            raise KeyError("Mesh %r has no buffer %r (it has: %s)" % (self.name, key, ", ".join(list(self._buffers) + list(self._attributes))))
        width, kind = _BUFFERS[key]
        a = np.asarray(as_numpy(value, kind)).reshape(-1).astype(kind)
        if key == "faces" and a.size % 3 == 0 and a.size // 3 != self._counts["faces"] and a.size:
            self._counts["faces"] = a.size // 3  # a remeshing: the face count changes by assignment, as Mitsuba's
            self._attributes = {k: v for k, v in self._attributes.items() if not k.startswith("face_")}
        if a.size != self._counts[key] * width:
            raise ValueError("Mesh %r: %s needs %d values (%d x %d), got %d" % (self.name, key, self._counts[key] * width,
                                                                          self._counts[key], width, a.size))
        if key == "faces" and a.size and int(a.max()) >= self._counts["vertex_positions"]:
            raise ValueError("Mesh %r: a face refers to vertex %d of %d" % (self.name, int(a.max()), self._counts["vertex_positions"]))
        self._buffers[key] = a
        self._changed.add(key)

    def __delitem__(self, key):
        raise TypeError("a mesh's buffers cannot be removed")

    def __iter__(self):
        return iter(list(self._buffers) + list(self._attributes))

    def __len__(self):
        return len(self._buffers) + len(self._attributes)

    def update(self, *args, **kwargs):
        """Mitsuba's ``params.update()``: the buffers are the mesh (nothing to rebuild); with a
        mapping, sets its entries first. Returns [(mesh, the keys changed)], as Mitsuba's."""
        if args or kwargs:
            MutableMapping.update(self, *args, **kwargs)
        changed, self._changed = self._changed, set()
        return [(self, changed)] if changed else []

    def add_attribute(self, name, values):
        """Mitsuba's ``mesh.add_attribute(name, values)``: a `vertex_NAME` (V × C) or `face_NAME`
        (F × C) attribute, C 1 or 3, that a mesh_attribute texture reads once the mesh is in a scene."""
        if not (name.startswith("vertex_") or name.startswith("face_")):
            raise ValueError("Mesh %r: an attribute's name starts with vertex_ or face_, got %r" % (self.name, name))
        rows = self._counts["vertex_positions" if name.startswith("vertex_") else "faces"]
        a = np.asarray(as_numpy(values, np.float32), dtype=np.float32)
        if a.size % rows or a.size // rows not in (1, 3):
            raise ValueError("Mesh %r: %s needs 1 or 3 values per %s (%d rows), got %d values" % (
                self.name, name, "vertex" if name.startswith("vertex_") else "face", rows, a.size))
        self._attributes[name] = a.reshape(rows, a.size // rows)

    def _as_plugin(self, folder):
        """The mesh as a scene dict's plugin: written as a PLY into `folder`, with the plugins it
        was loaded with (its bsdf, emitter, …)."""
        import os
        path = os.path.join(folder, "mesh_%s_%d.ply" % ("".join(c if c.isalnum() else "_" for c in self.name), id(self)))
        self.write_ply(path)
        return {"type": "ply", "filename": path, "face_normals": bool(self.face_normals), **self._plugin}

    def bbox(self):
        """(min, max) corners of the vertices."""
        p = self._buffers["vertex_positions"].reshape(-1, 3)
        return p.min(axis=0), p.max(axis=0)

    def __repr__(self):
        from .bitmap import _mem
        lo, hi = self.bbox()
        vertex_bytes = sum(self._buffers[k].nbytes for k in ("vertex_positions", "vertex_normals", "vertex_texcoords")
                           if k in self._buffers)
        text = lambda v: "[" + ", ".join("%g" % x for x in v) + "]"  # noqa: E731
        return ("Mesh[\n  name = \"%s\",\n  bbox = BoundingBox3f[\n    min = %s,\n    max = %s\n  ],\n"
                "  vertex_count = %d,\n  vertices = [%s of vertex data],\n  face_count = %d,\n"
                "  faces = [%s of face data],\n  face_normals = %d\n]") % (
            self.name, text(lo), text(hi), self.vertex_count(), _mem(vertex_bytes), self.face_count(),
            _mem(self._buffers["faces"].nbytes), int(self.face_normals))

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
        for name, values in self._attributes.items():  # read back as the same vertex_NAME (Mitsuba's PLY rules)
            if name.startswith("vertex_"):
                fields += _attribute_fields(name[len("vertex_"):], values.shape[1])
                columns.append(values)
        face_attributes = {k[len("face_"):]: v for k, v in self._attributes.items() if k.startswith("face_")}
        vertices = np.empty(n, dtype=np.dtype(fields))
        values = np.concatenate(columns, axis=1)
        for k, (name, _) in enumerate(fields):
            vertices[name] = values[:, k]
        face_fields = [f for p, v in face_attributes.items() for f in _attribute_fields(p, v.shape[1])]
        faces = np.empty(f, dtype=np.dtype([("n", "u1"), ("i", "<u4", (3,))] + face_fields))
        faces["n"] = 3
        faces["i"] = self._buffers["faces"].reshape(f, 3)
        if face_fields:
            face_values = np.concatenate(list(face_attributes.values()), axis=1)
            for k, (name, _) in enumerate(face_fields):
                faces[name] = face_values[:, k]
        header = ["ply", "format binary_little_endian 1.0", "element vertex %d" % n]
        header += ["property float %s" % name for name, _ in fields]
        header += ["element face %d" % f, "property list uchar uint vertex_indices"]
        header += ["property float %s" % name for name, _ in face_fields] + ["end_header"]
        with open(filename, "wb") as out:
            out.write(("\n".join(header) + "\n").encode("ascii"))
            out.write(vertices.tobytes())
            out.write(faces.tobytes())


def load_mesh(d, load_scene):
    """Mitsuba's ``mi.load_dict({'type': 'ply', …})``: the mesh as a dray.Mesh, its vertices and
    normals in world space (to_world applied), its faces, and its file's attributes; its nested
    plugins (bsdf, emitter, media) kept for a scene dict it is placed in. Texture coordinates are not
    kept (dray holds them per corner)."""
    import os
    own = {k: v for k, v in d.items() if not isinstance(v, dict)}
    nested = {k: v for k, v in d.items() if isinstance(v, dict)}
    scene = load_scene({"type": "scene", "mesh": own})
    params = scene.params()
    normals = params["mesh.vertex_normals"] if "mesh.vertex_normals" in params else None
    name = os.path.basename(str(d.get("filename", "mesh")))
    mesh = Mesh(name, faces=params["mesh.faces"], positions=params["mesh.vertex_positions"], normals=normals)
    mesh.face_normals, mesh._plugin = bool(d.get("face_normals", False)), nested
    for key in params:
        attribute = key[len("shapes.mesh."):] if key.startswith("shapes.mesh.") else ""
        if attribute.startswith("vertex_") or attribute.startswith("face_"):
            mesh.add_attribute(attribute, params[key])
    mesh._changed = set()
    return mesh
