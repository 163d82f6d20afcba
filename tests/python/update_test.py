"""scene.update goes through the parameters' rules (renderer/scene_params.h): a value outside its
domain or a broken frame is a ValueError naming the parameter and the rule, and the scene is left
as it was (all or nothing); components NAME[i] and one name given as a string work everywhere.
Issue 32, defects 1, 5 and 6: before, a degenerate camera or NaN killed the interpreter (exit 139)."""
import os

import numpy as np
import pytest

import dray

SCENES = os.path.join(os.path.dirname(__file__), "..", "..", "scenes")


def spheres():
    return dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 24, "camera.height": 16, "render.spp": 2})


def rough():
    return dray.load(os.path.join(SCENES, "roughness-fit.json"), **{"camera.width": 16, "camera.height": 16, "render.spp": 2})


BAD = [
    ("camera.target", [0, 1.6, 6], "camera.target: must differ from camera.origin"),
    ("camera.up", [0, -1.6 + 0.8, -6], r"camera.up: must not be parallel to the viewing direction"),
    ("camera.fov_y", 180, r"camera.fov_y: must be in \(0, 180\), got 180"),
    ("shapes.mid.radius", -1, r"shapes.mid.radius: must be > 0, got -1"),
    ("shapes.mid.radius", 0, r"shapes.mid.radius: must be > 0, got 0"),
    ("shapes.mid.center", [0, float("nan"), 0], r"shapes.mid.center\[1\]: must be a finite number, got nan"),
    ("shapes.mid.center", [0, float("inf"), 0], r"shapes.mid.center\[1\]: must be a finite number, got inf"),
    ("shapes.mid.center[2]", 1e39, r"shapes.mid.center\[2\]: must be a finite number, got inf"),  # beyond float
    ("materials.red.reflectance", [0.5, 1.2, 0.5], r"materials.red.reflectance\[1\]: must be in \[0, 1\], got 1.2"),
    ("materials.lamp.emission[0]", -1, r"materials.lamp.emission\[0\]: must be >= 0, got -1"),
    ("lights.key.intensity", [1, 1, float("-inf")], r"lights.key.intensity\[2\]: must be >= 0 \(and finite\), got -inf"),
    ("shapes.floor.edge_v", [0, 0, 5], r"shapes.floor.edge_v: must not be parallel to shapes.floor.edge_u"),
]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("name,value,message", BAD, ids=[f"{n}={v}" for n, v, _ in BAD])
def test_a_bad_value_is_a_value_error_and_changes_nothing(name, value, message):
    s = spheres()
    before = dict(s.params().items())
    image = dray.render(s, seed=1)
    with pytest.raises(ValueError, match=message):
        s.update({"materials.blue.reflectance": [0.3, 0.3, 0.3], name: value})  # the valid one is undone too
    after = dict(s.params().items())
    assert all(np.array_equal(before[k], after[k], equal_nan=True) for k in before)
    assert np.array_equal(dray.render(s, seed=1), image)  # the geometry and tables as they were


def test_roughness_must_stay_positive():
    s = rough()
    alpha = [k for k in s.params() if k.endswith(".alpha")][0]
    for v in (0.0, -0.1):
        with pytest.raises(ValueError, match=alpha.replace(".", r"\.") + ": must be > 0"):
            s.update({alpha: v})
    s.update({alpha: 0.05})
    assert s.params()[alpha] == pytest.approx(0.05)


def test_wrong_names_sizes_and_types():
    s = spheres()
    with pytest.raises(ValueError, match='unknown parameter "materials.nope.reflectance"'):
        s.update({"materials.nope.reflectance": [1, 2, 3]})
    with pytest.raises(ValueError, match="materials.red.reflectance: has 3 values, got 2"):
        s.update({"materials.red.reflectance": [1, 2]})
    with pytest.raises(ValueError, match=r"reflectance\[3\]"):
        s.update({"materials.red.reflectance[3]": 0.5})
    with pytest.raises(ValueError, match="expected a number or an array of numbers"):
        s.update({"shapes.mid.radius": "big"})


def test_a_component_changes_alone_and_moves_geometry():
    s = spheres()
    s.update({"materials.red.reflectance[1]": 0.25, "shapes.mid.center[1]": 1.5})
    p = s.params()
    assert p["materials.red.reflectance"].tolist() == pytest.approx([0.8, 0.25, 0.1])
    assert p["shapes.mid.center"].tolist() == pytest.approx([0, 1.5, -0.5])
    moved = dray.render(s, seed=1)
    # Bitwise the scene loaded with that value: the BVH was rebuilt.
    fresh = dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 24, "camera.height": 16, "render.spp": 2,
                                                                "shapes.mid.center": [0, 1.5, -0.5],
                                                                "materials.red.reflectance": [0.8, 0.25, 0.1]})
    assert np.array_equal(moved, dray.render(fresh, seed=1))


def test_one_name_as_a_string():
    s = spheres()
    d = np.random.default_rng(1).uniform(-1, 1, (16, 24, 3)).astype(np.float32)
    one = dray.backward(s, d, wrt="shapes.mid.radius", spp=2)
    listed = dray.backward(s, d, wrt=["shapes.mid.radius"], spp=2)
    assert list(one) == ["shapes.mid.radius"] and one["shapes.mid.radius"] == listed["shapes.mid.radius"]
    fwd = dray.render_forward(s, "materials.red.reflectance[0]", spp=2)
    assert list(fwd) == ["materials.red.reflectance[0]"]
    with pytest.raises(TypeError, match="parameter names are strings"):
        dray.backward(s, d, wrt=[3], spp=2)


@pytest.mark.parametrize("call", ["render", "render_forward", "backward"])
def test_ctrl_c_stops_a_render_within_a_tile(call):
    """Ctrl-C (SIGINT) during a long render raises KeyboardInterrupt within a tile's row, not at
    the end; the scene renders again afterwards (issue 32)."""
    import signal
    import threading
    import time
    s = dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 256, "camera.height": 256})
    work = {"render": lambda: dray.render(s, spp=4096),
            "render_forward": lambda: dray.render_forward(s, ["shapes.mid.radius"], spp=1024),
            "backward": lambda: dray.backward(s, np.ones((256, 256, 3), np.float32), ["shapes.mid.radius"], spp=1024)}[call]
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.time()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        work()
    took = time.time() - start
    timer.join()
    assert took < 3.0, took  # the whole render takes minutes
    assert dray.render(s, spp=1, seed=1).shape == (256, 256, 3)  # not left cancelled
