#include "headwise/torch_layout.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "headwise/attention.hpp"
#include "headwise/gemm.hpp"
#include "headwise/shape.hpp"

namespace headwise {

namespace {

Index resolved(std::int64_t dim, std::int64_t embed_dim) {
  return static_cast<Index>(dim == 0 ? embed_dim : dim);  // validated: at most kMaxTorchDim
}

void require_dim(std::int64_t value, const std::string& name) {
  require_positive(value, name);
  require_at_most(value, kMaxTorchDim, name);
}

void validate_config(const TorchMhaConfig& c) {
  require_dim(c.embed_dim, "embed_dim");
  require_positive(c.num_heads, "num_heads");
  if (c.kdim != 0) require_dim(c.kdim, "kdim");
  if (c.vdim != 0) require_dim(c.vdim, "vdim");
  if (c.embed_dim % c.num_heads != 0) {
    throw Error("divisible", "embedDim",
                {{"value", integer(c.embed_dim)}, {"divisor", integer(c.num_heads)}, {"divisorField", std::string("numHeads")}},
                "embed_dim (" + std::to_string(c.embed_dim) +
                                ") must be divisible by num_heads (" +
                                std::to_string(c.num_heads) + ")");
  }
}

bool same_embed_dim(const TorchMhaConfig& c) {
  return resolved(c.kdim, c.embed_dim) == c.embed_dim &&
         resolved(c.vdim, c.embed_dim) == c.embed_dim;
}

TensorInfo tensor(const std::string& name, std::vector<std::int64_t> shape) {
  std::int64_t numel = 1;
  for (std::int64_t s : shape) numel *= s;
  return TensorInfo{name, std::move(shape), numel};
}

}  // namespace

ParameterTable parameter_table(const TorchMhaConfig& c) {
  validate_config(c);
  const std::int64_t e = c.embed_dim;
  ParameterTable t;
  // Own parameters in registration order, then the out_proj submodule's.
  if (same_embed_dim(c)) {
    t.tensors.push_back(tensor("in_proj_weight", {3 * e, e}));
  } else {
    t.tensors.push_back(tensor("q_proj_weight", {e, e}));
    t.tensors.push_back(tensor("k_proj_weight", {e, resolved(c.kdim, c.embed_dim)}));
    t.tensors.push_back(tensor("v_proj_weight", {e, resolved(c.vdim, c.embed_dim)}));
  }
  if (c.bias) t.tensors.push_back(tensor("in_proj_bias", {3 * e}));
  if (c.add_bias_kv) {
    t.tensors.push_back(tensor("bias_k", {1, 1, e}));
    t.tensors.push_back(tensor("bias_v", {1, 1, e}));
  }
  t.tensors.push_back(tensor("out_proj.weight", {e, e}));
  if (c.bias) t.tensors.push_back(tensor("out_proj.bias", {e}));
  for (const TensorInfo& ti : t.tensors) t.total += ti.numel;
  return t;
}

TorchMhaParams pack_lesson_weights(const MhaWeights& w) {
  const Index e = w.wq.rows();
  require_nonempty(w.wq, "wq");
  validate_lesson_weights(w, e);
  TorchMhaParams p;
  // nn.Linear computes x @ W^T, the lesson computes x @ W: each block is the transpose.
  Matrix in(3 * e, e);
  in.topRows(e) = w.wq.transpose();
  in.middleRows(e, e) = w.wk.transpose();
  in.bottomRows(e) = w.wv.transpose();
  p.in_proj_weight = std::move(in);
  p.out_proj_weight = w.wo.transpose();
  if (w.bq && w.bk && w.bv && w.bo) {
    Vector b(3 * e);
    b << *w.bq, *w.bk, *w.bv;
    p.in_proj_bias = std::move(b);
    p.out_proj_bias = *w.bo;
  }
  return p;
}

MhaWeights unpack_lesson_weights(const TorchMhaParams& p) {
  if (!p.in_proj_weight) {
    throw Error("required", "inProjWeight", {},
        "unpacking needs in_proj_weight (the layout used when kdim == vdim == embed_dim)");
  }
  const Index e = p.out_proj_weight.rows();
  require_shape(*p.in_proj_weight, 3 * e, e, "in_proj_weight");
  require_shape(p.out_proj_weight, e, e, "out_proj_weight");
  MhaWeights w;
  w.wq = p.in_proj_weight->topRows(e).transpose();
  w.wk = p.in_proj_weight->middleRows(e, e).transpose();
  w.wv = p.in_proj_weight->bottomRows(e).transpose();
  w.wo = p.out_proj_weight.transpose();
  if (p.in_proj_bias) {
    require_length(*p.in_proj_bias, 3 * e, "in_proj_bias");
    w.bq = p.in_proj_bias->segment(0, e);
    w.bk = p.in_proj_bias->segment(e, e);
    w.bv = p.in_proj_bias->segment(2 * e, e);
    if (!p.out_proj_bias) {
      throw Error("together", "outProjBias", {{"names", std::vector<std::string>{"inProjBias", "outProjBias"}}},
                  "in_proj_bias was given without out_proj_bias; give both or neither");
    }
    require_length(*p.out_proj_bias, e, "out_proj_bias");
    w.bo = *p.out_proj_bias;
  } else if (p.out_proj_bias) {
    throw Error("together", "inProjBias", {{"names", std::vector<std::string>{"inProjBias", "outProjBias"}}},
                "out_proj_bias was given without in_proj_bias; give both or neither");
  }
  validate_lesson_weights(w, e);
  return w;
}

namespace {

void validate_params(const TorchMhaConfig& c, const TorchMhaParams& p) {
  const Index e = static_cast<Index>(c.embed_dim);  // validated by validate_config
  if (same_embed_dim(c)) {
    if (!p.in_proj_weight) {
      throw Error("required", "inProjWeight", {},
          "in_proj_weight is required when kdim and vdim equal embed_dim");
    }
    if (p.q_proj_weight || p.k_proj_weight || p.v_proj_weight) {
      throw Error("notAllowed", "qProjWeight", {},
          "q_proj_weight, k_proj_weight and v_proj_weight are only used when kdim or vdim "
          "differ from embed_dim; give in_proj_weight instead");
    }
    require_shape(*p.in_proj_weight, 3 * e, e, "in_proj_weight");
    if (!all_finite(*p.in_proj_weight)) require_finite(*p.in_proj_weight, "in_proj_weight");
  } else {
    if (p.in_proj_weight) {
      throw Error("notAllowed", "inProjWeight", {},
          "in_proj_weight is only used when kdim and vdim equal embed_dim; give "
          "q_proj_weight, k_proj_weight and v_proj_weight instead");
    }
    if (!p.q_proj_weight || !p.k_proj_weight || !p.v_proj_weight) {
      throw Error("required", "qProjWeight", {},
          "q_proj_weight, k_proj_weight and v_proj_weight are all required when kdim or vdim "
          "differ from embed_dim");
    }
    require_shape(*p.q_proj_weight, e, e, "q_proj_weight");
    require_shape(*p.k_proj_weight, e, resolved(c.kdim, e), "k_proj_weight");
    require_shape(*p.v_proj_weight, e, resolved(c.vdim, e), "v_proj_weight");
    if (!all_finite(*p.q_proj_weight)) require_finite(*p.q_proj_weight, "q_proj_weight");
    if (!all_finite(*p.k_proj_weight)) require_finite(*p.k_proj_weight, "k_proj_weight");
    if (!all_finite(*p.v_proj_weight)) require_finite(*p.v_proj_weight, "v_proj_weight");
  }
  require_shape(p.out_proj_weight, e, e, "out_proj_weight");
  if (!all_finite(p.out_proj_weight)) require_finite(p.out_proj_weight, "out_proj_weight");
  if (c.bias) {
    if (!p.in_proj_bias || !p.out_proj_bias) {
      throw Error("required", "inProjBias", {},
                  "in_proj_bias and out_proj_bias are required when bias is true");
    }
    require_length(*p.in_proj_bias, 3 * e, "in_proj_bias");
    require_length(*p.out_proj_bias, e, "out_proj_bias");
    require_finite(*p.in_proj_bias, "in_proj_bias");
    require_finite(*p.out_proj_bias, "out_proj_bias");
  } else if (p.in_proj_bias || p.out_proj_bias) {
    throw Error("notAllowed", "inProjBias", {},
                "in_proj_bias and out_proj_bias must not be given when bias is false");
  }
  if (c.add_bias_kv) {
    if (!p.bias_k || !p.bias_v) {
      throw Error("required", "biasK", {}, "bias_k and bias_v are required when add_bias_kv is true");
    }
    require_length(*p.bias_k, e, "bias_k");
    require_length(*p.bias_v, e, "bias_v");
    require_finite(*p.bias_k, "bias_k");
    require_finite(*p.bias_v, "bias_v");
  } else if (p.bias_k || p.bias_v) {
    throw Error("notAllowed", "biasK", {},
                "bias_k and bias_v must not be given when add_bias_kv is false");
  }
}

}  // namespace

TorchForwardResult torch_mha_forward(const TorchMhaConfig& c, const TorchMhaParams& p,
                                     const Matrix& query, const Matrix& key, const Matrix& value,
                                     const TorchForwardOptions& o) {
  // query: (L, E), key: (S, kdim), value: (S, vdim); returns attn_output (L, E)
  validate_config(c);
  validate_params(c, p);
  const Index e = static_cast<Index>(c.embed_dim);  // validated: 1 .. kMaxTorchDim
  const Index h = static_cast<Index>(c.num_heads);  // divides e
  const Index d_head = e / h;
  require_nonempty(query, "query");
  require_nonempty(key, "key");
  require_nonempty(value, "value");
  if (query.cols() != e) {
    throw Error("mismatch", "query", {{"value", integer(query.cols())}, {"expected", integer(e)}},
                "query has " + std::to_string(query.cols()) +
                                " columns but must have embed_dim (" + std::to_string(e) + ")");
  }
  if (key.cols() != resolved(c.kdim, e)) {
    throw Error("mismatch", "key", {{"value", integer(key.cols())}, {"expected", integer(resolved(c.kdim, e))}},
                "key has " + std::to_string(key.cols()) +
                                " columns but must have kdim (" +
                                std::to_string(resolved(c.kdim, e)) + ")");
  }
  if (value.cols() != resolved(c.vdim, e)) {
    throw Error("mismatch", "value", {{"value", integer(value.cols())}, {"expected", integer(resolved(c.vdim, e))}},
                "value has " + std::to_string(value.cols()) +
                                " columns but must have vdim (" +
                                std::to_string(resolved(c.vdim, e)) + ")");
  }
  if (key.rows() != value.rows()) {
    throw Error("mismatch", "value", {{"value", integer(value.rows())}, {"expected", integer(key.rows())}},
                "key has " + std::to_string(key.rows()) + " rows but value has " +
                                std::to_string(value.rows()) +
                                "; key and value must have the same length S");
  }
  if (!all_finite(query)) require_finite(query, "query");
  if (!all_finite(key)) require_finite(key, "key");
  if (!all_finite(value)) require_finite(value, "value");
  const Index l = query.rows();
  const Index s = key.rows();
  if (l > kMaxTokens || s > kMaxTokens) {
    throw Error("atMost", l > kMaxTokens ? "query" : "key",
                {{"value", integer(l > kMaxTokens ? l : s)}, {"max", integer(kMaxTokens)}},
                "query length L (" + std::to_string(l) + ") and key length S (" +
                                std::to_string(s) + ") must each be at most " +
                                std::to_string(kMaxTokens));
  }
  if (std::int64_t{h} * l * s > kMaxElements) {
    throw Error("atMost", "numHeads", {{"value", integer(std::int64_t{h} * l * s)}, {"max", integer(kMaxElements)}},
                "num_heads x L x S (" + std::to_string(std::int64_t{h} * l * s) +
                                ") attention weights must be at most " +
                                std::to_string(kMaxElements));
  }
  if (o.bool_attn_mask && o.float_attn_mask) {
    throw Error("maskKinds", "attnMask", {}, "give attn_mask either as booleans or as floats, not both");
  }
  if (o.bool_attn_mask) require_shape(*o.bool_attn_mask, l, s, "attn_mask");
  if (o.float_attn_mask) {
    require_shape(*o.float_attn_mask, l, s, "attn_mask");
    for (Index i = 0; i < l; ++i)
      for (Index j = 0; j < s; ++j) {
        const double m = (*o.float_attn_mask)(i, j);
        if (std::isnan(m) || m == std::numeric_limits<double>::infinity()) {
          throw Error("finite", "attnMask",
                      {{"value", std::string(std::isnan(m) ? "nan" : "inf")}, {"row", integer(i)}, {"col", integer(j)}},
                      "attn_mask contains " +
                                      std::string(std::isnan(m) ? "nan" : "inf") + " at [" +
                                      std::to_string(i) + ", " + std::to_string(j) +
                                      "]; a float mask may hold finite values and -inf only");
        }
      }
  }
  if (o.key_padding_mask && o.key_padding_mask->size() != s) {
    throw Error("length", "keyPaddingMask",
                {{"length", integer(static_cast<std::int64_t>(o.key_padding_mask->size()))}, {"expected", integer(s)}},
                "key_padding_mask has length " +
                                std::to_string(o.key_padding_mask->size()) +
                                " but must have length S (" + std::to_string(s) + ")");
  }

  // 1. Input projections (nn.Linear: x @ W^T + b), W (out, in) read in place as B^T.
  Matrix q, k, v;
  if (p.in_proj_weight) {
    q = matmul_transposed(query, p.in_proj_weight->topRows(e));
    k = matmul_transposed(key, p.in_proj_weight->middleRows(e, e));
    v = matmul_transposed(value, p.in_proj_weight->bottomRows(e));
  } else {
    q = matmul_transposed(query, *p.q_proj_weight);
    k = matmul_transposed(key, *p.k_proj_weight);
    v = matmul_transposed(value, *p.v_proj_weight);
  }
  if (p.in_proj_bias) {
    q.rowwise() += p.in_proj_bias->segment(0, e).transpose();
    k.rowwise() += p.in_proj_bias->segment(e, e).transpose();
    v.rowwise() += p.in_proj_bias->segment(2 * e, e).transpose();
  }

  // 2. One additive mask (L, S'): attn_mask, then key_padding_mask, as torch merges them.
  //    With add_bias_kv one extra key/value row is appended and both masks get a 0 column.
  const Index s_total = c.add_bias_kv ? s + 1 : s;
  if (c.add_bias_kv) {
    k.conservativeResize(s_total, Eigen::NoChange);
    v.conservativeResize(s_total, Eigen::NoChange);
    k.row(s) = p.bias_k->transpose();
    v.row(s) = p.bias_v->transpose();
  }
  const bool masked = o.bool_attn_mask || o.float_attn_mask || o.key_padding_mask;
  Matrix mask;
  if (masked) mask = Matrix::Zero(l, s_total);
  if (o.bool_attn_mask) mask.leftCols(s) = bool_mask_to_additive(*o.bool_attn_mask);
  if (o.float_attn_mask) mask.leftCols(s) = *o.float_attn_mask;
  if (o.key_padding_mask) {
    const double neg_inf = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < s; ++j)
      if ((*o.key_padding_mask)[j]) mask.col(j).setConstant(neg_inf);
  }

  // 3. Per head: softmax(q_h / sqrt(d_head) @ k_h^T + mask) @ v_h (torch scales q first,
  //    for all heads at once).
  q /= std::sqrt(static_cast<double>(d_head));
  Matrix concat(l, e);
  TorchForwardResult r;
  Matrix sum_weights;
  if (o.need_weights && o.average_attn_weights) sum_weights = Matrix::Zero(l, s_total);
  for (Index hh = 0; hh < h; ++hh) {
    // scores (L, S') = q_h k_h^T, then + mask and softmax, row by row, in place.
    Matrix weights(l, s_total);
    gemm(const_view(q.middleCols(hh * d_head, d_head)), const_view(k.middleCols(hh * d_head, d_head)), true,
         mutable_view(weights));
    if (masked) weights += mask;
    for (Index i = 0; i < l; ++i) softmax_row(weights.data() + i * s_total, s_total);
    // (L, S') @ (S', d_head), straight into head hh's block of concat.
    auto out_h = concat.middleCols(hh * d_head, d_head);
    gemm(const_view(weights), const_view(v.middleCols(hh * d_head, d_head)), false,
         mutable_view(out_h));
    if (o.need_weights) {
      if (o.average_attn_weights) {
        sum_weights += weights;
      } else {
        r.attn_weights.push_back(std::move(weights));
      }
    }
  }
  if (o.need_weights && o.average_attn_weights) {
    r.attn_weights.push_back(sum_weights / static_cast<double>(h));
  }

  // 4. Output projection.
  r.attn_output = matmul_transposed(concat, p.out_proj_weight);
  if (p.out_proj_bias) r.attn_output.rowwise() += p.out_proj_bias->transpose();
  return r;
}

}  // namespace headwise
