#include "headwise/numpy_random.hpp"

#include "headwise/error.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace headwise {

namespace {

void check_seed(std::int64_t seed) {
  if (seed < 0 || seed > kMaxSeed) {
    throw Error("integerRange", "seed",
                {{"value", integer(seed)}, {"min", integer(0)}, {"max", integer(kMaxSeed)}},
                "seed (" + std::to_string(seed) + ") must be an integer between 0 and 4294967295");
  }
}

}  // namespace

NumpyRandomState::NumpyRandomState(std::int64_t seed) { this->seed(seed); }

void NumpyRandomState::seed(std::int64_t seed) {
  check_seed(seed);
  // numpy's init_genrand: mt[0] = s; mt[i] = 1812433253 * (mt[i-1] ^ (mt[i-1] >> 30)) + i,
  // which is exactly std::mt19937's seeding.
  mt_.seed(static_cast<std::uint32_t>(seed));
  has_gauss_ = false;
  gauss_ = 0.0;
}

std::uint32_t NumpyRandomState::next_uint32() { return static_cast<std::uint32_t>(mt_()); }

double NumpyRandomState::random_double() {
  // numpy's random_standard_uniform / legacy_double: (a * 2^26 + b) / 2^53 with
  // a = top 27 bits of one draw and b = top 26 bits of the next.
  const std::uint32_t a = next_uint32() >> 5;
  const std::uint32_t b = next_uint32() >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double NumpyRandomState::gauss() {
  // numpy's legacy_gauss: the polar Box-Muller method. Each accepted pair yields two normals;
  // the second is cached and returned by the next call.
  if (has_gauss_) {
    has_gauss_ = false;
    const double cached = gauss_;
    gauss_ = 0.0;
    return cached;
  }
  double x1 = 0.0, x2 = 0.0, r2 = 0.0;
  do {
    x1 = 2.0 * random_double() - 1.0;
    x2 = 2.0 * random_double() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

Matrix NumpyRandomState::randn(Index rows, Index cols) {
  if (rows < 0 || cols < 0) {
    throw Error("internal", "", {{"rows", integer(rows)}, {"cols", integer(cols)}},
                "randn shape (" + std::to_string(rows) + ", " + std::to_string(cols) +
                    ") must not be negative");
  }
  Matrix m(rows, cols);
  double* data = m.data();  // row-major: the same order numpy fills its array
  for (Index i = 0; i < m.size(); ++i) data[i] = gauss();
  return m;
}

Vector NumpyRandomState::randn(Index n) {
  if (n < 0) {
    throw Error("internal", "", {{"length", integer(n)}},
                "randn length (" + std::to_string(n) + ") must not be negative");
  }
  Vector v(n);
  for (Index i = 0; i < n; ++i) v[i] = gauss();
  return v;
}

std::int64_t NumpyRandomState::bounded_uint32(std::uint32_t rng) {
  // numpy's random_bounded_uint64_fill for rng <= 0xFFFFFFFF, use_masked = true.
  if (rng == 0) return 0;
  if (rng == 0xFFFFFFFFu) return next_uint32();
  std::uint32_t mask = rng;  // gen_mask: smear the top bit down
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  std::uint32_t value = 0;
  while ((value = (next_uint32() & mask)) > rng) {
  }
  return value;
}

IntMatrix NumpyRandomState::randint(std::int64_t high, Index rows, Index cols) {
  if (high < 1 || high > kMaxSeed + 1) {
    throw Error("internal", "", {{"value", integer(high)}, {"min", integer(1)}, {"max", integer(4294967296)}},
                "randint high (" + std::to_string(high) + ") must be between 1 and 4294967296");
  }
  if (rows < 0 || cols < 0) {
    throw Error("internal", "", {{"rows", integer(rows)}, {"cols", integer(cols)}},
                "randint shape (" + std::to_string(rows) + ", " + std::to_string(cols) +
                    ") must not be negative");
  }
  IntMatrix m(rows, cols);
  const auto rng = static_cast<std::uint32_t>(high - 1);
  std::int64_t* data = m.data();
  for (Index i = 0; i < m.size(); ++i) data[i] = bounded_uint32(rng);
  return m;
}

}  // namespace headwise
