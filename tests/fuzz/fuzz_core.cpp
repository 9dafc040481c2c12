// libFuzzer target: drives the core with arbitrary shapes, values and masks.
//
// Every call either succeeds with results that keep the core's invariants, or throws
// std::invalid_argument. Anything else (a crash, a sanitizer report, another exception type,
// a broken invariant) is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "headwise/circuits.hpp"
#include "headwise/headwise.hpp"
#include "headwise/text_model.hpp"

namespace {

using headwise::Index;
using headwise::Matrix;
using headwise::Vector;

// Reads bytes from the fuzzer's input, yielding zeros once it runs out.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::int64_t small(int lo, int hi) {  // lo..hi inclusive, from one byte
    return lo + static_cast<std::int64_t>(byte()) % (hi - lo + 1);
  }
  double value() {
    const std::uint8_t kind = byte();
    if (kind < 8) {  // special values: NaN, +-inf, huge, tiny, zero
      const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 1e300, -1e300, 1e-300, 0.0, -0.0};
      return specials[kind];
    }
    double d = 0.0;
    std::uint8_t raw[8];
    for (auto& b : raw) b = byte();
    std::memcpy(&d, raw, sizeof d);
    if (!std::isfinite(d)) return static_cast<double>(static_cast<std::int8_t>(raw[0])) / 16.0;
    return kind < 128 ? static_cast<double>(static_cast<std::int8_t>(raw[1])) / 8.0 : d;
  }
  Matrix matrix(Index rows, Index cols) {
    Matrix m(rows, cols);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = value();
    return m;
  }
  Vector vector(Index n) {
    Vector v(n);
    for (Index i = 0; i < n; ++i) v[i] = value();
    return v;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// Every weight row is a distribution: sums to 1, entries in [0, 1] (or the whole row is NaN).
void check_weights(const Matrix& w) {
  for (Index i = 0; i < w.rows(); ++i) {
    if (std::isnan(w(i, 0))) continue;
    double sum = 0.0;
    for (Index j = 0; j < w.cols(); ++j) {
      if (!(w(i, j) >= 0.0 && w(i, j) <= 1.0)) std::abort();
      sum += w(i, j);
    }
    if (std::abs(sum - 1.0) > 1e-9) std::abort();
  }
}

void run(Input& in) {
  switch (in.byte() % 6) {
    case 0: {  // the lesson's seed experiment, any sizes (invalid ones must be refused)
      headwise::SeedExperimentConfig c;
      c.seed = static_cast<std::int64_t>(in.byte()) * 16777216LL - 1;
      c.tokens = in.small(-2, 12);
      c.d_model = in.small(-2, 16);
      c.num_heads = in.small(-1, 9);
      c.bias = in.byte() & 1;
      c.causal = in.byte() & 1;
      const auto e = headwise::seed_experiment(c);
      for (const Matrix& w : e.result.head_weights) check_weights(w);
      headwise::compare_heads(e.result.head_weights);
      break;
    }
    case 1: {  // the pipeline on arbitrary matrices, sometimes with wrong shapes
      const Index n = in.small(0, 6), d = in.small(0, 8), h = in.small(0, 5);
      const Index dw = (in.byte() % 8 == 0) ? in.small(0, 8) : d;
      headwise::MhaWeights w;
      w.wq = in.matrix(dw, d);
      w.wk = in.matrix(d, d);
      w.wv = in.matrix(d, d);
      w.wo = in.matrix(d, d);
      if (in.byte() & 1) {
        w.bq = in.vector(d);
        w.bk = in.vector(d);
        w.bv = in.vector(in.byte() % 8 == 0 ? d + 1 : d);
        w.bo = in.vector(d);
      }
      const auto r = headwise::multi_head_attention(in.matrix(n, d), w, h, in.byte() & 1);
      for (const Matrix& hw : r.head_weights) check_weights(hw);
      break;
    }
    case 2: {  // PyTorch's layer with masks, L != S, kdim/vdim, add_bias_kv
      headwise::TorchMhaConfig c;
      c.embed_dim = in.small(1, 8);
      c.num_heads = in.small(1, 4);
      c.bias = in.byte() & 1;
      c.add_bias_kv = in.byte() & 1;
      c.kdim = in.small(0, 5);
      c.vdim = in.small(0, 5);
      const Index e = c.embed_dim;
      const Index kd = c.kdim ? c.kdim : e, vd = c.vdim ? c.vdim : e;
      headwise::TorchMhaParams p;
      if (kd == e && vd == e) {
        p.in_proj_weight = in.matrix(3 * e, e);
      } else {
        p.q_proj_weight = in.matrix(e, e);
        p.k_proj_weight = in.matrix(e, kd);
        p.v_proj_weight = in.matrix(e, vd);
      }
      p.out_proj_weight = in.matrix(e, e);
      if (c.bias) {
        p.in_proj_bias = in.vector(3 * e);
        p.out_proj_bias = in.vector(e);
      }
      if (c.add_bias_kv) {
        p.bias_k = in.vector(e);
        p.bias_v = in.vector(e);
      }
      const Index l = in.small(1, 5), s = in.small(1, 5);
      headwise::TorchForwardOptions o;
      const std::uint8_t masks = in.byte();
      const Index ml = (masks & 8) ? in.small(0, 5) : l;
      if (masks & 1) {
        headwise::BoolMatrix b(ml, s);
        for (Index i = 0; i < b.size(); ++i) b.data()[i] = in.byte() & 1;
        o.bool_attn_mask = b;
      }
      if (masks & 2) o.float_attn_mask = in.matrix(ml, s);
      if (masks & 4) {
        headwise::BoolVector k(in.small(0, 5));
        for (Index i = 0; i < k.size(); ++i) k[i] = in.byte() & 1;
        o.key_padding_mask = k;
      }
      o.need_weights = in.byte() & 1;
      o.average_attn_weights = in.byte() & 1;
      const auto r = headwise::torch_mha_forward(c, p, in.matrix(l, e), in.matrix(s, kd),
                                                 in.matrix(s, vd), o);
      (void)r;
      break;
    }
    case 3: {  // the tokeniser on arbitrary bytes: UTF-8 is split into non-empty words, the rest refused
      std::string text;
      for (std::int64_t i = in.small(0, 40); i > 0; --i) text.push_back(static_cast<char>(in.byte()));
      for (const headwise::TextToken& t : headwise::tokenize_text(text)) {
        if (t.word.empty() || t.begin >= t.end || t.end > text.size()) std::abort();
      }
      break;
    }
    case 4: {  // a damaged weights file of a tiny text model: refused, or read and run
      headwise::TextModelFile m{headwise::text_model_config(1, 1, 2, 3, 3),
                                headwise::Vocabulary({"<unk>", "a", "b"}), {}, "{}"};
      m.params = headwise::ModelParams(m.config);
      std::string bytes = headwise::write_text_weights(m);
      for (std::int64_t k = in.small(0, 6); k > 0; --k) {
        bytes[static_cast<std::size_t>(in.byte()) % bytes.size()] = static_cast<char>(in.byte());
      }
      if (in.byte() % 8 == 0) bytes.resize(static_cast<std::size_t>(in.byte()) % bytes.size());
      const headwise::TextModelFile r = headwise::read_text_weights(
          reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      headwise::IntMatrix ids(1, in.small(1, 3));
      for (Index i = 0; i < ids.cols(); ++i) ids(0, i) = in.small(0, 2);
      const headwise::HeadMask off(1, in.byte() & 1);
      const auto run = headwise::run_text_model(r.config, r.params, ids, off);
      for (const Matrix& w : run.attention) check_weights(w);
      // its circuits: copying scores within [-1, 1]; an attribution of any position
      const headwise::ModelCircuits c = headwise::model_circuits(r.config, r.params);
      for (Index k = 0; k < c.copying.size(); ++k) {
        if (!(std::abs(c.copying.data()[k]) <= 1.0 + 1e-12)) std::abort();
      }
      headwise::attribute(r.config, r.params, ids, in.small(0, 2) % ids.cols(), std::nullopt);
      break;
    }
    default: {  // comparisons and the raw softmax on arbitrary values
      const Index rows = in.small(0, 4), cols = in.small(0, 4);
      const Matrix a = in.matrix(rows, cols);
      const Matrix b = in.matrix(rows, in.byte() % 8 == 0 ? in.small(0, 4) : cols);
      headwise::allclose(a, b, std::abs(in.value()), std::abs(in.value()), in.byte() & 1);
      headwise::max_abs_diff(a, b);
      const Matrix sm = headwise::softmax_rows(a);
      for (Index i = 0; i < sm.rows(); ++i) {
        bool finite_row = true;
        for (Index j = 0; j < a.cols(); ++j) finite_row = finite_row && std::isfinite(a(i, j));
        if (finite_row && a.cols() > 0) check_weights(sm.row(i));
      }
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  try {
    run(in);
  } catch (const std::invalid_argument& e) {
    if (std::strlen(e.what()) == 0) std::abort();  // every refusal must say why
  }
  return 0;
}
