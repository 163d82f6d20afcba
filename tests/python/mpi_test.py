"""dray's Python module under MPI (mpi4py): run by
  mpiexec -n 2 /usr/bin/python3 -m mpi4py -m pytest tests/python/mpi_test.py
Every rank of a communicator gets the same image and gradients as one process alone, an error
raises the same exception on every rank (no hang), and dray leaves MPI to mpi4py."""
import os

import numpy as np
import pytest
from mpi4py import MPI

import dray

SCENES = os.path.join(os.path.dirname(__file__), "..", "..", "scenes")
comm = MPI.COMM_WORLD


def spheres():
    return dray.load(os.path.join(SCENES, "spheres.json"), **{"camera.width": 40, "camera.height": 30, "render.spp": 2})


def all_true(flag):
    """The flag on every rank (each asserts the combined value: no rank stops alone)."""
    return comm.allreduce(bool(flag), op=MPI.LAND)


def test_render_on_the_communicator_equals_one_process_on_every_rank():
    s = spheres()
    image = dray.render(s, seed=4, comm=comm)
    alone = dray.render(s, seed=4, comm=MPI.COMM_SELF)
    assert all_true(np.array_equal(image, alone))
    gathered = comm.allgather(image)
    assert all_true(all(np.array_equal(g, image) for g in gathered))


def test_gradients_and_derivatives_are_the_same_on_every_rank():
    s = spheres()
    names = ["materials.red.reflectance[0]", "shapes.mid.radius"]
    d = np.random.default_rng(3).random((30, 40, 3), dtype=np.float32)
    g = dray.backward(s, d, wrt=names, seed=2, comm=comm)
    alone = dray.backward(s, d, wrt=names, seed=2)
    assert all_true(all(g[n] == alone[n] for n in names))
    f = dray.render_forward(s, wrt=names, seed=2, comm=comm)
    assert all_true(all(np.array_equal(f[n], dray.render_forward(s, wrt=names, seed=2)[n]) for n in names))


def test_the_particle_tracers_gradients_and_derivatives_are_the_same_on_every_rank():
    # Its light paths split over the ranks: the image's sums reduced, then the gradient's.
    s = dray.load(os.path.join(SCENES, "lens.json"), **{"camera.width": 20, "camera.height": 16, "render.spp": 2})
    names = ["materials.glass.int_ior", "shapes.lens.vertices[6,1]"]
    d = np.random.default_rng(4).random((16, 20, 3), dtype=np.float32)
    g = dray.backward(s, d, wrt=names, seed=2, comm=comm)
    alone = dray.backward(s, d, wrt=names, seed=2)
    assert all_true(all(g[n] == alone[n] and g[n] != 0 for n in names))
    f = dray.render_forward(s, wrt=names, seed=2, comm=comm)
    f_alone = dray.render_forward(s, wrt=names, seed=2)
    assert all_true(all(np.array_equal(f[n], f_alone[n]) for n in names))


def test_an_error_raises_on_every_rank():
    s = spheres()
    with pytest.raises(ValueError, match="unknown parameter"):
        dray.backward(s, np.zeros((30, 40, 3), np.float32), wrt=["shapes.nope.radius"], comm=comm)
    # A bad input on one rank only: every rank raises it (agreed before any collective).
    shape = (30, 40, 3) if comm.rank == 0 else (2, 2, 3)
    with pytest.raises(ValueError, match="d_image is 2x2x3"):
        dray.backward(s, np.zeros(shape, np.float32), wrt=["shapes.mid.radius"], comm=comm)
    comm.Barrier()  # nobody hung


def test_mpi_is_left_to_mpi4py():
    dray.render(spheres(), spp=1, comm=comm)
    assert MPI.Is_initialized() and not MPI.Is_finalized()
    assert comm.allreduce(1) == comm.size


@pytest.mark.parametrize("make", [lambda **k: dray.optimizers.Adam(lr=0.05, **k),
                                  lambda **k: dray.optimizers.Adam(lr=0.05, uniform=True, **k),
                                  lambda **k: dray.optimizers.SGD(lr=0.1, momentum=0.9, nesterov=True, **k)])
def test_a_sharded_optimizer_steps_bitwise_as_one_process(make):
    # Each rank holds the state of its 1/N of every parameter (UniformAdam's: rank 0 all of it).
    rng = np.random.default_rng(7)
    start = {"grid": rng.random((7, 5, 3)), "colour": rng.random(3), "radius": np.array(0.5)}
    sharded, alone = make(comm=comm), make()
    for name, value in start.items():
        sharded[name], alone[name] = value, value
    for step in range(3):
        g = {n: np.random.default_rng(100 + step).normal(size=v.shape) for n, v in start.items()}
        sharded.step({n: x.copy() for n, x in g.items()})
        alone.step(g)
    assert all_true(all(np.array_equal(sharded[n], alone[n]) for n in start))
    held = {n: np.size(sharded._state[n][0] if isinstance(sharded._state[n], tuple) else sharded._state[n]) for n in start}
    whole = getattr(sharded, "uniform", False)
    assert all_true(all(comm.allreduce(held[n]) == v.size for n, v in start.items()))
    if not whole:
        assert all_true(all(held[n] == sharded._shard.bounds(v.size)[1] - sharded._shard.bounds(v.size)[0]
                            for n, v in start.items()))
    else:
        assert all_true(all(held[n] == (v.size if comm.rank == 0 else 0) for n, v in start.items()))


def test_a_sharded_fit_is_bitwise_the_one_process_fit():
    # dray.backward's gradient, the same on every rank, stepped piece by piece and projected.
    def fit(comm_or_none):
        s = spheres()
        params = s.params()
        opt = dray.optimizers.Adam(lr=0.3, params=params, keys=["materials.red.reflectance"], comm=comm_or_none)
        target = np.zeros((30, 40, 3), np.float32)
        for it in range(3):
            params.update(opt)
            image = dray.render(s, seed=2 * it, comm=comm)
            d = 2 * (image - target) / image.size
            opt.step(dray.backward(s, d, wrt=list(opt), seed=2 * it + 1, comm=comm))
        return opt["materials.red.reflectance"]
    sharded, alone = fit(comm), fit(None)
    assert all_true(np.array_equal(sharded, alone) and np.all(sharded >= 0) and np.any(sharded == 0))
