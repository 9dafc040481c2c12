#include "headwise/circuits.hpp"

#include "headwise/error.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "headwise/gemm.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/text_model.hpp"
#include "headwise/shape.hpp"

namespace headwise {

namespace {

// The Frobenius norm of a (rows, cols) matrix.
double frobenius(const Matrix& m) { return m.norm(); }

// a / b, or 0 where b is 0.
double ratio(double a, double b) { return b > 0.0 ? a / b : 0.0; }

}  // namespace

Matrix qk_circuit(ConstMatrixRef wq, ConstMatrixRef wk, Index num_heads, Index h) {
  // wq, wk: (d, d) -> Wq_h (d, d_head) @ Wk_h^T (d_head, d) = (d, d)
  const Index dh = wq.cols() / num_heads;
  return matmul_transposed(wq.middleCols(h * dh, dh), wk.middleCols(h * dh, dh));
}

Matrix ov_circuit(ConstMatrixRef wv, ConstMatrixRef wo, Index num_heads, Index h) {
  // wv, wo: (d, d) -> Wv_h (d, d_head) @ Wo_h (d_head, d) = (d, d)
  const Index dh = wv.cols() / num_heads;
  return matmul(wv.middleCols(h * dh, dh), wo.middleRows(h * dh, dh));
}

HeadCircuits head_circuits(const Matrix& wq, const Matrix& wk, const Matrix& wv, const Matrix& wo,
                           std::int64_t num_heads) {
  require_nonempty(wq, "wq");
  const Index d = wq.cols();
  require_range(d, 1, kMaxDModel, "d_model");
  MhaWeights w{wq, wk, wv, wo, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  validate_lesson_weights(w, d);
  const Index heads = d / head_dim(d, num_heads);
  HeadCircuits out;
  Matrix ov_sum = Matrix::Zero(d, d);
  for (Index h = 0; h < heads; ++h) {
    out.qk.push_back(qk_circuit(wq, wk, heads, h));
    out.ov.push_back(ov_circuit(wv, wo, heads, h));
    out.qk_rank.push_back(matrix_rank(out.qk.back()));
    out.ov_rank.push_back(matrix_rank(out.ov.back()));
    ov_sum += out.ov.back();
  }
  // 1. sum_h W_OV^h, 2. against the unsplit product Wv Wo (d, d), 3. the largest difference.
  out.ov_sum_error = (ov_sum - matmul(wv, wo)).cwiseAbs().maxCoeff();
  return out;
}

std::int64_t matrix_rank(const Matrix& m) {
  // The singular values only (no U, V); tol as np.linalg.matrix_rank: s_max * max(rows, cols) * eps.
  if (m.size() == 0) return 0;
  const Eigen::MatrixXd dense = m;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(dense);
  const Eigen::VectorXd s = svd.singularValues();
  const double tol = s.maxCoeff() * static_cast<double>(std::max(m.rows(), m.cols())) *
                     std::numeric_limits<double>::epsilon();
  return static_cast<std::int64_t>((s.array() > tol).count());
}

double copying_score_of(const Matrix& ov, const Matrix& ue) {
  // W_OV U E (d, d). Both sums come from the same computed eigenvalues (not sum(lambda) from the
  // trace), so |score| <= 1 holds even where rounding moves the eigenvalues of a nearly
  // nilpotent matrix: |sum(lambda)| <= sum(|lambda|) for any numbers.
  const Eigen::EigenSolver<Eigen::MatrixXd> solver(Eigen::MatrixXd(matmul(ov, ue)), false);
  if (solver.info() != Eigen::Success) {
    throw Error("internal", "", {}, "copying score: the eigenvalues of W_OV U E did not converge");
  }
  const Eigen::VectorXcd lambda = solver.eigenvalues();
  return ratio(lambda.real().sum(), lambda.cwiseAbs().sum());
}

double copying_score(const Matrix& ov, ConstMatrixRef u, ConstMatrixRef e) {
  return copying_score_of(ov, matmul(u, e));
}

double previous_position_score(const Matrix& qk, ConstMatrixRef p) {
  // scores (n, n) = P W_QK P^T; for each query i >= 1, is j = i - 1 the strict maximum over j <= i?
  const Index n = p.rows();
  if (n < 2) {
    throw Error("atLeast", "seqLen", {{"value", integer(n)}, {"min", integer(2)}},
                "previous-position score: the position embedding has shape " +
                    shape_string(p.rows(), p.cols()) + "; it needs at least 2 positions");
  }
  const Matrix s = matmul_transposed(matmul(p, qk), p);
  Index wins = 0;
  for (Index i = 1; i < n; ++i) {
    bool win = true;
    for (Index j = 0; j <= i && win; ++j) {
      if (j != i - 1 && s(i, j) >= s(i, i - 1)) win = false;
    }
    wins += win ? 1 : 0;
  }
  return static_cast<double>(wins) / static_cast<double>(n - 1);
}

Composition composition(const Matrix& qk, const Matrix& ov, const Matrix& ov_earlier) {
  const double n_qk = frobenius(qk), n_ov = frobenius(ov), n_earlier = frobenius(ov_earlier);
  Composition c;
  c.k = ratio(frobenius(matmul_transposed(qk, ov_earlier)), n_qk * n_earlier);
  c.q = ratio(frobenius(matmul(ov_earlier, qk)), n_qk * n_earlier);
  c.v = ratio(frobenius(matmul(ov_earlier, ov)), n_ov * n_earlier);
  return c;
}

ModelCircuits model_circuits(const TrainerConfig& c, const ModelParams& p) {
  const Index layers = static_cast<Index>(c.layers), heads = static_cast<Index>(c.num_heads),
              v = static_cast<Index>(c.vocab), relations = static_cast<Index>(c.num_relations);
  ModelCircuits out;
  out.layers = layers;
  out.num_heads = heads;
  out.relations = relations;
  for (Index l = 0; l < layers; ++l) {
    for (Index h = 0; h < heads; ++h) {
      out.qk.push_back(qk_circuit(p.wq(l), p.wk(l), heads, h));
      out.ov.push_back(ov_circuit(p.wv(l), p.wo(l), heads, h));
    }
  }
  // 1. copying, one U_r E (d, d) per read-out block
  out.copying.resize(layers * heads, relations);
  for (Index r = 0; r < relations; ++r) {
    const Matrix ue = matmul(p.readout().middleCols(r * v, v), p.token_embedding());
    for (Index k = 0; k < layers * heads; ++k) out.copying(k, r) = copying_score_of(out.ov[k], ue);
  }
  // 2. previous position
  out.previous_position.resize(layers, heads);
  for (Index k = 0; k < layers * heads; ++k) {
    out.previous_position(k / heads, k % heads) =
        previous_position_score(out.qk[k], p.position_embedding());
  }
  // 3. composition of each head with every head of the layers before it
  const Index all = layers * heads;
  out.composition_q = out.composition_k = out.composition_v = Matrix::Zero(all, all);
  for (Index a = heads; a < all; ++a) {
    for (Index b = 0; b < (a / heads) * heads; ++b) {
      const Composition comp = composition(out.qk[a], out.ov[a], out.ov[b]);
      out.composition_q(a, b) = comp.q;
      out.composition_k(a, b) = comp.k;
      out.composition_v(a, b) = comp.v;
    }
  }
  return out;
}

Attribution attribute(const TrainerConfig& c, const ModelParams& p, const IntMatrix& ids,
                      std::int64_t position, std::optional<std::int64_t> word,
                      std::int64_t relation) {
  const Index n = ids.cols(), v = static_cast<Index>(c.vocab),
              heads = static_cast<Index>(c.num_heads), dh = static_cast<Index>(c.d_head);
  require_sequence(c, ids);
  require_range(position, 0, n - 1, "position");
  require_range(relation, 0, c.num_relations - 1, "relation");
  if (word) require_range(*word, 0, v - 1, "word");
  const Index i = static_cast<Index>(position);

  Activations a;
  model_forward(c, p, ids, HeadMask(static_cast<std::size_t>(c.layers * heads), false), a);
  const double* logits = a.logits.data() + i * a.logits.cols() + relation * v;
  Attribution out;
  out.position = i;
  if (word) {
    out.word = *word;
  } else if (i + 1 < n) {
    out.word = ids(0, i + 1);
  } else {
    out.word = std::max_element(logits, logits + v) - logits;  // the first of equal maxima
  }
  const Index col = static_cast<Index>(relation * v + out.word);
  out.logit = logits[out.word];
  const double top = *std::max_element(logits, logits + v);
  double sum = 0.0;
  for (Index j = 0; j < v; ++j) sum += std::exp(logits[j] - top);
  out.probability = std::exp(out.logit - top) / sum;

  // u = U[:, col] (d); the direct path (E[x_i] + P_i) u + b, the layer-0 input at i
  const Vector u = p.readout().col(col);
  out.direct = a.layers[0].z.row(i).dot(u) + p.readout_bias()(col, 0);
  // head (l, h): concat_l[i, h block] (d_head) @ Wo_h (d_head, d) @ u (d), where concat's block
  // is the head's attention output at i (zero for a head switched off)
  out.heads.resize(c.layers, heads);
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const Matrix& concat = a.layers[static_cast<std::size_t>(l)].concat;
    const ConstMatrixMap wo = p.wo(l);
    for (Index h = 0; h < heads; ++h) {
      double term = 0.0;
      for (Index t = h * dh; t < (h + 1) * dh; ++t) term += concat(i, t) * wo.row(t).dot(u);
      out.heads(l, h) = term;
    }
  }
  return out;
}

PromotedWords promoted_words(const TrainerConfig& c, const ModelParams& p, std::int64_t layer,
                             std::int64_t head, std::int64_t word, std::int64_t k,
                             std::int64_t relation) {
  const Index v = static_cast<Index>(c.vocab);
  require_range(layer, 0, c.layers - 1, "layer");
  require_range(head, 0, c.num_heads - 1, "head");
  require_range(word, 0, c.vocab - 1, "word");
  require_range(k, 1, c.vocab, "k");
  require_range(relation, 0, c.num_relations - 1, "relation");
  const Matrix ov = ov_circuit(p.wv(layer), p.wo(layer), static_cast<Index>(c.num_heads),
                               static_cast<Index>(head));
  // E[w] (1, d) @ W_OV (d, d) @ U_r (d, V) -> (1, V)
  const Matrix written = matmul(p.token_embedding().row(static_cast<Index>(word)), ov);
  const Matrix values =
      matmul(written, p.readout().middleCols(static_cast<Index>(relation) * v, v));
  std::vector<std::int64_t> order(static_cast<std::size_t>(v));
  std::iota(order.begin(), order.end(), 0);
  const double* x = values.data();
  std::partial_sort(
      order.begin(), order.begin() + k, order.end(),
      [x](std::int64_t a, std::int64_t b) { return x[a] != x[b] ? x[a] > x[b] : a < b; });
  PromotedWords out;
  for (std::int64_t j = 0; j < k; ++j) {
    out.ids.push_back(order[static_cast<std::size_t>(j)]);
    out.values.push_back(x[order[static_cast<std::size_t>(j)]]);
  }
  return out;
}

}  // namespace headwise
