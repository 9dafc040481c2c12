// Tasks built from relations: the catalogue, each relation's sources (fixed positions only once
// the model can see them), the task a list of names makes, its errors (every message exact),
// the positions a relation needs, and a trainer on such a task (its shapes and defaults, the
// same run as the preset of the same relations, nothing created on error).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/train_tasks.hpp"
#include "headwise/trainer.hpp"

using headwise::find_task;
using headwise::test::message_of;
using headwise::heads_needed_defaults;
using headwise::Index;
using headwise::IntMatrix;
using headwise::relation_source;
using headwise::relation_task;
using headwise::Trainer;
using headwise::TrainerOptions;
using headwise::training_relations;
using headwise::TrainingTask;

namespace {

const std::string kAllowed =
    "6 distinct relations of \"previous\", \"two-back\", \"three-back\", \"four-back\", "
    "\"first\", \"second\", \"third\"";

TrainerOptions small(std::vector<std::string> relations) {
  TrainerOptions o;
  o.relations = std::move(relations);
  o.num_heads = 2;
  o.d_model = 4;
  o.seed = 5;
  o.seq_len = 6;
  o.vocab = 5;
  o.batch_size = 3;
  o.eval_size = 4;
  return o;
}

}  // namespace

TEST_CASE("The relation catalogue: names, rules and sources", "[train][relations]") {
  std::vector<std::string> names, rules;
  for (const auto& r : training_relations()) {
    names.push_back(r.name);
    rules.push_back(r.rule);
    CHECK(r.description.size() > 20);
    CHECK(!r.title.empty());
  }
  CHECK(names == std::vector<std::string>{"previous", "two-back", "three-back", "four-back",
                                          "first", "second", "third"});
  CHECK(rules ==
        std::vector<std::string>{"x[i-1]", "x[i-2]", "x[i-3]", "x[i-4]", "x[0]", "x[1]", "x[2]"});
  // Each relation's source at positions 0..5: relative ones start k positions in; a fixed
  // position is a source only from itself on (before it, causal attention cannot see it).
  const std::vector<std::vector<Index>> sources = {
      {-1, 0, 1, 2, 3, 4},   {-1, -1, 0, 1, 2, 3},   {-1, -1, -1, 0, 1, 2}, {-1, -1, -1, -1, 0, 1},
      {0, 0, 0, 0, 0, 0},    {-1, 1, 1, 1, 1, 1},    {-1, -1, 2, 2, 2, 2}};
  for (std::size_t r = 0; r < training_relations().size(); ++r) {
    std::vector<Index> got;
    for (Index i = 0; i < 6; ++i) got.push_back(relation_source(training_relations()[r], i));
    INFO(names[r]);
    CHECK(got == sources[r]);
  }
  // The presets are made of the catalogue's relations.
  CHECK(find_task("previous-and-first").relations[1].name == "first");
  CHECK(find_task("previous-and-two-back").relations[1].title == "two back");
}

TEST_CASE("A task from relations: order kept, targets per relation, the experiment's defaults",
          "[train][relations]") {
  const TrainingTask t = relation_task({"second", "previous", "three-back"});
  REQUIRE(t.relations.size() == 3);
  CHECK(t.relations[0].name == "second");
  CHECK(t.relations[2].rule == "x[i-3]");
  CHECK(t.name.empty());
  CHECK(t.title == "Second token, previous token and three back");
  CHECK(relation_task({"two-back"}).title == "Two back");
  CHECK(relation_task({"first", "previous"}).title == "First token and previous token");
  CHECK(t.defaults.d_model == heads_needed_defaults().settings.d_model);
  CHECK(t.defaults.steps == heads_needed_defaults().settings.steps);
  IntMatrix tokens(2, 5);
  tokens << 4, 3, 2, 1, 0, 0, 1, 2, 3, 4;
  const IntMatrix targets = headwise::task_targets(t, tokens);
  REQUIRE(targets.rows() == 10);
  REQUIRE(targets.cols() == 3);
  // sequence 1 (0 1 2 3 4), positions 0..4: second, previous, three back
  const std::vector<std::vector<std::int64_t>> expected = {
      {-1, -1, -1}, {1, 0, -1}, {1, 1, -1}, {1, 2, 0}, {1, 3, 1}};
  for (Index i = 0; i < 5; ++i) {
    for (Index r = 0; r < 3; ++r) CHECK(targets(5 + i, r) == expected[i][r]);
  }
  CHECK(targets(0 + 4, 0) == 3);  // sequence 0's second token at its last position
}

TEST_CASE("A bad list of relations is refused with a message naming it", "[train][relations][errors]") {
  CHECK(message_of([] { relation_task({}); }) == "relations is empty; give 1 to " + kAllowed);
  CHECK(message_of([] { relation_task({"previous", "copy"}); }) ==
        "relation \"copy\" is not a training relation; the relations are \"previous\", "
        "\"two-back\", \"three-back\", \"four-back\", \"first\", \"second\", \"third\"");
  CHECK(message_of([] { relation_task({"first", "previous", "first"}); }) ==
        "relation \"first\" is listed twice (at 0 and 2); give 1 to " + kAllowed);
  CHECK(message_of([] {
          relation_task({"previous", "two-back", "three-back", "four-back", "first", "second",
                         "third"});
        }) == "relations has 7 entries; give 1 to " + kAllowed);
  CHECK(message_of([] { relation_task({std::string(50, 'z')}); }) ==
        "relation \"" + std::string(40, 'z') +
            "...\" is not a training relation; the relations are \"previous\", \"two-back\", "
            "\"three-back\", \"four-back\", \"first\", \"second\", \"third\"");
  // Six distinct relations are allowed.
  CHECK(relation_task({"previous", "two-back", "three-back", "four-back", "first", "second"})
            .relations.size() == 6);
  // A task and relations together: neither is chosen, whichever is valid.
  TrainerOptions both = small({"previous", "first"});
  both.task = "previous-and-first";
  CHECK(message_of([&] { Trainer t(both); }) ==
        "task (\"previous-and-first\") and relations ([\"previous\", \"first\"]) were both given; "
        "give either a task (a preset of trainingTasks()) or relations (1 to 6 of "
        "trainingRelations()), not both");
}

TEST_CASE("Every relation needs a position of its own in the sequence length",
          "[train][relations][errors]") {
  // three-back needs 4 tokens; with first too, position 3's sources coincide (x[0]), so 5.
  const std::string shared = " (a position where no other relation reads the same token)";
  struct Case {
    std::vector<std::string> relations;
    std::int64_t refused, needed;
    std::string rule, note;
  };
  const std::vector<Case> cases = {{{"previous", "three-back"}, 3, 4, "x[i-3]", shared},
                                   {{"three-back", "first"}, 4, 5, "x[i-3]", shared},
                                   {{"four-back"}, 4, 5, "x[i-4]", ""}};
  for (const Case& c : cases) {
    TrainerOptions o = small(c.relations);
    o.seq_len = c.refused;
    const std::string& name = c.relations[c.relations[0] == "previous" ? 1 : 0];
    CHECK(message_of([&] { Trainer t(o); }) ==
          "relation \"" + name + "\" (" + c.rule + ") has no position of its own in sequences of " +
              std::to_string(c.refused) + " tokens" + c.note + "; seq_len must be at least " +
              std::to_string(c.needed) + " for these relations");
    o.seq_len = c.needed;
    CHECK_NOTHROW(Trainer(o));
  }
}

TEST_CASE("A trainer on relations: shapes, accuracies per relation, the same run as the preset",
          "[train][relations]") {
  TrainerOptions o = small({"previous", "first", "two-back", "second"});
  o.num_heads = 4;
  Trainer t(o);
  CHECK(t.config().task.empty());
  CHECK(t.config().num_relations == 4);
  CHECK(t.parameters().readout().cols() == 4 * 5);
  t.step(3);
  const auto e = t.evaluate({1});
  CHECK(e.relation_accuracy.size() == 4);
  CHECK(e.head_focus.rows() == 4);
  CHECK(e.head_focus.cols() == 4);
  for (Index h = 0; h < 4; ++h)
    for (Index r = 0; r < 4; ++r) CHECK(std::isfinite(e.head_focus(h, r)));
  // Defaults of a task from relations are the experiment's.
  TrainerOptions d;
  d.relations = std::vector<std::string>{"previous"};
  d.num_heads = 1;
  d.d_model = 16;
  const auto c = headwise::resolve_trainer_config(d);
  const auto& s = heads_needed_defaults().settings;
  CHECK(c.seq_len == s.seq_len);
  CHECK(c.vocab == s.vocab);
  CHECK(c.batch_size == s.batch_size);
  CHECK(c.eval_size == s.eval_size);
  CHECK(c.learning_rate == s.learning_rate);
  // The relations of a preset, at the preset's settings, train exactly as the preset.
  TrainerOptions a = small({"previous", "first"});
  TrainerOptions b = a;
  b.relations.reset();
  b.task = "previous-and-first";
  Trainer ta(a), tb(b);
  const auto ra = ta.step(5), rb = tb.step(5);
  CHECK(ra.loss == rb.loss);
  CHECK(ta.parameters().data() == tb.parameters().data());
  CHECK(ta.evaluate({}).head_focus == tb.evaluate({}).head_focus);
}

TEST_CASE("The heads-needed experiment's defaults fit the trainer", "[train][relations]") {
  const auto& d = heads_needed_defaults();
  CHECK(d.relations == std::vector<std::string>{"previous", "first", "two-back"});
  CHECK(d.grid_relations ==
        std::vector<std::string>{"previous", "first", "two-back", "three-back"});
  CHECK(d.head_counts == std::vector<std::int64_t>{1, 2, 4, 8});
  // Every grid cell is a valid trainer at the defaults.
  for (std::size_t count = 1; count <= d.grid_relations.size(); ++count) {
    for (std::int64_t h : d.head_counts) {
      TrainerOptions o;
      o.relations = std::vector<std::string>(d.grid_relations.begin(),
                                             d.grid_relations.begin() + static_cast<long>(count));
      o.num_heads = h;
      o.d_model = d.settings.d_model;
      CHECK_NOTHROW(headwise::resolve_trainer_config(o));
    }
  }
}
