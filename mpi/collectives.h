#pragma once
// Small generic collectives.
#include <span>
#include <string>
#include <vector>

#include "ad/fixed_sum.h"
#include "mpi/context.h"

namespace dray::mpi {

// Collective. Every rank's bytes, in rank order, on rank 0 (other ranks get an empty vector).
std::vector<std::string> gather_strings(const Context& ctx, const std::string& mine);

// Differentiable collectives on arrays of doubles. Each is linear, so forward mode sends the
// tangents through the same collective as the values, and each has an adjoint for reverse mode:
//
//   forward                         adjoint (reverse)
//   broadcast from root        <->  reduce_sum to root
//   gather to root             <->  scatter from root
//   allreduce_sum              <->  allreduce_sum
//
// Every rank passes arrays of the same length (gather: `mine` of the same length everywhere).

// In place: root's values on every rank.
void broadcast(const Context& ctx, std::span<double> values, int root = 0);
// In place on root: the sum over ranks (other ranks' arrays are left as they were).
void reduce_sum(const Context& ctx, std::span<double> values, int root = 0);
// In place: the sum over ranks, on every rank.
void allreduce_sum(const Context& ctx, std::span<double> values);
// Every rank's `mine`, concatenated in rank order on root (empty elsewhere).
std::vector<double> gather(const Context& ctx, std::span<const double> mine, int root = 0);
// Root's `all` cut into size() equal pieces, piece r to rank r.
std::vector<double> scatter(const Context& ctx, std::span<const double> all, size_t piece, int root = 0);

// Exact sums of fixed-point accumulators (integer addition: the same bits for any rank count).
void reduce_sum(const Context& ctx, std::span<ad::FixedSum> values, int root = 0);
void allreduce_sum(const Context& ctx, std::span<ad::FixedSum> values);
// In place on `root`: the exact sum over ranks of `values`, in pieces of at most 2^20 sums (MPI's
// own buffers for a reduction are the message's size: a million-texel gradient's 16 MB, not 16 B
// a scalar).
void reduce_sum_chunked(const Context& ctx, std::span<ad::FixedSum> values, int root);

// In place: rank r's piece of `all` (counts[r] values, after those of the ranks before it) on
// every rank.
void allgather_pieces(const Context& ctx, std::span<float> all, std::span<const int> counts);
// Point to point, in order between a pair of ranks: `bytes` from this rank to `dest`, received
// by `source` into `data`.
void send_bytes(const Context& ctx, const void* data, size_t bytes, int dest);
void receive_bytes(const Context& ctx, void* data, size_t bytes, int source);

// The adjoints: given the adjoint of a collective's output, the adjoint of its input.
inline void broadcast_adjoint(const Context& ctx, std::span<double> adjoint, int root = 0) { reduce_sum(ctx, adjoint, root); }
inline void reduce_sum_adjoint(const Context& ctx, std::span<double> adjoint, int root = 0) { broadcast(ctx, adjoint, root); }
inline void allreduce_sum_adjoint(const Context& ctx, std::span<double> adjoint) { allreduce_sum(ctx, adjoint); }
inline std::vector<double> gather_adjoint(const Context& ctx, std::span<const double> adjoint, size_t piece, int root = 0) {
  return scatter(ctx, adjoint, piece, root);
}
inline std::vector<double> scatter_adjoint(const Context& ctx, std::span<const double> adjoint, int root = 0) {
  return gather(ctx, adjoint, root);
}

}  // namespace dray::mpi
