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

void require_range(std::int64_t value, std::int64_t lo, std::int64_t hi, const std::string& name) {
  if (value < lo || value > hi) {
    throw std::invalid_argument(name + " (" + std::to_string(value) + ") must be between " +
                                std::to_string(lo) + " and " + std::to_string(hi));
  }
}

// Doubles one forward over `batch` sequences holds: z, q, k, v, concat, attn, residual and
// their gradients (about 12 (B n, d) arrays), logits, probs and dlogits, weights.
std::int64_t forward_elements(const TrainerConfig& c, std::int64_t batch) {
  const std::int64_t rows = batch * c.seq_len;
  return rows * (12 * c.d_model + 3 * c.num_relations * c.vocab) +
         batch * c.num_heads * c.seq_len * c.seq_len;
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
    throw std::invalid_argument(
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
    throw std::invalid_argument("learning_rate (" + number_string(c.learning_rate) +
                                ") must be greater than 0 and at most 1");
  }
  for (std::int64_t batch : {c.batch_size, c.eval_size}) {
    const std::int64_t elements = forward_elements(c, batch);
    if (elements > kMaxTrainElements) {
      throw std::invalid_argument(
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

std::array<TensorRef, 8> tensors(ModelParams& p) {
  Matrix* m[] = {&p.token_embedding, &p.position_embedding, &p.wq, &p.wk, &p.wv, &p.wo, &p.readout};
  std::array<TensorRef, 8> out{};
  for (std::size_t i = 0; i < 7; ++i)
    out[i] = {kParamNames[i], m[i]->data(), m[i]->rows(), m[i]->cols()};
  out[7] = {kParamNames[7], p.readout_bias.data(), p.readout_bias.size(), 1};
  return out;
}

std::array<std::array<Index, 2>, 8> param_shapes(const TrainerConfig& c) {
  const Index v = static_cast<Index>(c.vocab), d = static_cast<Index>(c.d_model),
              n = static_cast<Index>(c.seq_len), rv = static_cast<Index>(c.num_relations * c.vocab);
  return {{{v, d}, {n, d}, {d, d}, {d, d}, {d, d}, {d, d}, {d, rv}, {rv, 1}}};
}

ModelParams zero_params(const TrainerConfig& c) {
  const auto s = param_shapes(c);
  ModelParams p;
  p.token_embedding = Matrix::Zero(s[0][0], s[0][1]);
  p.position_embedding = Matrix::Zero(s[1][0], s[1][1]);
  p.wq = Matrix::Zero(s[2][0], s[2][1]);
  p.wk = Matrix::Zero(s[3][0], s[3][1]);
  p.wv = Matrix::Zero(s[4][0], s[4][1]);
  p.wo = Matrix::Zero(s[5][0], s[5][1]);
  p.readout = Matrix::Zero(s[6][0], s[6][1]);
  p.readout_bias = Vector::Zero(s[7][0]);
  return p;
}

ModelParams init_params(const TrainerConfig& c, NumpyRandomState& rng) {
  const auto s = param_shapes(c);
  // NumPy: W = randn(d, d) / np.sqrt(d), element by element.
  const double scale = std::sqrt(static_cast<double>(c.d_model));
  ModelParams p;
  p.token_embedding = rng.randn(s[0][0], s[0][1]);
  p.position_embedding = rng.randn(s[1][0], s[1][1]);
  p.wq = rng.randn(s[2][0], s[2][1]) / scale;
  p.wk = rng.randn(s[3][0], s[3][1]) / scale;
  p.wv = rng.randn(s[4][0], s[4][1]) / scale;
  p.wo = rng.randn(s[5][0], s[5][1]) / scale;
  p.readout = rng.randn(s[6][0], s[6][1]) / scale;
  p.readout_bias = Vector::Zero(s[7][0]);
  return p;
}

void validate_params(const TrainerConfig& c, ModelParams& p) {
  const auto shapes = param_shapes(c);
  const auto t = tensors(p);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i == 7) {
      require_length(p.readout_bias, shapes[i][0], t[i].name);
      require_finite(p.readout_bias, t[i].name);
    } else {
      const Matrix* m[] = {&p.token_embedding, &p.position_embedding, &p.wq, &p.wk, &p.wv, &p.wo,
                           &p.readout};
      require_shape(*m[i], shapes[i][0], shapes[i][1], t[i].name);
      if (!all_finite(*m[i])) require_finite(*m[i], t[i].name);
    }
  }
}

// ---- the model --------------------------------------------------------------------------------

void model_forward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                   const std::vector<bool>& ablate, Activations& a) {
  // tokens: (B, n) -> every activation, (B * n, ...) row b * n + i for sequence b, position i
  const Index batch = tokens.rows(), n = tokens.cols();
  const Index d = static_cast<Index>(c.d_model), heads = static_cast<Index>(c.num_heads),
              dh = static_cast<Index>(c.d_head);
  a.batch = batch;
  a.n = n;
  // 1. z = token_embedding[x] + position_embedding[0:n]
  embedding_forward(tokens, p.token_embedding, p.position_embedding, a.z);
  // 2. full-width projections, one GEMM each over the whole batch (B * n, d) @ (d, d)
  matmul_forward(a.z, p.wq, nullptr, a.q);
  matmul_forward(a.z, p.wk, nullptr, a.k);
  matmul_forward(a.z, p.wv, nullptr, a.v);
  // 3. per sequence and head, the lesson's causal attention kernel on head h's column block,
  //    written straight into its block of concat; switched-off heads' blocks become zero.
  a.weights.resize(batch * heads * n, n);
  a.concat.resize(batch * n, d);
  for (Index b = 0; b < batch; ++b) {
    for (Index h = 0; h < heads; ++h) {
      MatrixView out = mblock(a.concat, b * n, h * dh, n, dh);
      attention_forward(cblock(a.q, b * n, h * dh, n, dh), cblock(a.k, b * n, h * dh, n, dh),
                        cblock(a.v, b * n, h * dh, n, dh), nullptr, true,
                        mblock(a.weights, (b * heads + h) * n, 0, n, n), out);
      if (ablate[static_cast<std::size_t>(h)]) {
        for (Index i = 0; i < n; ++i)
          for (Index j = 0; j < dh; ++j) out.data[i * out.stride + j] = 0.0;
      }
    }
  }
  // 4. output projection and the residual: r = z + concat @ wo
  matmul_forward(a.concat, p.wo, nullptr, a.attn);
  a.residual = a.z + a.attn;
  // 5. read-out: (B * n, d) @ (d, R * V) + bias
  matmul_forward(a.residual, p.readout, &p.readout_bias, a.logits);
}

void model_backward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                    const IntMatrix& targets, Index count, const Activations& a,
                    const std::vector<bool>& ablate, ModelParams& g) {
  BackwardScratch s;
  model_backward(c, p, tokens, targets, count, a, ablate, g, s);
}

void model_backward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                    const IntMatrix& targets, Index count, const Activations& a,
                    const std::vector<bool>& ablate, ModelParams& g, BackwardScratch& s) {
  // The forward's steps in reverse; every gradient is accumulated (+=) into g.
  const Index batch = a.batch, n = a.n, rows = batch * n;
  const Index d = static_cast<Index>(c.d_model), heads = static_cast<Index>(c.num_heads),
              dh = static_cast<Index>(c.d_head);
  // 5. loss -> logits -> read-out
  s.dlogits.setZero(rows, a.logits.cols());
  crossentropy_softmax_backward(a.probs, targets, static_cast<Index>(c.vocab), count, s.dlogits);
  s.dresidual.setZero(rows, d);
  matmul_backward(a.residual, p.readout, s.dlogits, &s.dresidual, g.readout, &g.readout_bias,
                  s.matmul);
  // 4. residual: both z and the attention branch receive dresidual
  s.dz = s.dresidual;
  s.dconcat.setZero(rows, d);
  matmul_backward(a.concat, p.wo, s.dresidual, &s.dconcat, g.wo, nullptr, s.matmul);
  // 3. attention; a switched-off head's output was replaced by zeros, so nothing flows into it:
  // its backward is skipped (and its columns of dconcat are never read)
  s.dq.setZero(rows, d);
  s.dk.setZero(rows, d);
  s.dv.setZero(rows, d);
  for (Index b = 0; b < batch; ++b) {
    for (Index h = 0; h < heads; ++h) {
      if (ablate[static_cast<std::size_t>(h)]) continue;
      attention_backward(cblock(a.q, b * n, h * dh, n, dh), cblock(a.k, b * n, h * dh, n, dh),
                         cblock(a.v, b * n, h * dh, n, dh),
                         cblock(a.weights, (b * heads + h) * n, 0, n, n),
                         cblock(s.dconcat, b * n, h * dh, n, dh),
                         mblock(s.dq, b * n, h * dh, n, dh), mblock(s.dk, b * n, h * dh, n, dh),
                         mblock(s.dv, b * n, h * dh, n, dh), s.attention);
    }
  }
  // 2. projections
  matmul_backward(a.z, p.wq, s.dq, &s.dz, g.wq, nullptr, s.matmul);
  matmul_backward(a.z, p.wk, s.dk, &s.dz, g.wk, nullptr, s.matmul);
  matmul_backward(a.z, p.wv, s.dv, &s.dz, g.wv, nullptr, s.matmul);
  // 1. embeddings
  embedding_backward(tokens, s.dz, g.token_embedding, g.position_embedding);
}

// ---- the trainer ------------------------------------------------------------------------------

Trainer::Trainer(const TrainerOptions& options)
    : task_(resolve_task(options)),
      config_(resolve_trainer_config(options, task_)),
      rng_(config_.seed) {
  adam_.learning_rate = config_.learning_rate;
  params_ = init_params(config_, rng_);
  eval_tokens_ = rng_.randint(config_.vocab, config_.eval_size, config_.seq_len);
  grads_ = zero_params(config_);
  adam_m_ = zero_params(config_);
  adam_v_ = zero_params(config_);
}

StepResult Trainer::step(std::int64_t k) {
  require_range(k, 1, kMaxTrainStepsPerCall, "steps");
  const std::vector<bool> all_on(static_cast<std::size_t>(config_.num_heads), false);
  StepResult result;
  for (std::int64_t s = 0; s < k; ++s) {
    // 1. a fresh batch and its targets
    const IntMatrix tokens = rng_.randint(config_.vocab, config_.batch_size, config_.seq_len);
    const IntMatrix targets = task_targets(task_, tokens);
    // 2. forward and loss
    model_forward(config_, params_, tokens, all_on, acts_);
    const CrossEntropyResult ce =
        crossentropy_forward(acts_.logits, targets, static_cast<Index>(config_.vocab), acts_.probs);
    // 3. gradients, zeroed once per step, then accumulated by the backward
    for (TensorRef& t : tensors(grads_)) std::fill(t.data, t.data + t.rows * t.cols, 0.0);
    model_backward(config_, params_, tokens, targets, ce.count, acts_, all_on, grads_, scratch_);
    // 4. Adam
    ++steps_;
    const auto p = tensors(params_), g = tensors(grads_), m = tensors(adam_m_),
               v = tensors(adam_v_);
    for (std::size_t i = 0; i < p.size(); ++i) {
      adam_update(p[i].data, g[i].data, m[i].data, v[i].data, p[i].rows * p[i].cols, steps_, adam_);
    }
    result.loss = ce.loss;
    result.accuracy = static_cast<double>(ce.correct) / static_cast<double>(ce.count);
  }
  result.step = steps_;
  return result;
}

void Trainer::set_parameters(ModelParams p) {
  validate_params(config_, p);
  params_ = std::move(p);
}

void Trainer::check_tokens(const IntMatrix& tokens, const std::string& name) const {
  const std::int64_t max_batch = std::max(config_.batch_size, config_.eval_size);
  require_range(tokens.rows(), 1, max_batch, name + " count of sequences");
  require_range(tokens.cols(), 1, config_.seq_len, name + " sequence length");
  for (Index b = 0; b < tokens.rows(); ++b) {
    for (Index i = 0; i < tokens.cols(); ++i) {
      const std::int64_t t = tokens(b, i);
      if (t < 0 || t >= config_.vocab) {
        throw std::invalid_argument(
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
        throw std::invalid_argument("targets[" + std::to_string(row / n) + "][" +
                                    std::to_string(row % n) + "][" + std::to_string(r) + "] (" +
                                    std::to_string(t) +
                                    ") must be -1 (no target) or a token id between 0 and " +
                                    std::to_string(config_.vocab - 1));
      }
    }
  }
  const std::vector<bool> all_on(static_cast<std::size_t>(config_.num_heads), false);
  Activations a;
  model_forward(config_, params_, tokens, all_on, a);
  const CrossEntropyResult ce =
      crossentropy_forward(a.logits, targets, static_cast<Index>(config_.vocab), a.probs);
  GradientResult out;
  out.grads = zero_params(config_);
  model_backward(config_, params_, tokens, targets, ce.count, a, all_on, out.grads);
  out.loss = ce.loss;
  out.accuracy = static_cast<double>(ce.correct) / static_cast<double>(ce.count);
  return out;
}

std::vector<Matrix> Trainer::attention(const IntMatrix& tokens) const {
  check_tokens(tokens, "tokens");
  if (tokens.rows() != 1) {
    throw std::invalid_argument("tokens must be one sequence; got " +
                                std::to_string(tokens.rows()));
  }
  Matrix z;
  embedding_forward(tokens, params_.token_embedding, params_.position_embedding, z);
  MhaWeights w;
  w.wq = params_.wq;
  w.wk = params_.wk;
  w.wv = params_.wv;
  w.wo = params_.wo;
  return multi_head_attention(z, w, config_.num_heads, true).head_weights;
}

EvalResult Trainer::evaluate(const std::vector<std::int64_t>& ablate) const {
  const std::size_t heads = static_cast<std::size_t>(config_.num_heads);
  std::vector<bool> off(heads, false);
  for (std::int64_t h : ablate) {
    require_range(h, 0, config_.num_heads - 1, "ablated head");
    if (off[static_cast<std::size_t>(h)]) {
      throw std::invalid_argument("ablated head " + std::to_string(h) +
                                  " is listed twice; list each head once");
    }
    off[static_cast<std::size_t>(h)] = true;
  }
  const IntMatrix targets = task_targets(task_, eval_tokens_);
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
  const Index n = a.n, h_count = static_cast<Index>(heads);
  out.head_focus = Matrix::Zero(h_count, num_rel);
  for (Index r = 0; r < num_rel; ++r) {
    Index positions = 0;
    for (Index i = 0; i < n; ++i) {
      const Index s = own_source(task_, static_cast<std::size_t>(r), i);
      if (s < 0) continue;
      ++positions;
      for (Index b = 0; b < a.batch; ++b)
        for (Index h = 0; h < h_count; ++h)
          out.head_focus(h, r) += a.weights((b * h_count + h) * n + i, s);
    }
    out.head_focus.col(r) /= static_cast<double>(positions * a.batch);
  }
  return out;
}

}  // namespace headwise
