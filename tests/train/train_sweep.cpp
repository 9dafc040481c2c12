// Trains one model per (head count, seed) with the native trainer (the page's code) and prints
// one JSON line per run: held-out loss and accuracies, every head's focus, the accuracies with
// each head switched off, and the held-out accuracy every `every` steps.
// tests/train/sweep.mjs runs it over a grid and prints the table of cpp/TRAINING.md (`npm run sweep`).
//
//   train_sweep <task> <heads,heads,...> <seeds> <steps> <d_model> <seq_len> <vocab>
//               <batch_size> <learning_rate> [every [eval_size [first_seed]]]
//   train_sweep --heads-needed-defaults    (the experiment's defaults, one JSON line)
//
// <task>: a preset's name, or relations=<name>,<name>,... (see task_arg.hpp).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "headwise/trainer.hpp"
#include "json_lines.hpp"
#include "task_arg.hpp"

using headwise_tools::json_list;
using headwise_tools::json_rows;

// The heads-needed experiment's defaults (cpp/headwise/train_tasks.cpp) as one JSON line.
void print_heads_needed_defaults() {
  const headwise::HeadsNeededDefaults& d = headwise::heads_needed_defaults();
  auto names = [](const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ",\"" : "\"") + v[i] + "\"";
    return out + "]";
  };
  std::string heads = "[";
  for (std::size_t i = 0; i < d.head_counts.size(); ++i)
    heads += (i ? "," : "") + std::to_string(d.head_counts[i]);
  heads += "]";
  const headwise::TaskDefaults& s = d.settings;
  std::printf(
      "{\"relations\":%s,\"gridRelations\":%s,\"headCounts\":%s,\"dModel\":%lld,"
      "\"seqLen\":%lld,\"vocab\":%lld,\"learningRate\":%.17g,\"batchSize\":%lld,"
      "\"steps\":%lld,\"evalSize\":%lld,\"solvedAccuracy\":%.17g}\n",
      names(d.relations).c_str(), names(d.grid_relations).c_str(), heads.c_str(),
      static_cast<long long>(s.d_model), static_cast<long long>(s.seq_len),
      static_cast<long long>(s.vocab), s.learning_rate, static_cast<long long>(s.batch_size),
      static_cast<long long>(s.steps), static_cast<long long>(s.eval_size), d.solved_accuracy);
}

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--heads-needed-defaults") {
    print_heads_needed_defaults();
    return 0;
  }
  if (argc < 10 || argc > 13) {
    std::fprintf(stderr,
                 "usage: train_sweep <task> <heads,...> <seeds> <steps> <d_model> <seq_len> "
                 "<vocab> <batch_size> <learning_rate> [every [eval_size [first_seed]]]\n");
    return 2;
  }
  try {
    std::vector<long long> heads;
    std::stringstream list(argv[2]);
    for (std::string item; std::getline(list, item, ',');)
      heads.push_back(std::atoll(item.c_str()));
    const long long seeds = std::atoll(argv[3]);
    const long long steps = std::atoll(argv[4]);
    const long long every = argc >= 11 ? std::atoll(argv[10]) : 50;
    const long long eval_size = argc >= 12 ? std::atoll(argv[11]) : 256;
    const long long first_seed = argc >= 13 ? std::atoll(argv[12]) : 0;
    for (long long h : heads) {
      for (long long seed = first_seed; seed < first_seed + seeds; ++seed) {
        headwise::TrainerOptions o;
        headwise_tools::set_task(o, argv[1]);
        o.num_heads = h;
        o.d_model = std::atoll(argv[5]);
        o.seq_len = std::atoll(argv[6]);
        o.vocab = std::atoll(argv[7]);
        o.batch_size = std::atoll(argv[8]);
        o.learning_rate = std::strtod(argv[9], nullptr);
        o.eval_size = eval_size;
        o.seed = seed;
        headwise::Trainer t(o);
        std::vector<double> curve, worst_curve;
        double last_loss = 0.0;
        for (long long done = 0; done < steps;) {
          const long long k = std::min(every, steps - done);
          last_loss = t.step(k).loss;
          done += k;
          const headwise::EvalResult e = t.evaluate({});
          curve.push_back(e.accuracy);
          worst_curve.push_back(
              *std::min_element(e.relation_accuracy.begin(), e.relation_accuracy.end()));
        }
        const headwise::EvalResult e = t.evaluate({});
        std::string ablations = "[";
        for (long long off = 0; off < h; ++off) {
          ablations += (off ? "," : "") + json_list(t.evaluate({off}).relation_accuracy);
        }
        ablations += "]";
        const long long count = static_cast<long long>(t.parameters().data().size());
        std::printf(
            "{\"task\":\"%s\",\"numHeads\":%lld,\"dModel\":%lld,\"seqLen\":%lld,\"vocab\":%lld,"
            "\"batchSize\":%lld,\"learningRate\":%g,\"steps\":%lld,\"seed\":%lld,"
            "\"parameters\":%lld,\"trainLoss\":%.6g,\"loss\":%.6g,\"accuracy\":%.6g,"
            "\"relationAccuracy\":%s,\"headFocus\":%s,\"ablations\":%s,\"every\":%lld,"
            "\"curve\":%s,\"worstCurve\":%s}\n",
            argv[1], h, static_cast<long long>(t.config().d_model),
            static_cast<long long>(t.config().seq_len), static_cast<long long>(t.config().vocab),
            static_cast<long long>(t.config().batch_size), t.config().learning_rate, steps, seed,
            count, last_loss, e.loss, e.accuracy, json_list(e.relation_accuracy).c_str(),
            json_rows(e.head_focus).c_str(), ablations.c_str(), every, json_list(curve).c_str(),
            json_list(worst_curve).c_str());
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_sweep: %s\n", e.what());
    return 1;
  }
  return 0;
}
