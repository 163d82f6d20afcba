#include "tools/job_shard.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "mpi/collectives.h"
#include "renderer/core/load_error.h"

namespace dray::cli {

namespace {

bool whole_on_root(const Job& job, size_t block) {
  return std::any_of(job.large_steps.begin(), job.large_steps.end(), [&](const LargeSteps& l) { return l.block == int(block); });
}

}  // namespace

Piece owned_piece(const Job& job, size_t block, int rank, int ranks) {
  const size_t n = job.blocks[block].size;
  if (whole_on_root(job, block)) return {block, rank == 0 ? 0 : n, rank == 0 ? n : n, 0};
  return {block, n * size_t(rank) / size_t(ranks), n * size_t(rank + 1) / size_t(ranks), 0};
}

Shard make_shard(const Job& job, int rank, int ranks) {
  Shard s;
  s.rank = rank;
  s.ranks = ranks;
  for (size_t b = 0; b < job.blocks.size(); ++b) {
    Piece p = owned_piece(job, b, rank, ranks);
    p.first = s.size;
    s.size += p.size();
    s.pieces.push_back(p);
    for (int r = 0; r < ranks; ++r) {
      const Piece q = owned_piece(job, b, r, ranks);
      s.segments.push_back({job.blocks[b].first + q.begin, job.blocks[b].first + q.end, r});
    }
  }
  return s;
}

double block_bytes_per_rank(size_t scalars, int ranks) { return double(scalars) * (24.0 + 25.0 / std::max(1, ranks)); }

namespace {

// "1.25 GiB", or MiB below a tenth of a GiB.
std::string bytes_text(double bytes) {
  char text[32];
  if (bytes >= 0.1 * 1024 * 1024 * 1024) std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  else std::snprintf(text, sizeof text, "%.2f MiB", bytes / (1024.0 * 1024));
  return text;
}

}  // namespace

void check_block_memory(const mpi::Context& ctx, const Job& job) {
  const double n = double(job.scalar_count());
  const double need = block_bytes_per_rank(job.scalar_count(), ctx.size()), room = 0.8 * ctx.available_bytes_per_rank();
  if (need <= room) return;
  std::string msg = job.file + ": /params: the job's " + std::to_string(job.scalar_count()) + " scalars need " + bytes_text(need) +
                    " per rank on " + std::to_string(ctx.size()) + (ctx.size() == 1 ? " rank" : " ranks") +
                    " (24 B a scalar on every rank, 25 B divided over the ranks), but " + bytes_text(room / 0.8) +
                    " is available per rank (" + std::to_string(ctx.ranks_on_node()) + " on this node); ";
  const int per_node = ctx.ranks_on_node();
  const std::string a_node = std::to_string(per_node) + (per_node == 1 ? " rank a node" : " ranks a node");
  if (24.0 * n < room)
    msg += "it fits on " + std::to_string(long(std::ceil(25.0 * n / (room - 24.0 * n)))) + " ranks with " + a_node;
  else
    msg += "no rank count fits with " + a_node + " (the 24 B a scalar every rank holds need " + bytes_text(24.0 * n) + "): " +
           (per_node > 1 ? "run fewer ranks a node, " : "") + "use nodes with more memory, or optimise fewer scalars";
  throw LoadError(msg);
}

double gradient_norm2(const mpi::Context& ctx, std::span<const double> gradient) {
  ad::FixedSum exact[2];  // the sum, and a count of the squares it could not hold
  double rough = 0;
  for (double x : gradient)
    if (std::isfinite(x)) {
      rough += x * x;
      if (!exact[0].add(x * x)) exact[1].add(1.0);
    }
  mpi::allreduce_sum(ctx, std::span<ad::FixedSum>(exact, 2));
  if (exact[1].value() == 0) return exact[0].value();
  mpi::allreduce_sum(ctx, std::span<double>(&rough, 1));
  return rough;
}

void allgather_values(const mpi::Context& ctx, const Job& job, const Shard& shard, std::span<const double> values,
                      ParamTable& params) {
  for (const Piece& p : shard.pieces)
    for (size_t i = 0; i < p.size(); ++i) params.set(job.blocks[p.block].slot + Slot(p.begin + i), float(values[p.first + i]));
  if (shard.ranks == 1) return;
  std::vector<int> counts(size_t(shard.ranks));
  for (size_t b = 0; b < job.blocks.size(); ++b) {
    for (int r = 0; r < shard.ranks; ++r) counts[size_t(r)] = int(owned_piece(job, b, r, shard.ranks).size());
    mpi::allgather_pieces(ctx, params.values_of(job.blocks[b].slot, job.blocks[b].size), counts);
  }
}

void stream_to_root(const mpi::Context& ctx, const Job& job, const Shard& shard, const void* data, size_t element,
                    const TakeBytes& take) {
  constexpr size_t kPiece = size_t(1) << 22;
  const auto* bytes = static_cast<const char*>(data);
  std::exception_ptr failed;
  auto take_safely = [&](size_t b, const void* p, size_t n) {
    if (failed) return;
    try {
      take(b, p, n);
    } catch (...) {
      failed = std::current_exception();
    }
  };
  std::vector<char> buffer;
  for (size_t b = 0; b < job.blocks.size(); ++b)
    for (int r = 0; r < shard.ranks; ++r) {
      const size_t n = owned_piece(job, b, r, shard.ranks).size();
      if (r == 0 && ctx.is_root()) {
        take_safely(b, bytes + shard.pieces[b].first * element, n);
        continue;
      }
      for (size_t at = 0; at < n; at += kPiece) {
        const size_t count = std::min(kPiece, n - at);
        if (ctx.rank() == r) mpi::send_bytes(ctx, bytes + (shard.pieces[b].first + at) * element, count * element, 0);
        if (ctx.is_root()) {
          buffer.resize(count * element);
          mpi::receive_bytes(ctx, buffer.data(), buffer.size(), r);
          take_safely(b, buffer.data(), count);
        }
      }
    }
  if (failed) std::rethrow_exception(failed);
}

void reshard_state(const Shard& from, const std::vector<size_t>& from_sizes, const Shard& to, const Job& job, State& state) {
  State next;
  next.iteration = state.iteration;
  next.m.assign(to.size, 0.0);
  next.v.assign(to.size, 0.0);
  next.seen.assign(to.size, 0);
  for (size_t b = 0; b < job.blocks.size(); ++b) {
    if (b >= from_sizes.size() || from_sizes[b] != job.blocks[b].size) continue;  // resized: restarts
    const Piece& a = from.pieces[b];
    const Piece& c = to.pieces[b];
    std::copy_n(state.m.begin() + long(a.first), a.size(), next.m.begin() + long(c.first));
    std::copy_n(state.v.begin() + long(a.first), a.size(), next.v.begin() + long(c.first));
    std::copy_n(state.seen.begin() + long(a.first), a.size(), next.seen.begin() + long(c.first));
  }
  state = std::move(next);
}

}  // namespace dray::cli
