#include "headwise/text_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "headwise/backward.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/shape.hpp"

namespace headwise {

namespace {

constexpr char kMagic[4] = {'H', 'W', 'T', 'M'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kFloat16 = 16;
constexpr std::size_t kHeaderWords = 9;  // version .. metadata bytes
constexpr std::size_t kHeaderBytes = 4 + 4 * kHeaderWords;

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::uint32_t get_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

std::size_t padded(std::size_t n) { return (n + 7) / 8 * 8; }

// The softmax of every row of logits (rows, V): the cross-entropy's, with a target everywhere.
void next_word_probs(const Matrix& logits, Index v, Matrix& probs) {
  const IntMatrix every = IntMatrix::Zero(logits.rows(), 1);
  crossentropy_forward(logits, every, v, probs);
}

}  // namespace

TrainerConfig text_model_config(std::int64_t layers, std::int64_t num_heads, std::int64_t d_model,
                                std::int64_t context, std::int64_t vocab) {
  TrainerConfig c;
  require_range(layers, 1, kMaxTextLayers, "layers");
  require_range(d_model, 1, kMaxTextDModel, "d_model");
  require_range(num_heads, 1, d_model, "num_heads");
  c.d_head = head_dim(d_model, num_heads);
  require_range(context, 2, kMaxTextContext, "context");
  require_range(vocab, 2, kMaxTextVocab, "vocab");
  c.layers = layers;
  c.num_heads = num_heads;
  c.d_model = d_model;
  c.seq_len = context;
  c.vocab = vocab;
  c.num_relations = 1;
  return c;
}

// ---- float16 ----------------------------------------------------------------------------------

std::uint16_t to_float16(double x) {
  std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (std::isnan(x)) return static_cast<std::uint16_t>(sign | 0x7E00);
  if (a >= 65520.0) return static_cast<std::uint16_t>(sign | 0x7C00);  // rounds to infinity
  if (a < std::ldexp(1.0, -14)) {
    // subnormal (or zero): a multiple of 2^-24, rounded to nearest even
    const double m = std::nearbyint(std::ldexp(a, 24));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(m));
  }
  int e = 0;
  const double f = std::frexp(a, &e);  // a = f 2^e, f in [0.5, 1)
  // 11 significant bits: m = f 2^11 in [1024, 2048), rounded to nearest even
  double m = std::nearbyint(std::ldexp(f, 11));
  if (m >= 2048.0) {
    m /= 2.0;
    ++e;
  }
  const int biased = e - 1 + 15;  // the exponent of 1.xxx
  if (biased >= 31) return static_cast<std::uint16_t>(sign | 0x7C00);
  return static_cast<std::uint16_t>(sign | (biased << 10) | (static_cast<int>(m) - 1024));
}

double from_float16(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(static_cast<double>(fraction), -24);
  if (exponent == 31) return fraction ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(static_cast<double>(fraction + 1024), exponent - 25);
}

// ---- the weights file ---------------------------------------------------------------------------

std::string write_text_weights(const TextModelFile& model) {
  const TrainerConfig& c = model.config;
  std::string vocabulary;
  for (const std::string& w : model.vocabulary.words()) vocabulary += w + "\n";
  std::string out(kMagic, 4);
  for (std::int64_t v : {static_cast<std::int64_t>(kVersion), c.layers, c.num_heads, c.d_model,
                         c.seq_len, c.vocab, static_cast<std::int64_t>(kFloat16),
                         static_cast<std::int64_t>(vocabulary.size()),
                         static_cast<std::int64_t>(model.metadata.size())}) {
    put_u32(out, static_cast<std::uint32_t>(v));
  }
  out += vocabulary;
  out += model.metadata;
  out.resize(padded(out.size()), '\0');
  const Vector& data = model.params.data();
  for (Index i = 0; i < data.size(); ++i) {
    const std::uint16_t h = to_float16(data[i]);
    out.push_back(static_cast<char>(h & 0xFF));
    out.push_back(static_cast<char>(h >> 8));
  }
  return out;
}

TextModelFile read_text_weights(const std::uint8_t* bytes, std::size_t size) {
  const auto fail = [](const std::string& why) {
    throw Error("format", "weights", {{"detail", why}}, "weights: " + why);
  };
  if (size < kHeaderBytes || std::memcmp(bytes, kMagic, 4) != 0) {
    fail("not a Headwise text model (a file starting with \"HWTM\" and a header of " +
         std::to_string(kHeaderBytes) + " bytes); got " + std::to_string(size) + " bytes");
  }
  std::uint32_t h[kHeaderWords];
  for (std::size_t i = 0; i < kHeaderWords; ++i) h[i] = get_u32(bytes + 4 + 4 * i);
  if (h[0] != kVersion) {
    fail("version " + std::to_string(h[0]) + " is not known; this reads version " +
         std::to_string(kVersion));
  }
  if (h[6] != kFloat16) fail("dtype " + std::to_string(h[6]) + " is not 16 (float16)");
  TextModelFile m;
  m.config = text_model_config(h[1], h[2], h[3], h[4], h[5]);
  const std::size_t vocab_bytes = h[7], meta_bytes = h[8];
  if (vocab_bytes > size || meta_bytes > size ||
      kHeaderBytes + vocab_bytes + meta_bytes > size) {
    fail("the vocabulary and metadata (" + std::to_string(vocab_bytes) + " + " +
         std::to_string(meta_bytes) + " bytes) do not fit in the file (" + std::to_string(size) +
         " bytes)");
  }
  const char* text = reinterpret_cast<const char*>(bytes + kHeaderBytes);
  std::vector<std::string> words;
  std::size_t start = 0;
  for (std::size_t i = 0; i < vocab_bytes; ++i) {
    if (text[i] == '\n') {
      words.emplace_back(text + start, i - start);
      start = i + 1;
    }
  }
  if (start != vocab_bytes) fail("the vocabulary's last word does not end with a line break");
  if (static_cast<std::int64_t>(words.size()) != m.config.vocab) {
    fail("the vocabulary has " + std::to_string(words.size()) + " words but the header says " +
         std::to_string(m.config.vocab));
  }
  m.vocabulary = Vocabulary(std::move(words));
  m.metadata.assign(text + vocab_bytes, meta_bytes);
  m.params = ModelParams(m.config);
  const std::size_t at = padded(kHeaderBytes + vocab_bytes + meta_bytes);
  const std::size_t count = static_cast<std::size_t>(m.params.data().size());
  if (size != at + 2 * count) {
    fail("the parameters of this model need " + std::to_string(at + 2 * count) +
         " bytes in all; the file has " + std::to_string(size));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint16_t v = static_cast<std::uint16_t>(bytes[at + 2 * i] | (bytes[at + 2 * i + 1] << 8));
    const double x = from_float16(v);
    if (!std::isfinite(x)) fail("parameter " + std::to_string(i) + " is not finite");
    m.params.data()[static_cast<Index>(i)] = x;
  }
  return m;
}

// ---- training -------------------------------------------------------------------------------------

TextTrainer::TextTrainer(const TrainerConfig& c, std::int64_t seed) : config_(c) {
  NumpyRandomState rng(seed);
  params_ = init_params(config_, rng);
  grads_ = ModelParams(config_);
  adam_m_ = ModelParams(config_);
  adam_v_ = ModelParams(config_);
}

IntMatrix window_inputs(const IntMatrix& windows) {
  return windows.leftCols(windows.cols() - 1);
}

IntMatrix window_targets(const IntMatrix& windows) {
  const Index b = windows.rows(), n = windows.cols() - 1;
  IntMatrix t(b * n, 1);
  for (Index r = 0; r < b; ++r)
    for (Index i = 0; i < n; ++i) t(r * n + i, 0) = windows(r, i + 1);
  return t;
}

double TextTrainer::step(const IntMatrix& windows, double lr) {
  AdamConfig adam;
  adam.learning_rate = lr;
  ++steps_;
  return train_step(config_, params_, grads_, adam_m_, adam_v_, steps_, adam,
                    window_inputs(windows), window_targets(windows), acts_, scratch_)
      .loss;
}

const TextRecipe& text_recipe() {
  static const TextRecipe recipe;
  return recipe;
}

void copy_attention_layers(const ModelParams& from, ModelParams& to) {
  if (from.layers() != to.layers()) {
    throw Error("internal", "", {}, "copy_attention_layers: the models' layers differ");
  }
  for (std::size_t i = kPositionEmbedding; i < readout_tensor(to.layers()); ++i) {
    if (from.table()[i].rows != to.table()[i].rows || from.table()[i].cols != to.table()[i].cols) {
      throw Error("internal", "", {}, "copy_attention_layers: " + to.table()[i].name +
                                  " has another shape in the source model");
    }
    to[i] = from[i];
  }
}

double scheduled_rate(double lr, std::int64_t s, std::int64_t total, std::int64_t warmup,
                      bool cosine, double final_fraction) {
  if (s < warmup) return lr * static_cast<double>(s + 1) / static_cast<double>(warmup);
  if (!cosine) return lr;
  const double p = static_cast<double>(s - warmup) /
                   static_cast<double>(std::max<std::int64_t>(1, total - warmup));
  const double pi = std::acos(-1.0);
  return lr * (final_fraction + (1.0 - final_fraction) * 0.5 * (1.0 + std::cos(pi * p)));
}

// ---- running and measuring ------------------------------------------------------------------------

void require_sequence(const TrainerConfig& c, const IntMatrix& ids) {
  const Index n = ids.cols(), v = static_cast<Index>(c.vocab);
  if (ids.rows() != 1 || n < 1 || n > c.seq_len) {
    throw Error("count", "ids", {{"value", integer(n)}, {"min", integer(1)}, {"max", integer(c.seq_len)}},
                "ids: one sequence of 1 to " + std::to_string(c.seq_len) +
                                " words; got " + std::to_string(n));
  }
  for (Index i = 0; i < n; ++i) {
    if (ids(0, i) < 0 || ids(0, i) >= v) {
      throw Error("range", "ids",
                  {{"value", integer(ids(0, i))}, {"min", integer(0)}, {"max", integer(v - 1)},
                   {"index", "[" + std::to_string(i) + "]"}},
                  "ids[" + std::to_string(i) + "] (" + std::to_string(ids(0, i)) +
                                  ") must be a word id between 0 and " + std::to_string(v - 1));
    }
  }
}

TextRun run_text_model(const TrainerConfig& c, const ModelParams& p, const IntMatrix& ids,
                       const HeadMask& ablate) {
  const Index n = ids.cols(), v = static_cast<Index>(c.vocab);
  require_sequence(c, ids);
  if (static_cast<std::int64_t>(ablate.size()) != c.layers * c.num_heads) {
    throw Error("internal", "ablate", {}, "ablate: one flag per head (" +
                                std::to_string(c.layers * c.num_heads) + ")");
  }
  Activations a;
  model_forward(c, p, ids, ablate, a);
  TextRun out;
  next_word_probs(a.logits, v, out.probs);
  out.token_loss.resize(n - 1);
  for (Index i = 0; i + 1 < n; ++i) out.token_loss[i] = -std::log(out.probs(i, ids(0, i + 1)));
  out.loss = n > 1 ? out.token_loss.mean() : 0.0;
  for (const LayerActivations& la : a.layers) out.attention.push_back(la.weights);
  return out;
}

IntMatrix repeated_sequences(NumpyRandomState& rng, std::int64_t vocab, Index count, Index half) {
  if (half < 2 || half > vocab - 1) {
    throw Error("internal", "", {}, "repeated_sequences: half (" + std::to_string(half) +
                                ") must be between 2 and vocab - 1 (" + std::to_string(vocab - 1) +
                                ")");
  }
  IntMatrix out(count, 2 * half);
  for (Index r = 0; r < count; ++r) {
    const std::vector<std::int64_t> perm = draw_permutation(rng, vocab);
    for (Index j = 0; j < half; ++j) out(r, j) = out(r, half + j) = perm[static_cast<std::size_t>(1 + j)];
  }
  return out;
}

TextEvaluation evaluate_text_model(const TrainerConfig& c, const ModelParams& p,
                                   const std::vector<std::int32_t>& held_out, Index stride,
                                   const IntMatrix& repeated) {
  const Index n = static_cast<Index>(c.seq_len), heads = static_cast<Index>(c.num_heads),
              layers = static_cast<Index>(c.layers), v = static_cast<Index>(c.vocab);
  const Index all = (static_cast<Index>(held_out.size()) - 1) / (n + 1);
  if (stride < 1 || all < 1) {
    throw Error("internal", "", {}, "evaluate_text_model: stride must be at least 1 and the held-out "
                                "stream longer than a window");
  }
  TextEvaluation e;
  e.previous_word = e.current_word = e.first_word = e.same_word = e.broad = e.text_induction =
      Matrix::Zero(layers, heads);
  const HeadMask all_on(static_cast<std::size_t>(layers * heads), false);
  constexpr Index kChunk = 32;
  std::vector<Index> picked;
  for (Index w = 0; w < all; w += stride) picked.push_back(w);
  e.windows = static_cast<std::int64_t>(picked.size());
  double loss_sum = 0.0, same_positions = 0.0;
  Index positions = 0;
  Activations a;
  for (std::size_t first = 0; first < picked.size(); first += kChunk) {
    const Index b = static_cast<Index>(std::min<std::size_t>(kChunk, picked.size() - first));
    IntMatrix windows(b, n + 1);
    for (Index r = 0; r < b; ++r)
      for (Index i = 0; i <= n; ++i)
        windows(r, i) = held_out[static_cast<std::size_t>(picked[first + static_cast<std::size_t>(r)] * (n + 1) + i)];
    const IntMatrix x = window_inputs(windows);
    model_forward(c, p, x, all_on, a);
    const CrossEntropyResult ce = crossentropy_forward(a.logits, window_targets(windows), v, a.probs);
    loss_sum += ce.loss * static_cast<double>(ce.count);
    positions += ce.count;
    for (Index r = 0; r < b; ++r) {
      for (Index i = 1; i < n; ++i) {
        // earlier positions holding the same word
        std::vector<Index> same;
        for (Index j = 0; j < i; ++j)
          if (x(r, j) == x(r, i)) same.push_back(j);
        if (!same.empty()) same_positions += 1.0;
        // the positions after earlier occurrences (j < i - 1), for a known word
        std::vector<Index> after;
        if (x(r, i) != 0)
          for (Index j : same)
            if (j + 1 < i) after.push_back(j + 1);
        if (!after.empty()) ++e.text_induction_positions;
        for (Index l = 0; l < layers; ++l) {
          const Matrix& w = a.layers[static_cast<std::size_t>(l)].weights;
          for (Index h = 0; h < heads; ++h) {
            const Index row = (r * heads + h) * n + i;
            e.previous_word(l, h) += w(row, i - 1);
            e.current_word(l, h) += w(row, i);
            e.first_word(l, h) += w(row, 0);
            double s = 0.0, entropy = 0.0;
            for (Index j : same) s += w(row, j);
            e.same_word(l, h) += s;
            for (Index j : after) e.text_induction(l, h) += w(row, j);
            for (Index j = 0; j <= i; ++j)
              if (w(row, j) > 0.0) entropy -= w(row, j) * std::log(w(row, j));
            e.broad(l, h) += entropy / std::log(static_cast<double>(i + 1));
          }
        }
      }
    }
  }
  e.loss = loss_sum / static_cast<double>(positions);
  const double counted = static_cast<double>(e.windows * (n - 1));
  e.previous_word /= counted;
  e.current_word /= counted;
  e.first_word /= counted;
  e.broad /= counted;
  if (same_positions > 0) e.same_word /= same_positions;
  if (e.text_induction_positions > 0)
    e.text_induction /= static_cast<double>(e.text_induction_positions);
  // The repeated sequences.
  const Index half = repeated.cols() / 2;
  e.repeats = repeated.rows();
  e.repeated_half = half;
  e.induction = Matrix::Zero(layers, heads);
  double first_sum = 0.0, repeat_sum = 0.0;
  for (Index first = 0; first < repeated.rows(); first += kChunk) {
    const Index b = std::min<Index>(kChunk, repeated.rows() - first);
    const IntMatrix x = repeated.middleRows(first, b);
    model_forward(c, p, x, all_on, a);
    next_word_probs(a.logits, v, a.probs);
    for (Index r = 0; r < b; ++r) {
      for (Index i = 0; i + 1 < 2 * half; ++i) {
        const double nll = -std::log(a.probs(r * 2 * half + i, x(r, i + 1)));
        if (i + 1 < half) first_sum += nll;
        if (i >= half) repeat_sum += nll;
      }
      for (Index l = 0; l < layers; ++l)
        for (Index h = 0; h < heads; ++h)
          for (Index j = 0; j < half; ++j)
            e.induction(l, h) += a.layers[static_cast<std::size_t>(l)]
                                     .weights((r * heads + h) * 2 * half + half + j, j + 1);
    }
  }
  e.induction /= static_cast<double>(e.repeats * half);
  e.first_loss = first_sum / static_cast<double>(e.repeats * (half - 1));
  e.repeat_loss = repeat_sum / static_cast<double>(e.repeats * (half - 1));
  return e;
}

}  // namespace headwise
