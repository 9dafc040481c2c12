#include "headwise/attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "headwise/shape.hpp"

namespace headwise {

Matrix softmax_rows(const Matrix& scores) {
  Matrix out(scores.rows(), scores.cols());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Index i = 0; i < scores.rows(); ++i) {
    // 1. The row max: subtracting it makes every exponent <= 0, so exp cannot overflow.
    double maxval = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < scores.cols(); ++j) {
      const double s = scores(i, j);
      if (std::isnan(s) || s > maxval) maxval = s;
      if (std::isnan(s)) break;
    }
    if (std::isnan(maxval) || maxval == -std::numeric_limits<double>::infinity()) {
      // Every key masked (or a NaN score): torch.softmax yields NaN for the whole row.
      out.row(i).setConstant(nan);
      continue;
    }
    // 2. exp(score - max) and its sum (at least 1, from the max itself).
    double sum = 0.0;
    for (Index j = 0; j < scores.cols(); ++j) {
      const double e = std::exp(scores(i, j) - maxval);
      out(i, j) = e;
      sum += e;
    }
    // 3. Normalise.
    out.row(i) /= sum;
  }
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
  // 1. scores = q k^T / sqrt(d_k): (L, S)
  Matrix scores = (q * k.transpose()) / std::sqrt(static_cast<double>(q.cols()));
  // 2. add the mask (-inf removes a key, finite values shift it)
  if (additive_mask != nullptr) scores += *additive_mask;
  // 3. softmax over keys, then the weighted sum of values: (L, d_v)
  r.weights = softmax_rows(scores);
  r.output = r.weights * v;
  return r;
}

}  // namespace headwise
