"""Mitsuba's optimizers (drjit.opt, as its use_optimizers guide drives them) on dray: a dict or a
scene's parameters given as params= registers their entries (issue 76: the dict was ignored, an
Adam of 0 parameters that never moved), SGD's step and momentum against their closed forms,
in-place arithmetic on a value, mask_updates, and Mitsuba's keep()."""
import os

import numpy as np
import pytest

import dray

torch = pytest.importorskip("torch")

SCENES = os.path.join(os.path.dirname(__file__), "..", "..", "scenes")


def spheres():
    return dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 24, "camera.height": 16, "render.spp": 4})


@pytest.mark.parametrize("kind", [dray.ad.Adam, dray.ad.SGD])
def test_a_dict_given_as_params_is_registered(kind):
    opt = kind(lr=0.25, params={"x": 1.0, "y": np.array([2.0, 3.0])})
    assert sorted(opt) == ["x", "y"]
    assert float(opt["x"]) == 1.0 and opt["y"].tolist() == [2.0, 3.0]
    assert "variables = ['x', 'y']" in repr(opt)
    opt.step({"x": 1.0, "y": np.array([1.0, -1.0])})
    assert float(opt["x"]) < 1.0 and opt["y"][0] < 2.0 and opt["y"][1] > 3.0


def test_a_scenes_parameters_without_keys_are_all_registered_and_projected():
    params = spheres().params()
    opt = dray.ad.Adam(lr=0.5, params=params, torch=False)
    assert sorted(opt) == sorted(params)
    # Projected onto the domain as dray optimize projects: a reflectance stays in [0, 1].
    opt.step({"materials.red.reflectance": np.array([-1.0, -1.0, -1.0])})
    assert opt["materials.red.reflectance"].max() <= 1.0
    params.keep(r".*\.reflectance")
    kept = dray.ad.SGD(lr=0.1, params=params, torch=False)
    assert sorted(kept) == sorted(n for n in params) and all(n.endswith(".reflectance") for n in kept)
    assert len(kept) >= 2
    params.keep(r"red\.reflectance\.value")  # a Mitsuba key of materials.red.reflectance
    assert list(params) == ["materials.red.reflectance"]
    params.keep(None)
    assert len(params) == len(opt)


def test_sgd_follows_use_optimizers_guide():
    # Mitsuba's guide: x = 1, y = 2 then y += 1; z = x + 2y; one step of lr 0.25: x 0.75, y 2.5.
    opt = dray.ad.SGD(lr=0.25, params={"x": 1.0, "y": 2.0})
    y = torch.tensor(2.0)
    opt["y"] = y
    opt["y"] += 1.0  # in place on the optimizer's value: a new value, Adam's or SGD's state kept
    assert float(y) == 2.0 and not y.requires_grad
    assert float(opt["y"]) == 3.0 and opt["y"].requires_grad
    z = opt["x"] + 2.0 * opt["y"]
    z.backward()
    assert float(opt["x"].grad) == 1.0 and float(opt["y"].grad) == 2.0
    opt.step()
    assert float(opt["x"]) == 0.75 and float(opt["y"]) == 2.5
    opt["x"] *= 0.5
    assert float(opt["x"]) == 0.375


def test_sgd_momentum_and_nesterov_closed_forms():
    g = np.array([1.0, -2.0, 0.0])
    for nesterov in (False, True):
        opt = dray.ad.SGD(lr=0.1, params={"p": np.zeros(3)}, momentum=0.9, nesterov=nesterov, torch=False)
        v, p = np.zeros(3), np.zeros(3)
        for _ in range(3):
            opt.step({"p": g})
            v = 0.9 * v + g
            p -= 0.1 * (g + 0.9 * v if nesterov else v)
        np.testing.assert_allclose(opt["p"], p, rtol=1e-12)
    opt = dray.ad.SGD(lr=0.1, params={"p": np.ones(3)}, momentum=0.5, mask_updates=True, torch=False)
    opt.step({"p": np.array([1.0, 0.0, np.nan])})
    np.testing.assert_allclose(opt["p"], [0.9, 1.0, 1.0])
    opt.reset("p")
    opt.step({"p": np.array([1.0, 0.0, 0.0])})
    np.testing.assert_allclose(opt["p"], [0.8, 1.0, 1.0])  # the velocity forgotten: 0.1 · 1, not 0.1 · 1.5
    with pytest.raises(ValueError, match="momentum"):
        dray.ad.SGD(lr=0.1, momentum=-1)
    with pytest.raises(TypeError, match="mapping"):
        dray.ad.SGD(lr=0.1, params=[1.0])
