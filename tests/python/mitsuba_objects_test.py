"""Mitsuba's Python objects a scene is built from (issue 57): dray.Mesh (mi.Mesh) written as a PLY
and loaded back as the same mesh, its vertices a parameter block under Mitsuba's key; dray.Bitmap
(mi.Bitmap) in a dict as a raw, nearest-filtered texture whose texels an emitter shows exactly; a
load_dict reference by a plugin's key or by its own id (Mitsuba's refs name either)."""
import os

import numpy as np
import pytest

import dray
from dray import ScalarTransform4f as T


def grid_mesh(n=4):
    """A flat n x n vertex grid over [-1, 1]² at z = 0 facing +z, with UVs, as the caustics tutorial's."""
    u, v = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="ij")
    positions = np.column_stack([2 * u.ravel() - 1, 2 * v.ravel() - 1, np.zeros(n * n)])
    faces = []
    for i in range(n - 1):
        for j in range(n - 1):
            v00 = i * n + j
            faces += [[v00, v00 + n, v00 + 1], [v00 + 1, v00 + n, v00 + n + 1]]
    return positions, np.array(faces), np.column_stack([u.ravel(), v.ravel()])


def ortho_view(size=8, extent=1.0):
    """An orthographic camera looking down -z at [-extent, extent]²."""
    return {"type": "orthographic", "to_world": T().look_at(origin=[0, 0, 3], target=[0, 0, 0], up=[0, 1, 0]).scale([extent, extent, 1]),
            "film": {"type": "hdrfilm", "width": size, "height": size, "rfilter": {"type": "box"}}}


def test_a_mesh_written_as_ply_loads_as_itself(tmp_path):
    positions, faces, uv = grid_mesh()
    # Mitsuba's two constructors: counts then buffers by key, or the arrays themselves.
    m = dray.Mesh("grid", len(positions), len(faces), has_vertex_texcoords=True)
    params = dray.traverse(m)
    params["vertex_positions"] = positions.ravel()
    params["faces"] = faces.ravel()
    params["vertex_texcoords"] = uv.ravel()
    params.update()
    same = dray.Mesh("grid", faces=faces, positions=positions, texcoords=uv)
    for key in ("vertex_positions", "faces", "vertex_texcoords"):
        assert np.array_equal(m[key], same[key]), key
    path = str(tmp_path / "grid.ply")
    m.write_ply(path)
    scene = dray.load_dict({"type": "scene", "sensor": ortho_view(), "integrator": {"type": "path"},
                            "grid": {"type": "ply", "filename": path, "bsdf": {"type": "diffuse"}},
                            "light": {"type": "constant"}})
    p = dray.traverse(scene)
    assert np.array_equal(p["grid.vertex_positions"].reshape(-1, 3), positions.astype(np.float32))
    assert np.array_equal(np.asarray(p["grid.faces"]).reshape(-1, 3), faces)
    assert np.array_equal(p["grid.texcoords"], uv.astype(np.float32))  # Mitsuba's key of its UVs, per vertex
    assert np.array_equal(p["grid.vertex_texcoords"], p["grid.texcoords"])
    # A diffuse plane of albedo 0.5 under a white sky, filling the film: its mean 0.5 (3%: 1,024 samples).
    assert float(dray.render(scene, spp=16).mean()) == pytest.approx(0.5, rel=0.03)


def test_a_mesh_refuses_buffers_of_the_wrong_size():
    m = dray.Mesh("grid", 4, 2)
    with pytest.raises(ValueError, match="vertex_positions needs 12 values"):
        m["vertex_positions"] = np.zeros(9)
    with pytest.raises(ValueError, match="refers to vertex 7 of 4"):
        m["faces"] = [0, 1, 2, 0, 2, 7]
    with pytest.raises(KeyError, match="no buffer 'vertex_texcoords'"):
        m["vertex_texcoords"] = np.zeros(8)


def test_a_raw_nearest_bitmap_shows_its_texels(tmp_path):
    # A 4 x 4 bitmap of radiances on a rectangle filling an 8 x 8 orthographic film: each texel
    # covers 2 x 2 pixels, its value exactly (raw: no sRGB decoding; nearest: no blending).
    texels = np.random.default_rng(1).random((4, 4, 3)).astype(np.float32) * 3
    scene = dray.load_dict({"type": "scene", "sensor": ortho_view(), "integrator": {"type": "path"},
                            "screen": {"type": "rectangle", "emitter": {"type": "area", "radiance": {
                                "type": "bitmap", "bitmap": dray.Bitmap(texels), "raw": True, "filter_type": "nearest"}}}})
    image = dray.render(scene, spp=4)
    # The rectangle's v runs up the film (Mitsuba's UVs), the image's rows down; u along columns.
    shown = image.reshape(4, 2, 4, 2, 3)[:, 0, :, 0][::-1]
    assert np.allclose(shown, texels, rtol=1e-6, atol=0)
    with pytest.raises(ValueError, match="H x W or H x W x C"):
        dray.Bitmap(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="a texture takes 1 or 3 channels"):  # YA: a bitmap, not a texture
        dray.load_dict({"type": "scene", "sensor": ortho_view(), "screen": {"type": "rectangle", "emitter": {
            "type": "area", "radiance": {"type": "bitmap", "bitmap": dray.Bitmap(np.zeros((2, 2, 2)))}}}})


def test_a_reference_names_a_plugins_key_or_its_id():
    # Mitsuba's tutorials give top-level plugins an 'id' other than their key and refer to the key.
    for ref in ("glass", "glass-bsdf"):
        scene = dray.load_dict({"type": "scene", "sensor": ortho_view(),
                                "glass": {"type": "diffuse", "id": "glass-bsdf", "reflectance": {"type": "rgb", "value": 0.25}},
                                "floor": {"type": "rectangle", "bsdf": {"type": "ref", "id": ref}},
                                "light": {"type": "constant"}})
        assert float(dray.render(scene, spp=16).mean()) == pytest.approx(0.25, rel=0.03), ref


def test_an_aov_integrator_given_to_render_brings_its_channels():
    # Issue 76: render(scene, integrator=aov) came back with 3 channels; inside the scene it gives 7.
    scene = dray.load_dict({"type": "scene", "sensor": ortho_view(), "integrator": {"type": "path"},
                            "light": {"type": "constant"},
                            "ball": {"type": "sphere", "radius": 0.6, "bsdf": {"type": "diffuse"}}})
    aov = dray.load_dict({"type": "aov", "aovs": "dd.y:depth,nn:sh_normal", "integrator": {"type": "path"}})
    plain = dray.render(scene, spp=4, seed=1)
    image = dray.render(scene, spp=4, seed=1, integrator=aov)
    assert plain.shape == (8, 8, 3) and image.shape == (8, 8, 7)
    np.testing.assert_array_equal(image[..., :3], plain)
    # The sphere's centre pixels: depth 3 - 0.6 from the camera at z = 3; the normal faces +z.
    z = np.sqrt(0.36 - 2 * 0.125 ** 2)  # the surface under the pixel's centre (samples spread over it)
    assert image[3, 3, 3] == pytest.approx(3 - z, rel=1e-2)
    assert image[3, 3, 6] == pytest.approx(z / 0.6, abs=0.02)
    assert dray.render(scene, spp=4, seed=1).shape == (8, 8, 3)  # the scene's own integrator again


TUTORIAL_MESHES = os.path.join(os.environ.get("DRAY_TUTORIAL_SCENES", os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "mitsuba-tutorials", "scenes")), "meshes")


def test_a_ply_loaded_alone_is_a_mesh_that_a_scene_takes(tmp_path):
    # Mitsuba's mesh guide: load_dict of one ply is a Mesh (world vertices, faces, normals, its
    # bsdf kept); an attribute added in Python is read by a mesh_attribute texture once the mesh is
    # placed in a scene dict; assigning fewer faces remeshes.
    positions, faces, _ = grid_mesh(3)
    dray.Mesh("g", faces=faces, positions=positions).write_ply(str(tmp_path / "g.ply"))
    mesh = dray.load_dict({"type": "ply", "filename": str(tmp_path / "g.ply"), "to_world": T().translate([0, 0, 0.5]),
                           "bsdf": {"type": "diffuse", "reflectance": {"type": "mesh_attribute", "name": "vertex_color"}}})
    assert isinstance(mesh, dray.Mesh) and mesh.vertex_count() == 9 and mesh.face_count() == 8
    np.testing.assert_allclose(mesh["positions"], positions + [0, 0, 0.5], atol=1e-6)
    assert mesh["faces"].tolist() == faces.tolist()
    assert "bbox = BoundingBox3f[\n    min = [-1, -1, 0.5],\n    max = [1, 1, 0.5]\n  ]," in repr(mesh)
    colours = np.tile([0.2, 0.5, 0.8], (9, 1))
    mesh.add_attribute("vertex_color", np.zeros((9, 3)))
    params = dray.traverse(mesh)
    params["vertex_color"] = colours
    assert params.update() == [(mesh, {"vertex_color"})]
    scene = dray.load_dict({"type": "scene", "sensor": ortho_view(extent=0.5), "integrator": {"type": "direct"},
                            "light": {"type": "constant"}, "grid": mesh})
    # A diffuse plane under a unit constant sky: its radiance is its albedo, the vertex colour.
    np.testing.assert_allclose(dray.render(scene, spp=16).reshape(-1, 3).mean(axis=0), [0.2, 0.5, 0.8], rtol=0.02)
    params["faces"] = params["faces"][::2]
    params.update()
    assert mesh.face_count() == 4 and mesh["faces"].tolist() == faces[::2].tolist()
    with pytest.raises(ValueError, match="vertex_ or face_"):
        mesh.add_attribute("colour", np.zeros((9, 3)))


@pytest.mark.skipif(not os.path.isdir(TUTORIAL_MESHES), reason="no ../shared/mitsuba-tutorials (the tutorials' bunny)")
def test_the_bunny_loaded_alone_prints_as_mitsubas():
    bunny = dray.load_dict({"type": "ply", "filename": os.path.join(TUTORIAL_MESHES, "bunny.ply"), "face_normals": False,
                            "to_world": T().rotate([0, 0, 1], angle=10)})
    text = repr(bunny)
    # Mitsuba's printout in its mesh guide (the tutorials' bunny.ply).
    assert "min = [-0.0779344, -0.0611472, -0.0738726]" in text and "max = [0.0874787, 0.0992267, 0.0468007]" in text
    assert "vertices = [843 KiB of vertex data]" in text and "face_count = 69451" in text
    assert "faces = [814 KiB of face data]" in text


def test_a_batch_sensor_joins_its_sensors_and_splits_the_adjoint():
    # Mitsuba's batch (the projective sampling tutorial's): two views side by side on one film.
    scene = dray.load_dict({"type": "scene", "integrator": {"type": "path"}, "light": {"type": "constant"},
                            "ball": {"type": "sphere", "radius": 0.5, "bsdf": {"type": "diffuse"}}})
    views = {"sensor%d" % i: {"type": "perspective", "fov": 60,
                              "to_world": T().look_at(origin=o, target=[0, 0, 0], up=[0, 1, 0])}
             for i, o in enumerate(([0, 0, 3], [3, 0, 0]))}
    film = {"type": "hdrfilm", "width": 16, "height": 8, "sample_border": True, "filter": {"type": "box"}}
    batch = dray.load_dict({"type": "batch", **views, "film": film, "sampler": {"type": "independent", "sample_count": 4}})
    assert batch.film().size() == [16, 8] and batch.spp == 4
    image = dray.render(scene, sensor=batch, seed=2)
    assert image.shape == (8, 16, 3)
    alone = [dray.render(scene, sensor=dray.load_dict({**views["sensor%d" % i], "film": dict(film, width=8)}), spp=4, seed=2)
             for i in range(2)]
    np.testing.assert_array_equal(image, np.concatenate(alone, axis=1))
    key = "shapes.ball.radius"
    d_image = np.random.default_rng(3).random(image.shape).astype(np.float32)
    forward = dray.render_forward(scene, key, sensor=batch, seed=2)[key]
    reverse = dray.backward(scene, d_image, key, sensor=batch, seed=2)[key]
    assert forward.shape == (8, 16, 3)
    assert float(reverse) == pytest.approx(float((d_image * forward).sum()), rel=0.02)  # forward and reverse, one sum
    with pytest.raises(ValueError, match="multiple of its 3 sensors"):
        dray.load_dict({"type": "batch", **views, "third": views["sensor0"], "film": film})
