"""A scene's parameters as a live mapping, as Mitsuba's ``mi.traverse``: reading gives the current
value, assigning stages a change, ``update()`` applies the staged changes at once through the
parameters' rules (renderer/scene_params.h) -- all of them, or none with a ValueError naming the
parameter and the rule."""
from collections.abc import Mapping, MutableMapping

import numpy as np

from .ad import Optimizer, _is_tensor, as_numpy

# Mitsuba's sensor.to_world and sensor.x_fov: made of the first camera's origin, target, up and
# fov_y (renderer/io/mitsuba_keys.cpp lists them), read and set through those.
_CAMERA_VALUES = ("camera.to_world", "camera.x_fov")


def _is_dual(value):
    """A torch tensor carrying a forward-mode tangent (torch.autograd.forward_ad.make_dual)."""
    if not _is_tensor(value):
        return False
    import torch.autograd.forward_ad as forward_ad
    return forward_ad.unpack_dual(value).tangent is not None


def _shape_of(value):
    """A value's shape: a tensor's or an array-like's."""
    return tuple(value.shape) if hasattr(value, "shape") else np.shape(value)


def _curves(scene):
    """{curve shape name: its control points and its tube's vertex recipe} (python/dray/curves.py),
    read from the scene once and kept on it (the control points as last set)."""
    if not hasattr(scene, "_curve_state"):
        scene._curve_state = scene._curves()
    return scene._curve_state


class SceneParameters(MutableMapping):
    """``params = scene.params()``: ``params[name]`` is the value now (NAME, NAME[i] or NAME[i,j,c];
    a copy, in the shape ``dray params`` lists: () a scalar, (3,) a vector, a block's shape);
    ``params[name] = value`` stages a change; ``params.update()`` applies what is staged (and any
    mapping given: ``params.update(opt)`` with a dray.ad.Adam), rebuilding the geometry when a
    change moves it. A block may change shape by assignment: a grid resampled to another
    resolution, a bitmap to another size, a mesh's positions with its new ``faces`` (Mitsuba's key;
    a remeshing: the mesh keeps its material, drops its UVs and is smooth shaded anew if it was). Iterating gives every parameter's name. Mitsuba's keys (``mi.traverse``'s:
    ``red.reflectance.value``, ``bunny.vertex_positions``) name the same values; a value may be a
    torch tensor, and one that requires grad (or carries a forward-mode tangent) is remembered
    (``tensors()``) as an input of ``dray.torch.render(scene, params)``."""

    def __init__(self, scene):
        self._scene = scene
        self._names = None
        self._staged = {}
        self._faces = {}  # shape name -> new faces (F×3), staged with or without new vertices
        self._tensors = {}  # name -> the torch tensor (requiring grad) its value came from
        self._kept = None  # the names keep() kept, or None: all
        self._staged_curves = {}  # curve shape name -> its new control points, applied at update()

    def tensors(self):
        """{name: tensor} of the values set from torch tensors that require grad (a dray.ad.Adam's,
        or a latent variable's image: a pose applied to vertex positions): the inputs through which
        ``dray.torch.render(scene, params)`` sends gradients."""
        return dict(self._tensors)

    def _all(self):
        if self._names is None:
            self._names = list(self._scene._values().keys())
            if self._kept is not None:
                self._names = [n for n in self._names if n in self._kept]
        return self._names

    def keep(self, keys):
        """Mitsuba's ``params.keep(keys)``: iterating (and an optimizer given these parameters) sees
        only the parameters a regular expression of `keys` (one, or a list) matches at the start of
        their name or of one of their Mitsuba keys (``r'.*\\.reflectance\\.value'``); None keeps all."""
        import re
        self._kept, self._names = None, None  # every name again, then those kept
        if keys is None:
            return
        patterns = [re.compile(k).match for k in ([keys] if isinstance(keys, str) else list(keys))]
        aliases = {}
        for key, name in self.mitsuba_keys():
            aliases.setdefault(name, []).append(key)
        self._kept = {n for n in self._all() if any(r(k) for r in patterns for k in [n] + aliases.get(n, []))}
        self._names = None

    def _curve_target(self, name):
        """The curve shape whose control points `name` names (``curve.control_points``, Mitsuba's
        key, or ``shapes.curve.control_points``), or None."""
        if not name.endswith(".control_points"):
            return None
        shape = name[:-len(".control_points")]
        shape = shape[len("shapes."):] if shape.startswith("shapes.") else shape
        return shape if shape in _curves(self._scene) else None

    def _curve_points(self, shape):
        """The control points now (N x 4: x, y, z, radius; world space), a copy."""
        if shape in self._staged_curves:
            return as_numpy(self._staged_curves[shape], np.float32).reshape(-1, 4)
        return _curves(self._scene)[shape]["points"].copy()

    def __getitem__(self, name):
        curve = self._curve_target(name)
        if curve is not None:
            return self._curve_points(curve)
        shape = self._faces_target(name)
        if shape is not None and shape in self._faces and not name.endswith(".texcoords"):
            return self._faces[shape].copy()
        if name in self._staged:
            return as_numpy(self._staged[name], np.float32)
        try:
            return self._scene._param(name)
        except ValueError as e:
            value = self._scene_value(name)
            if value is None:
                raise KeyError(name) from e
            return value

    def mitsuba_keys(self):
        """[(Mitsuba's key, dray's name)]: the keys mi.traverse gives this scene's values, as
        ``dray params --mitsuba`` lists them (a mesh's faces and the sensor's clip planes are
        values to read, not parameters)."""
        return list(self._scene._mitsuba_keys())

    def _camera_target(self, name):
        keys = dict(self._scene._mitsuba_keys())
        target = keys.get(name, name)
        return target if target in _CAMERA_VALUES and target in keys.values() else None

    def _camera_value(self, target):
        """The sensor's to_world (4×4, as look_at builds it from camera.origin, target and up) or
        its horizontal field of view in degrees (from camera.fov_y and the film's aspect)."""
        if target == "camera.to_world":
            from .mitsuba_dict import ScalarTransform4f
            return ScalarTransform4f().look_at(self["camera.origin"], self["camera.target"], self["camera.up"]).matrix
        aspect = self._scene.width / self._scene.height
        return np.degrees(2 * np.arctan(aspect * np.tan(np.radians(float(self["camera.fov_y"])) / 2)))

    def _set_camera_value(self, target, value):
        """Sets to_world (a ScalarTransform4f or 4×4 array or tensor: its translation the origin,
        its z axis the view direction, its y axis up) or x_fov (degrees) through the camera's
        parameters, with torch operations for a tensor so that gradients reach it."""
        torch_value = _is_tensor(value)
        if target == "camera.to_world":
            m = value.matrix if hasattr(value, "matrix") else value
            m = m.reshape(4, 4) if torch_value else np.asarray(m, dtype=np.float64).reshape(4, 4)
            self["camera.origin"] = m[:3, 3]
            self["camera.target"] = m[:3, 3] + m[:3, 2]
            self["camera.up"] = m[:3, 1]
            return
        aspect = self._scene.width / self._scene.height
        if torch_value:
            import torch
            self["camera.fov_y"] = torch.rad2deg(2 * torch.atan(torch.tan(torch.deg2rad(value) / 2) / aspect))
        else:
            self["camera.fov_y"] = np.degrees(2 * np.arctan(np.tan(np.radians(float(value)) / 2) / aspect))

    def _scene_value(self, name):
        """A Mitsuba key of a scene value that is not a parameter (a mesh's faces, the sensor's
        clip planes, to_world and x_fov): its value; None for any other name."""
        target = dict(self._scene._mitsuba_keys()).get(name)
        if target in _CAMERA_VALUES:
            return self._camera_value(target)
        if target is None:
            return None
        try:
            return self._scene._scene_value(target)
        except ValueError:
            return None

    def _faces_target(self, name):
        """The mesh shape whose faces the Mitsuba key `name` (``bunny.faces``) names, or None; for
        ``bunny.texcoords`` the same shape, so that assigning it nothing (Mitsuba's remeshing
        drops the UVs) is understood."""
        keys = dict(self._scene._mitsuba_keys())
        base = name[:-len(".texcoords")] + ".faces" if name.endswith(".texcoords") else name
        target = keys.get(base, base if base.startswith("shapes.") else None)
        if target is None or not target.endswith(".faces") or target not in keys.values():
            return None
        return target[len("shapes."):-len(".faces")]

    def __setitem__(self, name, value):
        curve = self._curve_target(name)
        if curve is not None:  # its tube's vertices follow at update()
            count = len(_curves(self._scene)[curve]["points"])
            if tuple(_shape_of(value)) not in ((count, 4), (4 * count,)):
                raise ValueError("%s: expected %d control points (N x 4: x, y, z, radius, or their 4N values flattened), got shape %s"
                                 % (name, count, tuple(_shape_of(value))))
            self._staged_curves[curve] = value
            return
        camera = self._camera_target(name)
        if camera is not None:
            return self._set_camera_value(camera, value)
        shape = self._faces_target(name)
        if shape is not None and name.endswith(".texcoords"):
            if np.size(as_numpy(value, np.float32)) != 0:
                raise ValueError("%s: dray's texture coordinates are not parameters; assign nothing to drop them "
                                 "(as after a remeshing)" % name)
            self._faces.setdefault(shape, self[name[:-len(".texcoords")] + ".faces"])
            return
        if shape is not None:  # a mesh's new faces, applied with its vertices at update()
            faces = np.asarray(as_numpy(value, np.float64))
            if faces.ndim != 2 or faces.shape[1] != 3 or np.any(faces < 0) or np.any(faces != np.round(faces)):
                raise ValueError("%s: expected F x 3 vertex indices (integers >= 0), got shape %s" % (name, faces.shape))
            self._faces[shape] = faces.astype(np.uint32)
            return
        if self._scene_value(name) is not None:
            raise ValueError("%s: a scene value dray reads but does not change through parameters (set it in the scene)" % name)
        self._scene._param(name)  # ValueError for an unknown name or index, now rather than at update()
        self._staged[name] = value

    def __delitem__(self, name):
        raise TypeError("a scene's parameters cannot be removed (assign a value and call update())")

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())

    def __contains__(self, name):
        if self._curve_target(name) is not None:
            return True
        try:
            self._scene._param(name)
            return True
        except ValueError:
            return self._scene_value(name) is not None

    def items(self):
        """(name, value) of every parameter (those kept): copies of the values now (a snapshot)."""
        values = self._scene._values()
        values.update({k: as_numpy(v, np.float32) for k, v in self._staged.items() if k in values})
        return {k: values[k] for k in self._all()}.items()

    def update(self, values=None, **kwargs):
        """Applies the staged changes and those given (a mapping, or name=value pairs) at once:
        ValueError naming the parameter and the rule, and nothing changed, when any breaks a rule
        (the staged changes are dropped either way). Returns the names changed."""
        staged = dict(self._staged)
        for source in (values or {}), kwargs:
            if isinstance(source, Optimizer) and source._torch is None:
                source = source._values  # a numpy dray optimizer: its values, not a copy of each
            items = source.items() if isinstance(source, Mapping) else source
            for name, value in items:
                if self._curve_target(name) is not None:
                    self[name] = value
                else:
                    staged[name] = value
        curves, self._staged_curves, new_points = self._staged_curves, {}, {}
        for shape, points in curves.items():  # a curve's tube: its vertices, differentiable in torch
            from .curves import tube_vertices
            recipe = _curves(self._scene)[shape]
            p = points.reshape(-1, 4) if _is_tensor(points) else np.asarray(points, dtype=np.float64).reshape(-1, 4)
            staged["shapes.%s.vertices" % shape] = tube_vertices(p, recipe)
            new_points[shape] = as_numpy(p, np.float32).reshape(-1, 4).copy()
        faces, self._faces = self._faces, {}
        self._staged.clear()  # applied or refused, the mapping reads the scene again
        if staged or faces:
            self._scene.update({name: as_numpy(value, np.float32) for name, value in staged.items()}, faces)
            for shape, points in new_points.items():
                _curves(self._scene)[shape]["points"] = points
            for name, value in staged.items():  # a tensor that requires grad, or a dual one, is an input of torch.render
                if getattr(value, "requires_grad", False) or _is_dual(value):
                    self._tensors[name] = value
                else:
                    self._tensors.pop(name, None)
        return list(staged)

    def project(self, name, value):
        """`value` moved onto the parameter's domain (the nearest value it may take: a roughness
        > 0, a reflectance in [0, 1]), as dray optimize projects its steps."""
        projected = np.array(value, dtype=np.float64, order="C")
        self._scene._project(name, projected)
        return projected

    def _project_in_place(self, name, value):
        """As project, in `value` itself (a C-ordered float64 array): the optimizers' step."""
        self._scene._project(name, value)

    def __repr__(self):
        """Mitsuba's table: each parameter's name, flags (∂: differentiable; every one of dray's
        is), type (float, float[3], or a block's shape) and Mitsuba key; then what is staged."""
        if len(self) == 0:
            return "SceneParameters[]"
        aliases = {}
        for key, name in self.mitsuba_keys():
            aliases.setdefault(name, key)
        rows = []
        for name, value in self.items():
            shape = np.shape(value)
            kind = "float" if shape == () else "float[%d]" % shape[0] if len(shape) == 1 and shape[0] <= 4 else \
                "block %s" % "x".join(str(n) for n in shape)
            rows.append((name, "\u2202", kind, aliases.get(name, "")))
        widths = [max(len(r[i]) for r in rows + [("Name", "Flags", "Type", "Mitsuba key")]) for i in range(4)]
        rule = "  " + "-" * (sum(widths) + 8 + 10)
        head = "  %-*s  %-7s  %-*s  %s" % (widths[0], "Name", "Flags", widths[2], "Type", "Mitsuba key")
        lines = ["SceneParameters[", rule, head, rule]
        lines += ["  %-*s  %-7s  %-*s  %s" % (widths[0], n, f, widths[2], t, k) for n, f, t, k in rows]
        if self._staged:
            lines.append("  (%d staged: %s)" % (len(self._staged), ", ".join(self._staged)))
        return "\n".join(lines + ["]"])
