#include "headwise/train_tasks.hpp"

#include <stdexcept>

#include "headwise/error.hpp"

namespace headwise {

namespace {

// "\"previous\", \"two-back\", ..." for the catalogue.
std::vector<std::string> relation_list() {
  std::vector<std::string> names;
  for (const Relation& r : training_relations()) names.push_back(r.name);
  return names;
}

std::string relation_names() {
  std::string known;
  for (const Relation& r : training_relations()) known += (known.empty() ? "" : ", ") + quote_name(r.name);
  return known;
}

const Relation& find_relation(const std::string& name) {
  for (const Relation& r : training_relations()) {
    if (r.name == name) return r;
  }
  throw Error("unknownName", "relations",
              {{"value", name.substr(0, 60)}, {"allowed", relation_list()}},
              "relation " + quote_name(name) + " is not a training relation; the relations are " +
                  relation_names());
}

// "Previous token, first token and two back".
std::string relations_title(const std::vector<Relation>& relations) {
  std::string title;
  for (std::size_t i = 0; i < relations.size(); ++i) {
    title += i == 0 ? "" : (i + 1 == relations.size() ? " and " : ", ");
    title += relations[i].title;
  }
  if (!title.empty() && title[0] >= 'a' && title[0] <= 'z') title[0] = static_cast<char>(title[0] - 'a' + 'A');
  return title;
}

// Relation r's positions of its own in sequences of n tokens (see own_source).
Index own_positions(const TrainingTask& task, std::size_t r, Index n) {
  Index count = 0;
  for (Index i = 0; i < n; ++i) count += own_source(task, r, i) >= 0 ? 1 : 0;
  return count;
}

}  // namespace

const std::vector<Relation>& training_relations() {
  static const std::vector<Relation> relations = {
      {"previous", "previous token", "x[i-1]",
       "The token just before this position (none at the first position).", 1, false},
      {"two-back", "two back", "x[i-2]",
       "The token two positions back (none at the first two positions).", 2, false},
      {"three-back", "three back", "x[i-3]",
       "The token three positions back (none at the first three positions).", 3, false},
      {"four-back", "four back", "x[i-4]",
       "The token four positions back (none at the first four positions).", 4, false},
      {"first", "first token", "x[0]", "The first token of the sequence.", 0, true},
      {"second", "second token", "x[1]",
       "The second token of the sequence (none at the first position, which cannot see it).", 1,
       true},
      {"third", "third token", "x[2]",
       "The third token of the sequence (none at the first two positions, which cannot see it).",
       2, true},
  };
  return relations;
}

const std::vector<TrainingTask>& training_tasks() {
  static const std::vector<TrainingTask> tasks = [] {
    std::vector<TrainingTask> t;
    TrainingTask first;
    first.name = "previous-and-first";
    first.title = "Previous token and first token";
    first.relations = {find_relation("previous"), find_relation("first")};
    t.push_back(first);
    TrainingTask two_back;
    two_back.name = "previous-and-two-back";
    two_back.title = "Previous token and the one before it";
    two_back.relations = {find_relation("previous"), find_relation("two-back")};
    t.push_back(two_back);
    return t;
  }();
  return tasks;
}

const TrainingTask& induction_task() {
  static const TrainingTask task = [] {
    TrainingTask t;
    t.name = "induction";
    t.title = "Continue a repeated segment";
    t.relations = {{"next-in-repeat", "next token of the repeat", "x[j+1] where x[j] = x[i], j < i",
                    "Where a segment repeats, the token that followed the current token's "
                    "earlier occurrence (none outside the repeat).",
                    0, false}};
    t.defaults = induction_defaults().settings;
    t.induction = true;
    return t;
  }();
  return task;
}

const InductionDefaults& induction_defaults() {
  static const InductionDefaults defaults = [] {
    InductionDefaults d;
    d.settings.layers = 2;
    d.settings.num_heads = 2;
    d.settings.d_model = 32;
    d.settings.seq_len = 32;
    d.settings.vocab = 32;
    d.settings.learning_rate = 1e-2;
    d.settings.batch_size = 16;
    d.settings.steps = 600;
    d.settings.eval_size = 256;
    d.compare_head_counts = {2, 4, 8};
    d.formed_accuracy = 0.5;
    d.formed_score = 0.4;
    return d;
  }();
  return defaults;
}

TaskBatch draw_batch(const TrainingTask& task, NumpyRandomState& rng, Index batch, Index n,
                     std::int64_t vocab) {
  TaskBatch out;
  out.tokens = rng.randint(vocab, batch, n);
  if (!task.induction) {
    out.targets = task_targets(task, out.tokens);
    return out;
  }
  out.targets = IntMatrix::Constant(batch * n, 1, -1);
  const auto draw = [&rng](Index high) { return static_cast<Index>(rng.randint(high, 1, 1)(0, 0)); };
  for (Index b = 0; b < batch; ++b) {
    Repeat r;
    r.length = kMinRepeat + draw(n / 4 - kMinRepeat + 1);
    r.distance = r.length + draw(n - 2 * r.length + 1);
    r.start = draw(n - r.distance - r.length + 1);
    for (Index j = 0; j < r.length; ++j) {
      out.tokens(b, r.start + r.distance + j) = out.tokens(b, r.start + j);
    }
    for (Index j = 0; j + 1 < r.length; ++j) {
      out.targets(b * n + r.start + r.distance + j, 0) = out.tokens(b, r.start + j + 1);
    }
    out.repeats.push_back(r);
  }
  return out;
}

const TrainingTask& find_task(const std::string& name) {
  std::string known;
  std::vector<std::string> names;
  for (const TrainingTask& t : training_tasks()) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : ", ") + quote_name(t.name);
    names.push_back(t.name);
  }
  if (name == induction_task().name) return induction_task();
  known += ", " + quote_name(induction_task().name);
  names.push_back(induction_task().name);
  throw Error("unknownName", "task", {{"value", name.substr(0, 60)}, {"allowed", names}},
              "task " + quote_name(name) + " is not a training task; the tasks are " + known);
}

TrainingTask relation_task(const std::vector<std::string>& names) {
  const std::string allowed = std::to_string(kMaxTaskRelations) + " distinct relations of " +
                              relation_names();
  if (names.empty() || names.size() > kMaxTaskRelations) {
    throw Error("count", "relations",
                {{"value", integer(static_cast<std::int64_t>(names.size()))},
                 {"min", integer(1)},
                 {"max", integer(kMaxTaskRelations)},
                 {"allowed", relation_list()}},
                names.empty() ? "relations is empty; give 1 to " + allowed
                              : "relations has " + std::to_string(names.size()) +
                                    " entries; give 1 to " + allowed);
  }
  TrainingTask task;
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) {
        throw Error("duplicate", "relations",
                    {{"value", names[i].substr(0, 60)}, {"first", integer(static_cast<std::int64_t>(j))},
                     {"second", integer(static_cast<std::int64_t>(i))}},
                    "relation " + quote_name(names[i]) + " is listed twice (at " +
                        std::to_string(j) + " and " + std::to_string(i) + "); give 1 to " +
                        allowed);
      }
    }
    task.relations.push_back(find_relation(names[i]));
  }
  task.title = relations_title(task.relations);
  task.defaults = heads_needed_defaults().settings;
  return task;
}

const HeadsNeededDefaults& heads_needed_defaults() {
  static const HeadsNeededDefaults defaults = [] {
    HeadsNeededDefaults d;
    d.relations = {"previous", "first", "two-back"};
    d.grid_relations = {"previous", "first", "two-back", "three-back"};
    d.head_counts = {1, 2, 4, 8};
    d.settings.num_heads = 4;
    d.settings.d_model = 16;
    d.settings.seq_len = 8;
    d.settings.vocab = 16;
    d.settings.learning_rate = 1e-2;
    d.settings.batch_size = 64;
    d.settings.steps = 500;
    d.settings.eval_size = 256;
    return d;
  }();
  return defaults;
}

std::string quote_name(const std::string& name) {
  return "\"" + (name.size() > 40 ? name.substr(0, 40) + "..." : name) + "\"";
}

Index relation_source(const Relation& r, Index i) {
  if (r.absolute) return static_cast<Index>(r.offset) <= i ? static_cast<Index>(r.offset) : -1;
  const Index source = i - static_cast<Index>(r.offset);
  return source >= 0 ? source : -1;
}

Index own_source(const TrainingTask& task, std::size_t r, Index i) {
  const Index s = relation_source(task.relations[r], i);
  if (s < 0) return -1;
  for (std::size_t o = 0; o < task.relations.size(); ++o) {
    if (o != r && relation_source(task.relations[o], i) == s) return -1;
  }
  return s;
}

void check_relation_positions(const TrainingTask& task, std::int64_t n) {
  if (task.induction) {
    if (n < kMinInductionSeqLen) {
      throw Error("atLeast", "seqLen", {{"value", integer(n)}, {"min", integer(kMinInductionSeqLen)}},
                  "seq_len (" + std::to_string(n) + ") must be at least " +
                      std::to_string(kMinInductionSeqLen) +
                      " for the task \"induction\" (a segment of 3 or more tokens and its repeat)");
    }
    return;
  }
  for (std::size_t r = 0; r < task.relations.size(); ++r) {
    if (own_positions(task, r, static_cast<Index>(n)) > 0) continue;
    std::int64_t needed = n + 1;
    while (own_positions(task, r, static_cast<Index>(needed)) == 0) ++needed;
    const Relation& rel = task.relations[r];
    throw Error(
        "atLeast", "seqLen", {{"value", integer(n)}, {"min", integer(needed)}, {"relation", rel.name}},
        "relation " + quote_name(rel.name) + " (" + rel.rule + ") has no position of its own in " +
        "sequences of " + std::to_string(n) + " tokens" +
        (task.relations.size() > 1 ? " (a position where no other relation reads the same token)"
                                   : "") +
        "; seq_len must be at least " + std::to_string(needed) + " for these relations");
  }
}

IntMatrix task_targets(const TrainingTask& task, const IntMatrix& tokens) {
  const Index batch = tokens.rows();
  const Index n = tokens.cols();
  const Index num_rel = static_cast<Index>(task.relations.size());
  IntMatrix targets(batch * n, num_rel);
  for (Index b = 0; b < batch; ++b) {
    for (Index i = 0; i < n; ++i) {
      for (Index r = 0; r < num_rel; ++r) {
        const Index s = relation_source(task.relations[static_cast<std::size_t>(r)], i);
        targets(b * n + i, r) = s >= 0 && s < n ? tokens(b, s) : -1;
      }
    }
  }
  return targets;
}

std::vector<std::string> token_labels(std::int64_t vocab) {
  std::vector<std::string> labels;
  for (std::int64_t t = 0; t < vocab; ++t) {
    labels.push_back(vocab <= 26 ? std::string(1, static_cast<char>('A' + t)) : std::to_string(t));
  }
  return labels;
}

}  // namespace headwise
