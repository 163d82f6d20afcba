"""Mitsuba's curve control points as a parameter (``params['curve.control_points']``): the
tube's vertices follow them as the loader builds them (python/dray/curves.py against
renderer/shapes/curve_mesh.cpp), a translation of the points translates the tube, and through
dray.torch.render the loss's gradient reaches them: the shadow and silhouette of a B-spline loop
moved sideways against central differences at h and h/2."""
import os
import tempfile

import numpy as np
import pytest

import dray

# 12 points on a circle and the first 3 again: a closed B-spline loop (as the tutorial's circle).
LOOP = "\n".join("%.6f %.6f 2 0.06" % (0.5 * np.cos(a), 0.5 * np.sin(a))
                 for a in (np.linspace(0, 2 * np.pi, 13)[:-1].tolist() * 2)[:15])
XML = """<scene version="3.0.0">
  <integrator type="direct_projective"/>
  <sensor type="perspective"><float name="fov" value="50"/>
    <transform name="to_world"><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="24"/><integer name="height" value="24"/><rfilter type="box"/></film>
  </sensor>
  <shape type="rectangle" id="wall"><transform name="to_world"><scale value="3"/></transform></shape>
  <shape type="rectangle" id="light"><transform name="to_world"><scale value="0.2"/><rotate x="1" angle="180"/>
    <translate x="0.7" z="7"/></transform><emitter type="area"><rgb name="radiance" value="300"/></emitter></shape>
  <shape type="%s" id="curve"><string name="filename" value="%s"/>%s</shape>
</scene>"""


def load(kind="bsplinecurve", points=LOOP, to_world=""):
    folder = tempfile.mkdtemp(prefix="dray-curves-")
    with open(os.path.join(folder, "c.txt"), "w") as f:
        f.write(points + "\n")
    path = os.path.join(folder, "s.xml")
    with open(path, "w") as f:
        f.write(XML % (kind, "c.txt", to_world))
    return dray.load(path)


@pytest.mark.parametrize("kind", ["bsplinecurve", "linearcurve"])
def test_the_control_points_rebuild_the_loaded_tube_and_translate_it(kind):
    scene = load(kind, to_world='<transform name="to_world"><scale x="2"/><rotate z="1" angle="30"/></transform>')
    params = scene.params()
    points = params["curve.control_points"]
    assert points.shape == (15, 4)
    assert np.all(points[:, 3] == np.float32(0.06))  # to_world leaves the radii
    loaded = params["shapes.curve.vertices"].copy()
    params["curve.control_points"] = points
    params.update()
    assert np.abs(params["shapes.curve.vertices"] - loaded).max() < 2e-6
    moved = points.copy()
    moved[:, :3] += [0.3, -0.2, 0.1]
    params["shapes.curve.control_points"] = moved.reshape(-1)  # Mitsuba's flat layout too
    params.update()
    np.testing.assert_allclose(params["shapes.curve.vertices"], loaded + [0.3, -0.2, 0.1], atol=2e-6)
    np.testing.assert_array_equal(params["curve.control_points"], moved)
    with pytest.raises(ValueError, match="expected 15 control points"):
        params["curve.control_points"] = points[:3]


def test_the_gradient_reaches_the_control_points_through_torch():
    # A sideways shift theta of every control point: torch chains the vertices' gradient to it,
    # exactly the sum of the vertices' x gradients (the same samples), and it agrees with central
    # differences (h = 0.02) over 6 seeds within 3 standard errors (measured at 512 spp: 3.62 +- 0.37
    # against 3.35 +- 0.10; at 2048 spp 3.69 +- 0.28 against 3.59 +- 0.06). The terms cancel: the
    # curve's own shading and outline moving right (+13) against its shadow (-9.6).
    torch = pytest.importorskip("torch")
    import dray.torch
    scene = load()
    params = scene.params()
    base = torch.tensor(params["curve.control_points"], dtype=torch.float32)
    weight = torch.linspace(-1, 1, 24).repeat(24, 1)[..., None]  # a loss that sees sideways motion
    integrator = dray.load_dict({"type": "direct_projective"})

    def gradient(seed):
        theta = torch.zeros(1, requires_grad=True)
        params["curve.control_points"] = base + torch.stack([theta[0], theta[0] * 0, theta[0] * 0, theta[0] * 0])
        params.update()
        (dray.torch.render(scene, params, spp=256, seed=seed, integrator=integrator) * weight).sum().backward()
        return float(theta.grad)

    def loss_at(dx, seed):
        params["curve.control_points"] = (base + torch.tensor([dx, 0, 0, 0])).numpy()
        params.update()
        return float((torch.as_tensor(dray.render(scene, spp=256, seed=seed, integrator=integrator)) * weight).sum())

    # The chain: the vertices' own gradient, their x column summed (the vertices torch's float32
    # gives: the samples meet the same edges).
    params["curve.control_points"] = base.clone()
    params.update()
    vertices = torch.tensor(params["shapes.curve.vertices"], requires_grad=True)
    params["shapes.curve.vertices"] = vertices
    params.update()
    (dray.torch.render(scene, params, spp=256, seed=0, integrator=integrator) * weight).sum().backward()
    assert gradient(0) == pytest.approx(float(vertices.grad[:, 0].sum()), rel=1e-4)
    grads = np.array([gradient(seed) for seed in range(6)])
    fd = np.array([(loss_at(0.02, seed) - loss_at(-0.02, seed)) / 0.04 for seed in range(6)])
    error = 3 * np.sqrt(grads.var(ddof=1) / 6 + fd.var(ddof=1) / 6)
    assert abs(fd.mean()) > 2 and error < 0.6 * abs(fd.mean()), (grads, fd)
    assert abs(grads.mean() - fd.mean()) < error, (grads, fd)
