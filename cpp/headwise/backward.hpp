// The training model's layers, forward and backward, written out in the style of llm.c's
// train_gpt2.c: one function per layer and pass, shapes in the signature comments, gradients
// accumulated with += into buffers the caller zeroes once per step.
//
// The attention layer's forward is the lesson's own kernel (attention_forward in
// attention.hpp); only its backward lives here.
#pragma once

#include <vector>

#include "headwise/gemm.hpp"
#include "headwise/types.hpp"

namespace headwise {

// tokens: (B, n) in [0, V); token_embedding: (V, d); position_embedding: (>= n, d)
// -> z: (B * n, d), z[b * n + i] = token_embedding[tokens[b][i]] + position_embedding[i].
void embedding_forward(const IntMatrix& tokens, ConstMatrixRef token_embedding,
                       ConstMatrixRef position_embedding, Matrix& z);

// dz: (B * n, d) -> dtoken_embedding: (V, d) += dz rows scattered by token id,
//                   dposition_embedding: (>= n, d) += dz rows summed over the batch.
void embedding_backward(const IntMatrix& tokens, const Matrix& dz, MatrixRef dtoken_embedding,
                        MatrixRef dposition_embedding);

// out = inp @ weight (+ bias).
// inp: (m, k), weight: (k, c), bias: nullptr or c values -> out: (m, c).
void matmul_forward(const Matrix& inp, ConstMatrixRef weight, const double* bias, Matrix& out);

// The backward of out = inp @ weight + bias, given dout: (m, c):
//   dinp (m, k)    += dout @ weight^T   (skipped when dinp is nullptr)
//   dweight (k, c) += inp^T @ dout
//   dbias (c values) += dout summed over rows (skipped when dbias is nullptr)
// Both products add to dinp and dweight in place (gemm's accumulate), inp^T read in place
// (transpose_a). s: work space for weight^T, sized on use, so that a trainer's steps reuse it
// instead of allocating every step (the overload without it allocates its own).
struct MatmulScratch {
  Matrix transposed;
};
void matmul_backward(const Matrix& inp, ConstMatrixRef weight, const Matrix& dout, Matrix* dinp,
                     MatrixRef dweight, double* dbias, MatmulScratch& s);
void matmul_backward(const Matrix& inp, ConstMatrixRef weight, const Matrix& dout, Matrix* dinp,
                     MatrixRef dweight, double* dbias);

// The backward of one head's causal attention, whose forward (attention_forward) gave
// weights = softmax(q k^T / sqrt(d_head) + mask) and out = weights @ v.
// q, k, v: (n, d_head); weights: (n, n); dout: (n, d_head) -> dq, dk, dv: (n, d_head) +=.
//   1. dweights = dout @ v^T;  dv += weights^T @ dout
//   2. softmax Jacobian, row by row: dscores_ij = w_ij * (dweights_ij - sum_k w_ik dweights_ik)
//      (masked keys have w_ij = 0, so no gradient reaches them)
//   3. the 1 / sqrt(d_head) scale; dq += dscores @ k;  dk += dscores^T @ q
// The products with weights^T and dscores^T read them in place and add straight into dv, dq
// and dk (gemm's transpose_a and accumulate). s: work space, sized on use (like llm.c's
// backward buffers), so a batch's calls allocate once.
struct AttentionScratch {
  Matrix dweights, dscores;
};
void attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v,
                        ConstMatrixView weights, ConstMatrixView dout, MatrixView dq,
                        MatrixView dk, MatrixView dv, AttentionScratch& s);

struct CrossEntropyResult {
  double loss = 0.0;                    // mean over counted targets
  Index count = 0;                      // targets other than -1
  Index correct = 0;                    // of them, argmax(logits) == target
  std::vector<Index> relation_count;    // per relation
  std::vector<Index> relation_correct;  // per relation
};

// Softmax cross-entropy over groups of `vocab` logits, PyTorch's ignore_index = -1.
// logits: (rows, R * V), targets: (rows, R) with values in [-1, V) -> probs: (rows, R * V),
// each counted group's softmax (zeros where the target is -1).
// The loss of one target is log(sum_j exp(l_j - max)) - (l_t - max); the mean is over every
// (row, relation) whose target is not -1. Throws std::invalid_argument if there is none.
CrossEntropyResult crossentropy_forward(const Matrix& logits, const IntMatrix& targets, Index vocab,
                                        Matrix& probs);

// dlogits: (rows, R * V) += (probs - onehot(target)) / count for counted targets; the
// gradient of the mean loss (rows with target -1 get nothing).
void crossentropy_softmax_backward(const Matrix& probs, const IntMatrix& targets, Index vocab,
                                   Index count, Matrix& dlogits);

}  // namespace headwise
