#include "headwise/adam.hpp"

#include <cmath>

namespace headwise {

namespace {

// beta^t by repeated squaring: IEEE multiplies only, so the same bits natively and in WASM
// (libm's pow differs between the two in the last bit). Within an ulp or two of Python's
// beta ** t, far below the fixtures' tolerance.
double power(double beta, std::int64_t t) {
  double result = 1.0;
  for (; t > 0; t >>= 1) {
    if (t & 1) result *= beta;
    beta *= beta;
  }
  return result;
}

}  // namespace

void adam_update(double* param, const double* grad, double* m, double* v, Index n, std::int64_t t,
                 const AdamConfig& c) {
  // The operations in torch.optim.Adam's order (_single_tensor_adam):
  const double bias_correction1 = 1.0 - power(c.beta1, t);
  const double bias_correction2 = 1.0 - power(c.beta2, t);
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
