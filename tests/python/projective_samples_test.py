"""Mitsuba's projective sample counts (sppc, sppp, sppi) drive what they drive in Mitsuba (issue
76): sppp the camera silhouettes, sppi the rest of the visibility term, shadows included. A blocker
out of view casts a hard shadow on the floor: its derivative images are shadow edges alone."""
import os

import numpy as np
import pytest

import dray

SCENES = os.path.join(os.path.dirname(__file__), "..", "..", "scenes")
KEY = "shapes.blocker.corner[0]"


def derivative(scene, **counts):
    integrator = dray.load_dict({"type": "direct_projective", **counts})
    return dray.render_forward(scene, KEY, integrator=integrator, spp=4, seed=3)[KEY]


def test_sppp_0_keeps_the_shadow_edges_and_sppi_0_drops_them():
    scene = dray.load(os.path.join(SCENES, "shadow-truth.json"), **{"camera.width": 32, "camera.height": 24})
    both = derivative(scene)
    shadows = derivative(scene, sppp=0)  # was exactly 0: sppp 0 turned every boundary sample off
    assert np.abs(shadows).sum() > 1.0, np.abs(shadows).sum()
    # No silhouette of the blocker is in view: the camera's samples add nothing, the shadow's are the same.
    np.testing.assert_array_equal(shadows, both)
    assert not derivative(scene, sppi=0).any()  # the shadow is indirect visibility (Mitsuba's sppi)
    assert not derivative(scene, sppp=0, sppi=0).any()



def test_the_shadow_edges_under_sppp_0_match_finite_differences():
    # The shadow's left and right edges (left and right halves of the film) move with the blocker:
    # central differences with the same samples, h and h/2 (measured within 4% at 64 spp, seeds 3, 5).
    scene = dray.load(os.path.join(SCENES, "shadow-truth.json"), **{"camera.width": 32, "camera.height": 24})
    integrator = dray.load_dict({"type": "direct_projective", "sppp": 0})
    d = dray.render_forward(scene, KEY, integrator=integrator, spp=64, seed=3)[KEY]
    params = scene.params()
    x0 = float(params[KEY])

    def image_at(x):
        params[KEY] = x
        params.update()
        return dray.render(scene, integrator=integrator, spp=64, seed=3)

    for h in (0.08, 0.04):
        fd = (image_at(x0 + h) - image_at(x0 - h)) / (2 * h)
        for half in (slice(0, 16), slice(16, 32)):
            assert abs(fd[:, half].sum()) > 15
            assert d[:, half].sum() == pytest.approx(fd[:, half].sum(), rel=0.08)
