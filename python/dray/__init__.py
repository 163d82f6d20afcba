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
from . import optimizers  # noqa: F401  (dray.optimizers.Adam)
from .jobs import JobResult, optimize

__all__ = ["Scene", "SceneParameters", "load", "render", "render_forward", "backward", "write_image", "read_image",
           "optimizers", "optimize", "JobResult"]

Scene.params = lambda self: SceneParameters(self)
Scene.params.__doc__ = SceneParameters.__doc__


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


def _define(value):
    """A define's text as Mitsuba writes it: numbers and words as they are, sequences comma-separated."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _sensor(sensor):
    return None if sensor is None else str(sensor)


def render(scene, spp=None, seed=None, threads=None, comm=None, sensor=None):
    """Renders the scene: an H×W×3 float32 numpy array (linear radiance), which owns its buffer
    (no copy). spp and seed default to the scene's render.spp and render.seed; threads to the
    cores per rank; sensor (an index or a name of scene.sensors, Mitsuba's ``sensor=``) to the
    first. With `comm` (an mpi4py communicator) every rank of it renders its share of
    the tiles and gets the whole image; the call is collective. The GIL is released while
    rendering."""
    return _dray.render(scene, spp, seed, threads, _comm_handle(comm), _sensor(sensor))


def render_forward(scene, wrt, spp=None, seed=None, threads=None, comm=None, sensor=None):
    """Forward mode: {name: derivative image ∂image/∂θ (H×W×3)} for each parameter named in
    `wrt` (a scalar or a component NAME[i] gives one image; a vector or block a list of one per
    scalar), with the visibility (boundary) term, as ``dray render --wrt``."""
    return _dray.render_forward(scene, _names(wrt), spp, seed, threads, _comm_handle(comm), _sensor(sensor))


def backward(scene, d_image, wrt, spp=None, seed=1, threads=None, comm=None, sensor=None):
    """Reverse mode: {name: ∂L/∂θ} for the parameters named in `wrt` (arrays of their shape, as
    scene.params() gives them), where d_image = ∂L/∂image (H×W×3) is the adjoint of any loss L
    written in numpy or torch. The image is rendered again with `seed` and its samples replayed:
    the result is Σ d_image · ∂image/∂θ for that image, visibility included. Collective over
    `comm`; the same on every rank."""
    return _dray.backward(scene, d_image, _names(wrt), spp, seed, threads, _comm_handle(comm), _sensor(sensor))


def write_image(path, image):
    """Writes an H×W×C float array: .exr (linear, every channel) or .png (8-bit sRGB)."""
    _dray.write_image(_os.fspath(path), image)


def read_image(path):
    """Reads an image as an H×W×C float32 array: EXR and HDR linear, PNG and JPEG from sRGB."""
    return _dray.read_image(_os.fspath(path))
