"""dray.Bitmap as Mitsuba's mi.Bitmap (its image_io_and_manipulation guide): every channel of a file
kept (issue 76: read_image and Bitmap dropped all but three; np.array(bitmap) was a 0-d object
array), pixel and component formats, sRGB gamma against its closed form, split by prefix,
resampling against box averages, metadata, Mitsuba's printout, and writing EXR, PNG and JPEG."""
import os

import numpy as np
import pytest

import dray

TEXTURES = os.path.join(os.environ.get("DRAY_TUTORIAL_SCENES", os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "mitsuba-tutorials", "scenes")), "textures")


def test_an_exrs_channels_and_names_round_trip(tmp_path):
    values = np.random.default_rng(0).random((6, 5, 5)).astype(np.float32)
    names = ["A.x", "A.y", "B.x", "B.y", "B.z"]
    b = dray.Bitmap(values, channel_names=names)
    assert b.pixel_format() == dray.Bitmap.PixelFormat.MultiChannel and b.size() == [5, 6]
    b.write(tmp_path / "m.exr")
    back = dray.Bitmap(tmp_path / "m.exr")
    assert back.channel_names() == names and back.component_format() == dray.Struct.Type.Float32
    np.testing.assert_array_equal(np.array(back), values)
    assert np.array(back).shape == (6, 5, 5) and np.array(back).dtype == np.float32
    np.testing.assert_array_equal(dray.read_image(tmp_path / "m.exr"), values)
    # One channel stays one channel (it came back as three).
    dray.Bitmap(values[..., :1]).write(tmp_path / "y.exr")
    assert dray.read_image(tmp_path / "y.exr").shape == (6, 5, 1)
    assert dray.Bitmap(tmp_path / "y.exr").pixel_format() == dray.Bitmap.PixelFormat.Y
    layers = dict(back.split())
    assert sorted(layers) == ["A", "B"]
    assert layers["A"].channel_count() == 2 and layers["B"].pixel_format() == dray.Bitmap.PixelFormat.MultiChannel
    np.testing.assert_array_equal(np.array(layers["B"]), values[..., 2:])


@pytest.mark.skipif(not os.path.isdir(TEXTURES), reason="no ../shared/mitsuba-tutorials (the tutorials' textures)")
def test_the_tutorials_multichannel_exr_and_photo():
    exr = dray.Bitmap(os.path.join(TEXTURES, "multi_channels.exr"))
    # Mitsuba's printout of this file: 14 channels, R G B first, then depth.T, image.*, sh_normal.* …
    assert exr.channel_names() == ["R", "G", "B", "depth.T", "image.R", "image.G", "image.B", "image.A", "position.X",
                                   "position.Y", "position.Z", "sh_normal.X", "sh_normal.Y", "sh_normal.Z"]
    assert "    float32 image.A; // @28, alpha" in repr(exr)  # Mitsuba's printout of this file
    assert str(exr.pixel_format()) == "multichannel" and exr.size() == [256, 256]
    assert dray.read_image(os.path.join(TEXTURES, "multi_channels.exr")).shape == (256, 256, 14)
    layers = dict(exr.split())
    assert {"<root>", "image", "sh_normal", "depth"} <= set(layers)
    assert layers["depth"].pixel_format() == dray.Bitmap.PixelFormat.Y
    assert layers["image"].pixel_format() == dray.Bitmap.PixelFormat.RGBA
    assert layers["sh_normal"].pixel_format() == dray.Bitmap.PixelFormat.XYZ
    photo = dray.Bitmap(os.path.join(TEXTURES, "flower_photo.jpeg"))
    assert repr(photo).splitlines()[:7] == ["Bitmap[", "  pixel_format = rgb,", "  component_format = uint8,",
                                            "  size = [1500, 1500],", "  srgb_gamma = 1,", "  struct = Struct<3>[",
                                            "    uint8 R; // @0, normalized, gamma"]
    assert repr(photo).splitlines()[-2] == "  data = [ 6.44 MiB of image data ]"  # Mitsuba's figure
    as_float = photo.convert(dray.Bitmap.PixelFormat.RGB, dray.Struct.Type.Float32, srgb_gamma=True)
    assert "data = [ 25.7 MiB of image data ]" in repr(as_float)
    np.testing.assert_allclose(np.array(as_float), np.array(photo) / 255.0, rtol=1e-6)


def test_gamma_formats_and_metadata():
    ramp = np.linspace(0, 1, 11).reshape(1, 11, 1).repeat(2, axis=0)
    b = dray.Bitmap(ramp)  # float64, Y, linear: Mitsuba's printout of the guide's ramp
    assert str(b.component_format()) == "float64" and str(b.pixel_format()) == "y" and not b.srgb_gamma()
    assert "    float64 Y; // @0, premultiplied alpha" in repr(b)
    srgb = b.convert(srgb_gamma=True)
    v = ramp[0, :, 0]
    expected = np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)  # sRGB's curve
    np.testing.assert_allclose(np.array(srgb)[0, :, 0], expected, rtol=1e-12)
    np.testing.assert_allclose(np.array(srgb.convert(srgb_gamma=False)), ramp, rtol=1e-12, atol=1e-15)
    rgb = b.convert(dray.Bitmap.PixelFormat.RGB)
    assert rgb.channel_count() == 3 and np.array_equal(np.array(rgb)[..., 2], ramp[..., 0])
    grey = rgb.convert(dray.Bitmap.PixelFormat.Y)
    np.testing.assert_allclose(np.array(grey), ramp, rtol=1e-5)  # luminance weights sum to 1
    eight = b.convert(component_format=dray.Struct.Type.UInt8)
    np.testing.assert_array_equal(np.array(eight)[..., 0], np.floor(ramp[..., 0] * 255 + 0.5))  # normalized, rounded
    b.metadata()["test"] = "foo"
    b.metadata()["bar"] = 4.0
    assert "  metadata = {\n    bar => 4,\n    test => \"foo\"\n  }," in repr(b)
    assert b.convert(srgb_gamma=True).metadata() == {"test": "foo", "bar": 4.0}


def test_resampling_averages_boxes_and_writes_8bit(tmp_path):
    values = np.random.default_rng(2).random((12, 8, 3)).astype(np.float32)
    b = dray.Bitmap(values)
    small = b.resample([4, 3], dray.load_dict({"type": "box"}))
    assert small.size() == [4, 3]
    expected = values.reshape(3, 4, 4, 2, 3).mean(axis=(1, 3))  # 4 x 2 boxes
    np.testing.assert_allclose(np.array(small), expected, rtol=1e-5)
    tent = b.resample([4, 3], dray.load_dict({"type": "tent"}))
    np.testing.assert_allclose(np.array(tent).mean(), values.mean(), rtol=0.05)
    small.write(tmp_path / "s.png")
    back = dray.Bitmap(tmp_path / "s.png")
    assert back.component_format() == dray.Struct.Type.UInt8 and back.srgb_gamma()
    encoded = np.where(expected <= 0.0031308, 12.92 * expected, 1.055 * expected ** (1 / 2.4) - 0.055)
    assert np.abs(np.array(back) / 255.0 - encoded).max() <= 0.5 / 255 + 1e-6
    # read_image decodes an 8-bit file's colour to linear, channels as stored.
    np.testing.assert_allclose(dray.read_image(tmp_path / "s.png"), expected, atol=5e-3)  # 8-bit steps
    dray.util.write_bitmap(str(tmp_path / "w.jpg"), values)
    assert dray.Bitmap(tmp_path / "w.jpg").size() == [8, 12]
    dray.util.write_bitmap(str(tmp_path / "w.exr"), values)
    np.testing.assert_array_equal(dray.read_image(tmp_path / "w.exr"), values)
    with pytest.raises(ValueError, match="unknown format"):
        b.write(tmp_path / "x.tga")


def test_an_8bit_array_is_srgb_and_written_as_it_is(tmp_path):
    # Mitsuba's mi.Bitmap(uint8 array) is sRGB-encoded and mi.util.write_bitmap writes its values
    # unchanged; dray cast them to float and wrote every nonzero texel white.
    values = np.arange(6 * 5 * 3, dtype=np.uint8).reshape(6, 5, 3) * 3
    b = dray.Bitmap(values)
    assert b.component_format() == dray.Struct.Type.UInt8 and b.srgb_gamma()
    assert not dray.Bitmap(values.astype(np.float32)).srgb_gamma()
    dray.util.write_bitmap(str(tmp_path / "a.png"), values)
    np.testing.assert_array_equal(np.array(dray.Bitmap(tmp_path / "a.png"))[..., :3], values)
    assert dray.util.convert_to_bitmap(values).component_format() == dray.Struct.Type.UInt8
    np.testing.assert_array_equal(np.array(dray.util.convert_to_bitmap(values)), values)
