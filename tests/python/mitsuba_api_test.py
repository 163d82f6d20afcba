"""Mitsuba's Python shape on dray (issue 54): mi.traverse's keys as names of dray's parameters,
dray.ad.Adam as drjit.opt.Adam (its step's closed form, UniformAdam, moments kept when a value is
overwritten with its shape, reset when the shape changes), torch as the autodiff
(dray.torch.render(scene, params) sending gradients to an Adam's tensors and through latent
variables), dray.ad.LargeSteps against a dense solve, dray.load_dict against the XML it stands
for, and torch's forward mode on dray's (mitsuba_tutorials_test.py runs the tutorials)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import dray

torch = pytest.importorskip("torch")
import dray.torch  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SCENES = os.path.join(ROOT, "scenes")
TUTORIAL_SCENES = os.environ.get("DRAY_TUTORIAL_SCENES",
                                 os.path.join(ROOT, "..", "shared", "mitsuba-tutorials", "scenes"))


def spheres(**kw):
    return dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 24, "camera.height": 16, "render.spp": 4, **kw})


def test_mitsuba_keys_name_the_same_values():
    scene = spheres()
    params = dray.traverse(scene)
    assert params["red.reflectance.value"].tolist() == params["materials.red.reflectance"].tolist()
    params["red.reflectance.value"] = [0.2, 0.3, 0.4]
    params.update()
    assert scene.params()["materials.red.reflectance"].tolist() == pytest.approx([0.2, 0.3, 0.4])
    listing = subprocess.run([os.environ.get("DRAY", "dray"), "params", "--mitsuba", os.path.join(SCENES, "spheres.json")],
                             capture_output=True, text=True, check=True).stdout
    assert re.search(r"^red\.reflectance\.value +materials\.red\.reflectance$", listing, re.M), listing


def test_adam_step_is_mitsubas_closed_form():
    # t = 1: m = (1 - b1) g, v = (1 - b2) g^2, step lr sqrt(1 - b2)/(1 - b1) m/(sqrt(v) + eps) = lr g/(|g| + eps').
    opt = dray.ad.Adam(lr=0.1, torch=False)
    opt["x"] = np.array([1.0, 1.0, 1.0])
    opt.step({"x": np.array([2.0, -0.5, 0.0])})
    assert opt["x"].tolist() == pytest.approx([0.9, 1.1, 1.0], abs=1e-7)
    # UniformAdam: every component divided by the largest second moment.
    opt = dray.ad.Adam(lr=0.1, uniform=True, torch=False)
    opt["x"] = np.array([0.0, 0.0])
    opt.step({"x": np.array([1.0, 4.0])})
    assert opt["x"].tolist() == pytest.approx([-0.025, -0.1], abs=1e-7)
    # mask_updates: a zero gradient moves nothing, and leaves that component's moments.
    opt = dray.ad.Adam(lr=0.1, mask_updates=True, torch=False)
    opt["x"] = np.array([0.0, 0.0])
    opt.step({"x": np.array([1.0, 1.0])})
    opt.step({"x": np.array([0.0, 1.0])})
    assert opt["x"][0] == pytest.approx(-0.1, abs=1e-7) and opt["x"][1] < -0.19


def trajectory(assign):
    """Ten Adam steps on fixed gradients; `assign` runs after each step (a clip, a reshape)."""
    opt = dray.ad.Adam(lr=0.05, torch=False)
    opt["x"] = np.array([0.5, 0.5, 0.5])
    out = []
    for i in range(10):
        opt.step({"x": np.array([1.0, -2.0, 0.5]) * (1 + 0.1 * i)})
        assign(opt)
        out.append(np.array(opt["x"]).reshape(-1).copy())
    return np.array(out)


def test_adam_keeps_its_moments_when_a_value_is_overwritten():
    free = trajectory(lambda opt: None)
    clipped = trajectory(lambda opt: opt.__setitem__("x", np.clip(opt["x"], -10, 10)))  # in range: the same values
    assert np.array_equal(free, clipped)
    # Mitsuba resets the moments when the shape changes: the step after it is lr again.
    opt = dray.ad.Adam(lr=0.05, torch=False)
    opt["x"] = np.zeros(3)
    for _ in range(5):
        opt.step({"x": np.array([1.0, 1.0, 1.0])})
    opt["x"] = np.zeros(4)
    opt.step({"x": np.array([1.0, -1.0, 1.0, 1.0])})
    assert opt["x"].tolist() == pytest.approx([-0.05, 0.05, -0.05, -0.05], abs=1e-7)


def test_torch_gradients_reach_an_adams_tensors_and_latent_variables():
    scene = spheres()
    params = dray.traverse(scene)
    target = torch.from_numpy(dray.render(spheres(**{"materials.red.reflectance": [0.3, 0.6, 0.2]}), spp=16, seed=9))
    opt = dray.ad.Adam(lr=0.05)
    opt["red.reflectance.value"] = params["red.reflectance.value"]
    leaf = opt["red.reflectance.value"]
    assert isinstance(leaf, torch.Tensor) and leaf.requires_grad and leaf.is_leaf
    params.update(opt)
    image = dray.torch.render(scene, params, spp=4, seed=5)
    loss = torch.mean(torch.square(image - target))
    loss.backward()
    d_image = (2 * (image.detach() - target) / image.numel()).numpy()
    expected = dray.backward(scene, d_image, wrt=["materials.red.reflectance"], spp=4, seed=6)["materials.red.reflectance"]
    assert leaf.grad.numpy() == pytest.approx(expected, rel=1e-6)
    opt.step()
    assert not np.array_equal(opt["red.reflectance.value"].detach().numpy(), leaf.detach().numpy())
    # A latent colour theta * c: the chain rule is torch's, d loss/d theta = c . d loss/d colour.
    theta = torch.tensor(0.5, requires_grad=True)
    c = torch.tensor([0.2, 0.5, 0.8])
    params["red.reflectance.value"] = theta * c
    params.update()
    image = dray.torch.render(scene, params, spp=4, seed=5)
    torch.mean(torch.square(image - target)).backward()
    d_image = (2 * (image.detach() - target) / image.numel()).numpy()
    colour = dray.backward(scene, d_image, wrt=["materials.red.reflectance"], spp=4, seed=6)["materials.red.reflectance"]
    assert theta.grad.item() == pytest.approx(float(np.dot(colour, c.numpy())), rel=1e-5)


def test_large_steps_is_the_laplacian_system():
    # A tetrahedron with a duplicated vertex (a seam): fused, so that both copies move together.
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=np.float64)
    f = np.array([[0, 2, 1], [0, 4, 3], [0, 3, 2], [1, 2, 3]])
    steps = dray.ad.LargeSteps(v, f, lambda_=2.0)
    # I + 2L over the 4 fused vertices of a tetrahedron: 1 + 2*3 on the diagonal, -2 elsewhere.
    assert np.allclose(steps.matrix.toarray(), 7 * np.eye(4) - 2 * (1 - np.eye(4)))
    u = steps.to_differential(v)
    assert np.allclose(steps.from_differential(u), v, atol=1e-12)
    # Through torch: d sum(w . v(u)) / du = M^-1 w (summed over the fused copies).
    ut = torch.tensor(u, requires_grad=True)
    w = torch.from_numpy(np.random.default_rng(3).normal(size=(5, 3)))
    (steps.from_differential(ut) * w).sum().backward()
    w_fused = np.zeros((4, 3))
    np.add.at(w_fused, steps.inverse, w.numpy())
    assert np.allclose(ut.grad.numpy(), np.linalg.solve(steps.matrix.toarray(), w_fused))


def test_scalar_transform_is_mitsubas_chain():
    T = dray.ScalarTransform4f
    assert np.allclose(T().rotate([0, 0, 1], 90) @ [1, 0, 0], [0, 1, 0])
    # Chained calls multiply on the right: translate(t).rotate(r) rotates first.
    assert np.allclose(T().translate([1, 0, 0]).rotate([0, 0, 1], 90) @ [1, 0, 0], [1, 1, 0])
    assert np.allclose((T().translate([1, 2, 3]) @ T().scale(2)).matrix, T().translate([1, 2, 3]).scale(2).matrix)
    m = T().look_at(origin=[0, 0, 2], target=[0, 0, 0], up=[0, 1, 0]).matrix
    assert np.allclose(m[:3, 2], [0, 0, -1]) and np.allclose(m[:3, 1], [0, 1, 0]) and np.allclose(m[:3, 0], [-1, 0, 0])
    assert np.allclose(m[:3, 3], [0, 0, 2])
    # The torch transform: the same matrices, and derivatives by its arguments against differences.
    angle = torch.tensor(30.0, dtype=torch.float64, requires_grad=True)
    t = dray.torch.Transform4f().translate([0.5, angle * 0.01, 0.0]).rotate([0, 1, 0], angle)
    assert np.allclose(t.matrix.detach().numpy(), T().translate([0.5, 0.3, 0]).rotate([0, 1, 0], 30).matrix, atol=1e-6)
    points = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]])
    (t @ points).sum().backward()
    f = lambda a: (T().translate([0.5, a * 0.01, 0]).rotate([0, 1, 0], a).matrix[:3, :3] @ points.numpy().T).sum() + 2 * (0.5 + a * 0.01)
    assert angle.grad.item() == pytest.approx((f(30.001) - f(29.999)) / 0.002, rel=1e-3)


def dict_scene(sensor=True):
    T = dray.ScalarTransform4f
    d = {'type': 'scene', 'integrator': {'type': 'path', 'max_depth': 3},
         'red': {'type': 'diffuse', 'reflectance': {'type': 'rgb', 'value': [0.7, 0.2, 0.1]}},
         'ball': {'type': 'sphere', 'to_world': T().translate([0.3, 0, 0]).scale(0.5), 'bsdf': {'type': 'ref', 'id': 'red'}},
         'floor': {'type': 'rectangle', 'to_world': T().translate([0, -0.5, 0]).rotate([1, 0, 0], -90).scale(3),
                   'bsdf': {'type': 'diffuse'}},
         'lamp': {'type': 'point', 'position': [0, 2, 1], 'intensity': {'type': 'rgb', 'value': 10}}}
    if sensor:
        d['cam'] = {'type': 'perspective', 'fov': 40, 'to_world': T().look_at([0, 0.5, 4], [0, 0, 0], [0, 1, 0]),
                    'film': {'type': 'hdrfilm', 'width': 24, 'height': 16},
                    'sampler': {'type': 'independent', 'sample_count': 4}}
    return d


XML = """<scene version="3.0.0">
  <integrator type="path"><integer name="max_depth" value="3"/></integrator>
  <sensor type="perspective" id="cam"><float name="fov" value="40"/>
    <transform name="to_world"><lookat origin="0, 0.5, 4" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="24"/><integer name="height" value="16"/></film>
    <sampler type="independent"><integer name="sample_count" value="4"/></sampler></sensor>
  <bsdf type="diffuse" id="red"><rgb name="reflectance" value="0.7, 0.2, 0.1"/></bsdf>
  <shape type="sphere" id="ball"><transform name="to_world"><scale value="0.5"/><translate x="0.3"/></transform><ref id="red"/></shape>
  <shape type="rectangle" id="floor"><transform name="to_world"><scale value="3"/><rotate x="1" angle="-90"/>
    <translate y="-0.5"/></transform><bsdf type="diffuse"/></shape>
  <emitter type="point" id="lamp"><point name="position" x="0" y="2" z="1"/><rgb name="intensity" value="10"/></emitter>
</scene>"""


def test_load_dict_renders_as_the_xml_it_stands_for(tmp_path):
    path = tmp_path / "s.xml"
    path.write_text(XML)
    from_xml = dray.render(dray.load_file(str(path)), seed=3)
    scene = dray.load_dict(dict_scene())
    assert np.abs(dray.render(scene, seed=3) - from_xml).max() < 1e-5
    params = dray.traverse(scene)
    assert params['red.reflectance.value'].tolist() == pytest.approx([0.7, 0.2, 0.1])
    assert params['cam.near_clip'] == pytest.approx(0.01)  # a scene value, read-only
    with pytest.raises(ValueError, match="scene value"):
        params['cam.near_clip'] = 1.0
    # A sensor loaded alone renders the scene as the scene's own sensor would (without one the
    # scene gets Mitsuba's default sensor; every sensor renders with the scene's pixel filter).
    sensor = dray.load_dict(dict_scene()['cam'])
    assert isinstance(sensor, dray.Sensor) and sensor.spp == 4
    alone = dray.load_dict(dict_scene(sensor=False))
    assert (alone.width, alone.height) == (768, 576)
    assert np.array_equal(dray.render(alone, seed=3, sensor=sensor), dray.render(scene, seed=3))
    dray.render(alone, seed=4, sensor=sensor)
    assert len(alone.sensors) == 2  # the default one and this, added once however often it renders
    with pytest.raises(ValueError, match="unknown plugin type 'bogus'"):
        dray.load_dict({'type': 'scene', 'x': {'type': 'bogus'}})
    with pytest.raises(ValueError, match="no object with id 'nope'"):
        dray.load_dict({'type': 'scene', 'b': {'type': 'sphere', 'bsdf': {'type': 'ref', 'id': 'nope'}}})


def test_load_dict_reads_mitsubas_phase_functions_by_the_registry():
    # Mitsuba's blendphase example (src/phase/blendphase.cpp's docs), with a tabphase as its first.
    fog = {'type': 'homogeneous', 'sigma_t': 0.5,
           'phase': {'type': 'blendphase', 'weight': 0.25,
                     'phase_0': {'type': 'tabphase', 'values': '1, 2, 3'},
                     'phase_1': {'type': 'hg', 'g': 0.2}}}
    scene = dray.load_dict({'type': 'scene', 'fog': fog,
                            'ball': {'type': 'sphere', 'bsdf': {'type': 'null'}, 'interior': {'type': 'ref', 'id': 'fog'}},
                            'light': {'type': 'constant'}})
    params = dray.traverse(scene)
    assert params['fog.phase_function.weight'] == pytest.approx(0.25)
    assert params['fog.phase_function.phase_0.values'].tolist() == [1.0, 2.0, 3.0]
    assert params['fog.phase_function.phase_1.g'] == pytest.approx(0.2)
    assert dray._dray.plugin_names('phase') == "isotropic, hg, rayleigh, tabphase, blendphase"


@pytest.mark.parametrize("radiance", [1e-3, 1.0, 1e3])
def test_load_dict_radiancemeter_is_mitsubas_test_render(radiance):
    # Mitsuba's src/sensors/tests/test_radiancemeter.py (test_render), with the sensor's origin and
    # direction (its alternative to a to_world) and the sensor kind's names from the registry.
    scene = dray.load_dict({'type': 'scene', 'integrator': {'type': 'path'},
                            'sensor': {'type': 'radiancemeter', 'origin': [1, 2, 3], 'direction': [0, 1, 0],
                                       'film': {'type': 'hdrfilm', 'width': 1, 'height': 1, 'rfilter': {'type': 'box'}},
                                       'sampler': {'type': 'independent', 'sample_count': 1}},
                            'emitter': {'type': 'constant', 'radiance': {'type': 'rgb', 'value': radiance}}})
    image = dray.render(scene)
    assert image.shape[:2] == (1, 1)
    assert np.allclose(image[0, 0, :3], radiance, rtol=1e-5)
    assert dray._dray.plugin_names('sensor') == "perspective, thinlens, orthographic, radiancemeter, distant, irradiancemeter"



@pytest.mark.parametrize("shape", ["sphere", "rectangle", "disk"])
def test_load_dict_irradiancemeter_is_mitsubas_test_incoming_flux(shape):
    # Mitsuba's src/sensors/tests/test_irradiancemeter.py (test_incoming_flux): a meter nested in its
    # shape under a constant emitter measures pi L; the nested sensor is the scene's (no default camera).
    scene = dray.load_dict({'type': 'scene', 'integrator': {'type': 'path'},
                            'meter': {'type': shape, 'sensor': {'type': 'irradiancemeter',
                                                                'film': {'type': 'hdrfilm', 'width': 1, 'height': 1,
                                                                         'rfilter': {'type': 'box'}}}},
                            'emitter': {'type': 'constant', 'radiance': {'type': 'rgb', 'value': 2.0}}})
    image = dray.render(scene, spp=8)
    assert image.shape[:2] == (1, 1)
    assert np.allclose(image[0, 0, :3], 2.0 * np.pi, rtol=1e-5)

def test_load_dict_volume_texture_of_a_grid_is_its_value():
    # Mitsuba's test_volume (test04_load_tensor): a volume texture of a gridvolume given as data.
    # A grid of 0.7, 0.2, 0.1 everywhere renders as the plain reflectance it stands for.
    grid = np.empty((3, 3, 3, 3), dtype=np.float32)
    grid[...] = [0.7, 0.2, 0.1]
    d = dict_scene()
    d['red'] = {'type': 'diffuse', 'reflectance': {'type': 'volume',
                                                   'volume': {'type': 'gridvolume', 'grid': dray.VolumeGrid(grid)}}}
    textured = dray.render(dray.load_dict(d), seed=3)
    plain = dray.render(dray.load_dict(dict_scene()), seed=3)
    assert np.abs(textured - plain).max() < 1e-5
    assert "volume" in dray._dray.plugin_names('texture').split(", ")


def test_a_meshs_faces_read_by_mitsubas_key(tmp_path):
    (tmp_path / "t.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    d = dict_scene()
    d['tet'] = {'type': 'obj', 'filename': str(tmp_path / "t.obj")}
    params = dray.traverse(dray.load_dict(d))
    assert params['tet.faces'].tolist() == [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
    assert params['tet.positions'].shape == (4, 3) and 'tet.faces' in params


def test_torch_forward_mode_is_drays_forward_mode():
    import torch.autograd.forward_ad as fwAD
    scene = spheres()
    params = dray.traverse(scene)
    c = torch.tensor([0.2, 0.5, 0.8])
    with fwAD.dual_level():
        theta = fwAD.make_dual(torch.tensor(0.5), torch.tensor(1.0))
        params["red.reflectance.value"] = theta * c
        params.update()
        image = dray.torch.render(scene, params, spp=4, seed=2)
        tangent = fwAD.unpack_dual(image).tangent
    parts = dray.render_forward(scene, ["materials.red.reflectance"], spp=4, seed=2)["materials.red.reflectance"]
    expected = sum(float(ck) * part for ck, part in zip(c, parts))
    assert np.abs(tangent.numpy() - expected).max() <= 1e-6 * max(1.0, np.abs(expected).max())
    assert np.abs(expected).max() > 0


def test_an_integrator_dict_renders_as_the_scenes_own():
    # render(integrator=…) renders (and differentiates) as the scene loaded with that integrator,
    # for that call only: the scene's own integrator (path, max_depth 3) is back afterwards.
    scene = dray.load_dict(dict_scene())
    own = dray.render(scene, seed=3)
    d = dict_scene()
    d['integrator'] = {'type': 'direct_projective'}
    projective = dray.load_dict(d)
    integrator = dray.load_dict({'type': 'direct_projective'})
    assert isinstance(integrator, dray.Integrator)
    image = dray.render(scene, seed=3, integrator=integrator)
    assert np.array_equal(image, dray.render(projective, seed=3))
    assert not np.array_equal(image, own)  # one bounce fewer
    adjoint = np.ones_like(image)
    key = 'ball.bsdf.reflectance.value' if 'ball.bsdf.reflectance.value' in dray.traverse(scene) else 'red.reflectance.value'
    g = dray.backward(scene, adjoint, [key], spp=4, seed=5, integrator=integrator)[key]
    assert np.array_equal(g, dray.backward(projective, adjoint, [key], spp=4, seed=5)[key])
    assert np.array_equal(dray.render(scene, seed=3), own)
    with pytest.raises(TypeError, match="dray.Integrator"):
        dray.render(scene, integrator={'type': 'path'})


def test_sensor_to_world_and_x_fov_are_the_cameras():
    # Mitsuba's sensor.to_world and x_fov read as look_at builds them and set the camera: the
    # scene renders as the dict loaded with them; a to_world tensor gets the camera's gradients.
    T = dray.ScalarTransform4f
    scene = dray.load_dict(dict_scene())
    params = dray.traverse(scene)
    assert np.allclose(params['cam.to_world'], T().look_at([0, 0.5, 4], [0, 0, 0], [0, 1, 0]).matrix, atol=1e-6)
    assert params['cam.x_fov'] == pytest.approx(40, rel=1e-6)
    moved = T().look_at([1, 1, 4], [0, 0.2, 0], [0, 1, 0])
    params['cam.to_world'] = moved
    params['cam.x_fov'] = 50
    params.update()
    d = dict_scene()
    d['cam']['to_world'], d['cam']['fov'] = moved, 50
    assert np.abs(dray.render(scene, seed=2) - dray.render(dray.load_dict(d), seed=2)).max() < 1e-5
    m = torch.tensor(moved.matrix, dtype=torch.float32, requires_grad=True)
    params['cam.to_world'] = m
    params.update()
    image = dray.torch.render(scene, params, spp=4, seed=3)
    image.sum().backward()
    g = dray.backward(scene, np.ones_like(image.detach().numpy()), ['camera.origin', 'camera.target'], spp=4, seed=4)
    assert np.abs(m.grad[:3, 3].numpy() - (g['camera.origin'] + g['camera.target'])).max() <= 1e-5 * np.abs(g['camera.origin']).max()
    assert np.abs(m.grad[:3, 2].numpy() - g['camera.target']).max() <= 1e-5 * np.abs(g['camera.target']).max() + 1e-12


def test_the_splatting_films_reverse_mode_is_its_forward_mode():
    # A Mitsuba scene's film splats (Mitsuba's hdrfilm; the gaussian filter): the gradient of
    # Σ d · image from backward's per-sample adjoints (each sample's pixels' d / W) equals
    # Σ d · ∂image/∂θ from the splatted derivative images, the same samples (seed), 1e-5.
    scene = dray.load_dict(dict_scene())
    d = np.random.default_rng(0).uniform(-1, 1, (16, 24, 3)).astype(np.float32)
    names = ['materials.red.reflectance', 'shapes.ball.center', 'lights.lamp.position']
    forward = dray.render_forward(scene, names, spp=16, seed=7)
    reverse = dray.backward(scene, d, names, spp=16, seed=7)
    for name in names:
        expected = np.array([np.sum(d * image) for image in forward[name]])
        assert np.abs(reverse[name] - expected).max() <= 1e-5 * np.abs(expected).max(), (name, reverse[name], expected)
