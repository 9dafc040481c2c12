// Adam exactly as torch.optim.Adam (PyTorch 1.13, weight_decay 0, amsgrad off), one tensor at
// a time: bias correction of both moments, eps added after the square root.
#pragma once

#include <cstdint>

#include "headwise/types.hpp"

namespace headwise {

struct AdamConfig {
  double learning_rate = 1e-2;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
};

// One update of n values at step t >= 1 (the count of updates so far, this one included):
//   m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
//   param -= (lr / (1 - beta1^t)) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// param, m, v: (n) updated in place; grad: (n).
void adam_update(double* param, const double* grad, double* m, double* v, Index n, std::int64_t t,
                 const AdamConfig& config);

}  // namespace headwise
