// gemm beyond one column block (kNc = 2048 columns of C), and reads and writes that must stay
// inside A, B and C. Every element is compared bit for bit with a plain reference sum.
//
// Two layouts per product:
// - exact allocations (matmul / matmul_transposed): a read or write one element past A, B or C
//   leaves the heap block, which the ASan lane reports;
// - views into larger matrices padded with NaN (A, B) and a sentinel (C): a read of a padding
//   element turns a result NaN and a write past C changes the sentinel, which the plain native
//   run sees.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "fixtures.hpp"
#include "headwise/gemm.hpp"
#include "headwise/numpy_random.hpp"

using headwise::const_view;
using headwise::gemm;
using headwise::Index;
using headwise::kKc;
using headwise::matmul;
using headwise::matmul_transposed;
using headwise::Matrix;
using headwise::mutable_view;
using headwise::NumpyRandomState;
using headwise::test::expect_equal;

using headwise::test::reference_product;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSentinel = -12345.5;

// The documented sum (fixtures.hpp's reference_product); bt is b transposed, (n, k).
Matrix reference(const Matrix& a, const Matrix& bt) { return reference_product(a, Matrix(bt.transpose())); }

// m (rows, cols) in the top-left corner of a (rows + 2, cols + 3) matrix filled with fill.
Matrix padded(const Matrix& m, double fill) {
  Matrix p = Matrix::Constant(m.rows() + 2, m.cols() + 3, fill);
  p.topLeftCorner(m.rows(), m.cols()) = m;
  return p;
}

std::string shape_name(Index m, Index k, Index n, bool transposed) {
  return "(" + std::to_string(m) + ", " + std::to_string(k) + ") @ " +
         (transposed ? "(" + std::to_string(n) + ", " + std::to_string(k) + ")^T"
                     : "(" + std::to_string(k) + ", " + std::to_string(n) + ")");
}

// One product both ways (exact and padded), transposed or not; returns whether all matched.
bool check_product(const Matrix& a, const Matrix& bt, const Matrix& expected, bool transposed) {
  const Index m = a.rows(), k = a.cols(), n = bt.rows();
  const std::string what = shape_name(m, k, n, transposed);
  const Matrix b = bt.transpose();  // (k, n)
  bool ok = true;
  // 1. Exact allocations.
  const Matrix exact = transposed ? matmul_transposed(a, bt) : matmul(a, b);
  ok = expect_equal(exact, expected, what) && ok;
  // 2. Views into NaN-padded inputs and a sentinel-padded output.
  const Matrix pa = padded(a, kNaN);
  const Matrix pb = padded(transposed ? bt : b, kNaN);
  const Index b_rows = transposed ? n : k, b_cols = transposed ? k : n;
  Matrix pc = Matrix::Constant(m + 2, n + 3, kSentinel);
  gemm({pa.data(), m, k, pa.cols()}, {pb.data(), b_rows, b_cols, pb.cols()}, transposed,
       {pc.data(), m, n, pc.cols()});
  ok = expect_equal(Matrix(pc.topLeftCorner(m, n)), expected, what + " through padded views") && ok;
  const bool untouched =
      (pc.rightCols(3).array() == kSentinel).all() && (pc.bottomRows(2).array() == kSentinel).all();
  if (!untouched) FAIL_CHECK(what + ": gemm wrote outside C");
  return ok && untouched;
}

}  // namespace

TEST_CASE("gemm: more than one column block (n around 2048 and 4096), bit for bit",
          "[gemm][wide]") {
  NumpyRandomState rng(2047);
  const Index widths[] = {2047, 2048, 2049, 4097};
  const Index rows[] = {1, 5};
  const Index depths[] = {3, 257};  // one k block, and two (the second one element long)
  int failures = 0;
  for (Index n : widths)
    for (Index m : rows)
      for (Index k : depths) {
        const Matrix a = rng.randn(m, k);
        const Matrix bt = rng.randn(n, k);
        const Matrix expected = reference(a, bt);
        for (bool transposed : {false, true}) {
          failures += check_product(a, bt, expected, transposed) ? 0 : 1;
        }
      }
  CHECK(failures == 0);
}

TEST_CASE("gemm: matmul_transposed(randn(1, 3), randn(2047, 3)) stays inside its buffers",
          "[gemm][wide]") {
  NumpyRandomState rng(0);
  const Matrix a = rng.randn(1, 3);
  const Matrix bt = rng.randn(2047, 3);
  expect_equal(matmul_transposed(a, bt), reference(a, bt), "(1, 3) @ (2047, 3)^T");
}

TEST_CASE("gemm: every edge of the register tile and the row block reads only A and B",
          "[gemm][edges]") {
  // m and n on both sides of multiples of the tiles (4, 6, 8 rows; 4, 8 columns) and of the
  // row block (64 / kMr * kMr: 64, 60 or 64), k across the first kKc block boundary.
  NumpyRandomState rng(77);
  const Index dims[] = {1, 3, 4, 5, 7, 9, 63, 65, 97};
  const Index depths[] = {1, 9, 256, 257};
  int failures = 0;
  for (Index m : dims)
    for (Index n : {Index{1}, Index{3}, Index{5}, Index{9}, Index{13}})
      for (Index k : depths) {
        const Matrix a = rng.randn(m, k);
        const Matrix bt = rng.randn(n, k);
        const Matrix expected = reference(a, bt);
        for (bool transposed : {false, true}) {
          failures += check_product(a, bt, expected, transposed) ? 0 : 1;
        }
      }
  CHECK(failures == 0);
}
