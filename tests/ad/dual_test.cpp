// Every Dual<N> rule against its closed form and against a central finite difference.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "ad/dual.h"

using dray::ad::Dual;
using D1 = Dual<1>;

namespace {

// Checks f's derivative at x: the dual tangent equals `closed_form` and a central difference
// of f's value (computed in double through the float function `fv`).
void check_rule(const char* name, const std::function<D1(D1)>& f, const std::function<double(double)>& fd,
                double x, double closed_form) {
  INFO(name << " at " << x);
  D1 y = f(D1(float(x), 0));
  CHECK(y.v == Approx(fd(x)).epsilon(1e-6));
  CHECK(y.d[0] == Approx(closed_form).epsilon(1e-5).margin(1e-6));
  const double h = 1e-4 * std::max(1.0, std::fabs(x));
  double central = (fd(x + h) - fd(x - h)) / (2 * h);
  CHECK(y.d[0] == Approx(central).epsilon(1e-4).margin(1e-5));
}

}  // namespace

TEST_CASE("Dual: arithmetic rules", "[dual]") {
  const double b = 1.7;
  for (double x : {-2.3, -0.4, 0.6, 3.1}) {
    check_rule("a + b", [&](D1 a) { return a + D1(float(b)); }, [&](double a) { return a + b; }, x, 1);
    check_rule("b - a", [&](D1 a) { return D1(float(b)) - a; }, [&](double a) { return b - a; }, x, -1);
    check_rule("-a", [](D1 a) { return -a; }, [](double a) { return -a; }, x, -1);
    check_rule("a * b", [&](D1 a) { return a * D1(float(b)); }, [&](double a) { return a * b; }, x, b);
    check_rule("a * a", [](D1 a) { return a * a; }, [](double a) { return a * a; }, x, 2 * x);
    check_rule("b / a", [&](D1 a) { return D1(float(b)) / a; }, [&](double a) { return b / a; }, x, -b / (x * x));
    check_rule("a / b", [&](D1 a) { return a / D1(float(b)); }, [&](double a) { return a / b; }, x, 1 / b);
    check_rule("a += a", [](D1 a) { D1 r = a; r += a; return r; }, [](double a) { return 2 * a; }, x, 2);
    check_rule("a *= a", [](D1 a) { D1 r = a; r *= a; return r; }, [](double a) { return a * a; }, x, 2 * x);
    check_rule("a /= b", [&](D1 a) { D1 r = a; r /= D1(float(b)); return r; }, [&](double a) { return a / b; }, x, 1 / b);
    check_rule("a -= b", [&](D1 a) { D1 r = a; r -= D1(float(b)); return r; }, [&](double a) { return a - b; }, x, 1);
  }
}

TEST_CASE("Dual: math function rules", "[dual]") {
  using namespace dray::ad;
  for (double x : {0.3, 0.9, 2.2}) {
    check_rule("sqrt", [](D1 a) { return sqrt(a); }, [](double a) { return std::sqrt(a); }, x, 0.5 / std::sqrt(x));
    check_rule("exp", [](D1 a) { return exp(a); }, [](double a) { return std::exp(a); }, x, std::exp(x));
    check_rule("log", [](D1 a) { return log(a); }, [](double a) { return std::log(a); }, x, 1 / x);
  }
  for (double x : {-1.2, -0.3, 0.4, 1.1}) {
    check_rule("sin", [](D1 a) { return sin(a); }, [](double a) { return std::sin(a); }, x, std::cos(x));
    check_rule("cos", [](D1 a) { return cos(a); }, [](double a) { return std::cos(a); }, x, -std::sin(x));
    check_rule("tan", [](D1 a) { return tan(a); }, [](double a) { return std::tan(a); }, x, 1 / (std::cos(x) * std::cos(x)));
    check_rule("abs", [](D1 a) { return abs(a); }, [](double a) { return std::fabs(a); }, x, x > 0 ? 1 : -1);
    check_rule("min(a, 0.5)", [](D1 a) { return min(a, D1(0.5f)); }, [](double a) { return std::min(a, 0.5); }, x, x < 0.5 ? 1 : 0);
    check_rule("max(a, 0.5)", [](D1 a) { return max(a, D1(0.5f)); }, [](double a) { return std::max(a, 0.5); }, x, x > 0.5 ? 1 : 0);
  }
  // Edge cases: sqrt(0) has derivative 0 (not inf); min/max choose like the float versions.
  CHECK(sqrt(D1(0.f, 0)).d[0] == 0.f);
  CHECK(abs(D1(0.f, 0)).d[0] == 0.f);
  D1 nan(NAN, 0), one(1.f);
  CHECK(min(nan, one).v == dray::ad::min(NAN, 1.f));
  CHECK(std::isnan(max(one, nan).v) == std::isnan(dray::ad::max(1.f, NAN)));
  CHECK(std::isnan(max(nan, one).v) == std::isnan(dray::ad::max(NAN, 1.f)));
}

TEST_CASE("Dual: several tangents at once, seeds, value and detach", "[dual]") {
  using D3 = Dual<3>;
  // f(x, y, z) = x y + sin(z) / x
  D3 x(2.f, 0), y(3.f, 1), z(0.5f, 2);
  D3 f = x * y + dray::ad::sin(z) / x;
  CHECK(f.v == Approx(6 + std::sin(0.5) / 2));
  CHECK(f.d[0] == Approx(3 - std::sin(0.5) / 4));  // y - sin z / x^2
  CHECK(f.d[1] == Approx(2));                      // x
  CHECK(f.d[2] == Approx(std::cos(0.5) / 2));      // cos z / x
  CHECK(dray::ad::value(f) == f.v);
  D3 c = dray::ad::detach(f);
  CHECK(c.v == f.v);
  CHECK(c.d == std::array<float, 3>{0, 0, 0});
  // Seeds outside [0, N) give a constant; lift seeds only dual types.
  CHECK(D3(1.f, 7).d == std::array<float, 3>{0, 0, 0});
  CHECK(dray::ad::lift<D3>(2.f, 1).d[1] == 1.f);
  CHECK(dray::ad::lift<float>(2.f, 1) == 2.f);
  CHECK(dray::ad::tangent_count<D3>::value == 3);
  CHECK(dray::ad::tangent_count<float>::value == 0);
  CHECK(dray::ad::is_differentiable_v<D3>);
  CHECK_FALSE(dray::ad::is_differentiable_v<float>);
}

TEST_CASE("Dual: a tangent does not depend on how many others travel with it", "[dual]") {
  // The same expression with Dual<1> and Dual<8>: component 0 bitwise equal.
  auto expr = [](auto a, auto b) {
    using dray::ad::sqrt;
    using dray::ad::cos;
    return sqrt(a * a + b) / (cos(a) + b * b) - a / b;
  };
  Dual<1> a1(0.7f, 0), b1(1.3f);
  Dual<8> a8(0.7f, 0), b8(1.3f, 5);
  auto r1 = expr(a1, b1);
  auto r8 = expr(a8, b8);
  CHECK(r1.v == r8.v);
  CHECK(r1.d[0] == r8.d[0]);
}
