#include "headwise/trainer.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "headwise/attention.hpp"
#include "headwise/backward.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/shape.hpp"

namespace headwise {

namespace {

// Activations of one forward stay below this many doubles (128 MiB).
constexpr std::int64_t kMaxTrainElements = 16LL * 1024 * 1024;

// Doubles one forward over `batch` sequences holds: z, q, k, v, concat, attn, residual and
// their gradients (about 12 (B n, d) arrays), logits, probs and dlogits, weights.
std::int64_t forward_elements(const TrainerConfig& c, std::int64_t batch) {
  const std::int64_t rows = batch * c.seq_len;
  return rows * ((6 * c.layers + 6) * c.d_model + 3 * c.num_relations * c.vocab) +
         c.layers * batch * c.num_heads * c.seq_len * c.seq_len;
}

// Views of a (rows, cols) block of a row-major matrix starting at (row, col).
ConstMatrixView cblock(const Matrix& m, Index row, Index col, Index rows, Index cols) {
  return {m.data() + row * m.cols() + col, rows, cols, m.cols()};
}
MatrixView mblock(Matrix& m, Index row, Index col, Index rows, Index cols) {
  return {m.data() + row * m.cols() + col, rows, cols, m.cols()};
}

}  // namespace

// ---- config and parameters ------------------------------------------------------------------

TrainingTask resolve_task(const TrainerOptions& o) {
  if (o.task && o.relations) {
    std::string names;
    for (const std::string& r : *o.relations) names += (names.empty() ? "" : ", ") + quote_name(r);
    throw Error(
        "conflict", "task", {{"other", std::string("relations")}},
        "task (" + quote_name(*o.task) + ") and relations ([" + names +
        "]) were both given; give either a task (a preset of trainingTasks()) or relations (1 to " +
        std::to_string(kMaxTaskRelations) + " of trainingRelations()), not both");
  }
  if (o.relations) return relation_task(*o.relations);
  return find_task(o.task.value_or("previous-and-first"));
}

TrainerConfig resolve_trainer_config(const TrainerOptions& o, const TrainingTask& task) {
  const TaskDefaults& def = task.defaults;
  TrainerConfig c;
  c.task = task.name;
  c.num_relations = static_cast<std::int64_t>(task.relations.size());
  require_range(o.layers, 1, kMaxTrainLayers, "layers");
  c.layers = o.layers;
  require_range(o.d_model, 1, kMaxTrainDModel, "d_model");
  require_range(o.num_heads, 1, o.d_model, "num_heads");
  c.d_head = head_dim(o.d_model, o.num_heads);  // "d_model (10) must be divisible by ..."
  c.d_model = o.d_model;
  c.num_heads = o.num_heads;
  require_range(o.seed, 0, kMaxSeed, "seed");
  c.seed = o.seed;
  c.seq_len = o.seq_len.value_or(def.seq_len);
  require_range(c.seq_len, kMinTrainSeqLen, kMaxTrainSeqLen, "seq_len");
  check_relation_positions(task, c.seq_len);
  c.vocab = o.vocab.value_or(def.vocab);
  require_range(c.vocab, kMinTrainVocab, kMaxTrainVocab, "vocab");
  c.batch_size = o.batch_size.value_or(def.batch_size);
  require_range(c.batch_size, 1, kMaxTrainBatch, "batch_size");
  c.eval_size = o.eval_size.value_or(def.eval_size);
  require_range(c.eval_size, 1, kMaxTrainEvalSize, "eval_size");
  c.learning_rate = o.learning_rate.value_or(def.learning_rate);
  if (!(c.learning_rate > 0.0 && c.learning_rate <= kMaxLearningRate)) {
    throw Error("rangeAbove", "learningRate",
                {{"value", c.learning_rate}, {"min", 0.0}, {"max", kMaxLearningRate}},
                "learning_rate (" + number_string(c.learning_rate) +
                    ") must be greater than 0 and at most 1");
  }
  for (std::int64_t batch : {c.batch_size, c.eval_size}) {
    const std::int64_t elements = forward_elements(c, batch);
    if (elements > kMaxTrainElements) {
      throw Error(
          "trainMemory", batch == c.batch_size ? "batchSize" : "evalSize",
          {{"value", integer(batch)},
           {"seqLen", integer(c.seq_len)},
           {"dModel", integer(c.d_model)},
           {"vocab", integer(c.vocab)},
           {"need", integer(elements * 8 / (1024 * 1024))},
           {"max", integer(kMaxTrainElements * 8 / (1024 * 1024))}},
          "batch_size or eval_size (" + std::to_string(batch) + ") with seq_len (" +
          std::to_string(c.seq_len) + "), d_model (" + std::to_string(c.d_model) + ") and vocab (" +
          std::to_string(c.vocab) + ") would need " + std::to_string(elements * 8 / (1024 * 1024)) +
          " MiB of activations; at most " + std::to_string(kMaxTrainElements * 8 / (1024 * 1024)) +
          " MiB is allowed");
    }
  }
  return c;
}

TrainerConfig resolve_trainer_config(const TrainerOptions& o) {
  return resolve_trainer_config(o, resolve_task(o));
}

std::vector<ParamTensor> param_table(const TrainerConfig& c) {
  const Index v = static_cast<Index>(c.vocab), d = static_cast<Index>(c.d_model),
              n = static_cast<Index>(c.seq_len), rv = static_cast<Index>(c.num_relations * c.vocab);
  std::vector<ParamTensor> t = {{"tokenEmbedding", v, d}, {"positionEmbedding", n, d}};
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const std::string prefix = c.layers == 1 ? "" : "layers." + std::to_string(l) + ".";
    for (const char* w : {"wq", "wk", "wv", "wo"}) t.push_back({prefix + w, d, d});
  }
  t.push_back({"readout", d, rv});
  t.push_back({"readoutBias", rv, 1, true});
  Index offset = 0;
  for (ParamTensor& tensor : t) {
    tensor.offset = offset;
    offset += tensor.numel();
  }
  return t;
}

ModelParams::ModelParams(const TrainerConfig& c) : table_(param_table(c)) {
  const ParamTensor& last = table_.back();
  data_ = Vector::Zero(last.offset + last.numel());
}

MatrixMap ModelParams::operator[](std::size_t i) {
  const ParamTensor& t = table_[i];
  return {data_.data() + t.offset, t.rows, t.cols};
}

ConstMatrixMap ModelParams::operator[](std::size_t i) const {
  const ParamTensor& t = table_[i];
  return {data_.data() + t.offset, t.rows, t.cols};
}

ModelParams init_params(const TrainerConfig& c, NumpyRandomState& rng) {
  // NumPy, in the table's order: embeddings randn(rows, cols); projections and the readout
  // randn(rows, cols) / np.sqrt(d), element by element; the bias zeros.
  const double scale = std::sqrt(static_cast<double>(c.d_model));
  ModelParams p(c);
  for (std::size_t i = 0; i < p.count(); ++i) {
    const ParamTensor& t = p.table()[i];
    if (t.is_vector) continue;
    if (i == kTokenEmbedding || i == kPositionEmbedding) {
      p[i] = rng.randn(t.rows, t.cols);
    } else {
      p[i] = rng.randn(t.rows, t.cols) / scale;
    }
  }
  return p;
}

ModelParams params_from(const TrainerConfig& c, const std::vector<Matrix>& tensors) {
  ModelParams p(c);
  if (tensors.size() != p.count()) {
    throw Error("count", "parameters",
                {{"value", integer(static_cast<std::int64_t>(tensors.size()))},
                 {"min", integer(static_cast<std::int64_t>(p.count()))},
                 {"max", integer(static_cast<std::int64_t>(p.count()))}},
                "parameters: " + std::to_string(tensors.size()) +
                                " tensors given but the model has " +
                                std::to_string(p.count()));
  }
  for (std::size_t i = 0; i < p.count(); ++i) {
    const ParamTensor& t = p.table()[i];
    const Matrix& m = tensors[i];
    if (t.is_vector) {
      if (m.cols() != 1) require_shape(m, t.rows, 1, t.name);
      const Vector v = m.col(0);
      require_length(v, t.rows, t.name);
      require_finite(v, t.name);
    } else {
      require_shape(m, t.rows, t.cols, t.name);
      if (!all_finite(m)) require_finite(m, t.name);
    }
    p[i] = m;
  }
  return p;
}

// ---- the model --------------------------------------------------------------------------------

void model_forward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                   const HeadMask& ablate, Activations& a) {
  // tokens: (B, n) -> every activation, (B * n, ...) row b * n + i for sequence b, position i
  const Index batch = tokens.rows(), n = tokens.cols();
  const Index d = static_cast<Index>(c.d_model), heads = static_cast<Index>(c.num_heads),
              dh = static_cast<Index>(c.d_head);
  a.batch = batch;
  a.n = n;
  a.layers.resize(static_cast<std::size_t>(c.layers));
  // 1. z = token_embedding[x] + position_embedding[0:n]
  embedding_forward(tokens, p.token_embedding(), p.position_embedding(), a.layers[0].z);
  for (std::int64_t l = 0; l < c.layers; ++l) {
    LayerActivations& la = a.layers[static_cast<std::size_t>(l)];
    // 2. full-width projections, one GEMM each over the whole batch (B * n, d) @ (d, d)
    matmul_forward(la.z, p.wq(l), nullptr, la.q);
    matmul_forward(la.z, p.wk(l), nullptr, la.k);
    matmul_forward(la.z, p.wv(l), nullptr, la.v);
    // 3. per sequence and head, the lesson's causal attention kernel on head h's column block,
    //    written straight into its block of concat; switched-off heads' blocks become zero.
    la.weights.resize(batch * heads * n, n);
    la.concat.resize(batch * n, d);
    for (Index b = 0; b < batch; ++b) {
      for (Index h = 0; h < heads; ++h) {
        MatrixView out = mblock(la.concat, b * n, h * dh, n, dh);
        attention_forward(cblock(la.q, b * n, h * dh, n, dh), cblock(la.k, b * n, h * dh, n, dh),
                          cblock(la.v, b * n, h * dh, n, dh), nullptr, true,
                          mblock(la.weights, (b * heads + h) * n, 0, n, n), out);
        if (ablate[static_cast<std::size_t>(l * heads + h)]) {
          for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < dh; ++j) out.data[i * out.stride + j] = 0.0;
        }
      }
    }
    // 4. output projection and the residual: z + concat @ wo, the next layer's input
    matmul_forward(la.concat, p.wo(l), nullptr, la.attn);
    Matrix& next = l + 1 < c.layers ? a.layers[static_cast<std::size_t>(l + 1)].z : a.residual;
    next = la.z + la.attn;
  }
  // 5. read-out: (B * n, d) @ (d, R * V) + bias
  matmul_forward(a.residual, p.readout(), p.readout_bias().data(), a.logits);
}

void model_backward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                    const IntMatrix& targets, Index count, const Activations& a,
                    const HeadMask& ablate, ModelParams& g) {
  BackwardScratch s;
  model_backward(c, p, tokens, targets, count, a, ablate, g, s);
}

void model_backward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                    const IntMatrix& targets, Index count, const Activations& a,
                    const HeadMask& ablate, ModelParams& g, BackwardScratch& s) {
  // The forward's steps in reverse; every gradient is accumulated (+=) into g.
  const Index batch = a.batch, n = a.n, rows = batch * n;
  const Index d = static_cast<Index>(c.d_model), heads = static_cast<Index>(c.num_heads),
              dh = static_cast<Index>(c.d_head);
  // 5. loss -> logits -> read-out
  s.dlogits.setZero(rows, a.logits.cols());
  crossentropy_softmax_backward(a.probs, targets, static_cast<Index>(c.vocab), count, s.dlogits);
  s.dresidual.setZero(rows, d);
  matmul_backward(a.residual, p.readout(), s.dlogits, &s.dresidual, g.readout(),
                  g.readout_bias().data(), s.matmul);
  for (std::int64_t l = c.layers - 1; l >= 0; --l) {
    const LayerActivations& la = a.layers[static_cast<std::size_t>(l)];
    // 4. residual: both the layer's input and its attention branch receive dresidual
    s.dz = s.dresidual;
    s.dconcat.setZero(rows, d);
    matmul_backward(la.concat, p.wo(l), s.dresidual, &s.dconcat, g.wo(l), nullptr, s.matmul);
    // 3. attention; a switched-off head's output was replaced by zeros, so nothing flows into
    // it: its backward is skipped (and its columns of dconcat are never read)
    s.dq.setZero(rows, d);
    s.dk.setZero(rows, d);
    s.dv.setZero(rows, d);
    for (Index b = 0; b < batch; ++b) {
      for (Index h = 0; h < heads; ++h) {
        if (ablate[static_cast<std::size_t>(l * heads + h)]) continue;
        attention_backward(cblock(la.q, b * n, h * dh, n, dh), cblock(la.k, b * n, h * dh, n, dh),
                           cblock(la.v, b * n, h * dh, n, dh),
                           cblock(la.weights, (b * heads + h) * n, 0, n, n),
                           cblock(s.dconcat, b * n, h * dh, n, dh),
                           mblock(s.dq, b * n, h * dh, n, dh), mblock(s.dk, b * n, h * dh, n, dh),
                           mblock(s.dv, b * n, h * dh, n, dh), s.attention);
      }
    }
    // 2. projections
    matmul_backward(la.z, p.wq(l), s.dq, &s.dz, g.wq(l), nullptr, s.matmul);
    matmul_backward(la.z, p.wk(l), s.dk, &s.dz, g.wk(l), nullptr, s.matmul);
    matmul_backward(la.z, p.wv(l), s.dv, &s.dz, g.wv(l), nullptr, s.matmul);
    // the gradient of this layer's input is the previous layer's output's
    std::swap(s.dz, s.dresidual);
  }
  // 1. embeddings
  embedding_backward(tokens, s.dresidual, g.token_embedding(), g.position_embedding());
}

// ---- the trainer ------------------------------------------------------------------------------

Trainer::Trainer(const TrainerOptions& options)
    : task_(resolve_task(options)),
      config_(resolve_trainer_config(options, task_)),
      rng_(config_.seed) {
  adam_.learning_rate = config_.learning_rate;
  params_ = init_params(config_, rng_);
  TaskBatch eval = draw_batch(task_, rng_, static_cast<Index>(config_.eval_size),
                              static_cast<Index>(config_.seq_len), config_.vocab);
  eval_tokens_ = std::move(eval.tokens);
  eval_targets_ = std::move(eval.targets);
  eval_repeats_ = std::move(eval.repeats);
  grads_ = ModelParams(config_);
  adam_m_ = ModelParams(config_);
  adam_v_ = ModelParams(config_);
}

CrossEntropyResult train_step(const TrainerConfig& c, ModelParams& params, ModelParams& grads,
                              ModelParams& m, ModelParams& v, std::int64_t t,
                              const AdamConfig& adam, const IntMatrix& tokens,
                              const IntMatrix& targets, Activations& acts,
                              BackwardScratch& scratch) {
  const HeadMask all_on(static_cast<std::size_t>(c.layers * c.num_heads), false);
  // forward and loss
  model_forward(c, params, tokens, all_on, acts);
  const CrossEntropyResult ce =
      crossentropy_forward(acts.logits, targets, static_cast<Index>(c.vocab), acts.probs);
  // gradients, zeroed once per step, then accumulated by the backward
  grads.data().setZero();
  model_backward(c, params, tokens, targets, ce.count, acts, all_on, grads, scratch);
  // Adam, one loop over the whole buffer
  adam_update(params.data().data(), grads.data().data(), m.data().data(), v.data().data(),
              params.data().size(), t, adam);
  return ce;
}

StepResult Trainer::step(std::int64_t k) {
  require_range(k, 1, kMaxTrainStepsPerCall, "steps");
  StepResult result;
  for (std::int64_t s = 0; s < k; ++s) {
    // 1. a fresh batch and its targets
    const TaskBatch batch = draw_batch(task_, rng_, static_cast<Index>(config_.batch_size),
                                       static_cast<Index>(config_.seq_len), config_.vocab);
    // 2. forward, loss, gradients and Adam
    ++steps_;
    const CrossEntropyResult ce = train_step(config_, params_, grads_, adam_m_, adam_v_, steps_,
                                             adam_, batch.tokens, batch.targets, acts_, scratch_);
    result.loss = ce.loss;
    result.accuracy = static_cast<double>(ce.correct) / static_cast<double>(ce.count);
  }
  result.step = steps_;
  return result;
}

void Trainer::set_parameters(const std::vector<Matrix>& tensors) {
  params_ = params_from(config_, tensors);
}

void Trainer::set_parameters(const ModelParams& p) {
  std::vector<Matrix> tensors;
  for (std::size_t i = 0; i < p.count(); ++i) tensors.emplace_back(p[i]);
  set_parameters(tensors);
}

void Trainer::check_tokens(const IntMatrix& tokens, const std::string& name) const {
  const std::int64_t max_batch = std::max(config_.batch_size, config_.eval_size);
  require_range(tokens.rows(), 1, max_batch, name + " count of sequences", name);
  require_range(tokens.cols(), 1, config_.seq_len, name + " sequence length", name);
  for (Index b = 0; b < tokens.rows(); ++b) {
    for (Index i = 0; i < tokens.cols(); ++i) {
      const std::int64_t t = tokens(b, i);
      if (t < 0 || t >= config_.vocab) {
        throw Error(
            "range", name,
            {{"value", integer(t)}, {"min", integer(0)}, {"max", integer(config_.vocab - 1)},
             {"index", "[" + std::to_string(b) + "][" + std::to_string(i) + "]"}},
            name + "[" + std::to_string(b) + "][" + std::to_string(i) + "] (" + std::to_string(t) +
            ") must be a token id between 0 and " + std::to_string(config_.vocab - 1));
      }
    }
  }
}

GradientResult Trainer::gradients(const IntMatrix& tokens, const IntMatrix& targets) const {
  check_tokens(tokens, "tokens");
  const Index n = tokens.cols();
  require_shape_of(targets.rows(), targets.cols(), tokens.rows() * n,
                   static_cast<Index>(config_.num_relations),
                   "targets (sequences * positions, relations)");
  for (Index row = 0; row < targets.rows(); ++row) {
    for (Index r = 0; r < targets.cols(); ++r) {
      const std::int64_t t = targets(row, r);
      if (t < -1 || t >= config_.vocab) {
        throw Error("range", "targets",
                    {{"value", integer(t)}, {"min", integer(-1)}, {"max", integer(config_.vocab - 1)},
                     {"index", "[" + std::to_string(row / n) + "][" + std::to_string(row % n) + "][" +
                                   std::to_string(r) + "]"}},
                    "targets[" + std::to_string(row / n) + "][" +
                                    std::to_string(row % n) + "][" + std::to_string(r) + "] (" +
                                    std::to_string(t) +
                                    ") must be -1 (no target) or a token id between 0 and " +
                                    std::to_string(config_.vocab - 1));
      }
    }
  }
  const HeadMask all_on(static_cast<std::size_t>(config_.layers * config_.num_heads), false);
  Activations a;
  model_forward(config_, params_, tokens, all_on, a);
  const CrossEntropyResult ce =
      crossentropy_forward(a.logits, targets, static_cast<Index>(config_.vocab), a.probs);
  GradientResult out;
  out.grads = ModelParams(config_);
  model_backward(config_, params_, tokens, targets, ce.count, a, all_on, out.grads);
  out.loss = ce.loss;
  out.accuracy = static_cast<double>(ce.correct) / static_cast<double>(ce.count);
  return out;
}

std::vector<Matrix> Trainer::attention(const IntMatrix& tokens) const {
  check_tokens(tokens, "tokens");
  if (tokens.rows() != 1) {
    throw Error("count", "tokens",
                {{"value", integer(tokens.rows())}, {"min", integer(1)}, {"max", integer(1)}},
                "tokens must be one sequence; got " +
                                std::to_string(tokens.rows()));
  }
  // Each layer's input, from the model's forward; then the lesson's pipeline on it.
  const HeadMask all_on(static_cast<std::size_t>(config_.layers * config_.num_heads), false);
  Activations a;
  model_forward(config_, params_, tokens, all_on, a);
  std::vector<Matrix> out;
  for (std::int64_t l = 0; l < config_.layers; ++l) {
    MhaWeights w;
    w.wq = params_.wq(l);
    w.wk = params_.wk(l);
    w.wv = params_.wv(l);
    w.wo = params_.wo(l);
    for (Matrix& m : multi_head_attention(a.layers[static_cast<std::size_t>(l)].z, w,
                                          config_.num_heads, true)
                         .head_weights) {
      out.push_back(std::move(m));
    }
  }
  return out;
}

HeadMask Trainer::head_mask(const std::vector<HeadRef>& ablate) const {
  HeadMask off(static_cast<std::size_t>(config_.layers * config_.num_heads), false);
  for (const HeadRef& r : ablate) {
    const bool layered = config_.layers > 1;
    require_range(r.layer, 0, config_.layers - 1, "ablated head's layer", "ablate");
    require_range(r.head, 0, config_.num_heads - 1, "ablated head", "ablate");
    const std::size_t i = static_cast<std::size_t>(r.layer * config_.num_heads + r.head);
    if (off[i]) {
      throw Error(
          "duplicateHead", "ablate", {{"layer", integer(r.layer)}, {"head", integer(r.head)}},
          "ablated head " + (layered ? "(layer " + std::to_string(r.layer) + ", head " +
                                           std::to_string(r.head) + ")"
                                     : std::to_string(r.head)) +
          " is listed twice; list each head once");
    }
    off[i] = true;
  }
  return off;
}

EvalResult Trainer::evaluate(const std::vector<std::int64_t>& ablate) const {
  std::vector<HeadRef> heads;
  for (std::int64_t h : ablate) heads.push_back({0, h});
  return evaluate_heads(heads);
}

void Trainer::add_induction_scores(const Activations& a, EvalResult& out) const {
  // a: the forward over the held-out set. Its loss and accuracy are the repeat's: every target
  // of the task is a predictable position.
  out.induction = true;
  out.repeat_accuracy = out.accuracy;
  out.repeat_loss = out.loss;
  const Index n = a.n, heads = static_cast<Index>(config_.num_heads),
              layers = static_cast<Index>(config_.layers);
  out.previous_token_score = Matrix::Zero(layers, heads);
  out.induction_score = Matrix::Zero(layers, heads);
  Index predictable = 0;
  for (const Repeat& r : eval_repeats_) predictable += r.length - 1;
  for (Index l = 0; l < layers; ++l) {
    const Matrix& w = a.layers[static_cast<std::size_t>(l)].weights;
    for (Index b = 0; b < a.batch; ++b) {
      const Repeat& r = eval_repeats_[static_cast<std::size_t>(b)];
      for (Index h = 0; h < heads; ++h) {
        const Index row0 = (b * heads + h) * n;
        for (Index i = 1; i < n; ++i) out.previous_token_score(l, h) += w(row0 + i, i - 1);
        for (Index j = 0; j + 1 < r.length; ++j) {
          const Index i = r.start + r.distance + j;
          out.induction_score(l, h) += w(row0 + i, r.start + j + 1);
        }
      }
    }
  }
  out.previous_token_score /= static_cast<double>(a.batch * (n - 1));
  out.induction_score /= static_cast<double>(predictable);
  // The relation's source is the position after the earlier occurrence: its focus is the score.
  for (Index l = 0; l < layers; ++l)
    for (Index h = 0; h < heads; ++h) out.head_focus(l * heads + h, 0) = out.induction_score(l, h);
}

EvalResult Trainer::evaluate_heads(const std::vector<HeadRef>& ablate) const {
  const HeadMask off = head_mask(ablate);
  const IntMatrix& targets = eval_targets_;
  Activations a;
  model_forward(config_, params_, eval_tokens_, off, a);
  const CrossEntropyResult ce =
      crossentropy_forward(a.logits, targets, static_cast<Index>(config_.vocab), a.probs);
  EvalResult out;
  out.loss = ce.loss;
  out.accuracy = static_cast<double>(ce.correct) / static_cast<double>(ce.count);
  const Index num_rel = static_cast<Index>(config_.num_relations);
  for (Index r = 0; r < num_rel; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    out.relation_accuracy.push_back(static_cast<double>(ce.relation_correct[ri]) /
                                    static_cast<double>(ce.relation_count[ri]));
  }
  // Head focus: the mean weight on relation r's source position, over positions where it is
  // defined and no other relation reads the same position (there a head cannot tell them apart).
  const Index n = a.n, h_count = static_cast<Index>(config_.num_heads);
  out.head_focus = Matrix::Zero(static_cast<Index>(config_.layers) * h_count, num_rel);
  for (std::int64_t l = 0; l < config_.layers && !task_.induction; ++l) {
    const Matrix& weights = a.layers[static_cast<std::size_t>(l)].weights;
    const Index row0 = static_cast<Index>(l) * h_count;
    for (Index r = 0; r < num_rel; ++r) {
      Index positions = 0;
      for (Index i = 0; i < n; ++i) {
        const Index s = own_source(task_, static_cast<std::size_t>(r), i);
        if (s < 0) continue;
        ++positions;
        for (Index b = 0; b < a.batch; ++b)
          for (Index h = 0; h < h_count; ++h)
            out.head_focus(row0 + h, r) += weights((b * h_count + h) * n + i, s);
      }
      for (Index h = 0; h < h_count; ++h)
        out.head_focus(row0 + h, r) /= static_cast<double>(positions * a.batch);
    }
  }
  if (task_.induction) add_induction_scores(a, out);
  return out;
}

}  // namespace headwise
