"""The Python shape of issue 32: scene.params() a live mapping (as mi.traverse) with update(),
dray.optimizers.Adam over it (as mi.ad.Adam, steps projected onto the parameters' domains), and
Mitsuba XML defines as keyword arguments of dray.load (as mi.load_file)."""
import os

import numpy as np
import pytest

import dray

SCENES = os.path.join(os.path.dirname(__file__), "..", "..", "scenes")


def spheres(**kw):
    return dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 24, "camera.height": 16, "render.spp": 4, **kw})


def test_params_is_a_live_mapping_with_staged_updates():
    s = spheres()
    params = s.params()
    assert "shapes.mid.radius" in params and "shapes.nope" not in params and len(params) == len(list(params))
    assert params["materials.red.reflectance[1]"] == pytest.approx(0.15)
    params["shapes.mid.radius"] = 1.25
    params["materials.red.reflectance[1]"] = 0.5
    assert params["shapes.mid.radius"] == pytest.approx(1.25)  # staged, read back
    assert s.params()["shapes.mid.radius"] == pytest.approx(1.0)  # the scene unchanged
    assert sorted(params.update()) == ["materials.red.reflectance[1]", "shapes.mid.radius"]
    assert s.params()["shapes.mid.radius"] == pytest.approx(1.25)
    assert s.params()["materials.red.reflectance"].tolist() == pytest.approx([0.8, 0.5, 0.1])
    with pytest.raises(KeyError):
        params["shapes.nope.radius"]
    with pytest.raises(ValueError, match="unknown parameter"):
        params["shapes.nope.radius"] = 1
    params["shapes.mid.radius"] = -2
    with pytest.raises(ValueError, match="shapes.mid.radius: must be > 0, got -2"):
        params.update()
    assert s.params()["shapes.mid.radius"] == pytest.approx(1.25)
    snapshot = dict(params.items())
    params.update({"shapes.mid.radius": 0.5})
    assert snapshot["shapes.mid.radius"] == pytest.approx(1.25) and params["shapes.mid.radius"] == pytest.approx(0.5)


def test_adam_projects_onto_domains_and_fits():
    truth = spheres(**{"materials.red.reflectance": [0.3, 0.6, 0.2]})
    target = dray.render(truth, spp=64, seed=99)
    s = spheres()
    params = s.params()
    opt = dray.optimizers.Adam(lr=0.05, params=params, keys=["materials.red.reflectance"])
    for i in range(60):
        params.update(opt)
        image = dray.render(s, seed=2 * i)
        grads = dray.backward(s, 2 * (image - target) / image.size, wrt=list(opt), seed=2 * i + 1)
        opt.step(grads)
    got = s.params()["materials.red.reflectance"]
    assert np.abs(got - [0.3, 0.6, 0.2]).max() < 0.05, got
    # A step far past the domain lands on it: a reflectance at most 1, a radius above 0.
    opt = dray.optimizers.Adam(lr=10.0, params=params, keys=["materials.red.reflectance", "shapes.mid.radius"])
    opt.step({"materials.red.reflectance": np.array([-1.0, -1.0, 1.0]), "shapes.mid.radius": np.array(1.0)})
    assert opt["materials.red.reflectance"][:2].tolist() == [1.0, 1.0] and opt["materials.red.reflectance"][2] == 0.0
    assert 0 < opt["shapes.mid.radius"] < 1e-30
    params.update(opt)  # valid: no ValueError


def test_xml_defines_as_keywords():
    path = os.path.join(SCENES, "mitsuba", "spheres.xml")
    s = dray.load(path, res=32, spp=2)
    assert (s.width, s.spp) == (32, 2)
    s = dray.load(path, res=16, **{"render.spp": 3})  # a define and a --set key together
    assert (s.width, s.spp) == (16, 3)
    with pytest.raises(ValueError, match=r"-D sppp: the scene never uses \$sppp \(its parameters: \$res, \$spp\)"):
        dray.load(path, sppp=2)


def test_optimize_runs_a_job_file(tmp_path):
    import json
    job = tmp_path / "light.job.json"
    job.write_text(json.dumps({
        "scene": os.path.join(SCENES, "light-fit.json"),
        "target": {"scene": os.path.join(SCENES, "light-truth.json"), "spp": 16},
        "params": {"lights.bulb.position": {"lr": 0.05}}, "optimizer": {"iterations": 3}, "spp": 2,
        "output": str(tmp_path / "out"), "snapshot_every": 0}))
    r = dray.optimize(job)
    assert sorted(r.values) == ["lights.bulb.position[%d]" % i for i in range(3)]
    assert r.output == str(tmp_path / "out") and os.path.exists(r.final_scene)
    moved = dray.load(r.final_scene).params()["lights.bulb.position"]
    assert moved.tolist() == pytest.approx([r.values["lights.bulb.position[%d]" % i] for i in range(3)], rel=1e-5)
    with pytest.raises(ValueError, match="holds an earlier run"):
        dray.optimize(job)
    r = dray.optimize(job, ranks=2, output=tmp_path / "two", sets={"render.max_depth": 1})
    assert dray.load(r.final_scene).params()["lights.bulb.position"].shape == (3,)


def test_printing_the_parameters_gives_mitsubas_table():
    # Issue 76: print(params) said "SceneParameters(16 parameters)"; Mitsuba prints a table.
    params = spheres().params()
    lines = repr(params).splitlines()
    assert lines[0] == "SceneParameters[" and lines[-1] == "]"
    assert lines[2].split() == ["Name", "Flags", "Type", "Mitsuba", "key"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[4:-1]}
    assert sorted(rows) == sorted(params)
    assert rows["materials.red.reflectance"] == ["\u2202", "float[3]", "red.reflectance.value"]
    assert rows["shapes.mid.radius"][:2] == ["\u2202", "float"]
    params["shapes.mid.radius"] = 1.5
    assert "(1 staged: shapes.mid.radius)" in repr(params)


def absolute_files(node):
    # A scene of scenes/ copied elsewhere: its relative files named from scenes/.
    if isinstance(node, dict):
        return {k: os.path.join(SCENES, v) if k in ("file", "filename") and isinstance(v, str) and not os.path.isabs(v)
                else absolute_files(v) for k, v in node.items()}
    return [absolute_files(v) for v in node] if isinstance(node, list) else node


def test_a_fitted_grid_given_as_openvdb_is_written_back_as_openvdb(tmp_path):
    # Issue 77 item 12: the smoke job with its start grid converted to .vdb (dray.VolumeGrid reads
    # the .vol and writes the .vdb) runs bitwise the job on the .vol, and writes its fitted grid as
    # a .vdb holding the very values of the .vol the other run writes.
    import json
    start = dray.VolumeGrid(os.path.join(SCENES, "media", "smoke-start.vol"))
    start.write(tmp_path / "smoke-start.vdb")
    assert np.array_equal(dray.VolumeGrid(tmp_path / "smoke-start.vdb").array, start.array)
    outputs = {}
    for ext in ("vol", "vdb"):
        scene = absolute_files(json.load(open(os.path.join(SCENES, "smoke-fit.json"))))
        grid = os.path.join(SCENES, "media", "smoke-start.vol") if ext == "vol" else str(tmp_path / "smoke-start.vdb")
        scene["media"]["smoke"]["sigma_t"]["filename"] = grid
        (tmp_path / ("scene-%s.json" % ext)).write_text(json.dumps(scene))
        job = json.load(open(os.path.join(SCENES, "smoke-fit.job.json")))
        job["scene"], job["output"] = str(tmp_path / ("scene-%s.json" % ext)), str(tmp_path / ("out-" + ext))
        job["optimizer"]["iterations"], job["views"] = 2, job["views"][:1]
        job["views"][0]["target"] = {"scene": os.path.join(SCENES, "smoke.json"), "spp": 8}
        job["views"][0]["camera"].update({"width": 16, "height": 16})
        (tmp_path / ("job-%s.json" % ext)).write_text(json.dumps(job))
        outputs[ext] = dray.optimize(tmp_path / ("job-%s.json" % ext))
    assert outputs["vol"].values == outputs["vdb"].values
    fitted = tmp_path / "out-vdb" / "smoke.sigma_t.vdb"
    assert json.load(open(outputs["vdb"].final_scene))["media"]["smoke"]["sigma_t"]["filename"] == "smoke.sigma_t.vdb"
    assert np.array_equal(dray.VolumeGrid(fitted).array, dray.VolumeGrid(tmp_path / "out-vol" / "smoke.sigma_t.vol").array)
