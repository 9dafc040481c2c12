// Checks that a mutation run found unexercised: the fast finiteness pass (all_finite) on its
// own, require_finite on clean input, and the PyTorch layer's checks of separate projections,
// of an unpacked out_proj_weight and of the configuration given to the forward itself.
#include <catch2/catch.hpp>
#include <limits>
#include <optional>
#include <string>

#include "headwise/gemm.hpp"
#include "headwise/shape.hpp"
#include "headwise/torch_layout.hpp"

using headwise::Index;
using headwise::Matrix;
using headwise::TorchMhaConfig;
using headwise::TorchMhaParams;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("all_finite: true for finite values of any length, false for one NaN or infinity",
          "[gemm][finite]") {
  // Lengths around the vector loop's step (2 or 4 lanes, two vectors at a time) and its tail.
  for (Index n = 0; n <= 19; ++n) {
    Matrix m(1, n);
    for (Index j = 0; j < n; ++j) m(0, j) = 1.5 + static_cast<double>(j) * -0.75;  // not 0
    INFO("length " << n);
    CHECK(headwise::all_finite(m.data(), n));
    CHECK(headwise::all_finite(m));
    for (Index j = 0; j < n; ++j) {
      for (double bad : {kNaN, kInf, -kInf}) {
        Matrix b = m;
        b(0, j) = bad;
        INFO("value " << bad << " at " << j);
        CHECK_FALSE(headwise::all_finite(b.data(), n));
      }
    }
  }
  // Huge finite values are finite (x * 0 is 0 for them too).
  Matrix big(1, 9);
  big.setConstant(std::numeric_limits<double>::max());
  big(0, 8) = -std::numeric_limits<double>::max();
  CHECK(headwise::all_finite(big));
}

TEST_CASE("require_finite accepts finite matrices and vectors of every shape", "[finite]") {
  for (Index rows : {1, 2, 5})
    for (Index cols : {1, 3}) {
      CHECK_NOTHROW(headwise::require_finite(Matrix(Matrix::Constant(rows, cols, 2.5)), "m"));
    }
  CHECK_NOTHROW(headwise::require_finite(Matrix(0, 3), "m"));
  CHECK_NOTHROW(headwise::require_finite(headwise::Vector(headwise::Vector::Ones(4)), "v"));
  Matrix m = Matrix::Zero(3, 2);
  m(2, 1) = -kInf;
  CHECK_THROWS_WITH(headwise::require_finite(m, "m"),
                    "m contains a non-finite value (-inf) at [2, 1]; all values must be finite");
}

TEST_CASE("unpack_lesson_weights: out_proj_weight must be square", "[errors][torch]") {
  TorchMhaParams p;
  p.in_proj_weight = Matrix::Constant(24, 8, 0.1);
  p.out_proj_weight = Matrix::Identity(8, 7);
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "out_proj_weight has shape (8, 7) but must be (8, 8)");
}

TEST_CASE("torch_mha_forward: separate projections are checked for shape and finiteness",
          "[errors][torch]") {
  TorchMhaConfig c;
  c.embed_dim = 8;
  c.num_heads = 2;
  c.kdim = 5;
  c.vdim = 7;
  c.bias = false;
  TorchMhaParams valid;
  valid.q_proj_weight = Matrix::Constant(8, 8, 0.1);
  valid.k_proj_weight = Matrix::Constant(8, 5, 0.1);
  valid.v_proj_weight = Matrix::Constant(8, 7, 0.1);
  valid.out_proj_weight = Matrix::Identity(8, 8);
  const Matrix x = Matrix::Ones(3, 8), key = Matrix::Ones(4, 5), value = Matrix::Ones(4, 7);
  CHECK_NOTHROW(headwise::torch_mha_forward(c, valid, x, key, value));

  TorchMhaParams p = valid;
  p.v_proj_weight = Matrix::Zero(8, 6);
  CHECK_THROWS_WITH(headwise::torch_mha_forward(c, p, x, key, value),
                    "v_proj_weight has shape (8, 6) but must be (8, 7)");
  p = valid;
  p.q_proj_weight = Matrix::Zero(7, 8);
  CHECK_THROWS_WITH(headwise::torch_mha_forward(c, p, x, key, value),
                    "q_proj_weight has shape (7, 8) but must be (8, 8)");
  const char* names[] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  for (int which = 0; which < 3; ++which) {
    p = valid;
    std::optional<Matrix>& w = which == 0   ? p.q_proj_weight
                               : which == 1 ? p.k_proj_weight
                                            : p.v_proj_weight;
    (*w)(1, 2) = kNaN;
    CHECK_THROWS_WITH(
        headwise::torch_mha_forward(c, p, x, key, value),
        std::string(names[which]) +
            " contains a non-finite value (nan) at [1, 2]; all values must be finite");
  }
  p = valid;
  p.out_proj_weight(7, 7) = kInf;
  CHECK_THROWS_WITH(
      headwise::torch_mha_forward(c, p, x, key, value),
      "out_proj_weight contains a non-finite value (inf) at [7, 7]; all values must be finite");
}

TEST_CASE("torch_mha_forward checks its configuration before anything else", "[errors][torch]") {
  TorchMhaParams p;
  p.in_proj_weight = Matrix::Constant(24, 8, 0.1);
  p.out_proj_weight = Matrix::Identity(8, 8);
  const Matrix x = Matrix::Ones(3, 8);
  TorchMhaConfig c;
  c.embed_dim = 8;
  c.bias = false;
  c.num_heads = 3;
  CHECK_THROWS_WITH(headwise::torch_mha_forward(c, p, x, x, x),
                    "embed_dim (8) must be divisible by num_heads (3)");
  c.num_heads = 0;
  CHECK_THROWS_WITH(headwise::torch_mha_forward(c, p, x, x, x),
                    "num_heads (0) must be a positive integer");
  c.num_heads = 2;
  c.kdim = -1;
  CHECK_THROWS_WITH(headwise::torch_mha_forward(c, p, x, x, x),
                    "kdim (-1) must be a positive integer");
}
