// allclose / max_abs_diff with NumPy's semantics, js_divergence and compare_heads.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "fixtures.hpp"
#include "headwise/compare.hpp"

using headwise::allclose;
using headwise::compare_heads;
using headwise::HeadPair;
using headwise::Index;
using headwise::js_divergence;
using headwise::Matrix;
using headwise::max_abs_diff;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Matrix scalar(double x) {
  Matrix m(1, 1);
  m(0, 0) = x;
  return m;
}

Matrix row(std::initializer_list<double> values) {
  Matrix m(1, static_cast<Index>(values.size()));
  Index j = 0;
  for (double v : values) m(0, j++) = v;
  return m;
}

double js(const std::vector<double>& p, const std::vector<double>& q) {
  return js_divergence(p.data(), q.data(), static_cast<Index>(p.size()));
}

}  // namespace

TEST_CASE("allclose is |a - b| <= atol + rtol * |b|, so it is asymmetric like NumPy's",
          "[compare][allclose]") {
  // |9 - 10| = 1 <= 0.1 * |10| = 1, but |10 - 9| = 1 > 0.1 * |9| = 0.9.
  CHECK(allclose(scalar(9.0), scalar(10.0), 0.1, 0.0));
  CHECK_FALSE(allclose(scalar(10.0), scalar(9.0), 0.1, 0.0));
}

TEST_CASE("allclose defaults are NumPy's rtol=1e-5, atol=1e-8", "[compare][allclose]") {
  CHECK(allclose(scalar(0.0), scalar(1e-8)));
  CHECK_FALSE(allclose(scalar(0.0), scalar(2e-8)));
  CHECK(allclose(scalar(1.0 + 1e-5), scalar(1.0)));
  CHECK_FALSE(allclose(scalar(1.0 + 2e-5), scalar(1.0)));
  CHECK(allclose(row({1e10, 1e-300}), row({1.00001e10, 0.0})));
}

TEST_CASE("allclose: one element out of tolerance is enough to fail", "[compare][allclose]") {
  Matrix a = Matrix::Ones(3, 4);
  Matrix b = a;
  CHECK(allclose(a, b));
  b(2, 3) = 1.001;
  CHECK_FALSE(allclose(a, b));
}

TEST_CASE("allclose: NaN is close to nothing unless equal_nan, infinities only to themselves",
          "[compare][allclose]") {
  CHECK_FALSE(allclose(scalar(kNaN), scalar(kNaN)));
  CHECK(allclose(scalar(kNaN), scalar(kNaN), 1e-5, 1e-8, /*equal_nan=*/true));
  CHECK_FALSE(allclose(scalar(kNaN), scalar(1.0), 1e-5, 1e-8, true));
  CHECK_FALSE(allclose(scalar(1.0), scalar(kNaN), 1e-5, 1e-8, true));
  CHECK(allclose(scalar(kInf), scalar(kInf)));
  CHECK(allclose(scalar(-kInf), scalar(-kInf)));
  CHECK_FALSE(allclose(scalar(kInf), scalar(-kInf)));
  CHECK_FALSE(allclose(scalar(kInf), scalar(1e308)));
  CHECK_FALSE(allclose(scalar(1e308), scalar(kInf)));
}

TEST_CASE("allclose and max_abs_diff refuse different shapes", "[compare][errors]") {
  const Matrix a = Matrix::Zero(2, 3);
  const Matrix b = Matrix::Zero(3, 2);
  CHECK_THROWS_AS(allclose(a, b), std::invalid_argument);
  CHECK_THROWS_WITH(allclose(a, b),
                    "cannot compare shape (2, 3) with shape (3, 2); the shapes must be equal");
  CHECK_THROWS_WITH(max_abs_diff(a, b),
                    "cannot compare shape (2, 3) with shape (3, 2); the shapes must be equal");
}

TEST_CASE("max_abs_diff is the largest |a - b|, NaN if any difference is NaN", "[compare]") {
  CHECK(max_abs_diff(row({1.0, 2.0, 3.0}), row({1.5, 2.0, 0.0})) == 3.0);
  CHECK(max_abs_diff(row({1.0, 2.0}), row({1.0, 2.0})) == 0.0);
  CHECK(std::isnan(max_abs_diff(row({1.0, kNaN, 3.0}), row({1.0, 2.0, 100.0}))));
  CHECK(max_abs_diff(row({kInf, 0.0}), row({0.0, 0.0})) == kInf);
}

TEST_CASE("js_divergence: 0 for equal distributions, ln 2 for disjoint ones", "[compare][js]") {
  CHECK(js({0.2, 0.3, 0.5}, {0.2, 0.3, 0.5}) == 0.0);
  CHECK(js({1.0, 0.0}, {0.0, 1.0}) == Approx(std::log(2.0)).epsilon(1e-15));
  CHECK(js({0.5, 0.5, 0.0, 0.0}, {0.0, 0.0, 0.25, 0.75}) == Approx(std::log(2.0)).epsilon(1e-15));
}

TEST_CASE("js_divergence is symmetric, bounded by ln 2, and matches the closed form",
          "[compare][js]") {
  const std::vector<double> p = {0.5, 0.5};
  const std::vector<double> q = {1.0, 0.0};
  // m = (0.75, 0.25): JS = (0.5 ln(0.5/0.75) + 0.5 ln(0.5/0.25) + ln(1/0.75)) / 2
  const double expected =
      0.5 * (0.5 * std::log(0.5 / 0.75) + 0.5 * std::log(2.0)) + 0.5 * std::log(1.0 / 0.75);
  CHECK(js(p, q) == Approx(expected).epsilon(1e-14));
  CHECK(js(q, p) == Approx(js(p, q)).epsilon(1e-15));
  const std::vector<double> a = {0.1, 0.2, 0.3, 0.4};
  const std::vector<double> b = {0.4, 0.3, 0.2, 0.1};
  CHECK(js(a, b) == Approx(js(b, a)).epsilon(1e-15));
  CHECK(js(a, b) > 0.0);
  CHECK(js(a, b) < std::log(2.0));
}

TEST_CASE("compare_heads lists every pair a < b in order", "[compare][heads]") {
  Matrix w0(2, 2), w1(2, 2), w2(2, 2);
  w0 << 1.0, 0.0, 0.5, 0.5;
  w1 << 0.0, 1.0, 0.5, 0.5;
  w2 = w0;
  const std::vector<HeadPair> pairs = compare_heads({w0, w1, w2});
  REQUIRE(pairs.size() == 3);
  CHECK(pairs[0].a == 0);
  CHECK(pairs[0].b == 1);
  CHECK(pairs[1].a == 0);
  CHECK(pairs[1].b == 2);
  CHECK(pairs[2].a == 1);
  CHECK(pairs[2].b == 2);
  // (0, 1): row 0 disjoint (JS = ln 2), row 1 equal (0) -> mean ln 2 / 2.
  CHECK_FALSE(pairs[0].allclose);
  CHECK(pairs[0].max_abs_diff == 1.0);
  CHECK(pairs[0].mean_js_divergence == Approx(std::log(2.0) / 2).epsilon(1e-15));
  // (0, 2): identical.
  CHECK(pairs[1].allclose);
  CHECK(pairs[1].max_abs_diff == 0.0);
  CHECK(pairs[1].mean_js_divergence == 0.0);
  CHECK_FALSE(pairs[2].allclose);
}

TEST_CASE("compare_heads: one head has no pairs, and tolerances are passed to allclose",
          "[compare][heads]") {
  CHECK(compare_heads({Matrix::Identity(3, 3)}).empty());
  CHECK(compare_heads({}).empty());
  Matrix a(1, 2), b(1, 2);
  a << 0.5, 0.5;
  b << 0.5001, 0.4999;
  CHECK_FALSE(compare_heads({a, b})[0].allclose);
  CHECK(compare_heads({a, b}, 1e-3, 0.0)[0].allclose);
}

TEST_CASE("js_divergence stays finite for subnormal probabilities", "[compare][js]") {
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double d = js({tiny, 1.0}, {0.0, 1.0});
  CHECK(std::isfinite(d));
  CHECK(d >= 0.0);
  CHECK(d < 1e-300);
  CHECK(js({tiny, 0.0}, {0.0, tiny}) == Approx(tiny * std::log(2.0)).margin(1e-323));
}

TEST_CASE("compare_heads: heads of one query row are compared too", "[compare]") {
  // One query over two keys (cross-attention's shape): the mean over one row is that row's
  // divergence, JS([0.5, 0.5] || [1, 0]), about 0.2158 nats.
  Matrix a(1, 2), b(1, 2);
  a << 0.5, 0.5;
  b << 1.0, 0.0;
  const std::vector<HeadPair> pairs = compare_heads({a, b});
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].mean_js_divergence == js_divergence(a.data(), b.data(), 2));
  CHECK(pairs[0].mean_js_divergence > 0.2);
  CHECK(pairs[0].mean_js_divergence < 0.25);
}
