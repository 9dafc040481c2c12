// The training engine's limits at their very edges (the last value allowed, the first refused),
// the activation-memory bound at exactly its limit, the checks of tokens, targets, ablations and
// parameters, and the corners of the tasks and of the cross-entropy that the fixtures' random
// inputs do not reach (ties between logits, names of 40 characters, 26 token letters).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "headwise/backward.hpp"
#include "fixtures.hpp"
#include "headwise/train_tasks.hpp"
#include "headwise/trainer.hpp"

using headwise::find_task;
using headwise::test::message_of;
using headwise::Index;
using headwise::IntMatrix;
using headwise::Matrix;
using headwise::resolve_trainer_config;
using headwise::Trainer;
using headwise::TrainerConfig;
using headwise::TrainerOptions;

namespace {

TrainerOptions tiny() {
  TrainerOptions o;
  o.num_heads = 2;
  o.d_model = 4;
  o.seed = 3;
  o.seq_len = 5;
  o.vocab = 4;
  o.batch_size = 3;
  o.eval_size = 6;
  return o;
}

std::string refusal(const TrainerOptions& o) {
  try {
    resolve_trainer_config(o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("Every trainer setting accepts its limits and refuses one past them", "[train][errors]") {
  TrainerOptions o = tiny();
  // d_model 1 ... 256, num_heads 1 ... d_model
  o.d_model = 1;
  o.num_heads = 1;
  CHECK(refusal(o) == "accepted");
  o.d_model = 0;
  CHECK(refusal(o) == "d_model (0) must be between 1 and 256");
  o.d_model = 256;
  o.num_heads = 256;
  CHECK(refusal(o) == "accepted");
  o.num_heads = 0;
  CHECK(refusal(o) == "num_heads (0) must be between 1 and 256");
  o.d_model = 257;
  o.num_heads = 1;
  CHECK(refusal(o) == "d_model (257) must be between 1 and 256");
  // seed 0 ... 2^32 - 1
  o = tiny();
  o.seed = 0;
  CHECK(refusal(o) == "accepted");
  o.seed = 4294967295LL;
  CHECK(refusal(o) == "accepted");
  o.seed = -1;
  CHECK(refusal(o) == "seed (-1) must be between 0 and 4294967295");
  o.seed = 4294967296LL;
  CHECK(refusal(o) == "seed (4294967296) must be between 0 and 4294967295");
  // seq_len 3 ... 64, vocab 2 ... 256, batch_size 1 ... 1024, eval_size 1 ... 4096
  o = tiny();
  for (std::int64_t v : {3, 64}) {
    o.seq_len = v;
    CHECK(refusal(o) == "accepted");
  }
  o.seq_len = 65;
  CHECK(refusal(o) == "seq_len (65) must be between 3 and 64");
  o = tiny();
  for (std::int64_t v : {2, 256}) {
    o.vocab = v;
    CHECK(refusal(o) == "accepted");
  }
  o.vocab = 257;
  CHECK(refusal(o) == "vocab (257) must be between 2 and 256");
  o = tiny();
  for (std::int64_t v : {1, 1024}) {
    o.batch_size = v;
    CHECK(refusal(o) == "accepted");
  }
  o.batch_size = 1025;
  CHECK(refusal(o) == "batch_size (1025) must be between 1 and 1024");
  o = tiny();
  for (std::int64_t v : {1, 4096}) {
    o.eval_size = v;
    CHECK(refusal(o) == "accepted");
  }
  o.eval_size = 0;
  CHECK(refusal(o) == "eval_size (0) must be between 1 and 4096");
  o.eval_size = 4097;
  CHECK(refusal(o) == "eval_size (4097) must be between 1 and 4096");
  // learning_rate in (0, 1]
  o = tiny();
  for (double lr : {1.0, std::numeric_limits<double>::denorm_min()}) {
    o.learning_rate = lr;
    CHECK(refusal(o) == "accepted");
  }
  o.learning_rate = std::nextafter(1.0, 2.0);
  CHECK(refusal(o) == "learning_rate (1.0000000000000002) must be greater than 0 and at most 1");
  o.learning_rate = -0.5;
  CHECK(refusal(o) == "learning_rate (-0.5) must be greater than 0 and at most 1");
  o.learning_rate = std::nan("");
  CHECK(refusal(o) == "learning_rate (nan) must be greater than 0 and at most 1");
}

TEST_CASE("A resolved configuration takes the task's defaults for what is not given", "[train]") {
  TrainerOptions o;
  o.task = "previous-and-two-back";
  o.num_heads = 4;
  o.d_model = 12;
  o.seed = 9;
  const TrainerConfig c = resolve_trainer_config(o);
  const auto& def = find_task("previous-and-two-back").defaults;
  CHECK(c.task == "previous-and-two-back");
  CHECK(c.num_relations == 2);
  CHECK(c.num_heads == 4);
  CHECK(c.d_model == 12);
  CHECK(c.d_head == 3);
  CHECK(c.seed == 9);
  CHECK(c.seq_len == def.seq_len);
  CHECK(c.vocab == def.vocab);
  CHECK(c.batch_size == def.batch_size);
  CHECK(c.eval_size == def.eval_size);
  CHECK(c.learning_rate == def.learning_rate);
}

TEST_CASE("One forward's activations may take 128 MiB and not a double more", "[train][errors]") {
  // seq_len 64, d_model 8, vocab 16, 2 relations, 1 head: one sequence holds
  // 64 * (12 * 8 + 3 * 2 * 16) + 1 * 64 * 64 = 16384 doubles, so 1024 sequences are exactly
  // 16 Mi doubles (128 MiB), the limit.
  TrainerOptions o = tiny();
  o.num_heads = 1;
  o.d_model = 8;
  o.seq_len = 64;
  o.vocab = 16;
  o.batch_size = 1024;
  o.eval_size = 1024;
  CHECK(refusal(o) == "accepted");
  o.eval_size = 1025;
  CHECK(refusal(o) ==
        "batch_size or eval_size (1025) with seq_len (64), d_model (8) and vocab (16) would need "
        "128 MiB of activations; at most 128 MiB is allowed");
  o.eval_size = 1;
  o.num_heads = 2;  // another 64 * 64 weights per sequence: the batch is too big now
  CHECK(refusal(o) ==
        "batch_size or eval_size (1024) with seq_len (64), d_model (8) and vocab (16) would need "
        "160 MiB of activations; at most 128 MiB is allowed");
  o.batch_size = 819;  // 819 * 20480 doubles fit, 820 do not
  CHECK(refusal(o) == "accepted");
  o.batch_size = 820;
  CHECK(refusal(o) != "accepted");
  // The vocabulary's share: vocab 17 adds 64 * 6 doubles per sequence.
  o = tiny();
  o.num_heads = 1;
  o.d_model = 8;
  o.seq_len = 64;
  o.vocab = 17;
  o.batch_size = 1;
  o.eval_size = 1000;  // 1000 * 16768 doubles fit, 1001 do not
  CHECK(refusal(o) == "accepted");
  o.eval_size = 1001;
  CHECK(refusal(o) != "accepted");
}

TEST_CASE("Tokens, targets and ablations are checked at their edges", "[train][errors]") {
  Trainer t(tiny());  // vocab 4, seq_len 5, batch 3, eval 6, 2 heads
  // Sequence length 1 ... seq_len; token ids 0 ... vocab - 1.
  IntMatrix one(1, 5);
  one << 0, 3, 1, 2, 0;
  CHECK(t.attention(one).size() == 2);
  IntMatrix shortest(1, 1);
  shortest << 3;
  CHECK(t.attention(shortest)[0].rows() == 1);
  IntMatrix longer(1, 6);
  longer << 0, 1, 2, 3, 0, 1;
  CHECK(message_of([&] { t.attention(longer); }) ==
        "tokens sequence length (6) must be between 1 and 5");
  IntMatrix negative(1, 2);
  negative << 1, -1;
  CHECK(message_of([&] { t.attention(negative); }) ==
        "tokens[0][1] (-1) must be a token id between 0 and 3");
  IntMatrix first_too_big(1, 3);  // the first position is checked too
  first_too_big << 4, 0, 1;
  CHECK(message_of([&] { t.attention(first_too_big); }) ==
        "tokens[0][0] (4) must be a token id between 0 and 3");
  IntMatrix two(2, 3);
  two << 0, 1, 2, 3, 2, 1;
  CHECK(message_of([&] { t.attention(two); }) == "tokens must be one sequence; got 2");
  // Up to max(batch_size, eval_size) sequences for gradients; targets -1 ... vocab - 1.
  IntMatrix six = IntMatrix::Zero(6, 3);
  IntMatrix targets = IntMatrix::Constant(18, 2, -1);
  targets(17, 1) = 3;
  const auto g = t.gradients(six, targets);
  CHECK(std::isfinite(g.loss));
  CHECK((g.accuracy == 0.0 || g.accuracy == 1.0));  // one target: right or wrong
  IntMatrix seven = IntMatrix::Zero(7, 3);
  CHECK(message_of([&] { t.gradients(seven, IntMatrix::Zero(21, 2)); }) ==
        "tokens count of sequences (7) must be between 1 and 6");
  targets(4, 0) = -2;
  CHECK(message_of([&] { t.gradients(six, targets); }) ==
        "targets[1][1][0] (-2) must be -1 (no target) or a token id between 0 and 3");
  targets(4, 0) = 4;
  CHECK(message_of([&] { t.gradients(six, targets); }) ==
        "targets[1][1][0] (4) must be -1 (no target) or a token id between 0 and 3");
  CHECK(message_of([&] { t.gradients(six, IntMatrix::Zero(18, 3)); }) ==
        "targets (sequences * positions, relations) has shape (18, 3) but must be (18, 2)");
  // Ablations: heads 0 ... num_heads - 1.
  CHECK(t.evaluate({0}).relation_accuracy.size() == 2);
  CHECK(message_of([&] { t.evaluate({-1}); }) == "ablated head (-1) must be between 0 and 1");
  CHECK(message_of([&] { t.step(100001); }) == "steps (100001) must be between 1 and 100000");
}

TEST_CASE("Parameters load when their shapes fit, and are refused otherwise", "[train][errors]") {
  Trainer t(tiny());
  // One matrix per tensor of the table, in its order (the bias as a column).
  std::vector<Matrix> p;
  for (std::size_t i = 0; i < t.parameters().count(); ++i) p.emplace_back(t.parameters()[i]);
  p[3](1, 2) = 0.25;  // wk
  p[7](7, 0) = -1.5;  // readoutBias
  t.set_parameters(p);
  CHECK(t.parameters().wk()(1, 2) == 0.25);
  CHECK(t.parameters().readout_bias()(7, 0) == -1.5);
  CHECK(Matrix(t.parameters().readout()) == p[6]);
  std::vector<Matrix> bad = p;
  bad[7] = Matrix::Zero(7, 1);
  CHECK(message_of([&] { t.set_parameters(bad); }) ==
        "readoutBias has length 7 but must have length 8");
  bad[7] = Matrix::Zero(8, 2);
  CHECK(message_of([&] { t.set_parameters(bad); }) ==
        "readoutBias has shape (8, 2) but must be (8, 1)");
  bad = p;
  bad[7](2, 0) = std::numeric_limits<double>::infinity();
  CHECK(message_of([&] { t.set_parameters(bad); }) ==
        "readoutBias contains a non-finite value (inf) at [2]; all values must be finite");
  bad = p;
  bad[1](4, 3) = std::nan("");
  CHECK(message_of([&] { t.set_parameters(bad); }) ==
        "positionEmbedding contains a non-finite value (nan) at [4, 3]; all values must be "
        "finite");
  bad = p;
  bad[0] = Matrix::Zero(5, 4);
  CHECK(message_of([&] { t.set_parameters(bad); }) ==
        "tokenEmbedding has shape (5, 4) but must be (4, 4)");
  // Refused parameters change nothing.
  CHECK(t.parameters().wk()(1, 2) == 0.25);
  CHECK(Matrix(t.parameters().position_embedding()) == p[1]);
}

TEST_CASE("Task names and token labels at their edges", "[train]") {
  const std::string forty(40, 'x');
  CHECK(message_of([&] { find_task(forty); }) ==
        "task \"" + forty +
            "\" is not a training task; the tasks are \"previous-and-first\", "
            "\"previous-and-two-back\", \"induction\"");
  CHECK(message_of([&] { find_task(forty + "y"); }) ==
        "task \"" + forty +
            "...\" is not a training task; the tasks are \"previous-and-first\", "
            "\"previous-and-two-back\", \"induction\"");
  CHECK(find_task("previous-and-two-back").relations[1].offset == 2);
  const auto letters = headwise::token_labels(26);
  REQUIRE(letters.size() == 26);
  CHECK(letters.front() == "A");
  CHECK(letters.back() == "Z");
  CHECK(headwise::token_labels(2) == std::vector<std::string>{"A", "B"});
  CHECK(headwise::token_labels(0).empty());
  // The first token is a source at every position, itself included.
  const auto& first = find_task("previous-and-first").relations[1];
  CHECK(headwise::relation_source(first, 0) == 0);
  CHECK(headwise::relation_source(first, 7) == 0);
  const auto& previous = find_task("previous-and-first").relations[0];
  CHECK(headwise::relation_source(previous, 0) == -1);
  CHECK(headwise::relation_source(previous, 1) == 0);
}

TEST_CASE("Cross-entropy: the first of tied logits is the prediction; -1 targets count nothing",
          "[train]") {
  // One row, two relations of vocab 4. The loss of a target is log(sum exp l) - l_t, written
  // out here with std::exp and std::log.
  Matrix logits(1, 8);
  logits << 1.0, 3.0, 3.0, 0.0, /* relation 1 */ -2.0, 5.0, 5.0, 5.0;
  IntMatrix targets(1, 2);
  targets << 1, 3;
  Matrix probs;
  const auto r = headwise::crossentropy_forward(logits, targets, 4, probs);
  const double lse0 = std::log(std::exp(1.0 - 3.0) + 2.0 + std::exp(-3.0));
  const double lse1 = std::log(std::exp(-7.0) + 3.0);
  CHECK(r.count == 2);
  CHECK(r.correct == 1);  // relation 0: 1 wins the tie with 2; relation 1: 1 wins, not 3
  CHECK(r.relation_correct == std::vector<Index>{1, 0});
  CHECK(r.relation_count == std::vector<Index>{1, 1});
  CHECK(r.loss == Approx((lse0 + lse1) / 2.0).epsilon(1e-15));
  CHECK(probs(0, 1) == Approx(1.0 / std::exp(lse0)).epsilon(1e-15));
  CHECK(probs(0, 7) == Approx(1.0 / std::exp(lse1)).epsilon(1e-15));
  targets << -1, 2;
  const auto only = headwise::crossentropy_forward(logits, targets, 4, probs);
  CHECK(only.count == 1);
  CHECK(only.relation_count == std::vector<Index>{0, 1});
  CHECK(only.loss == Approx(lse1).epsilon(1e-15));
  for (Index j = 0; j < 4; ++j) CHECK(probs(0, j) == 0.0);
  Matrix dlogits = Matrix::Zero(1, 8);
  headwise::crossentropy_softmax_backward(probs, targets, 4, only.count, dlogits);
  for (Index j = 0; j < 4; ++j) CHECK(dlogits(0, j) == 0.0);
  CHECK(dlogits(0, 6) == Approx(1.0 / std::exp(lse1) - 1.0).epsilon(1e-15));
}
