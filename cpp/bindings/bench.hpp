// The benchmark's entry points (tests/bench/wasm_bench.js), in the benchmark module only.
#pragma once

#include <emscripten/val.h>

namespace headwise_js {

// Draws the lesson's inputs for {tokens, dModel, numHeads} at seed 7 and keeps them.
emscripten::val bench_prepare(emscripten::val o);
// Runs the forward {repeats} times on them: {ms (mean), a few numbers of the last result}.
emscripten::val bench_run(emscripten::val o);

}  // namespace headwise_js
