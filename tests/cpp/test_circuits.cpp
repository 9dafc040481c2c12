// Each head's circuits (cpp/headwise/circuits.hpp) against NumPy float64
// (tests/fixtures/make_circuit_fixtures.py): the lesson's seed-7 heads, the shipped text model
// and two trainers after a few Adam steps; their properties (sum_h W_OV = Wv Wo, rank <= d_head,
// attributions that add up to the model's logit, the tie rule, the degenerate cases); every
// error; and the induction circuit read from the weights of six freshly trained seeds.
#include <Eigen/LU>
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/circuits.hpp"
#include "headwise/gemm.hpp"
#include "headwise/text_model.hpp"
#include "headwise/train_tasks.hpp"

using headwise::Index;
using headwise::IntMatrix;
using headwise::Matrix;
using headwise::ModelCircuits;
using headwise::ModelParams;
using headwise::TextModelFile;
using headwise::Trainer;
using headwise::TrainerConfig;
using headwise::test::expect_near;
using headwise::test::fixture_cases;
using headwise::test::Json;
using headwise::test::message_of;
using headwise::test::to_matrices;
using headwise::test::to_matrix;
using headwise::test::to_params;
using headwise::test::to_trainer_options;

namespace {

// Relative tolerance of every product-based measure; eigenvalue-based scores: absolute.
constexpr double kRelTol = 1e-9;
constexpr double kEigenTol = 1e-6;

// |actual - expected| <= kRelTol * max(1, max |expected|), element by element.
bool near_rel(const Matrix& actual, const Matrix& expected, const std::string& what) {
  const double scale = std::max(1.0, expected.size() ? expected.cwiseAbs().maxCoeff() : 0.0);
  return expect_near(actual, expected, kRelTol * scale, what);
}

const Json& case_of(const std::string& kind, int which = 0) {
  for (const Json& c : fixture_cases("circuits.json")) {
    if (c.at("kind") == kind && which-- == 0) return c;
  }
  throw std::runtime_error("circuits.json has no case " + kind);
}

const TextModelFile& shipped() {
  static const TextModelFile model = [] {
    const std::string bytes = headwise::test::read_bytes(std::string(HEADWISE_SOURCE_DIR) + "/web/models/sotu.hwtm");
    return headwise::read_text_weights(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                       bytes.size());
  }();
  return model;
}

// [l][h] of numbers -> (layers, heads)
Matrix by_head(const Json& j) { return to_matrix(j); }

// [l][h][m][g] (m < l) -> (layers * heads, layers * heads) as ModelCircuits holds it.
Matrix composition_table(const Json& j, Index heads) {
  const Index layers = static_cast<Index>(j.size()), all = layers * heads;
  Matrix out = Matrix::Zero(all, all);
  for (Index l = 0; l < layers; ++l)
    for (Index h = 0; h < heads; ++h)
      for (Index m = 0; m < l; ++m)
        for (Index g = 0; g < heads; ++g)
          out(l * heads + h, m * heads + g) = j[l][h][m][g].get<double>();
  return out;
}

// Every measure of c against the fixture case e (which holds qk and ov in full when full).
void compare_circuits(const ModelCircuits& c, const Json& e, bool full) {
  const Index heads = c.num_heads;
  for (Index k = 0; k < c.layers * heads; ++k) {
    const std::string head =
        "[" + std::to_string(k / heads) + "][" + std::to_string(k % heads) + "]";
    if (full) {
      near_rel(c.qk[k], to_matrix(e.at("qk")[k / heads][k % heads]), "qk" + head);
      near_rel(c.ov[k], to_matrix(e.at("ov")[k / heads][k % heads]), "ov" + head);
    } else {
      expect_near(c.qk[k].norm(), e.at("qkNorm")[k / heads][k % heads].get<double>(),
                  kRelTol * c.qk[k].norm(), "|qk|" + head);
      expect_near(c.ov[k].norm(), e.at("ovNorm")[k / heads][k % heads].get<double>(),
                  kRelTol * c.ov[k].norm(), "|ov|" + head);
      near_rel(c.qk[k].row(0), to_matrix(Json::array({e.at("qkRow0")[k / heads][k % heads]})),
               "qk" + head + "[0]");
      near_rel(c.ov[k].row(0), to_matrix(Json::array({e.at("ovRow0")[k / heads][k % heads]})),
               "ov" + head + "[0]");
    }
    const Json& copying = e.at("copying")[k / heads][k % heads];
    for (Index r = 0; r < c.relations; ++r) {
      const double expected = copying.is_array() ? copying[r].get<double>() : copying.get<double>();
      expect_near(c.copying(k, r), expected, kEigenTol,
                  "copying" + head + "[" + std::to_string(r) + "]");
    }
  }
  expect_near(c.previous_position, by_head(e.at("previousPosition")), 0.0, "previousPosition");
  near_rel(c.composition_q, composition_table(e.at("composition").at("q"), heads), "composition q");
  near_rel(c.composition_k, composition_table(e.at("composition").at("k"), heads), "composition k");
  near_rel(c.composition_v, composition_table(e.at("composition").at("v"), heads), "composition v");
}

IntMatrix row_of(const Json& ids) {
  IntMatrix m(1, static_cast<Index>(ids.size()));
  for (Index i = 0; i < m.cols(); ++i) m(0, i) = ids[i].get<std::int64_t>();
  return m;
}

}  // namespace

TEST_CASE("The lesson's seed-7 heads: W_QK and W_OV as NumPy makes them, sum_h W_OV = Wv Wo",
          "[circuits]") {
  for (int which = 0; which < 2; ++which) {
    const Json& e = case_of("lesson", which);
    const std::int64_t heads = e.at("numHeads").get<std::int64_t>();
    INFO("numHeads " << heads);
    const Matrix wq = to_matrix(e.at("wq")), wk = to_matrix(e.at("wk")), wv = to_matrix(e.at("wv")),
                 wo = to_matrix(e.at("wo"));
    const headwise::HeadCircuits c = headwise::head_circuits(wq, wk, wv, wo, heads);
    REQUIRE(c.qk.size() == static_cast<std::size_t>(heads));
    const std::vector<Matrix> qk = to_matrices(e.at("qk")), ov = to_matrices(e.at("ov"));
    Matrix sum = Matrix::Zero(8, 8);
    for (std::size_t h = 0; h < c.qk.size(); ++h) {
      near_rel(c.qk[h], qk[h], "qk[" + std::to_string(h) + "]");
      near_rel(c.ov[h], ov[h], "ov[" + std::to_string(h) + "]");
      // rank d_head: random weights give exactly d_head, never more
      CHECK(Eigen::FullPivLU<Eigen::MatrixXd>(c.qk[h]).rank() == 8 / heads);
      CHECK(Eigen::FullPivLU<Eigen::MatrixXd>(c.ov[h]).rank() == 8 / heads);
      // the module's own rank is np.linalg.matrix_rank's
      CHECK(c.qk_rank[h] == e.at("qkRank").at(h).get<std::int64_t>());
      CHECK(c.ov_rank[h] == e.at("ovRank").at(h).get<std::int64_t>());
      sum += c.ov[h];
    }
    near_rel(sum, to_matrix(e.at("wvWo")), "sum_h W_OV");
    near_rel(sum, headwise::matmul(wv, wo), "sum_h W_OV against Wv Wo");
    CHECK(c.ov_sum_error == (sum - headwise::matmul(wv, wo)).cwiseAbs().maxCoeff());
    CHECK(c.ov_sum_error < 1e-12);
  }
}

TEST_CASE("The shipped text model's circuits are NumPy's", "[circuits][text]") {
  const TextModelFile& m = shipped();
  const Json& e = case_of("text");
  const ModelCircuits c = headwise::model_circuits(m.config, m.params);
  REQUIRE(c.relations == 1);
  compare_circuits(c, e, false);
  // sum_h W_OV = Wv Wo in every layer
  for (Index l = 0; l < c.layers; ++l) {
    Matrix sum = Matrix::Zero(m.config.d_model, m.config.d_model);
    for (Index h = 0; h < c.num_heads; ++h) sum += c.ov[l * c.num_heads + h];
    near_rel(sum, headwise::matmul(m.params.wv(l), m.params.wo(l)),
             "sum_h W_OV, layer " + std::to_string(l));
  }
  std::printf(
      "text model: copying of layer 2 head 0 %.4f, previous position of layer 1 head 0 "
      "%.4f, K-composition of layer 2 head 0 with layer 1's heads %.3f %.3f %.3f %.3f\n",
      c.copying(4, 0), c.previous_position(0, 0), c.composition_k(4, 0), c.composition_k(4, 1),
      c.composition_k(4, 2), c.composition_k(4, 3));
}

TEST_CASE("The shipped text model's promoted words and self-promotion are NumPy's",
          "[circuits][text]") {
  const TextModelFile& m = shipped();
  const Json& e = case_of("text");
  for (const Json& p : e.at("promoted")) {
    const headwise::PromotedWords w = headwise::promoted_words(
        m.config, m.params, p.at("layer").get<std::int64_t>(), p.at("head").get<std::int64_t>(),
        p.at("id").get<std::int64_t>(), 5);
    INFO("layer " << p.at("layer") << " head " << p.at("head") << " word " << p.at("word"));
    CHECK(w.ids == p.at("ids").get<std::vector<std::int64_t>>());
    for (std::size_t j = 0; j < w.values.size(); ++j) {
      expect_near(w.values[j], p.at("values")[j].get<double>(), kRelTol * std::abs(w.values[j]),
                  "value " + std::to_string(j));
    }
  }
  // how often each head's most promoted word (and top five) is the source word itself
  const Json& self = e.at("selfPromotion");
  const std::int64_t words = self.at("words").get<std::int64_t>();
  for (std::int64_t l = 0; l < m.config.layers; ++l) {
    for (std::int64_t h = 0; h < m.config.num_heads; ++h) {
      std::int64_t top1 = 0, top5 = 0;
      for (std::int64_t w = 1; w <= words; ++w) {
        const auto ids = headwise::promoted_words(m.config, m.params, l, h, w, 5).ids;
        top1 += ids[0] == w;
        top5 += std::find(ids.begin(), ids.end(), w) != ids.end();
      }
      INFO("layer " << l << " head " << h);
      CHECK(top1 == self.at("top1")[l][h].get<std::int64_t>());
      CHECK(top5 == self.at("top5")[l][h].get<std::int64_t>());
    }
  }
}

TEST_CASE("Attribution: the direct path and each head add up to the model's own logit",
          "[circuits][text]") {
  const TextModelFile& m = shipped();
  for (const Json& a : case_of("text").at("attributions")) {
    INFO(a.at("text").get<std::string>() << " at " << a.at("position"));
    const IntMatrix ids = row_of(a.at("ids"));
    std::optional<std::int64_t> word;
    if (!a.at("wordGiven").is_null()) word = a.at("word").get<std::int64_t>();
    const headwise::Attribution r =
        headwise::attribute(m.config, m.params, ids, a.at("position").get<std::int64_t>(), word);
    CHECK(r.word == a.at("word").get<std::int64_t>());
    const double scale = std::max(1.0, std::abs(r.logit));
    expect_near(r.logit, a.at("logit").get<double>(), kRelTol * scale, "logit");
    expect_near(r.probability, a.at("probability").get<double>(), kRelTol, "probability");
    expect_near(r.direct, a.at("direct").get<double>(), kRelTol * scale, "direct");
    near_rel(r.heads, to_matrix(a.at("heads")), "heads");
    // the paths add up to the logit of the model's forward (run_text_model's probabilities agree)
    CHECK(std::abs(r.direct + r.heads.sum() - r.logit) <= 1e-12 * scale);
    const headwise::TextRun run = headwise::run_text_model(
        m.config, m.params, ids, headwise::HeadMask(static_cast<std::size_t>(8), false));
    expect_near(r.probability, run.probs(r.position, r.word), 1e-12, "probability of the run");
    std::printf(
        "attribution of \"%s\" at %lld: logit %.4f = direct %.4f + heads (layer 1) %.4f "
        "%.4f %.4f %.4f (layer 2) %.4f %.4f %.4f %.4f; paths - logit %.1e\n",
        m.vocabulary.word(r.word).c_str(), static_cast<long long>(r.position), r.logit, r.direct,
        r.heads(0, 0), r.heads(0, 1), r.heads(0, 2), r.heads(0, 3), r.heads(1, 0), r.heads(1, 1),
        r.heads(1, 2), r.heads(1, 3), r.direct + r.heads.sum() - r.logit);
  }
}

TEST_CASE("Two trainers after a few Adam steps: their circuits are NumPy's", "[circuits][train]") {
  for (int which = 0; which < 2; ++which) {
    const Json& e = case_of("trainer", which);
    Trainer t(to_trainer_options(e.at("config")));
    INFO(e.at("config").dump());
    t.step(e.at("steps").get<std::int64_t>());
    const ModelParams expected = to_params(t.config(), e.at("parameters"));
    // the native run reaches PyTorch's parameters (as the trajectory fixtures check) ...
    for (std::size_t k = 0; k < expected.count(); ++k) {
      expect_near(Matrix(t.parameters()[k]), Matrix(expected[k]), 1e-9,
                  t.parameters().table()[k].name);
    }
    // ... and the measures of those parameters are NumPy's
    t.set_parameters(expected);
    const ModelCircuits c = headwise::model_circuits(t.config(), t.parameters());
    CHECK(c.relations == t.config().num_relations);
    compare_circuits(c, e, true);
    // attribution with R read-outs: every relation's logit adds up
    const IntMatrix ids = t.eval_tokens().topRows(1);
    headwise::Activations acts;
    headwise::model_forward(
        t.config(), t.parameters(), ids,
        headwise::HeadMask(static_cast<std::size_t>(c.layers * c.num_heads), false), acts);
    for (std::int64_t r = 0; r < c.relations; ++r) {
      const headwise::Attribution a = headwise::attribute(t.config(), t.parameters(), ids, 3, 2, r);
      CHECK(a.logit == acts.logits(3, r * t.config().vocab + 2));
      CHECK(std::abs(a.direct + a.heads.sum() - a.logit) <=
            1e-12 * std::max(1.0, std::abs(a.logit)));
    }
  }
}

TEST_CASE("matrix_rank counts singular values above NumPy's tolerance", "[circuits]") {
  CHECK(headwise::matrix_rank(Matrix::Identity(5, 5)) == 5);
  CHECK(headwise::matrix_rank(Matrix::Zero(4, 4)) == 0);
  CHECK(headwise::matrix_rank(Matrix(0, 0)) == 0);
  // an outer product is rank 1; a rank-1 matrix plus 1e-20 noise stays rank 1 (below tol)
  Matrix a(3, 1), b(1, 3);
  a << 1.0, 2.0, 3.0;
  b << 4.0, -5.0, 6.0;
  Matrix outer = a * b;
  CHECK(headwise::matrix_rank(outer) == 1);
  outer(2, 2) += 1e-20;
  CHECK(headwise::matrix_rank(outer) == 1);
  // a change above the tolerance is counted: diag(1, 1e-10) has rank 2
  Matrix small = Matrix::Zero(2, 2);
  small(0, 0) = 1.0;
  small(1, 1) = 1e-10;
  CHECK(headwise::matrix_rank(small) == 2);
}

TEST_CASE("Circuit measures on hand-made matrices: copying's sign and degenerate case, the tie rule",
          "[circuits]") {
  const Index d = 4;
  const Matrix e = Matrix::Identity(d, d), u = Matrix::Identity(d, d);
  CHECK(headwise::copying_score(Matrix::Identity(d, d), u, e) == 1.0);
  CHECK(headwise::copying_score(-2.0 * Matrix::Identity(d, d), u, e) == -1.0);
  CHECK(headwise::copying_score(Matrix::Zero(d, d), u, e) == 0.0);  // every eigenvalue 0
  // a rotation by 90 degrees in a plane: eigenvalues +-i, sum 0, so it copies nothing
  Matrix rotation = Matrix::Zero(d, d);
  rotation(0, 1) = 1.0;
  rotation(1, 0) = -1.0;
  CHECK(std::abs(headwise::copying_score(rotation, u, e)) < 1e-15);
  // diag(3, -1, 0, 0): (3 - 1) / (3 + 1)
  Matrix diag = Matrix::Zero(d, d);
  diag(0, 0) = 3.0;
  diag(1, 1) = -1.0;
  CHECK(headwise::copying_score(diag, u, e) == Approx(0.5).epsilon(1e-15));

  // positions as one-hot rows: P W_QK P^T = W_QK itself
  const Matrix p = Matrix::Identity(d, d);
  Matrix previous = Matrix::Zero(d, d);
  for (Index i = 1; i < d; ++i) previous(i, i - 1) = 1.0;
  CHECK(headwise::previous_position_score(previous, p) == 1.0);
  CHECK(headwise::previous_position_score(Matrix::Identity(d, d), p) == 0.0);
  // a tie with another position is not a win: query 2 ties j = 0 with j = 1
  Matrix tie = previous;
  tie(2, 0) = 1.0;
  CHECK(headwise::previous_position_score(tie, p) == Approx(2.0 / 3.0));
  // composition with a head that writes nothing is 0, not NaN
  const headwise::Composition none =
      headwise::composition(previous, Matrix::Identity(d, d), Matrix::Zero(d, d));
  CHECK(none.q == 0.0);
  CHECK(none.k == 0.0);
  CHECK(none.v == 0.0);
  // composition with itself through the identity: |A A^T| / |A|^2 etc.
  const headwise::Composition self =
      headwise::composition(Matrix::Identity(d, d), Matrix::Identity(d, d), Matrix::Identity(d, d));
  CHECK(self.k == Approx(0.5));  // |I| / (|I| |I|) = 2 / 4
  CHECK(self.q == Approx(0.5));
  CHECK(self.v == Approx(0.5));
}

TEST_CASE("Circuit errors name the value and what is allowed", "[circuits][errors]") {
  const Matrix w = Matrix::Identity(8, 8);
  CHECK(message_of([&] { headwise::head_circuits(w, w, w, w, 3); }) ==
        "d_model (8) must be divisible by num_heads (3)");
  CHECK(message_of([&] { headwise::head_circuits(w, Matrix::Identity(4, 4), w, w, 2); }) ==
        "wk has shape (4, 4) but must be (8, 8)");
  Matrix bad = w;
  bad(1, 2) = std::nan("");
  CHECK(message_of([&] { headwise::head_circuits(w, w, bad, w, 2); }) ==
        "wv contains a non-finite value (nan) at [1, 2]; all values must be finite");
  CHECK(message_of([&] { headwise::head_circuits(Matrix(0, 0), w, w, w, 2); }) ==
        "wq has shape (0, 0); it must have at least one row and one column");
  CHECK(message_of([&] { headwise::previous_position_score(w, Matrix::Identity(1, 8)); }) ==
        "previous-position score: the position embedding has shape (1, 8); it needs at least 2 "
        "positions");

  const TextModelFile& m = shipped();
  const TrainerConfig& c = m.config;
  IntMatrix ids(1, 3);
  ids << 5, 6, 7;
  CHECK(message_of([&] { headwise::attribute(c, m.params, ids, 3, std::nullopt); }) ==
        "position (3) must be between 0 and 2");
  CHECK(message_of([&] { headwise::attribute(c, m.params, ids, -1, std::nullopt); }) ==
        "position (-1) must be between 0 and 2");
  CHECK(message_of([&] { headwise::attribute(c, m.params, ids, 0, 2001); }) ==
        "word (2001) must be between 0 and 2000");
  CHECK(message_of([&] { headwise::attribute(c, m.params, ids, 0, 1, 1); }) ==
        "relation (1) must be between 0 and 0");
  IntMatrix bad_ids = ids;
  bad_ids(0, 1) = 2001;
  CHECK(message_of([&] { headwise::attribute(c, m.params, bad_ids, 0, std::nullopt); }) ==
        "ids[1] (2001) must be a word id between 0 and 2000");
  CHECK(message_of([&] {
          headwise::attribute(c, m.params, IntMatrix::Zero(1, 33), 0, std::nullopt);
        }) == "ids: one sequence of 1 to 32 words; got 33");
  CHECK(message_of([&] {
          headwise::attribute(c, m.params, IntMatrix::Zero(2, 3), 0, std::nullopt);
        }) == "ids: one sequence of 1 to 32 words; got 3");
  CHECK(message_of([&] { headwise::promoted_words(c, m.params, 2, 0, 1, 5); }) ==
        "layer (2) must be between 0 and 1");
  CHECK(message_of([&] { headwise::promoted_words(c, m.params, 0, 4, 1, 5); }) ==
        "head (4) must be between 0 and 3");
  CHECK(message_of([&] { headwise::promoted_words(c, m.params, 0, 0, -1, 5); }) ==
        "word (-1) must be between 0 and 2000");
  CHECK(message_of([&] { headwise::promoted_words(c, m.params, 0, 0, 1, 0); }) ==
        "k (0) must be between 1 and 2001");
  CHECK(message_of([&] { headwise::promoted_words(c, m.params, 0, 0, 1, 5, 1); }) ==
        "relation (1) must be between 0 and 0");
  // the likeliest guess at the last position: the largest logit
  const headwise::Attribution last = headwise::attribute(c, m.params, ids, 2, std::nullopt);
  const headwise::TextRun run =
      headwise::run_text_model(c, m.params, ids, headwise::HeadMask(8, false));
  Index best = 0;
  run.probs.row(2).maxCoeff(&best);
  CHECK(last.word == best);
}

// Whether this build runs under AddressSanitizer (the `asan` preset): GCC defines
// __SANITIZE_ADDRESS__, Clang answers __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define HEADWISE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEADWISE_SANITIZED 1
#endif
#endif
#ifndef HEADWISE_SANITIZED
#define HEADWISE_SANITIZED 0
#endif

// The seed test: on seeds no other test or sweep trains (cpp/TRAINING.md's sweep uses
// 0-19), at the induction experiment's defaults, the formed induction head (layer 2's head of
// the highest induction score) copies and reads the previous-token head through its keys.
// The native build trains all six seeds (about 13 s) and asks for 5 of 6. Under the sanitizers
// a seed takes 15 times as long (the six about 200 s), so that build trains seed 60 alone, which
// passes natively, and asks for it: the same code under the sanitizers' eyes, not the 5-of-6
// verdict, which the native run keeps.
TEST_CASE("On six new seeds the induction head copies and K-composes with the previous-token head",
          "[circuits][induction][seeds]") {
  const std::vector<std::int64_t> seeds =
      HEADWISE_SANITIZED ? std::vector<std::int64_t>{60}
                         : std::vector<std::int64_t>{60, 61, 62, 63, 64, 65};
  const std::size_t required = HEADWISE_SANITIZED ? 1 : 5;
  const headwise::InductionDefaults& d = headwise::induction_defaults();
  const auto start = std::chrono::steady_clock::now();
  int passed = 0;
  for (const std::int64_t seed : seeds) {
    headwise::TrainerOptions o;
    o.task = "induction";
    o.layers = d.settings.layers;
    o.num_heads = d.settings.num_heads;
    o.d_model = d.settings.d_model;
    o.seed = seed;
    Trainer t(o);
    t.step(d.settings.steps);
    const headwise::EvalResult ev = t.evaluate_heads({});
    const ModelCircuits c = headwise::model_circuits(t.config(), t.parameters());
    const Index heads = c.num_heads, last = c.layers - 1;
    Index induction = 0, previous = 0, read = 0;
    ev.induction_score.row(last).maxCoeff(&induction);
    ev.previous_token_score.row(0).maxCoeff(&previous);
    const Index k = last * heads + induction;
    c.composition_k.row(k).segment((last - 1) * heads, heads).maxCoeff(&read);
    const double copying = c.copying(k, 0);
    const bool ok = copying >= 0.9 && read == previous;
    passed += ok ? 1 : 0;
    std::printf(
        "seed %lld: repeat accuracy %.3f; induction head L%lld h%lld (score %.3f) copying "
        "%.3f; previous-token head L1 h%lld (score %.3f); K-composition with layer 1:",
        static_cast<long long>(seed), ev.repeat_accuracy, static_cast<long long>(last + 1),
        static_cast<long long>(induction), ev.induction_score(last, induction), copying,
        static_cast<long long>(previous), ev.previous_token_score(0, previous));
    for (Index g = 0; g < heads; ++g)
      std::printf(" %.3f", c.composition_k(k, (last - 1) * heads + g));
    std::printf(" -> %s\n", ok ? "yes" : "no");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("induction circuit read from the weights in %d of %zu seeds (%.1f s)\n", passed,
              seeds.size(), seconds);
  CHECK(static_cast<std::size_t>(passed) >= required);
}
