#include "headwise/text_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "headwise/backward.hpp"
#include "headwise/shape.hpp"

namespace headwise {

namespace {

// The text's checks that need it tokenised: words, a-z words, and the minimum for this split.
std::int64_t min_words(std::int64_t context, double held_out) {
  // the held-out part must hold one window of context + 1 words and the word after it
  const std::int64_t need = context + 2;
  auto w = static_cast<std::int64_t>(std::ceil(static_cast<double>(need) / held_out));
  while (static_cast<std::int64_t>(std::floor(static_cast<double>(w) * held_out)) < need) ++w;
  while (w > 1 && static_cast<std::int64_t>(std::floor(static_cast<double>(w - 1) * held_out)) >= need) --w;
  return std::max(kMinTextWords, w);
}

// A share as a message shows it: "0.1".
std::string shown(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::int64_t checked_seed(std::int64_t seed) {
  require_range(seed, 0, kMaxSeed, "seed");
  return seed;
}

// The warm start's size `name` (API name) when `given` is absent, else given, which must equal it.
std::int64_t size_of(const std::optional<std::int64_t>& given, std::int64_t fallback,
                     const std::optional<TextModelFile>& warm, std::int64_t warm_value,
                     const char* field) {
  if (!warm) return given.value_or(fallback);
  if (given && *given != warm_value) {
    throw Error("warmStartSize", field, {{"value", integer(*given)}, {"expected", integer(warm_value)}},
                std::string(field) + " (" + std::to_string(*given) + ") must be the warm start's (" +
                    std::to_string(warm_value) + "), or give warmStart: null to train from scratch");
  }
  return warm_value;
}

}  // namespace

bool is_shard_node(std::int64_t lo, std::int64_t hi, std::int64_t count) {
  std::int64_t a = 0, b = count;
  while (b - a >= 1) {
    if (a == lo && b == hi) return true;
    if (b - a == 1) return false;
    const std::int64_t mid = (a + b) / 2;
    if (hi <= mid) {
      b = mid;
    } else if (lo >= mid) {
      a = mid;
    } else {
      return false;
    }
  }
  return false;
}

const TextTrainerRecipe& text_trainer_recipe() {
  static const TextTrainerRecipe recipe;
  return recipe;
}

double unigram_loss(const std::vector<std::int32_t>& train, const std::vector<std::int32_t>& held,
                    Index v, double k) {
  std::vector<double> count(static_cast<std::size_t>(v), 0.0);
  for (std::int32_t t : train) count[static_cast<std::size_t>(t)] += 1.0;
  const double total = static_cast<double>(train.size()) + k * static_cast<double>(v);
  double sum = 0.0;
  for (std::size_t i = 1; i < held.size(); ++i)
    sum -= std::log((count[static_cast<std::size_t>(held[i])] + k) / total);
  return sum / static_cast<double>(held.size() - 1);
}

double bigram_loss(const std::vector<std::int32_t>& train, const std::vector<std::int32_t>& held,
                   Index v, double k) {
  // the pairs' counts, keyed u * V + w (a table of V^2 would not fit a large vocabulary)
  std::unordered_map<std::int64_t, double> pair;
  std::vector<double> row(static_cast<std::size_t>(v), 0.0);
  const auto key = [v](std::int32_t u, std::int32_t w) {
    return static_cast<std::int64_t>(u) * static_cast<std::int64_t>(v) + w;
  };
  for (std::size_t i = 0; i + 1 < train.size(); ++i) {
    pair[key(train[i], train[i + 1])] += 1.0;
    row[static_cast<std::size_t>(train[i])] += 1.0;
  }
  double sum = 0.0;
  for (std::size_t i = 0; i + 1 < held.size(); ++i) {
    const auto it = pair.find(key(held[i], held[i + 1]));
    const double p = ((it == pair.end() ? 0.0 : it->second) + k) /
                     (row[static_cast<std::size_t>(held[i])] + k * static_cast<double>(v));
    sum -= std::log(p);
  }
  return sum / static_cast<double>(held.size() - 1);
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string json_matrix(const Matrix& m) {
  std::string out = "[";
  for (Index i = 0; i < m.rows(); ++i) {
    out += i ? ",[" : "[";
    for (Index j = 0; j < m.cols(); ++j) out += (j ? "," : "") + json_number(m(i, j));
    out += "]";
  }
  return out + "]";
}

TextTrainer text_warm_up(const TextRecipe& r, std::int64_t steps, std::vector<double>& first_losses) {
  const TrainerConfig sc = text_model_config(r.layers, r.num_heads, r.d_model, r.context, r.synth_vocab);
  TextTrainer warm(sc, r.seed);
  NumpyRandomState rng(r.seed + 1);
  const std::vector<std::int64_t> perm = draw_permutation(rng, r.synth_vocab);
  for (std::int64_t s = 0; s < steps; ++s) {
    const IntMatrix w = draw_skip_repeat_windows(rng, r.synth_batch, r.context, r.synth_vocab,
                                                 r.synth_skip, perm);
    const double loss = warm.step(w, scheduled_rate(r.synth_lr, s, r.synth_steps, r.synth_warmup, false, 1.0));
    if (s < 4) first_losses.push_back(loss);
  }
  return warm;
}

std::string text_warm_up_recipe(const TextRecipe& r, std::int64_t steps) {
  return "{\"vocab\":" + std::to_string(r.synth_vocab) + ",\"skipShare\":" + json_number(r.synth_skip) +
         ",\"batch\":" + std::to_string(r.synth_batch) + ",\"steps\":" + std::to_string(steps) +
         ",\"learningRate\":" + json_number(r.synth_lr) +
         ",\"warmupSteps\":" + std::to_string(r.synth_warmup) + "}";
}

std::string text_warm_up_file(const TextRecipe& r, const TextTrainer& warm,
                              const std::vector<double>& first_losses) {
  std::vector<std::string> words = {Vocabulary::kUnknown};
  for (std::int64_t i = 1; i < r.synth_vocab; ++i) words.push_back("w" + std::to_string(i));
  std::string losses = "[";
  for (std::size_t i = 0; i < first_losses.size(); ++i) losses += (i ? "," : "") + json_number(first_losses[i]);
  const std::string meta = "{\"warmUp\":" + text_warm_up_recipe(r, r.synth_steps) +
                           ",\"layers\":" + std::to_string(r.layers) +
                           ",\"numHeads\":" + std::to_string(r.num_heads) +
                           ",\"dModel\":" + std::to_string(r.d_model) +
                           ",\"context\":" + std::to_string(r.context) +
                           ",\"seed\":" + std::to_string(r.seed) + ",\"firstLosses\":" + losses + "]}";
  return write_text_weights({warm.config(), Vocabulary(words), warm.parameters(), meta});
}

TextCorpusTrainer::TextCorpusTrainer(const TextTrainerOptions& o) : rng_(checked_seed(o.seed)) {
  const TextTrainerRecipe& r = text_trainer_recipe();
  seed_ = o.seed;
  const std::optional<TextModelFile>& warm = o.warm_start;
  const TrainerConfig* wc = warm ? &warm->config : nullptr;
  const std::int64_t layers = size_of(o.layers, 2, warm, wc ? wc->layers : 0, "layers");
  const std::int64_t num_heads = size_of(o.num_heads, 4, warm, wc ? wc->num_heads : 0, "numHeads");
  const std::int64_t d_model = size_of(o.d_model, 64, warm, wc ? wc->d_model : 0, "dModel");
  const std::int64_t context = size_of(o.context, 32, warm, wc ? wc->seq_len : 0, "context");
  // sizes first, so that the text's messages can name the minimum for them
  text_model_config(layers, num_heads, d_model, context, 2);
  require_range(context, kMinTextContext, kMaxTextContext, "context");
  require_range(o.vocab, kMinTextVocabOption, kMaxTextVocab - 1, "vocab");
  require_range(o.batch, kTextShards, kMaxTextBatch, "batch");
  steps_ = o.steps.value_or(r.steps);
  require_range(steps_, 1, kMaxTextSteps, "steps");
  if (!(o.held_out >= kMinHeldOut && o.held_out <= kMaxHeldOut)) {
    throw Error("range", "heldOut",
                {{"value", o.held_out}, {"min", kMinHeldOut}, {"max", kMaxHeldOut}},
                "heldOut (" + shown(o.held_out) + ") must be between " + shown(kMinHeldOut) +
                    " and " + shown(kMaxHeldOut));
  }
  batch_ = o.batch;
  held_out_share_ = o.held_out;
  warm_ = warm.has_value();

  // 1. The words and the split.
  const std::vector<TextToken> tokens = tokenize_text(o.text);
  const auto words = static_cast<std::int64_t>(tokens.size());
  const std::int64_t need = min_words(context, o.held_out);
  const auto too_few = [&] {
    throw Error("tooFewWords", "text", {{"value", integer(words)}, {"min", integer(need)}},
                "text has " + std::to_string(words) + " words; the trainer needs at least " +
                    std::to_string(need) + " (with context " + std::to_string(context) +
                    " and heldOut " + shown(o.held_out) + ")");
  };
  if (words == 0) too_few();
  std::int64_t english = 0;
  for (const TextToken& t : tokens) {
    const unsigned char c = static_cast<unsigned char>(t.word[0]);
    if (c >= 'a' && c <= 'z') ++english;
    if (c >= 0x80) ++corpus_.ignored;
  }
  if (english == 0) {
    throw Error("noEnglishWords", "text", {{"words", integer(words)}},
                "text has no words of the letters a-z (it has " + std::to_string(words) +
                    " other tokens); the tokeniser reads English: each other character is a word of "
                    "its own");
  }
  if (words < need) too_few();
  const auto held_words = static_cast<std::int64_t>(
      std::floor(static_cast<double>(words) * o.held_out));
  std::vector<std::string> train_words, held_words_list;
  for (std::int64_t i = 0; i < words; ++i)
    (i < words - held_words ? train_words : held_words_list).push_back(tokens[static_cast<std::size_t>(i)].word);

  // 2. The vocabulary: training words seen twice, the most frequent `vocab` of them.
  std::unordered_map<std::string, std::int64_t> counts;
  for (const std::string& w : train_words) ++counts[w];
  std::int64_t twice = 0;
  for (const auto& c : counts) twice += c.second >= 2;
  if (twice < kMinTextDistinct) {
    throw Error("tooFewDistinct", "text", {{"value", integer(twice)}, {"min", integer(kMinTextDistinct)}},
                "text's training part has " + std::to_string(twice) +
                    " distinct words seen at least twice; the trainer needs at least " +
                    std::to_string(kMinTextDistinct));
  }
  vocabulary_ = Vocabulary::most_frequent(train_words, static_cast<std::size_t>(std::min(twice, o.vocab)));
  train_ = vocabulary_.ids(train_words);
  held_ = vocabulary_.ids(held_words_list);
  corpus_.words = words;
  corpus_.training_words = static_cast<std::int64_t>(train_.size());
  corpus_.held_out_words = static_cast<std::int64_t>(held_.size());
  corpus_.vocab = vocabulary_.size();
  const auto share = [](const std::vector<std::int32_t>& ids) {
    std::int64_t unknown = 0;
    for (std::int32_t t : ids) unknown += t == 0;
    return static_cast<double>(unknown) / static_cast<double>(ids.size());
  };
  corpus_.unknown_training = share(train_);
  corpus_.unknown_held_out = share(held_);
  const Index v = static_cast<Index>(vocabulary_.size());
  baselines_.bigram_k = text_recipe().bigram_k;
  baselines_.unigram = unigram_loss(train_, held_, v, 1.0);
  baselines_.bigram = bigram_loss(train_, held_, v, baselines_.bigram_k);

  // 3. The model.
  config_ = text_model_config(layers, num_heads, d_model, context, vocabulary_.size());
  params_ = init_params(config_, rng_);
  if (warm) copy_attention_layers(warm->params, params_);
  grads_ = ModelParams(config_);
  adam_m_ = ModelParams(config_);
  adam_v_ = ModelParams(config_);
  sum_ = Vector::Zero(params_.data().size());
}

void TextCorpusTrainer::draw_batch() {
  if (drawn_) return;
  windows_ = draw_text_windows(train_, rng_, static_cast<Index>(batch_),
                               static_cast<Index>(config_.seq_len), text_trainer_recipe().repeat_share);
  drawn_ = true;
}

double TextCorpusTrainer::shard(std::int64_t s, double* gradient) {
  const Index b = static_cast<Index>(batch_), n = static_cast<Index>(config_.seq_len);
  const Index first = static_cast<Index>(s) * b / kTextShards;
  const Index last = static_cast<Index>(s + 1) * b / kTextShards;
  const IntMatrix windows = windows_.middleRows(first, last - first);
  const IntMatrix inputs = window_inputs(windows), targets = window_targets(windows);
  const HeadMask all_on(static_cast<std::size_t>(config_.layers * config_.num_heads), false);
  model_forward(config_, params_, inputs, all_on, acts_);
  const CrossEntropyResult ce =
      crossentropy_forward(acts_.logits, targets, static_cast<Index>(config_.vocab), acts_.probs);
  grads_.data().setZero();
  // count = B n: the gradient of the shard's summed losses / (B n)
  model_backward(config_, params_, inputs, targets, b * n, acts_, all_on, grads_, scratch_);
  std::copy(grads_.data().data(), grads_.data().data() + grads_.data().size(), gradient);
  return ce.loss * static_cast<double>(ce.count) / static_cast<double>(b * n);
}

void TextCorpusTrainer::shard_gradients(const std::vector<std::int64_t>& shards, double* losses,
                                        double* gradients) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    if (shards[i] < 0 || shards[i] >= kTextShards) {
      throw Error("range", "shards",
                  {{"value", integer(shards[i])}, {"min", integer(0)}, {"max", integer(kTextShards - 1)},
                   {"index", at}},
                  "shards" + at + " (" + std::to_string(shards[i]) + ") must be a shard between 0 and " +
                      std::to_string(kTextShards - 1));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (shards[j] == shards[i]) {
        throw Error("duplicate", "shards",
                    {{"value", std::to_string(shards[i])}, {"first", integer(static_cast<std::int64_t>(j))},
                     {"second", integer(static_cast<std::int64_t>(i))}},
                    "shards: " + std::to_string(shards[i]) + " is listed twice (at " +
                        std::to_string(j) + " and " + std::to_string(i) + ")");
      }
    }
  }
  draw_batch();
  const Index p = parameter_count();
  for (std::size_t i = 0; i < shards.size(); ++i)
    losses[i] = shard(shards[i], gradients + static_cast<Index>(i) * p);
}

void TextCorpusTrainer::apply_gradients(const double* sum, Index n, double loss) {
  if (n != parameter_count()) {
    throw Error("length", "sum", {{"length", integer(n)}, {"expected", integer(parameter_count())}},
                "sum has length " + std::to_string(n) + " but must have length " +
                    std::to_string(parameter_count()) + " (the parameter count)");
  }
  draw_batch();  // a replica given no shard still draws the step's batch
  const TextTrainerRecipe& r = text_trainer_recipe();
  AdamConfig adam;
  adam.learning_rate = scheduled_rate(r.learning_rate, std::min(steps_done_, steps_), steps_,
                                      std::min(r.warmup, steps_), true, r.final_fraction);
  ++steps_done_;
  // the moments and step count live in the trainer; the gradient buffer is the caller's
  std::copy(sum, sum + n, grads_.data().data());
  adam_update(params_.data().data(), grads_.data().data(), adam_m_.data().data(),
              adam_v_.data().data(), n, steps_done_, adam);
  last_loss_ = loss;
  drawn_ = false;
}

double TextCorpusTrainer::tree_sum(std::int64_t lo, std::int64_t hi, double* gradient,
                                   std::size_t depth) {
  if (hi - lo == 1) return shard(lo, gradient);
  const std::int64_t mid = (lo + hi) / 2;
  const double left = tree_sum(lo, mid, gradient, depth + 1);
  if (tree_scratch_.size() <= depth) tree_scratch_.resize(depth + 1);
  Vector& right_sum = tree_scratch_[depth];
  const Index p = parameter_count();
  if (right_sum.size() != p) right_sum.resize(p);
  const double right = tree_sum(mid, hi, right_sum.data(), depth + 1);
  // IEEE addition commutes exactly: left + right here is right + left anywhere else
  for (Index j = 0; j < p; ++j) gradient[j] += right_sum[j];
  return left + right;
}

double TextCorpusTrainer::shard_sum(std::int64_t lo, std::int64_t hi, double* gradient) {
  if (!is_shard_node(lo, hi)) {
    throw Error("shardNode", "shards",
                {{"lo", integer(lo)}, {"hi", integer(hi)}, {"count", integer(kTextShards)}},
                "shards " + std::to_string(lo) + " .. " + std::to_string(hi) +
                    " (end excluded) is not a node of the tree over shards 0 .. " +
                    std::to_string(kTextShards) +
                    ": give 0 .. " + std::to_string(kTextShards) +
                    " or a half (lo .. mid, mid .. hi with mid = (lo + hi) / 2) of a node");
  }
  draw_batch();
  return tree_sum(lo, hi, gradient, 0);
}

double TextCorpusTrainer::step(std::int64_t k) {
  require_range(k, 1, kMaxTextSteps, "steps");
  const Index p = parameter_count();
  for (std::int64_t s = 0; s < k; ++s) {
    const double loss = shard_sum(0, kTextShards, sum_.data());
    apply_gradients(sum_.data(), p, loss);
  }
  return last_loss_;
}

TextEvaluation TextCorpusTrainer::evaluate() const { return evaluate(params_); }

TextEvaluation TextCorpusTrainer::evaluate(const ModelParams& p) const {
  NumpyRandomState rng(seed_);
  const IntMatrix repeated = repeated_sequences(
      rng, config_.vocab, static_cast<Index>(text_trainer_recipe().eval_repeats),
      std::min<Index>(static_cast<Index>(config_.seq_len / 2), static_cast<Index>(config_.vocab - 1)));
  return evaluate_text_model(config_, p, held_, 1, repeated);
}

std::string TextCorpusTrainer::save() const {
  TextModelFile file{config_, vocabulary_, params_, ""};
  const std::string first = write_text_weights(file);
  const TextModelFile rounded =
      read_text_weights(reinterpret_cast<const std::uint8_t*>(first.data()), first.size());
  const TextEvaluation e = evaluate(rounded.params);
  const TextTrainerRecipe& r = text_trainer_recipe();
  const TextCorpusStats& c = corpus_;
  std::string m = "{\"corpus\":{\"words\":" + std::to_string(c.words) +
                  ",\"trainingWords\":" + std::to_string(c.training_words) +
                  ",\"heldOutWords\":" + std::to_string(c.held_out_words) +
                  ",\"vocab\":" + std::to_string(c.vocab) +
                  ",\"unknownShare\":{\"training\":" + json_number(c.unknown_training) +
                  ",\"heldOut\":" + json_number(c.unknown_held_out) + "},\"ignored\":" +
                  std::to_string(c.ignored) + "}";
  m += ",\"recipe\":{\"layers\":" + std::to_string(config_.layers) +
       ",\"numHeads\":" + std::to_string(config_.num_heads) +
       ",\"dModel\":" + std::to_string(config_.d_model) +
       ",\"context\":" + std::to_string(config_.seq_len) + ",\"seed\":" + std::to_string(seed_) +
       ",\"heldOut\":" + json_number(held_out_share_) + ",\"warmStart\":" + (warm_ ? "true" : "false") +
       ",\"batch\":" + std::to_string(batch_) + ",\"shards\":" + std::to_string(kTextShards) +
       ",\"steps\":" + std::to_string(steps_) + ",\"stepsDone\":" + std::to_string(steps_done_) +
       ",\"learningRate\":" + json_number(r.learning_rate) + ",\"warmupSteps\":" +
       std::to_string(std::min(r.warmup, steps_)) + ",\"finalFraction\":" + json_number(r.final_fraction) +
       ",\"repeatShare\":" + json_number(r.repeat_share) + "}";
  m += ",\"heldOut\":{\"windows\":" + std::to_string(e.windows) + ",\"loss\":" + json_number(e.loss) +
       ",\"unigram\":" + json_number(baselines_.unigram) + ",\"bigram\":" +
       json_number(baselines_.bigram) + ",\"bigramK\":" + json_number(baselines_.bigram_k) + "}";
  m += ",\"heads\":{\"previousWord\":" + json_matrix(e.previous_word) +
       ",\"currentWord\":" + json_matrix(e.current_word) + ",\"firstWord\":" + json_matrix(e.first_word) +
       ",\"sameWord\":" + json_matrix(e.same_word) + ",\"broad\":" + json_matrix(e.broad) +
       ",\"induction\":" + json_matrix(e.text_induction) +
       ",\"repeatInduction\":" + json_matrix(e.induction) + "}";
  m += ",\"repeats\":{\"sequences\":" + std::to_string(e.repeats) + ",\"half\":" +
       std::to_string(e.repeated_half) + ",\"firstLoss\":" + json_number(e.first_loss) +
       ",\"repeatLoss\":" + json_number(e.repeat_loss) + "}}";
  file.params = rounded.params;
  file.metadata = m;
  return write_text_weights(file);
}

}  // namespace headwise
