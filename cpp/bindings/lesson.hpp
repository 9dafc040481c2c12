// The lesson's adapters: each takes the options object cpp/api.js has checked and returns a
// plain JS object, or {error: message}.
#pragma once

#include <emscripten/val.h>

namespace headwise_js {

emscripten::val seed_experiment(emscripten::val o);
emscripten::val multi_head_attention(emscripten::val o);
emscripten::val torch_multihead_attention(emscripten::val o);
emscripten::val parameter_count(emscripten::val o);
emscripten::val pack_lesson_weights(emscripten::val o);
emscripten::val head_circuits(emscripten::val o);
emscripten::val compare_heads(emscripten::val o);
emscripten::val allclose(emscripten::val o);
emscripten::val max_abs_diff(emscripten::val o);
emscripten::val heap_stats();
emscripten::val limits();

}  // namespace headwise_js
