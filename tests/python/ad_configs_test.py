"""Mitsuba 3's AD-integrator test (test_ad_integrators.py) on dray: each configuration of
tests/integrators/ad_configs/configs.py rendered in forward mode and compared with its
finite-difference reference (tools/make-fd-refs) by Mitsuba's own criterion and thresholds
(error = |fwd - ref| / max(|ref|, 0.2) per pixel and channel: its mean and its max); reverse mode
against the reference's mean as Mitsuba's test03 (a constant adjoint 0.001, 128 spp, 256 for the textured plane); and reverse
equal to forward with the same samples (a fixed adjoint image, 1e-5 relative).

Configurations whose forward images dray does not match yet are listed in PENDING with what fails
(measured: error mean / max against the thresholds): they are expected to fail (strictly: one that
starts passing fails until it leaves the list). Issue 31 is about them.
"""
import os
import sys

import numpy as np
import pytest

import dray

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integrators", "ad_configs"))
import configs  # noqa: E402

PENDING = {
}

CONFIGS = configs.all_configs()


def forward_share(cfgs):
    """The configurations this process renders in forward mode: all of them, or with
    DRAY_AD_FORWARD_PART=k/n (tests/CMakeLists.txt runs n such tests side by side) the k-th of n
    parts of about equal cost (pixels x spp, the largest first into the least loaded part)."""
    part = os.environ.get("DRAY_AD_FORWARD_PART")
    if not part:
        return cfgs
    k, n = (int(v) for v in part.split("/"))
    load = [0] * n
    mine = []
    for cfg in sorted(cfgs, key=lambda c: -c["res"] ** 2 * c["spp"]):
        least = load.index(min(load))
        load[least] += cfg["res"] ** 2 * cfg["spp"]
        if least == k:
            mine.append(cfg)
    return mine


SHAPES = {}  # block name -> shape, for NAME[i,j] components


def flat_index(base, index):
    """The position of component NAME[index] in render_forward's list for NAME (row-major)."""
    comp = configs.component(index)
    return int(np.ravel_multi_index(comp, SHAPES[base])) if len(comp) > 1 else comp[0]


def combine(images, wrt):
    """d image / d theta from dray's per-parameter derivative images."""
    out = 0
    for name, coef in wrt:
        if name in images:  # render_forward asked for this component alone
            out = out + coef * images[name]
            continue
        base, _, index = name.partition("[")
        d = images[base]
        if index:  # render_forward: a list of images, one per scalar; backward: the block's array
            d = d[flat_index(base, index)] if isinstance(d, list) else np.asarray(d)[configs.component(index)]
        out = out + coef * d
    return out


def prepared(cfg):
    missing = configs.missing(cfg)
    if missing:
        pytest.skip(f"{cfg['name']}: needs {', '.join(missing)} (mitsuba-data's common meshes)")
    if not os.path.exists(configs.ref_path(cfg)):
        pytest.skip(f"{cfg['name']}: no reference (tools/make-fd-refs {cfg['name']})")
    return load(cfg), dray.read_image(configs.ref_path(cfg))[..., :3]


def load(cfg):
    scene = dray.load(cfg["scene"])
    for name, value in scene.params().items():
        SHAPES[name] = np.shape(value)
    return scene


def names(cfg):
    return sorted({n.partition("[")[0] for n, _ in cfg["wrt"]})


def components(cfg):
    """The scalars forward mode needs: one derivative image each (a vector's other components
    would cost derivative work for nothing: 2.2x the time on translate_occluder_area_light)."""
    return sorted({n for n, _ in cfg["wrt"]})


def marks(cfg):
    return [pytest.mark.xfail(reason=PENDING[cfg["name"]], strict=True)] if cfg["name"] in PENDING else []


@pytest.mark.parametrize("cfg", [pytest.param(c, id=c["name"], marks=marks(c)) for c in forward_share(CONFIGS)])
def test_forward_against_finite_differences(cfg):
    scene, ref = prepared(cfg)
    fwd = configs.cropped(cfg, combine(dray.render_forward(scene, components(cfg), spp=cfg["spp"], seed=0), cfg["wrt"]))
    error = np.abs(fwd - ref) / np.maximum(np.abs(ref), 0.2)
    print(f"{cfg['name']}: error mean {error.mean():.5f} (threshold {cfg['mean']}), max {error.max():.4f} "
          f"(threshold {cfg['max']})")
    assert error.mean() <= cfg["mean"] and error.max() <= cfg["max"]


@pytest.mark.parametrize("cfg", [pytest.param(c, id=c["name"]) for c in CONFIGS])
def test_backward_against_finite_differences(cfg):
    scene, ref = prepared(cfg)
    adjoint = np.zeros((cfg["res"], cfg["res"], 3), dtype=np.float32)
    configs.cropped(cfg, adjoint)[...] = 0.001  # the window's pixels
    grad = combine(dray.backward(scene, adjoint, names(cfg), spp=cfg["spp_bwd"], seed=0), cfg["wrt"]) / ref.size
    grad_ref = ref.astype(np.float64).mean() * 0.001
    error = abs(grad - grad_ref) / max(abs(grad_ref), 1e-3)
    print(f"{cfg['name']}: grad {grad:.6g}, reference {grad_ref:.6g}, error {error:.5f} (threshold {cfg['mean_bwd']})")
    assert error <= cfg["mean_bwd"]


@pytest.mark.parametrize("cfg", [pytest.param(c, id=c["name"]) for c in CONFIGS])
def test_backward_equals_forward_with_the_same_samples(cfg):
    if configs.missing(cfg):
        pytest.skip(f"{cfg['name']}: needs {', '.join(configs.missing(cfg))}")
    scene = load(cfg)
    res = cfg["res"]
    adjoint = np.random.default_rng(7).uniform(-1, 1, (res, res, 3)).astype(np.float32)
    fwd = combine(dray.render_forward(scene, names(cfg), spp=4, seed=3), cfg["wrt"])
    rev = combine(dray.backward(scene, adjoint, names(cfg), spp=4, seed=3), cfg["wrt"])
    expected = float((fwd.astype(np.float64) * adjoint).sum())
    scale = float(np.abs(fwd.astype(np.float64) * adjoint).sum())
    assert abs(rev - expected) <= 1e-5 * max(scale, 1e-12)
