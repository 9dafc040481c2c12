// Multi-head attention exactly as the lesson builds it: one set of full-width projections,
// split into heads by reshape, attention per head, concat, output projection.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "headwise/types.hpp"

namespace headwise {

// Weights in the lesson's (NumPy) convention: Q = X @ Wq (+ bq), so each W is (d_in, d_model).
struct MhaWeights {
  Matrix wq, wk, wv;  // (d_model, d_model)
  Matrix wo;          // (d_model, d_model)
  std::optional<Vector> bq, bk, bv, bo;  // (d_model) each, all present or all absent
};

struct MhaResult {
  Index d_head = 0;
  Matrix q, k, v;                    // (n, d_model), after bias
  std::vector<Matrix> head_weights;  // num_heads x (n, n)
  std::vector<Matrix> head_outputs;  // num_heads x (n, d_head)
  Matrix concat;                     // (n, d_model)
  Matrix output;                     // (n, d_model)
};

// Limits that keep every allocation of one call far below the WASM heap's maximum.
constexpr Index kMaxTokens = 2048;
constexpr Index kMaxDModel = 2048;
// Upper bound on doubles one multi-head forward may hold (512 MiB).
constexpr std::int64_t kMaxElements = 64LL * 1024 * 1024;

// Throws std::invalid_argument unless num_heads >= 1 and d_model % num_heads == 0:
// "d_model (10) must be divisible by num_heads (4)". Sizes are 64-bit so that a huge value
// is reported as given, never narrowed first (Index is 32 bits in wasm32).
Index head_dim(std::int64_t d_model, std::int64_t num_heads);

// Throws std::invalid_argument if (tokens, d_model, num_heads) is out of range or would need
// more than kMaxElements doubles, before anything is allocated.
void validate_sizes(std::int64_t tokens, std::int64_t d_model, std::int64_t num_heads);

// Throws unless Wq, Wk, Wv, Wo are finite (d_model, d_model) and the biases are all absent or
// all present, each finite with length d_model.
void validate_lesson_weights(const MhaWeights& w, Index d_model);

// Head h of m: columns h*d_head .. (h+1)*d_head-1 of m (n, d_model) -> (n, d_head).
// The same as M.reshape(n, num_heads, d_head).transpose(1, 0, 2)[h].
Matrix split_head(const Matrix& m, Index num_heads, Index h);

// Inverse of split_head over all heads: num_heads x (n, d_head) -> (n, num_heads*d_head).
Matrix merge_heads(const std::vector<Matrix>& heads);

// x: (n, d_model), returns the full pipeline's intermediates.
// causal: query i may only attend to keys j <= i.
// Throws std::invalid_argument for any shape mismatch, divisibility error or non-finite input.
MhaResult multi_head_attention(const Matrix& x, const MhaWeights& w, std::int64_t num_heads,
                               bool causal = false);

}  // namespace headwise
