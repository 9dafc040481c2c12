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
// Determinism: np.random.seed(seed), then in this order token_embedding = randn(V, d),
// position_embedding = randn(n, d), wq, wk, wv, wo = randn(d, d) / sqrt(d) each,
// readout = randn(d, R * V) / sqrt(d), readout_bias = 0; then the held-out set
// randint(V, size=(eval_size, n)); then each step's batch randint(V, size=(batch_size, n)).
#pragma once

#include <array>
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

// What the caller asks for; absent values take the task's defaults. The task is a preset
// (task) or built from relations (catalogue names, in the order of the targets); not both;
// with neither, the preset "previous-and-first".
struct TrainerOptions {
  std::optional<std::string> task;
  std::optional<std::vector<std::string>> relations;
  std::int64_t num_heads = 2;
  std::int64_t d_model = 8;
  std::int64_t seed = 0;
  std::optional<std::int64_t> seq_len, vocab, batch_size, eval_size;
  std::optional<double> learning_rate;
};

// The resolved, checked settings.
struct TrainerConfig {
  std::string task;  // the preset's name, empty for a task built from relations
  std::int64_t num_heads = 0, d_model = 0, d_head = 0, seed = 0, seq_len = 0, vocab = 0,
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

// The model's parameters (and, with the same shapes, their gradients).
struct ModelParams {
  Matrix token_embedding;     // (V, d)
  Matrix position_embedding;  // (n, d)
  Matrix wq, wk, wv, wo;      // (d, d)
  Matrix readout;             // (d, R * V)
  Vector readout_bias;        // (R * V)
};

// Names of the tensors in the API's order (camelCase, as the JS API names them).
constexpr std::array<const char*, 8> kParamNames = {
    "tokenEmbedding", "positionEmbedding", "wq", "wk", "wv", "wo", "readout", "readoutBias"};

// One tensor of a ModelParams, by index in kParamNames order.
struct TensorRef {
  const char* name;
  double* data;
  Index rows, cols;  // a vector is (n, 1)
};
std::array<TensorRef, 8> tensors(ModelParams& p);
// The shapes a config needs, in the same order: {rows, cols} (cols 1 for the bias).
std::array<std::array<Index, 2>, 8> param_shapes(const TrainerConfig& c);

// Zeros with a config's shapes.
ModelParams zero_params(const TrainerConfig& c);
// The initial draws (see the top of this file); rng must be freshly seeded.
ModelParams init_params(const TrainerConfig& c, NumpyRandomState& rng);
// Throws unless every tensor has the config's shape and only finite values.
void validate_params(const TrainerConfig& c, ModelParams& p);

// Everything the forward keeps for the backward, for B sequences of n tokens.
struct Activations {
  Index batch = 0, n = 0;
  Matrix z;         // (B * n, d)
  Matrix q, k, v;   // (B * n, d)
  Matrix weights;   // (B * h * n, n): sequence b, head h at rows (b * h_count + h) * n
  Matrix concat;    // (B * n, d), ablated heads' blocks zero
  Matrix attn;      // (B * n, d) = concat @ wo
  Matrix residual;  // (B * n, d) = z + attn
  Matrix logits;    // (B * n, R * V)
  Matrix probs;     // (B * n, R * V)
};

// The forward for tokens (B, n), n <= seq_len; heads with ablate[h] true are switched off.
void model_forward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                   const std::vector<bool>& ablate, Activations& a);

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
                    const std::vector<bool>& ablate, ModelParams& grads, BackwardScratch& s);
void model_backward(const TrainerConfig& c, const ModelParams& p, const IntMatrix& tokens,
                    const IntMatrix& targets, Index count, const Activations& a,
                    const std::vector<bool>& ablate, ModelParams& grads);

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

struct EvalResult {
  double loss = 0.0;
  double accuracy = 0.0;
  std::vector<double> relation_accuracy;  // (R)
  Matrix head_focus;  // (h, R): mean weight head h gives relation r's source position
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

  // Loads parameters (checked first; nothing changes on error). Adam's moments and the step
  // count are kept, as when a model's weights are loaded under a live optimizer.
  void set_parameters(ModelParams p);

  // Loss and gradients for a given batch. tokens: (B, n), 1 <= n <= seq_len, ids in [0, V);
  // targets: (B * n, R), each -1 or a token id. Changes nothing.
  GradientResult gradients(const IntMatrix& tokens, const IntMatrix& targets) const;

  // Per-head attention weights h x (n, n) for one sequence tokens: (1, n), through the
  // lesson's multi_head_attention.
  std::vector<Matrix> attention(const IntMatrix& tokens) const;

  // Loss and accuracies on the held-out set with the heads in ablate switched off, and every
  // head's focus (computed with all heads on; switching heads off does not change weights).
  EvalResult evaluate(const std::vector<std::int64_t>& ablate) const;

  // Throws unless tokens is (B, n) with 1 <= B <= max(batch, eval size), 1 <= n <= seq_len
  // and ids in [0, V).
  void check_tokens(const IntMatrix& tokens, const std::string& name) const;

 private:
  TrainingTask task_;  // before config_, which is resolved from it
  TrainerConfig config_;
  NumpyRandomState rng_;
  ModelParams params_, grads_, adam_m_, adam_v_;
  AdamConfig adam_;
  IntMatrix eval_tokens_;
  std::int64_t steps_ = 0;
  Activations acts_;
  BackwardScratch scratch_;
};

}  // namespace headwise
