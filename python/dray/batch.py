"""Mitsuba's ``batch`` sensor: its sensors side by side on one film (each a width / N slice), with
one sampler; ``render``, ``render_forward``, ``backward`` and ``dray.torch.render`` render each
sensor's slice and join them, the adjoint image split the same way and the gradients summed over
the sensors in their order (the same sum on every run)."""
import numpy as np


class BatchFilm:
    """The batch's film: ``size()`` is [width, height] of the joined image."""

    def __init__(self, width, height):
        self._size = [width, height]

    def size(self):
        return list(self._size)


class BatchSensor:
    """The sensors of a batch (dray.Sensor each) and its sampler's sample count."""

    def __init__(self, sensors, spp, width, height):
        self.sensors, self.spp, self._film = sensors, spp, BatchFilm(width, height)

    def film(self):
        return self._film

    def __repr__(self):
        return "BatchSensor(%d sensors, %dx%d)" % (len(self.sensors), *self._film.size())


def load_batch(d, load_dict):
    """A batch dict's sensors, each given the batch's film at width / N and its sampler (a nested
    sensor's own film and sampler are replaced, as Mitsuba's batch does)."""
    film = dict(d.get("film", {"type": "hdrfilm"}))
    width, height = int(film.get("width", 768)), int(film.get("height", 576))
    nested = [(k, v) for k, v in d.items() if k not in ("type", "id", "film", "sampler") and isinstance(v, dict)]
    other = [k for k, v in d.items() if k not in ("type", "id", "film", "sampler") and not isinstance(v, dict)]
    if other:
        raise ValueError("load_dict: batch: unknown keys %s (a batch holds sensors, a film and a sampler)" % ", ".join(other))
    if not nested:
        raise ValueError("load_dict: a batch sensor needs at least one nested sensor")
    if width % len(nested):
        raise ValueError("load_dict: batch: the film's width %d is not a multiple of its %d sensors" % (width, len(nested)))
    sensors = []
    for key, s in nested:
        sub = {k: v for k, v in s.items() if k not in ("film", "sampler")}
        sub["film"] = dict(film, width=width // len(nested))
        if "sampler" in d:
            sub["sampler"] = d["sampler"]
        sensors.append(load_dict(sub))
    spp = sensors[0].spp
    return BatchSensor(sensors, spp, width, height)


def join(images):
    """The sensors' images (or {name: image or [images]}) side by side."""
    if isinstance(images[0], dict):
        out = {}
        for name, first in images[0].items():
            parts = [im[name] for im in images]
            out[name] = [join([p[k] for p in parts]) for k in range(len(first))] if isinstance(first, list) else join(parts)
        return out
    return np.concatenate(images, axis=1)


def split(d_image, count):
    """The adjoint image in the sensors' slices."""
    from .ad import as_numpy
    a = as_numpy(d_image, np.float32)
    if a.ndim != 3 or a.shape[1] % count:
        raise ValueError("backward: an adjoint image of shape %s does not split into %d sensors' slices" % (a.shape, count))
    return np.split(a, count, axis=1)


def sum_gradients(parts):
    """{name: gradient} summed over the sensors, in their order."""
    out = {}
    for g in parts:
        for name, value in g.items():
            out[name] = out[name] + value if name in out else np.array(value, copy=True)
    return out
