#include "headwise/lesson.hpp"

#include <stdexcept>
#include <string>

#include "headwise/numpy_random.hpp"
#include "headwise/shape.hpp"

namespace headwise {

void validate_sizes(std::int64_t tokens, std::int64_t d_model, std::int64_t num_heads) {
  require_positive(tokens, "tokens");
  require_positive(d_model, "d_model");
  require_positive(num_heads, "num_heads");
  if (tokens > kMaxTokens) {
    throw std::invalid_argument("tokens (" + std::to_string(tokens) + ") must be at most " +
                                std::to_string(kMaxTokens));
  }
  if (d_model > kMaxDModel) {
    throw std::invalid_argument("d_model (" + std::to_string(d_model) + ") must be at most " +
                                std::to_string(kMaxDModel));
  }
  head_dim(d_model, num_heads);  // divisibility
  // x, q, k, v, concat, output, head outputs: 7 * n * d; weights: 4 * d * d; heads: h * n * n.
  const std::int64_t elements =
      7 * tokens * d_model + 4 * d_model * d_model + num_heads * tokens * tokens;
  if (elements > kMaxElements) {
    throw std::invalid_argument(
        "tokens (" + std::to_string(tokens) + "), d_model (" + std::to_string(d_model) +
        ") and num_heads (" + std::to_string(num_heads) + ") would need " +
        std::to_string(elements * 8 / (1024 * 1024)) + " MiB; at most " +
        std::to_string(kMaxElements * 8 / (1024 * 1024)) + " MiB is allowed");
  }
}

SeedExperiment seed_experiment(const SeedExperimentConfig& c) {
  validate_sizes(c.tokens, c.d_model, c.num_heads);
  NumpyRandomState rng(c.seed);  // validates the seed range
  SeedExperiment e;
  // The lesson's draw order: X, then Wq, Wk, Wv, Wo, then (only with bias) bq, bk, bv, bo.
  e.x = rng.randn(c.tokens, c.d_model);
  e.weights.wq = rng.randn(c.d_model, c.d_model);
  e.weights.wk = rng.randn(c.d_model, c.d_model);
  e.weights.wv = rng.randn(c.d_model, c.d_model);
  e.weights.wo = rng.randn(c.d_model, c.d_model);
  if (c.bias) {
    e.weights.bq = rng.randn(c.d_model);
    e.weights.bk = rng.randn(c.d_model);
    e.weights.bv = rng.randn(c.d_model);
    e.weights.bo = rng.randn(c.d_model);
  }
  e.result = multi_head_attention(e.x, e.weights, c.num_heads, c.causal);
  return e;
}

}  // namespace headwise
