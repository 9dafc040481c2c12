#include "headwise/gemm.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "headwise/simd.hpp"

namespace headwise {

namespace {

// ---- tiles ------------------------------------------------------------------------------------
using simd::kLanes;
using simd::load;
using simd::store;
using simd::VecD;

// Register tile of the micro-kernel: kMr rows x kNr columns of C, in kMr * kNv accumulators,
// sized to fill the register file without spilling (each multiply needs a temporary, since
// multiply and add stay separate):
//   2 lanes:            4 x 4 ( 8 accumulators of 16 registers; WASM on x86-64 has 16 too)
//   4 lanes, AVX-512:   8 x 8 (16 of 32)
//   4 lanes, AVX2:      6 x 8 (12 of 16)
#if HEADWISE_LANES == 4 && defined(__AVX512F__)
constexpr Index kMr = 8, kNv = 2;
#elif HEADWISE_LANES == 4
constexpr Index kMr = 6, kNv = 2;
#else
constexpr Index kMr = 4, kNv = 2;
#endif
constexpr Index kNr = kNv * kLanes;

// Packed A holds each value kADup times. With 2 lanes the pair is one plain vector load:
// SSE2 has no load-and-broadcast instruction (AVX has vbroadcastsd, WASM v128.load64_splat).
constexpr Index kADup = kLanes == 2 ? 2 : 1;

// Cache blocks: an (kMc, kKc) block of A is packed once and swept by every column panel of a
// (kKc, kNc) block of B, which is packed once per k block.
constexpr Index kMc = (64 / kMr) * kMr;
constexpr Index kNc = 2048;

Index round_up(Index x, Index to) { return (x + to - 1) / to * to; }

// ---- packing ------------------------------------------------------------------------------

// A block (mc, kc) starting at a -> micro-panels of kMr rows, each stored k-major:
// panel[(k * kMr + i) * kADup + d] = a[i][k]. Rows past mc are zero.
// transposed: the block is read from at (kc, mc), a[i][k] = at[k][i].
void pack_a(const double* a, Index lda, bool transposed, Index mc, Index kc, double* out) {
  for (Index i0 = 0; i0 < mc; i0 += kMr) {
    const Index rows = std::min(kMr, mc - i0);
    for (Index i = 0; i < kMr; ++i) {
      for (Index k = 0; k < kc; ++k) {
        const double value =
            i >= rows ? 0.0 : transposed ? a[k * lda + i0 + i] : a[(i0 + i) * lda + k];
        for (Index d = 0; d < kADup; ++d) out[(k * kMr + i) * kADup + d] = value;
      }
    }
    out += kMr * kc * kADup;
  }
}

// B block (kc, nc) -> micro-panels of kNr columns, each stored k-major:
// panel[k * kNr + j] = b[k][j]. Columns past nc are zero.
// transposed: the block is read from bt (nc, kc), b[k][j] = bt[j][k].
// Both read the source row by row, in memory order: a walk down a column panel of a wide
// row-major matrix would jump a whole row (4 KiB for d_model 512) per element and defeat the
// hardware prefetchers.
void pack_b(const double* b, Index ldb, bool transposed, Index kc, Index nc, double* out) {
  const Index full = nc / kNr * kNr;  // columns in whole panels
  if (!transposed) {
    // Eight rows at a time: eight sequential read streams, and 8 * kNr contiguous writes per panel.
    for (Index k0 = 0; k0 < kc; k0 += 8) {
      const Index k1 = std::min(kc, k0 + 8);
      for (Index j0 = 0; j0 < full; j0 += kNr) {
        for (Index k = k0; k < k1; ++k) {
          const double* src = b + k * ldb + j0;
          double* dst = out + j0 * kc + k * kNr;
          for (Index j = 0; j < kNr; ++j) dst[j] = src[j];
        }
      }
      if (full < nc) {
        for (Index k = k0; k < k1; ++k) {
          const double* src = b + k * ldb;
          double* dst = out + full * kc + k * kNr;
          for (Index j = 0; j < kNr; ++j) dst[j] = full + j < nc ? src[full + j] : 0.0;
        }
      }
    }
    return;
  }
  for (Index j = 0; j < round_up(nc, kNr); ++j) {
    double* dst = out + (j / kNr) * kNr * kc + j % kNr;
    if (j < nc) {
      const double* src = b + j * ldb;
      for (Index k = 0; k < kc; ++k) dst[k * kNr] = src[k];
    } else {
      for (Index k = 0; k < kc; ++k) dst[k * kNr] = 0.0;
    }
  }
}

// ---- micro-kernel ---------------------------------------------------------------------------

// acc (kMr, kNr) = a_panel (kMr, kc) @ b_panel (kc, kNr), from packed panels.
// Then c (rows, cols) = acc (first k block) or c += acc (later blocks).
void micro_kernel(Index kc, const double* __restrict a, const double* __restrict b, double* c,
                  Index ldc, Index rows, Index cols, bool accumulate) {
  // 1. The k loop: kNv vectors of b, each multiplied by kMr broadcast values of a.
  //    Multiply and add are separate operations (-ffp-contract=off): s = s + a * b.
  VecD acc[kMr][kNv] = {};
  for (Index k = 0; k < kc; ++k) {
    VecD bv[kNv];
#pragma GCC unroll 4
    for (Index v = 0; v < kNv; ++v) bv[v] = load(b + v * kLanes);
#pragma GCC unroll 12
    for (Index i = 0; i < kMr; ++i) {
#if HEADWISE_LANES == 2
      const VecD ai = load(a + 2 * i);
#else
      const double ai = a[i];
#endif
#pragma GCC unroll 4
      for (Index v = 0; v < kNv; ++v) acc[i][v] = acc[i][v] + bv[v] * ai;
    }
    a += kMr * kADup;
    b += kNr;
  }
  // 2. Write back: whole tiles straight to c, edge tiles through a buffer.
  if (rows == kMr && cols == kNr) {
#pragma GCC unroll 12
    for (Index i = 0; i < kMr; ++i) {
#pragma GCC unroll 4
      for (Index v = 0; v < kNv; ++v) {
        double* p = c + i * ldc + v * kLanes;
        store(p, accumulate ? load(p) + acc[i][v] : acc[i][v]);
      }
    }
    return;
  }
  alignas(64) double tile[kMr * kNr];
  for (Index i = 0; i < kMr; ++i)
    for (Index v = 0; v < kNv; ++v) store(tile + i * kNr + v * kLanes, acc[i][v]);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) {
      double* p = c + i * ldc + j;
      *p = accumulate ? *p + tile[i * kNr + j] : tile[i * kNr + j];
    }
}

// Aligned scratch space for the packed blocks.
struct Scratch {
  explicit Scratch(Index doubles)
      : storage(new double[static_cast<std::size_t>(doubles) + 8]),
        data(reinterpret_cast<double*>((reinterpret_cast<std::uintptr_t>(storage.get()) + 63) &
                                       ~std::uintptr_t{63})) {}
  std::unique_ptr<double[]> storage;
  double* data;
};

// Products whose B is small enough to stay in cache (the training model's: (B n, d) @ (d, d),
// one head of a short sequence) skip the packing, whose copies and two allocations would cost
// more than the arithmetic. The sums are the same, in the same order (see gemm.hpp).
constexpr Index kDirectPanel = 32768;  // k * n doubles of B (256 KiB)
constexpr Index kSmallProduct = 4096;  // m * n * k, for a @ b^T
constexpr Index kSmallPanel = 1024;    // k * n of a B^T copied to the stack (8 KiB), for a @ b^T

// c = a @ b (or c + a @ b) without packing. Each c[i][j] is summed in increasing kk from 0 in a
// register, blocks of kKc summed apart and added in order, exactly like the micro-kernel; a
// tile of kDr rows x kDv vectors of columns at a time (then single vectors, then single
// columns), so that every value of B loaded serves kDr rows and kDr * kDv independent sums
// keep the adder busy. TA: a is stored transposed, (k, m). The tile is what measured fastest
// in each (tests/bench/train.mjs --before): natively 4 rows x 2 vectors; V8's code for the WASM
// kernel ran 2 x 2 faster than 4 x 2, 4 x 1 or 1 x 4.
#if defined(__wasm__)
constexpr Index kDr = 2, kDv = 2;
#else
constexpr Index kDr = 4, kDv = 2;
#endif

template <typename T>
T load_as(const double* p) {
  if constexpr (std::is_same_v<T, double>) {
    return *p;
  } else {
    return load(p);
  }
}
template <typename T>
void store_as(double* p, T x) {
  if constexpr (std::is_same_v<T, double>) {
    *p = x;
  } else {
    store(p, x);
  }
}

// acc = the sums over kk in [k0, k1) of rows i0 .. i0 + R - 1, columns j0 .. j0 + V * (lanes of
// T) - 1, each from 0 in increasing kk.
template <bool TA, Index R, Index V, typename T>
__attribute__((always_inline)) inline void direct_block(ConstMatrixView a, ConstMatrixView b,
                                                        Index k0, Index k1, Index i0, Index j0,
                                                        T (&acc)[R][V]) {
  constexpr Index kW = static_cast<Index>(sizeof(T) / sizeof(double));
  for (Index r = 0; r < R; ++r)
    for (Index v = 0; v < V; ++v) acc[r][v] = T{};
  for (Index kk = k0; kk < k1; ++kk) {
    const double* bk = b.data + kk * b.stride + j0;
    T bv[V];
#pragma GCC unroll 4
    for (Index v = 0; v < V; ++v) bv[v] = load_as<T>(bk + v * kW);
#pragma GCC unroll 4
    for (Index r = 0; r < R; ++r) {
      const double ar = TA ? a.data[kk * a.stride + i0 + r] : a.data[(i0 + r) * a.stride + kk];
#pragma GCC unroll 4
      for (Index v = 0; v < V; ++v) acc[r][v] = acc[r][v] + bv[v] * ar;
    }
  }
}

// c's tile at (i0, j0) = the whole sum, its kKc blocks added in order (or c + the whole sum).
template <bool TA, Index R, Index V, typename T>
__attribute__((always_inline)) inline void direct_tile(ConstMatrixView a, ConstMatrixView b,
                                                       MatrixView c, Index k, Index i0, Index j0,
                                                       bool accumulate) {
  constexpr Index kW = static_cast<Index>(sizeof(T) / sizeof(double));
  T total[R][V];
  direct_block<TA, R, V, T>(a, b, 0, std::min(k, kKc), i0, j0, total);
  for (Index pc = kKc; pc < k; pc += kKc) {
    T acc[R][V];
    direct_block<TA, R, V, T>(a, b, pc, std::min(k, pc + kKc), i0, j0, acc);
    for (Index r = 0; r < R; ++r)
      for (Index v = 0; v < V; ++v) total[r][v] = total[r][v] + acc[r][v];
  }
  for (Index r = 0; r < R; ++r) {
    for (Index v = 0; v < V; ++v) {
      double* p = c.data + (i0 + r) * c.stride + j0 + v * kW;
      store_as<T>(p, accumulate ? load_as<T>(p) + total[r][v] : total[r][v]);
    }
  }
}

template <bool TA, Index R>
void direct_rows(ConstMatrixView a, ConstMatrixView b, MatrixView c, Index k, Index i0,
                 bool accumulate) {
  Index j = 0;
  for (; j + kDv * kLanes <= c.cols; j += kDv * kLanes)
    direct_tile<TA, R, kDv, VecD>(a, b, c, k, i0, j, accumulate);
  if (kDv > 2 && j + 2 * kLanes <= c.cols) {
    direct_tile<TA, R, 2, VecD>(a, b, c, k, i0, j, accumulate);
    j += 2 * kLanes;
  }
  for (; j + kLanes <= c.cols; j += kLanes) direct_tile<TA, R, 1, VecD>(a, b, c, k, i0, j, accumulate);
  for (; j < c.cols; ++j) direct_tile<TA, R, 1, double>(a, b, c, k, i0, j, accumulate);
}

template <bool TA>
void direct_gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, Index k, bool accumulate) {
  Index i = 0;
  for (; i + kDr <= c.rows; i += kDr) direct_rows<TA, kDr>(a, b, c, k, i, accumulate);
  for (; i < c.rows; ++i) direct_rows<TA, 1>(a, b, c, k, i, accumulate);
}

// c = a @ b^T (or c + a @ b^T) for small products: c[i][j] = (0 + b[j][0] a[i][0]) +
// b[j][1] a[i][1] + ... (k <= kKc, one block).
void small_gemm_transposed(ConstMatrixView a, ConstMatrixView b, MatrixView c, bool accumulate) {
  const Index k = a.cols;
  for (Index i = 0; i < c.rows; ++i) {
    const double* ai = a.data + i * a.stride;
    for (Index j = 0; j < c.cols; ++j) {
      const double* bj = b.data + j * b.stride;
      double s = 0.0;
      for (Index kk = 0; kk < k; ++kk) s = s + bj[kk] * ai[kk];
      double* p = c.data + i * c.stride + j;
      *p = accumulate ? *p + s : s;
    }
  }
}

}  // namespace

bool all_finite(const double* p, Index n) {
  // x * 0 is 0 for every finite x and NaN for +-inf and NaN; one NaN makes the sum NaN.
  VecD acc0 = {}, acc1 = {};
  Index i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    acc0 = acc0 + load(p + i) * 0.0;
    acc1 = acc1 + load(p + i + kLanes) * 0.0;
  }
  const VecD acc = acc0 + acc1;
  double sum = 0.0;
  for (Index l = 0; l < kLanes; ++l) sum += acc[l];
  for (; i < n; ++i) sum += p[i] * 0.0;
  return sum == 0.0;
}

std::string gemm_description() {
  const char* isa =
#if defined(__AVX512F__)
      "AVX-512 registers";
#elif defined(__AVX__)
      "AVX";
#elif defined(__wasm_simd128__)
      "WebAssembly SIMD";
#elif defined(__SSE2__)
      "SSE2";
#elif defined(__wasm__)
      "WebAssembly without SIMD (scalar code)";
#else
      "generic vectors";
#endif
  return std::to_string(kLanes) + " f64 lanes (" + isa + "), " + std::to_string(kMr) + " x " +
         std::to_string(kNr) + " register tile, kc " + std::to_string(kKc) + ", mc " +
         std::to_string(kMc);
}

void gemm(ConstMatrixView a, ConstMatrixView b, bool transpose_b, MatrixView c) {
  gemm(a, b, c, GemmOptions{false, transpose_b, false});
}

void gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, GemmOptions o) {
  // a: (m, k), or (k, m) with transpose_a; b: (k, n), or (n, k) with transpose_b; c: (m, n)
  const Index m = o.transpose_a ? a.cols : a.rows;
  const Index k = o.transpose_a ? a.rows : a.cols;
  const Index n = o.transpose_b ? b.rows : b.cols;
  assert(c.rows == m && c.cols == n && (o.transpose_b ? b.cols : b.rows) == k);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (Index i = 0; i < m; ++i) {
      double* ci = c.data + i * c.stride;
      for (Index j = 0; j < n; ++j) ci[j] = o.accumulate ? ci[j] + 0.0 : 0.0;
    }
    return;
  }
  if (!o.transpose_b && k * n <= kDirectPanel) {
    if (o.transpose_a) {
      direct_gemm<true>(a, b, c, k, o.accumulate);
    } else {
      direct_gemm<false>(a, b, c, k, o.accumulate);
    }
    return;
  }
  if (o.transpose_b && !o.transpose_a && k * n <= kSmallPanel) {
    // B^T is copied to the stack once: then the direct kernel's vectors run along its rows.
    alignas(64) double bt[kSmallPanel];
    for (Index j = 0; j < n; ++j)
      for (Index kk = 0; kk < k; ++kk) bt[kk * n + j] = b.data[j * b.stride + kk];
    direct_gemm<false>(a, ConstMatrixView{bt, k, n, n}, c, k, o.accumulate);
    return;
  }
  if (o.transpose_b && !o.transpose_a && k <= kKc && m * n * k <= kSmallProduct) {
    small_gemm_transposed(a, b, c, o.accumulate);
    return;
  }
  if (o.accumulate && k > kKc) {
    // The blocks' sums are added up in c before c's own value can be added: a product apart.
    Matrix product(m, n);
    gemm(a, b, mutable_view(product), GemmOptions{o.transpose_a, o.transpose_b, false});
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j) c.data[i * c.stride + j] += product(i, j);
    return;
  }
  const Index nc_max = std::min(kNc, round_up(n, kNr));
  const Index mc_max = std::min(kMc, round_up(m, kMr));
  const Index kc_max = std::min(kKc, k);
  Scratch packed_b(nc_max * kc_max);
  Scratch packed_a(mc_max * kc_max * kADup);

  // 1. Column blocks of C (kNc wide).
  for (Index jc = 0; jc < n; jc += kNc) {
    const Index nc = std::min(kNc, n - jc);
    // 2. Blocks of the k sum, in increasing k: the first writes C (or adds to it with
    //    accumulate, then the only block), the rest add to it.
    for (Index pc = 0; pc < k; pc += kKc) {
      const Index kc = std::min(kKc, k - pc);
      const double* b_block =
          o.transpose_b ? b.data + jc * b.stride + pc : b.data + pc * b.stride + jc;
      pack_b(b_block, b.stride, o.transpose_b, kc, nc, packed_b.data);
      // 3. Row blocks of C (kMc tall): pack A's block, then sweep the register tiles.
      for (Index ic = 0; ic < m; ic += kMc) {
        const Index mc = std::min(kMc, m - ic);
        const double* a_block =
            o.transpose_a ? a.data + pc * a.stride + ic : a.data + ic * a.stride + pc;
        pack_a(a_block, a.stride, o.transpose_a, mc, kc, packed_a.data);
        for (Index jr = 0; jr < nc; jr += kNr) {
          const double* b_panel = packed_b.data + (jr / kNr) * kNr * kc;
          for (Index ir = 0; ir < mc; ir += kMr) {
            micro_kernel(kc, packed_a.data + (ir / kMr) * kMr * kc * kADup, b_panel,
                         c.data + (ic + ir) * c.stride + jc + jr, c.stride, std::min(kMr, mc - ir),
                         std::min(kNr, nc - jr), pc > 0 || o.accumulate);
          }
        }
      }
    }
  }
}

}  // namespace headwise
