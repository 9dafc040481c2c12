#include "headwise/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "headwise/shape.hpp"
#include "headwise/simd.hpp"

namespace headwise {

void softmax_row(double* row, Index n) {
  using simd::kLanes;
  using simd::VecD;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double neg_inf = -std::numeric_limits<double>::infinity();
  // 1. The row max: subtracting it makes every exponent <= 0, so exp cannot overflow.
  //    A NaN anywhere makes the whole row NaN (below), so the max need not see it.
  bool has_nan = false;
  double maxval = neg_inf;
  for (Index j = 0; j < n; ++j) {
    const double s = row[j];
    has_nan |= std::isnan(s);
    maxval = s > maxval ? s : maxval;
  }
  if (has_nan || maxval == neg_inf) {
    // Every key masked (or a NaN score): torch.softmax yields NaN for the whole row.
    std::fill(row, row + n, nan);
    return;
  }
  // 2. exp(score - max) (simd::exp_nonpositive: within 2 ulp of libm's) and its sum (at least 1,
  //    from the max itself), summed as four interleaved partial sums s_(j mod 4), then
  //    (s_0 + s_1) + (s_2 + s_3), then the tail: the same order for every SIMD width.
  static_assert(4 % kLanes == 0, "the partial sums are whole vectors");
  double partial[4] = {0.0, 0.0, 0.0, 0.0};
  Index j = 0;
  if (n >= 4) {
    VecD acc[4 / kLanes] = {};
    for (; j + 4 <= n; j += 4) {
      for (Index v = 0; v < 4 / kLanes; ++v) {
        // (Sharp heads are mostly exact zeros: whole vectors of them skip the exp.)
        const VecD x = simd::load(row + j + v * kLanes) - maxval;
        const VecD e = simd::all_below(x, simd::kExpZeroBelow) ? VecD{} : simd::exp_nonpositive(x);
        simd::store(row + j + v * kLanes, e);
        acc[v] = acc[v] + e;
      }
    }
    for (Index v = 0; v < 4 / kLanes; ++v) simd::store(partial + v * kLanes, acc[v]);
  }
  double sum = (partial[0] + partial[1]) + (partial[2] + partial[3]);
  if (j < n) {
    alignas(32) double tail[4] = {neg_inf, neg_inf, neg_inf, neg_inf};
    for (Index t = j; t < n; ++t) tail[t - j] = row[t] - maxval;
    for (Index v = 0; v < 4 / kLanes; ++v) {
      simd::store(tail + v * kLanes, simd::exp_nonpositive(simd::load(tail + v * kLanes)));
    }
    for (Index t = j; t < n; ++t) {
      row[t] = tail[t - j];
      sum += tail[t - j];
    }
  }
  // 3. Normalise.
  for (Index t = 0; t < n; ++t) row[t] /= sum;
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
    throw Error("mismatch", "k", {{"value", integer(k.cols())}, {"expected", integer(q.cols())}},
                "k has " + std::to_string(k.cols()) + " columns but q has " +
                    std::to_string(q.cols()) + "; q and k must have the same feature size");
  }
  if (v.rows() != k.rows()) {
    throw Error("mismatch", "v", {{"value", integer(v.rows())}, {"expected", integer(k.rows())}},
                "v has " + std::to_string(v.rows()) + " rows but k has " +
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
