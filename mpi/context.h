#pragma once
// The MPI context: initialisation (MPI_THREAD_FUNNELED; works without mpirun as a singleton),
// this process's rank, and the default thread count per rank.
namespace dray::mpi {

class Context {
 public:
  // Initialises MPI (unless already initialised) and finalises it on destruction.
  Context(int* argc, char*** argv);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  // Ranks on this node (MPI_Comm_split_type shared memory).
  int ranks_on_node() const { return ranks_on_node_; }
  // The node's cores divided by the ranks on it, at least 1.
  int default_threads() const;
  // The node's available memory (MemAvailable in /proc/meminfo, else the free physical pages)
  // divided by the ranks on it, in bytes.
  double available_bytes_per_rank() const;

  void barrier() const;
  double seconds() const;  // wall clock (MPI_Wtime)

 private:
  int rank_ = 0, size_ = 1, ranks_on_node_ = 1;
  bool owns_mpi_ = false;
};

}  // namespace dray::mpi
