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
