// Softmax and scaled dot-product attention (one head), with PyTorch's mask semantics.
#pragma once

#include "headwise/gemm.hpp"
#include "headwise/types.hpp"

namespace headwise {

// Row-wise softmax of scores (L, S) -> (L, S).
// Each row has its maximum subtracted before exp, so huge scores (+-1e300) cannot overflow.
// A row that is entirely -inf (every key masked) becomes all NaN, exactly as torch.softmax does.
// NaN in a row propagates NaN to that row.
Matrix softmax_rows(const Matrix& scores);
// The same for one row of n scores, in place.
void softmax_row(double* row, Index n);

// Additive mask (L, S) for causal attention: 0 where key j <= query i, -inf where j > i.
Matrix causal_mask(Index query_len, Index key_len);

// Boolean mask (true = not allowed) -> additive mask (-inf where true, 0 elsewhere).
Matrix bool_mask_to_additive(const BoolMatrix& mask);

struct AttentionResult {
  Matrix output;   // (L, d_v)
  Matrix weights;  // (L, S), each row sums to 1 (or is NaN if fully masked)
};

// softmax(q k^T / sqrt(d_k) + mask) v.
// q: (L, d_k), k: (S, d_k), v: (S, d_v), additive_mask: nullptr or (L, S).
// Throws std::invalid_argument on shape mismatches or empty inputs.
AttentionResult scaled_dot_product_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                             const Matrix* additive_mask = nullptr);

// The kernel behind it, on views into the caller's memory and without checks (the caller
// guarantees the shapes): weights (L, S) = softmax(q k^T / sqrt(d_k) + mask), then
// output (L, d_v) = weights @ v. The mask is additive_mask (L, S) when given, else the causal
// mask when causal is true (the same -inf / 0 additions as causal_mask), else none.
// q: (L, d_k), k: (S, d_k), v: (S, d_v); weights and output must not overlap the inputs.
void attention_forward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v,
                       const Matrix* additive_mask, bool causal, MatrixView weights,
                       MatrixView output);

}  // namespace headwise
