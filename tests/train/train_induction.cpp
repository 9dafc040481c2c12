// Trains models of the task "induction" with the native trainer (the page's code), one per
// seed, and prints one JSON line per run: the held-out repeat accuracy every `every` steps, the
// final repeat accuracy and loss, every head's previous-token and induction scores, and the
// repeat accuracy with the layer-0 head of the highest previous-token score, or the last
// layer's head of the highest induction score, switched off.
// tests/train/induction_sweep.mjs runs it and prints the table of cpp/TRAINING.md
// (`npm run sweep:induction`).
//
//   train_induction <layers> <heads> <seeds> <steps> <d_model> <seq_len> <vocab> <batch_size>
//                   <learning_rate> <every> <eval_size> <first_seed>
//   train_induction --defaults      (hw.inductionDefaults()'s settings, one JSON line)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "headwise/trainer.hpp"
#include "json_lines.hpp"

namespace {

using headwise_tools::json_list;
using headwise_tools::json_rows;

// The head (column) of row `row` of m with the largest value.
headwise::Index best_head(const headwise::Matrix& m, headwise::Index row) {
  headwise::Index best = 0;
  for (headwise::Index h = 1; h < m.cols(); ++h)
    if (m(row, h) > m(row, best)) best = h;
  return best;
}

void print_defaults() {
  const headwise::InductionDefaults& d = headwise::induction_defaults();
  const headwise::TaskDefaults& s = d.settings;
  std::string heads = "[";
  for (std::size_t i = 0; i < d.compare_head_counts.size(); ++i)
    heads += (i ? "," : "") + std::to_string(d.compare_head_counts[i]);
  std::printf(
      "{\"layers\":%lld,\"numHeads\":%lld,\"dModel\":%lld,\"seqLen\":%lld,\"vocab\":%lld,"
      "\"learningRate\":%.17g,\"batchSize\":%lld,\"steps\":%lld,\"evalSize\":%lld,"
      "\"compareHeadCounts\":%s],\"formedAccuracy\":%.17g,\"formedScore\":%.17g}\n",
      static_cast<long long>(s.layers), static_cast<long long>(s.num_heads),
      static_cast<long long>(s.d_model), static_cast<long long>(s.seq_len),
      static_cast<long long>(s.vocab), s.learning_rate, static_cast<long long>(s.batch_size),
      static_cast<long long>(s.steps), static_cast<long long>(s.eval_size), heads.c_str(),
      d.formed_accuracy, d.formed_score);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--defaults") {
    print_defaults();
    return 0;
  }
  if (argc != 13) {
    std::fprintf(stderr,
                 "usage: train_induction <layers> <heads> <seeds> <steps> <d_model> <seq_len> "
                 "<vocab> <batch_size> <learning_rate> <every> <eval_size> <first_seed>\n");
    return 2;
  }
  try {
    const long long seeds = std::atoll(argv[3]), steps = std::atoll(argv[4]),
                    every = std::atoll(argv[10]), first_seed = std::atoll(argv[12]);
    for (long long seed = first_seed; seed < first_seed + seeds; ++seed) {
      headwise::TrainerOptions o;
      o.task = "induction";
      o.layers = std::atoll(argv[1]);
      o.num_heads = std::atoll(argv[2]);
      o.d_model = std::atoll(argv[5]);
      o.seq_len = std::atoll(argv[6]);
      o.vocab = std::atoll(argv[7]);
      o.batch_size = std::atoll(argv[8]);
      o.learning_rate = std::strtod(argv[9], nullptr);
      o.eval_size = std::atoll(argv[11]);
      o.seed = seed;
      headwise::Trainer t(o);
      std::vector<double> curve;
      for (long long done = 0; done < steps;) {
        const long long k = std::min(every, steps - done);
        t.step(k);
        done += k;
        curve.push_back(t.evaluate({}).repeat_accuracy);
      }
      const headwise::EvalResult e = t.evaluate({});
      const long long last = o.layers - 1;
      const headwise::Index prev = best_head(e.previous_token_score, 0);
      const headwise::Index ind = best_head(e.induction_score, last);
      const double without_prev = t.evaluate_heads({{0, prev}}).repeat_accuracy;
      const double without_ind = t.evaluate_heads({{last, ind}}).repeat_accuracy;
      std::printf(
          "{\"layers\":%lld,\"numHeads\":%lld,\"dModel\":%lld,\"seqLen\":%lld,\"vocab\":%lld,"
          "\"batchSize\":%lld,\"learningRate\":%g,\"steps\":%lld,\"seed\":%lld,"
          "\"parameters\":%lld,\"repeatAccuracy\":%.6g,\"repeatLoss\":%.6g,"
          "\"previousTokenScore\":%s,\"inductionScore\":%s,\"previousHead\":%lld,"
          "\"inductionHead\":%lld,\"withoutPreviousHead\":%.6g,\"withoutInductionHead\":%.6g,"
          "\"every\":%lld,\"curve\":%s}\n",
          static_cast<long long>(o.layers), static_cast<long long>(o.num_heads),
          static_cast<long long>(t.config().d_model), static_cast<long long>(t.config().seq_len),
          static_cast<long long>(t.config().vocab), static_cast<long long>(t.config().batch_size),
          t.config().learning_rate, steps, seed,
          static_cast<long long>(t.parameters().data().size()), e.repeat_accuracy, e.repeat_loss,
          json_rows(e.previous_token_score).c_str(), json_rows(e.induction_score).c_str(),
          static_cast<long long>(prev), static_cast<long long>(ind), without_prev, without_ind,
          every, json_list(curve).c_str());
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_induction: %s\n", e.what());
    return 1;
  }
  return 0;
}
