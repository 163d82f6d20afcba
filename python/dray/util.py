"""Mitsuba's ``mi.util`` helpers for images (``write_bitmap``, ``convert_to_bitmap``) and the
reconstruction filter that ``dray.load_dict({'type': 'box'})`` gives, for ``Bitmap.resample``."""
import numpy as np

from .bitmap import Bitmap, PixelFormat, Struct


class ReconstructionFilter:
    """Mitsuba's rfilter plugins for resampling: ``box`` (radius 0.5), ``tent`` (radius 1) and
    ``gaussian`` (``stddev``, 0.5 by default; radius 4 × stddev), as Mitsuba's."""

    def __init__(self, kind, stddev=0.5, radius=None):
        if kind not in ("box", "tent", "gaussian"):
            raise ValueError("rfilter %r: dray resamples with box, tent or gaussian" % kind)
        self.type, self.stddev = kind, float(stddev)
        self._radius = {"box": 0.5, "tent": 1.0, "gaussian": 4 * self.stddev}[kind] if radius is None else float(radius)

    def radius(self):
        return self._radius

    def eval(self, x):
        x = np.abs(np.asarray(x, dtype=np.float64))
        if self.type == "box":
            return (x <= self._radius).astype(np.float64)
        if self.type == "tent":
            return np.maximum(0.0, 1.0 - x / self._radius)
        g = np.exp(-0.5 * (x / self.stddev) ** 2) - np.exp(-0.5 * (self._radius / self.stddev) ** 2)
        return np.maximum(0.0, g)

    def resampling_weights(self, source, target):
        """target × source weights, rows summing to 1: output pixel i's filter over the source
        pixels, centred at (i + 0.5) · source / target, widened by source / target when shrinking
        (Mitsuba's Resampler)."""
        scale = max(1.0, source / target)
        centres = (np.arange(target) + 0.5) * source / target
        d = (np.arange(source)[None, :] + 0.5 - centres[:, None]) / scale
        w = self.eval(d)
        empty = w.sum(axis=1) == 0  # a filter narrower than the pixel spacing: the nearest pixel
        if np.any(empty):
            nearest = np.clip(np.floor(centres[empty]).astype(int), 0, source - 1)
            w[np.nonzero(empty)[0], nearest] = 1.0
        return w / w.sum(axis=1, keepdims=True)

    def __repr__(self):
        return "ReconstructionFilter(%s, radius=%g)" % (self.type, self._radius)


def convert_to_bitmap(data, uint8_srgb=True):
    """A Bitmap of an image (an H × W × C array, a tensor or a Bitmap): 8-bit sRGB unless told
    otherwise, as Mitsuba's ``mi.util.convert_to_bitmap``."""
    b = _bitmap(data)
    if uint8_srgb and b.pixel_format() != PixelFormat.MultiChannel:
        b = b.convert(component_format=Struct.Type.UInt8, srgb_gamma=True)
    return b


def write_bitmap(filename, data, write_async=True):
    """Writes an image (a Bitmap or an array) by its extension, as Mitsuba's ``mi.util.write_bitmap``:
    8-bit sRGB for .png and .jpg, float for .exr. Writes at once (`write_async` is accepted)."""
    b = _bitmap(data)
    if str(filename).lower().endswith((".png", ".jpg", ".jpeg")) and b.pixel_format() != PixelFormat.MultiChannel:
        b = b.convert(component_format=Struct.Type.UInt8, srgb_gamma=True)
    b.write(filename)


def _bitmap(data):
    """data as Mitsuba's mi.Bitmap(data) takes it: an integer array keeps its component format (8-bit:
    sRGB-encoded, as Mitsuba's), anything else is float."""
    if isinstance(data, Bitmap):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind in "ui":
        return Bitmap(data)
    return Bitmap(np.asarray(_array(data), dtype=np.float32))


def _array(data):
    from .ad import as_numpy
    return as_numpy(data, np.float32)
