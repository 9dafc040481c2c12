// The core's one matrix-product kernel: C = A @ B and C = A @ B^T in float64, one thread.
//
// Every product of the forward passes (projections, q k^T, weights @ v, output projection)
// goes through gemm(). It is written once with GCC/Clang vector extensions, so the same source
// becomes WebAssembly SIMD (-msimd128), SSE2 (the x86-64 baseline), AVX or AVX-512 (with
// -march=native), or plain scalar code when no SIMD is enabled.
//
// Results do not depend on the SIMD width: every element of C is the same sum in the same
// order, c[i][j] = (s_0 + s_1) + s_2 + ... over consecutive blocks of kKc products, each
// block summed in increasing k with separate multiplies and adds (no fused multiply-add), so
// native builds and the WASM module agree to the last bit.
#pragma once

#include <Eigen/Core>
#include <string>

#include "headwise/types.hpp"

namespace headwise {

// Length of the blocks of the k sum (see above). Fixed, so that results never depend on the
// build.
constexpr Index kKc = 256;

// A row-major matrix in memory: element (i, j) is data[i * stride + j].
struct ConstMatrixView {
  const double* data;
  Index rows, cols, stride;
};
struct MatrixView {
  double* data;
  Index rows, cols, stride;
};

// a: (m, k), b: (k, n) -> c: (m, n) = a @ b.
// With transpose_b, b is (n, k) and c = a @ b^T (b's rows are c's columns, e.g. q @ k^T).
// c must not overlap a or b. Shapes are the caller's contract (checked with assert only).
void gemm(ConstMatrixView a, ConstMatrixView b, bool transpose_b, MatrixView c);

// The backward's forms, read in place instead of from a transposed or separate copy:
//   transpose_a: a is (k, m) in memory and the product is a^T @ b (e.g. inp^T @ dout);
//   accumulate:  c = c + (a @ b), each element's whole sum (as above) added to c's value once,
//                the same bits as computing the product apart and adding it (dinp += product).
struct GemmOptions {
  bool transpose_a = false;
  bool transpose_b = false;
  bool accumulate = false;
};
void gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, GemmOptions options);

// True when every one of the n values at p is finite: the fast O(n) pass that guards the
// products (inputs to them are checked with it first, and only a failure pays for the slower
// require_finite that names the first bad element).
bool all_finite(const double* p, Index n);
template <typename Derived>
bool all_finite(const Eigen::PlainObjectBase<Derived>& m) {
  return all_finite(m.data(), m.size());
}

// The kernel this build uses, e.g. "2 x f64 lanes (SSE2 / WASM SIMD), 4 x 4 tile".
std::string gemm_description();

// Views of row-major Eigen objects with unit inner stride: matrices and their blocks
// (m.middleCols(h * d_head, d_head) is the view of head h's columns).
template <typename Derived>
ConstMatrixView const_view(const Eigen::DenseBase<Derived>& m) {
  static_assert(Derived::IsRowMajor || Derived::ColsAtCompileTime == 1, "gemm views are row-major");
  return {m.derived().data(), m.rows(), m.cols(), m.derived().outerStride()};
}
template <typename Derived>
MatrixView mutable_view(Eigen::DenseBase<Derived>& m) {
  static_assert(Derived::IsRowMajor, "gemm views are row-major");
  return {m.derived().data(), m.rows(), m.cols(), m.derived().outerStride()};
}

// (m, k) @ (k, n) -> (m, n), a fresh matrix.
template <typename A, typename B>
Matrix matmul(const Eigen::DenseBase<A>& a, const Eigen::DenseBase<B>& b) {
  Matrix c(a.rows(), b.cols());
  gemm(const_view(a), const_view(b), false, mutable_view(c));
  return c;
}

// (m, k) @ (n, k)^T -> (m, n), a fresh matrix.
template <typename A, typename B>
Matrix matmul_transposed(const Eigen::DenseBase<A>& a, const Eigen::DenseBase<B>& b) {
  Matrix c(a.rows(), b.rows());
  gemm(const_view(a), const_view(b), true, mutable_view(c));
  return c;
}

}  // namespace headwise
