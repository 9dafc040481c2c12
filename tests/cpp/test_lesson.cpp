// seed_experiment: the lesson's experiments from NumPy-identical draws (seed_experiments.json).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/compare.hpp"
#include "headwise/lesson.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/torch_layout.hpp"

using headwise::compare_heads;
using headwise::HeadPair;
using headwise::Index;
using headwise::Matrix;
using headwise::seed_experiment;
using headwise::SeedExperiment;
using headwise::SeedExperimentConfig;
using headwise::Vector;
using headwise::test::expect_equal;
using headwise::test::expect_near;
using headwise::test::fixture_cases;
using headwise::test::Json;
using headwise::test::to_matrices;
using headwise::test::to_matrix;
using headwise::test::to_vector;

namespace {

constexpr double kTol = 1e-12;

SeedExperimentConfig config_from(const Json& c) {
  SeedExperimentConfig cfg;
  cfg.seed = c.at("seed").get<std::int64_t>();
  cfg.tokens = c.at("tokens").get<Index>();
  cfg.d_model = c.at("d_model").get<Index>();
  cfg.num_heads = c.at("num_heads").get<Index>();
  cfg.bias = c.at("bias").get<bool>();
  cfg.causal = c.at("causal").get<bool>();
  return cfg;
}

std::string label(const SeedExperimentConfig& c) {
  return "seed " + std::to_string(c.seed) + " (" + std::to_string(c.tokens) + ", " +
         std::to_string(c.d_model) + ", " + std::to_string(c.num_heads) + ")" +
         (c.bias ? " bias" : "") + (c.causal ? " causal" : "");
}

// Rounds like np.round(x, 3).
double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

}  // namespace

TEST_CASE("seed_experiment matches NumPy for every fixture case: draws exactly, the rest to 1e-12",
          "[lesson][fixture]") {
  for (const Json& c : fixture_cases("seed_experiments.json")) {
    const SeedExperimentConfig cfg = config_from(c);
    DYNAMIC_SECTION(label(cfg)) {
      const SeedExperiment e = seed_experiment(cfg);
      // Raw randn draws: bit for bit.
      expect_equal(e.x, to_matrix(c.at("x")), "x");
      expect_equal(e.weights.wq, to_matrix(c.at("wq")), "wq");
      expect_equal(e.weights.wk, to_matrix(c.at("wk")), "wk");
      expect_equal(e.weights.wv, to_matrix(c.at("wv")), "wv");
      expect_equal(e.weights.wo, to_matrix(c.at("wo")), "wo");
      if (cfg.bias) {
        REQUIRE(e.weights.bq.has_value());
        REQUIRE(e.weights.bk.has_value());
        REQUIRE(e.weights.bv.has_value());
        REQUIRE(e.weights.bo.has_value());
        expect_equal(*e.weights.bq, to_vector(c.at("bq")), "bq");
        expect_equal(*e.weights.bk, to_vector(c.at("bk")), "bk");
        expect_equal(*e.weights.bv, to_vector(c.at("bv")), "bv");
        expect_equal(*e.weights.bo, to_vector(c.at("bo")), "bo");
      } else {
        CHECK_FALSE(e.weights.bq.has_value());
        CHECK_FALSE(e.weights.bo.has_value());
      }
      // Computed values: within 1e-12.
      CHECK(e.result.d_head == c.at("d_head").get<Index>());
      expect_near(e.result.q, to_matrix(c.at("q")), kTol, "q");
      expect_near(e.result.k, to_matrix(c.at("k")), kTol, "k");
      expect_near(e.result.v, to_matrix(c.at("v")), kTol, "v");
      expect_near(e.result.head_weights, to_matrices(c.at("head_weights")), kTol, "head_weights");
      expect_near(e.result.head_outputs, to_matrices(c.at("head_outputs")), kTol, "head_outputs");
      expect_near(e.result.concat, to_matrix(c.at("concat")), kTol, "concat");
      expect_near(e.result.output, to_matrix(c.at("output")), kTol, "output");
    }
  }
}

TEST_CASE("seed 7: the lesson's printed head weights for token 0", "[lesson]") {
  const SeedExperiment e = seed_experiment(SeedExperimentConfig{});  // seed 7, (5, 8, 2)
  REQUIRE(e.result.head_weights.size() == 2);
  const Matrix& head0 = e.result.head_weights[0];
  const Matrix& head1 = e.result.head_weights[1];
  // head 0 weights, token 0: [0. 0. 0.424 0.576 0. ]
  const double expected0[] = {0.0, 0.0, 0.424, 0.576, 0.0};
  // head 1 weights, token 0: [0. 0. 0. 0. 1. ]
  const double expected1[] = {0.0, 0.0, 0.0, 0.0, 1.0};
  for (Index j = 0; j < 5; ++j) {
    CAPTURE(j, head0(0, j), head1(0, j));
    CHECK(round3(head0(0, j)) == expected0[j]);
    CHECK(round3(head1(0, j)) == expected1[j]);
  }
  // same pattern? False
  CHECK_FALSE(headwise::allclose(head0, head1));
  // X starts with the values np.random.seed(7); randn(5, 8) gives.
  CHECK(e.x(0, 0) == Approx(1.6905257).margin(5e-8));
  CHECK(e.x(0, 1) == Approx(-0.4659373).margin(5e-8));
  CHECK(e.x(0, 2) == Approx(0.0328201).margin(5e-8));
}

TEST_CASE("compare_heads agrees with NumPy's allclose, max |diff| and mean JS divergence",
          "[lesson][compare][fixture]") {
  for (const Json& c : fixture_cases("seed_experiments.json")) {
    const SeedExperimentConfig cfg = config_from(c);
    DYNAMIC_SECTION(label(cfg)) {
      const std::vector<Matrix> fixture_weights = to_matrices(c.at("head_weights"));
      const Json& pairs = c.at("head_pairs");
      const std::size_t h = static_cast<std::size_t>(cfg.num_heads);
      REQUIRE(pairs.size() == h * (h - 1) / 2);
      // On NumPy's own weights, and on the weights computed here.
      const std::vector<HeadPair> from_fixture = compare_heads(fixture_weights);
      const std::vector<HeadPair> computed =
          compare_heads(seed_experiment(cfg).result.head_weights);
      REQUIRE(from_fixture.size() == pairs.size());
      REQUIRE(computed.size() == pairs.size());
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const Index a = pairs[i][0].get<Index>();
        const Index b = pairs[i][1].get<Index>();
        const bool same = c.at("heads_allclose")[i].get<bool>();
        const double diff = c.at("max_abs_diff")[i].get<double>();
        const double js = c.at("mean_js")[i].get<double>();
        const std::string pair = "heads " + std::to_string(a) + "," + std::to_string(b);
        for (const std::vector<HeadPair>* got : {&from_fixture, &computed}) {
          const HeadPair& p = (*got)[i];
          CHECK(p.a == a);
          CHECK(p.b == b);
          CHECK(p.allclose == same);
          expect_near(p.max_abs_diff, diff, kTol, pair + " max_abs_diff");
          expect_near(p.mean_js_divergence, js, kTol, pair + " mean_js");
        }
      }
    }
  }
}

TEST_CASE("seed 7: more heads still give pairwise different patterns (exercise 1)", "[lesson]") {
  for (Index h : {2, 4, 8}) {
    SeedExperimentConfig cfg;
    cfg.num_heads = h;
    const std::vector<HeadPair> pairs = compare_heads(seed_experiment(cfg).result.head_weights);
    REQUIRE(pairs.size() == static_cast<std::size_t>(h * (h - 1) / 2));
    for (const HeadPair& p : pairs) {
      CAPTURE(h, p.a, p.b);
      CHECK_FALSE(p.allclose);
      CHECK(p.max_abs_diff > 0.0);
      CHECK(p.mean_js_divergence > 0.0);
      CHECK(p.mean_js_divergence <= std::log(2.0) + 1e-15);
    }
  }
}

TEST_CASE("the head count never changes the parameter count (exercise 2)", "[lesson]") {
  for (bool bias : {false, true}) {
    for (Index h : {1, 2, 4, 8}) {
      headwise::TorchMhaConfig cfg;
      cfg.embed_dim = 8;
      cfg.num_heads = h;
      cfg.bias = bias;
      CAPTURE(bias, h);
      CHECK(headwise::parameter_table(cfg).total == (bias ? 288 : 256));
    }
  }
}

TEST_CASE("seed_experiment draws biases after the four matrices", "[lesson]") {
  SeedExperimentConfig plain;
  SeedExperimentConfig with_bias;
  with_bias.bias = true;
  const SeedExperiment a = seed_experiment(plain);
  const SeedExperiment b = seed_experiment(with_bias);
  expect_equal(b.x, a.x, "x");
  expect_equal(b.weights.wo, a.weights.wo, "wo");
  REQUIRE(b.weights.bq.has_value());
  // bq is the next 8 draws after Wo.
  headwise::NumpyRandomState rng(7);
  rng.randn(5, 8);
  for (int i = 0; i < 4; ++i) rng.randn(8, 8);
  expect_equal(*b.weights.bq, Vector(rng.randn(8)), "bq");
}

TEST_CASE("seed_experiment: the largest seed works and 1 token, d_model 1 works", "[lesson]") {
  SeedExperimentConfig cfg;
  cfg.seed = headwise::kMaxSeed;
  CHECK_NOTHROW(seed_experiment(cfg));
  SeedExperimentConfig tiny;
  tiny.seed = 0;
  tiny.tokens = 1;
  tiny.d_model = 1;
  tiny.num_heads = 1;
  const SeedExperiment e = seed_experiment(tiny);
  REQUIRE(e.result.head_weights.size() == 1);
  CHECK(e.result.head_weights[0](0, 0) == 1.0);
}
