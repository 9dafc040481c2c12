// The trainer's adapters, as the lesson's (lesson.hpp): options in, a plain JS object or
// {error: message} out. A trainer is named by the id trainerCreate returned.
#pragma once

#include <emscripten/val.h>

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

}  // namespace headwise_js
