// The training section's synthetic tasks: each position's targets are other positions' tokens,
// picked by different rules ("relations"), so a head that serves one rule is visible.
//
// A task is either one of the named presets (training_tasks()) or built from 1 to
// kMaxTaskRelations distinct relations of the catalogue (training_relations()).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "headwise/numpy_random.hpp"
#include "headwise/types.hpp"

namespace headwise {

// One rule: the target at position i is the token at source_position(i), or -1 (no target)
// where that position does not exist or lies after i (the model attends causally).
struct Relation {
  std::string name;         // "previous": the catalogue's key, what createTrainer takes
  std::string title;        // "previous token": how the page names it
  std::string rule;         // "x[i-1]"
  std::string description;  // one sentence for the page
  std::int64_t offset = 0;  // source = i - offset when offset > 0 ...
  bool absolute = false;    // ... or source = offset (a fixed position) when absolute
};

// The settings a task is shown with unless the caller overrides them (chosen by the sweeps in
// tests/train; see cpp/TRAINING.md).
struct TaskDefaults {
  std::int64_t layers = 1;
  std::int64_t num_heads = 2;
  std::int64_t d_model = 8;
  std::int64_t seq_len = 8;
  std::int64_t vocab = 16;
  double learning_rate = 1e-2;
  std::int64_t batch_size = 64;
  std::int64_t steps = 600;
  std::int64_t eval_size = 256;
};

struct TrainingTask {
  std::string name;   // "previous-and-first"; empty for a task built from relations
  std::string title;  // "Previous token and first token"
  std::vector<Relation> relations;
  TaskDefaults defaults;
  // The task "induction": sequences with a repeated segment (draw_batch), one target per
  // position of the repeat but its last, the next token; relations holds its one relation.
  bool induction = false;
};

// In a sequence of the induction task, the segment x[start, start + length) recurs at
// start + distance (distance >= length, so the two copies do not overlap).
struct Repeat {
  Index start = 0, length = 0, distance = 0;
};

// The induction task's segment lengths run from kMinRepeat to seq_len / 4; it needs sequences
// of at least kMinInductionSeqLen tokens.
constexpr Index kMinRepeat = 3;
constexpr std::int64_t kMinInductionSeqLen = 12;

// A batch of a task: tokens (B, n), targets (B * n, R) and, for the induction task, each
// sequence's repeat.
struct TaskBatch {
  IntMatrix tokens, targets;
  std::vector<Repeat> repeats;
};

// The task's batch of `batch` sequences of n tokens in [0, vocab), from rng:
//   every task: tokens = randint(vocab, size=(batch, n)), then
//   induction:  per sequence, length = 3 + randint(n / 4 - 2), distance = length +
//               randint(n - 2 * length + 1), start = randint(n - distance - length + 1) (each a
//               randint(k, size=(1, 1)) draw), and x[start + distance + j] = x[start + j] for
//               j < length; the target at start + distance + j, j < length - 1, is x[start + j + 1]
//   the others: targets = task_targets(task, tokens).
TaskBatch draw_batch(const TrainingTask& task, NumpyRandomState& rng, Index batch, Index n,
                     std::int64_t vocab);

// The task "induction" (not among training_tasks(), the page's presets of relations).
const TrainingTask& induction_task();

// The induction experiment: a model of several layers beside one layer with several head
// counts at the same d_model; settings chosen by `npm run sweep:induction` (cpp/TRAINING.md).
struct InductionDefaults {
  TaskDefaults settings;                          // layers, num_heads, d_model, ..., steps
  std::vector<std::int64_t> compare_head_counts;  // one layer with each of these
  // The induction head has formed: held-out repeat accuracy >= formed_accuracy and a head of
  // the last layer with an induction score >= formed_score.
  double formed_accuracy = 0.0;
  double formed_score = 0.0;
};
const InductionDefaults& induction_defaults();

// At most this many relations in one task.
constexpr std::size_t kMaxTaskRelations = 6;

// Every relation a task can be built from, in the order the page lists them.
const std::vector<Relation>& training_relations();

// Every preset task, in the order the page lists them.
const std::vector<TrainingTask>& training_tasks();

// The task called name (a preset or "induction"). Throws std::invalid_argument naming the known
// tasks otherwise.
const TrainingTask& find_task(const std::string& name);

// The task of the relations called names, in that order, with the heads-needed experiment's
// settings as its defaults. Throws std::invalid_argument, naming the value and the catalogue,
// for an empty list, more than kMaxTaskRelations names, an unknown name or a repeated one.
TrainingTask relation_task(const std::vector<std::string>& names);

// The "how many heads does a task need?" experiment: tasks of D = 1 .. 4 relations, each
// trained with every head count at the same d_model (so the same parameter count); the
// settings were chosen by the sweep in tests/train (see cpp/TRAINING.md).
struct HeadsNeededDefaults {
  std::vector<std::string> relations;       // the default task: previous, first, two-back
  std::vector<std::string> grid_relations;  // D relations = the first D of these
  std::vector<std::int64_t> head_counts;    // 1, 2, 4, 8
  TaskDefaults settings;                    // d_model, seq_len, ..., steps, eval_size
  double solved_accuracy = 0.95;            // solved: the worst relation's held-out accuracy >= this
};
const HeadsNeededDefaults& heads_needed_defaults();

// Source position of relation r at position i, or -1 where it is undefined (before the start,
// or a fixed position after i).
Index relation_source(const Relation& r, Index i);

// Relation r's source at position i where it is defined and no other relation of task reads
// the same position (there a head cannot tell them apart), else -1.
Index own_source(const TrainingTask& task, std::size_t r, Index i);

// Throws unless every relation of task has, in sequences of n tokens, a position where it is
// defined and no other relation of the task reads the same source (where its accuracy and
// head focus are measured); the message names the relation and the n it needs.
void check_relation_positions(const TrainingTask& task, std::int64_t n);

// tokens: (batch, n) -> targets: (batch * n, R), row b * n + i holding position i's target for
// every relation (-1 where undefined).
IntMatrix task_targets(const TrainingTask& task, const IntMatrix& tokens);

// A name as an error message quotes it: "previous", at most 40 characters of it.
std::string quote_name(const std::string& name);

// Labels a student can read: "A", "B", ... for vocab <= 26, else "0", "1", ...
std::vector<std::string> token_labels(std::int64_t vocab);

}  // namespace headwise
