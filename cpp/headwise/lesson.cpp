#include "headwise/lesson.hpp"

#include <stdexcept>
#include <string>

#include "headwise/numpy_random.hpp"
#include "headwise/shape.hpp"

namespace headwise {

SeedExperiment seed_experiment(const SeedExperimentConfig& c) {
  validate_sizes(c.tokens, c.d_model, c.num_heads);
  NumpyRandomState rng(c.seed);  // validates the seed range
  const Index n = static_cast<Index>(c.tokens);  // in range: validated above
  const Index d = static_cast<Index>(c.d_model);
  SeedExperiment e;
  // The lesson's draw order: X, then Wq, Wk, Wv, Wo, then (only with bias) bq, bk, bv, bo.
  e.x = rng.randn(n, d);
  e.weights.wq = rng.randn(d, d);
  e.weights.wk = rng.randn(d, d);
  e.weights.wv = rng.randn(d, d);
  e.weights.wo = rng.randn(d, d);
  if (c.bias) {
    e.weights.bq = rng.randn(d);
    e.weights.bk = rng.randn(d);
    e.weights.bv = rng.randn(d);
    e.weights.bo = rng.randn(d);
  }
  e.result = multi_head_attention(e.x, e.weights, c.num_heads, c.causal);
  return e;
}

}  // namespace headwise
