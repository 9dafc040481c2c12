// Each head's circuits (Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"),
// in the lesson's row-vector convention (x @ W), float64, for the lesson's weights, the trainers'
// models and the text model alike.
//
// Head h of a layer owns columns h*d_head .. (h+1)*d_head-1 of wq, wk and wv (Wq_h, Wk_h, Wv_h:
// (d, d_head)) and the same rows of wo (Wo_h: (d_head, d)), so it is two d x d matrices of rank
// at most d_head:
//   W_QK = Wq_h Wk_h^T  which pairs it matches: its scores are x_i W_QK x_j^T / sqrt(d_head);
//   W_OV = Wv_h Wo_h    what it writes: it adds sum_j weight_ij x_j W_OV to the residual at i.
// The layer's output is the sum over heads of (head h's weights) X W_OV^h, and
// sum_h W_OV^h = Wv Wo.
//
// For a model of the trainer's layout (trainer.hpp: attention only, no layer norm; E the token
// embedding (V, d), P the position embedding (n, d), U the read-out (d, R * V), U_r its
// columns r*V .. (r+1)*V-1, b the read-out bias):
//   copying score of a head for read-out r: sum(lambda) / sum(|lambda|) over the eigenvalues
//     lambda of E W_OV U_r (V x V), computed from the d x d matrix W_OV U_r E, which has the same
//     non-zero eigenvalues; sum(lambda) is real (complex eigenvalues come in conjugate pairs),
//     |lambda| the complex modulus; both sums are of the same computed eigenvalues. 1 for a
//     head whose every eigenvalue is positive (it raises the logit of the word it reads), -1 for
//     one that lowers it. Degenerate case: when every eigenvalue is zero (sum(|lambda|) == 0, e.g.
//     a head whose W_OV is all zeros) the score is 0: the head writes nothing it could copy.
//   previous-position score: the share of query positions i = 1 .. n-1 whose largest positional
//     score P_i W_QK P_j^T over j = 0 .. i is at j = i - 1. Ties: i - 1 counts only if its score
//     is strictly greater than that of every other j <= i (a tie is not a win).
//   composition of head (l, h) with head (m, g) of an earlier layer m < l (how much of what
//     (m, g) writes the later head reads through its keys, queries or values):
//     K = |W_QK(l,h) W_OV(m,g)^T|_F, Q = |W_OV(m,g) W_QK(l,h)|_F, V = |W_OV(m,g) W_OV(l,h)|_F,
//     divided by |W_QK(l,h)|_F |W_OV(m,g)|_F (V: by |W_OV(l,h)|_F |W_OV(m,g)|_F); 0 where that
//     denominator is 0.
//   attribution of the logit of word w after position i: the residual at i is the embedding
//     plus every head's contribution, so the logit is exactly
//       direct = (E[x_i] + P_i) U[:, w] + b[w]   plus, per head,
//       head (l, h) = (its attention output at i) Wo_h U[:, w].
//   words a head promotes from a source word w: E[w] W_OV U, the change of every logit per unit
//     of attention on w (the direct path of what the head writes).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "headwise/trainer.hpp"
#include "headwise/types.hpp"

namespace headwise {

// W_QK = Wq_h Wk_h^T and W_OV = Wv_h Wo_h of head h: wq, wk, wv, wo (d, d) -> (d, d).
// d_head = d / num_heads (the caller has checked it divides).
Matrix qk_circuit(ConstMatrixRef wq, ConstMatrixRef wk, Index num_heads, Index h);
Matrix ov_circuit(ConstMatrixRef wv, ConstMatrixRef wo, Index num_heads, Index h);

// Every head's W_QK and W_OV of one layer's projections (the lesson's weights): num_heads x (d, d)
// each. Throws std::invalid_argument unless wq, wk, wv, wo are finite (d, d) and num_heads divides d.
//
// Also each matrix's rank and the check that splitting loses nothing: the rank is NumPy's
// np.linalg.matrix_rank, the number of singular values (Eigen's JacobiSVD) above
// tol = s_max * d * eps (eps the float64 machine epsilon), so it is d_head for weights drawn at
// random; ov_sum_error is max |sum_h W_OV^h - Wv Wo|, a rounding error (about 1e-15 for the
// lesson's sizes).
struct HeadCircuits {
  std::vector<Matrix> qk, ov;                 // num_heads x (d, d)
  std::vector<std::int64_t> qk_rank, ov_rank;  // num_heads
  double ov_sum_error = 0.0;                  // max |sum_h ov[h] - wv @ wo|
};

// np.linalg.matrix_rank(m) with its default tolerance: singular values > s_max * max(rows, cols) * eps.
std::int64_t matrix_rank(const Matrix& m);
HeadCircuits head_circuits(const Matrix& wq, const Matrix& wk, const Matrix& wv, const Matrix& wo,
                           std::int64_t num_heads);

// The copying score of ov (d, d) for read-out block u (d, V) and token embedding e (V, d); see
// the top of this file (0 when every eigenvalue is zero).
double copying_score(const Matrix& ov, ConstMatrixRef u, ConstMatrixRef e);
// The same with ue = u @ e (d, d) already multiplied (one product per read-out for every head).
double copying_score_of(const Matrix& ov, const Matrix& ue);

// The previous-position score of qk (d, d) over the position embedding p (n, d), n >= 2.
double previous_position_score(const Matrix& qk, ConstMatrixRef p);

// K-, Q- and V-composition of a later head (qk, ov) with an earlier head's ov_earlier.
struct Composition {
  double q = 0.0, k = 0.0, v = 0.0;
};
Composition composition(const Matrix& qk, const Matrix& ov, const Matrix& ov_earlier);

// Every measure of a model of the trainer's layout. Head (l, h) is at index l * num_heads + h.
struct ModelCircuits {
  Index layers = 0, num_heads = 0, relations = 0;
  std::vector<Matrix> qk, ov;  // layers * num_heads x (d, d)
  Matrix copying;              // (layers * num_heads, R): head's score per read-out block
  Matrix previous_position;    // (layers, num_heads)
  // (layers * num_heads, layers * num_heads): row (l, h), column (m, g), defined for m < l,
  // zero elsewhere
  Matrix composition_q, composition_k, composition_v;
};
ModelCircuits model_circuits(const TrainerConfig& c, const ModelParams& p);

// The logit of one word after position `position` of one sequence, as a sum of paths.
struct Attribution {
  Index position = 0;
  std::int64_t word = 0;     // the word whose logit this is
  double logit = 0.0;        // the model's own logit (its forward's)
  double probability = 0.0;  // softmax of that position's logits of read-out `relation`
  double direct = 0.0;       // (E[x_i] + P_i) U[:, w] + b[w]
  Matrix heads;              // (layers, num_heads): each head's term
};
// ids: (1, n), 1 <= n <= seq_len, ids in [0, V); 0 <= position < n; word: a word id in [0, V),
// or absent for the word that follows position in ids (ids[position + 1]), or, at the last
// position, the model's likeliest guess (the smallest id among equal logits); relation: the
// read-out block, 0 <= relation < R. The forward is model_forward's (all heads on). Throws
// std::invalid_argument naming the value and its range.
Attribution attribute(const TrainerConfig& c, const ModelParams& p, const IntMatrix& ids,
                      std::int64_t position, std::optional<std::int64_t> word,
                      std::int64_t relation = 0);

// The k words head (layer, head) promotes most from source word `word`: the largest entries of
// E[word] W_OV U_relation (V), largest first (equal values: the smaller id first). Throws
// std::invalid_argument for a layer, head, word, k (1 .. V) or relation out of range.
struct PromotedWords {
  std::vector<std::int64_t> ids;
  std::vector<double> values;
};
PromotedWords promoted_words(const TrainerConfig& c, const ModelParams& p, std::int64_t layer,
                             std::int64_t head, std::int64_t word, std::int64_t k,
                             std::int64_t relation = 0);

}  // namespace headwise
