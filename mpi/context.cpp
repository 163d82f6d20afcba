#include "mpi/context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

#include <unistd.h>

#include "mpi/comm.h"

namespace dray::mpi {

Context::Context(int* argc, char*** argv) : comm_(std::make_unique<Comm>()) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    owns_mpi_ = true;
    if (provided < MPI_THREAD_FUNNELED) {
      std::fprintf(stderr, "dray: the MPI library does not provide MPI_THREAD_FUNNELED\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &ranks_on_node_);
  MPI_Comm_free(&node);
}

Context::~Context() {
  comm_.reset();  // a split's communicator is freed before MPI is finalised
  if (owns_mpi_) MPI_Finalize();
}

Context::Context(Context&& o) noexcept
    : comm_(std::move(o.comm_)), rank_(o.rank_), size_(o.size_), ranks_on_node_(o.ranks_on_node_), owns_mpi_(o.owns_mpi_) {
  o.owns_mpi_ = false;
}

Context& Context::operator=(Context&& o) noexcept {
  if (this != &o) {
    comm_ = std::move(o.comm_);
    rank_ = o.rank_, size_ = o.size_, ranks_on_node_ = o.ranks_on_node_, owns_mpi_ = o.owns_mpi_;
    o.owns_mpi_ = false;
  }
  return *this;
}

Context Context::attach(const int* fortran_comm) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit([] {
      int finalised = 0;
      MPI_Finalized(&finalised);
      if (!finalised) MPI_Finalize();
    });
  }
  Context c;
  c.comm_ = std::make_unique<Comm>();
  c.comm_->handle = fortran_comm ? MPI_Comm_f2c(MPI_Fint(*fortran_comm)) : MPI_COMM_SELF;
  MPI_Comm_rank(c.comm_->handle, &c.rank_);
  MPI_Comm_size(c.comm_->handle, &c.size_);
  MPI_Comm node;
  MPI_Comm_split_type(c.comm_->handle, MPI_COMM_TYPE_SHARED, c.rank_, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &c.ranks_on_node_);
  MPI_Comm_free(&node);
  return c;
}

Context Context::split(int color, int key) const {
  Context g;
  g.comm_ = std::make_unique<Comm>();
  MPI_Comm_split(comm_->handle, color, key, &g.comm_->handle);
  g.comm_->owned = true;
  MPI_Comm_rank(g.comm_->handle, &g.rank_);
  MPI_Comm_size(g.comm_->handle, &g.size_);
  g.ranks_on_node_ = ranks_on_node_;
  return g;
}

int Context::default_threads() const {
  // hardware_concurrency counts the node's cores, not this process's binding.
  int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(1, ranks_on_node_));
}

namespace {

// The cgroup (v2) room left under its limit, in bytes: memory.max less the memory it holds that
// is not file cache (which the kernel reclaims); infinity without a limit.
double cgroup_room() {
  double limit = 0, anon = 0;
  std::FILE* f = std::fopen("/sys/fs/cgroup/memory.max", "r");
  const bool limited = f && std::fscanf(f, "%lf", &limit) == 1;  // "max" reads as no number
  if (f) std::fclose(f);
  if (!limited) return std::numeric_limits<double>::infinity();
  if (std::FILE* g = std::fopen("/sys/fs/cgroup/memory.stat", "r")) {
    char key[64];
    double value = 0;
    while (std::fscanf(g, "%63s %lf", key, &value) == 2)
      if (std::strcmp(key, "anon") == 0) anon = value;
    std::fclose(g);
  }
  return std::max(0.0, limit - anon);
}

}  // namespace

double Context::available_bytes_per_rank() const {
  double bytes = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    double kib = 0;
    while (std::fscanf(f, "%63s %lf kB", key, &kib) == 2)
      if (std::strcmp(key, "MemAvailable:") == 0) bytes = kib * 1024.0;
    std::fclose(f);
  }
  if (bytes <= 0) bytes = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  bytes = std::min(bytes, cgroup_room());
  if (const char* given = std::getenv("DRAY_MEMORY_GB"); given && std::atof(given) > 0)
    bytes = std::min(bytes, std::atof(given) * 1024.0 * 1024.0 * 1024.0);
  return bytes / std::max(1, ranks_on_node_);
}

void Context::barrier() const { MPI_Barrier(comm_->handle); }
double Context::seconds() const { return MPI_Wtime(); }

}  // namespace dray::mpi
