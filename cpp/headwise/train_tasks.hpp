// The training section's synthetic tasks: each position's targets are other positions' tokens,
// picked by two different rules ("relations"), so a head that serves one rule is visible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "headwise/types.hpp"

namespace headwise {

// One rule: the target at position i is the token at source_position(i), or -1 (no target)
// where that position does not exist.
struct Relation {
  std::string name;         // "previous token"
  std::string rule;         // "x[i-1]"
  std::string description;  // one sentence for the page
  std::int64_t offset = 0;  // source = i - offset when offset > 0 ...
  bool absolute = false;    // ... or source = offset (a fixed position) when absolute
};

// The settings a task is shown with unless the caller overrides them (chosen by the sweep in
// tests/train; see cpp/TRAINING.md, "The defaults, chosen by a sweep").
struct TaskDefaults {
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
  std::string name;   // "previous-and-first"
  std::string title;  // "Previous token and first token"
  std::vector<Relation> relations;
  TaskDefaults defaults;
};

// Every task, in the order the page lists them.
const std::vector<TrainingTask>& training_tasks();

// The task called name. Throws std::invalid_argument naming the known tasks otherwise.
const TrainingTask& find_task(const std::string& name);

// Source position of relation r at position i, or -1 where it is undefined.
Index relation_source(const Relation& r, Index i);

// tokens: (batch, n) -> targets: (batch * n, R), row b * n + i holding position i's target for
// every relation (-1 where undefined).
IntMatrix task_targets(const TrainingTask& task, const IntMatrix& tokens);

// Labels a student can read: "A", "B", ... for vocab <= 26, else "0", "1", ...
std::vector<std::string> token_labels(std::int64_t vocab);

}  // namespace headwise
