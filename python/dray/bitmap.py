"""Mitsuba's ``mi.Bitmap``: an image's values with their pixel format, component format, sRGB
gamma, channel names and metadata, read from a file (every channel of an EXR, an 8-bit PNG or JPEG
as stored) or made from an array, converted, split by channel prefix, resampled and written.

    bmp = dray.Bitmap("flower_photo.jpeg")           # rgb, uint8, srgb_gamma
    bmp = bmp.convert(dray.Bitmap.PixelFormat.RGB, dray.Struct.Type.Float32, srgb_gamma=False)
    layers = dict(dray.Bitmap("multi_channels.exr").split())   # {'<root>': …, 'image': …, 'depth': …}
    small = bmp.resample([64, 64])                    # a box filter, as Mitsuba's default
    np.array(small)                                   # H × W × C, in the component format

``dray.util.write_bitmap`` and ``convert_to_bitmap`` are Mitsuba's helpers of the same names.
"""
import enum
import os

import numpy as np

from . import _dray


class PixelFormat(enum.Enum):
    """Mitsuba's Bitmap.PixelFormat: which channels a pixel holds."""
    Y = "y"
    YA = "ya"
    RGB = "rgb"
    RGBA = "rgba"
    XYZ = "xyz"
    XYZA = "xyza"
    MultiChannel = "multichannel"

    def __str__(self):
        return self.value


class Struct:
    """Mitsuba's Struct, for its component types (``dray.Struct.Type.Float32``)."""

    class Type(enum.Enum):
        Int8 = "int8"
        UInt8 = "uint8"
        Int16 = "int16"
        UInt16 = "uint16"
        Int32 = "int32"
        UInt32 = "uint32"
        Int64 = "int64"
        UInt64 = "uint64"
        Float16 = "float16"
        Float32 = "float32"
        Float64 = "float64"

        def __str__(self):
            return self.value


_CHANNELS = {PixelFormat.Y: "Y", PixelFormat.YA: "YA", PixelFormat.RGB: "RGB", PixelFormat.RGBA: "RGBA",
             PixelFormat.XYZ: "XYZ", PixelFormat.XYZA: "XYZA"}
_BY_COUNT = {1: PixelFormat.Y, 2: PixelFormat.YA, 3: PixelFormat.RGB, 4: PixelFormat.RGBA}
_LUMINANCE = np.array([0.212671, 0.715160, 0.072169])  # Mitsuba's luminance of linear sRGB


def _format_of_names(names):
    """The pixel format whose channels are `names` in order, or MultiChannel."""
    for fmt, letters in _CHANNELS.items():
        if list(letters) == list(names):
            return fmt
    return PixelFormat.MultiChannel


def _srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _linear_to_srgb(v):
    v = np.maximum(v, 0)
    return np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)


def _mem(nbytes):
    """Mitsuba's memory string: three significant digits (6.44 MiB, 78.1 KiB, 160 KiB)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return "%.3g %s" % (nbytes, unit)
        nbytes /= 1024.0


def _meta(v):
    return '"%s"' % v if isinstance(v, str) else "%g" % v if isinstance(v, float) else str(v)


class Bitmap:
    """``Bitmap(path)`` reads a file; ``Bitmap(array, pixel_format=None, channel_names=None)``
    wraps an H × W or H × W × C array (its dtype the component format; C 1, 2, 3, 4 as Y, YA, RGB,
    RGBA, else or with channel names MultiChannel). Values are kept as given: 8-bit files stay
    8-bit and sRGB-encoded (``srgb_gamma()``), EXRs float and linear."""

    PixelFormat = PixelFormat

    suffix = "exr"  # a dict's texture (mitsuba_dict) is written as an EXR beside its XML

    def __init__(self, data, pixel_format=None, channel_names=None):
        self._metadata = {}
        self._premultiplied = True
        if isinstance(data, Bitmap):
            self._array, self._names, self._format = data._array.copy(), list(data._names), data._format
            self._gamma, self._metadata, self._premultiplied = data._gamma, dict(data._metadata), data._premultiplied
            return
        if isinstance(data, (str, os.PathLike)):
            self._read(os.fspath(data))
            return
        from .ad import as_numpy
        a = np.asarray(data) if isinstance(data, np.ndarray) else as_numpy(data, None)
        if a.dtype == np.float64 and not isinstance(data, np.ndarray) and not hasattr(data, "dtype"):
            a = a.astype(np.float32)  # a list of numbers: float32, as Mitsuba's TensorXf
        if a.ndim == 2:
            a = a[..., None]
        if a.ndim != 3 or min(a.shape) < 1:
            raise ValueError("Bitmap: expected H x W or H x W x C values, got shape %s" % (a.shape,))
        if a.dtype.name not in Struct.Type._value2member_map_:
            raise ValueError("Bitmap: values of type %s are not a component format" % a.dtype)
        # 8-bit values are sRGB-encoded by default, others linear (Mitsuba's Bitmap constructor).
        self._array, self._gamma = np.ascontiguousarray(a), a.dtype == np.uint8
        c = a.shape[2]
        if channel_names is not None:
            names = [str(n) for n in channel_names]
            if len(names) != c:
                raise ValueError("Bitmap: %d channel names for %d channels" % (len(names), c))
            self._names, self._format = names, pixel_format or PixelFormat.MultiChannel
        else:
            self._format = pixel_format or _BY_COUNT.get(c, PixelFormat.MultiChannel)
            letters = _CHANNELS.get(self._format)
            if letters is not None and len(letters) != c:
                raise ValueError("Bitmap: pixel format %s has %d channels, the values %d" % (self._format, len(letters), c))
            self._names = list(letters) if letters else ["ch%d" % i for i in range(c)]

    def _read(self, path):
        values, names, eight_bit = _dray.read_image_channels(path)
        c = values.shape[2]
        if eight_bit:
            self._array = np.round(values * 255).astype(np.uint8)
            self._names, self._format = list(_CHANNELS[_BY_COUNT[c]]), _BY_COUNT[c]
            self._gamma, self._premultiplied = True, False
            return
        self._array, self._gamma = values, False
        if not names:
            names = list(_CHANNELS[_BY_COUNT[c]])
        self._names, self._format = list(names), _format_of_names(names)

    # Mitsuba's accessors
    def pixel_format(self):
        return self._format

    def component_format(self):
        return Struct.Type(self._array.dtype.name)

    def size(self):
        """[width, height], as Mitsuba's."""
        return [self._array.shape[1], self._array.shape[0]]

    def width(self):
        return self._array.shape[1]

    def height(self):
        return self._array.shape[0]

    def channel_count(self):
        return self._array.shape[2]

    def channel_names(self):
        return list(self._names)

    def srgb_gamma(self):
        return self._gamma

    def set_srgb_gamma(self, value):
        self._gamma = bool(value)

    def metadata(self):
        """The metadata, a dict that changes the bitmap's own (``bmp.metadata()['k'] = v``)."""
        return self._metadata

    def __array__(self, dtype=None, copy=None):
        return self._array.astype(dtype) if dtype is not None else self._array.copy()

    @property
    def shape(self):
        return self._array.shape

    def _linear_float(self):
        """The values as float64: integers normalized to [0, 1], the gamma left as it is."""
        a = self._array
        if a.dtype.kind in "ui":
            return a.astype(np.float64) / np.iinfo(a.dtype).max
        return a.astype(np.float64)

    def convert(self, pixel_format=None, component_format=None, srgb_gamma=None):
        """A copy in another pixel format (Y ↔ RGB by luminance and repetition, alpha added as 1 or
        dropped), component format (integers normalized to [0, 1]) and gamma (sRGB's curve
        applied or undone), as Mitsuba's ``Bitmap.convert``."""
        fmt = self._format if pixel_format is None else pixel_format
        ctype = self.component_format() if component_format is None else component_format
        gamma = self._gamma if srgb_gamma is None else bool(srgb_gamma)
        v = self._linear_float()
        if self._format == PixelFormat.MultiChannel and fmt != PixelFormat.MultiChannel:
            raise ValueError("Bitmap.convert: a multichannel bitmap splits into formats (split()), it does not convert")
        if fmt != self._format:
            v = _reformat(v, self._format, fmt)
        if gamma != self._gamma:
            colour = slice(0, v.shape[2] - 1) if fmt in (PixelFormat.YA, PixelFormat.RGBA, PixelFormat.XYZA) else slice(None)
            v = v.copy()
            v[..., colour] = _linear_to_srgb(v[..., colour]) if gamma else _srgb_to_linear(v[..., colour])
        dtype = np.dtype(ctype.value)
        if dtype.kind in "ui":
            out = np.round(np.clip(v, 0, 1) * np.iinfo(dtype).max).astype(dtype)
        else:
            out = v.astype(dtype)
        b = Bitmap(out, fmt, self._names if fmt == PixelFormat.MultiChannel else None)
        b._gamma, b._metadata, b._premultiplied = gamma, dict(self._metadata), self._premultiplied
        return b

    def split(self):
        """[(prefix, Bitmap)] of the channels grouped by the name before their last '.'; the
        channels without one under '<root>' (Mitsuba's ``Bitmap.split``)."""
        groups = {}
        for i, name in enumerate(self._names):
            prefix, _, suffix = name.rpartition(".")
            groups.setdefault(prefix or "<root>", []).append((i, suffix))
        out = []
        for prefix, members in groups.items():
            idx = [i for i, _ in members]
            suffixes = [s for _, s in members]
            fmt = _format_of_names(suffixes)
            if fmt == PixelFormat.MultiChannel and len(idx) == 1:
                fmt = PixelFormat.Y
            b = Bitmap(np.ascontiguousarray(self._array[..., idx]), fmt, suffixes if fmt == PixelFormat.MultiChannel else None)
            b._gamma, b._premultiplied = self._gamma, self._premultiplied
            out.append((prefix, b))
        return out

    def resample(self, res, rfilter=None):
        """The image at res = [width, height], each output pixel the filter's weighted mean of the
        source pixels (the filter widened by the reduction factor when shrinking), as Mitsuba's
        Resampler; `rfilter` a dray.load_dict({'type': 'box' | 'tent' | 'gaussian'}), box by default."""
        from .util import ReconstructionFilter
        f = rfilter if rfilter is not None else ReconstructionFilter("box")
        w, h = int(res[0]), int(res[1])
        if w < 1 or h < 1:
            raise ValueError("Bitmap.resample: expected a size [width, height] >= 1, got %r" % (res,))
        v = self._linear_float()
        wy, wx = f.resampling_weights(self.height(), h), f.resampling_weights(self.width(), w)
        out = np.einsum("ij,jkc->ikc", wy, v)
        out = np.einsum("kj,ijc->ikc", wx, out)
        dtype = self._array.dtype
        if dtype.kind in "ui":
            out = np.round(np.clip(out, 0, 1) * np.iinfo(dtype).max)
        b = Bitmap(out.astype(dtype), self._format, self._names if self._format == PixelFormat.MultiChannel else None)
        b._gamma, b._metadata, b._premultiplied = self._gamma, dict(self._metadata), self._premultiplied
        return b

    def write(self, path):
        """Writes by extension: .exr (every channel, float, by name), .png or .jpg/.jpeg (8-bit:
        float values are converted to 8-bit sRGB first, as Mitsuba's write_bitmap does)."""
        path = os.fspath(path)
        ext = os.path.splitext(path)[1].lower()
        if ext == ".exr":
            b = self if not self._gamma else self.convert(srgb_gamma=False)
            _dray.write_image_channels(path, np.ascontiguousarray(b._linear_float(), dtype=np.float32), b._names)
        elif ext in (".png", ".jpg", ".jpeg"):
            if self._format == PixelFormat.MultiChannel:
                raise ValueError("Bitmap.write: a multichannel bitmap is written as .exr (split() it for %s)" % ext)
            b = self if self._array.dtype == np.uint8 else self.convert(component_format=Struct.Type.UInt8, srgb_gamma=True)
            _dray.write_8bit_image(path, np.ascontiguousarray(b._array))
        else:
            raise ValueError("Bitmap.write: %s: unknown format (.exr, .png, .jpg)" % path)

    def _write_texture(self, path):
        """A dict's texture: an RGB EXR (one channel repeated in all three: a texture's eval_1
        reads it back), values as given."""
        if self.channel_count() not in (1, 3):
            raise ValueError("Bitmap: a texture takes 1 or 3 channels (Y or RGB), got %d (%s)"
                             % (self.channel_count(), self._format))
        b = self.convert(srgb_gamma=False) if self._gamma else self
        a = b._linear_float().astype(np.float32)
        a = a if a.shape[2] == 3 else np.repeat(a, 3, axis=2)
        _dray.write_image(path, np.ascontiguousarray(a))

    @property
    def array(self):
        """The values as an H × W × C array (no copy)."""
        return self._array

    def __repr__(self):
        comp = self.component_format()
        size = self._array.dtype.itemsize
        lines = ["Bitmap[", "  pixel_format = %s," % self._format, "  component_format = %s," % comp,
                 "  size = [%d, %d]," % (self.width(), self.height()), "  srgb_gamma = %d," % int(self._gamma),
                 "  struct = Struct<%d>[" % (size * self.channel_count())]
        for i, name in enumerate(self._names):
            flags = ["@%d" % (i * size)]
            if self._array.dtype.kind in "ui":
                flags.append("normalized")
            alpha = name.rpartition(".")[2] in ("A", "a")
            if self._gamma and not alpha:
                flags.append("gamma")
            if alpha:
                flags.append("alpha")
            elif self._premultiplied:
                flags.append("premultiplied alpha")
            lines.append("    %s %s; // %s" % (comp, name, ", ".join(flags)))
        lines.append("  ],")
        if self._metadata:
            lines.append("  metadata = {")
            items = sorted(self._metadata.items())
            lines += ["    %s => %s%s" % (k, _meta(v), "," if i + 1 < len(items) else "") for i, (k, v) in enumerate(items)]
            lines.append("  },")
        lines.append("  data = [ %s of image data ]" % _mem(self._array.nbytes))
        lines.append("]")
        return "\n".join(lines)


def _reformat(v, src, dst):
    """Linear float values from one pixel format to another (Y by luminance, alpha 1 or dropped)."""
    src_l, dst_l = _CHANNELS[src], _CHANNELS[dst]
    alpha = v[..., src_l.index("A")] if "A" in src_l else np.ones(v.shape[:2])
    colour = v[..., :3] if src_l[0] in "RX" else v[..., :1]
    if dst_l[0] == "Y" and colour.shape[2] == 3:
        colour = (colour @ _LUMINANCE)[..., None]
    elif dst_l[0] != "Y" and colour.shape[2] == 1:
        colour = np.repeat(colour, 3, axis=2)
    parts = [colour] + ([alpha[..., None]] if "A" in dst_l else [])
    return np.concatenate(parts, axis=2)
