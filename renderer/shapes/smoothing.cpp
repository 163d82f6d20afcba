#include "renderer/shapes/smoothing.h"

#include <algorithm>
#include <cmath>

namespace dray {

SmoothingSystem::SmoothingSystem(size_t vertices, std::span<const std::pair<uint32_t, uint32_t>> edges, double lambda)
    : lambda_(lambda), degree_(vertices, 0.0), first_(vertices + 1, 0) {
  std::vector<std::pair<uint32_t, uint32_t>> both;
  both.reserve(2 * edges.size());
  for (auto [a, b] : edges)
    if (a != b) both.insert(both.end(), {{a, b}, {b, a}});
  std::sort(both.begin(), both.end());
  both.erase(std::unique(both.begin(), both.end()), both.end());
  for (auto [a, b] : both) ++first_[a + 1];
  for (size_t v = 0; v < vertices; ++v) {
    degree_[v] = double(first_[v + 1]);
    first_[v + 1] += first_[v];
  }
  neighbours_.reserve(both.size());
  for (auto [a, b] : both) neighbours_.push_back(b);
}

void SmoothingSystem::apply(const std::vector<double>& in, std::vector<double>& out) const {
  for (size_t v = 0; v < vertices(); ++v) {
    double lx = degree_[v] * in[v];
    for (uint32_t k = first_[v]; k < first_[v + 1]; ++k) lx -= in[neighbours_[k]];
    out[v] = in[v] + lambda_ * lx;
  }
}

std::vector<double> SmoothingSystem::multiply(std::span<const double> x) const {
  const size_t n = vertices(), cols = x.size() / n;
  std::vector<double> y(x.size()), in(n), out(n);
  for (size_t c = 0; c < cols; ++c) {
    for (size_t v = 0; v < n; ++v) in[v] = x[cols * v + c];
    apply(in, out);
    for (size_t v = 0; v < n; ++v) y[cols * v + c] = out[v];
  }
  return y;
}

std::vector<double> SmoothingSystem::solve(std::span<const double> b) const {
  const size_t n = vertices(), cols = b.size() / n;
  std::vector<double> x(b.size(), 0.0);
  std::vector<double> r(n), z(n), p(n), q(n);
  for (size_t c = 0; c < cols; ++c) {
    double bb = 0;
    for (size_t v = 0; v < n; ++v) {
      r[v] = b[cols * v + c];
      bb += r[v] * r[v];
    }
    if (bb == 0) continue;
    double rz = 0;
    for (size_t v = 0; v < n; ++v) {
      z[v] = r[v] / (1 + lambda_ * degree_[v]);
      p[v] = z[v];
      rz += r[v] * z[v];
    }
    std::vector<double> xc(n, 0.0);
    for (size_t it = 0; it < 10 * n + 100; ++it) {
      apply(p, q);
      double pq = 0;
      for (size_t v = 0; v < n; ++v) pq += p[v] * q[v];
      const double alpha = rz / pq;
      double rr = 0;
      for (size_t v = 0; v < n; ++v) {
        xc[v] += alpha * p[v];
        r[v] -= alpha * q[v];
        rr += r[v] * r[v];
      }
      if (rr <= 1e-24 * bb) break;
      double rz_next = 0;
      for (size_t v = 0; v < n; ++v) {
        z[v] = r[v] / (1 + lambda_ * degree_[v]);
        rz_next += r[v] * z[v];
      }
      const double beta = rz_next / rz;
      rz = rz_next;
      for (size_t v = 0; v < n; ++v) p[v] = z[v] + beta * p[v];
    }
    for (size_t v = 0; v < n; ++v) x[cols * v + c] = xc[v];
  }
  return x;
}

}  // namespace dray
