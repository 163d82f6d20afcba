#include "mpi/collectives.h"

#include <algorithm>

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

void reduce_sum_chunked(const Context& ctx, std::span<ad::FixedSum> values, int root) {
  constexpr size_t kPiece = size_t(1) << 20;
  for (size_t at = 0; at < values.size(); at += kPiece) reduce_sum(ctx, values.subspan(at, std::min(kPiece, values.size() - at)), root);
}

void allgather_pieces(const Context& ctx, std::span<float> all, std::span<const int> counts) {
  std::vector<int> displacements(counts.size());
  for (size_t r = 1; r < counts.size(); ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), counts.data(), displacements.data(), MPI_FLOAT, comm_of(ctx));
}

// Under 2^30 bytes a message (MPI's counts are int); the pieces arrive in order.
constexpr size_t kMessage = size_t(1) << 30;
constexpr int kBytesTag = 7001;

void send_bytes(const Context& ctx, const void* data, size_t bytes, int dest) {
  const auto* p = static_cast<const char*>(data);
  for (size_t at = 0; at < bytes; at += kMessage)
    MPI_Send(p + at, int(std::min(kMessage, bytes - at)), MPI_BYTE, dest, kBytesTag, comm_of(ctx));
}

void receive_bytes(const Context& ctx, void* data, size_t bytes, int source) {
  auto* p = static_cast<char*>(data);
  for (size_t at = 0; at < bytes; at += kMessage)
    MPI_Recv(p + at, int(std::min(kMessage, bytes - at)), MPI_BYTE, source, kBytesTag, comm_of(ctx), MPI_STATUS_IGNORE);
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
