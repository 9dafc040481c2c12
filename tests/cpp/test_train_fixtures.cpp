// The training engine against NumPy and PyTorch (tests/fixtures/make_train_fixtures.py):
// randint bit for bit, every gradient within 1e-10 of torch.autograd, and 50 Adam steps
// within 1e-9 of torch.optim.Adam. Prints the max differences.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/trainer.hpp"

using headwise::Index;
using headwise::IntMatrix;
using headwise::Matrix;
using headwise::ModelParams;
using headwise::NumpyRandomState;
using headwise::Trainer;
using headwise::TrainerOptions;
using headwise::Vector;
using headwise::test::expect_equal;
using headwise::test::expect_near;
using headwise::test::fixture_cases;
using headwise::test::flatten;
using headwise::test::Json;
using headwise::test::shape_of;
using headwise::test::to_matrix;
using headwise::test::to_params;
using headwise::test::to_trainer_options;
using headwise::test::to_vector;

namespace {

constexpr double kGradientTol = 1e-10;
constexpr double kTrajectoryTol = 1e-9;

IntMatrix to_int_matrix(const Json& j) {
  IntMatrix m(static_cast<Index>(j.size()), static_cast<Index>(j.at(0).size()));
  for (Index i = 0; i < m.rows(); ++i)
    for (Index k = 0; k < m.cols(); ++k) m(i, k) = j.at(i).at(k).get<std::int64_t>();
  return m;
}

// (B, n, R) -> (B * n, R)
IntMatrix to_targets(const Json& j) {
  const auto shape = shape_of(j);
  IntMatrix m(static_cast<Index>(shape[0] * shape[1]), static_cast<Index>(shape[2]));
  for (Index b = 0; b < shape[0]; ++b)
    for (Index i = 0; i < shape[1]; ++i)
      for (Index r = 0; r < shape[2]; ++r)
        m(b * shape[1] + i, r) = j.at(b).at(i).at(r).get<std::int64_t>();
  return m;
}

// [h, ...] (heads of layer 0) or [[l, h], ...]
std::vector<headwise::HeadRef> to_heads(const Json& j) {
  std::vector<headwise::HeadRef> out;
  for (const Json& h : j) {
    if (h.is_array()) out.push_back({h.at(0).get<std::int64_t>(), h.at(1).get<std::int64_t>()});
    else out.push_back({0, h.get<std::int64_t>()});
  }
  return out;
}

std::string label(const Json& c) {
  const std::string task = c.contains("task") ? c.at("task").get<std::string>()
                                              : "relations " + c.at("relations").dump();
  const std::string layers =
      c.contains("layers") ? std::to_string(c.at("layers").get<int>()) + " layers, " : "";
  return task + ", " + layers + std::to_string(c.at("numHeads").get<int>()) +
         " heads, d_model " + std::to_string(c.at("dModel").get<int>()) + ", seed " +
         std::to_string(c.at("seed").get<std::int64_t>());
}

// Compares two parameter sets tensor by tensor; returns the max |difference|.
double compare_params(const ModelParams& actual, const ModelParams& expected, double tol,
                      const std::string& what) {
  REQUIRE(actual.count() == expected.count());
  double worst = 0.0;
  for (std::size_t t = 0; t < actual.count(); ++t) {
    const Matrix am = actual[t], em = expected[t];
    REQUIRE(am.rows() == em.rows());
    REQUIRE(am.cols() == em.cols());
    expect_near(am, em, tol, what + " " + actual.table()[t].name);
    worst = std::max(worst, (am - em).cwiseAbs().maxCoeff());
  }
  return worst;
}

}  // namespace

TEST_CASE("randint reproduces numpy's legacy int64 draws bit for bit, in one stream with randn",
          "[train][numpy_random][fixture]") {
  const Json& cases = fixture_cases("train_random.json");
  REQUIRE(cases.size() >= 5);
  for (const Json& c : cases) {
    const std::int64_t seed = c.at("seed").get<std::int64_t>();
    NumpyRandomState rng(seed);
    for (const Json& call : c.at("calls")) {
      const auto shape = call.at("shape").get<std::vector<Index>>();
      const Index rows = shape.size() == 1 ? 1 : shape[0];
      const Index cols = shape.size() == 1 ? shape[0] : shape[1];
      const std::vector<double> expected = flatten(call.at("values"));
      std::vector<double> actual;
      if (call.at("fn") == "randn") {
        const Matrix m = rng.randn(rows, cols);
        actual.assign(m.data(), m.data() + m.size());
      } else {
        const IntMatrix m = rng.randint(call.at("high").get<std::int64_t>(), rows, cols);
        for (Index i = 0; i < m.size(); ++i) actual.push_back(static_cast<double>(m.data()[i]));
      }
      INFO("seed " << seed << " " << call.at("fn").get<std::string>() << call.at("shape").dump());
      CHECK(actual == expected);
    }
  }
  NumpyRandomState rng(0);
  CHECK_THROWS_WITH(rng.randint(0, 1, 1), "randint high (0) must be between 1 and 4294967296");
  CHECK_THROWS_WITH(rng.randint(4294967297LL, 1, 1),
                    "randint high (4294967297) must be between 1 and 4294967296");
  CHECK_THROWS_WITH(rng.randint(5, -1, 3), "randint shape (-1, 3) must not be negative");
  CHECK_THROWS_WITH(rng.randint(5, 3, -1), "randint shape (3, -1) must not be negative");
}

TEST_CASE("The initial weights are NumPy's draws and the gradients are torch.autograd's",
          "[train][fixture]") {
  // The preset tasks, tasks of 3 and 4 relations with 1, 4 and 8 heads at d_model 16, and
  // models of 2 and 3 layers with 1 to 8 heads.
  const char* file = GENERATE("train_gradients.json", "train_relations_gradients.json",
                              "train_layers_gradients.json");
  const Json& cases = fixture_cases(file);
  REQUIRE(cases.size() >= 6);
  double worst = 0.0, worst_loss = 0.0;
  for (const Json& c : cases) {
    const Json& config = c.at("config");
    INFO(label(config));
    Trainer t(to_trainer_options(config));
    // Bit for bit: the same seed gives NumPy's very draws.
    compare_params(t.parameters(), to_params(t.config(), c.at("initial")), 0.0, "initial");
    const auto r = t.gradients(to_int_matrix(c.at("tokens")), to_targets(c.at("targets")));
    expect_near(r.loss, c.at("loss").get<double>(), kGradientTol, "loss");
    CHECK(r.accuracy == c.at("accuracy").get<double>());
    worst_loss = std::max(worst_loss, std::abs(r.loss - c.at("loss").get<double>()));
    worst = std::max(
        worst, compare_params(r.grads, to_params(t.config(), c.at("gradients")), kGradientTol, "gradient of"));
  }
  std::printf("gradients vs torch.autograd (%s, %zu models): max |difference| %.3g, loss %.3g\n",
              file, cases.size(), worst, worst_loss);
}

TEST_CASE("50 Adam steps follow torch.optim.Adam: losses, final weights, evaluations",
          "[train][fixture]") {
  const char* file = GENERATE("train_trajectory.json", "train_relations_trajectory.json",
                              "train_layers_trajectory.json", "train_induction_trajectory.json");
  const Json& cases = fixture_cases(file);
  REQUIRE(!cases.empty());
  for (const Json& c : cases) {
    const Json& config = c.at("config");
    INFO(label(config));
    Trainer t(to_trainer_options(config));
    compare_params(t.parameters(), to_params(t.config(), c.at("initial")), 0.0, "initial");
    CHECK(t.eval_tokens() == to_int_matrix(c.at("evalTokens")));
    const std::vector<double> losses = c.at("losses").get<std::vector<double>>();
    const std::vector<double> accuracies = c.at("accuracies").get<std::vector<double>>();
    double worst_loss = 0.0;
    for (std::size_t s = 0; s < losses.size(); ++s) {
      const auto r = t.step(1);
      CHECK(r.step == static_cast<std::int64_t>(s + 1));
      worst_loss = std::max(worst_loss, std::abs(r.loss - losses[s]));
      expect_near(r.loss, losses[s], kTrajectoryTol, "loss at step " + std::to_string(s + 1));
      CHECK(r.accuracy == accuracies[s]);
    }
    const double worst_weight =
        compare_params(t.parameters(), to_params(t.config(), c.at("final")), kTrajectoryTol, "final");
    double worst_eval = 0.0;
    for (const Json& e : c.at("evaluations")) {
      const auto r = t.evaluate_heads(to_heads(e.at("ablate")));
      const std::string what = "evaluate(ablate " + e.at("ablate").dump() + ")";
      expect_near(r.loss, e.at("loss").get<double>(), kTrajectoryTol, what + " loss");
      CHECK(r.accuracy == e.at("accuracy").get<double>());
      CHECK(r.relation_accuracy == e.at("relationAccuracy").get<std::vector<double>>());
      expect_near(r.head_focus, to_matrix(e.at("headFocus")), kTrajectoryTol, what + " headFocus");
      worst_eval = std::max(worst_eval, std::abs(r.loss - e.at("loss").get<double>()));
      worst_eval =
          std::max(worst_eval, (r.head_focus - to_matrix(e.at("headFocus"))).cwiseAbs().maxCoeff());
      CHECK(r.induction == e.contains("inductionScore"));
      if (r.induction) {  // the task "induction"
        CHECK(r.repeat_accuracy == e.at("repeatAccuracy").get<double>());
        expect_near(r.repeat_loss, e.at("repeatLoss").get<double>(), kTrajectoryTol,
                    what + " repeatLoss");
        for (const char* key : {"previousTokenScore", "inductionScore"}) {
          const Matrix expected = to_matrix(e.at(key));
          const Matrix& actual =
              std::string(key) == "inductionScore" ? r.induction_score : r.previous_token_score;
          expect_near(actual, expected, kTrajectoryTol, what + " " + key);
          worst_eval = std::max(worst_eval, (actual - expected).cwiseAbs().maxCoeff());
        }
      }
    }
    std::printf(
        "trajectory %s, %zu Adam steps vs torch.optim.Adam: max |difference| loss %.3g, "
        "final weights %.3g, evaluations %.3g\n",
        label(config).c_str(), losses.size(), worst_loss, worst_weight, worst_eval);
  }
}
