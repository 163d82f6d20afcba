#pragma once
// The optimizer's state sharded over ranks (ZeRO stage 2, Rajbhandari et al. 2020): each rank
// owns a contiguous 1/N of every block (rank r the elements [size r/N, size (r+1)/N)), and holds
// Adam's moments and the double-precision gradient of those alone. A large-steps block is rank
// 0's whole: its preconditioner solves over the block. Values stay replicated (the scene's table).
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "mpi/context.h"
#include "mpi/gradient.h"
#include "tools/optimize_job.h"

namespace dray::cli {

// Block `block`'s elements that rank `rank` of `ranks` owns: [begin, end) within the block.
struct Piece {
  size_t block = 0, begin = 0, end = 0;
  size_t first = 0;  // its offset in the rank's shard arrays (State::m, v, seen; the gradient)
  size_t size() const { return end - begin; }
};
Piece owned_piece(const Job& job, size_t block, int rank, int ranks);

struct Shard {
  int rank = 0, ranks = 1;
  std::vector<Piece> pieces;  // this rank's, one per block, in the blocks' order
  size_t size = 0;            // this rank's elements
  // Every rank's pieces as the gradient pass's owners (block by block, rank by rank).
  std::vector<mpi::GradientSegment> segments;
};
Shard make_shard(const Job& job, int rank, int ranks);

// The bytes a rank holds for the blocks' n scalars on `ranks` ranks: the values, the pass's slot
// list, seed table and exact sums on every rank (4 + 4 + 4 + 16), the gradient in doubles, Adam's
// moments and `seen` divided (8 + 16 + 1).
double block_bytes_per_rank(size_t scalars, int ranks);
// Refuses (LoadError naming the job's /params), before the first pass, a job whose blocks would
// not fit the memory available to each rank (mpi::Context::available_bytes_per_rank: 80% of it,
// as images), naming the bytes per rank it needs and the rank count that would fit.
void check_block_memory(const mpi::Context& ctx, const Job& job);

// Collective: the squared norm of the finite entries of every rank's shard of the gradient,
// summed exactly (the same bits for any rank count); beyond the fixed point's range, in doubles.
double gradient_norm2(const mpi::Context& ctx, std::span<const double> gradient);

// Collective: rank r's new values of its pieces (`values`, in its shard's order) written into the
// scene's table on every rank (one allgather per block).
void allgather_values(const mpi::Context& ctx, const Job& job, const Shard& shard, std::span<const double> values,
                      ParamTable& params);

// Collective: each block's elements of a shard array (`data`: `element` bytes a scalar, in the
// shard's order) brought to rank 0 in order, block by block, rank by rank: `take(block, bytes,
// size)` on rank 0 for every piece (in pieces of at most 2^22 elements). `take` may fail (throw)
// on rank 0: the other ranks' pieces are still received (nothing hangs), and the first error
// is thrown after all arrived.
using TakeBytes = std::function<void(size_t block, const void* bytes, size_t size)>;
void stream_to_root(const mpi::Context& ctx, const Job& job, const Shard& shard, const void* data, size_t element,
                    const TakeBytes& take);

// The state arrays moved from shard `from` to `to` (after an upsampling): a block of the same
// size keeps its moments and `seen`, a resized block's restart at 0.
void reshard_state(const Shard& from, const std::vector<size_t>& from_sizes, const Shard& to, const Job& job, State& state);

}  // namespace dray::cli
