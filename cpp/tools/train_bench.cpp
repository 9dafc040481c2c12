// Training steps per second of the native trainer, for `npm run bench` (tests/bench/train.mjs).
//
//   train_bench <task> <heads,heads,...> <steps per sample> <samples>
//
// <task>: a preset's name, or relations=<name>,<name>,... (see task_arg.hpp).
// Each model (the task's defaults but for the head count) first takes 20 warm-up steps, then
// `samples` timings of `steps per sample` steps; prints one JSON line per model with every
// sample's milliseconds per step, in CPU time of this thread (the machine may be shared).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "headwise/trainer.hpp"
#include "task_arg.hpp"

namespace {

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: train_bench <task> <heads,...> <steps per sample> <samples>\n");
    return 2;
  }
  try {
    headwise::TrainerOptions base;
    headwise_tools::set_task(base, argv[1]);
    const headwise::TrainingTask task = headwise::resolve_task(base);
    std::stringstream list(argv[2]);
    const long long steps = std::atoll(argv[3]);
    const long long samples = std::atoll(argv[4]);
    for (std::string item; std::getline(list, item, ',');) {
      headwise::TrainerOptions o = base;
      o.num_heads = std::atoll(item.c_str());
      o.d_model = task.defaults.d_model;
      o.seed = 0;
      headwise::Trainer t(o);
      t.step(20);
      std::string ms = "[";
      for (long long s = 0; s < samples; ++s) {
        const double t0 = thread_cpu_ms();
        t.step(steps);
        ms += (s ? "," : "") + std::to_string((thread_cpu_ms() - t0) / static_cast<double>(steps));
      }
      std::printf("{\"numHeads\":%s,\"msPerStep\":%s]}\n", item.c_str(), ms.c_str());
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
