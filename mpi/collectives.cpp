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

}  // namespace dray::mpi
