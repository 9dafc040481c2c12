// Comparisons with NumPy's semantics, and how different two heads' attention patterns are.
#pragma once

#include <vector>

#include "headwise/types.hpp"

namespace headwise {

// np.allclose(a, b, rtol, atol, equal_nan): |a - b| <= atol + rtol * |b| element-wise.
// Shapes must match (throws std::invalid_argument otherwise; NumPy would broadcast).
bool allclose(const Matrix& a, const Matrix& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);

// max |a - b| (NaN if any difference is NaN). Shapes must match.
double max_abs_diff(const Matrix& a, const Matrix& b);

// Jensen-Shannon divergence (natural log, in [0, ln 2]) between two distributions.
double js_divergence(const double* p, const double* q, Index n);

struct HeadPair {
  Index a = 0, b = 0;
  bool allclose = false;
  double max_abs_diff = 0.0;
  double mean_js_divergence = 0.0;  // mean over query rows, natural log
};

// Every pair a < b of heads' weights (each (L, S)), in order (0,1), (0,2), ..., (1,2), ...
std::vector<HeadPair> compare_heads(const std::vector<Matrix>& head_weights, double rtol = 1e-5,
                                    double atol = 1e-8);

}  // namespace headwise
