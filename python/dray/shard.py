"""An optimizer's state sharded over the ranks of an mpi4py communicator, as ``dray optimize``
shards it (tools/job_shard.h; ZeRO stage 2, Rajbhandari et al. 2020): rank r of N owns the
elements [n r / N, n (r + 1) / N) of every parameter's n, and holds the moments of those alone;
it steps them and the new values are allgathered, so that every rank holds the whole value. A
parameter whose step needs all of it (UniformAdam's largest second moment) is rank 0's whole.
Adam and SGD are elementwise, so the trajectory is bitwise that of one process."""
import numpy as np


class Shard:
    """Which elements of each parameter this rank of ``comm`` owns."""

    def __init__(self, comm):
        if not hasattr(comm, "Allgatherv") or not hasattr(comm, "Get_rank"):
            raise TypeError("comm must be an mpi4py communicator (e.g. MPI.COMM_WORLD), got %r" % type(comm).__name__)
        self.comm, self.rank, self.ranks = comm, comm.Get_rank(), comm.Get_size()

    def bounds(self, size, rank=None, whole=False):
        """[begin, end) of a parameter of `size` elements that `rank` (this rank) owns."""
        rank = self.rank if rank is None else rank
        if whole:
            return (0, size) if rank == 0 else (0, 0)
        return size * rank // self.ranks, size * (rank + 1) // self.ranks

    def allgather(self, flat, whole=False):
        """Every rank's piece of `flat` (a C-contiguous float64 array) gathered in place."""
        from mpi4py import MPI
        pieces = [self.bounds(flat.size, r, whole) for r in range(self.ranks)]
        counts, offsets = [e - b for b, e in pieces], [b for b, _ in pieces]
        self.comm.Allgatherv(MPI.IN_PLACE, [flat, counts, offsets, MPI.DOUBLE])
