#pragma once
// The "large steps" smoothing system of a mesh (Nicolet, Jacobson and Jakob 2021, "Large Steps in
// Inverse Rendering of Geometry"): M = I + λ L, with L the combinatorial graph Laplacian of the
// mesh's edges (a vertex's degree on the diagonal, -1 per neighbour). Gradients of vertex
// positions taken through M⁻¹ are smooth over the surface, so a step moves whole regions instead
// of single vertices. The same system over a texture's texels (4-neighbours) or a medium grid's
// voxels (6-neighbours) smooths their steps. M is symmetric positive definite: conjugate gradients
// solve it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace dray {

class SmoothingSystem {
 public:
  // `edges`: vertex pairs (each pair once; repeats are merged); lambda >= 0.
  SmoothingSystem(size_t vertices, std::span<const std::pair<uint32_t, uint32_t>> edges, double lambda);

  size_t vertices() const { return degree_.size(); }
  // y = M x for V×C values (row-major: vertex by vertex, its C columns; C = x.size() / V).
  std::vector<double> multiply(std::span<const double> x) const;
  // x with M x = b (V×C), by conjugate gradients per column with the diagonal as
  // preconditioner, to a relative residual of 1e-12 (deterministic: a fixed order of operations).
  std::vector<double> solve(std::span<const double> b) const;

 private:
  void apply(const std::vector<double>& in, std::vector<double>& out) const;  // one column
  double lambda_;
  std::vector<double> degree_;
  std::vector<uint32_t> first_, neighbours_;  // adjacency (CSR): neighbours_[first_[v] .. first_[v + 1])
};

}  // namespace dray
