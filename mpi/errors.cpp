#include "mpi/comm.h"
#include "mpi/errors.h"

#include <exception>
#include <stdexcept>
#include <string>


namespace dray::mpi {

Status agree(const Context& ctx, const Status& local) {
  int mine = local.code != 0 ? ctx.rank() : ctx.size();
  int first = ctx.size();
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_of(ctx));
  if (first == ctx.size()) return {};
  Status out = local;
  int header[2] = {out.code, int(out.message.size())};
  MPI_Bcast(header, 2, MPI_INT, first, comm_of(ctx));
  out.code = header[0];
  out.message.resize(size_t(header[1]));
  MPI_Bcast(out.message.data(), header[1], MPI_CHAR, first, comm_of(ctx));
  return out;
}

Status agree_on(const Context& ctx, const std::function<void()>& step) {
  Status local;
  try {
    step();
  } catch (const AgreedError& e) {  // agreed within a group of ranks: its code kept
    local = e.status;
  } catch (const std::runtime_error& e) {
    local = {2, e.what()};
  } catch (const std::exception& e) {
    local = {3, "internal error on rank " + std::to_string(ctx.rank()) + ": " + e.what()};
  }
  return agree(ctx, local);
}

void run_agreed(const Context& ctx, const std::function<void()>& step) {
  Status status = agree_on(ctx, step);
  if (status.code) throw AgreedError(status);
}

bool all_ranks(const Context& ctx, bool condition) {
  int mine = condition ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm_of(ctx));
  return all == 1;
}

}  // namespace dray::mpi
