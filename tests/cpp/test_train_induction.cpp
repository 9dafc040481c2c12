// The task "induction": its batches (a segment repeated at a varying distance, targets on the
// repeat), its scores on hand-made attention, its errors, and the gradients of a model of
// layers on it against finite differences.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "headwise/numpy_random.hpp"
#include "headwise/train_tasks.hpp"
#include "headwise/trainer.hpp"

using headwise::draw_batch;
using headwise::find_task;
using headwise::Index;
using headwise::IntMatrix;
using headwise::NumpyRandomState;
using headwise::TaskBatch;
using headwise::Trainer;
using headwise::TrainerOptions;

namespace {

TrainerOptions induction_options(std::int64_t layers, std::int64_t heads) {
  TrainerOptions o;
  o.task = "induction";
  o.layers = layers;
  o.num_heads = heads;
  o.d_model = 8;
  o.seed = 4;
  o.seq_len = 16;
  o.vocab = 10;
  o.batch_size = 4;
  o.eval_size = 12;
  return o;
}

}  // namespace

TEST_CASE("An induction batch repeats one segment per sequence; targets follow the repeat",
          "[train][induction]") {
  const headwise::TrainingTask& task = find_task("induction");
  CHECK(task.induction);
  CHECK(task.relations.size() == 1);
  NumpyRandomState rng(5), same(5);
  const Index n = 32;
  const TaskBatch batch = draw_batch(task, rng, 200, n, 16);
  REQUIRE(batch.repeats.size() == 200);
  std::set<Index> lengths, distances;
  for (Index b = 0; b < 200; ++b) {
    const headwise::Repeat& r = batch.repeats[static_cast<std::size_t>(b)];
    lengths.insert(r.length);
    distances.insert(r.distance);
    CHECK(r.length >= 3);
    CHECK(r.length <= n / 4);
    CHECK(r.distance >= r.length);  // the copies do not overlap
    CHECK(r.start + r.distance + r.length <= n);
    for (Index j = 0; j < r.length; ++j)
      CHECK(batch.tokens(b, r.start + r.distance + j) == batch.tokens(b, r.start + j));
    Index targets = 0;
    for (Index i = 0; i < n; ++i) {
      const std::int64_t t = batch.targets(b * n + i, 0);
      const Index j = i - r.start - r.distance;
      if (j >= 0 && j + 1 < r.length) {
        CHECK(t == batch.tokens(b, i + 1));  // the next token, as the earlier copy predicts
        CHECK(t == batch.tokens(b, r.start + j + 1));
        ++targets;
      } else {
        CHECK(t == -1);
      }
    }
    CHECK(targets == r.length - 1);
  }
  // Lengths and distances vary, so no fixed offset finds the repeat.
  CHECK(lengths.size() == 6);  // 3 .. 8
  CHECK(distances.size() > 15);
  // The draws: randint(V, (B, n)) first, then three scalar draws per sequence.
  const IntMatrix first = same.randint(16, 200, n);
  CHECK(first(0, 0) == (batch.repeats[0].start == 0 && batch.repeats[0].distance == 0
                            ? first(0, 0)
                            : batch.tokens(0, 0)));
  const headwise::Repeat& r0 = batch.repeats[0];
  CHECK(r0.length == 3 + same.randint(6, 1, 1)(0, 0));
  CHECK(r0.distance == r0.length + same.randint(n - 2 * r0.length + 1, 1, 1)(0, 0));
  CHECK(r0.start == same.randint(n - r0.distance - r0.length + 1, 1, 1)(0, 0));
}

TEST_CASE("Other tasks' batches are NumPy's randint and their targets, as before",
          "[train][induction]") {
  const headwise::TrainingTask& task = find_task("previous-and-first");
  NumpyRandomState a(9), b(9);
  const TaskBatch batch = draw_batch(task, a, 5, 8, 16);
  const IntMatrix tokens = b.randint(16, 5, 8);
  CHECK(batch.tokens == tokens);
  CHECK(batch.targets == headwise::task_targets(task, tokens));
  CHECK(batch.repeats.empty());
  CHECK(a.randint(1000, 1, 1) == b.randint(1000, 1, 1));  // the same stream after it
}

TEST_CASE("evaluate() on the induction task: repeat accuracy and loss, the heads' scores",
          "[train][induction]") {
  Trainer t(induction_options(2, 2));
  t.step(5);
  const auto e = t.evaluate({});
  REQUIRE(e.induction);
  CHECK(e.repeat_accuracy == e.accuracy);
  CHECK(e.repeat_loss == e.loss);
  REQUIRE(e.previous_token_score.rows() == 2);
  REQUIRE(e.previous_token_score.cols() == 2);
  REQUIRE(e.induction_score.rows() == 2);
  // The scores are the mean weights on their positions, recomputed here from attention().
  const IntMatrix& tokens = t.eval_tokens();
  double prev = 0.0, count = 0.0;
  for (Index b = 0; b < tokens.rows(); ++b) {
    const auto heads = t.attention(tokens.middleRows(b, 1));
    for (Index i = 1; i < tokens.cols(); ++i) prev += heads[3](i, i - 1);  // layer 1, head 1
    count += static_cast<double>(tokens.cols() - 1);
  }
  CHECK(e.previous_token_score(1, 1) == Approx(prev / count).epsilon(1e-12));
  for (Index l = 0; l < 2; ++l)
    for (Index h = 0; h < 2; ++h) {
      CHECK(e.induction_score(l, h) > 0.0);
      CHECK(e.induction_score(l, h) < 1.0);
      CHECK(e.head_focus(l * 2 + h, 0) == e.induction_score(l, h));
    }
  // Another task has none of them.
  TrainerOptions o = induction_options(1, 2);
  o.task = "previous-and-first";
  o.seq_len = 5;
  CHECK_FALSE(Trainer(o).evaluate({}).induction);
  // Switching a head off changes the repeat accuracy or loss, not the scores.
  const auto off = t.evaluate_heads({{1, 0}});
  CHECK(off.repeat_loss != e.repeat_loss);
  CHECK(off.induction_score == e.induction_score);
}

TEST_CASE("The induction task's sequences must hold a segment and its repeat",
          "[train][induction][errors]") {
  TrainerOptions o = induction_options(2, 2);
  o.seq_len = 11;
  CHECK_THROWS_WITH(Trainer(o),
                    "seq_len (11) must be at least 12 for the task \"induction\" (a segment of 3 "
                    "or more tokens and its repeat)");
  o.seq_len = 12;
  CHECK(Trainer(o).step(2).step == 2);
  const headwise::InductionDefaults& d = headwise::induction_defaults();
  CHECK(find_task("induction").defaults.layers == d.settings.layers);
  TrainerOptions def;
  def.task = "induction";
  def.layers = d.settings.layers;
  def.num_heads = d.settings.num_heads;
  def.d_model = d.settings.d_model;
  const Trainer at_defaults(def);
  CHECK(at_defaults.config().seq_len == d.settings.seq_len);
  CHECK(at_defaults.config().vocab == d.settings.vocab);
  CHECK(at_defaults.config().batch_size == d.settings.batch_size);
  CHECK(at_defaults.config().learning_rate == d.settings.learning_rate);
  for (std::int64_t h : d.compare_head_counts) CHECK(d.settings.d_model % h == 0);
}
