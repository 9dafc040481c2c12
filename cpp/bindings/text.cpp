// The text model's adapters. Models live here, keyed by an id the JS wrapper holds.
#include "text.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <optional>

#include "headwise/circuits.hpp"
#include "headwise/text_model.hpp"
#include "marshal.hpp"
#include "trainer.hpp"

namespace headwise_js {

namespace {

// The next-word guesses reported per position.
constexpr int kTopWords = 5;

std::map<int, std::unique_ptr<headwise::TextModelFile>>& models() {
  static std::map<int, std::unique_ptr<headwise::TextModelFile>> all;
  return all;
}

headwise::TextModelFile& model_of(const val& o) {
  const auto it = models().find(o["id"].as<int>());
  if (it == models().end()) {
    throw headwise::Error("disposed", "", {}, "this text model has been disposed; create a new one");
  }
  return *it->second;
}

// {words, ids, unknown: [bool]} of text.
val tokens_out(const headwise::TextModelFile& m, const std::vector<std::string>& words) {
  val ids = val::array(), unknown = val::array();
  for (const std::string& w : words) {
    const std::int64_t id = m.vocabulary.id(w);
    ids.call<void>("push", static_cast<double>(id));
    unknown.call<void>("push", id == 0 && w != headwise::Vocabulary::kUnknown);
  }
  val out = val::object();
  out.set("words", strings_out(words));
  out.set("ids", ids);
  out.set("unknown", unknown);
  return out;
}

// The sequence of o.text (tokenized) or o.ids (checked), one row; tokens gets its
// {words, ids, unknown}.
IntMatrix ids_in(const headwise::TextModelFile& m, const val& o, val& tokens) {
  const headwise::TrainerConfig& c = m.config;
  IntMatrix ids;
  if (has(o, "text")) {
    const std::vector<std::string> words = headwise::tokenize_words(o["text"].as<std::string>());
    if (words.empty()) {
      throw headwise::Error("count", "text",
                            {{"value", headwise::integer(0)}, {"min", headwise::integer(1)}, {"max", headwise::integer(c.seq_len)}},
                            "text has no words; give at least one (up to " +
                                  std::to_string(c.seq_len) + ")");
    }
    if (static_cast<std::int64_t>(words.size()) > c.seq_len) {
      throw headwise::Error("count", "text",
                            {{"value", headwise::integer(static_cast<std::int64_t>(words.size()))},
                             {"min", headwise::integer(1)}, {"max", headwise::integer(c.seq_len)}},
                            "text has " + std::to_string(words.size()) +
                                  " words; this model reads at most " +
                                  std::to_string(c.seq_len));
    }
    tokens = tokens_out(m, words);
    ids = IntMatrix(1, static_cast<Index>(words.size()));
    for (Index i = 0; i < ids.cols(); ++i) ids(0, i) = m.vocabulary.id(words[static_cast<std::size_t>(i)]);
  } else {
    ids = get_int_matrix(o["ids"]);
    if (ids.cols() < 1 || ids.cols() > c.seq_len) {
      throw headwise::Error("count", "ids",
                            {{"value", headwise::integer(ids.cols())}, {"min", headwise::integer(1)}, {"max", headwise::integer(c.seq_len)}},
                            "ids has " + std::to_string(ids.cols()) +
                                  " words; give 1 to " + std::to_string(c.seq_len));
    }
    for (Index i = 0; i < ids.cols(); ++i) {
      if (ids(0, i) < 0 || ids(0, i) >= c.vocab) {
        throw headwise::Error("range", "ids",
                              {{"value", headwise::integer(ids(0, i))}, {"min", headwise::integer(0)},
                               {"max", headwise::integer(c.vocab - 1)}, {"index", "[" + std::to_string(i) + "]"}},
                              "ids[" + std::to_string(i) + "] (" +
                                    std::to_string(ids(0, i)) +
                                    ") must be a word id between 0 and " +
                                    std::to_string(c.vocab - 1));
      }
    }
    std::vector<std::string> words;
    for (Index i = 0; i < ids.cols(); ++i) words.push_back(m.vocabulary.word(ids(0, i)));
    tokens = tokens_out(m, words);
  }
  return ids;
}

// o.word (a word, read as the tokenizer reads text: "States" is "states") or o.wordId (an id the
// core range-checks), as an id; absent when neither is given.
std::optional<std::int64_t> word_in(const headwise::TextModelFile& m, const val& o) {
  if (has(o, "wordId")) return get_int(o, "wordId");
  if (!has(o, "word")) return std::nullopt;
  const std::string given = o["word"].as<std::string>();
  const std::vector<std::string> words = headwise::tokenize_words(given);
  if (words.size() != 1) {
    throw headwise::Error("oneWord", "word",
                          {{"given", given.substr(0, 40)},
                           {"count", headwise::integer(static_cast<std::int64_t>(words.size()))}},
                          "word (\"" + given.substr(0, 40) + "\") must be one word; it reads as " +
                              std::to_string(words.size()) + " words");
  }
  const std::int64_t id = m.vocabulary.id(words[0]);
  if (id == 0 && words[0] != headwise::Vocabulary::kUnknown) {
    throw headwise::Error("unknownWord", "word",
                          {{"given", words[0]},
                           {"size", headwise::integer(static_cast<std::int64_t>(m.vocabulary.size()))}},
                          "word (\"" + words[0] + "\") is not in the model's vocabulary of " +
                              std::to_string(m.vocabulary.size()) + " words (see vocabulary())");
  }
  return id;
}

}  // namespace

val text_config_out(const headwise::TrainerConfig& c) {
  val config = val::object();
  config.set("layers", static_cast<double>(c.layers));
  config.set("numHeads", static_cast<double>(c.num_heads));
  config.set("dModel", static_cast<double>(c.d_model));
  config.set("dHead", static_cast<double>(c.d_head));
  config.set("context", static_cast<double>(c.seq_len));
  config.set("vocab", static_cast<double>(c.vocab));
  return config;
}

val text_model_create(val o) {
  return guarded([&] {
    const std::vector<std::uint8_t> bytes = get_bytes(o["weights"]);
    auto model = std::make_unique<headwise::TextModelFile>(
        headwise::read_text_weights(bytes.data(), bytes.size()));
    static int next_id = 0;
    const int id = ++next_id;
    const headwise::TrainerConfig& c = model->config;
    val config = text_config_out(c);
    val out = val::object();
    out.set("id", id);
    out.set("config", config);
    out.set("vocabulary", strings_out(model->vocabulary.words()));
    out.set("metadata", model->metadata);
    out.set("parameterCount", tensor_table_out(model->params.table()));
    models()[id] = std::move(model);
    return out;
  });
}

val text_model_dispose(val o) {
  return guarded([&] {
    models().erase(o["id"].as<int>());
    return val::object();
  });
}

val text_model_tokenize(val o) {
  return guarded([&] {
    const headwise::TextModelFile& m = model_of(o);
    return tokens_out(m, headwise::tokenize_words(o["text"].as<std::string>()));
  });
}

val text_model_run(val o) {
  return guarded([&] {
    const headwise::TextModelFile& m = model_of(o);
    const headwise::TrainerConfig& c = m.config;
    val tokens = val::undefined();
    const IntMatrix ids = ids_in(m, o, tokens);
    // ablate: [layer, head, layer, head, ...] (integers the wrapper has checked)
    headwise::HeadMask off(static_cast<std::size_t>(c.layers * c.num_heads), false);
    const val list = o["ablate"];
    const int count = list["length"].as<int>();
    for (int i = 0; i + 1 < count; i += 2) {
      const auto l = static_cast<std::int64_t>(list[i].as<double>());
      const auto h = static_cast<std::int64_t>(list[i + 1].as<double>());
      if (l < 0 || l >= c.layers || h < 0 || h >= c.num_heads) {
        throw headwise::Error("noHead", "ablate", {{"layer", headwise::integer(l)}, {"head", headwise::integer(h)},
                               {"layers", headwise::integer(c.layers)}, {"heads", headwise::integer(c.num_heads)}},
                              "ablate: head (layer " + std::to_string(l) + ", head " +
                                    std::to_string(h) + ") does not exist; layers 0 to " +
                                    std::to_string(c.layers - 1) + ", heads 0 to " +
                                    std::to_string(c.num_heads - 1));
      }
      off[static_cast<std::size_t>(l * c.num_heads + h)] = true;
    }
    const headwise::TextRun r = headwise::run_text_model(c, m.params, ids, off);
    const Index n = ids.cols(), v = static_cast<Index>(c.vocab), heads = static_cast<Index>(c.num_heads);
    // Every head's (n, n) weights, layer by layer: (layers, h, n, n).
    std::vector<Matrix> attention;
    for (const Matrix& w : r.attention)
      for (Index h = 0; h < heads; ++h) attention.emplace_back(w.middleRows(h * n, n));
    // The top words after each position: ids and probabilities (n, kTopWords), most likely first
    // (ties: the smaller id first).
    Matrix top_ids(n, kTopWords), top_p(n, kTopWords);
    std::vector<Index> order(static_cast<std::size_t>(v));
    for (Index i = 0; i < n; ++i) {
      std::iota(order.begin(), order.end(), 0);
      const double* p = r.probs.data() + i * v;
      std::partial_sort(order.begin(), order.begin() + kTopWords, order.end(),
                        [p](Index a, Index b) { return p[a] != p[b] ? p[a] > p[b] : a < b; });
      for (int k = 0; k < kTopWords; ++k) {
        top_ids(i, k) = static_cast<double>(order[static_cast<std::size_t>(k)]);
        top_p(i, k) = p[order[static_cast<std::size_t>(k)]];
      }
    }
    val out = tokens;
    val weights = tensor_new({static_cast<Index>(c.layers), heads, n, n});
    fill_stack(weights, attention);
    out.set("attention", weights);
    out.set("topIds", matrix_out(top_ids));
    out.set("topProbabilities", matrix_out(top_p));
    out.set("tokenLoss", vector_out(r.token_loss));
    out.set("loss", r.loss);
    return out;
  });
}

val text_model_parameters(val o) {
  return guarded([&] { return params_out(model_of(o).params); });
}

val text_model_circuits(val o) {
  return guarded([&] {
    const headwise::TextModelFile& m = model_of(o);
    return circuits_out(headwise::model_circuits(m.config, m.params));
  });
}

val text_model_attribute(val o) {
  return guarded([&] {
    const headwise::TextModelFile& m = model_of(o);
    val tokens = val::undefined();
    const IntMatrix ids = ids_in(m, o, tokens);
    const headwise::Attribution a =
        headwise::attribute(m.config, m.params, ids, get_int(o, "position"), word_in(m, o));
    val out = tokens;
    out.set("position", static_cast<double>(a.position));
    out.set("word", m.vocabulary.word(a.word));
    out.set("id", static_cast<double>(a.word));
    out.set("logit", a.logit);
    out.set("probability", a.probability);
    out.set("direct", a.direct);
    out.set("heads", matrix_out(a.heads));
    return out;
  });
}

val text_model_promoted(val o) {
  return guarded([&] {
    const headwise::TextModelFile& m = model_of(o);
    const std::optional<std::int64_t> word = word_in(m, o);
    if (!word) {
      throw headwise::Error("required", "word", {}, "word is required: a word or a word id");
    }
    const headwise::PromotedWords p = headwise::promoted_words(
        m.config, m.params, get_int(o, "layer"), get_int(o, "head"), *word, get_int(o, "k"));
    val words = val::array();
    for (std::size_t j = 0; j < p.ids.size(); ++j) {
      val entry = val::object();
      entry.set("word", m.vocabulary.word(p.ids[j]));
      entry.set("id", static_cast<double>(p.ids[j]));
      entry.set("value", p.values[j]);
      words.call<void>("push", entry);
    }
    val out = val::object();
    out.set("word", m.vocabulary.word(*word));
    out.set("id", static_cast<double>(*word));
    out.set("promoted", words);
    return out;
  });
}

}  // namespace headwise_js
