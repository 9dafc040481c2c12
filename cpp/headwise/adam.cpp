#include "headwise/adam.hpp"

#include <cmath>

namespace headwise {

void adam_update(double* param, const double* grad, double* m, double* v, Index n, std::int64_t t,
                 const AdamConfig& c) {
  // The operations in torch.optim.Adam's order (_single_tensor_adam):
  const double bias_correction1 = 1.0 - std::pow(c.beta1, static_cast<double>(t));
  const double bias_correction2 = 1.0 - std::pow(c.beta2, static_cast<double>(t));
  const double step_size = c.learning_rate / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  for (Index i = 0; i < n; ++i) {
    const double g = grad[i];
    m[i] = m[i] * c.beta1 + (1.0 - c.beta1) * g;      // exp_avg.mul_(b1).add_(g, alpha=1-b1)
    v[i] = v[i] * c.beta2 + (1.0 - c.beta2) * g * g;  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
    const double denom = std::sqrt(v[i]) / bias_correction2_sqrt + c.eps;  // eps after sqrt
    param[i] = param[i] + -step_size * m[i] / denom;  // param.addcdiv_(m, denom, -step_size)
  }
}

}  // namespace headwise
