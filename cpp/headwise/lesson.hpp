// The lesson's experiments, driven by NumPy-identical random draws.
#pragma once

#include <cstdint>

#include "headwise/multi_head.hpp"

namespace headwise {

struct SeedExperimentConfig {
  std::int64_t seed = 7;
  Index tokens = 5;
  Index d_model = 8;
  Index num_heads = 2;
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

// Limits that keep every allocation of one call far below the WASM heap's maximum.
constexpr Index kMaxTokens = 2048;
constexpr Index kMaxDModel = 2048;
// Upper bound on doubles one multi-head forward may hold (about 512 MiB).
constexpr std::int64_t kMaxElements = 64LL * 1024 * 1024;

// Throws std::invalid_argument if (tokens, d_model, num_heads) is out of range or would need
// more than kMaxElements doubles. Messages say what was given and what is allowed.
void validate_sizes(std::int64_t tokens, std::int64_t d_model, std::int64_t num_heads);

}  // namespace headwise
