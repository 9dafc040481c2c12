// softmax_rows, masks and single-head scaled dot-product attention.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "fixtures.hpp"
#include "headwise/attention.hpp"
#include "headwise/numpy_random.hpp"

using headwise::AttentionResult;
using headwise::bool_mask_to_additive;
using headwise::BoolMatrix;
using headwise::causal_mask;
using headwise::Index;
using headwise::Matrix;
using headwise::NumpyRandomState;
using headwise::scaled_dot_product_attention;
using headwise::softmax_rows;
using headwise::test::expect_equal;
using headwise::test::expect_near;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool all_finite(const Matrix& m) { return m.array().isFinite().all(); }

// Reference softmax of one row, written out: exp(x - max) / sum.
Matrix reference_softmax(const Matrix& s) {
  Matrix out(s.rows(), s.cols());
  for (Index i = 0; i < s.rows(); ++i) {
    const double mx = s.row(i).maxCoeff();
    double sum = 0.0;
    for (Index j = 0; j < s.cols(); ++j) sum += std::exp(s(i, j) - mx);
    for (Index j = 0; j < s.cols(); ++j) out(i, j) = std::exp(s(i, j) - mx) / sum;
  }
  return out;
}

}  // namespace

TEST_CASE("softmax_rows: every row is a distribution that sums to 1", "[attention][softmax]") {
  NumpyRandomState rng(3);
  const Matrix scores = rng.randn(6, 9) * 4.0;  // (6, 9)
  const Matrix w = softmax_rows(scores);
  REQUIRE(w.rows() == 6);
  REQUIRE(w.cols() == 9);
  for (Index i = 0; i < w.rows(); ++i) {
    CHECK(w.row(i).sum() == Approx(1.0).margin(1e-15));
    CHECK(w.row(i).minCoeff() >= 0.0);
  }
  expect_near(w, reference_softmax(scores), 1e-15, "softmax vs exp(x - max) / sum");
}

TEST_CASE("softmax_rows: adding a constant to a row changes nothing", "[attention][softmax]") {
  NumpyRandomState rng(4);
  const Matrix scores = rng.randn(3, 5);
  const Matrix shifted = scores.array() + 1000.0;
  expect_near(softmax_rows(shifted), softmax_rows(scores), 1e-12, "softmax(x + 1000)");
}

TEST_CASE("softmax_rows: scores of +-1e300 neither overflow nor produce NaN",
          "[attention][softmax]") {
  Matrix scores(4, 3);
  scores << 1e300, -1e300, 0.0,  //
      -1e300, -1e300, -1e300,    //
      1e300, 1e300, -1e300,      //
      std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 1.0;
  const Matrix w = softmax_rows(scores);
  REQUIRE(all_finite(w));
  Matrix expected(4, 3);
  expected << 1.0, 0.0, 0.0,      //
      1.0 / 3, 1.0 / 3, 1.0 / 3,  //
      0.5, 0.5, 0.0,              //
      1.0, 0.0, 0.0;
  expect_near(w, expected, 1e-15, "softmax of huge scores");
}

TEST_CASE("softmax_rows: -inf scores get exactly zero weight", "[attention][softmax]") {
  Matrix scores(2, 4);
  scores << 0.5, -kInf, 1.5, -kInf,  //
      -kInf, 2.0, -kInf, -kInf;
  const Matrix w = softmax_rows(scores);
  CHECK(w(0, 1) == 0.0);
  CHECK(w(0, 3) == 0.0);
  CHECK(w(0, 0) + w(0, 2) == Approx(1.0).margin(1e-15));
  CHECK(w(0, 2) / w(0, 0) == Approx(std::exp(1.0)).epsilon(1e-14));
  Matrix row1(1, 4);
  row1 << 0.0, 1.0, 0.0, 0.0;
  expect_equal(Matrix(w.row(1)), row1, "single allowed key");
}

TEST_CASE("softmax_rows: a fully -inf row becomes all NaN, like torch.softmax",
          "[attention][softmax]") {
  Matrix scores(3, 3);
  scores << 1.0, 2.0, 3.0,  //
      -kInf, -kInf, -kInf,  //
      0.0, 0.0, 0.0;
  const Matrix w = softmax_rows(scores);
  for (Index j = 0; j < 3; ++j) CHECK(std::isnan(w(1, j)));
  CHECK(all_finite(w.row(0)));
  CHECK(all_finite(w.row(2)));
  expect_near(Matrix(w.row(0)), reference_softmax(scores.row(0)), 1e-15, "row 0");
}

TEST_CASE("softmax_rows: NaN in a row makes that row NaN", "[attention][softmax]") {
  Matrix scores(2, 3);
  scores << 1.0, kNaN, 3.0,  //
      1.0, 2.0, 3.0;
  const Matrix w = softmax_rows(scores);
  for (Index j = 0; j < 3; ++j) CHECK(std::isnan(w(0, j)));
  CHECK(all_finite(w.row(1)));
}

TEST_CASE("causal_mask: 0 where key j <= query i, -inf where j > i", "[attention][mask]") {
  Matrix expected(3, 3);
  expected << 0, -kInf, -kInf,  //
      0, 0, -kInf,              //
      0, 0, 0;
  expect_equal(causal_mask(3, 3), expected, "causal_mask(3, 3)");

  Matrix wide(2, 4);               // more keys than queries
  wide << 0, -kInf, -kInf, -kInf,  //
      0, 0, -kInf, -kInf;
  expect_equal(causal_mask(2, 4), wide, "causal_mask(2, 4)");
  CHECK(causal_mask(1, 1)(0, 0) == 0.0);
}

TEST_CASE("bool_mask_to_additive: true (not allowed) becomes -inf, false becomes 0",
          "[attention][mask]") {
  BoolMatrix mask(2, 3);
  mask << false, true, false,  //
      true, true, false;
  Matrix expected(2, 3);
  expected << 0, -kInf, 0,  //
      -kInf, -kInf, 0;
  expect_equal(bool_mask_to_additive(mask), expected, "bool_mask_to_additive");
}

TEST_CASE("scaled_dot_product_attention: softmax(q k^T / sqrt(d_k)) v", "[attention][sdpa]") {
  NumpyRandomState rng(11);
  const Matrix q = rng.randn(4, 3);  // (L=4, d_k=3)
  const Matrix k = rng.randn(6, 3);  // (S=6, d_k=3)
  const Matrix v = rng.randn(6, 5);  // (S=6, d_v=5)
  const AttentionResult r = scaled_dot_product_attention(q, k, v);
  REQUIRE(r.weights.rows() == 4);
  REQUIRE(r.weights.cols() == 6);
  REQUIRE(r.output.rows() == 4);
  REQUIRE(r.output.cols() == 5);
  const Matrix scores = (q * k.transpose()) / std::sqrt(3.0);
  const Matrix expected_w = reference_softmax(scores);
  expect_near(r.weights, expected_w, 1e-15, "weights");
  expect_near(r.output, Matrix(expected_w * v), 1e-14, "output");
}

TEST_CASE("scaled_dot_product_attention: an additive mask shifts or removes keys",
          "[attention][sdpa]") {
  NumpyRandomState rng(12);
  const Matrix q = rng.randn(3, 2);
  const Matrix k = rng.randn(3, 2);
  const Matrix v = rng.randn(3, 4);
  const Matrix causal = causal_mask(3, 3);
  const AttentionResult r = scaled_dot_product_attention(q, k, v, &causal);
  // Query 0 sees only key 0.
  CHECK(r.weights(0, 0) == 1.0);
  CHECK(r.weights(0, 1) == 0.0);
  CHECK(r.weights(0, 2) == 0.0);
  CHECK(r.weights(1, 2) == 0.0);
  expect_near(Matrix(r.output.row(0)), Matrix(v.row(0)), 0.0, "query 0 output = v[0]");

  Matrix shift = Matrix::Zero(3, 3);
  shift(1, 0) = 2.5;
  const AttentionResult s = scaled_dot_product_attention(q, k, v, &shift);
  const Matrix scores = (q * k.transpose()) / std::sqrt(2.0) + shift;
  expect_near(s.weights, reference_softmax(scores), 1e-15, "weights with a float mask");
}

TEST_CASE("scaled_dot_product_attention: a fully masked query row gives a NaN output row",
          "[attention][sdpa]") {
  NumpyRandomState rng(13);
  const Matrix q = rng.randn(2, 2);
  const Matrix k = rng.randn(3, 2);
  const Matrix v = rng.randn(3, 2);
  Matrix mask = Matrix::Zero(2, 3);
  mask.row(1).setConstant(-kInf);
  const AttentionResult r = scaled_dot_product_attention(q, k, v, &mask);
  CHECK(all_finite(r.output.row(0)));
  CHECK(r.output.row(1).array().isNaN().all());
  CHECK(r.weights.row(1).array().isNaN().all());
}

TEST_CASE("scaled_dot_product_attention: shape errors say what was given",
          "[attention][sdpa][errors]") {
  const Matrix q = Matrix::Ones(5, 4);
  const Matrix k = Matrix::Ones(5, 4);
  const Matrix v = Matrix::Ones(5, 6);
  CHECK_THROWS_AS(scaled_dot_product_attention(q, Matrix::Ones(5, 3), v), std::invalid_argument);
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, Matrix::Ones(5, 3), v),
                    "k has 3 columns but q has 4; q and k must have the same feature size");
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, k, Matrix::Ones(4, 6)),
                    "v has 4 rows but k has 5; k and v must have one row per key");
  const Matrix bad_mask = Matrix::Zero(5, 4);
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, k, v, &bad_mask),
                    "attention mask has shape (5, 4) but must be (5, 5)");
  CHECK_THROWS_WITH(scaled_dot_product_attention(Matrix(0, 4), k, v),
                    "q has shape (0, 4); it must have at least one row and one column");
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, Matrix(5, 0), v),
                    "k has shape (5, 0); it must have at least one row and one column");
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, k, Matrix(0, 6)),
                    "v has shape (0, 6); it must have at least one row and one column");
}

TEST_CASE("softmax_row is softmax_rows on one row, in place", "[attention][softmax]") {
  NumpyRandomState rng(31);
  const Matrix scores = rng.randn(3, 7) * 3.0;
  const Matrix all = softmax_rows(scores);
  for (Index i = 0; i < 3; ++i) {
    Matrix row = scores.row(i);  // (1, 7)
    headwise::softmax_row(row.data(), row.cols());
    expect_equal(row, Matrix(all.row(i)), "row " + std::to_string(i));
  }
  double masked[3] = {-kInf, -kInf, -kInf};
  headwise::softmax_row(masked, 3);
  CHECK(std::isnan(masked[0]));
  CHECK(std::isnan(masked[2]));
}

TEST_CASE("attention_forward's causal flag is the causal mask, bit for bit", "[attention][sdpa]") {
  NumpyRandomState rng(32);
  const Matrix q = rng.randn(4, 3);  // (L=4, d_k=3)
  const Matrix k = rng.randn(6, 3);  // (S=6, d_k=3): more keys than queries
  const Matrix v = rng.randn(6, 2);  // (S=6, d_v=2)
  const Matrix mask = causal_mask(4, 6);
  const AttentionResult expected = scaled_dot_product_attention(q, k, v, &mask);
  Matrix weights(4, 6), output(4, 2);
  headwise::attention_forward(headwise::const_view(q), headwise::const_view(k),
                              headwise::const_view(v), nullptr, /*causal=*/true,
                              headwise::mutable_view(weights), headwise::mutable_view(output));
  expect_equal(weights, expected.weights, "weights");
  expect_equal(output, expected.output, "output");
  CHECK(weights(0, 1) == 0.0);
  CHECK(weights(3, 4) == 0.0);
}
