#include "headwise/compare.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "headwise/shape.hpp"

namespace headwise {

namespace {

void require_same_shape(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) {
    throw Error("shape", "b",
                {{"rows", integer(b.rows())},
                 {"cols", integer(b.cols())},
                 {"expectedRows", integer(a.rows())},
                 {"expectedCols", integer(a.cols())}},
                "cannot compare shape " + shape_string(a.rows(), a.cols()) + " with shape " +
                    shape_string(b.rows(), b.cols()) + "; the shapes must be equal");
  }
}

void require_tolerance(double value, const char* name) {
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw Error("nonNegative", name, {{"value", value}},
                std::string(name) + " (" + number_string(value) + ") must be a finite number >= 0");
  }
}

}  // namespace

bool allclose(const Matrix& a, const Matrix& b, double rtol, double atol, bool equal_nan) {
  require_same_shape(a, b);
  require_tolerance(rtol, "rtol");
  require_tolerance(atol, "atol");
  for (Index i = 0; i < a.size(); ++i) {
    const double x = a.data()[i];
    const double y = b.data()[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (equal_nan && std::isnan(x) && std::isnan(y)) continue;
      return false;
    }
    if (std::isinf(x) || std::isinf(y)) {
      if (x == y) continue;  // numpy: infinities are close only to the same infinity
      return false;
    }
    if (!(std::abs(x - y) <= atol + rtol * std::abs(y))) return false;
  }
  return true;
}

double max_abs_diff(const Matrix& a, const Matrix& b) {
  require_same_shape(a, b);
  double worst = 0.0;
  for (Index i = 0; i < a.size(); ++i) {
    const double d = std::abs(a.data()[i] - b.data()[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
    if (d > worst) worst = d;
  }
  return worst;
}

double js_divergence(const double* p, const double* q, Index n) {
  // JS(p, q) = (KL(p || m) + KL(q || m)) / 2 with m = (p + q) / 2; terms with p_i = 0 vanish.
  // Each term p log(p / m) is written p log(2 (p / (p + q))): forming m = (p + q) / 2 first
  // would round a subnormal p to 0 and turn the term into 0 * log(p / 0) = NaN. For p == q the
  // ratio is exactly 1, so equal distributions give exactly 0.
  double js = 0.0;
  for (Index i = 0; i < n; ++i) {
    const double sum = p[i] + q[i];
    if (p[i] > 0.0) js += 0.5 * p[i] * std::log(2.0 * (p[i] / sum));
    if (q[i] > 0.0) js += 0.5 * q[i] * std::log(2.0 * (q[i] / sum));
  }
  return js;
}

std::vector<HeadPair> compare_heads(const std::vector<Matrix>& heads, double rtol, double atol) {
  std::vector<HeadPair> pairs;
  for (std::size_t a = 0; a < heads.size(); ++a) {
    for (std::size_t b = a + 1; b < heads.size(); ++b) {
      const Matrix& wa = heads[a];
      const Matrix& wb = heads[b];
      HeadPair p;
      p.a = static_cast<Index>(a);
      p.b = static_cast<Index>(b);
      p.allclose = allclose(wa, wb, rtol, atol);
      p.max_abs_diff = max_abs_diff(wa, wb);
      double total = 0.0;
      for (Index i = 0; i < wa.rows(); ++i) {
        total += js_divergence(wa.row(i).data(), wb.row(i).data(), wa.cols());
      }
      p.mean_js_divergence = wa.rows() > 0 ? total / static_cast<double>(wa.rows()) : 0.0;
      pairs.push_back(p);
    }
  }
  return pairs;
}

}  // namespace headwise
