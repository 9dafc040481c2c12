// The trainer of a text someone brings (hw.createTextTrainer): the text model of text_model.hpp
// trained on that text alone, its layers started from a warm-up model's.
//
//   1. The text is tokenised (text.hpp); its last held_out share of words (floor(words *
//      held_out)) is held out, the rest trains.
//   2. The vocabulary: "<unk>" and the training part's words seen at least twice, at most `vocab`
//      of them, the most frequent first (Vocabulary::most_frequent).
//   3. The model: np.random.seed(seed), init_params of the text model's sizes; with a warm start,
//      its positions and attention layers then replace the drawn ones (copy_attention_layers).
//      The same generator then draws each step's batch: draw_text_windows(training ids, batch,
//      context, repeat share).
//   4. A step: the batch is cut into kTextShards shards of consecutive windows (shard s holds
//      windows floor(s B / S) .. floor((s + 1) B / S) - 1); each shard's gradient is the gradient
//      of its windows' summed token losses / (B * context), and its loss that sum / (B * context);
//      the shards' gradients are summed elementwise along a fixed pairwise tree (shard_tree_sum:
//      sum(lo, hi) = shard lo's if hi - lo == 1, else sum(lo, mid) + sum(mid, hi) with mid =
//      (lo + hi) / 2; the losses alike), and one Adam step (adam.hpp) at scheduled_rate applies
//      the sum. Whoever computes the tree's nodes (one process, or each of several its complete
//      subtrees, combined along the upper levels), the sum and so the model are the same bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "headwise/text_model.hpp"

namespace headwise {

// Fixed sizes and limits of a text trainer.
constexpr std::int64_t kTextShards = 8;            // shards per batch (the leaves of the sum's tree)
constexpr std::int64_t kMinTextWords = 200;        // words of text at least (more for a long context)
constexpr std::int64_t kMinTextDistinct = 20;      // training words seen twice at least
constexpr std::int64_t kMinTextContext = 8;        // a repeated span needs windows of 9 words
constexpr std::int64_t kMinTextVocabOption = 10;   // the option `vocab` (without "<unk>")
constexpr std::int64_t kMaxTextBatch = 64;
constexpr std::int64_t kMaxTextSteps = 100000;
constexpr double kMinHeldOut = 0.05, kMaxHeldOut = 0.5;

// How a text trainer trains by default (cpp/TRAINING.md says how these were chosen).
struct TextTrainerRecipe {
  std::int64_t steps = 800;              // the run's length: the learning-rate schedule's
  std::int64_t warmup = 50;              // steps of linear warm-up, then cosine decay
  double learning_rate = 5e-3, final_fraction = 0.1;
  double repeat_share = 0.5;             // windows repeating a span of their own
  std::int64_t eval_repeats = 64;        // repeated sequences of evaluate()
};
const TextTrainerRecipe& text_trainer_recipe();

struct TextTrainerOptions {
  std::string text;
  std::int64_t vocab = 2000;
  // Absent: the warm start's, or 2, 4, 64, 32 without one.
  std::optional<std::int64_t> layers, num_heads, d_model, context;
  std::int64_t seed = 0;
  double held_out = 0.1;
  std::optional<std::int64_t> steps;  // absent: text_trainer_recipe().steps
  std::int64_t batch = 16;
  std::optional<TextModelFile> warm_start;  // absent: from scratch
};

// What the tokeniser and the split made of the text.
struct TextCorpusStats {
  std::int64_t words = 0, training_words = 0, held_out_words = 0, vocab = 0;  // vocab with <unk>
  double unknown_training = 0.0, unknown_held_out = 0.0;  // shares of <unk>
  // tokens that are one character outside ASCII (letters other than a-z such as é or 中, symbols
  // such as — or “): each is read as a word of its own
  std::int64_t ignored = 0;
};

// Held-out loss (nats per word, over every held-out pair (x[i], x[i + 1])) of add-k counts of the
// training stream: the unigram p(w) = (count(w) + k) / (N + k V); the bigram p(w | u) =
// (count(u w) + k) / (count(u .) + k V), count(u .) counting pairs of the training stream.
double unigram_loss(const std::vector<std::int32_t>& train, const std::vector<std::int32_t>& held,
                    Index v, double k);
double bigram_loss(const std::vector<std::int32_t>& train, const std::vector<std::int32_t>& held,
                   Index v, double k);

// Whether lo .. hi - 1 is a node of the pairwise tree over shards 0 .. count - 1 (the root, or a
// half (lo, mid) / (mid, hi), mid = (lo + hi) / 2, of a node with more than one shard).
bool is_shard_node(std::int64_t lo, std::int64_t hi, std::int64_t count = kTextShards);

struct TextBaselines {
  double unigram = 0.0, bigram = 0.0, bigram_k = 0.0;  // unigram with k = 1
};

// Numbers as JSON: shortest round-trip form (17 significant digits); a matrix as its rows.
std::string json_number(double x);
std::string json_matrix(const Matrix& m);

// Phase 1 of text_recipe() (the warm-up), `steps` of its steps (the schedule keeps the full
// length): the attention layers learn to read the word before and to copy, on random words.
// first_losses gets the first 4 steps' losses.
TextTrainer text_warm_up(const TextRecipe& r, std::int64_t steps, std::vector<double>& first_losses);
// The warm-up's record: {"vocab", "skipShare", "batch", "steps", "learningRate", "warmupSteps"}.
std::string text_warm_up_recipe(const TextRecipe& r, std::int64_t steps);
// The warm-up model's weights file (web/models/warmup.hwtm, the default warm start of
// TextCorpusTrainer in the JS API): its words named w1 .. w<synth_vocab - 1>, its metadata the
// recipe's sizes, the warm-up's record and first_losses.
std::string text_warm_up_file(const TextRecipe& r, const TextTrainer& warm,
                              const std::vector<double>& first_losses);

class TextCorpusTrainer {
 public:
  // Checks every option (headwise::Error with the option's API name as its field) and the text.
  explicit TextCorpusTrainer(const TextTrainerOptions& options);

  const TrainerConfig& config() const { return config_; }
  const Vocabulary& vocabulary() const { return vocabulary_; }
  const TextCorpusStats& corpus() const { return corpus_; }
  const TextBaselines& baselines() const { return baselines_; }
  const ModelParams& parameters() const { return params_; }
  std::int64_t steps() const { return steps_; }
  std::int64_t steps_done() const { return steps_done_; }
  std::int64_t batch() const { return batch_; }
  Index parameter_count() const { return params_.data().size(); }
  bool warm() const { return warm_; }

  // k steps (1 .. kMaxTextSteps); the last step's loss.
  double step(std::int64_t k);
  // The listed shards' losses (shards.size()) and gradients (shards.size() * parameter_count())
  // for this step's batch, drawn first if not drawn yet. Throws for an index outside 0 ..
  // kTextShards - 1 or listed twice.
  void shard_gradients(const std::vector<std::int64_t>& shards, double* losses, double* gradients);
  // The tree sum of shards lo .. hi - 1 (a node of the shards' tree: 0 .. kTextShards, or a half
  // of a node; throws code "shardNode", field "shards", otherwise) for this step's batch, drawn
  // first if not drawn yet: gradient gets parameter_count() values; the summed loss is returned.
  // shard_sum(0, kTextShards) and apply_gradients are one step(), bit for bit.
  double shard_sum(std::int64_t lo, std::int64_t hi, double* gradient);
  // One Adam step with the summed gradient sum (n = parameter_count() values; throws otherwise);
  // draws this step's batch first if no shard did. loss: the batch's, kept as the last loss.
  void apply_gradients(const double* sum, Index n, double loss);
  double last_loss() const { return last_loss_; }

  // The held-out part's loss and the head measures of evaluate_text_model (every held-out
  // window), on the given parameters (default: the model's own).
  TextEvaluation evaluate() const;
  TextEvaluation evaluate(const ModelParams& p) const;

  // The weights file: parameters rounded to float16, metadata JSON of the corpus, the recipe and
  // the evaluation of those rounded parameters.
  std::string save() const;

 private:
  void draw_batch();
  double shard(std::int64_t s, double* gradient);
  // the tree sum of the node lo .. hi - 1 into gradient; depth: the node's depth (its scratch)
  double tree_sum(std::int64_t lo, std::int64_t hi, double* gradient, std::size_t depth);

  TrainerConfig config_;
  Vocabulary vocabulary_;
  TextCorpusStats corpus_;
  TextBaselines baselines_;
  std::vector<std::int32_t> train_, held_;
  std::int64_t steps_ = 0, steps_done_ = 0, batch_ = 0, seed_ = 0;
  double held_out_share_ = 0.0, last_loss_ = 0.0;
  bool warm_ = false;
  NumpyRandomState rng_;
  ModelParams params_, grads_, adam_m_, adam_v_;
  Vector sum_;
  std::vector<Vector> tree_scratch_;  // a right half's sum at each depth of the tree
  IntMatrix windows_;
  bool drawn_ = false;
  Activations acts_;
  BackwardScratch scratch_;
};

}  // namespace headwise
