// The text trainer's adapters (hw.createTextTrainer in cpp/api.js): a trainer is made from the
// text and options and named by the id textTrainerCreate returned, as the other trainers are.
#pragma once

#include <emscripten/val.h>

namespace headwise_js {

emscripten::val text_trainer_create(emscripten::val o);
emscripten::val text_trainer_dispose(emscripten::val o);
emscripten::val text_trainer_step(emscripten::val o);
emscripten::val text_trainer_shard_gradients(emscripten::val o);
emscripten::val text_trainer_shard_sum(emscripten::val o);
emscripten::val text_trainer_apply_gradients(emscripten::val o);
emscripten::val text_trainer_evaluate(emscripten::val o);
emscripten::val text_trainer_save(emscripten::val o);

}  // namespace headwise_js
