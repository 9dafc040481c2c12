// The text model: the training section's attention-only model (trainer.hpp) reading words, one
// relation ("the next word"), trained on a stream of word ids; its weights file; its forward with
// every head's attention and the next-word guesses; and the head measures its card reports.
//
// Weights file (little-endian):
//   bytes 0-3    "HWTM"
//   then u32     version (1), layers, num_heads, d_model, context, vocab, dtype (16: float16),
//                vocabulary bytes L, metadata bytes M
//   then         L bytes: the vocabulary, words in id order each followed by '\n' (UTF-8)
//   then         M bytes: metadata, UTF-8 JSON (what the model card reports; the core keeps it
//                as it is)
//   then         zero bytes up to a multiple of 8 from the start
//   then         the tensors of param_table() in its order, row-major, float16 (IEEE binary16)
// and nothing after them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "headwise/adam.hpp"
#include "headwise/text.hpp"
#include "headwise/trainer.hpp"

namespace headwise {

// Limits of a text model's sizes.
constexpr std::int64_t kMaxTextLayers = 4;
constexpr std::int64_t kMaxTextDModel = 256;
constexpr std::int64_t kMaxTextContext = 128;
constexpr std::int64_t kMaxTextVocab = 8192;

// The trainer's config of a text model (one relation, the next word); checked, throws
// std::invalid_argument naming the value and its range.
TrainerConfig text_model_config(std::int64_t layers, std::int64_t num_heads, std::int64_t d_model,
                                std::int64_t context, std::int64_t vocab);

// IEEE binary16 from float64, rounded to nearest, ties to even (NumPy's astype(np.float16));
// and back, exactly.
std::uint16_t to_float16(double x);
double from_float16(std::uint16_t h);

struct TextModelFile {
  TrainerConfig config;
  Vocabulary vocabulary;
  ModelParams params;
  std::string metadata;  // JSON
};

// The file's bytes; the parameters rounded to float16.
std::string write_text_weights(const TextModelFile& model);
// Reads and checks a weights file; throws std::invalid_argument saying what is wrong with it.
TextModelFile read_text_weights(const std::uint8_t* bytes, std::size_t size);

// One Adam step of a model of config c on windows (B, n + 1): inputs are the first n tokens,
// targets the last n; the update uses learning rate lr. Returns the batch's loss before it.
class TextTrainer {
 public:
  // Parameters drawn by init_params from np.random.seed(seed).
  TextTrainer(const TrainerConfig& c, std::int64_t seed);
  double step(const IntMatrix& windows, double lr);
  std::int64_t steps_done() const { return steps_; }
  const TrainerConfig& config() const { return config_; }
  ModelParams& parameters() { return params_; }
  const ModelParams& parameters() const { return params_; }

 private:
  TrainerConfig config_;
  ModelParams params_, grads_, adam_m_, adam_v_;
  std::int64_t steps_ = 0;
  Activations acts_;
  BackwardScratch scratch_;
};

// The learning rate of step s (0-based) of `total`: lr (s + 1) / warmup during the warm-up; then
// constant, or with cosine decay lr (f + (1 - f) (1 + cos(pi p)) / 2), p = (s - warmup) /
// max(1, total - warmup), f = final_fraction.
double scheduled_rate(double lr, std::int64_t s, std::int64_t total, std::int64_t warmup,
                      bool cosine, double final_fraction);

// How the shipped model is trained (`npm run train:text`; web/models/MODEL_CARD.md says why).
//   1. Warm-up: a model of the same sizes on synthetic windows of synth_vocab - 1 random words
//      (draw_skip_repeat_windows): its layers learn to read the word before and to copy.
//   2. Text: a fresh model of the vocabulary's size takes the warm-up's attention layers and
//      position embedding (copy_attention_layers) and trains on windows of the training
//      addresses, text_repeat of them repeating a span of their own.
struct TextRecipe {
  std::int64_t layers = 2, num_heads = 4, d_model = 64, context = 32;
  std::int64_t words = 2000;             // the most frequent training words, plus "<unk>"
  int last_training_year = 2000;         // later addresses are held out
  std::int64_t seed = 0;
  std::int64_t synth_vocab = 65, synth_batch = 64, synth_steps = 1953, synth_warmup = 100;
  double synth_skip = 0.5, synth_lr = 3e-3;
  std::int64_t text_batch = 16, text_steps = 15625, text_warmup = 200;
  double text_lr = 3e-3, text_final_fraction = 0.1, text_repeat = 0.5;
  std::int64_t eval_repeats = 500;       // repeated sequences of context / 2 distinct words
  double bigram_k = 0.03;                // the bigram baseline's add-k smoothing
};
const TextRecipe& text_recipe();

// Copies positionEmbedding and every layer's wq, wk, wv, wo from one model to another of the
// same layers, heads, d_model and context (their vocabularies may differ).
void copy_attention_layers(const ModelParams& from, ModelParams& to);

// The inputs and targets of windows (B, n + 1).
IntMatrix window_inputs(const IntMatrix& windows);
IntMatrix window_targets(const IntMatrix& windows);

// One sequence through the model: ids (1, n), 1 <= n <= context, ids in [0, V).
struct TextRun {
  std::vector<Matrix> attention;  // per layer, (h * n, n): head h's row i at h * n + i
  Matrix probs;                   // (n, V): the next word's distribution after each position
  Vector token_loss;              // (n - 1): -log p(ids[i + 1] | ids[0 .. i])
  double loss = 0.0;              // their mean (0 for one word)
};
// Throws unless ids is one sequence (1, n) of 1 to c.seq_len word ids in [0, c.vocab).
void require_sequence(const TrainerConfig& c, const IntMatrix& ids);
TextRun run_text_model(const TrainerConfig& c, const ModelParams& p, const IntMatrix& ids,
                       const HeadMask& ablate);

// What the card reports of a model, on held-out text (windows of context + 1 consecutive ids,
// the stream cut from its start) and on sequences of distinct random words repeated twice.
struct TextEvaluation {
  std::int64_t windows = 0;   // held-out windows
  double loss = 0.0;          // mean next-word cross-entropy over every position of them
  // per head (layers, h), on held-out windows, means over positions i >= 1:
  Matrix previous_word;       // weight on i - 1
  Matrix current_word;        // weight on i itself
  Matrix first_word;          // weight on 0
  Matrix same_word;           // weight on earlier positions holding the same id (over positions
                              // that have one)
  Matrix broad;               // the weights' entropy / log(i + 1)
  // per head, on held-out windows, over positions i whose word (not <unk>) occurred earlier at
  // some j < i - 1: the summed weight on the positions j + 1 after those occurrences (what an
  // induction head reads), mean over those positions (zero if there is none)
  Matrix text_induction;
  std::int64_t text_induction_positions = 0;
  // on the repeated sequences (x[half + j] = x[j], n = 2 half):
  std::int64_t repeats = 0, repeated_half = 0;
  Matrix induction;           // weight of position half + j on j + 1, j = 0 .. half - 1
  double first_loss = 0.0;    // mean loss predicting x[1 .. half - 1] (first occurrence)
  double repeat_loss = 0.0;   // mean loss predicting x[half + 1 .. n - 1] (the repeat)
};

// count sequences of `half` distinct ids from 1 .. V - 1 (each a draw_permutation of rng's
// first `half`), each repeated twice: (count, 2 half).
IntMatrix repeated_sequences(NumpyRandomState& rng, std::int64_t vocab, Index count, Index half);

// held_out: the stream; every `stride`-th window is used (1 for all).
TextEvaluation evaluate_text_model(const TrainerConfig& c, const ModelParams& p,
                                   const std::vector<std::int32_t>& held_out, Index stride,
                                   const IntMatrix& repeated);

}  // namespace headwise
