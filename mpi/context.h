#pragma once
// The MPI context: initialisation (MPI_THREAD_FUNNELED; works without mpirun as a singleton),
// the communicator it owns, this process's rank in it, and the default thread count per rank.
// The world context is created once; split() makes contexts over groups of its ranks (view
// groups of a multi-view job), which every collective in mpi/ accepts alike.
#include <memory>

namespace dray::mpi {

class Context {
 public:
  // Initialises MPI (unless already initialised) and finalises it on destruction: the world.
  Context(int* argc, char*** argv);
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // A context over a communicator the caller owns (Python's mpi4py: its Fortran handle,
  // comm.py2f()), or without one over this process alone (MPI_COMM_SELF). Initialises MPI when
  // nothing has, then finalises it at the process's exit; never finalises MPI that another
  // library initialised, and never frees the caller's communicator.
  static Context attach(const int* fortran_comm);

  // Collective over this context: the ranks passing the same `color` form a context of their
  // own, ranked by `key` (ties by rank here). Destroy it before the world.
  Context split(int color, int key) const;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  // Ranks on this node (MPI_Comm_split_type shared memory), over the whole world.
  int ranks_on_node() const { return ranks_on_node_; }
  // The node's cores divided by the ranks on it, at least 1.
  int default_threads() const;
  // The node's available memory divided by the ranks on it, in bytes: MemAvailable in
  // /proc/meminfo (else the free physical pages), at most the cgroup's room (memory.max less
  // memory.current: a batch system's job limit) and DRAY_MEMORY_GB (GiB a node, for a share the
  // system does not tell).
  double available_bytes_per_rank() const;

  void barrier() const;
  double seconds() const;  // wall clock (MPI_Wtime)

  // The communicator (defined in mpi/comm.h, for mpi/ only: nothing else sees <mpi.h>).
  struct Comm;
  const Comm& comm() const { return *comm_; }

 private:
  Context() = default;
  std::unique_ptr<Comm> comm_;
  int rank_ = 0, size_ = 1, ranks_on_node_ = 1;
  bool owns_mpi_ = false;
};

}  // namespace dray::mpi
