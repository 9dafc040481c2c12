// The trainer's adapters. Trainers live here, keyed by an id the JS wrapper holds;
// trainerDispose frees one. Not in the lesson-only module (dist/headwise-lesson.js), which is
// linked without this file, so the linker takes none of the trainer's objects (trainer,
// backward, adam, train_tasks) from the core library.
#include "trainer.hpp"

#include <map>
#include <memory>

#include "headwise/headwise.hpp"
#include "marshal.hpp"

namespace headwise_js {

namespace {

std::map<int, std::unique_ptr<headwise::Trainer>>& trainers() {
  static std::map<int, std::unique_ptr<headwise::Trainer>> all;
  return all;
}

headwise::Trainer& trainer_of(const val& o) {
  const int id = o["id"].as<int>();
  auto it = trainers().find(id);
  if (it == trainers().end()) {
    throw headwise::Error("disposed", "", {}, "this trainer has been disposed; create a new one");
  }
  return *it->second;
}

val relation_out(const headwise::Relation& r) {
  val out = val::object();
  out.set("name", r.name);
  out.set("title", r.title);
  out.set("rule", r.rule);
  out.set("description", r.description);
  // Where the target is, as data: {back: k} (the token k before i) or {at: k} (position k).
  val source = val::object();
  source.set(r.absolute ? "at" : "back", static_cast<double>(r.offset));
  out.set("source", source);
  return out;
}

}  // namespace

val training_relations() {
  return guarded([&] {
    val relations = val::array();
    for (const headwise::Relation& r : headwise::training_relations()) {
      relations.call<void>("push", relation_out(r));
    }
    val out = val::object();
    out.set("relations", relations);
    return out;
  });
}

// A task's default settings; numHeads left out where the head count is the experiment's.
static val task_defaults_out(const headwise::TaskDefaults& t, bool with_heads = true) {
  val d = val::object();
  if (with_heads) d.set("numHeads", static_cast<double>(t.num_heads));
  d.set("dModel", static_cast<double>(t.d_model));
  d.set("seqLen", static_cast<double>(t.seq_len));
  d.set("vocab", static_cast<double>(t.vocab));
  d.set("learningRate", t.learning_rate);
  d.set("batchSize", static_cast<double>(t.batch_size));
  d.set("steps", static_cast<double>(t.steps));
  d.set("evalSize", static_cast<double>(t.eval_size));
  return d;
}

val heads_needed_defaults() {
  return guarded([&] {
    const headwise::HeadsNeededDefaults& d = headwise::heads_needed_defaults();
    val out = task_defaults_out(d.settings, false);
    out.set("relations", strings_out(d.relations));
    out.set("gridRelations", strings_out(d.grid_relations));
    val heads = val::array();
    for (std::int64_t h : d.head_counts) heads.call<void>("push", static_cast<double>(h));
    out.set("headCounts", heads);
    out.set("solvedAccuracy", d.solved_accuracy);
    out.set("maxRelations", static_cast<double>(headwise::kMaxTaskRelations));
    out.set("tokenLabels", strings_out(headwise::token_labels(d.settings.vocab)));
    return out;
  });
}

val induction_defaults() {
  return guarded([&] {
    const headwise::InductionDefaults& d = headwise::induction_defaults();
    val out = task_defaults_out(d.settings);
    out.set("layers", static_cast<double>(d.settings.layers));
    val heads = val::array();
    for (std::int64_t h : d.compare_head_counts) heads.call<void>("push", static_cast<double>(h));
    out.set("compareHeadCounts", heads);
    out.set("formedAccuracy", d.formed_accuracy);
    out.set("formedScore", d.formed_score);
    out.set("tokenLabels", strings_out(headwise::token_labels(d.settings.vocab)));
    return out;
  });
}

val training_tasks() {
  return guarded([&] {
    val tasks = val::array();
    for (const headwise::TrainingTask& t : headwise::training_tasks()) {
      val entry = val::object();
      entry.set("name", t.name);
      entry.set("title", t.title);
      val relations = val::array();
      for (const headwise::Relation& r : t.relations) relations.call<void>("push", relation_out(r));
      entry.set("relations", relations);
      entry.set("vocab", static_cast<double>(t.defaults.vocab));
      entry.set("tokenLabels", strings_out(headwise::token_labels(t.defaults.vocab)));
      entry.set("defaults", task_defaults_out(t.defaults));
      tasks.call<void>("push", entry);
    }
    val out = val::object();
    out.set("tasks", tasks);
    return out;
  });
}

static val trainer_config_out(const headwise::Trainer& t) {
  const headwise::TrainerConfig& c = t.config();
  val out = val::object();
  out.set("task", c.task.empty() ? val::null() : val(c.task));
  out.set("title", t.task().title);
  out.set("layers", static_cast<double>(c.layers));
  out.set("numHeads", static_cast<double>(c.num_heads));
  out.set("dModel", static_cast<double>(c.d_model));
  out.set("dHead", static_cast<double>(c.d_head));
  out.set("seed", static_cast<double>(c.seed));
  out.set("seqLen", static_cast<double>(c.seq_len));
  out.set("vocab", static_cast<double>(c.vocab));
  out.set("learningRate", c.learning_rate);
  out.set("batchSize", static_cast<double>(c.batch_size));
  out.set("evalSize", static_cast<double>(c.eval_size));
  out.set("numRelations", static_cast<double>(c.num_relations));
  out.set("relations", val::array());
  for (const headwise::Relation& r : t.task().relations) {
    out["relations"].call<void>("push", relation_out(r));
  }
  out.set("tokenLabels", strings_out(headwise::token_labels(c.vocab)));
  return out;
}

// The model's tensors, the core's table: {total, tensors: [{name, shape, numel}]} (shape [n]
// for a vector). cpp/api.js reads every name from it.
val tensor_table_out(const std::vector<headwise::ParamTensor>& table) {
  val tensors = val::array();
  double total = 0;
  for (const headwise::ParamTensor& t : table) {
    val entry = val::object();
    entry.set("name", t.name);
    val shape = val::array();
    shape.call<void>("push", static_cast<double>(t.rows));
    if (!t.is_vector) shape.call<void>("push", static_cast<double>(t.cols));
    entry.set("shape", shape);
    entry.set("numel", static_cast<double>(t.numel()));
    total += static_cast<double>(t.numel());
    tensors.call<void>("push", entry);
  }
  val out = val::object();
  out.set("total", total);
  out.set("tensors", tensors);
  return out;
}

val trainer_create(val o) {
  return guarded([&] {
    headwise::TrainerOptions opts;
    if (has(o, "task")) opts.task = o["task"].as<std::string>();
    if (has(o, "relations")) {
      const val list = o["relations"];
      const int count = list["length"].as<int>();
      opts.relations.emplace();
      for (int i = 0; i < count; ++i) opts.relations->push_back(list[i].as<std::string>());
    }
    if (has(o, "layers")) opts.layers = get_int(o, "layers");
    opts.num_heads = get_int(o, "numHeads");
    opts.d_model = get_int(o, "dModel");
    opts.seed = get_int(o, "seed");
    if (has(o, "seqLen")) opts.seq_len = get_int(o, "seqLen");
    if (has(o, "vocab")) opts.vocab = get_int(o, "vocab");
    if (has(o, "batchSize")) opts.batch_size = get_int(o, "batchSize");
    if (has(o, "evalSize")) opts.eval_size = get_int(o, "evalSize");
    if (has(o, "learningRate")) opts.learning_rate = get_number(o, "learningRate");
    static int next_id = 0;
    auto trainer = std::make_unique<headwise::Trainer>(opts);
    const int id = ++next_id;
    val out = val::object();
    out.set("id", id);
    out.set("config", trainer_config_out(*trainer));
    out.set("parameterCount", tensor_table_out(trainer->parameters().table()));
    trainers()[id] = std::move(trainer);
    return out;
  });
}

val trainer_dispose(val o) {
  return guarded([&] {
    trainers().erase(o["id"].as<int>());
    return val::object();
  });
}

val trainer_step(val o) {
  return guarded([&] {
    const headwise::StepResult r = trainer_of(o).step(get_int(o, "steps"));
    val out = val::object();
    out.set("step", static_cast<double>(r.step));
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    return out;
  });
}

// {name: {data, shape}} for every tensor of the table (a vector's shape is [n]).
val params_out(const headwise::ModelParams& p) {
  val out = val::object();
  for (const headwise::ParamTensor& t : p.table()) {
    const double* data = p.data().data() + t.offset;
    out.set(t.name, t.is_vector ? tensor_out(data, {t.rows}) : tensor_out(data, {t.rows, t.cols}));
  }
  return out;
}

val trainer_parameters(val o) {
  return guarded([&] { return params_out(trainer_of(o).parameters()); });
}

val trainer_set_parameters(val o) {
  return guarded([&] {
    headwise::Trainer& t = trainer_of(o);
    const val in = o["parameters"];
    std::vector<Matrix> tensors;
    for (const headwise::ParamTensor& tensor : t.parameters().table()) {
      tensors.push_back(get_matrix(in[tensor.name]));
    }
    t.set_parameters(tensors);
    return val::object();
  });
}

val trainer_gradients(val o) {
  return guarded([&] {
    const headwise::GradientResult r =
        trainer_of(o).gradients(get_int_matrix(o["tokens"]), get_int_matrix(o["targets"]));
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    out.set("gradients", params_out(r.grads));
    return out;
  });
}

val trainer_attention(val o) {
  return guarded([&] {
    const std::vector<Matrix> heads = trainer_of(o).attention(get_int_matrix(o["tokens"]));
    val out = val::object();
    out.set("weights", stack_out(heads));
    return out;
  });
}

val trainer_evaluate(val o) {
  return guarded([&] {
    // ablate: {data: [layer, head, layer, head, ...] (integers the wrapper has checked)}
    const val list = o["ablate"];
    const int count = list["length"].as<int>();
    std::vector<headwise::HeadRef> ablate;
    for (int i = 0; i + 1 < count; i += 2) {
      ablate.push_back({static_cast<std::int64_t>(list[i].as<double>()),
                        static_cast<std::int64_t>(list[i + 1].as<double>())});
    }
    const headwise::EvalResult r = trainer_of(o).evaluate_heads(ablate);
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    out.set("relationAccuracy", numbers_out(r.relation_accuracy));
    out.set("headFocus", matrix_out(r.head_focus));
    if (r.induction) {
      out.set("repeatAccuracy", r.repeat_accuracy);
      out.set("repeatLoss", r.repeat_loss);
      out.set("previousTokenScore", matrix_out(r.previous_token_score));
      out.set("inductionScore", matrix_out(r.induction_score));
    }
    return out;
  });
}

val trainer_parameter_count(val o) {
  return guarded([&] { return tensor_table_out(trainer_of(o).parameters().table()); });
}

val circuits_out(const headwise::ModelCircuits& c) {
  val out = val::object();
  out.set("qk", stack_out(c.qk));
  out.set("ov", stack_out(c.ov));
  out.set("copying", matrix_out(c.copying));
  out.set("previousPosition", matrix_out(c.previous_position));
  out.set("compositionQ", matrix_out(c.composition_q));
  out.set("compositionK", matrix_out(c.composition_k));
  out.set("compositionV", matrix_out(c.composition_v));
  return out;
}

val trainer_circuits(val o) {
  return guarded([&] {
    const headwise::Trainer& t = trainer_of(o);
    return circuits_out(headwise::model_circuits(t.config(), t.parameters()));
  });
}

val trainer_count() { return val(static_cast<double>(trainers().size())); }

}  // namespace headwise_js
