"""A block changes shape by assignment (issue 54, Mitsuba's `params[key] = tensor of another size;
params.update()`): a density grid, a bitmap and a mesh (its positions and faces) given new sizes
render, and differentiate, bitwise as the same scene loaded with those sizes from files; a bad
reshape is a ValueError that changes nothing."""
import numpy as np
import pytest

import dray


def film(res=16):
    return {'type': 'hdrfilm', 'width': res, 'height': res, 'rfilter': {'type': 'box'}}


def sensor(origin=(0, 0, 4)):
    return {'type': 'perspective', 'fov': 40, 'to_world': dray.ScalarTransform4f().look_at(origin=origin, target=(0, 0, 0), up=(0, 1, 0)),
            'film': film()}


def volume_scene(grid):
    return dray.load_dict({
        'type': 'scene', 'integrator': {'type': 'prbvolpath', 'max_depth': 4}, 'sensor': sensor(),
        'emitter': {'type': 'constant'},
        'object': {'type': 'cube', 'bsdf': {'type': 'null'},
                   'interior': {'type': 'heterogeneous', 'scale': 4.0,
                                'sigma_t': {'type': 'gridvolume', 'grid': dray.VolumeGrid(grid),
                                            'to_world': dray.ScalarTransform4f().translate(-1).scale(2.0)}}}})


KEY = 'object.interior_medium.sigma_t.data'


def blobs(n):
    z, y, x = np.meshgrid(*[(np.arange(n) + 0.5) / n] * 3, indexing='ij')
    return (0.2 + 0.8 * np.exp(-((x - 0.4) ** 2 + (y - 0.6) ** 2 + (z - 0.5) ** 2) / 0.05))[..., None].astype(np.float32)


def test_a_grid_resampled_by_assignment_is_the_grid_loaded_at_that_size():
    fine = blobs(12)
    loaded = volume_scene(fine)
    scene = volume_scene(np.full((4, 4, 4, 1), 0.3, dtype=np.float32))
    params = dray.traverse(scene)
    assert params[KEY].shape == (4, 4, 4, 1)
    params[KEY] = fine
    params.update()
    assert params[KEY].shape == (12, 12, 12, 1) and np.array_equal(params[KEY], fine)
    image = dray.render(scene, seed=5, spp=4)
    assert np.array_equal(image, dray.render(loaded, seed=5, spp=4))
    assert image.std() > 0.01  # the grid shows
    adjoint = np.ones_like(image)
    g = dray.backward(scene, adjoint, [KEY], spp=4, seed=6)[KEY]
    assert g.shape == (12, 12, 12, 1) and np.abs(g).max() > 0
    assert np.array_equal(g, dray.backward(loaded, adjoint, [KEY], spp=4, seed=6)[KEY])


def test_a_bad_grid_reshape_changes_nothing():
    scene = volume_scene(np.full((4, 4, 4, 1), 0.3, dtype=np.float32))
    params = dray.traverse(scene)
    image = dray.render(scene, seed=1, spp=2)
    for bad, message in ((np.full((8, 8, 8, 3), 0.3), "keeps the dimensions and the last one"),
                         (np.full((8, 8, 8, 1), -1.0), "value 0: must be >= 0"),
                         (np.full((8, 8, 8), 0.3), "keeps the dimensions")):
        params[KEY] = bad
        with pytest.raises(ValueError, match=message):
            params.update({'emitter.radiance.value': [0.5, 0.5, 0.5]})  # undone with it
        assert params[KEY].shape == (4, 4, 4, 1)
        assert np.array_equal(dray.render(scene, seed=1, spp=2), image)


def write_ply(path, positions, faces):
    lines = ["ply", "format ascii 1.0", "element vertex %d" % len(positions), "property float x", "property float y",
             "property float z", "element face %d" % len(faces), "property list uchar int vertex_indices", "end_header"]
    lines += ["%r %r %r" % tuple(float(c) for c in p) for p in positions]
    lines += ["3 %d %d %d" % tuple(f) for f in faces]
    path.write_text("\n".join(lines) + "\n")


def subdivided(positions, faces):
    """Each triangle split in four at its edges' midpoints (the vertices pushed onto the unit sphere)."""
    positions = [np.asarray(p, dtype=np.float64) for p in positions]
    middle, out = {}, []

    def mid(a, b):
        key = (min(a, b), max(a, b))
        if key not in middle:
            m = (positions[a] + positions[b]) / 2
            positions.append(m / np.linalg.norm(m))
            middle[key] = len(positions) - 1
        return middle[key]
    for a, b, c in faces:
        ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
        out += [(a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca)]
    return np.array(positions, dtype=np.float32), np.array(out, dtype=np.uint32)


OCTAHEDRON = (np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.float32),
              np.array([[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]], dtype=np.uint32))


def mesh_scene(path, flat):
    shape = {'type': 'ply', 'filename': str(path), 'bsdf': {'type': 'diffuse', 'reflectance': {'type': 'rgb', 'value': [0.7, 0.5, 0.3]}}}
    if flat:
        shape['face_normals'] = True
    return dray.load_dict({'type': 'scene', 'integrator': {'type': 'direct_projective'}, 'sensor': sensor((1, 2, 4)),
                           'light': {'type': 'point', 'position': [2, 3, 3], 'intensity': {'type': 'rgb', 'value': [20, 20, 20]}},
                           'ball': shape})


@pytest.mark.parametrize("flat", [True, False], ids=["flat", "smooth"])
def test_a_mesh_remeshed_by_assignment_is_the_mesh_loaded_remeshed(tmp_path, flat):
    fine_positions, fine_faces = subdivided(*subdivided(*OCTAHEDRON))
    write_ply(tmp_path / "coarse.ply", *OCTAHEDRON)
    write_ply(tmp_path / "fine.ply", fine_positions, fine_faces)
    loaded = mesh_scene(tmp_path / "fine.ply", flat)
    scene = mesh_scene(tmp_path / "coarse.ply", flat)
    params = dray.traverse(scene)
    params['ball.faces'] = fine_faces  # Mitsuba's order: the faces, then the positions, then update()
    params['ball.positions'] = fine_positions
    params['ball.texcoords'] = np.zeros(0, dtype=np.float32)  # the notebook drops the UVs
    params.update()
    assert params['ball.faces'].tolist() == fine_faces.tolist() and params['ball.positions'].shape == (len(fine_positions), 3)
    image = dray.render(scene, seed=2, spp=4)
    assert np.array_equal(image, dray.render(loaded, seed=2, spp=4))
    adjoint = np.ones_like(image)
    key = 'shapes.ball.vertices'
    g = dray.backward(scene, adjoint, [key], spp=4, seed=3)[key]
    assert g.shape == fine_positions.shape and np.abs(g).max() > 0
    assert np.array_equal(g, dray.backward(loaded, adjoint, [key], spp=4, seed=3)[key])


def test_a_bad_remesh_changes_nothing(tmp_path):
    write_ply(tmp_path / "coarse.ply", *OCTAHEDRON)
    scene = mesh_scene(tmp_path / "coarse.ply", True)
    params = dray.traverse(scene)
    image = dray.render(scene, seed=2, spp=2)
    positions, faces = subdivided(*OCTAHEDRON)
    params['ball.positions'] = positions  # more vertices without faces
    with pytest.raises(ValueError, match="set its faces with them"):
        params.update()
    params['ball.faces'] = faces + 100
    params['ball.positions'] = positions
    with pytest.raises(ValueError, match="names vertex 100"):
        params.update()
    with pytest.raises(ValueError, match="F x 3 vertex indices"):
        params['ball.faces'] = [[0, 1]]
    assert params['ball.faces'].tolist() == OCTAHEDRON[1].tolist()
    assert np.array_equal(dray.render(scene, seed=2, spp=2), image)


def test_a_bitmap_resized_by_assignment_is_the_bitmap_loaded_at_that_size(tmp_path):
    texels = np.random.default_rng(1).uniform(0.1, 0.9, (6, 10, 3)).astype(np.float32)
    dray.write_image(str(tmp_path / "t.exr"), texels)
    dray.write_image(str(tmp_path / "small.exr"), np.full((2, 2, 3), 0.5, dtype=np.float32))

    def scene(name):
        return dray.load_dict({'type': 'scene', 'integrator': {'type': 'path', 'max_depth': 2}, 'sensor': sensor(),
                               'sky': {'type': 'constant'},
                               'card': {'type': 'rectangle', 'bsdf': {'type': 'diffuse', 'reflectance': {
                                   'type': 'bitmap', 'id': 'tex', 'filename': str(tmp_path / name), 'raw': True}}}})
    resized = scene("small.exr")
    params = dray.traverse(resized)
    key = [k for k in params if k.endswith('.data')][0]
    params[key] = texels
    params.update()
    assert params[key].shape == (6, 10, 3)
    assert np.array_equal(dray.render(resized, seed=1, spp=2), dray.render(scene("t.exr"), seed=1, spp=2))
