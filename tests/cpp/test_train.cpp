// The training model's backward against central finite differences, the tasks' targets, the
// trainer's determinism and its error messages.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/backward.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/train_tasks.hpp"
#include "headwise/trainer.hpp"

using headwise::Activations;
using headwise::crossentropy_forward;
using headwise::CrossEntropyResult;
using headwise::find_task;
using headwise::Index;
using headwise::IntMatrix;
using headwise::Matrix;
using headwise::model_backward;
using headwise::model_forward;
using headwise::ModelParams;
using headwise::NumpyRandomState;
using headwise::task_targets;
using headwise::Trainer;
using headwise::TrainerConfig;
using headwise::TrainerOptions;
using headwise::test::expect_equal;

namespace {

TrainerOptions small_options(const std::string& task, std::int64_t heads, std::int64_t d) {
  TrainerOptions o;
  o.task = task;
  o.num_heads = heads;
  o.d_model = d;
  o.seed = 3;
  o.seq_len = 5;
  o.vocab = 4;
  o.batch_size = 3;
  o.eval_size = 6;
  return o;
}

double loss_of(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
               const IntMatrix& targets, const std::vector<bool>& ablate) {
  Activations a;
  model_forward(c, p, tokens, ablate, a);
  return crossentropy_forward(a.logits, targets, static_cast<Index>(c.vocab), a.probs).loss;
}

// Every parameter's analytic gradient against (L(p + h) - L(p - h)) / 2h.
void check_finite_differences(const TrainerOptions& o, const std::vector<bool>& ablate) {
  Trainer trainer(o);
  const TrainerConfig& c = trainer.config();
  ModelParams p = trainer.parameters();
  // Non-zero readout bias, so its gradient is exercised away from the initial point.
  for (Index i = 0; i < p.readout_bias().rows(); ++i)
    p.readout_bias()(i, 0) = 0.1 * static_cast<double>(i % 3);
  NumpyRandomState rng(11);
  const IntMatrix tokens = rng.randint(c.vocab, 3, c.seq_len);
  const IntMatrix targets = task_targets(trainer.task(), tokens);

  Activations a;
  model_forward(c, p, tokens, ablate, a);
  const CrossEntropyResult ce =
      crossentropy_forward(a.logits, targets, static_cast<Index>(c.vocab), a.probs);
  ModelParams g(c);
  model_backward(c, p, tokens, targets, ce.count, a, ablate, g);

  const double h = 1e-5;
  double worst = 0.0;
  for (const headwise::ParamTensor& t : p.table()) {
    for (Index i = 0; i < t.numel(); ++i) {
      double& x = p.data()[t.offset + i];
      const double saved = x;
      x = saved + h;
      const double up = loss_of(c, p, tokens, targets, ablate);
      x = saved - h;
      const double down = loss_of(c, p, tokens, targets, ablate);
      x = saved;
      const double numeric = (up - down) / (2 * h);
      const double analytic = g.data()[t.offset + i];
      const double err = std::abs(numeric - analytic) / std::max(1.0, std::abs(numeric));
      worst = std::max(worst, err);
      if (err > 1e-7) {
        FAIL_CHECK(t.name << "[" << i << "]: analytic " << analytic << ", finite difference "
                              << numeric);
      }
    }
  }
  std::printf(
      "finite differences (%s, %lld layers, %lld heads, d_model %lld%s): max relative error %.3g\n",
              o.task ? o.task->c_str() : "relations", static_cast<long long>(o.layers),
              static_cast<long long>(o.num_heads),
              static_cast<long long>(o.d_model), ablate[0] ? ", head 0 off" : "", worst);
  CHECK(worst < 1e-7);
}

}  // namespace

TEST_CASE("The backward of every parameter matches central finite differences", "[train]") {
  for (const char* task : {"previous-and-first", "previous-and-two-back"}) {
    for (std::int64_t heads : {1, 2, 4}) {
      DYNAMIC_SECTION(task << ", " << heads << " heads") {
        check_finite_differences(small_options(task, heads, 4),
                                 std::vector<bool>(static_cast<std::size_t>(heads), false));
      }
    }
  }
  SECTION("with head 0 switched off") {
    check_finite_differences(small_options("previous-and-first", 2, 4), {true, false});
  }
  SECTION("a task of four relations, 4 heads, head 2 switched off") {
    TrainerOptions o = small_options("", 4, 8);
    o.task.reset();
    o.relations = std::vector<std::string>{"previous", "first", "two-back", "second"};
    check_finite_differences(o, {false, false, true, false});
  }
}

TEST_CASE("With layers, the backward of every parameter matches finite differences",
          "[train][layers]") {
  for (std::int64_t layers : {2, 3}) {
    for (std::int64_t heads : {1, 2, 4}) {
      DYNAMIC_SECTION(layers << " layers, " << heads << " heads") {
        TrainerOptions o = small_options("previous-and-two-back", heads, 4);
        o.layers = layers;
        std::vector<bool> off(static_cast<std::size_t>(layers * heads), false);
        if (heads > 1) off[static_cast<std::size_t>(heads)] = true;  // layer 1's head 0
        check_finite_differences(o, off);
      }
    }
  }
}

TEST_CASE("Task targets follow each relation's rule, -1 where the source does not exist",
          "[train]") {
  IntMatrix tokens(1, 5);
  tokens << 3, 1, 4, 1, 5;
  const IntMatrix first = task_targets(find_task("previous-and-first"), tokens);
  IntMatrix expected_first(5, 2);
  expected_first << -1, 3, 3, 3, 1, 3, 4, 3, 1, 3;
  CHECK(first == expected_first);
  const IntMatrix two = task_targets(find_task("previous-and-two-back"), tokens);
  IntMatrix expected_two(5, 2);
  expected_two << -1, -1, 3, -1, 1, 3, 4, 1, 1, 4;
  CHECK(two == expected_two);
  CHECK(headwise::token_labels(3) == std::vector<std::string>{"A", "B", "C"});
  CHECK(headwise::token_labels(27)[26] == "26");
}

TEST_CASE("The same seed gives the same weights, held-out set and trajectory", "[train]") {
  TrainerOptions o = small_options("previous-and-first", 2, 4);
  Trainer a(o), b(o);
  CHECK(a.eval_tokens() == b.eval_tokens());
  const auto ra = a.step(7);
  CHECK(b.step(3).step == 3);
  const auto rb2 = b.step(4);
  CHECK(ra.step == 7);
  CHECK(rb2.step == 7);
  CHECK(ra.loss == rb2.loss);  // bit for bit: k steps at once or in two calls
  for (const headwise::ParamTensor& t : a.parameters().table()) {
    for (Index i = t.offset; i < t.offset + t.numel(); ++i) {
      if (a.parameters().data()[i] != b.parameters().data()[i]) FAIL_CHECK(t.name << "[" << i << "] differs");
    }
  }
  o.seed = 4;
  Trainer other(o);
  CHECK(Matrix(other.parameters().wq()) !=
        Matrix(Trainer(small_options("previous-and-first", 2, 4)).parameters().wq()));
}

TEST_CASE("The trainer's attention is the lesson's multi_head_attention, bit for bit", "[train]") {
  Trainer t(small_options("previous-and-two-back", 2, 4));
  t.step(3);
  const IntMatrix tokens = t.eval_tokens().topRows(1);
  Activations a;
  model_forward(t.config(), t.parameters(), tokens, {false, false}, a);
  const std::vector<Matrix> heads = t.attention(tokens);
  REQUIRE(heads.size() == 2);
  for (Index h = 0; h < 2; ++h) {
    expect_equal(heads[static_cast<std::size_t>(h)],
                 Matrix(a.layers[0].weights.middleRows(h * 5, 5)),
                 "head " + std::to_string(h));
    // causal: nothing above the diagonal, each row sums to 1
    for (Index i = 0; i < 5; ++i) {
      CHECK(heads[static_cast<std::size_t>(h)].row(i).sum() == Approx(1.0).epsilon(1e-14));
      for (Index j = i + 1; j < 5; ++j) CHECK(heads[static_cast<std::size_t>(h)](i, j) == 0.0);
    }
  }
}

TEST_CASE("Every layer's attention is the lesson's multi_head_attention on its input",
          "[train][layers]") {
  TrainerOptions o = small_options("previous-and-first", 2, 4);
  o.layers = 3;
  Trainer t(o);
  t.step(3);
  const IntMatrix tokens = t.eval_tokens().topRows(1);
  Activations a;
  model_forward(t.config(), t.parameters(), tokens, std::vector<bool>(6, false), a);
  const std::vector<Matrix> heads = t.attention(tokens);
  REQUIRE(heads.size() == 6);
  for (Index l = 0; l < 3; ++l) {
    for (Index h = 0; h < 2; ++h) {
      expect_equal(heads[static_cast<std::size_t>(l * 2 + h)],
                   Matrix(a.layers[static_cast<std::size_t>(l)].weights.middleRows(h * 5, 5)),
                   "layer " + std::to_string(l) + " head " + std::to_string(h));
    }
  }
  // The layers differ: each has its own weights and input.
  CHECK(heads[0] != heads[2]);
  CHECK(heads[2] != heads[4]);
}

TEST_CASE("A model of layers names its tensors as PyTorch's named_parameters() would",
          "[train][layers]") {
  TrainerOptions o = small_options("previous-and-first", 2, 4);
  o.layers = 2;
  Trainer t(o);
  std::vector<std::string> names;
  Index total = 0;
  for (const headwise::ParamTensor& tensor : t.parameters().table()) {
    names.push_back(tensor.name);
    CHECK(tensor.offset == total);  // back to back in one buffer
    total += tensor.numel();
  }
  CHECK(names == std::vector<std::string>{"tokenEmbedding", "positionEmbedding", "layers.0.wq",
                                          "layers.0.wk", "layers.0.wv", "layers.0.wo",
                                          "layers.1.wq", "layers.1.wk", "layers.1.wv",
                                          "layers.1.wo", "readout", "readoutBias"});
  CHECK(t.parameters().data().size() == total);
  CHECK(total == 4 * 4 + 5 * 4 + 8 * 16 + 4 * 8 + 8);
  // layers 1 given is the default model, bit for bit.
  TrainerOptions one = small_options("previous-and-first", 2, 4);
  Trainer a(one);
  one.layers = 1;
  Trainer b(one);
  CHECK(a.step(5).loss == b.step(5).loss);
  CHECK(a.parameters().data() == b.parameters().data());
  CHECK(a.parameters().table().size() == 8);
  CHECK(a.parameters().table()[2].name == "wq");
}

TEST_CASE("Ablation names a head by layer; every bad layer or head is refused",
          "[train][layers][errors]") {
  TrainerOptions o = small_options("previous-and-first", 2, 4);
  o.layers = 2;
  Trainer t(o);
  t.step(2);
  using headwise::HeadRef;
  const auto none = t.evaluate_heads({});
  const auto l1 = t.evaluate_heads({{1, 0}});
  const auto l0 = t.evaluate_heads({{0, 0}});
  CHECK(l1.loss != none.loss);
  CHECK(l0.loss != l1.loss);
  CHECK(t.evaluate({0}).loss == l0.loss);  // a bare index is a head of layer 0
  CHECK(none.head_focus.rows() == 4);      // layer * heads + head
  CHECK(none.head_focus == l1.head_focus);
  CHECK_THROWS_WITH(t.evaluate_heads({{2, 0}}), "ablated head's layer (2) must be between 0 and 1");
  CHECK_THROWS_WITH(t.evaluate_heads({{-1, 0}}),
                    "ablated head's layer (-1) must be between 0 and 1");
  CHECK_THROWS_WITH(t.evaluate_heads({{1, 2}}), "ablated head (2) must be between 0 and 1");
  CHECK_THROWS_WITH(t.evaluate_heads({{1, 1}, {0, 1}, {1, 1}}),
                    "ablated head (layer 1, head 1) is listed twice; list each head once");
  for (std::int64_t bad : {0, 5, -1}) {
    TrainerOptions b = small_options("previous-and-first", 2, 4);
    b.layers = bad;
    CHECK_THROWS_WITH(Trainer(b), "layers (" + std::to_string(bad) + ") must be between 1 and 4");
  }
  o.layers = 4;
  CHECK(Trainer(o).parameters().count() == 2 + 16 + 2);
}

TEST_CASE("Switching every head off leaves the read-out of z alone", "[train]") {
  Trainer t(small_options("previous-and-first", 2, 4));
  t.step(2);
  const auto all = t.evaluate({0, 1});
  // Without attention a position sees only its own token and position: it cannot know the
  // previous token, so relation 0 is at chance level or a little above, never solved.
  CHECK(all.relation_accuracy.size() == 2);
  CHECK(all.relation_accuracy[0] < 0.9);
  const auto none = t.evaluate({});
  CHECK(none.loss != all.loss);
  CHECK(none.head_focus == all.head_focus);  // weights do not depend on switching heads off
  CHECK(none.head_focus.rows() == 2);
  CHECK(none.head_focus.cols() == 2);
}

TEST_CASE("Trainer settings out of range fail with a message naming the range", "[train][errors]") {
  auto message = [](const TrainerOptions& o) {
    try {
      Trainer t(o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  TrainerOptions o = small_options("previous-and-first", 3, 8);
  CHECK(message(o) == "d_model (8) must be divisible by num_heads (3)");
  o = small_options("nope", 2, 8);
  CHECK(message(o) ==
        "task \"nope\" is not a training task; the tasks are \"previous-and-first\", "
        "\"previous-and-two-back\", \"induction\"");
  o = small_options("previous-and-first", 2, 8);
  o.seq_len = 2;
  CHECK(message(o) == "seq_len (2) must be between 3 and 64");
  o = small_options("previous-and-first", 2, 8);
  o.vocab = 1;
  CHECK(message(o) == "vocab (1) must be between 2 and 256");
  o = small_options("previous-and-first", 2, 8);
  o.learning_rate = 0.0;
  CHECK(message(o) == "learning_rate (0) must be greater than 0 and at most 1");
  o = small_options("previous-and-first", 9, 8);
  CHECK(message(o) == "num_heads (9) must be between 1 and 8");
  o = small_options("previous-and-first", 2, 8);
  o.d_model = 300;
  CHECK(message(o) == "d_model (300) must be between 1 and 256");
  o = small_options("previous-and-first", 2, 8);
  o.batch_size = 0;
  CHECK(message(o) == "batch_size (0) must be between 1 and 1024");

  Trainer t(small_options("previous-and-first", 2, 4));
  CHECK_THROWS_WITH(t.step(0), "steps (0) must be between 1 and 100000");
  CHECK_THROWS_WITH(t.evaluate({2}), "ablated head (2) must be between 0 and 1");
  CHECK_THROWS_WITH(t.evaluate({1, 1}), "ablated head 1 is listed twice; list each head once");
  IntMatrix bad(1, 3);
  bad << 0, 4, 1;
  CHECK_THROWS_WITH(t.attention(bad), "tokens[0][1] (4) must be a token id between 0 and 3");
  IntMatrix tokens(1, 3);
  tokens << 0, 1, 2;
  IntMatrix targets = IntMatrix::Constant(3, 2, -1);
  CHECK_THROWS_WITH(t.gradients(tokens, targets),
                    "every target is -1 (no target); at least one target must be a token id");
  targets(0, 1) = 7;
  CHECK_THROWS_WITH(t.gradients(tokens, targets),
                    "targets[0][0][1] (7) must be -1 (no target) or a token id between 0 and 3");
  std::vector<Matrix> p;
  for (std::size_t i = 0; i < t.parameters().count(); ++i) p.emplace_back(t.parameters()[i]);
  p[2] = Matrix::Zero(3, 4);
  CHECK_THROWS_WITH(t.set_parameters(p), "wq has shape (3, 4) but must be (4, 4)");
  p.pop_back();
  CHECK_THROWS_WITH(t.set_parameters(p), "parameters: 7 tensors given but the model has 8");
  // Nothing changed: the trainer still steps.
  CHECK(t.step(1).step == 1);
}
