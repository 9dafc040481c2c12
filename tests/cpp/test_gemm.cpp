// gemm: the core's one matrix-product kernel. Every element must be the documented sum, in the
// documented order, bit for bit, whatever the SIMD width the build chose.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "fixtures.hpp"
#include "headwise/gemm.hpp"
#include "headwise/numpy_random.hpp"

using headwise::gemm;
using headwise::Index;
using headwise::kKc;
using headwise::matmul;
using headwise::matmul_transposed;
using headwise::Matrix;
using headwise::NumpyRandomState;
using headwise::test::expect_equal;
using headwise::test::expect_near;
using headwise::test::reference_product;

namespace {

bool bit_equal(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

}  // namespace

TEST_CASE("gemm: a @ b and a @ b^T are the documented sums, bit for bit", "[gemm]") {
  NumpyRandomState rng(2024);
  // Sizes around the register tiles (4, 6, 8, 12, 16), the row block (96) and kKc (256).
  const Index dims[] = {1, 2, 3, 5, 8, 13, 17, 97};
  const Index depths[] = {1, 2, 7, 64, 255, 256, 257, 600};
  int mismatches = 0;
  for (Index m : dims) {
    for (Index n : dims) {
      for (Index k : depths) {
        const Matrix a = rng.randn(m, k);
        const Matrix b = rng.randn(k, n);
        const Matrix expected = reference_product(a, b);
        const Matrix ab = matmul(a, b);
        const Matrix bt = b.transpose();
        const Matrix abt = matmul_transposed(a, bt);
        if (!bit_equal(ab, expected) || !bit_equal(abt, expected)) {
          ++mismatches;
          const std::string shape = "(" + std::to_string(m) + ", " + std::to_string(k) + ") @ (" +
                                    std::to_string(k) + ", " + std::to_string(n) + ")";
          expect_equal(ab, expected, "matmul " + shape);
          expect_equal(abt, expected, "matmul_transposed " + shape);
        }
      }
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("gemm: transpose_a and accumulate are the transposed copy's product added apart, bit "
          "for bit", "[gemm]") {
  // What the backward did before reading in place: t = a^T copied, p = t @ b (or t @ b^T) apart,
  // then c += p. Every path of the kernel (direct, small a @ b^T, packed with one or more k
  // blocks) in every combination of the options, onto a c that holds -0, +-inf and NaN too.
  NumpyRandomState rng(45);
  const Index dims[] = {1, 3, 4, 5, 8, 13, 48, 97};
  const Index depths[] = {1, 4, 16, 255, 257, 512};
  int mismatches = 0;
  for (Index m : dims) {
    for (Index n : dims) {
      for (Index k : depths) {
        const Matrix a = rng.randn(m, k), b = rng.randn(k, n);
        const Matrix at = a.transpose(), bt = b.transpose();
        Matrix c0 = rng.randn(m, n);
        c0(0, 0) = -0.0;
        if (m * n > 3) {
          c0(m - 1, n - 1) = std::numeric_limits<double>::infinity();
          c0(m / 2, n / 2) = std::numeric_limits<double>::quiet_NaN();
        }
        const Matrix expected = reference_product(a, b);
        Matrix added = c0;
        added += expected;
        for (int form = 0; form < 8; ++form) {
          const headwise::GemmOptions o{(form & 1) != 0, (form & 2) != 0, (form & 4) != 0};
          Matrix c = c0;
          gemm(headwise::const_view(o.transpose_a ? at : a), headwise::const_view(o.transpose_b ? bt : b),
               headwise::mutable_view(c), o);
          const Matrix& want = o.accumulate ? added : expected;
          if (!bit_equal(c, want)) {
            ++mismatches;
            expect_equal(c, want,
                         "(" + std::to_string(m) + ", " + std::to_string(k) + ") @ (" +
                             std::to_string(k) + ", " + std::to_string(n) + "), transpose_a " +
                             std::to_string(o.transpose_a) + ", transpose_b " +
                             std::to_string(o.transpose_b) + ", accumulate " +
                             std::to_string(o.accumulate));
          }
        }
      }
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("gemm: blocks of a larger matrix (head columns) are read through their stride",
          "[gemm]") {
  NumpyRandomState rng(7);
  const Matrix q = rng.randn(9, 24);   // (n, d_model), 3 heads of 8
  const Matrix k = rng.randn(11, 24);  // (S, d_model)
  const Matrix v = rng.randn(11, 24);
  for (Index h = 0; h < 3; ++h) {
    const Matrix qh = q.middleCols(h * 8, 8);
    const Matrix kh = k.middleCols(h * 8, 8);
    const Matrix vh = v.middleCols(h * 8, 8);
    const std::string head = "head " + std::to_string(h);
    expect_equal(matmul_transposed(q.middleCols(h * 8, 8), k.middleCols(h * 8, 8)),
                 reference_product(qh, Matrix(kh.transpose())), head + " q k^T");
    const Matrix w = rng.randn(9, 11);
    expect_equal(matmul(w, v.middleCols(h * 8, 8)), reference_product(w, vh), head + " w v");
  }
  // Writing into a block of a larger matrix leaves the other columns alone.
  Matrix concat = Matrix::Constant(9, 24, -7.0);
  auto block = concat.middleCols(8, 8);
  const Matrix a = rng.randn(9, 5);
  const Matrix b = rng.randn(5, 8);
  gemm(headwise::const_view(a), headwise::const_view(b), false, headwise::mutable_view(block));
  expect_equal(Matrix(concat.middleCols(8, 8)), reference_product(a, b), "written block");
  CHECK((concat.leftCols(8).array() == -7.0).all());
  CHECK((concat.rightCols(8).array() == -7.0).all());
}

TEST_CASE("gemm: agrees with Eigen's product to rounding", "[gemm]") {
  NumpyRandomState rng(99);
  const Matrix a = rng.randn(40, 300);
  const Matrix b = rng.randn(300, 30);
  expect_near(matmul(a, b), Matrix(a * b), 1e-12, "matmul vs Eigen");
}

TEST_CASE("gemm: empty inner dimension gives zeros, empty outer dimensions do nothing", "[gemm]") {
  const Matrix a(3, 0);
  const Matrix b(0, 4);
  expect_equal(matmul(a, b), Matrix(Matrix::Zero(3, 4)), "(3, 0) @ (0, 4)");
  CHECK(matmul(Matrix(0, 5), Matrix(Matrix::Ones(5, 2))).size() == 0);
  CHECK(matmul_transposed(Matrix(Matrix::Ones(2, 5)), Matrix(0, 5)).size() == 0);
}

TEST_CASE("gemm: NaN and infinities propagate as in a plain sum of products", "[gemm]") {
  Matrix a(2, 2), b(2, 2);
  a << 1.0, std::numeric_limits<double>::quiet_NaN(),  //
      1.0, 2.0;
  b << std::numeric_limits<double>::infinity(), 1.0,  //
      1.0, 1.0;
  const Matrix c = matmul(a, b);
  CHECK(std::isnan(c(0, 0)));
  CHECK(std::isnan(c(0, 1)));
  CHECK(c(1, 0) == std::numeric_limits<double>::infinity());
  CHECK(c(1, 1) == 3.0);
}
