// Benchmark entry points (tests/bench): the forward alone, on inputs already in the WASM heap,
// so no JS <-> WASM conversion is timed. Only in the benchmark module
// (build/wasm/headwise-bench.js), never in dist/: reached through the module object given to
// its factory.
#include "bench.hpp"

#include <emscripten/emscripten.h>

#include "headwise/headwise.hpp"
#include "marshal.hpp"

namespace headwise_js {

namespace {

headwise::SeedExperiment& bench_inputs() {
  static headwise::SeedExperiment inputs;
  return inputs;
}

}  // namespace

// Draws the lesson's inputs for (tokens, dModel) at seed 7 and keeps them for bench_run.
val bench_prepare(val o) {
  return guarded([&] {
    headwise::SeedExperimentConfig c;
    c.seed = 7;
    c.tokens = get_int(o, "tokens");
    c.d_model = get_int(o, "dModel");
    c.num_heads = get_int(o, "numHeads");
    bench_inputs() = headwise::seed_experiment(c);
    val out = val::object();
    out.set("kernel", headwise::gemm_description());
    return out;
  });
}

// Runs the forward `repeats` times on the prepared inputs; returns the mean time in ms and a
// few numbers of the last result (to cross-check implementations).
val bench_run(val o) {
  return guarded([&] {
    const headwise::SeedExperiment& in = bench_inputs();
    const std::int64_t heads = get_int(o, "numHeads");
    const std::int64_t repeats = get_int(o, "repeats");
    headwise::MhaResult r;
    const double t0 = emscripten_get_now();
    for (std::int64_t i = 0; i < repeats; ++i) {
      r = headwise::multi_head_attention(in.x, in.weights, heads);
    }
    const double ms = (emscripten_get_now() - t0) / static_cast<double>(repeats);
    val out = val::object();
    out.set("ms", ms);
    out.set("output00", r.output(0, 0));
    out.set("outputSum", r.output.sum());
    out.set("weights000", r.head_weights[0](0, 0));
    out.set("weightsLastSum", r.head_weights.back().row(r.output.rows() - 1).sum());
    return out;
  });
}
}  // namespace headwise_js
