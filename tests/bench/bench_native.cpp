// Native timing of the multi-head attention forward (headwise::multi_head_attention), one thread.
//
// Inputs are the lesson's draws (np.random.seed(seed); X = randn(n, d); Wq, Wk, Wv, Wo =
// randn(d, d)), made once per size and never timed. One timed run is one complete forward:
// projections, per-head softmax attention, concat, output projection, every intermediate and
// the per-head weights returned (allocations included, as the WASM API pays them too).
//
//   bench_native                 a quick table for the five benchmark sizes
//   bench_native --serve         line protocol for tests/bench/run.mjs (stdin -> stdout):
//       info                     -> {"impl":..., "compiler":..., "flags":..., "kernel":...}
//       time <n> <d> <h> <samples> <batch>
//                                -> {"times_ms":[...], "check":{...}}: per sample, the mean
//                                   time of one forward over a batch of forwards
//       quit
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "headwise/gemm.hpp"
#include "headwise/lesson.hpp"
#include "headwise/multi_head.hpp"

#ifndef HEADWISE_BENCH_FLAGS
#define HEADWISE_BENCH_FLAGS "unknown"
#endif
#ifndef HEADWISE_BENCH_NAME
#define HEADWISE_BENCH_NAME "native"
#endif

namespace {

using headwise::Index;
using headwise::Matrix;

struct Inputs {
  Matrix x;
  headwise::MhaWeights w;
};

// The lesson's draws (np.random.seed(7); X = randn(n, d); Wq, Wk, Wv, Wo = randn(d, d) x4),
// taken from the core's own seed experiment (its one-off forward is not timed).
const Inputs& inputs(Index n, Index d) {
  static std::map<std::pair<Index, Index>, Inputs> cache;
  auto it = cache.find({n, d});
  if (it != cache.end()) return it->second;
  headwise::SeedExperimentConfig config;
  config.seed = 7;
  config.tokens = n;
  config.d_model = d;
  config.num_heads = 1;
  headwise::SeedExperiment e = headwise::seed_experiment(config);
  return cache.emplace(std::make_pair(n, d), Inputs{std::move(e.x), std::move(e.weights)})
      .first->second;
}

// Plain sums (Eigen's AVX-512 reductions trip a GCC 12 -Wmaybe-uninitialized false positive).
double sum(const double* p, Index n) {
  double s = 0.0;
  for (Index i = 0; i < n; ++i) s += p[i];
  return s;
}

// Times samples x batch forwards; each sample is the mean of one batch. Also returns a few
// numbers of the result to cross-check implementations.
std::string time_forward(Index n, Index d, Index h, int samples, int batch) {
  const Inputs& in = inputs(n, d);
  std::vector<double> times;
  headwise::MhaResult r;
  for (int i = 0; i < samples; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int b = 0; b < batch; ++b) r = headwise::multi_head_attention(in.x, in.w, h);
    const auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / batch);
  }
  std::ostringstream out;
  out.precision(17);
  out << "{\"times_ms\":[";
  for (std::size_t i = 0; i < times.size(); ++i) out << (i ? "," : "") << times[i];
  out << "],\"check\":{\"output00\":" << r.output(0, 0)
      << ",\"outputSum\":" << sum(r.output.data(), r.output.size())
      << ",\"weights000\":" << r.head_weights[0](0, 0)
      << ",\"weightsLastSum\":" << sum(r.head_weights.back().data() + (n - 1) * n, n) << "}}";
  return out.str();
}

std::string info() {
  std::ostringstream out;
  out << "{\"impl\":\"" << HEADWISE_BENCH_NAME << "\",\"compiler\":\""
#if defined(__clang__)
      << "clang " << __clang_version__
#elif defined(__GNUC__)
      << "g++ " << __VERSION__
#endif
      << "\",\"flags\":\"" << HEADWISE_BENCH_FLAGS << "\",\"kernel\":\""
      << headwise::gemm_description() << "\"}";
  return out.str();
}

int serve() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string op;
    in >> op;
    if (op == "quit") break;
    if (op == "info") {
      std::cout << info() << std::endl;
    } else if (op == "time") {
      Index n = 0, d = 0, h = 0;
      int samples = 0, batch = 1;
      in >> n >> d >> h >> samples >> batch;
      try {
        std::cout << time_forward(n, d, h, samples, std::max(batch, 1)) << std::endl;
      } catch (const std::exception& e) {
        std::cout << "{\"error\":\"" << e.what() << "\"}" << std::endl;
      }
    } else {
      std::cout << "{\"error\":\"unknown command\"}" << std::endl;
    }
  }
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int quick_table() {
  std::printf("%s\nkernel: %s\n\n", HEADWISE_BENCH_FLAGS, headwise::gemm_description().c_str());
  std::printf("%8s %8s %6s %12s %10s\n", "tokens", "d_model", "heads", "median ms", "GFLOP/s");
  const std::tuple<Index, Index, Index> sizes[] = {
      {5, 8, 2}, {64, 256, 4}, {128, 512, 8}, {128, 768, 12}, {512, 768, 12}};
  for (const auto& [n, d, h] : sizes) {
    const Inputs& in = inputs(n, d);
    for (int i = 0; i < 3; ++i) headwise::multi_head_attention(in.x, in.w, h);  // warm-up
    std::vector<double> times;
    const int reps = n * d < 4096 ? 2000 : 21;
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      headwise::multi_head_attention(in.x, in.w, h);
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    const double ms = median(times);
    // Projections 4 * 2 n d^2, scores and weights @ v 2 * 2 n^2 d.
    const double flops = 8.0 * n * d * d + 4.0 * n * n * d;
    std::printf("%8ld %8ld %6ld %12.4f %10.2f\n", static_cast<long>(n), static_cast<long>(d),
                static_cast<long>(h), ms, flops / (ms * 1e6));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--serve") return serve();
  return quick_table();
}
