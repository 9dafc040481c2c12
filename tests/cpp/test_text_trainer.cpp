// The text trainer of a text someone brings: the split, the vocabulary and the baselines against
// a direct count, the sharded step against its parts bit for bit, every refusal's code, and the
// warm-up file against phase 1 of the recipe.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "headwise/error.hpp"
#include "headwise/text_trainer.hpp"

using headwise::Error;
using headwise::Index;
using headwise::Matrix;
using headwise::TextCorpusTrainer;
using headwise::TextModelFile;
using headwise::TextTrainerOptions;

namespace {

const std::string kRoot = HEADWISE_SOURCE_DIR;

using headwise::test::read_bytes;

TextModelFile warm_up_model() {
  const std::string b = read_bytes(kRoot + "/web/models/warmup.hwtm");
  return headwise::read_text_weights(reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
}

// A text of `count` words drawn from 60 made-up words, some far more often than others, with
// sentences of 8 words.
std::string made_up_text(Index count) {
  headwise::NumpyRandomState rng(5);
  std::string text;
  for (Index i = 0; i < count; ++i) {
    const double u = rng.random_double();
    const auto k = static_cast<int>(60.0 * u * u);  // small ids more often
    text += "w" + std::string(1, static_cast<char>('a' + k % 26)) + std::string(1, static_cast<char>('a' + k / 26));
    text += (i % 8 == 7) ? ". " : " ";
  }
  return text;
}

TextTrainerOptions small_options() {
  TextTrainerOptions o;
  o.text = made_up_text(1200);
  o.layers = 1;
  o.num_heads = 2;
  o.d_model = 8;
  o.context = 12;
  o.batch = 12;
  o.seed = 3;
  return o;
}

// The error code of constructing a trainer of o, or "" when it constructs.
std::string code_of(const TextTrainerOptions& o, std::string* field = nullptr) {
  try {
    TextCorpusTrainer t(o);
  } catch (const Error& e) {
    if (field) *field = e.field();
    return e.code();
  }
  return "";
}

}  // namespace

// The pairwise tree sum of shards lo .. hi - 1 from each shard's gradient (grads: shard k's at
// k * p) and loss, as the trainer's header defines it.
double tree_sum_of(const std::vector<double>& losses, const std::vector<double>& grads, Index p,
                   std::int64_t lo, std::int64_t hi, std::vector<double>& out) {
  if (hi - lo == 1) {
    out.assign(grads.begin() + lo * p, grads.begin() + (lo + 1) * p);
    return losses[static_cast<std::size_t>(lo)];
  }
  const std::int64_t mid = (lo + hi) / 2;
  std::vector<double> right;
  const double l = tree_sum_of(losses, grads, p, lo, mid, out);
  const double r = tree_sum_of(losses, grads, p, mid, hi, right);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += right[i];
  return l + r;
}

TEST_CASE("step() is the shards' gradients summed along the pairwise tree and one Adam step, bit for bit",
          "[text-trainer]") {
  TextCorpusTrainer whole(small_options()), parts(small_options()), halves(small_options());
  const Index p = whole.parameter_count();
  REQUIRE(whole.parameters().data() == parts.parameters().data());
  for (int s = 0; s < 3; ++s) {
    const double loss = whole.step(1);
    // shards in two calls (as two Workers would), summed here along the tree
    std::vector<double> losses(headwise::kTextShards), grads(headwise::kTextShards * p);
    parts.shard_gradients({0, 1, 2}, losses.data(), grads.data());
    parts.shard_gradients({3, 4, 5, 6, 7}, losses.data() + 3, grads.data() + 3 * p);
    std::vector<double> sum;
    const double total = tree_sum_of(losses, grads, p, 0, headwise::kTextShards, sum);
    parts.apply_gradients(sum.data(), p, total);
    CHECK(total == loss);
    CHECK(whole.parameters().data() == parts.parameters().data());
    // three subtrees (0..4 split once more, as three Workers would), combined along the tree
    std::vector<double> g01(static_cast<std::size_t>(p)), g23(g01), g47(g01);
    const double l01 = halves.shard_sum(0, 2, g01.data());
    const double l23 = halves.shard_sum(2, 4, g23.data());
    const double l47 = halves.shard_sum(4, 8, g47.data());
    for (std::size_t i = 0; i < g01.size(); ++i) g01[i] = (g01[i] + g23[i]) + g47[i];
    halves.apply_gradients(g01.data(), p, (l01 + l23) + l47);
    CHECK((l01 + l23) + l47 == loss);
    CHECK(whole.parameters().data() == halves.parameters().data());
  }
  // the root alone is step()'s sum
  std::vector<double> losses(headwise::kTextShards), grads(headwise::kTextShards * p), sum, root(static_cast<std::size_t>(p));
  parts.shard_gradients({0, 1, 2, 3, 4, 5, 6, 7}, losses.data(), grads.data());
  const double total = tree_sum_of(losses, grads, p, 0, headwise::kTextShards, sum);
  CHECK(parts.shard_sum(0, headwise::kTextShards, root.data()) == total);
  CHECK(root == sum);
  // and the tree differs from the shard-order sum somewhere in the last bits (the order matters)
  std::vector<double> ordered(grads.begin(), grads.begin() + p);
  for (Index k = 1; k < headwise::kTextShards; ++k)
    for (Index i = 0; i < p; ++i) ordered[static_cast<std::size_t>(i)] += grads[static_cast<std::size_t>(k * p + i)];
  CHECK(ordered != sum);
  CHECK(parts.steps_done() == 3);
  // A replica that computes no shard still draws the batch: it stays in step.
  TextCorpusTrainer idle(small_options());
  for (int s = 0; s < 3; ++s) {
    std::vector<double> sum(static_cast<std::size_t>(p), 0.0);
    idle.apply_gradients(sum.data(), p, 0.0);
  }
  std::vector<double> a(1), b(1), ga(static_cast<std::size_t>(p)), gb(static_cast<std::size_t>(p));
  idle.shard_gradients({5}, a.data(), ga.data());
  TextCorpusTrainer fresh(small_options());
  for (int s = 0; s < 3; ++s) {
    std::vector<double> sum(static_cast<std::size_t>(p), 0.0);
    fresh.shard_gradients({}, nullptr, nullptr);
    fresh.apply_gradients(sum.data(), p, 0.0);
  }
  fresh.shard_gradients({5}, b.data(), gb.data());
  CHECK(a == b);
  CHECK(ga == gb);
}

TEST_CASE("The shards' tree: the root, its halves, down to each shard", "[text-trainer]") {
  std::vector<std::pair<std::int64_t, std::int64_t>> nodes;
  for (std::int64_t lo = -1; lo <= 9; ++lo)
    for (std::int64_t hi = -1; hi <= 9; ++hi)
      if (headwise::is_shard_node(lo, hi)) nodes.emplace_back(lo, hi);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {
      {0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 2}, {2, 3}, {2, 4}, {3, 4}, {4, 5}, {4, 6}, {4, 8}, {5, 6}, {6, 7}, {6, 8}, {7, 8}};
  CHECK(nodes == expected);
  // an odd count splits at the floor: 0..5 -> 0..2 + 2..5 -> 2..3 + 3..5
  CHECK(headwise::is_shard_node(2, 5, 5));
  CHECK(headwise::is_shard_node(3, 5, 5));
  CHECK_FALSE(headwise::is_shard_node(0, 3, 5));
}

TEST_CASE("The shards' losses sum to the batch's mean loss", "[text-trainer]") {
  TextCorpusTrainer t(small_options());
  const Index p = t.parameter_count();
  std::vector<double> losses(headwise::kTextShards), grads(headwise::kTextShards * p);
  t.shard_gradients({0, 1, 2, 3, 4, 5, 6, 7}, losses.data(), grads.data());
  double total = 0.0;
  for (double l : losses) total += l;
  CHECK(std::all_of(losses.begin(), losses.end(), [](double l) { return l > 0.0; }));
  // the same shard again: the same bits; another shard (other windows): other numbers
  std::vector<double> again(1), g(static_cast<std::size_t>(p));
  t.shard_gradients({3}, again.data(), g.data());
  CHECK(again[0] == losses[3]);
  CHECK(std::equal(g.begin(), g.end(), grads.begin() + 3 * p));
  CHECK(losses[3] != losses[4]);
  std::vector<double> tree;
  CHECK(std::abs(tree_sum_of(losses, grads, p, 0, headwise::kTextShards, tree) - total) < 1e-12);
  CHECK(tree_sum_of(losses, grads, p, 0, headwise::kTextShards, tree) == t.step(1));
}

TEST_CASE("The split, the vocabulary and the baselines are a direct count's", "[text-trainer]") {
  const TextTrainerOptions o = small_options();
  const TextCorpusTrainer t(o);
  const std::vector<std::string> words = headwise::tokenize_words(o.text);
  const auto n = static_cast<std::int64_t>(words.size());
  const auto held = static_cast<std::int64_t>(std::floor(static_cast<double>(n) * 0.1));
  CHECK(t.corpus().words == n);
  CHECK(t.corpus().held_out_words == held);
  CHECK(t.corpus().training_words == n - held);
  // the vocabulary: training words seen at least twice
  std::map<std::string, int> count;
  for (std::int64_t i = 0; i < n - held; ++i) ++count[words[static_cast<std::size_t>(i)]];
  std::size_t twice = 0;
  for (const auto& c : count) twice += c.second >= 2;
  CHECK(t.vocabulary().size() == static_cast<std::int64_t>(twice) + 1);
  for (const auto& c : count) CHECK((t.vocabulary().id(c.first) != 0) == (c.second >= 2));
  // the baselines, counted here word by word
  std::vector<std::string> train(words.begin(), words.begin() + (n - held)), test(words.begin() + (n - held), words.end());
  const auto id = [&](const std::string& w) { return t.vocabulary().id(w); };
  const double v = static_cast<double>(t.vocabulary().size());
  std::map<std::int64_t, double> uni, row;
  std::map<std::pair<std::int64_t, std::int64_t>, double> pair;
  for (std::size_t i = 0; i < train.size(); ++i) {
    uni[id(train[i])] += 1;
    if (i + 1 < train.size()) {
      row[id(train[i])] += 1;
      pair[{id(train[i]), id(train[i + 1])}] += 1;
    }
  }
  double u = 0.0, b = 0.0;
  for (std::size_t i = 0; i + 1 < test.size(); ++i) {
    const std::int64_t x = id(test[i]), y = id(test[i + 1]);
    u -= std::log((uni[y] + 1.0) / (static_cast<double>(train.size()) + v));
    b -= std::log((pair[{x, y}] + 0.03) / (row[x] + 0.03 * v));
  }
  const double m = static_cast<double>(test.size() - 1);
  CHECK(t.baselines().unigram == Approx(u / m).epsilon(1e-12));
  CHECK(t.baselines().bigram == Approx(b / m).epsilon(1e-12));
}

TEST_CASE("Every bad input is refused with its code and field", "[text-trainer]") {
  TextTrainerOptions o = small_options();
  std::string field;
  o.text = "";
  CHECK(code_of(o, &field) == "tooFewWords");
  CHECK(field == "text");
  o.text = "the people of the union";
  CHECK(code_of(o) == "tooFewWords");
  try {
    TextCorpusTrainer t(o);
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("at least 200") != std::string::npos);
  }
  o.text = "";
  for (int i = 0; i < 300; ++i) o.text += "\xE4\xB8\xAD ";  // 中
  CHECK(code_of(o) == "noEnglishWords");
  o.text.clear();
  for (int i = 0; i < 300; ++i) o.text += "w" + std::to_string(i) + "x ";  // no word twice
  CHECK(code_of(o) == "tooFewDistinct");
  const TextTrainerOptions good = small_options();
  o = good;
  o.held_out = 0.9;
  CHECK(code_of(o, &field) == "range");
  CHECK(field == "heldOut");
  o = good;
  o.held_out = std::nan("");
  CHECK(code_of(o) == "range");
  for (auto set : std::vector<std::pair<const char*, void (*)(TextTrainerOptions&)>>{
           {"vocab", [](TextTrainerOptions& x) { x.vocab = 5; }},
           {"batch", [](TextTrainerOptions& x) { x.batch = 4; }},
           {"steps", [](TextTrainerOptions& x) { x.steps = 0; }},
           {"seed", [](TextTrainerOptions& x) { x.seed = -1; }},
           {"context", [](TextTrainerOptions& x) { x.context = 4; }},
           {"layers", [](TextTrainerOptions& x) { x.layers = 9; }},
           {"numHeads", [](TextTrainerOptions& x) { x.num_heads = 9; }}}) {
    o = good;
    set.second(o);
    const std::string code = code_of(o, &field);
    CHECK((code == "range" || code == "divisible"));
    CHECK(field == set.first);
  }
  // a warm start of other sizes, and sizes taken from it when not given
  o = good;
  o.warm_start = warm_up_model();
  CHECK(code_of(o, &field) == "warmStartSize");
  CHECK(field == "layers");
  o.layers = o.num_heads = o.d_model = o.context = std::nullopt;
  const TextCorpusTrainer warm(o);
  CHECK(warm.config().layers == 2);
  CHECK(warm.config().seq_len == 32);
  // shards and the sum
  TextCorpusTrainer t(good);
  std::vector<double> l(2), g(static_cast<std::size_t>(2 * t.parameter_count()));
  CHECK_THROWS_MATCHES(t.shard_gradients({8}, l.data(), g.data()), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.code() == "range" && e.field() == "shards"; }));
  CHECK_THROWS_MATCHES(t.shard_gradients({1, 1}, l.data(), g.data()), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.code() == "duplicate"; }));
  for (const auto& range : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 3}, {1, 3}, {2, 6}, {0, 0}, {-1, 0}, {4, 9}, {8, 9}, {0, 16}}) {
    CHECK_THROWS_MATCHES(t.shard_sum(range.first, range.second, g.data()), Error,
                         Catch::Predicate<Error>([](const Error& e) { return e.code() == "shardNode" && e.field() == "shards"; }));
  }
  CHECK_THROWS_MATCHES(t.apply_gradients(g.data(), 3, 0.0), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.code() == "length" && e.field() == "sum"; }));
  CHECK(t.steps_done() == 0);
}

TEST_CASE("The warm start gives the model its layers; save() holds the float16 weights", "[text-trainer]") {
  TextTrainerOptions o = small_options();
  o.layers = o.num_heads = o.d_model = o.context = std::nullopt;
  o.warm_start = warm_up_model();
  TextCorpusTrainer t(o);
  for (std::size_t i = headwise::kPositionEmbedding; i < headwise::readout_tensor(2); ++i)
    CHECK(Matrix(t.parameters()[i]) == Matrix(o.warm_start->params[i]));
  t.step(2);
  const std::string bytes = t.save();
  const TextModelFile back = headwise::read_text_weights(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  for (Index i = 0; i < back.params.data().size(); ++i)
    CHECK(back.params.data()[i] == headwise::from_float16(headwise::to_float16(t.parameters().data()[i])));
  CHECK(back.vocabulary.words() == t.vocabulary().words());
  CHECK(back.metadata.find("\"stepsDone\":2") != std::string::npos);
  CHECK(bytes == t.save());
}

TEST_CASE("The warm-up file's first losses are phase 1's", "[text-trainer]") {
  const TextModelFile m = warm_up_model();
  std::vector<double> losses;
  headwise::text_warm_up(headwise::text_recipe(), 4, losses);
  std::string list = "[";
  for (std::size_t i = 0; i < losses.size(); ++i) list += (i ? "," : "") + headwise::json_number(losses[i]);
  CHECK(m.metadata.find("\"firstLosses\":" + list + "]") != std::string::npos);
}

// Phase 1 in full (about 2 minutes natively): `build/native/headwise_tests "[long]"`.
TEST_CASE("train_text's warm-up reproduces web/models/warmup.hwtm bit for bit", "[.][long]") {
  const headwise::TextRecipe& r = headwise::text_recipe();
  std::vector<double> losses;
  const headwise::TextTrainer warm = headwise::text_warm_up(r, r.synth_steps, losses);
  CHECK(headwise::text_warm_up_file(r, warm, losses) == read_bytes(kRoot + "/web/models/warmup.hwtm"));
}

TEST_CASE("Training steps agree with PyTorch float64 from the same text, draws and start",
          "[text-trainer]") {
  for (const headwise::test::Json& c : headwise::test::load_fixture("text_trainer.json")["cases"]) {
    INFO(c["name"].get<std::string>());
    const headwise::test::Json& o = c["options"];
    TextTrainerOptions opt;
    opt.text = c["text"].get<std::string>();
    opt.vocab = o["vocab"];
    opt.layers = o["layers"].get<std::int64_t>();
    opt.num_heads = o["numHeads"].get<std::int64_t>();
    opt.d_model = o["dModel"].get<std::int64_t>();
    opt.context = o["context"].get<std::int64_t>();
    opt.seed = o["seed"];
    opt.held_out = o["heldOut"];
    opt.steps = o["steps"].get<std::int64_t>();
    opt.batch = o["batch"];
    if (o["warmStart"].get<bool>()) opt.warm_start = warm_up_model();
    TextCorpusTrainer t(opt);
    CHECK(t.corpus().words == c["corpus"]["words"].get<std::int64_t>());
    CHECK(t.corpus().training_words == c["corpus"]["trainingWords"].get<std::int64_t>());
    CHECK(t.corpus().vocab == c["corpus"]["vocab"].get<std::int64_t>());
    CHECK(t.corpus().unknown_held_out == Approx(c["corpus"]["unknownShare"]["heldOut"].get<double>()).epsilon(1e-14));
    CHECK(headwise::test::expect_near(t.baselines().unigram, c["baselines"]["unigram"].get<double>(), 1e-12, "unigram"));
    CHECK(headwise::test::expect_near(t.baselines().bigram, c["baselines"]["bigram"].get<double>(), 1e-12, "bigram"));
    REQUIRE(t.parameter_count() == c["parameterCount"].get<Index>());
    for (const headwise::test::Json& loss : c["losses"]) {
      CHECK(headwise::test::expect_near(t.step(1), loss.get<double>(), 1e-10, "loss"));
    }
    const auto stride = c["stride"].get<Index>();
    const std::vector<double> expected = c["parameters"];
    headwise::Vector got(static_cast<Index>(expected.size()));
    for (Index i = 0; i < got.size(); ++i) got[i] = t.parameters().data()[i * stride];
    const headwise::Vector want = Eigen::Map<const headwise::Vector>(expected.data(), got.size());
    CHECK(headwise::test::expect_near(got, want, 1e-10, "parameters"));
  }
}
