// The lesson's experiments, driven by NumPy-identical random draws.
#pragma once

#include <cstdint>

#include "headwise/multi_head.hpp"

namespace headwise {

// Sizes are 64-bit so that any value a caller passes is checked as given.
struct SeedExperimentConfig {
  std::int64_t seed = 7;
  std::int64_t tokens = 5;
  std::int64_t d_model = 8;
  std::int64_t num_heads = 2;
  bool bias = false;
  bool causal = false;
};

struct SeedExperiment {
  Matrix x;           // (tokens, d_model)
  MhaWeights weights;  // Wq, Wk, Wv, Wo (+ bq, bk, bv, bo when bias)
  MhaResult result;
};

// np.random.seed(seed); X = randn(tokens, d_model); Wq, Wk, Wv, Wo = randn(d_model, d_model) x4;
// then, only if bias, bq, bk, bv, bo = randn(d_model) x4; then the lesson's pipeline.
// Validates every argument before drawing or allocating anything.
SeedExperiment seed_experiment(const SeedExperimentConfig& config);

}  // namespace headwise
