// NumPy's legacy RandomState (np.random.seed + np.random.randn), bit for bit.
//
// MT19937 seeded like numpy's init_genrand (std::mt19937 uses the same recurrence),
// random_double from two 32-bit draws (27 + 26 bits -> 53-bit double), and the legacy polar
// Box-Muller transform that returns one value and caches the second for the next call.
#pragma once

#include <cstdint>
#include <random>

#include "headwise/types.hpp"

namespace headwise {

// Largest seed np.random.seed accepts as a plain integer: 2^32 - 1.
constexpr std::int64_t kMaxSeed = 4294967295LL;

class NumpyRandomState {
 public:
  // Throws std::invalid_argument unless 0 <= seed <= 2^32 - 1.
  explicit NumpyRandomState(std::int64_t seed);

  // np.random.seed(seed): resets the generator and drops the cached gaussian.
  void seed(std::int64_t seed);

  // One raw 32-bit MT19937 output.
  std::uint32_t next_uint32();
  // np.random.random_sample(): a double in [0, 1) with 53 random bits.
  double random_double();
  // One standard normal from numpy's legacy_gauss (polar method with a cached second value).
  double gauss();

  // np.random.randn(rows, cols): filled row by row. rows, cols >= 0.
  Matrix randn(Index rows, Index cols);
  // np.random.randn(n).
  Vector randn(Index n);
  // np.random.randint(high, size=(rows, cols)): integers in [0, high), filled row by row, by
  // NumPy 1.24's legacy int64 path (masked rejection on 32-bit draws). 1 <= high <= 2^32.
  IntMatrix randint(std::int64_t high, Index rows, Index cols);
  // One draw of that path: rng = high - 1; mask = the smallest 2^k - 1 >= rng; draw a 32-bit
  // output, keep `& mask`, and draw again while the result is > rng. rng == 0 draws nothing.
  std::int64_t bounded_uint32(std::uint32_t rng);

 private:
  std::mt19937 mt_;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace headwise
