// The module's registration table: the name JS calls (through cpp/api.js) -> its adapter.
// Three modules are linked from these files (CMakeLists.txt):
//   dist/headwise-lesson.js    the lesson's adapters (HEADWISE_LESSON_ONLY: no trainer);
//   dist/headwise.js           the lesson's and the trainer's;
//   build/wasm/headwise-bench.js  the same plus the benchmark's hooks (HEADWISE_BENCH).
#include <emscripten/bind.h>

#include "lesson.hpp"
#ifndef HEADWISE_LESSON_ONLY
#include "text.hpp"
#include "text_trainer.hpp"
#include "trainer.hpp"
#endif
#ifdef HEADWISE_BENCH
#include "bench.hpp"
#endif

EMSCRIPTEN_BINDINGS(headwise) {
  using emscripten::function;
  using namespace headwise_js;
  function("_seedExperiment", &seed_experiment);
  function("_multiHeadAttention", &multi_head_attention);
  function("_torchMultiheadAttention", &torch_multihead_attention);
  function("_parameterCount", &parameter_count);
  function("_packLessonWeights", &pack_lesson_weights);
  function("_headCircuits", &head_circuits);
  function("_compareHeads", &compare_heads);
  function("_allclose", &allclose);
  function("_maxAbsDiff", &max_abs_diff);
  function("_heapStats", &heap_stats);
  function("_limits", &limits);
#ifndef HEADWISE_LESSON_ONLY
  function("_trainingTasks", &training_tasks);
  function("_trainingRelations", &training_relations);
  function("_headsNeededDefaults", &heads_needed_defaults);
  function("_inductionDefaults", &induction_defaults);
  function("_trainerCreate", &trainer_create);
  function("_trainerDispose", &trainer_dispose);
  function("_trainerStep", &trainer_step);
  function("_trainerParameters", &trainer_parameters);
  function("_trainerSetParameters", &trainer_set_parameters);
  function("_trainerGradients", &trainer_gradients);
  function("_trainerAttention", &trainer_attention);
  function("_trainerEvaluate", &trainer_evaluate);
  function("_trainerParameterCount", &trainer_parameter_count);
  function("_trainerCount", &trainer_count);
  function("_trainerCircuits", &trainer_circuits);
  function("_textModelCreate", &text_model_create);
  function("_textModelDispose", &text_model_dispose);
  function("_textModelTokenize", &text_model_tokenize);
  function("_textModelRun", &text_model_run);
  function("_textModelParameters", &text_model_parameters);
  function("_textModelCircuits", &text_model_circuits);
  function("_textModelAttribute", &text_model_attribute);
  function("_textModelPromoted", &text_model_promoted);
  function("_textTrainerCreate", &text_trainer_create);
  function("_textTrainerDispose", &text_trainer_dispose);
  function("_textTrainerStep", &text_trainer_step);
  function("_textTrainerShardGradients", &text_trainer_shard_gradients);
  function("_textTrainerShardSum", &text_trainer_shard_sum);
  function("_textTrainerApplyGradients", &text_trainer_apply_gradients);
  function("_textTrainerEvaluate", &text_trainer_evaluate);
  function("_textTrainerSave", &text_trainer_save);
#endif
#ifdef HEADWISE_BENCH
  function("_benchPrepare", &bench_prepare);
  function("_benchRun", &bench_run);
#endif
}
