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
    // A path's radiance and throughput updates: one statement per component, the values of
    // ((a b) c) d in float, the derivatives of the products.
    CHECK_VEC("add_product", add_product(a, b, x[2], c, x[4]).x + add_product(c, a, b, x[0], a).y * S(2.f), x);
    CHECK_VEC("add_product of constants", add_product(c, S(3.f), b, c, S(0.5f)).z, x);
    CHECK_VEC("scale_product", scale_product(a, b, x[1], c).y - scale_product(b, x[3], a, b).z, x);
  }
}

TEST_CASE("Var: a path update is one statement a component; a constant factor 1 records nothing", "[var]") {
  using dray::Vec3;
  Tape& tape = Tape::local();
  tape.clear();
  const Vec3<Var> L(Var(0.1f, 0), Var(0.2f, 1), Var(0.3f, 2)), beta(Var(0.5f, 3), Var(0.6f, 4), Var(0.7f, 5));
  const size_t inputs = tape.statements();
  const Vec3<Var> f(0.9f, 0.8f, 0.7f);
  const Vec3<Var> r = dray::add_product(L, beta, Var(2.f), f, Var(0.25f));
  CHECK(tape.statements() == inputs + 3);
  for (int c = 0; c < 3; ++c) CHECK(r[c].v == L[c].v + beta[c].v * 2.f * f[c].v * 0.25f);
  const Vec3<Var> same = beta * Var(1.f);
  CHECK(tape.statements() == inputs + 3);
  CHECK((same.x.i == beta.x.i && same.z.i == beta.z.i));
  CHECK((Var(1.f) * beta.y).i == beta.y.i);
  CHECK((beta.y * Var(1.5f)).i != beta.y.i);
  tape.clear();
}

TEST_CASE("Var: a parameter read twice on one tape is one input, its adjoint handed on once", "[var]") {
  Tape& tape = Tape::local();
  tape.clear();
  Var a(2.f, 7), b(3.f, 9);
  Var a_again(2.f, 7);
  CHECK(a_again.i == a.i);
  Var y = a * b + a_again * a_again;  // dy/da = b + 2a = 7, dy/db = a = 2
  tape.begin_adjoints();
  tape.seed(y.i, 1.f);
  std::vector<std::pair<int, float>> handed;
  REQUIRE(tape.backward_to([&](int g, float adj) { handed.push_back({g, adj}); }));
  REQUIRE(handed.size() == 2);
  CHECK(handed[0] == std::pair<int, float>(7, 7.f));
  CHECK(handed[1] == std::pair<int, float>(9, 2.f));
  // After clear() the same index is a new input; many distinct inputs (past the memo's 64
  // entries) still reach their entries, each once per read where the memo is full.
  tape.clear();
  Var a3(2.f, 7);
  CHECK(a3.i == 0);
  std::vector<Var> many;
  for (int k = 0; k < 200; ++k) many.push_back(Var(float(k), 100 + k));
  Var sum = a3;
  for (int rep = 0; rep < 2; ++rep)
    for (int k = 0; k < 200; ++k) sum = sum + Var(float(k), 100 + k) * many[size_t(k)];
  std::vector<double> grad(300, 0.0);
  tape.begin_adjoints();
  tape.seed(sum.i, 1.f);
  REQUIRE(tape.backward(grad));
  CHECK(grad[7] == 1.0);
  for (int k = 0; k < 200; ++k) CHECK(grad[size_t(100 + k)] == Approx(4.0 * k));  // d(2 x^2)/dx
  tape.clear();
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

TEST_CASE("Var: four parameters read with constant weights are one statement, read again the same", "[var]") {
  using dray::ad::weighted_lift;
  Tape& tape = Tape::local();
  tape.clear();
  const float v[4] = {0.2f, 0.7f, 1.3f, 0.4f}, w[4] = {0.1f, 0.3f, 0.15f, 0.45f};
  const int seeds[4] = {5, 6, -1, 8};  // the third a constant
  const Var t = weighted_lift<Var>(v, seeds, w);
  CHECK(tape.statements() == 1);
  CHECK(t.v == dray::ad::weighted_sum(v, w));  // the float kernel's value, bit for bit
  CHECK(weighted_lift<Var>(v, seeds, w).i == t.i);  // read again: the same statement
  const float w2[4] = {0.25f, 0.25f, 0.25f, 0.25f};
  const Var u = weighted_lift<Var>(v, seeds, w2);  // other weights: a statement of its own
  CHECK(u.i != t.i);
  const int none[4] = {-1, -1, -1, -1};
  CHECK(weighted_lift<Var>(v, none, w).i == -1);  // nothing seeded: a constant
  // y = t^2 + u t + t: dy/dx_k = (2t + u + 1) w_k + t w2_k, against forward mode.
  const Var t_again = weighted_lift<Var>(v, seeds, w);
  const Var y = t * t_again + u * t + t_again;
  tape.begin_adjoints();
  tape.seed(y.i, 1.f);
  std::vector<double> grad(9, 0.0);
  std::vector<int> handed;
  REQUIRE(tape.backward_to([&](int g, float adj) {
    handed.push_back(g);
    grad[size_t(g)] += adj;
  }));
  CHECK(handed == std::vector<int>{5, 6, 8, 5, 6, 8});  // once per statement, the constant left out
  using D = Dual<4>;
  const int tangents[4] = {0, 1, -1, 3};
  const D tf = weighted_lift<D>(v, tangents, w), uf = weighted_lift<D>(v, tangents, w2);
  const D yf = tf * tf + uf * tf + tf;
  CHECK(y.v == yf.v);
  for (int k : {0, 1, 3}) CHECK(grad[size_t(seeds[k])] == Approx(yf.d[k]).epsilon(1e-6));
  CHECK(grad[7] == 0.0);
  tape.clear();
  CHECK(weighted_lift<Var>(v, seeds, w).i == 0);  // after clear(): a new statement
  tape.clear();
}

TEST_CASE("Var: a colour read at once shares the memo of single reads; carried state is a fresh input", "[var]") {
  using dray::ad::lift3;
  Tape& tape = Tape::local();
  tape.clear();
  const float v[3] = {0.25f, 0.5f, 0.75f};
  const int seeds[3] = {11, -1, 13};  // the green channel a constant
  Var c[3];
  lift3<Var>(v, seeds, c);
  CHECK(tape.statements() == 2);
  CHECK(c[1].i == -1);
  for (int k = 0; k < 3; ++k) CHECK(c[k].v == v[k]);
  // A single read of the same parameter is the same input, and so is the colour read again.
  CHECK(Var(0.25f, 11).i == c[0].i);
  Var again[3];
  lift3<Var>(v, seeds, again);
  CHECK((again[0].i == c[0].i && again[2].i == c[2].i));
  const int none[3] = {-1, -1, -1};
  Var constant[3];
  lift3<Var>(v, none, constant);
  CHECK((constant[0].i == -1 && constant[1].i == -1 && constant[2].i == -1));
  CHECK(tape.statements() == 2);
  // Carried state: a statement of its own each time, its adjoint handed to its entry.
  const Var beta = Var::carried(2.f, 40), beta_again = Var::carried(2.f, 40);
  CHECK(beta.i != beta_again.i);
  const Var y = c[0] * beta + c[2] * beta_again + c[1];  // dy/d11 = dy/d13 = 2, dy/d40 = 0.25 + 0.75
  tape.begin_adjoints();
  tape.seed(y.i, 1.f);
  std::vector<double> grad(41, 0.0);
  REQUIRE(tape.backward(grad));
  CHECK(grad[11] == 2.0);
  CHECK(grad[13] == 2.0);
  CHECK(grad[40] == 1.0);
  CHECK(grad[12] == 0.0);
  tape.clear();
}
