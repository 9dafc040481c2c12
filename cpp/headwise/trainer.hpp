// The training section's model and its trainer.
//
// The model, for a token sequence x of length n (d = d_model, R relations, V tokens):
//   z = token_embedding[x] + position_embedding[0:n]                       (n, d)
//   q, k, v = z @ wq, z @ wk, z @ wv; split into heads by reshape; per head
//   softmax(q_h k_h^T / sqrt(d_head) + causal mask) @ v_h; concat; @ wo    (the lesson's pipeline)
//   r = z + that                                                           (n, d)
//   logits = r @ readout + readout_bias, read as (n, R, V)
// and the loss is the mean softmax cross-entropy over every (sequence, position, relation)
// whose target is not -1. Switching heads off (ablation) zeroes their blocks of concat.
//
// With layers > 1, z = z + (that layer's attention) per layer, before the read-out.
//
// Determinism: np.random.seed(seed), then in this order token_embedding = randn(V, d),
// position_embedding = randn(n, d), wq, wk, wv, wo = randn(d, d) / sqrt(d) each (layer by
// layer), readout = randn(d, R * V) / sqrt(d), readout_bias = 0; then the held-out set
// draw_batch(eval_size) (randint(V, size=(eval_size, n)), and for the induction task its
// repeats); then each step's batch draw_batch(batch_size).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "headwise/adam.hpp"
#include "headwise/backward.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/train_tasks.hpp"
#include "headwise/types.hpp"

namespace headwise {

// Limits of the trainer's settings (each checked with a message that names the range).
constexpr std::int64_t kMaxTrainDModel = 256;
constexpr std::int64_t kMinTrainSeqLen = 3;
constexpr std::int64_t kMaxTrainSeqLen = 64;
constexpr std::int64_t kMinTrainVocab = 2;
constexpr std::int64_t kMaxTrainVocab = 256;
constexpr std::int64_t kMaxTrainBatch = 1024;
constexpr std::int64_t kMaxTrainEvalSize = 4096;
constexpr std::int64_t kMaxTrainStepsPerCall = 100000;
constexpr double kMaxLearningRate = 1.0;
constexpr std::int64_t kMaxTrainLayers = 4;

// What the caller asks for; absent values take the task's defaults. The task is a preset
// (task) or built from relations (catalogue names, in the order of the targets); not both;
// with neither, the preset "previous-and-first".
struct TrainerOptions {
  std::optional<std::string> task;
  std::optional<std::vector<std::string>> relations;
  std::int64_t layers = 1;
  std::int64_t num_heads = 2;
  std::int64_t d_model = 8;
  std::int64_t seed = 0;
  std::optional<std::int64_t> seq_len, vocab, batch_size, eval_size;
  std::optional<double> learning_rate;
};

// The resolved, checked settings.
struct TrainerConfig {
  std::string task;  // the preset's name, empty for a task built from relations
  std::int64_t layers = 0, num_heads = 0, d_model = 0, d_head = 0, seed = 0, seq_len = 0, vocab = 0,
               batch_size = 0, eval_size = 0, num_relations = 0;
  double learning_rate = 0.0;
};

// The task options name (a preset, or one built from relations); throws std::invalid_argument
// for both together or for a bad name (see relation_task).
TrainingTask resolve_task(const TrainerOptions& options);

// Fills the defaults and checks every value; throws std::invalid_argument saying which value
// is out of which range (e.g. "d_model (10) must be divisible by num_heads (4)").
TrainerConfig resolve_trainer_config(const TrainerOptions& options, const TrainingTask& task);
TrainerConfig resolve_trainer_config(const TrainerOptions& options);  // of resolve_task(options)

// One tensor of the model: its name, its shape and where it lives in the parameter buffer.
struct ParamTensor {
  std::string name;        // as the JS API names it: "tokenEmbedding", "wq" or "layers.1.wq"
  Index rows = 0, cols = 0;  // a vector is (n, 1)
  bool is_vector = false;  // shape [n] in the API
  Index offset = 0;        // of its first element in the buffer
  Index numel() const { return rows * cols; }
};

// The model's tensors in order (llm.c's param_sizes), the one list everything else reads:
// tokenEmbedding (V, d), positionEmbedding (n, d), per layer wq, wk, wv, wo (d, d) each, named
// "wq" ... with one layer and "layers.{l}.wq" ... (PyTorch's named_parameters()) with more,
// readout (d, R * V), readoutBias [R * V]. The initial draws follow the same order.
std::vector<ParamTensor> param_table(const TrainerConfig& c);

// Position in that table of the embeddings, of layer l's projection j (0 wq, 1 wk, 2 wv, 3 wo),
// and of the readout and its bias in a model of `layers` layers.
constexpr std::size_t kTokenEmbedding = 0;
constexpr std::size_t kPositionEmbedding = 1;
constexpr std::size_t layer_tensor(std::int64_t l, std::size_t j) {
  return 2 + 4 * static_cast<std::size_t>(l) + j;
}
constexpr std::size_t readout_tensor(std::int64_t layers) { return layer_tensor(layers, 0); }
constexpr std::size_t readout_bias_tensor(std::int64_t layers) { return readout_tensor(layers) + 1; }

// All of a model's parameters (or, with the same table, its gradients or Adam's moments) in
// one contiguous buffer, read through views of its tensors.
class ModelParams {
 public:
  ModelParams() = default;
  // Zeros, laid out by param_table(c).
  explicit ModelParams(const TrainerConfig& c);

  const std::vector<ParamTensor>& table() const { return table_; }
  Vector& data() { return data_; }
  const Vector& data() const { return data_; }
  std::size_t count() const { return table_.size(); }
  std::int64_t layers() const { return static_cast<std::int64_t>(table_.size() - 4) / 4; }

  // Tensor i of the table, (rows, cols).
  MatrixMap operator[](std::size_t i);
  ConstMatrixMap operator[](std::size_t i) const;

  MatrixMap token_embedding() { return (*this)[kTokenEmbedding]; }
  ConstMatrixMap token_embedding() const { return (*this)[kTokenEmbedding]; }
  MatrixMap position_embedding() { return (*this)[kPositionEmbedding]; }
  ConstMatrixMap position_embedding() const { return (*this)[kPositionEmbedding]; }
  MatrixMap wq(std::int64_t l = 0) { return (*this)[layer_tensor(l, 0)]; }
  ConstMatrixMap wq(std::int64_t l = 0) const { return (*this)[layer_tensor(l, 0)]; }
  MatrixMap wk(std::int64_t l = 0) { return (*this)[layer_tensor(l, 1)]; }
  ConstMatrixMap wk(std::int64_t l = 0) const { return (*this)[layer_tensor(l, 1)]; }
  MatrixMap wv(std::int64_t l = 0) { return (*this)[layer_tensor(l, 2)]; }
  ConstMatrixMap wv(std::int64_t l = 0) const { return (*this)[layer_tensor(l, 2)]; }
  MatrixMap wo(std::int64_t l = 0) { return (*this)[layer_tensor(l, 3)]; }
  ConstMatrixMap wo(std::int64_t l = 0) const { return (*this)[layer_tensor(l, 3)]; }
  MatrixMap readout() { return (*this)[readout_tensor(layers())]; }
  ConstMatrixMap readout() const { return (*this)[readout_tensor(layers())]; }
  // (R * V, 1)
  MatrixMap readout_bias() { return (*this)[readout_bias_tensor(layers())]; }
  ConstMatrixMap readout_bias() const { return (*this)[readout_bias_tensor(layers())]; }

 private:
  std::vector<ParamTensor> table_;
  Vector data_;
};

// The initial draws (see the top of this file); rng must be freshly seeded.
ModelParams init_params(const TrainerConfig& c, NumpyRandomState& rng);

// The parameters of a config from one matrix per tensor of its table, in the table's order
// (a vector as (n, 1)); throws unless each has its tensor's shape and only finite values,
// naming the tensor ("wq has shape (3, 8) but must be (8, 8)").
ModelParams params_from(const TrainerConfig& c, const std::vector<Matrix>& tensors);

// What the forward keeps of one attention layer for the backward (B sequences of n tokens).
struct LayerActivations {
  Matrix z;         // (B * n, d), the layer's input
  Matrix q, k, v;   // (B * n, d)
  Matrix weights;   // (B * h * n, n): sequence b, head h at rows (b * h_count + h) * n
  Matrix concat;    // (B * n, d), ablated heads' blocks zero
  Matrix attn;      // (B * n, d) = concat @ wo
};

// Everything the forward keeps for the backward, for B sequences of n tokens.
struct Activations {
  Index batch = 0, n = 0;
  std::vector<LayerActivations> layers;
  Matrix residual;  // (B * n, d), the last layer's z + attn
  Matrix logits;    // (B * n, R * V)
  Matrix probs;     // (B * n, R * V)
};

// Which heads are switched off: off[l * num_heads + h] for head h of layer l.
using HeadMask = std::vector<bool>;

// The forward for tokens (B, n), n <= seq_len; heads with ablate[l * num_heads + h] true are
// switched off.
void model_forward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                   const HeadMask& ablate, Activations& a);

// The backward's gradients of activations and its work space, sized on use: a trainer keeps
// one, so its steps allocate nothing (allocating and freeing these every step cost natively
// more than the arithmetic: glibc maps and unmaps the large ones, a page fault per page).
struct BackwardScratch {
  Matrix dlogits;                           // (B * n, R * V)
  Matrix dresidual, dz, dconcat, dq, dk, dv;  // (B * n, d)
  MatmulScratch matmul;
  AttentionScratch attention;
};

// The backward of the mean loss, accumulated (+=) into grads (zeroed by the caller).
// dlogits comes from crossentropy_softmax_backward with a.probs and count targets.
void model_backward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                    const IntMatrix& targets, Index count, const Activations& a,
                    const HeadMask& ablate, ModelParams& grads, BackwardScratch& s);
void model_backward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                    const IntMatrix& targets, Index count, const Activations& a,
                    const HeadMask& ablate, ModelParams& grads);

// One Adam step, the body of every training loop: forward over tokens, the loss against
// targets, the gradients (grads zeroed first), then Adam's update of params with the moments
// m and v at step t (counted from 1). Returns the batch's loss and accuracy before the update.
CrossEntropyResult train_step(const TrainerConfig& c, ModelParams& params, ModelParams& grads,
                              ModelParams& m, ModelParams& v, std::int64_t t,
                              const AdamConfig& adam, const IntMatrix& tokens,
                              const IntMatrix& targets, Activations& acts,
                              BackwardScratch& scratch);

struct StepResult {
  std::int64_t step = 0;  // Adam steps taken so far
  double loss = 0.0;      // of the last step's batch, before its update
  double accuracy = 0.0;  // of the last step's batch, before its update
};

struct GradientResult {
  double loss = 0.0;
  double accuracy = 0.0;
  ModelParams grads;
};

// A head of the model: head `head` of layer `layer`.
struct HeadRef {
  std::int64_t layer = 0;
  std::int64_t head = 0;
};

struct EvalResult {
  double loss = 0.0;
  double accuracy = 0.0;
  std::vector<double> relation_accuracy;  // (R)
  // (layers * h, R): mean weight head h of layer l (row l * h + h) gives relation r's source
  Matrix head_focus;
  // The task "induction" only (empty otherwise), on the held-out repeats:
  bool induction = false;
  double repeat_accuracy = 0.0, repeat_loss = 0.0;  // on the predictable positions
  // (layers, h): mean weight on the token before, over every position but the first
  Matrix previous_token_score;
  // (layers, h): mean weight a repeated token gives the position right after its earlier
  // occurrence (prefix matching), over the predictable positions
  Matrix induction_score;
};

class Trainer {
 public:
  // Resolves the config, seeds the generator and draws the weights and the held-out set.
  explicit Trainer(const TrainerOptions& options);

  const TrainerConfig& config() const { return config_; }
  const TrainingTask& task() const { return task_; }
  std::int64_t steps_done() const { return steps_; }
  const ModelParams& parameters() const { return params_; }
  const IntMatrix& eval_tokens() const { return eval_tokens_; }

  // k Adam steps (1 <= k <= kMaxTrainStepsPerCall), each on a fresh batch.
  StepResult step(std::int64_t k);

  // Loads parameters, one matrix per tensor of parameters().table() (checked first, see
  // params_from; nothing changes on error). Adam's moments and the step count are kept, as when
  // a model's weights are loaded under a live optimizer.
  void set_parameters(const std::vector<Matrix>& tensors);
  void set_parameters(const ModelParams& p);

  // Loss and gradients for a given batch. tokens: (B, n), 1 <= n <= seq_len, ids in [0, V);
  // targets: (B * n, R), each -1 or a token id. Changes nothing.
  GradientResult gradients(const IntMatrix& tokens, const IntMatrix& targets) const;

  // Every layer's per-head attention weights, layers * h x (n, n) (layer l's head h at
  // l * h + h), for one sequence tokens: (1, n); each layer's through the lesson's
  // multi_head_attention on that layer's input.
  std::vector<Matrix> attention(const IntMatrix& tokens) const;

  // Loss and accuracies on the held-out set with the heads in ablate switched off, and every
  // head's focus (and, for the induction task, scores) in that model: switching a head off
  // changes the attention of later layers only. Throws for a head out of range or listed twice.
  EvalResult evaluate_heads(const std::vector<HeadRef>& ablate) const;
  // The same with heads of layer 0 (the one-layer model's numbering).
  EvalResult evaluate(const std::vector<std::int64_t>& ablate) const;

  // The mask of ablate, checked.
  HeadMask head_mask(const std::vector<HeadRef>& ablate) const;

 private:
  // The induction task's measures of out from the held-out forward a.
  void add_induction_scores(const Activations& a, EvalResult& out) const;

 public:

  // Throws unless tokens is (B, n) with 1 <= B <= max(batch, eval size), 1 <= n <= seq_len
  // and ids in [0, V).
  void check_tokens(const IntMatrix& tokens, const std::string& name) const;

 private:
  TrainingTask task_;  // before config_, which is resolved from it
  TrainerConfig config_;
  NumpyRandomState rng_;
  ModelParams params_, grads_, adam_m_, adam_v_;  // one table, four buffers
  AdamConfig adam_;
  IntMatrix eval_tokens_, eval_targets_;
  std::vector<Repeat> eval_repeats_;
  std::int64_t steps_ = 0;
  Activations acts_;
  BackwardScratch scratch_;
};

}  // namespace headwise
