// The text trainer's adapters. Trainers live here, keyed by an id the JS wrapper holds.
#include "text_trainer.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <optional>

#include "headwise/text_trainer.hpp"
#include "marshal.hpp"
#include "text.hpp"

namespace headwise_js {

// The warm-up model (web/models/warmup.hwtm), compiled in by CMake (build/.../warmup_model.cpp).
extern const unsigned char kWarmUpModel[];
extern const std::size_t kWarmUpModelSize;

namespace {

std::map<int, std::unique_ptr<headwise::TextCorpusTrainer>>& trainers() {
  static std::map<int, std::unique_ptr<headwise::TextCorpusTrainer>> all;
  return all;
}

headwise::TextCorpusTrainer& trainer_of(const val& o) {
  const auto it = trainers().find(o["id"].as<int>());
  if (it == trainers().end()) {
    throw headwise::Error("disposed", "", {}, "this text trainer has been disposed; create a new one");
  }
  return *it->second;
}

// A warm start's file read and checked; its errors name the option warmStart.
headwise::TextModelFile warm_start_in(const std::uint8_t* bytes, std::size_t size) {
  try {
    return headwise::read_text_weights(bytes, size);
  } catch (const headwise::Error& e) {
    throw headwise::Error(e.code(), "warmStart", e.params(), std::string("warmStart: ") + e.what());
  }
}

val corpus_out(const headwise::TextCorpusStats& c) {
  val unknown = val::object();
  unknown.set("training", c.unknown_training);
  unknown.set("heldOut", c.unknown_held_out);
  val out = val::object();
  out.set("words", static_cast<double>(c.words));
  out.set("trainingWords", static_cast<double>(c.training_words));
  out.set("heldOutWords", static_cast<double>(c.held_out_words));
  out.set("vocab", static_cast<double>(c.vocab));
  out.set("unknownShare", unknown);
  out.set("ignored", static_cast<double>(c.ignored));
  return out;
}

}  // namespace

val text_trainer_create(val o) {
  return guarded([&] {
    headwise::TextTrainerOptions opt;
    opt.text = o["text"].as<std::string>();
    if (has(o, "vocab")) opt.vocab = get_int(o, "vocab");
    if (has(o, "layers")) opt.layers = get_int(o, "layers");
    if (has(o, "numHeads")) opt.num_heads = get_int(o, "numHeads");
    if (has(o, "dModel")) opt.d_model = get_int(o, "dModel");
    if (has(o, "context")) opt.context = get_int(o, "context");
    if (has(o, "seed")) opt.seed = get_int(o, "seed");
    if (has(o, "heldOut")) opt.held_out = get_number(o, "heldOut");
    if (has(o, "steps")) opt.steps = get_int(o, "steps");
    if (has(o, "batch")) opt.batch = get_int(o, "batch");
    // warmStart: bytes; absent (the wrapper's "builtIn"): the warm-up model; false: none
    if (has(o, "warmStart")) {
      const std::vector<std::uint8_t> bytes = get_bytes(o["warmStart"]);
      opt.warm_start = warm_start_in(bytes.data(), bytes.size());
    } else if (!has(o, "scratch")) {
      opt.warm_start = warm_start_in(kWarmUpModel, kWarmUpModelSize);
    }
    auto trainer = std::make_unique<headwise::TextCorpusTrainer>(opt);
    static int next_id = 0;
    const int id = ++next_id;
    const headwise::TrainerConfig& c = trainer->config();
    val config = text_config_out(c);
    config.set("batch", static_cast<double>(trainer->batch()));
    config.set("warmStart", trainer->warm());
    const headwise::TextBaselines& b = trainer->baselines();
    val baselines = val::object();
    baselines.set("unigram", b.unigram);
    baselines.set("bigram", b.bigram);
    baselines.set("bigramK", b.bigram_k);
    val out = val::object();
    out.set("id", id);
    out.set("config", config);
    out.set("steps", static_cast<double>(trainer->steps()));
    out.set("shards", static_cast<double>(headwise::kTextShards));
    out.set("parameterCount", static_cast<double>(trainer->parameter_count()));
    out.set("corpus", corpus_out(trainer->corpus()));
    out.set("baselines", baselines);
    trainers()[id] = std::move(trainer);
    return out;
  });
}

val text_trainer_dispose(val o) {
  return guarded([&] {
    trainers().erase(o["id"].as<int>());
    return val::object();
  });
}

val text_trainer_step(val o) {
  return guarded([&] {
    headwise::TextCorpusTrainer& t = trainer_of(o);
    const double loss = t.step(get_int(o, "steps"));
    val out = val::object();
    out.set("loss", loss);
    out.set("stepsDone", static_cast<double>(t.steps_done()));
    return out;
  });
}

val text_trainer_shard_gradients(val o) {
  return guarded([&] {
    headwise::TextCorpusTrainer& t = trainer_of(o);
    // shards: integers the wrapper has checked
    const val list = o["shards"];
    std::vector<std::int64_t> shards;
    for (int i = 0; i < list["length"].as<int>(); ++i)
      shards.push_back(static_cast<std::int64_t>(list[i].as<double>()));
    const Index k = static_cast<Index>(shards.size()), p = t.parameter_count();
    Vector losses(k), gradients(k * p);
    t.shard_gradients(shards, losses.data(), gradients.data());
    val out = val::object();
    out.set("losses", vector_out(losses));
    out.set("gradients", vector_out(gradients));
    return out;
  });
}

val text_trainer_shard_sum(val o) {
  return guarded([&] {
    headwise::TextCorpusTrainer& t = trainer_of(o);
    // lo, hi: integers the wrapper has checked; the core checks that they are a node of the tree
    Vector gradient(t.parameter_count());
    const double loss = t.shard_sum(get_int(o, "lo"), get_int(o, "hi"), gradient.data());
    val out = val::object();
    out.set("loss", loss);
    out.set("gradient", vector_out(gradient));
    return out;
  });
}

val text_trainer_apply_gradients(val o) {
  return guarded([&] {
    headwise::TextCorpusTrainer& t = trainer_of(o);
    const Vector sum = get_vector(o["sum"]);
    t.apply_gradients(sum.data(), sum.size(), get_number(o, "loss"));
    val out = val::object();
    out.set("stepsDone", static_cast<double>(t.steps_done()));
    return out;
  });
}

val text_trainer_evaluate(val o) {
  return guarded([&] {
    const headwise::TextCorpusTrainer& t = trainer_of(o);
    const headwise::TextEvaluation e = t.evaluate();
    val held = val::object();
    held.set("loss", e.loss);
    held.set("unigram", t.baselines().unigram);
    held.set("bigram", t.baselines().bigram);
    held.set("windows", static_cast<double>(e.windows));
    val heads = val::object();
    heads.set("previousWord", matrix_out(e.previous_word));
    heads.set("currentWord", matrix_out(e.current_word));
    heads.set("firstWord", matrix_out(e.first_word));
    heads.set("sameWord", matrix_out(e.same_word));
    heads.set("broad", matrix_out(e.broad));
    heads.set("induction", matrix_out(e.text_induction));
    heads.set("repeatInduction", matrix_out(e.induction));
    val repeats = val::object();
    repeats.set("sequences", static_cast<double>(e.repeats));
    repeats.set("half", static_cast<double>(e.repeated_half));
    repeats.set("firstLoss", e.first_loss);
    repeats.set("repeatLoss", e.repeat_loss);
    val out = val::object();
    out.set("heldOut", held);
    out.set("heads", heads);
    out.set("inductionPositions", static_cast<double>(e.text_induction_positions));
    out.set("repeats", repeats);
    out.set("stepsDone", static_cast<double>(t.steps_done()));
    return out;
  });
}

val text_trainer_save(val o) {
  return guarded([&] {
    const std::string bytes = trainer_of(o).save();
    val view(emscripten::typed_memory_view(bytes.size(),
                                           reinterpret_cast<const unsigned char*>(bytes.data())));
    val out = val::object();
    out.set("bytes", view.call<val>("slice"));
    return out;
  });
}

}  // namespace headwise_js
