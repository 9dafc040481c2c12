// head_dim, split_head / merge_heads and multi_head_attention on given weights.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/attention.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/numpy_random.hpp"

using headwise::head_dim;
using headwise::Index;
using headwise::Matrix;
using headwise::merge_heads;
using headwise::MhaResult;
using headwise::MhaWeights;
using headwise::multi_head_attention;
using headwise::NumpyRandomState;
using headwise::split_head;
using headwise::test::expect_equal;
using headwise::test::expect_near;
using headwise::test::fixture_cases;
using headwise::test::Json;
using headwise::test::to_matrices;
using headwise::test::to_matrix;
using headwise::test::to_vector;

namespace {

constexpr double kTol = 1e-12;

// m(i, j) = 100 i + j, so every element says where it came from.
Matrix labelled(Index rows, Index cols) {
  Matrix m(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) m(i, j) = 100.0 * i + j;
  return m;
}

MhaWeights weights_from_fixture(const Json& c) {
  MhaWeights w;
  w.wq = to_matrix(c.at("wq"));
  w.wk = to_matrix(c.at("wk"));
  w.wv = to_matrix(c.at("wv"));
  w.wo = to_matrix(c.at("wo"));
  if (c.at("bias").get<bool>()) {
    w.bq = to_vector(c.at("bq"));
    w.bk = to_vector(c.at("bk"));
    w.bv = to_vector(c.at("bv"));
    w.bo = to_vector(c.at("bo"));
  }
  return w;
}

std::string case_label(const Json& c) {
  return "seed " + std::to_string(c.at("seed").get<std::int64_t>()) + " tokens " +
         std::to_string(c.at("tokens").get<int>()) + " d_model " +
         std::to_string(c.at("d_model").get<int>()) + " heads " +
         std::to_string(c.at("num_heads").get<int>()) + (c.at("bias").get<bool>() ? " bias" : "") +
         (c.at("causal").get<bool>() ? " causal" : "");
}

}  // namespace

TEST_CASE("head_dim is d_model / num_heads", "[multi_head]") {
  CHECK(head_dim(8, 1) == 8);
  CHECK(head_dim(8, 2) == 4);
  CHECK(head_dim(8, 8) == 1);
  CHECK(head_dim(768, 12) == 64);
}

TEST_CASE("split_head takes head h's column block, like reshape(n, h, d_head).transpose(1, 0, 2)",
          "[multi_head][split]") {
  const Matrix m = labelled(3, 8);        // (n=3, d_model=8), 2 heads of 4
  const Matrix h1 = split_head(m, 2, 1);  // (3, 4)
  REQUIRE(h1.rows() == 3);
  REQUIRE(h1.cols() == 4);
  for (Index i = 0; i < 3; ++i)
    for (Index c = 0; c < 4; ++c) CHECK(h1(i, c) == m(i, 4 + c));
  const Matrix h3of4 = split_head(m, 4, 3);  // (3, 2): columns 6, 7
  CHECK(h3of4(2, 0) == 206.0);
  CHECK(h3of4(2, 1) == 207.0);
}

TEST_CASE("merge_heads undoes split_head exactly", "[multi_head][split]") {
  NumpyRandomState rng(5);
  const Matrix m = rng.randn(5, 12);  // (5, 12)
  for (Index h : {1, 2, 3, 4, 6, 12}) {
    std::vector<Matrix> heads;
    for (Index i = 0; i < h; ++i) heads.push_back(split_head(m, h, i));
    expect_equal(merge_heads(heads), m, "merge(split(m, " + std::to_string(h) + "))");
  }
}

TEST_CASE("multi_head_attention reproduces the NumPy pipeline for every seed_experiments case",
          "[multi_head][fixture]") {
  const Json& cases = fixture_cases("seed_experiments.json");
  REQUIRE(cases.size() >= 12);
  for (const Json& c : cases) {
    DYNAMIC_SECTION(case_label(c)) {
      const Matrix x = to_matrix(c.at("x"));
      const MhaWeights w = weights_from_fixture(c);
      const Index num_heads = c.at("num_heads").get<Index>();
      const MhaResult r = multi_head_attention(x, w, num_heads, c.at("causal").get<bool>());
      CHECK(r.d_head == c.at("d_head").get<Index>());
      expect_near(r.q, to_matrix(c.at("q")), kTol, "q");
      expect_near(r.k, to_matrix(c.at("k")), kTol, "k");
      expect_near(r.v, to_matrix(c.at("v")), kTol, "v");
      expect_near(r.head_weights, to_matrices(c.at("head_weights")), kTol, "head_weights");
      expect_near(r.head_outputs, to_matrices(c.at("head_outputs")), kTol, "head_outputs");
      expect_near(r.concat, to_matrix(c.at("concat")), kTol, "concat");
      expect_near(r.output, to_matrix(c.at("output")), kTol, "output");
    }
  }
}

TEST_CASE("one head is plain scaled dot-product attention on the full projections",
          "[multi_head]") {
  NumpyRandomState rng(9);
  const Matrix x = rng.randn(4, 6);
  MhaWeights w;
  w.wq = rng.randn(6, 6);
  w.wk = rng.randn(6, 6);
  w.wv = rng.randn(6, 6);
  w.wo = rng.randn(6, 6);
  const MhaResult r = multi_head_attention(x, w, 1);
  const headwise::AttentionResult a =
      headwise::scaled_dot_product_attention(x * w.wq, x * w.wk, x * w.wv);
  REQUIRE(r.head_weights.size() == 1);
  expect_near(r.head_weights[0], a.weights, 1e-15, "weights");
  expect_near(r.output, Matrix(a.output * w.wo), 1e-13, "output");
}

TEST_CASE("causal multi-head attention: no query attends to a later key", "[multi_head]") {
  NumpyRandomState rng(10);
  const Matrix x = rng.randn(6, 8);
  MhaWeights w;
  w.wq = rng.randn(8, 8);
  w.wk = rng.randn(8, 8);
  w.wv = rng.randn(8, 8);
  w.wo = rng.randn(8, 8);
  const MhaResult r = multi_head_attention(x, w, 4, /*causal=*/true);
  REQUIRE(r.head_weights.size() == 4);
  for (const Matrix& hw : r.head_weights) {
    for (Index i = 0; i < 6; ++i) {
      CHECK(hw.row(i).sum() == Approx(1.0).margin(1e-14));
      for (Index j = i + 1; j < 6; ++j) CHECK(hw(i, j) == 0.0);
    }
    CHECK(hw(0, 0) == 1.0);
  }
  // The last query sees everything, so its row equals the non-causal one.
  const MhaResult full = multi_head_attention(x, w, 4, false);
  for (std::size_t h = 0; h < 4; ++h) {
    expect_near(Matrix(r.head_weights[h].row(5)), Matrix(full.head_weights[h].row(5)), 1e-15,
                "last query row, head " + std::to_string(h));
  }
}

TEST_CASE("biases are added after each projection", "[multi_head]") {
  NumpyRandomState rng(21);
  const Matrix x = rng.randn(3, 4);
  MhaWeights w;
  w.wq = rng.randn(4, 4);
  w.wk = rng.randn(4, 4);
  w.wv = rng.randn(4, 4);
  w.wo = rng.randn(4, 4);
  MhaWeights wb = w;
  wb.bq = rng.randn(4);
  wb.bk = rng.randn(4);
  wb.bv = rng.randn(4);
  wb.bo = rng.randn(4);
  const MhaResult r = multi_head_attention(x, wb, 2);
  expect_near(r.q, Matrix((x * w.wq).rowwise() + wb.bq->transpose()), 1e-15, "q");
  expect_near(r.k, Matrix((x * w.wk).rowwise() + wb.bk->transpose()), 1e-15, "k");
  expect_near(r.v, Matrix((x * w.wv).rowwise() + wb.bv->transpose()), 1e-15, "v");
  expect_near(r.output, Matrix((r.concat * w.wo).rowwise() + wb.bo->transpose()), 1e-15, "output");
}
