// Prints a training run's losses and final weights as the raw bits of each double, so that
// tests/js/train-native.test.mjs can check the WASM module's run against this native one bit
// for bit.
//
//   train_hex <task> <num_heads> <d_model> <seed> <steps> [seq_len vocab batch_size lr]
//
// <task>: a preset's name, or relations=<name>,<name>,... (see task_arg.hpp).
//
// Output: one line per tensor of the initial weights "init <name> <bits> <bits> ..." (row-major),
// one line per step "step <k> <loss bits> <accuracy bits>", then one line per tensor of the
// final weights "<name> <bits> <bits> ...", every double as 16 hex digits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "headwise/trainer.hpp"
#include "task_arg.hpp"

namespace {

std::string hex(double x) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(bits));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  // An argument layers=N (last) sets the number of layers (default 1).
  long long layers = 1;
  if (argc > 1 && std::strncmp(argv[argc - 1], "layers=", 7) == 0) {
    layers = std::atoll(argv[argc - 1] + 7);
    --argc;
  }
  if (argc != 6 && argc != 10) {
    std::fprintf(stderr,
                 "usage: train_hex <task> <num_heads> <d_model> <seed> <steps> "
                 "[seq_len vocab batch_size learning_rate] [layers=N]\n");
    return 2;
  }
  try {
    headwise::TrainerOptions o;
    o.layers = layers;
    headwise_tools::set_task(o, argv[1]);
    o.num_heads = std::atoll(argv[2]);
    o.d_model = std::atoll(argv[3]);
    o.seed = std::atoll(argv[4]);
    const long long steps = std::atoll(argv[5]);
    if (argc == 10) {
      o.seq_len = std::atoll(argv[6]);
      o.vocab = std::atoll(argv[7]);
      o.batch_size = std::atoll(argv[8]);
      o.learning_rate = std::strtod(argv[9], nullptr);
    }
    headwise::Trainer t(o);
    const auto print_params = [](const headwise::ModelParams& p, const char* prefix) {
      for (const headwise::ParamTensor& tensor : p.table()) {
        std::printf("%s%s", prefix, tensor.name.c_str());
        for (headwise::Index i = 0; i < tensor.numel(); ++i) {
          std::printf(" %s", hex(p.data()[tensor.offset + i]).c_str());
        }
        std::printf("\n");
      }
    };
    print_params(t.parameters(), "init ");
    for (long long s = 0; s < steps; ++s) {
      const headwise::StepResult r = t.step(1);
      std::printf("step %lld %s %s\n", static_cast<long long>(r.step), hex(r.loss).c_str(),
                  hex(r.accuracy).c_str());
    }
    print_params(t.parameters(), "");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_hex: %s\n", e.what());
    return 1;
  }
  return 0;
}
