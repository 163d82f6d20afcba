"""Mitsuba's dict format (``mi.load_dict``): a dict becomes the Mitsuba
XML it stands for and is read by dray's Mitsuba reader (renderer/io/mitsuba), so that a dict and
its XML load the same scene with the same names and keys.

    from dray import ScalarTransform4f as T
    scene = dray.load_dict({'type': 'scene', 'integrator': {'type': 'path'}, 'light': {'type': 'constant'},
                            'teapot': {'type': 'ply', 'filename': 'teapot.ply', 'to_world': T().translate([0, 0, -1.5])}})

Top-level keys are ids (as Mitsuba: `'red': {'type': 'diffuse', …}` is `red.reflectance.value`);
nested plugins are named by their key; ``{'type': 'ref', 'id': …}`` refers to an earlier object;
``{'type': 'rgb', 'value': …}`` and ``{'type': 'spectrum', 'value': …}`` are colours; a
``to_world`` is a ScalarTransform4f or a 4×4 array; three numbers are a point; a gridvolume's
``'grid': dray.VolumeGrid(array)`` is its voxels (written as a .vol file beside the XML), a bitmap's
``'bitmap': dray.Bitmap(array)`` its texels (an EXR beside the XML).
"""
import numbers
import os
import struct
import xml.sax.saxutils as _sax

import numpy as np

from . import _dray
from .bitmap import Bitmap
from .mesh import Mesh
from .transforms import ScalarTransform4f, _vec3

# Each plugin type's kind: the XML element Mitsuba's parser would read it from.
KINDS = {
    "bsdf": "twosided mask bumpmap normalmap null",  # the material-level wrappers; the BSDFs from the registry (below)
    "shape": "merge shapegroup instance",  # the groupings; the shape types from the registry (below)
    "emitter": "directionalarea",  # an area emitter along its normal; the emitters from the registry (below)
    "film": "hdrfilm",
    "rfilter": "box tent gaussian",
    "sampler": "independent stratified multijitter orthogonal ldsampler",
    "integrator": "moment aov",  # wrappers of another integrator; the integrators from the registry (below)
    "volume": "gridvolume constvolume",
}
# The kinds whose plugins are a registry in dray (core/registry.h): their names come from there.
for _kind in ("bsdf", "phase", "texture", "sensor", "medium", "emitter", "integrator", "shape"):
    KINDS[_kind] = (KINDS.get(_kind, "") + " " + _dray.plugin_names(_kind).replace(",", "")).strip()
KIND_OF = {t: kind for kind, types in KINDS.items() for t in types.split()}


class VolumeGrid:
    """Mitsuba's ``mi.VolumeGrid(tensor)``: voxels Z × Y × X × C (C 1 or 3; Z × Y × X for one
    channel), for a gridvolume's ``'grid'`` in a dict; ``VolumeGrid(path)`` reads a .vol file (as
    Mitsuba's) or an OpenVDB .vdb file (dray's reading: docs/scene-format.md)."""

    def __init__(self, values):
        from .ad import as_numpy
        if isinstance(values, (str, os.PathLike)):
            values = _dray.read_grid(os.fspath(values))
        a = np.asarray(as_numpy(values, np.float32), dtype=np.float32)
        if a.ndim == 3:
            a = a[..., None]
        if a.ndim != 4 or a.shape[3] not in (1, 3) or min(a.shape) < 1:
            raise ValueError("VolumeGrid: expected Z x Y x X x C voxels (C 1 or 3), got shape %s" % (a.shape,))
        self.array = np.ascontiguousarray(a)

    suffix = "vol"

    def write(self, path):
        """Mitsuba's .vol format (version 3, float32, the unit cube as its bounds), or OpenVDB's
        where `path` ends in .vdb."""
        if os.fspath(path).lower().endswith(".vdb"):
            _dray.write_grid(os.fspath(path), self.array)
            return
        z, y, x, c = self.array.shape
        with open(path, "wb") as f:
            f.write(b"VOL" + bytes([3]) + struct.pack("<5i", 1, x, y, z, c) + struct.pack("<6f", 0, 0, 0, 1, 1, 1))
            f.write(self.array.astype("<f4").tobytes())


def _num(x):
    return repr(float(x)) if not float(x).is_integer() else str(int(x)) if abs(x) < 1e15 else repr(float(x))


def _attr(value):
    return _sax.quoteattr(str(value))


class _Writer:
    def __init__(self, folder=None):
        self.kinds = {}  # id -> kind, for refs
        self.aliases = {}  # a top-level object's own 'id' -> its key (Mitsuba's refs name either)
        self.lines = []
        self.folder = folder  # where a VolumeGrid's or a Bitmap's file is written

    def plugin(self, key, d, depth, top=False):
        t = d.get("type")
        if not isinstance(t, str):
            raise ValueError("%s: a plugin dict needs a 'type'" % key)
        if t not in KIND_OF:
            raise ValueError("%s: unknown plugin type %r (dray reads: %s)" % (key, t, ", ".join(sorted(KIND_OF))))
        kind = KIND_OF[t]
        ident = d.get("id", key if top else None)
        if top and ident != key:  # refs name the key (Mitsuba's load_dict), or the object's id
            self.aliases[str(ident)] = key
            ident = key
        if ident is not None:
            if "." in str(ident):
                raise ValueError("%s: an id may not contain '.' (Mitsuba's keys are dotted)" % ident)
            self.kinds[str(ident)] = kind
        attrs = " type=%s" % _attr(t)
        if ident is not None:
            attrs += " id=%s" % _attr(ident)
        if not top and key is not None:
            attrs += " name=%s" % _attr(key)
        pad = "  " * depth
        self.lines.append("%s<%s%s>" % (pad, kind, attrs))
        for k, v in d.items():
            if k not in ("type", "id"):
                self.value(k, v, depth + 1)
        self.lines.append("%s</%s>" % (pad, kind))

    def value(self, key, v, depth):
        pad = "  " * depth
        if isinstance(v, (VolumeGrid, Bitmap)):
            if self.folder is None:
                raise ValueError("%s: a %s needs a folder to be written to" % (key, type(v).__name__))
            path = os.path.join(self.folder, "data_%d.%s" % (len(self.lines), v.suffix))
            v._write_texture(path) if isinstance(v, Bitmap) else v.write(path)
            self.lines.append("%s<string name=\"filename\" value=%s/>" % (pad, _attr(path)))
        elif isinstance(v, dict):
            t = v.get("type")
            if t == "ref":
                v = dict(v, id=self.aliases.get(str(v.get("id")), v.get("id")))
                kind = self.kinds.get(str(v.get("id")))
                if kind is None:
                    raise ValueError("%s: no object with id %r before this reference" % (key, v.get("id")))
                named = kind not in ("bsdf", "emitter", "shape")  # a texture or medium is named by its slot
                self.lines.append("%s<ref id=%s%s/>" % (pad, _attr(v["id"]), " name=%s" % _attr(key) if named else ""))
            elif t in ("rgb", "spectrum"):
                self.colour(key, t, v, pad)
            else:
                self.plugin(key, v, depth)
        elif isinstance(v, ScalarTransform4f) or (np.size(v) == 16 and not isinstance(v, str)):
            m = v.matrix if isinstance(v, ScalarTransform4f) else np.asarray(v, dtype=np.float64).reshape(4, 4)
            self.lines.append("%s<transform name=%s><matrix value=%s/></transform>" %
                              (pad, _attr(key), _attr(" ".join(_num(x) for x in m.reshape(-1)))))
        elif isinstance(v, (bool, np.bool_)):
            self.lines.append("%s<boolean name=%s value=%s/>" % (pad, _attr(key), _attr("true" if v else "false")))
        elif isinstance(v, numbers.Integral):
            self.lines.append("%s<integer name=%s value=%s/>" % (pad, _attr(key), _attr(int(v))))
        elif isinstance(v, numbers.Real):
            self.lines.append("%s<float name=%s value=%s/>" % (pad, _attr(key), _attr(_num(v))))
        elif isinstance(v, str):
            self.lines.append("%s<string name=%s value=%s/>" % (pad, _attr(key), _attr(v)))
        elif np.size(v) == 3:
            x, y, z = _vec3(v)
            self.lines.append("%s<point name=%s x=%s y=%s z=%s/>" % (pad, _attr(key), _attr(_num(x)), _attr(_num(y)), _attr(_num(z))))
        else:
            raise ValueError("%s: a value dray cannot read from a dict: %r" % (key, v))

    def colour(self, key, t, v, pad):
        value = v.get("value", v.get("filename"))
        if value is None:
            raise ValueError("%s: a %s needs a 'value'" % (key, t))
        if "filename" in v:
            self.lines.append("%s<%s name=%s filename=%s/>" % (pad, t, _attr(key), _attr(v["filename"])))
            return
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)):  # (wavelength, value) pairs
            text = ", ".join("%s:%s" % (_num(w), _num(x)) for w, x in value)
        else:
            text = ", ".join(_num(x) for x in np.asarray(value, dtype=np.float64).reshape(-1))
        self.lines.append("%s<%s name=%s value=%s/>" % (pad, t, _attr(key), _attr(text)))


def scene_xml(d, folder=None):
    """The Mitsuba XML of a scene dict ({'type': 'scene', id: plugin, …}); a dict without a sensor
    gets Mitsuba's default one (perspective, identity to_world, hdrfilm 768 × 576). Grids given as
    VolumeGrid and images as Bitmap are written to `folder`."""
    if d.get("type") != "scene":
        raise ValueError("a scene dict has 'type': 'scene'")
    w = _Writer(folder)
    w.lines.append('<scene version="3.0.0">')
    has_sensor = False
    for key, v in d.items():
        if key == "type":
            continue
        if isinstance(v, Mesh):  # a dray.Mesh placed in the dict: written as a PLY beside the XML
            if folder is None:
                raise ValueError("%s: a Mesh needs a folder to be written to" % key)
            v = v._as_plugin(folder)
        if not isinstance(v, dict) or v.get("type") in ("rgb", "spectrum", "ref"):
            raise ValueError("%s: a scene's entries are plugins (dicts with a 'type')" % key)
        # A sensor at the top, or nested in a shape (an irradiance meter), as Mitsuba's scene finds them.
        has_sensor = has_sensor or KIND_OF.get(v.get("type")) == "sensor" or any(
            isinstance(c, dict) and KIND_OF.get(c.get("type")) == "sensor" for c in v.values())
        w.plugin(key, v, 1, top=True)
    if not has_sensor:
        w.lines.insert(1, '  <sensor type="perspective"/>')
    w.lines.append("</scene>")
    return "\n".join(w.lines) + "\n"


def plugin_xml(d):
    """A scene holding one sensor or integrator dict (and a constant sky), to read it alone."""
    w = _Writer()
    w.lines.append('<scene version="3.0.0">')
    w.plugin(None, d, 1)
    if KIND_OF.get(d.get("type")) != "sensor":
        w.lines.append('  <sensor type="perspective"/>')
    w.lines.append('  <emitter type="constant"/>')
    w.lines.append("</scene>")
    return "\n".join(w.lines) + "\n"
