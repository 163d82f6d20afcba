#include "mpi/collectives.h"

#include <mpi.h>

namespace dray::mpi {

std::vector<std::string> gather_strings(const Context& ctx, const std::string& mine) {
  int n = int(mine.size());
  std::vector<int> counts(ctx.size()), displs(ctx.size(), 0);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (ctx.is_root()) {
    for (int r = 1; r < ctx.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
    all.resize(size_t(displs.back() + counts.back()));
  }
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (ctx.is_root())
    for (int r = 0; r < ctx.size(); ++r) out.push_back(all.substr(size_t(displs[r]), size_t(counts[r])));
  return out;
}

void broadcast(const Context&, std::span<double> values, int root) {
  MPI_Bcast(values.data(), int(values.size()), MPI_DOUBLE, root, MPI_COMM_WORLD);
}

void reduce_sum(const Context& ctx, std::span<double> values, int root) {
  if (ctx.rank() == root) MPI_Reduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
  else MPI_Reduce(values.data(), nullptr, int(values.size()), MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
}

void allreduce_sum(const Context&, std::span<double> values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

std::vector<double> gather(const Context& ctx, std::span<const double> mine, int root) {
  std::vector<double> all(ctx.rank() == root ? mine.size() * size_t(ctx.size()) : 0);
  MPI_Gather(mine.data(), int(mine.size()), MPI_DOUBLE, all.data(), int(mine.size()), MPI_DOUBLE, root, MPI_COMM_WORLD);
  return all;
}

std::vector<double> scatter(const Context&, std::span<const double> all, size_t piece, int root) {
  std::vector<double> mine(piece);
  MPI_Scatter(all.data(), int(piece), MPI_DOUBLE, mine.data(), int(piece), MPI_DOUBLE, root, MPI_COMM_WORLD);
  return mine;
}

}  // namespace dray::mpi
