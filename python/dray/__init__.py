"""dray from Python: load a scene, read and change its parameters by name, render it, take
derivative images (forward mode) and the gradient of any loss from its adjoint image (reverse
mode), on one process or on an MPI communicator (mpi4py).

    import dray, numpy as np
    scene = dray.load("scenes/cbox-fit.json", **{"render.spp": 16})
    image = dray.render(scene)                      # H×W×3 float32, linear
    grads = dray.backward(scene, 2 * (image - target) / image.size, wrt=["materials.white.albedo"])

Results are bitwise those of the command line for the same scene, spp and seed, and the same on
every rank of `comm` and for any number of ranks and threads.
"""
import json as _json
import os as _os
import re as _re

from . import _dray
from ._dray import Scene  # noqa: F401  (the type load returns)
from .params import SceneParameters
from . import ad  # noqa: F401  (dray.ad.Adam, dray.ad.LargeSteps: Mitsuba's mi.ad)
from . import optimizers  # noqa: F401  (dray.optimizers.Adam)
from .jobs import JobResult, optimize
from .mesh import Mesh
from .bitmap import Bitmap, Struct
from . import batch, film
from . import util  # noqa: F401  (Mitsuba's mi.util: write_bitmap, convert_to_bitmap)
from .mitsuba_dict import VolumeGrid
from .transforms import (Frame3f, Normal3f, Point3f, ProjectiveTransform4f, ScalarTransform4f, Transform3f, Transform4f,
                         Vector3f)
from .variants import cornell_box, set_variant, variant, variants

__all__ = ["Scene", "SceneParameters", "Sensor", "Integrator", "ScalarTransform4f", "VolumeGrid", "Bitmap", "Struct", "Mesh",
           "load", "load_dict", "load_file", "traverse", "ad", "util", "render", "render_forward", "backward", "write_image",
           "read_image", "optimizers", "optimize", "JobResult", "variants", "variant", "set_variant", "cornell_box",
           "Transform4f", "ProjectiveTransform4f", "Transform3f", "Point3f", "Vector3f", "Normal3f", "Frame3f"]

Scene.params = lambda self: SceneParameters(self)
Scene.params.__doc__ = SceneParameters.__doc__
_sensor_names = Scene.sensors
Scene.sensors = property(lambda self: film.SensorList(self, _sensor_names.fget(self)), doc=film.SensorList.__doc__)


def _comm_handle(comm):
    """An mpi4py communicator's Fortran handle (C++ converts it with MPI_Comm_f2c), or None."""
    if comm is None:
        return None
    if not hasattr(comm, "py2f"):
        raise TypeError("comm must be an mpi4py communicator (e.g. MPI.COMM_WORLD), got %r" % type(comm).__name__)
    return comm.py2f()


def _names(wrt):
    """`wrt` as a list of parameter names: one name (a string) or any iterable of them."""
    if isinstance(wrt, (str, bytes)):
        return [wrt.decode() if isinstance(wrt, bytes) else wrt]
    names = list(wrt)
    for n in names:
        if not isinstance(n, str):
            raise TypeError("wrt: parameter names are strings, got %r" % type(n).__name__)
    return names


def _override(key, value):
    return "%s=%s" % (key, _json.dumps(value.tolist() if hasattr(value, "tolist") else value))


def load(scene, **overrides):
    """Loads a scene: a file (dray JSON, or Mitsuba 3 XML) or a dict in dray's JSON format (its
    relative paths taken from the current directory). `overrides` set any scene value or
    parameter by name before the scene is built, as `--set` does:
    ``dray.load("cbox.json", **{"render.spp": 4, "materials.white.albedo": [0.5, 0.5, 0.5]})``;
    for a Mitsuba XML scene a plain name sets its $name, as Mitsuba's ``mi.load_file(path, spp=4)``
    and ``-D spp=4`` (a name the scene never uses is an error). Raises ValueError naming the file
    and key for a bad scene."""
    path = None if isinstance(scene, dict) else _os.fspath(scene)
    xml = path is not None and path.lower().endswith(".xml")
    defines = {k: _define(v) for k, v in overrides.items() if xml and _re.fullmatch(r"[A-Za-z_]\w*", k)}
    sets = [_override(k, v) for k, v in overrides.items() if k not in defines]
    if path is None:
        return _dray.load(_os.path.join(_os.getcwd(), "<dict>.json"), _json.dumps(scene), sets, {})
    return _dray.load(path, "", sets, defines)


class Sensor:
    """A sensor loaded alone (``dray.load_dict({'type': 'perspective', …})``, Mitsuba's sensor
    object): ``render(scene, sensor=it)`` renders the scene through it (at its sampler's
    sample_count unless spp is given). ``camera`` is its camera as a scene document's."""

    def __init__(self, camera, spp):
        import uuid
        self.camera, self.spp = camera, spp
        self.name = "dict_" + uuid.uuid4().hex[:12]  # its name in the scenes it renders

    def __repr__(self):
        return "Sensor(%s, %dx%d)" % (self.camera.get("type"), self.camera["width"], self.camera["height"])


class Integrator:
    """An integrator loaded alone (``dray.load_dict({'type': 'direct_projective'})``, Mitsuba's
    integrator object): ``render(scene, integrator=it)`` (and render_forward, backward,
    dray.torch.render) renders with its kind, depths, visibility samples and hide_emitters in
    place of the scene's, for that call."""

    def __init__(self, kind, settings):
        self.type, self._settings = kind, settings

    def __repr__(self):
        return "Integrator(%s)" % self.type


def _with_xml(text, read):
    """read(path) of Mitsuba XML text (text(folder): the files it names written there) written to a
    temporary file (its errors say load_dict); relative file names are looked for in the working
    directory, as Mitsuba's."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="dray-dict-") as folder:
        path = _os.path.join(folder, "dict.xml")
        with open(path, "w") as f:
            f.write(text(folder))
        try:
            return read(path)
        except ValueError as e:
            raise ValueError(str(e).replace(path, "load_dict")) from None


def load_dict(d, **overrides):
    """Mitsuba's ``mi.load_dict``: a scene from Mitsuba's dict format ({'type': 'scene', id:
    plugin, …}: ids as keys, nested plugins, ``{'type': 'ref', 'id': …}``, ``{'type': 'rgb',
    'value': …}``, a ``to_world`` as a dray.ScalarTransform4f or 4×4 array), read as the XML it
    stands for; relative file names from the current directory. A dict of one sensor gives a
    ``dray.Sensor`` for ``render(scene, sensor=…)``, one integrator a ``dray.Integrator`` for
    ``render(scene, integrator=…)``. `overrides` as dray.load's (dray names)."""
    from . import mitsuba_dict
    if not isinstance(d, dict):
        raise TypeError("load_dict takes a dict, got %r" % type(d).__name__)
    if d.get("type") == "scene":
        sets = [_override(k, v) for k, v in overrides.items()]
        return _with_xml(lambda folder: mitsuba_dict.scene_xml(d, folder), lambda path: _dray.load(path, "", sets, {}))
    if mitsuba_dict.KIND_OF.get(d.get("type")) == "sensor":
        doc = _with_xml(lambda folder: mitsuba_dict.plugin_xml(d), lambda path: _json.loads(_dray.mitsuba_document(path, {})))
        camera = doc["camera"][0] if isinstance(doc["camera"], list) else doc["camera"]
        if "sampler" in doc.get("render", {}):
            raise ValueError("a sensor dict's own %s sampler: dray samples every sensor with the scene's sampler "
                             "(give it in the scene's sensor, or render.sampler)" % _json.dumps(doc["render"]["sampler"]))
        return Sensor(camera, doc.get("render", {}).get("spp"))
    if mitsuba_dict.KIND_OF.get(d.get("type")) == "integrator":
        doc = _with_xml(lambda folder: mitsuba_dict.plugin_xml(d), lambda path: _json.loads(_dray.mitsuba_document(path, {})))
        render = {k: v for k, v in doc.get("render", {}).items() if k not in ("crop", "filter", "sample_border", "pixel_format")}
        return Integrator(d["type"], _dray.integrator_settings(_json.dumps(render)))
    if d.get("type") == "batch":
        return batch.load_batch(d, load_dict)
    if d.get("type") in ("ply", "obj", "serialized"):
        from .mesh import load_mesh
        return load_mesh(d, load_dict)
    if mitsuba_dict.KIND_OF.get(d.get("type")) == "rfilter":
        from .util import ReconstructionFilter
        extra = set(d) - {"type", "stddev", "radius"}
        if extra:
            raise ValueError("load_dict: rfilter %s: unknown keys %s" % (d["type"], ", ".join(sorted(extra))))
        return ReconstructionFilter(d["type"], **{k: v for k, v in d.items() if k != "type"})
    raise ValueError("load_dict: a scene ({'type': 'scene', …}), a sensor, an integrator or an rfilter dict, got type %r"
                     % d.get("type"))


def load_file(path, **overrides):
    """Mitsuba's ``mi.load_file(path, **defines)``: dray.load of a file."""
    return load(path, **overrides)


def traverse(scene):
    """Mitsuba's ``mi.traverse(scene)``: the scene's parameters (scene.params()), which answer to
    Mitsuba's keys as well as dray's names; of a dray.Mesh, its buffers (the mesh itself)."""
    if isinstance(scene, Mesh):
        return scene
    return scene.params()


def _define(value):
    """A define's text as Mitsuba writes it: numbers and words as they are, sequences comma-separated."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _sensor(scene, sensor):
    """render()'s sensor argument as the name or index of one of the scene's sensors; a
    dray.Sensor is added to the scene the first time (under its own name)."""
    if sensor is None:
        return None
    if isinstance(sensor, Sensor):
        if sensor.name not in scene.sensors:
            scene._add_sensor(sensor.name, _json.dumps(sensor.camera))
        return sensor.name
    return str(sensor)


def _spp(spp, sensor):
    return sensor.spp if spp is None and isinstance(sensor, (Sensor, batch.BatchSensor)) else spp


def _integrator(integrator):
    if integrator is None:
        return None
    if not isinstance(integrator, Integrator):
        raise TypeError("integrator must be a dray.Integrator (dray.load_dict of an integrator dict), got %r"
                        % type(integrator).__name__)
    return integrator._settings


def render(scene, spp=None, seed=None, threads=None, comm=None, sensor=None, integrator=None):
    """Renders the scene: an H×W×3 float32 numpy array (linear radiance), which owns its buffer
    (no copy). spp and seed default to the scene's render.spp and render.seed; threads to the
    cores per rank; sensor (an index or a name of scene.sensors, Mitsuba's ``sensor=``) to the
    first; integrator (a dray.Integrator) to the scene's. With `comm` (an mpi4py communicator) every
    rank of it renders its share of
    the tiles and gets the whole image; the call is collective. The GIL is released while
    rendering. A batch sensor (load_dict of Mitsuba's `batch`) gives its sensors' images side by side."""
    if isinstance(sensor, batch.BatchSensor):
        return batch.join([render(scene, _spp(spp, sensor), seed, threads, comm, s, integrator) for s in sensor.sensors])
    name = _sensor(scene, sensor)
    image = _dray.render(scene, _spp(spp, sensor), seed, threads, _comm_handle(comm), name, _integrator(integrator))
    film.keep(scene, name, image, _integrator(integrator))  # the sensor's film().bitmap(), as Mitsuba's
    return image


def render_forward(scene, wrt, spp=None, seed=None, threads=None, comm=None, sensor=None, integrator=None):
    """Forward mode: {name: derivative image ∂image/∂θ (H×W×3)} for each parameter named in
    `wrt` (a scalar or a component NAME[i] gives one image; a vector or block a list of one per
    scalar), with the visibility (boundary) term, as ``dray render --wrt``."""
    if isinstance(sensor, batch.BatchSensor):
        return batch.join([render_forward(scene, wrt, _spp(spp, sensor), seed, threads, comm, s, integrator)
                           for s in sensor.sensors])
    return _dray.render_forward(scene, _names(wrt), _spp(spp, sensor), seed, threads, _comm_handle(comm),
                                _sensor(scene, sensor), _integrator(integrator))


def backward(scene, d_image, wrt, spp=None, seed=1, threads=None, comm=None, sensor=None, integrator=None):
    """Reverse mode: {name: ∂L/∂θ} for the parameters named in `wrt` (arrays of their shape, as
    scene.params() gives them), where d_image = ∂L/∂image (H×W×3) is the adjoint of any loss L
    written in numpy or torch. The image is rendered again with `seed` and its samples replayed:
    the result is Σ d_image · ∂image/∂θ for that image, visibility included. Collective over
    `comm`; the same on every rank."""
    if isinstance(sensor, batch.BatchSensor):
        parts = batch.split(d_image, len(sensor.sensors))
        return batch.sum_gradients([backward(scene, d, wrt, _spp(spp, sensor), seed, threads, comm, s, integrator)
                                    for d, s in zip(parts, sensor.sensors)])
    return _dray.backward(scene, d_image, _names(wrt), _spp(spp, sensor), seed, threads, _comm_handle(comm),
                          _sensor(scene, sensor), _integrator(integrator))


def write_image(path, image):
    """Writes an H×W×C float array: .exr (linear, every channel) or .png (8-bit sRGB)."""
    _dray.write_image(_os.fspath(path), image)


def read_image(path):
    """Reads an image as an H×W×C float32 array with every channel the file has (dray.Bitmap(path)
    gives their names): EXR and HDR linear; PNG and JPEG decoded from sRGB, alpha as stored."""
    return _dray.read_image_channels(_os.fspath(path), decode=True)[0]
