// The text model's adapters (hw.textModel in cpp/api.js): a model is read from the bytes of its
// weights file and named by the id textModelCreate returned, as trainers are.
#pragma once

#include <emscripten/val.h>

#include "headwise/trainer.hpp"

namespace headwise_js {

emscripten::val text_model_create(emscripten::val o);
emscripten::val text_model_dispose(emscripten::val o);
emscripten::val text_model_tokenize(emscripten::val o);
emscripten::val text_model_run(emscripten::val o);
emscripten::val text_model_parameters(emscripten::val o);
emscripten::val text_model_circuits(emscripten::val o);
emscripten::val text_model_attribute(emscripten::val o);
emscripten::val text_model_promoted(emscripten::val o);

// A text model's sizes as the API names them: {layers, numHeads, dModel, dHead, context, vocab}.
emscripten::val text_config_out(const headwise::TrainerConfig& c);

}  // namespace headwise_js
