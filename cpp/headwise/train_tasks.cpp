#include "headwise/train_tasks.hpp"

#include <stdexcept>

namespace headwise {

namespace {

Relation previous_token() {
  return {"previous token", "x[i-1]",
          "The token just before this position (none at the first position).", 1, false};
}

}  // namespace

const std::vector<TrainingTask>& training_tasks() {
  static const std::vector<TrainingTask> tasks = [] {
    std::vector<TrainingTask> t;
    TrainingTask first;
    first.name = "previous-and-first";
    first.title = "Previous token and first token";
    first.relations = {previous_token(),
                       {"first token", "x[0]", "The first token of the sequence.", 0, true}};
    t.push_back(first);
    TrainingTask two_back;
    two_back.name = "previous-and-two-back";
    two_back.title = "Previous token and the one before it";
    two_back.relations = {
        previous_token(),
        {"two back", "x[i-2]", "The token two positions back (none at the first two positions).", 2,
         false}};
    t.push_back(two_back);
    return t;
  }();
  return tasks;
}

const TrainingTask& find_task(const std::string& name) {
  std::string known;
  for (const TrainingTask& t : training_tasks()) {
    if (t.name == name) return t;
    known += (known.empty() ? "\"" : ", \"") + t.name + "\"";
  }
  const std::string shown = name.size() > 40 ? name.substr(0, 40) + "..." : name;
  throw std::invalid_argument("task \"" + shown + "\" is not a training task; the tasks are " +
                              known);
}

Index relation_source(const Relation& r, Index i) {
  const Index source = r.absolute ? static_cast<Index>(r.offset) : i - static_cast<Index>(r.offset);
  return source >= 0 ? source : -1;
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
