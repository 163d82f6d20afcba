#include "mpi/collectives.h"

#include "mpi/comm.h"

namespace dray::mpi {

std::vector<std::string> gather_strings(const Context& ctx, const std::string& mine) {
  int n = int(mine.size());
  std::vector<int> counts(ctx.size()), displs(ctx.size(), 0);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_of(ctx));
  std::string all;
  if (ctx.is_root()) {
    for (int r = 1; r < ctx.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
    all.resize(size_t(displs.back() + counts.back()));
  }
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, comm_of(ctx));
  std::vector<std::string> out;
  if (ctx.is_root())
    for (int r = 0; r < ctx.size(); ++r) out.push_back(all.substr(size_t(displs[r]), size_t(counts[r])));
  return out;
}

void broadcast(const Context& ctx, std::span<double> values, int root) {
  MPI_Bcast(values.data(), int(values.size()), MPI_DOUBLE, root, comm_of(ctx));
}

void reduce_sum(const Context& ctx, std::span<double> values, int root) {
  if (ctx.rank() == root) MPI_Reduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, MPI_SUM, root, comm_of(ctx));
  else MPI_Reduce(values.data(), nullptr, int(values.size()), MPI_DOUBLE, MPI_SUM, root, comm_of(ctx));
}

void allreduce_sum(const Context& ctx, std::span<double> values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, MPI_SUM, comm_of(ctx));
}

namespace {

// MPI has no 128-bit integer: a 16-byte type and a commutative user operation that adds them.
void add_fixed(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const ad::FixedSum*>(in);
  auto* b = static_cast<ad::FixedSum*>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

struct FixedSumType {
  MPI_Datatype type;
  MPI_Op op;
  FixedSumType() {
    MPI_Type_contiguous(int(sizeof(ad::FixedSum)), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(&add_fixed, 1, &op);
  }
};

// Created on first use (after MPI_Init); freed by MPI_Finalize with the rest.
const FixedSumType& fixed_sum_type() {
  static const FixedSumType t;
  return t;
}

}  // namespace

void reduce_sum(const Context& ctx, std::span<ad::FixedSum> values, int root) {
  const FixedSumType& t = fixed_sum_type();
  if (ctx.rank() == root) MPI_Reduce(MPI_IN_PLACE, values.data(), int(values.size()), t.type, t.op, root, comm_of(ctx));
  else MPI_Reduce(values.data(), nullptr, int(values.size()), t.type, t.op, root, comm_of(ctx));
}

void allreduce_sum(const Context& ctx, std::span<ad::FixedSum> values) {
  const FixedSumType& t = fixed_sum_type();
  MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), t.type, t.op, comm_of(ctx));
}

std::vector<double> gather(const Context& ctx, std::span<const double> mine, int root) {
  std::vector<double> all(ctx.rank() == root ? mine.size() * size_t(ctx.size()) : 0);
  MPI_Gather(mine.data(), int(mine.size()), MPI_DOUBLE, all.data(), int(mine.size()), MPI_DOUBLE, root, comm_of(ctx));
  return all;
}

std::vector<double> scatter(const Context& ctx, std::span<const double> all, size_t piece, int root) {
  std::vector<double> mine(piece);
  MPI_Scatter(all.data(), int(piece), MPI_DOUBLE, mine.data(), int(piece), MPI_DOUBLE, root, comm_of(ctx));
  return mine;
}

}  // namespace dray::mpi
