// Reverse mode against forward mode: every operation, and whole expressions, give the same
// derivatives; the tape stays flat and is reusable.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <type_traits>
#include <vector>

#include "ad/dual.h"
#include "ad/var.h"
#include "renderer/core/vec.h"

using dray::ad::Dual;
using dray::ad::Tape;
using dray::ad::Var;

namespace {

// The gradient of f at x by reverse mode (one sweep) and by forward mode (one tangent each).
template <int N>
void compare(const char* name, const std::function<Var(const std::vector<Var>&)>& fr,
             const std::function<Dual<N>(const std::vector<Dual<N>>&)>& ff, const std::vector<float>& x) {
  INFO(name);
  Tape& tape = Tape::local();
  tape.clear();
  std::vector<Var> xr;
  for (size_t k = 0; k < x.size(); ++k) xr.push_back(Var(x[k], int(k)));
  Var y = fr(xr);
  std::vector<double> grad(x.size(), 0.0);
  tape.begin_adjoints();
  tape.seed(y.i, 1.f);
  REQUIRE(tape.backward(grad));
  std::vector<Dual<N>> xf;
  for (size_t k = 0; k < x.size(); ++k) xf.push_back(Dual<N>(x[k], int(k)));
  Dual<N> yf = ff(xf);
  CHECK(y.v == yf.v);  // the same float operations
  for (size_t k = 0; k < x.size(); ++k) CHECK(grad[k] == Approx(yf.d[k]).epsilon(1e-5).margin(1e-7));
}

}  // namespace

#define BOTH(expr) [](const auto& x) { using namespace dray::ad; return expr; }
#define CHECK_OP(name, expr, ...)                                                                  \
  compare<2>(name, std::function<Var(const std::vector<Var>&)>(BOTH(expr)),                        \
             std::function<Dual<2>(const std::vector<Dual<2>>&)>(BOTH(expr)), __VA_ARGS__)

TEST_CASE("Var: every operation against Dual", "[var]") {
  for (std::vector<float> x : {std::vector<float>{0.7f, 1.9f}, std::vector<float>{2.5f, 0.3f}}) {
    CHECK_OP("a + b", x[0] + x[1], x);
    CHECK_OP("a - b", x[0] - x[1], x);
    CHECK_OP("-a", -x[0], x);
    CHECK_OP("a * b", x[0] * x[1], x);
    CHECK_OP("a / b", x[0] / x[1], x);
    CHECK_OP("a * a", x[0] * x[0], x);
    CHECK_OP("a += b", [&] { auto r = x[0]; r += x[1]; return r; }(), x);
    CHECK_OP("a -= b", [&] { auto r = x[0]; r -= x[1]; return r; }(), x);
    CHECK_OP("a *= b", [&] { auto r = x[0]; r *= x[1]; return r; }(), x);
    CHECK_OP("a /= b", [&] { auto r = x[0]; r /= x[1]; return r; }(), x);
    CHECK_OP("sqrt", sqrt(x[0] * x[1]), x);
    CHECK_OP("sin", sin(x[0]) * x[1], x);
    CHECK_OP("cos", cos(x[0] * x[1]), x);
    CHECK_OP("tan", tan(x[0] - x[1]), x);
    CHECK_OP("exp", exp(x[0] - x[1]), x);
    CHECK_OP("log", log(x[0] * x[1]), x);
    CHECK_OP("abs", abs(x[0] - x[1]), x);
    CHECK_OP("min", min(x[0], x[1]) * x[0], x);
    CHECK_OP("max", max(x[0], x[1]) * x[1], x);
    CHECK_OP("with constants", (x[0] * 3.f + 1.f) / (2.f - x[1]), x);
    CHECK_OP("a long expression", sqrt(x[0] * x[0] + x[1] * x[1]) / (cos(x[0]) + 2.f) - exp(x[1] / x[0]) * abs(x[0] - 2.f), x);
  }
}

// The vector operations that reverse mode records as one statement per result (renderer/core/vec.h):
// the same values as the per-operation code (what Dual runs), the same derivatives.
#define CHECK_VEC(name, expr, ...)                                                                 \
  compare<6>(name, std::function<Var(const std::vector<Var>&)>(BOTH_VEC(expr)),                    \
             std::function<Dual<6>(const std::vector<Dual<6>>&)>(BOTH_VEC(expr)), __VA_ARGS__)
#define BOTH_VEC(expr)                                                                             \
  [](const auto& x) {                                                                              \
    using namespace dray;                                                                          \
    using S = std::decay_t<decltype(x[0])>;                                                        \
    const Vec3<S> a(x[0], x[1], x[2]), b(x[3], x[4], x[5]), c(x[0], S(2.f), x[5]);                 \
    return expr;                                                                                   \
  }

TEST_CASE("Var: fused vector operations against Dual", "[var]") {
  for (std::vector<float> x : {std::vector<float>{0.7f, 1.9f, -0.4f, 2.5f, 0.3f, -1.1f},
                               std::vector<float>{-3.f, 0.2f, 1.5f, 0.f, 4.f, 0.6f}}) {
    CHECK_VEC("dot", dot(a, b), x);
    CHECK_VEC("dot with itself", dot(a, a), x);
    CHECK_VEC("dot with constants", dot(c, b), x);
    CHECK_VEC("cross", cross(a, b).x + cross(a, b).y * S(2.f) - cross(a, c).z, x);
    CHECK_VEC("normalize", normalize(a).x + normalize(b).y * S(3.f) + normalize(c).z, x);
    CHECK_VEC("length", length(a - b), x);
  }
}

TEST_CASE("Var: constants record nothing; inputs reach their gradient entries", "[var]") {
  Tape& tape = Tape::local();
  tape.clear();
  Var c(2.f), d(3.f);
  Var e = c * d + c;  // all constant
  CHECK(e.i == -1);
  CHECK(tape.statements() == 0);
  Var x(1.5f, 4);  // gradient entry 4
  Var y = x * c + d;  // two statements
  CHECK(tape.statements() == 3);
  // The same input read twice sums into one entry.
  Var x2(1.5f, 4);
  Var z = y * x2;  // z = (2x + 3) x: dz/dx = 4x + 3 = 9
  std::vector<double> grad(5, 0.0);
  tape.begin_adjoints();
  tape.seed(z.i, 1.f);
  REQUIRE(tape.backward(grad, 0.5));
  CHECK(grad[4] == Approx(0.5 * 9.0));
  CHECK(grad[0] == 0.0);
  // Entries of 8 bytes, ends of 4: the tape grows with operations, not with heap nodes.
  CHECK(tape.bytes() <= tape.statements() * 4 + 2 * 8 * tape.statements() + 2 * 8);
  tape.clear();
  CHECK(tape.statements() == 0);
}

TEST_CASE("Var: a non-finite adjoint reaches no gradient", "[var]") {
  Tape& tape = Tape::local();
  tape.clear();
  Var x(0.f, 0);
  Var y = dray::ad::sqrt(x) + dray::ad::log(x);  // d log(x) / dx = inf at 0
  std::vector<double> grad(1, 7.0);
  tape.begin_adjoints();
  tape.seed(y.i, 1.f);
  CHECK_FALSE(tape.backward(grad));
  CHECK(grad[0] == 7.0);
}
