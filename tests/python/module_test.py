"""dray's Python module on one process: parameters by name, renders as numpy arrays without a
copy, bitwise the command line's, derivatives (forward) and gradients (backward) that agree with
each other and with differences, images in and out, errors as exceptions.
Run: PYTHONPATH=build/python DRAY=build/tools/dray /usr/bin/python3 -m pytest tests/python/module_test.py"""
import os
import subprocess

import numpy as np
import pytest

import dray

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SCENES = os.path.join(ROOT, "scenes")
DRAY = os.environ.get("DRAY", os.path.join(ROOT, "build", "tools", "dray"))


def cbox(**overrides):
    return dray.load(os.path.join(SCENES, "cbox-fit.json"), **{"camera.width": 32, "camera.height": 32, **overrides})


def test_params_round_trip_and_shapes():
    s = cbox()
    p = s.params()
    assert p["materials.white.reflectance"].shape == (3,)
    assert p["camera.fov_y"].shape == ()
    s.update({"materials.white.reflectance": np.array([0.1, 0.2, 0.3])})
    assert s.params()["materials.white.reflectance"].tolist() == pytest.approx([0.1, 0.2, 0.3])
    spot = dray.load(os.path.join(SCENES, "spot-views-fit.json"))
    v = spot.params()["shapes.spot.vertices"]
    assert v.shape == (2930, 3)
    with pytest.raises(ValueError, match="unknown parameter"):
        s.update({"materials.nope.reflectance": [1, 2, 3]})
    with pytest.raises(ValueError, match="has 3 values"):
        s.update({"materials.white.reflectance": [1, 2]})


def test_load_from_a_dict_with_overrides():
    doc = {"camera": {"origin": [0, 0, 3], "target": [0, 0, 0], "width": 8, "height": 6},
           "materials": {"m": {"type": "diffuse", "reflectance": [0.5, 0.5, 0.5]}},
           "shapes": [{"name": "ball", "type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}],
           "lights": [{"name": "sky", "type": "environment", "radiance": [1, 1, 1]}]}
    s = dray.load(doc, **{"shapes.ball.radius": 0.5, "render.spp": 2})
    assert s.params()["shapes.ball.radius"] == pytest.approx(0.5)
    assert (s.width, s.height, s.spp) == (8, 6, 2)
    with pytest.raises(ValueError, match="radius"):
        dray.load(doc, **{"shapes.ball.radius": -1})


def test_several_sensors_by_name_or_index():
    # Mitsuba's sensor=: the second sensor renders as a scene whose one camera it is, bitwise, in
    # every mode; the scene's own selection is left as it was.
    front = {"origin": [0, 0, 3], "target": [0, 0, 0], "width": 8, "height": 6}
    side = {"origin": [2.5, 0.5, 1], "target": [0, 0, 0], "width": 10, "height": 7, "fov_y": 30}
    doc = {"camera": [front, {"name": "side", **side}], "render": {"spp": 2},
           "materials": {"m": {"type": "diffuse", "reflectance": [0.5, 0.3, 0.2]}},
           "shapes": [{"name": "ball", "type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}],
           "lights": [{"name": "key", "type": "point", "position": [2, 3, 3], "intensity": [20, 20, 20]}]}
    both = dray.load(doc)
    one = dray.load({**doc, "camera": side})
    assert both.sensors == ["camera", "side"]
    assert "sensors.side.fov_y" in both.params()
    assert np.array_equal(dray.render(both, sensor="side", seed=3), dray.render(one, seed=3))
    assert np.array_equal(dray.render(both, sensor=1, seed=3), dray.render(one, seed=3))
    assert dray.render(both).shape == (6, 8, 3)
    fwd = dray.render_forward(both, ["sensors.side.fov_y", "shapes.ball.radius"], sensor="side", seed=3)
    ref = dray.render_forward(one, ["camera.fov_y", "shapes.ball.radius"], seed=3)
    assert np.array_equal(fwd["sensors.side.fov_y"], ref["camera.fov_y"])
    assert np.array_equal(fwd["shapes.ball.radius"], ref["shapes.ball.radius"])
    d = np.random.default_rng(1).random((7, 10, 3), dtype=np.float32)
    assert dray.backward(both, d, ["shapes.ball.radius"], sensor="side", seed=3)["shapes.ball.radius"] == \
        dray.backward(one, d, ["shapes.ball.radius"], seed=3)["shapes.ball.radius"]
    assert (both.width, both.height) == (8, 6)
    with pytest.raises(ValueError, match=r"no sensor \"top\": the scene has 0 \(camera\), 1 \(side\)"):
        dray.render(both, sensor="top")


def test_aovs_are_channels_after_the_image():
    # Mitsuba's aov integrator: render() returns R, G, B and the AOVs' channels, scene.channels
    # names them; the image is the one without AOVs, bitwise.
    doc = {"camera": {"origin": [0, 0, 3], "target": [0, 0, 0], "width": 8, "height": 6, "fov_y": 20},
           "render": {"spp": 2, "aovs": "d:depth,n:geo_normal"},
           "materials": {"m": {"type": "diffuse", "reflectance": [0.5, 0.5, 0.5]}},
           "shapes": [{"name": "ball", "type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}],
           "lights": [{"name": "sky", "type": "environment", "radiance": [1, 1, 1]}]}
    s = dray.load(doc)
    assert s.channels == ["R", "G", "B", "d.T", "n.X", "n.Y", "n.Z"]
    im = dray.render(s)
    assert im.shape == (6, 8, 7)
    assert im[3, 4, 3] == pytest.approx(2.0, rel=1e-2)  # the sphere's near side, 2 from the camera
    assert im[3, 4, 6] == pytest.approx(1.0, rel=1e-2)
    plain = dray.load({**doc, "render": {"spp": 2}})
    assert plain.channels == ["R", "G", "B"]
    assert np.array_equal(im[..., :3], dray.render(plain))
    # hdrfilm's pixel_format: rgba adds alpha (here 1: the environment is seen), luminance keeps Y.
    rgba = dray.load({**doc, "render": {"spp": 2, "pixel_format": "rgba"}})
    assert rgba.channels == ["R", "G", "B", "A"]
    assert np.array_equal(dray.render(rgba)[..., 3], np.ones((6, 8), np.float32))
    y = dray.render(dray.load({**doc, "render": {"spp": 2, "pixel_format": "luminance"}}))
    assert y.shape == (6, 8, 1)


def test_render_is_zero_copy_and_bitwise_the_command_line(tmp_path):
    s = cbox()
    image = dray.render(s, spp=4, seed=3)
    assert image.shape == (32, 32, 3) and image.dtype == np.float32
    assert not image.flags["OWNDATA"] and image.base is not None  # the C++ buffer, held by a capsule
    assert image.flags["WRITEABLE"]
    out = tmp_path / "cli.exr"
    subprocess.run([DRAY, "render", os.path.join(SCENES, "cbox-fit.json"), "--set", "camera.width=32", "--set",
                    "camera.height=32", "--spp", "4", "--seed", "3", "-o", str(out), "-q"], check=True)
    assert np.array_equal(dray.read_image(out), image)
    assert np.array_equal(dray.render(s, spp=4, seed=3, threads=1), image)  # any thread count
    assert not np.array_equal(dray.render(s, spp=4, seed=4), image)
    assert s.spp == 16 and s.seed == 0  # the scene's own settings are kept


def test_images_round_trip(tmp_path):
    a = np.random.default_rng(1).random((5, 7, 3), dtype=np.float32)
    dray.write_image(tmp_path / "a.exr", a)
    assert np.array_equal(dray.read_image(tmp_path / "a.exr"), a)
    with pytest.raises(ValueError):
        dray.read_image(tmp_path / "missing.exr")


def check_backward_against_forward(scene, names, d, seed, rel, abs_tol, nonzero=0):
    """The gradient of sum(d * image) against sum(d * dimage/dθ), the same seed; returns backward's."""
    back = dray.backward(scene, d, wrt=names, seed=seed)
    fwd = dray.render_forward(scene, wrt=names, seed=seed)
    for n in names:
        expected = float(np.sum(d.astype(np.float64) * fwd[n]))
        assert abs(expected) >= nonzero, n
        assert float(back[n]) == pytest.approx(expected, rel=rel, abs=abs_tol), n
    return back


def test_backward_equals_forward_with_the_same_samples():
    # The gradient of sum(d * image) is sum(d * dimage/dθ): reverse against forward mode with the
    # same seed, for colours, a light and geometry (a sphere's radius: its silhouette too).
    s = dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 40, "camera.height": 30, "render.spp": 2})
    names = ["materials.red.reflectance[0]", "lights.key.position[1]", "shapes.mid.radius"]
    d = np.random.default_rng(2).random((30, 40, 3), dtype=np.float32)
    back = check_backward_against_forward(s, names, d, 5, rel=2e-3, abs_tol=1e-6)
    # A vector named whole and one of its components: the same value.
    both = dray.backward(s, d, wrt=["materials.red.reflectance", "materials.red.reflectance[0]"], seed=5)
    assert both["materials.red.reflectance"].shape == (3,)
    assert both["materials.red.reflectance"][0] == both["materials.red.reflectance[0]"] == back["materials.red.reflectance[0]"]


def test_ptracer_backward_equals_forward():
    # The particle tracer's reverse mode against its forward mode, the same light paths: a glass
    # plate's IOR, its exit face's turn and one of its vertices (the caustic moves on the film).
    s = dray.load(os.path.join(SCENES, "lens.json"), **{"camera.width": 24, "camera.height": 24, "render.spp": 4})
    names = ["materials.glass.int_ior", "shapes.lens.rotate_z", "shapes.lens.vertices[6,1]"]
    d = np.random.default_rng(3).random((24, 24, 3), dtype=np.float32)
    check_backward_against_forward(s, names, d, 1, rel=1e-4, abs_tol=0, nonzero=1e-4)


def test_ptracer_refuses_an_emitters_texels():
    # A textured emission leaves in float from the light: its texels are not differentiated.
    scene = dray.load_dict({"type": "scene", "integrator": {"type": "ptracer"},
                            "lamp": {"type": "rectangle", "emitter": {"type": "directionalarea", "radiance": {
                                "type": "bitmap", "bitmap": dray.Bitmap(np.ones((4, 4, 3), np.float32)), "raw": True}}},
                            "floor": {"type": "rectangle", "to_world": dray.ScalarTransform4f().translate([0, 0, -1]).scale(3)}})
    with pytest.raises(ValueError, match="no derivatives by textures.lamp.emission.data"):
        dray.render_forward(scene, wrt=["lamp.bsdf.emission.data"], spp=1)


def test_backward_of_an_l2_loss_against_central_differences():
    # L = mean((image - target)^2) with the same random numbers on both sides of the step.
    s = cbox(**{"render.spp": 4})
    target = dray.render(cbox(**{"materials.white.reflectance": [0.6, 0.6, 0.6]}), spp=16, seed=9)
    name = "materials.white.reflectance[1]"

    def loss(value):
        t = cbox(**{"render.spp": 4})
        v = t.params()["materials.white.reflectance"]
        v[1] = value
        t.update({"materials.white.reflectance": v})
        image = dray.render(t, seed=7).astype(np.float64)
        return float(np.mean((image - target) ** 2))

    image = dray.render(s, seed=7)
    g = dray.backward(s, 2 * (image - target) / image.size, wrt=[name], seed=7)[name]
    v0, h = float(s.params()["materials.white.reflectance"][1]), 1e-3
    fd = (loss(v0 + h) - loss(v0 - h)) / (np.float32(v0 + h) - np.float32(v0 - h))
    assert float(g) == pytest.approx(fd, rel=0.02)


def test_errors_are_exceptions():
    s = cbox()
    with pytest.raises(ValueError, match="unknown parameter"):
        dray.render_forward(s, wrt=["materials.nope.reflectance"])
    with pytest.raises(ValueError, match="d_image is 4x4x3 but the scene renders 32x32x3"):
        dray.backward(s, np.zeros((4, 4, 3), np.float32), wrt=["camera.fov_y"])
    with pytest.raises(ValueError, match="spp must be at least 1"):
        dray.render(s, spp=0)
    with pytest.raises(TypeError, match="mpi4py communicator"):
        dray.render(s, comm=3)


def test_backward_equals_the_reverse_column_of_dray_gradcheck():
    # gradcheck's reverse mode differentiates the image mean with the scene's seed: backward with
    # d_image = 1 / (3 W H) and that seed is the same gradient.
    names = ["materials.red.albedo[0]", "shapes.mid.radius"]
    sets = ["--set", "camera.width=40", "--set", "camera.height=30"]
    out = subprocess.run([DRAY, "gradcheck", os.path.join(SCENES, "spheres.json"), *sets, "--spp", "2", "--pixels", "0",
                          "--param", *names], capture_output=True, text=True).stdout
    reverse = {line.split()[0]: float(line.split()[3]) for line in out.splitlines() if line.split()[:1] and line.split()[0] in names}
    s = dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 40, "camera.height": 30, "render.spp": 2})
    g = dray.backward(s, np.full((30, 40, 3), 1 / 3600, np.float32), wrt=names, seed=s.seed)
    for n in names:
        assert float(g[n]) == pytest.approx(reverse[n], rel=1e-5), n
    # The forward derivative's interior and boundary shares (columns 9 and 10) add up to it; a
    # colour moves no edge, a radius moves the sphere's silhouette.
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[:1] and line.split()[0] in names}
    for n in names:
        forward, interior, boundary = (float(rows[n][i]) for i in (2, 9, 10))
        assert interior + boundary == pytest.approx(forward, rel=1e-5, abs=1e-9), n
    assert float(rows["materials.red.albedo[0]"][10]) == 0.0
    assert abs(float(rows["shapes.mid.radius"][10])) > 1e-3
