#include "headwise/multi_head.hpp"

#include <stdexcept>
#include <string>

#include "headwise/attention.hpp"
#include "headwise/gemm.hpp"
#include "headwise/shape.hpp"

namespace headwise {

Index head_dim(std::int64_t d_model, std::int64_t num_heads) {
  require_positive(d_model, "d_model");
  require_positive(num_heads, "num_heads");
  if (d_model % num_heads != 0) {
    throw Error("divisible", "dModel",
                {{"value", integer(d_model)}, {"divisor", integer(num_heads)}, {"divisorField", std::string("numHeads")}},
                "d_model (" + std::to_string(d_model) + ") must be divisible by num_heads (" +
                    std::to_string(num_heads) + ")");
  }
  if (d_model > kMaxDModel) {
    require_at_most(d_model, kMaxDModel, "d_model");
  }
  return static_cast<Index>(d_model / num_heads);
}

void validate_sizes(std::int64_t tokens, std::int64_t d_model, std::int64_t num_heads) {
  require_positive(tokens, "tokens");
  if (tokens > kMaxTokens) {
    require_at_most(tokens, kMaxTokens, "tokens");
  }
  head_dim(d_model, num_heads);  // d_model's range and divisibility; num_heads <= d_model
  // x, q, k, v, concat, output, head outputs: 7 * n * d; weights: 4 * d * d; heads: h * n * n.
  const std::int64_t elements =
      7 * tokens * d_model + 4 * d_model * d_model + num_heads * tokens * tokens;
  if (elements > kMaxElements) {
    const std::int64_t need = (elements * 8 + (1024 * 1024 - 1)) / (1024 * 1024);
    const std::int64_t max = kMaxElements * 8 / (1024 * 1024);
    throw Error("memory", "tokens",
                {{"tokens", integer(tokens)},
                 {"dModel", integer(d_model)},
                 {"numHeads", integer(num_heads)},
                 {"need", integer(need)},
                 {"max", integer(max)},
                 {"fields", std::vector<std::string>{"tokens", "dModel", "numHeads"}}},
                "tokens (" + std::to_string(tokens) + "), d_model (" + std::to_string(d_model) +
                    ") and num_heads (" + std::to_string(num_heads) + ") would need " +
                    std::to_string(need) + " MiB; at most " + std::to_string(max) +
                    " MiB is allowed");
  }
}

Matrix split_head(const Matrix& m, Index num_heads, Index h) {
  const Index d_head = head_dim(m.cols(), num_heads);
  if (h < 0 || h >= num_heads) {
    throw Error("range", "head", {{"value", integer(h)}, {"min", integer(0)}, {"max", integer(num_heads - 1)}},
                "head index (" + std::to_string(h) + ") must be between 0 and " +
                    std::to_string(num_heads - 1));
  }
  // M.reshape(n, num_heads, d_head)[:, h, :] is the column block starting at h * d_head.
  return m.middleCols(h * d_head, d_head);
}

Matrix merge_heads(const std::vector<Matrix>& heads) {
  if (heads.empty()) throw Error("internal", "", {}, "merge_heads needs at least one head");
  const Index n = heads[0].rows();
  const Index d_head = heads[0].cols();
  Matrix out(n, d_head * static_cast<Index>(heads.size()));
  for (std::size_t h = 0; h < heads.size(); ++h) {
    require_shape(heads[h], n, d_head, "head " + std::to_string(h));
    out.middleCols(static_cast<Index>(h) * d_head, d_head) = heads[h];
  }
  return out;
}

void validate_lesson_weights(const MhaWeights& w, Index d_model) {
  require_shape(w.wq, d_model, d_model, "wq");
  require_shape(w.wk, d_model, d_model, "wk");
  require_shape(w.wv, d_model, d_model, "wv");
  require_shape(w.wo, d_model, d_model, "wo");
  if (!all_finite(w.wq)) require_finite(w.wq, "wq");
  if (!all_finite(w.wk)) require_finite(w.wk, "wk");
  if (!all_finite(w.wv)) require_finite(w.wv, "wv");
  if (!all_finite(w.wo)) require_finite(w.wo, "wo");
  const int given = int(w.bq.has_value()) + int(w.bk.has_value()) + int(w.bv.has_value()) +
                    int(w.bo.has_value());
  if (given != 0 && given != 4) {
    throw Error("together", "bq",
                {{"given", integer(given)}, {"names", std::vector<std::string>{"bq", "bk", "bv", "bo"}}},
                "biases must be given all together (bq, bk, bv, bo) or not at all; " +
                    std::to_string(given) + " of 4 were given");
  }
  if (given == 4) {
    const char* names[] = {"bq", "bk", "bv", "bo"};
    const std::optional<Vector>* biases[] = {&w.bq, &w.bk, &w.bv, &w.bo};
    for (int i = 0; i < 4; ++i) {
      require_length(**biases[i], d_model, names[i]);
      require_finite(**biases[i], names[i]);
    }
  }
}

MhaResult multi_head_attention(const Matrix& x, const MhaWeights& w, std::int64_t num_heads,
                               bool causal) {
  // x: (n, d_model); Wq, Wk, Wv, Wo: (d_model, d_model); returns weights (num_heads, n, n)
  require_nonempty(x, "x");
  const Index n = x.rows();
  const Index d_model = x.cols();
  validate_sizes(n, d_model, num_heads);  // before any allocation
  const Index d_head = head_dim(d_model, num_heads);
  validate_lesson_weights(w, d_model);
  if (!all_finite(x)) require_finite(x, "x");

  MhaResult r;
  r.d_head = d_head;
  // 1. Full-width projections, one GEMM each: (n, d_model) @ (d_model, d_model).
  r.q = matmul(x, w.wq);
  r.k = matmul(x, w.wk);
  r.v = matmul(x, w.wv);
  if (w.bq) {
    r.q.rowwise() += w.bq->transpose();
    r.k.rowwise() += w.bk->transpose();
    r.v.rowwise() += w.bv->transpose();
  }
  // 2. Attention inside each head's column block (the reshape split), own softmax per head:
  //    weights_h (n, n) = softmax(q_h k_h^T / sqrt(d_head) [+ causal mask]),
  //    output_h (n, d_head) = weights_h v_h, written straight into its block of concat.
  r.concat.resize(n, d_model);
  r.head_weights.reserve(static_cast<std::size_t>(num_heads));
  r.head_outputs.reserve(static_cast<std::size_t>(num_heads));
  for (Index h = 0; h < num_heads; ++h) {
    Matrix weights(n, n);
    auto out_h = r.concat.middleCols(h * d_head, d_head);
    attention_forward(const_view(r.q.middleCols(h * d_head, d_head)),
                      const_view(r.k.middleCols(h * d_head, d_head)),
                      const_view(r.v.middleCols(h * d_head, d_head)), nullptr, causal,
                      mutable_view(weights), mutable_view(out_h));
    r.head_weights.push_back(std::move(weights));
    r.head_outputs.emplace_back(out_h);
  }
  // 3. The heads side by side are already the concat (n, d_model); the output projection.
  r.output = matmul(r.concat, w.wo);
  if (w.bo) r.output.rowwise() += w.bo->transpose();
  return r;
}

}  // namespace headwise
