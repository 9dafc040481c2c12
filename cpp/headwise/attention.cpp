#include "headwise/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "headwise/shape.hpp"

namespace headwise {

void softmax_row(double* row, Index n) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // 1. The row max: subtracting it makes every exponent <= 0, so exp cannot overflow.
  double maxval = -std::numeric_limits<double>::infinity();
  for (Index j = 0; j < n; ++j) {
    const double s = row[j];
    if (std::isnan(s) || s > maxval) maxval = s;
    if (std::isnan(s)) break;
  }
  if (std::isnan(maxval) || maxval == -std::numeric_limits<double>::infinity()) {
    // Every key masked (or a NaN score): torch.softmax yields NaN for the whole row.
    std::fill(row, row + n, nan);
    return;
  }
  // 2. exp(score - max) and its sum (at least 1, from the max itself).
  //    Below -750, exp is exactly +0 (it underflows past the smallest subnormal, exp(-745.13));
  //    returning it directly skips libm's slow underflow path, which sharp heads hit often.
  double sum = 0.0;
  for (Index j = 0; j < n; ++j) {
    const double x = row[j] - maxval;
    const double e = x < -750.0 ? 0.0 : std::exp(x);
    row[j] = e;
    sum += e;
  }
  // 3. Normalise.
  for (Index j = 0; j < n; ++j) row[j] /= sum;
}

Matrix softmax_rows(const Matrix& scores) {
  Matrix out = scores;
  for (Index i = 0; i < out.rows(); ++i) softmax_row(out.data() + i * out.cols(), out.cols());
  return out;
}

Matrix causal_mask(Index query_len, Index key_len) {
  Matrix m = Matrix::Zero(query_len, key_len);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  for (Index i = 0; i < query_len; ++i)
    for (Index j = i + 1; j < key_len; ++j) m(i, j) = neg_inf;
  return m;
}

Matrix bool_mask_to_additive(const BoolMatrix& mask) {
  const double neg_inf = -std::numeric_limits<double>::infinity();
  Matrix m(mask.rows(), mask.cols());
  for (Index i = 0; i < mask.rows(); ++i)
    for (Index j = 0; j < mask.cols(); ++j) m(i, j) = mask(i, j) ? neg_inf : 0.0;
  return m;
}

void attention_forward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v,
                       const Matrix* additive_mask, bool causal, MatrixView weights,
                       MatrixView output) {
  // q: (L, d_k), k: (S, d_k), v: (S, d_v) -> weights: (L, S), output: (L, d_v)
  const Index l = q.rows;
  const Index s = k.rows;
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const double scale = std::sqrt(static_cast<double>(q.cols));
  // 1. scores = q k^T, straight into the weights' memory: (L, S)
  gemm(q, k, true, weights);
  for (Index i = 0; i < l; ++i) {
    double* row = weights.data + i * weights.stride;
    // 2. / sqrt(d_k), then the mask (-inf removes a key, finite values shift it)
    for (Index j = 0; j < s; ++j) row[j] /= scale;
    if (additive_mask != nullptr) {
      for (Index j = 0; j < s; ++j) row[j] += (*additive_mask)(i, j);
    } else if (causal) {
      for (Index j = 0; j < s; ++j) row[j] += j > i ? neg_inf : 0.0;
    }
    // 3. softmax over keys
    softmax_row(row, s);
  }
  // 4. the weighted sum of values: (L, S) @ (S, d_v) -> (L, d_v)
  gemm(ConstMatrixView{weights.data, l, s, weights.stride}, v, false, output);
}

AttentionResult scaled_dot_product_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                             const Matrix* additive_mask) {
  // q: (L, d_k), k: (S, d_k), v: (S, d_v), additive_mask: (L, S)
  require_nonempty(q, "q");
  require_nonempty(k, "k");
  require_nonempty(v, "v");
  if (k.cols() != q.cols()) {
    throw std::invalid_argument("k has " + std::to_string(k.cols()) +
                                " columns but q has " + std::to_string(q.cols()) +
                                "; q and k must have the same feature size");
  }
  if (v.rows() != k.rows()) {
    throw std::invalid_argument("v has " + std::to_string(v.rows()) + " rows but k has " +
                                std::to_string(k.rows()) + "; k and v must have one row per key");
  }
  if (additive_mask != nullptr) {
    require_shape(*additive_mask, q.rows(), k.rows(), "attention mask");
  }
  AttentionResult r;
  r.weights.resize(q.rows(), k.rows());
  r.output.resize(q.rows(), v.cols());
  attention_forward(const_view(q), const_view(k), const_view(v), additive_mask, false,
                    mutable_view(r.weights), mutable_view(r.output));
  return r;
}

}  // namespace headwise
