// Exactly at the limits and one past them, numbers in messages at full precision, and the
// empty cases: the places where an off-by-one or a lost digit would otherwise go unnoticed.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "fixtures.hpp"
#include "headwise/compare.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/torch_layout.hpp"

using headwise::Index;
using headwise::Matrix;
using headwise::test::expect_near;

TEST_CASE("validate_sizes: exactly kMaxElements passes, one more token does not",
          "[limits][multi_head]") {
  using headwise::kMaxElements;
  using headwise::validate_sizes;
  // 7 n d + 4 d^2 + h n^2 with n 1792, d 960, h 16 is exactly 2^26 doubles (512 MiB).
  CHECK(7 * 1792 * 960 + 4 * 960 * 960 + 16 * 1792 * 1792 == kMaxElements);
  CHECK(kMaxElements == std::int64_t{1} << 26);
  CHECK_NOTHROW(validate_sizes(1792, 960, 16));
  // One more token is 64,080 doubles (0.49 MiB) over: the message rounds the need up.
  CHECK_THROWS_WITH(validate_sizes(1793, 960, 16),
                    "tokens (1793), d_model (960) and num_heads (16) would need 513 MiB; "
                    "at most 512 MiB is allowed");
  // The other limits, at and past their edges.
  CHECK_NOTHROW(validate_sizes(2048, 1, 1));
  CHECK_NOTHROW(validate_sizes(1, 2048, 2048));
  CHECK_THROWS_WITH(validate_sizes(2049, 1, 1), "tokens (2049) must be at most 2048");
  CHECK_THROWS_WITH(validate_sizes(1, 2049, 1), "d_model (2049) must be at most 2048");
  CHECK_THROWS_WITH(validate_sizes(1, 1, 2), "d_model (1) must be divisible by num_heads (2)");
  CHECK(headwise::head_dim(1, 1) == 1);
}

TEST_CASE("torch_mha_forward: 16 heads with L = S = 2048 is exactly the limit and runs",
          "[limits][torch]") {
  // num_heads x L x S = 16 x 2048 x 2048 = 2^26 attention weights: allowed.
  headwise::TorchMhaConfig c;
  c.embed_dim = 16;
  c.num_heads = 16;
  c.bias = false;
  headwise::TorchMhaParams p;
  // q = k = v = the inputs; the query is all zeros, so every score is 0, every head attends
  // uniformly, and each output row is the mean of the value rows.
  Matrix in(48, 16);
  in << Matrix::Identity(16, 16), Matrix::Identity(16, 16), Matrix::Identity(16, 16);
  p.in_proj_weight = in;
  p.out_proj_weight = Matrix::Identity(16, 16);
  headwise::NumpyRandomState rng(5);
  const Matrix key = rng.randn(2048, 16);
  const Matrix value = rng.randn(2048, 16);
  const Matrix query = Matrix::Zero(2048, 16);
  headwise::TorchForwardOptions o;
  o.need_weights = false;
  const headwise::TorchForwardResult r = headwise::torch_mha_forward(c, p, query, key, value, o);
  REQUIRE(r.attn_output.rows() == 2048);
  REQUIRE(r.attn_output.cols() == 16);
  CHECK(r.attn_weights.empty());
  const Matrix mean = value.colwise().mean();
  expect_near(Matrix(r.attn_output.topRows(1)), mean, 1e-12, "first row = mean of values");
  expect_near(Matrix(r.attn_output.bottomRows(1)), mean, 1e-12, "last row = mean of values");

  // One key more is over the token limit; one head more (embed_dim 17) over the weight limit.
  const Matrix kv = Matrix::Zero(2049, 16);
  CHECK_THROWS_WITH(headwise::torch_mha_forward(c, p, query, kv, kv, o),
                    "query length L (2048) and key length S (2049) must each be at most 2048");
  c.embed_dim = 17;
  c.num_heads = 17;
  p.in_proj_weight = Matrix::Zero(51, 17);
  p.out_proj_weight = Matrix::Zero(17, 17);
  const Matrix wide = Matrix::Zero(2048, 17);
  CHECK_THROWS_WITH(headwise::torch_mha_forward(c, p, wide, wide, wide, o),
                    "num_heads x L x S (71303168) attention weights must be at most 67108864");
}

TEST_CASE("messages show numbers with as many digits as it takes to read them back",
          "[errors][compare]") {
  const Matrix a = Matrix::Zero(1, 1);
  // -0.30000000000000004 needs all 17 significant digits.
  CHECK_THROWS_WITH(headwise::allclose(a, a, -0.30000000000000004),
                    "rtol (-0.30000000000000004) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, a, -0.3), "rtol (-0.3) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, a, 1e-5, -1.0000000000000002),
                    "atol (-1.0000000000000002) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, a, 1e-5, -5e-324),
                    "atol (-5e-324) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, a, -std::numeric_limits<double>::infinity()),
                    "rtol (-inf) must be a finite number >= 0");
  CHECK_NOTHROW(headwise::allclose(a, a, 0.0, 0.0));
}

TEST_CASE("compare_heads on empty heads: one pair, equal, divergence exactly 0",
          "[compare][heads]") {
  for (const Matrix& empty : {Matrix(0, 0), Matrix(0, 3)}) {
    const std::vector<headwise::HeadPair> pairs = headwise::compare_heads({empty, empty});
    REQUIRE(pairs.size() == 1);
    CHECK(pairs[0].a == 0);
    CHECK(pairs[0].b == 1);
    CHECK(pairs[0].allclose);
    CHECK(pairs[0].max_abs_diff == 0.0);
    CHECK(pairs[0].mean_js_divergence == 0.0);  // not 0 / 0
  }
  // Rows with no columns: each row's divergence is 0, and so is the mean.
  const std::vector<headwise::HeadPair> pairs =
      headwise::compare_heads({Matrix(3, 0), Matrix(3, 0)});
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].mean_js_divergence == 0.0);
}
