// PyTorch's nn.MultiheadAttention (torch 1.13, unbatched input): parameter layout and forward.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "headwise/multi_head.hpp"

namespace headwise {

// Sizes are 64-bit so that any value a caller passes is checked as given.
struct TorchMhaConfig {
  std::int64_t embed_dim = 8;
  std::int64_t num_heads = 1;
  bool bias = true;
  bool add_bias_kv = false;
  std::int64_t kdim = 0;  // 0 means embed_dim
  std::int64_t vdim = 0;  // 0 means embed_dim
};

// Largest embed_dim, kdim and vdim accepted: 2^24 keeps every parameter count exact in a
// double (the JS number) and every 3 * embed_dim within a 32-bit index.
constexpr std::int64_t kMaxTorchDim = std::int64_t{1} << 24;

struct TensorInfo {
  std::string name;                // as in named_parameters()
  std::vector<std::int64_t> shape;
  std::int64_t numel = 0;
};

struct ParameterTable {
  std::int64_t total = 0;
  std::vector<TensorInfo> tensors;  // in named_parameters() order
};

// sum(p.numel() for p in nn.MultiheadAttention(...).parameters()), tensor by tensor.
ParameterTable parameter_table(const TorchMhaConfig& config);

// Parameters of one layer. When kdim == vdim == embed_dim, in_proj_weight (3E, E) is used;
// otherwise q_proj_weight (E, E), k_proj_weight (E, kdim), v_proj_weight (E, vdim).
struct TorchMhaParams {
  std::optional<Matrix> in_proj_weight;
  std::optional<Matrix> q_proj_weight, k_proj_weight, v_proj_weight;
  std::optional<Vector> in_proj_bias;  // (3E)
  Matrix out_proj_weight;              // (E, E)
  std::optional<Vector> out_proj_bias;  // (E)
  std::optional<Vector> bias_k, bias_v;  // (E) each, with add_bias_kv
};

// in_proj_weight = [Wq^T; Wk^T; Wv^T] (3E, E), out_proj.weight = Wo^T, in_proj_bias = [bq; bk; bv].
// The weights are checked as multi_head_attention checks them (shapes, finite, all or no biases).
TorchMhaParams pack_lesson_weights(const MhaWeights& w);
// The inverse of pack_lesson_weights (requires in_proj_weight).
MhaWeights unpack_lesson_weights(const TorchMhaParams& p);

struct TorchForwardOptions {
  std::optional<BoolMatrix> bool_attn_mask;   // (L, S), true = not allowed
  std::optional<Matrix> float_attn_mask;      // (L, S), added to scores
  std::optional<BoolVector> key_padding_mask;  // (S), true = ignore this key
  bool need_weights = true;
  bool average_attn_weights = true;
};

struct TorchForwardResult {
  Matrix attn_output;  // (L, E)
  // need_weights: averaged -> one (L, S') matrix; per head -> num_heads matrices (L, S').
  // S' = S + 1 with add_bias_kv. Empty when need_weights is false.
  std::vector<Matrix> attn_weights;
};

// query: (L, E), key: (S, kdim), value: (S, vdim).
TorchForwardResult torch_mha_forward(const TorchMhaConfig& config, const TorchMhaParams& params,
                                     const Matrix& query, const Matrix& key, const Matrix& value,
                                     const TorchForwardOptions& options = {});

}  // namespace headwise
