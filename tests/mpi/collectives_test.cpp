// Each differentiable collective, checked by a gradient check of a small distributed function
// on 1, 2 and 3 ranks: reverse mode through the adjoint collective, forward mode with the
// tangent through the collective itself, and a central finite difference.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "mpi/collectives.h"
#include "mpi/errors.h"

using namespace dray;
extern mpi::Context* g_ctx;

namespace {

// Central differences of a collective function of root's inputs, on every rank.
std::vector<double> finite_difference(const std::function<double(std::vector<double>)>& L, std::vector<double> x) {
  std::vector<double> g(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    const double h = 1e-6 * std::max(1.0, std::fabs(x[k]));
    std::vector<double> p = x, m = x;
    p[k] += h;
    m[k] -= h;
    g[k] = (L(p) - L(m)) / (2 * h);
  }
  return g;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

}  // namespace

TEST_CASE("broadcast: adjoint reduce_sum, tangent broadcast, against finite differences", "[mpi][collectives]") {
  const mpi::Context& ctx = *g_ctx;
  const double r = ctx.rank();
  // Root's x is broadcast; rank r computes f_r(y) = (r + 1) y0^2 + (r + 2) y0 y1; L = sum over ranks.
  auto f = [&](const std::vector<double>& y) { return (r + 1) * y[0] * y[0] + (r + 2) * y[0] * y[1]; };
  auto L = [&](std::vector<double> x) {
    mpi::broadcast(ctx, x);
    std::vector<double> l{f(x)};
    mpi::allreduce_sum(ctx, l);
    return l[0];
  };
  std::vector<double> x = {ctx.is_root() ? 0.7 : -99.0, ctx.is_root() ? -1.3 : -99.0};
  // Reverse: local adjoints of y, summed to root by the adjoint of broadcast.
  std::vector<double> y = x;
  mpi::broadcast(ctx, y);
  std::vector<double> adj = {2 * (r + 1) * y[0] + (r + 2) * y[1], (r + 2) * y[0]};
  mpi::broadcast_adjoint(ctx, adj);
  // Forward: a tangent on root, broadcast with the values.
  std::vector<double> tangent = {ctx.is_root() ? 1.0 : 0.0, ctx.is_root() ? 2.0 : 0.0};
  mpi::broadcast(ctx, tangent);
  std::vector<double> Ldot = {(2 * (r + 1) * y[0] + (r + 2) * y[1]) * tangent[0] + (r + 2) * y[0] * tangent[1]};
  mpi::allreduce_sum(ctx, Ldot);
  std::vector<double> fd = finite_difference(L, x);
  bool ok = true;
  if (ctx.is_root()) ok = close(adj[0], fd[0]) && close(adj[1], fd[1]) && close(Ldot[0], fd[0] * 1 + fd[1] * 2);
  REQUIRE(mpi::all_ranks(ctx, ok));
}

TEST_CASE("gather: adjoint scatter, against finite differences", "[mpi][collectives]") {
  const mpi::Context& ctx = *g_ctx;
  // Rank r owns x_r (2 values); root gathers z and computes L = sum_i (i + 1) z_i^2.
  std::vector<double> x = {0.5 + ctx.rank(), -0.25 * ctx.rank() - 1};
  auto L_of_z = [](const std::vector<double>& z) {
    double l = 0;
    for (size_t i = 0; i < z.size(); ++i) l += double(i + 1) * z[i] * z[i];
    return l;
  };
  std::vector<double> z = mpi::gather(ctx, x);
  std::vector<double> zbar(z.size());
  for (size_t i = 0; i < z.size(); ++i) zbar[i] = 2.0 * double(i + 1) * z[i];
  std::vector<double> xbar = mpi::gather_adjoint(ctx, zbar, 2);  // scatter
  // Finite differences of L in each rank's own inputs, one rank at a time.
  bool ok = true;
  for (int owner = 0; owner < ctx.size(); ++owner)
    for (int k = 0; k < 2; ++k) {
      const double h = 1e-6;
      auto L_shift = [&](double d) {
        std::vector<double> xs = x;
        if (ctx.rank() == owner) xs[size_t(k)] += d;
        std::vector<double> zs = mpi::gather(ctx, xs);
        std::vector<double> l{ctx.is_root() ? L_of_z(zs) : 0.0};
        mpi::broadcast(ctx, l);
        return l[0];
      };
      double fd = (L_shift(h) - L_shift(-h)) / (2 * h);
      if (ctx.rank() == owner) ok = ok && close(xbar[size_t(k)], fd);
    }
  REQUIRE(mpi::all_ranks(ctx, ok));
}

TEST_CASE("allreduce_sum: adjoint allreduce_sum, tangent through the sum", "[mpi][collectives]") {
  const mpi::Context& ctx = *g_ctx;
  // s = sum_r x_r; every rank computes g_r(s) = (r + 1) s0 s1; L = sum_r g_r(s).
  std::vector<double> x = {1.0 + 0.5 * ctx.rank(), 2.0 - ctx.rank()};
  std::vector<double> s = x;
  mpi::allreduce_sum(ctx, s);
  const double w = ctx.rank() + 1.0;
  std::vector<double> sbar = {w * s[1], w * s[0]};
  mpi::allreduce_sum_adjoint(ctx, sbar);  // = d L / d x_r on every rank
  const double n = ctx.size(), c = n * (n + 1) / 2;  // sum of the weights
  bool ok = close(sbar[0], c * s[1]) && close(sbar[1], c * s[0]);
  // Forward: each rank's tangent (1, 0) travels through the sum: s' = (n, 0), L' = c s1 n.
  std::vector<double> t = {1.0, 0.0};
  mpi::allreduce_sum(ctx, t);
  std::vector<double> Ldot = {w * (t[0] * s[1] + s[0] * t[1])};
  mpi::allreduce_sum(ctx, Ldot);
  ok = ok && close(Ldot[0], c * s[1] * n);
  REQUIRE(mpi::all_ranks(ctx, ok));
}

TEST_CASE("fixed-point sums over ranks equal the one-process sum bit for bit", "[mpi][collectives]") {
  // 1000 addends per array entry of widely different magnitudes, spread over the ranks by index.
  auto addend = [](int i, int k) { return std::ldexp(std::sin(0.37 * i + k), (i * 7 + k) % 50 - 30); };
  std::vector<ad::FixedSum> mine(3), mine_all(3), one(3);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 1000; ++i) {
      one[size_t(k)].add(addend(i, k));
      if (i % g_ctx->size() == g_ctx->rank()) {
        mine[size_t(k)].add(addend(i, k));
        mine_all[size_t(k)].add(addend(i, k));
      }
    }
  mpi::reduce_sum(*g_ctx, std::span<ad::FixedSum>(mine));
  mpi::allreduce_sum(*g_ctx, std::span<ad::FixedSum>(mine_all));
  bool ok = true;
  for (int k = 0; k < 3; ++k) {
    ok = ok && mine_all[size_t(k)].bits == one[size_t(k)].bits;
    if (g_ctx->is_root()) ok = ok && mine[size_t(k)].bits == one[size_t(k)].bits;
  }
  REQUIRE(mpi::all_ranks(*g_ctx, ok));
}
