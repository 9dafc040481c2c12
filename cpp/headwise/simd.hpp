// Internal: the one vector type of the core's kernels (gemm.cpp, attention.cpp).
//
// GCC/Clang vector extensions, so one source becomes WebAssembly SIMD (-msimd128), SSE2 (the
// x86-64 baseline), AVX (with -march=native), or plain scalar code without SIMD. Every
// operation is an IEEE operation on each lane, and -ffp-contract=off keeps multiplies and adds
// separate, so a kernel gives the same bits whatever the width.
#pragma once

#include <cstdint>
#include <cstring>

#include "headwise/types.hpp"

namespace headwise {
namespace simd {

// 4 doubles with AVX (also on AVX-512 machines: on the Zen 4 this was tuned on, 512-bit
// operations run as two 256-bit halves and were no faster), otherwise 2: SSE2, WebAssembly
// SIMD, or scalar code when the target has no SIMD at all.
#if defined(__AVX__)
#define HEADWISE_LANES 4
#else
#define HEADWISE_LANES 2
#endif
constexpr Index kLanes = HEADWISE_LANES;
typedef double VecD __attribute__((vector_size(8 * HEADWISE_LANES)));
typedef std::int64_t VecI __attribute__((vector_size(8 * HEADWISE_LANES)));

inline VecD load(const double* p) {
  VecD v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store(double* p, VecD v) { std::memcpy(p, &v, sizeof v); }

inline VecD splat(double x) { return VecD{} + x; }

inline VecI bits(VecD v) {
  VecI i;
  std::memcpy(&i, &v, sizeof i);
  return i;
}

inline VecD from_bits(VecI i) {
  VecD v;
  std::memcpy(&v, &i, sizeof v);
  return v;
}

// Lane-wise a if mask (all ones) else b.
inline VecD select(VecI mask, VecD a, VecD b) {
  return from_bits((mask & bits(a)) | (~mask & bits(b)));
}

// True when every lane of x is below limit.
inline bool all_below(VecD x, double limit) {
  const VecI below = (VecI)(x < limit);
  bool all = true;
  for (Index l = 0; l < kLanes; ++l) all = all && below[l] != 0;
  return all;
}

// Below this, exp(x) rounds to +0.
constexpr double kExpZeroBelow = -745.2;

// exp(x) for x <= 0 (also -inf), lane by lane; within 2 ulp of glibc's exp (which is within 1 ulp
// of the exact value) over 6 million arguments down to -745, subnormal results included.
//   1. Below -745.2, exp(x) < 2^-1075 rounds to +0: those lanes give 0 directly (computing
//      them would go through subnormal numbers, which cost x86 cores a microcode assist).
//   2. n = round(x / ln 2) (adding and subtracting 1.5 * 2^52 rounds to the nearest integer),
//      r = x - n ln 2 in two steps (ln 2 = hi + lo, n * hi exact): |r| <= ln 2 / 2.
//   3. exp(r) by its Taylor series to r^13 (the next term is below 2^-60), evaluated by
//      Estrin's scheme (pairs, then powers r^2, r^4, r^8): a short dependency chain, which is
//      what limits a loop of these on an out-of-order core.
//   4. Scale by 2^n as 2^(n/2) * 2^(n - n/2): both factors stay normal, so results down in the
//      subnormal range are rounded once, correctly.
inline VecD exp_nonpositive(VecD x) {
  const VecI zero = (VecI)(x < kExpZeroBelow);
  x = select(zero, splat(-1.0), x);
  const VecD round = splat(6755399441055744.0);  // 1.5 * 2^52
  const VecD n = (x * 1.4426950408889634 + round) - round;
  const VecD r = (x - n * 0.6931471803691238) - n * 1.9082149292705877e-10;
  const VecD r2 = r * r;
  const VecD r4 = r2 * r2;
  const VecD r8 = r4 * r4;
  const VecD q0 = r + 1.0;  // c0 + c1 r, ..., c12 + c13 r with c_k = 1 / k!
  const VecD q1 = r * (1.0 / 6.0) + 0.5;
  const VecD q2 = r * (1.0 / 120.0) + 1.0 / 24.0;
  const VecD q3 = r * (1.0 / 5040.0) + 1.0 / 720.0;
  const VecD q4 = r * (1.0 / 362880.0) + 1.0 / 40320.0;
  const VecD q5 = r * (1.0 / 39916800.0) + 1.0 / 3628800.0;
  const VecD q6 = r * (1.0 / 6227020800.0) + 1.0 / 479001600.0;
  const VecD s0 = q1 * r2 + q0;
  const VecD s1 = q3 * r2 + q2;
  const VecD s2 = q5 * r2 + q4;
  const VecD p = (q6 * r4 + s2) * r8 + (s1 * r4 + s0);
  const VecD half = (n * 0.5 + round) - round;  // n1 = round(n / 2), n2 = n - n1
  const VecI n1 = bits(half + round) - bits(round);
  const VecI n2 = bits((n - half) + round) - bits(round);
  return select(zero, VecD{}, p * from_bits((n1 + 1023) << 52) * from_bits((n2 + 1023) << 52));
}

}  // namespace simd
}  // namespace headwise
