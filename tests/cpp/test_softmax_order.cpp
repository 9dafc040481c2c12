// softmax_row's sum, bit for bit, in the order attention.cpp documents: the exponentials of the
// first 4 * floor(n / 4) scores go into four partial sums s_(j mod 4) (only when n >= 4), which
// are added as (s_0 + s_1) + (s_2 + s_3); the remaining n mod 4 follow one by one. The order is
// what makes native and WASM agree to the last bit, whatever the SIMD width, so it is checked
// exactly, for every length from 1 to 9.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "headwise/attention.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/simd.hpp"

using headwise::Index;
using headwise::NumpyRandomState;

namespace {

// The core's exp (exp of x <= 0), taken lane by lane: lane 0 of a vector of x.
double core_exp(double x) { return headwise::simd::exp_nonpositive(headwise::simd::splat(x))[0]; }

std::vector<double> exponentials(const std::vector<double>& row) {
  double mx = -std::numeric_limits<double>::infinity();
  for (double s : row) mx = s > mx ? s : mx;
  std::vector<double> e;
  for (double s : row) e.push_back(core_exp(s - mx));
  return e;
}

std::vector<double> normalised(std::vector<double> e, double sum) {
  for (double& x : e) x /= sum;
  return e;
}

// The documented order.
std::vector<double> documented_softmax(const std::vector<double>& row) {
  const std::vector<double> e = exponentials(row);
  const std::size_t n = e.size();
  const std::size_t whole = n >= 4 ? n / 4 * 4 : 0;
  volatile double s[4] = {0.0, 0.0, 0.0, 0.0};
  for (std::size_t j = 0; j < whole; ++j) s[j % 4] = s[j % 4] + e[j];
  volatile double sum = (s[0] + s[1]) + (s[2] + s[3]);
  for (std::size_t j = whole; j < n; ++j) sum = sum + e[j];
  return normalised(e, sum);
}

// A plain left-to-right sum: differs from the documented order in the last bits of some rows,
// which shows that the comparison below can tell the two apart.
std::vector<double> sequential_softmax(const std::vector<double>& row) {
  const std::vector<double> e = exponentials(row);
  volatile double sum = 0.0;
  for (double x : e) sum = sum + x;
  return normalised(e, sum);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::string show(const std::vector<double>& v) {
  std::string s = "{";
  char buffer[32];
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%.17g", v[i]);
    s += (i ? ", " : "") + std::string(buffer);
  }
  return s + "}";
}

std::vector<double> core_softmax(std::vector<double> row) {
  headwise::softmax_row(row.data(), static_cast<Index>(row.size()));
  return row;
}

}  // namespace

TEST_CASE("softmax_row sums in the documented order, bit for bit, for lengths 1 to 9",
          "[attention][softmax][order]") {
  NumpyRandomState rng(44);
  for (Index n = 1; n <= 9; ++n) {
    int distinguishing = 0;  // rows where the sequential order gives other bits
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<double> row(static_cast<std::size_t>(n));
      for (double& x : row) x = rng.gauss() * 2.0;
      const std::vector<double> expected = documented_softmax(row);
      const std::vector<double> actual = core_softmax(row);
      if (!same_bits(actual, expected)) {
        FAIL("length " + std::to_string(n) + ", scores " + show(row) + ": got " + show(actual) +
             ", the documented order gives " + show(expected));
      }
      distinguishing += same_bits(sequential_softmax(row), expected) ? 0 : 1;
    }
    // From 4 on the two orders differ, and enough rows show it for the check to bite.
    INFO("length " << n << ": " << distinguishing << " of 200 rows tell the orders apart");
    if (n >= 4) CHECK(distinguishing > 0);
    if (n < 4) CHECK(distinguishing == 0);
  }
}

TEST_CASE("softmax_row({0, 0, 0, -3}): (s0 + s1) + (s2 + s3), not a running sum",
          "[attention][softmax][order]") {
  const std::vector<double> row = {0.0, 0.0, 0.0, -3.0};
  const std::vector<double> expected = documented_softmax(row);
  CHECK(!same_bits(sequential_softmax(row), expected));  // the two orders round differently
  const std::vector<double> actual = core_softmax(row);
  INFO("got " << show(actual) << ", expected " << show(expected));
  CHECK(same_bits(actual, expected));
}

TEST_CASE("softmax_rows uses the same order as softmax_row on every row",
          "[attention][softmax][order]") {
  NumpyRandomState rng(45);
  const headwise::Matrix scores = rng.randn(5, 8) * 3.0;
  const headwise::Matrix w = headwise::softmax_rows(scores);
  for (Index i = 0; i < 5; ++i) {
    std::vector<double> row(scores.row(i).data(), scores.row(i).data() + 8);
    const std::vector<double> expected = documented_softmax(row);
    const std::vector<double> actual(w.row(i).data(), w.row(i).data() + 8);
    CHECK(same_bits(actual, expected));
  }
}
