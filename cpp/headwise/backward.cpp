#include "headwise/backward.hpp"

#include "headwise/error.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "headwise/simd.hpp"

namespace headwise {

namespace {

// exp(x) for x <= 0 with the core's own exp (simd.hpp): the same bits natively and in WASM.
double exp_nonpositive(double x) { return simd::exp_nonpositive(simd::splat(x))[0]; }

// a: (m, k) -> t = a^T: (k, m), row-major, for the GEMM kernel to read.
void transpose_into(ConstMatrixView a, Matrix& t) {
  t.resize(a.cols, a.rows);
  for (Index i = 0; i < a.rows; ++i)
    for (Index j = 0; j < a.cols; ++j) t(j, i) = a.data[i * a.stride + j];
}

}  // namespace

void embedding_forward(const IntMatrix& tokens, ConstMatrixRef token_embedding,
                       ConstMatrixRef position_embedding, Matrix& z) {
  // tokens: (B, n), token_embedding: (V, d), position_embedding: (>= n, d) -> z: (B * n, d)
  const Index batch = tokens.rows();
  const Index n = tokens.cols();
  z.resize(batch * n, token_embedding.cols());
  for (Index b = 0; b < batch; ++b)
    for (Index i = 0; i < n; ++i)
      z.row(b * n + i) = token_embedding.row(tokens(b, i)) + position_embedding.row(i);
}

void embedding_backward(const IntMatrix& tokens, const Matrix& dz, MatrixRef dtoken_embedding,
                        MatrixRef dposition_embedding) {
  // dz: (B * n, d) -> dtoken_embedding: (V, d) +=, dposition_embedding: (>= n, d) +=
  const Index batch = tokens.rows();
  const Index n = tokens.cols();
  for (Index b = 0; b < batch; ++b) {
    for (Index i = 0; i < n; ++i) {
      dtoken_embedding.row(tokens(b, i)) += dz.row(b * n + i);
      dposition_embedding.row(i) += dz.row(b * n + i);
    }
  }
}

void matmul_forward(const Matrix& inp, ConstMatrixRef weight, const double* bias, Matrix& out) {
  // inp: (m, k), weight: (k, c), bias: c values -> out: (m, c)
  out.resize(inp.rows(), weight.cols());
  gemm(const_view(inp), const_view(weight), false, mutable_view(out));
  if (bias != nullptr) {
    for (Index i = 0; i < out.rows(); ++i)
      for (Index j = 0; j < out.cols(); ++j) out(i, j) += bias[j];
  }
}

void matmul_backward(const Matrix& inp, ConstMatrixRef weight, const Matrix& dout, Matrix* dinp,
                     MatrixRef dweight, double* dbias) {
  MatmulScratch s;
  matmul_backward(inp, weight, dout, dinp, dweight, dbias, s);
}

void matmul_backward(const Matrix& inp, ConstMatrixRef weight, const Matrix& dout, Matrix* dinp,
                     MatrixRef dweight, double* dbias, MatmulScratch& s) {
  // inp: (m, k), weight: (k, c), dout: (m, c)
  // 1. dinp (m, k) += dout @ weight^T (weight^T, small, is made once)
  if (dinp != nullptr) {
    transpose_into(const_view(weight), s.transposed);
    gemm(const_view(dout), const_view(s.transposed), mutable_view(*dinp),
         GemmOptions{false, false, true});
  }
  // 2. dweight (k, c) += inp^T @ dout, inp read in place
  gemm(const_view(inp), const_view(dout), mutable_view(dweight), GemmOptions{true, false, true});
  // 3. dbias (c) += column sums of dout
  //    (a plain loop in row order: Eigen's reductions sum in an order that depends on the SIMD
  //    width, and the bits must not)
  if (dbias != nullptr) {
    for (Index i = 0; i < dout.rows(); ++i)
      for (Index j = 0; j < dout.cols(); ++j) dbias[j] += dout(i, j);
  }
}

void attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v,
                        ConstMatrixView weights, ConstMatrixView dout, MatrixView dq, MatrixView dk,
                        MatrixView dv, AttentionScratch& s) {
  // q, k, v: (n, d_head), weights: (n, n), dout: (n, d_head) -> dq, dk, dv: (n, d_head) +=
  const Index n = q.rows;
  const double scale = std::sqrt(static_cast<double>(q.cols));
  s.dweights.resize(n, n);
  s.dscores.resize(n, n);
  // 1. out = weights @ v: dweights (n, n) = dout @ v^T, dv (n, d_head) += weights^T @ dout
  gemm(dout, v, true, mutable_view(s.dweights));
  gemm(weights, dout, dv, GemmOptions{true, false, true});
  // 2. weights = softmax(scores) row by row; its Jacobian dw_j/ds_k = w_j (delta_jk - w_k)
  //    gives dscores_j = w_j (dweights_j - sum_k w_k dweights_k). Then the 1 / sqrt(d_head).
  for (Index i = 0; i < n; ++i) {
    const double* w = weights.data + i * weights.stride;
    double dot = 0.0;
    for (Index j = 0; j < n; ++j) dot += w[j] * s.dweights(i, j);
    for (Index j = 0; j < n; ++j) s.dscores(i, j) = w[j] * (s.dweights(i, j) - dot) / scale;
  }
  // 3. scores = q k^T: dq (n, d_head) += dscores @ k, dk (n, d_head) += dscores^T @ q
  gemm(const_view(s.dscores), k, dq, GemmOptions{false, false, true});
  gemm(const_view(s.dscores), q, dk, GemmOptions{true, false, true});
}

CrossEntropyResult crossentropy_forward(const Matrix& logits, const IntMatrix& targets, Index vocab,
                                        Matrix& probs) {
  // logits: (rows, R * V), targets: (rows, R) -> probs: (rows, R * V)
  const Index rows = logits.rows();
  const Index num_rel = targets.cols();
  CrossEntropyResult r;
  r.relation_count.assign(static_cast<std::size_t>(num_rel), 0);
  r.relation_correct.assign(static_cast<std::size_t>(num_rel), 0);
  probs.resize(rows, logits.cols());
  double total = 0.0;
  for (Index i = 0; i < rows; ++i) {
    for (Index rel = 0; rel < num_rel; ++rel) {
      const std::int64_t t = targets(i, rel);
      double* p = probs.data() + i * probs.cols() + rel * vocab;
      if (t < 0) {  // no target: nothing reads this group's probabilities
        std::fill(p, p + vocab, 0.0);
        continue;
      }
      const double* l = logits.data() + i * logits.cols() + rel * vocab;
      // 1. The max (first one wins ties: the prediction); subtracting it keeps exp <= 1.
      Index argmax = 0;
      for (Index j = 1; j < vocab; ++j)
        if (l[j] > l[argmax]) argmax = j;
      const double maxval = l[argmax];
      // 2. softmax: exp(l - max) a vector at a time (the core's exp), summed in order
      Index j = 0;
      for (; j + simd::kLanes <= vocab; j += simd::kLanes) {
        simd::store(p + j, simd::exp_nonpositive(simd::load(l + j) - maxval));
      }
      for (; j < vocab; ++j) p[j] = exp_nonpositive(l[j] - maxval);
      double sum = 0.0;
      for (j = 0; j < vocab; ++j) sum += p[j];
      const double inv_sum = 1.0 / sum;
      for (j = 0; j < vocab; ++j) p[j] *= inv_sum;
      // 3. -log softmax at the target, as log(sum) - (l_t - max): no log of a tiny p_t.
      total += std::log(sum) - (l[t] - maxval);
      ++r.count;
      ++r.relation_count[static_cast<std::size_t>(rel)];
      if (argmax == t) {
        ++r.correct;
        ++r.relation_correct[static_cast<std::size_t>(rel)];
      }
    }
  }
  if (r.count == 0) {
    throw Error("noTarget", "targets", {},
                "every target is -1 (no target); at least one target must be a token id");
  }
  r.loss = total / static_cast<double>(r.count);
  return r;
}

void crossentropy_softmax_backward(const Matrix& probs, const IntMatrix& targets, Index vocab,
                                   Index count, Matrix& dlogits) {
  // probs: (rows, R * V), targets: (rows, R) -> dlogits: (rows, R * V) +=
  // d(loss_t)/d(l_j) = p_j - [j == t], and the mean divides by count.
  const double inv = 1.0 / static_cast<double>(count);
  for (Index i = 0; i < probs.rows(); ++i) {
    for (Index rel = 0; rel < targets.cols(); ++rel) {
      const std::int64_t t = targets(i, rel);
      if (t < 0) continue;
      const double* p = probs.data() + i * probs.cols() + rel * vocab;
      double* d = dlogits.data() + i * dlogits.cols() + rel * vocab;
      for (Index j = 0; j < vocab; ++j) d[j] += (p[j] - (j == t ? 1.0 : 0.0)) * inv;
    }
  }
}

}  // namespace headwise
