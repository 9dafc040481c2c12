// The trainer's adapters, as the lesson's (lesson.hpp): options in, a plain JS object or
// {error: message} out. A trainer is named by the id trainerCreate returned.
#pragma once

#include <emscripten/val.h>

#include <vector>

#include "headwise/circuits.hpp"
#include "headwise/trainer.hpp"

namespace headwise_js {

emscripten::val training_tasks();
emscripten::val training_relations();
emscripten::val heads_needed_defaults();
emscripten::val induction_defaults();
emscripten::val trainer_create(emscripten::val o);
emscripten::val trainer_dispose(emscripten::val o);
emscripten::val trainer_step(emscripten::val o);
emscripten::val trainer_parameters(emscripten::val o);
emscripten::val trainer_set_parameters(emscripten::val o);
emscripten::val trainer_gradients(emscripten::val o);
emscripten::val trainer_attention(emscripten::val o);
emscripten::val trainer_evaluate(emscripten::val o);
emscripten::val trainer_parameter_count(emscripten::val o);
emscripten::val trainer_count();
emscripten::val trainer_circuits(emscripten::val o);

// A model's tensor table {total, tensors: [{name, shape, numel}]}, and its parameters
// {name: {data, rows, cols}} (also the text model's, cpp/bindings/text.cpp).
emscripten::val tensor_table_out(const std::vector<headwise::ParamTensor>& table);
emscripten::val params_out(const headwise::ModelParams& p);
// A model's circuits (also the text model's): {qk, ov: {data, depth: layers * h, rows, cols},
// copying: (layers * h, R), previousPosition: (layers, h), compositionQ, compositionK,
// compositionV: (layers * h, layers * h)}; cpp/api.js nests them by layer and head.
emscripten::val circuits_out(const headwise::ModelCircuits& c);

}  // namespace headwise_js
