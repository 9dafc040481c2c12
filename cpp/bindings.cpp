// The only file that knows about JavaScript: Embind registrations and thin adapters.
//
// The JS wrapper (cpp/api.js) validates option types and flattens nested arrays into
// {data: Float64Array, rows, cols}; these adapters copy them into Eigen matrices, call the core,
// and return plain JS objects holding Float64Array copies (nothing for JS to .delete()).
// Every adapter catches the core's exceptions and returns {error: message} instead, which the
// wrapper rethrows as a JS Error: in Emscripten 3.1.6 a C++ exception would reach JS as a bare
// number with no message.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "headwise/gemm.hpp"
#include "headwise/headwise.hpp"

using emscripten::EM_VAL;
using emscripten::val;
using headwise::BoolMatrix;
using headwise::BoolVector;
using headwise::Index;
using headwise::Matrix;
using headwise::Vector;

// Matrices cross the boundary in one call each way (EM_JS below): a matrix read or written
// through emscripten::val costs about ten calls between WASM and JS (the object, each key
// decoded from UTF-8, the Float64Array constructor looked up by name), and at the lesson's
// size those calls, not the arithmetic, were most of a module call's time.

// m.rows and m.cols into shape[0..1] (numbers the wrapper has checked).
EM_JS(void, hw_read_shape, (EM_VAL m, double* shape), {
  var o = Emval.toValue(m);
  HEAPF64[shape >> 3] = o.rows;
  HEAPF64[(shape >> 3) + 1] = o.cols;
});

// m.data (an array-like of exactly n numbers: cpp/api.js has checked) into the heap at dst.
EM_JS(void, hw_read_data, (EM_VAL m, double* dst, int n), {
  var d = Emval.toValue(m).data;
  if (d.length !== n) throw new RangeError('data has ' + d.length + ' entries, not ' + n);
  HEAPF64.set(d, dst >> 3);
});

// {data: a Float64Array copy of n doubles at p, rows, cols}.
EM_JS(EM_VAL, hw_f64_matrix, (const double* p, int n, double rows, double cols), {
  return Emval.toHandle({data: HEAPF64.slice(p >> 3, (p >> 3) + n), rows: rows, cols: cols});
});

// A stack {data: Float64Array(n), depth, rows, cols}, filled by hw_stack_set: each matrix is
// copied once, straight into the JS array, with no flat copy in the heap first.
EM_JS(EM_VAL, hw_stack_new, (int n, double depth, double rows, double cols), {
  return Emval.toHandle({data: new Float64Array(n), depth: depth, rows: rows, cols: cols});
});

// n doubles at p into the stack's (or a matrix's) data, from index offset.
EM_JS(void, hw_stack_set, (EM_VAL stack, const double* p, int n, int offset), {
  Emval.toValue(stack).data.set(HEAPF64.subarray(p >> 3, (p >> 3) + n), offset);
});

#ifndef HEADWISE_LESSON_ONLY
// Option into of multiHeadAttention (not in the lesson-only module: its page does not use it).

// into[key].data.length (a Float64Array the wrapper has checked), or -1 where into has no key.
EM_JS(double, hw_into_length, (EM_VAL into, const char* key), {
  var f = Emval.toValue(into)[UTF8ToString(key)];
  return f ? f.data.length : -1;
});

// Null if each array of into has as many entries as the result of its name, else what is wrong.
// sizes: for q, k, v, headWeights, headOutputs, concat, output in turn, {entries, depth (0 for
// a matrix), rows, cols}.
EM_JS(EM_VAL, hw_into_mismatch, (EM_VAL into, const double* sizes), {
  var names = ['q', 'k', 'v', 'headWeights', 'headOutputs', 'concat', 'output'];
  var o = Emval.toValue(into);
  for (var i = 0; i < names.length; i++) {
    var s = HEAPF64.subarray((sizes >> 3) + 4 * i, (sizes >> 3) + 4 * i + 4);
    if (o[names[i]] && o[names[i]].data.length !== s[0]) {
      return Emval.toHandle('into.' + names[i] + '.data has ' + o[names[i]].data.length +
        " entries, but this result's " + names[i] + ' has ' + s[0] + ', shape (' +
        (s[1] ? [s[1], s[2], s[3]] : [s[2], s[3]]).join(', ') +
        '); pass arrays from a result of the same sizes, or leave into out');
    }
  }
  return Emval.toHandle(null);
});

// The caller's array into[key].data as {data, rows, cols}, or as a stack {data, depth, rows,
// cols} where depth > 0: hw_stack_set then writes the result into it, so no new memory is
// touched.
EM_JS(EM_VAL, hw_into_wrap,
      (EM_VAL into, const char* key, double depth, double rows, double cols), {
  var data = Emval.toValue(into)[UTF8ToString(key)].data;
  return Emval.toHandle(depth > 0 ? {data: data, depth: depth, rows: rows, cols: cols}
                                  : {data: data, rows: rows, cols: cols});
});
#endif  // HEADWISE_LESSON_ONLY

// obj[key] as a number (the wrapper passes numbers and booleans it has checked), and whether obj
// has key, set to something other than undefined or null: one call each.
EM_JS(double, hw_number, (EM_VAL obj, const char* key), {
  return +Emval.toValue(obj)[UTF8ToString(key)];
});

EM_JS(int, hw_has, (EM_VAL obj, const char* key), {
  var o = Emval.toValue(obj);
  var k = UTF8ToString(key);
  return Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined && o[k] !== null ? 1 : 0;
});

namespace {

// ---- JS -> C++ --------------------------------------------------------------------------------

bool has(const val& obj, const char* key) { return hw_has(obj.as_handle(), key) != 0; }

double get_number(const val& obj, const char* key) { return hw_number(obj.as_handle(), key); }

bool get_bool(const val& obj, const char* key) { return get_number(obj, key) != 0; }

// The wrapper passes integers as JS numbers already checked to be safe integers. They go to
// the core as 64-bit values, which it range-checks before narrowing to its (32-bit) Index.
std::int64_t get_int(const val& obj, const char* key) {
  return static_cast<std::int64_t>(get_number(obj, key));
}

// {data: Float64Array, rows, cols} -> Matrix (one bulk copy into the heap).
Matrix get_matrix(const val& m) {
  double shape[2];
  hw_read_shape(m.as_handle(), shape);
  Matrix out(static_cast<Index>(shape[0]), static_cast<Index>(shape[1]));
  if (out.size() > 0) hw_read_data(m.as_handle(), out.data(), static_cast<int>(out.size()));
  return out;
}

Vector get_vector(const val& m) {
  double shape[2];
  hw_read_shape(m.as_handle(), shape);
  Vector out(static_cast<Index>(shape[0]));
  if (out.size() > 0) hw_read_data(m.as_handle(), out.data(), static_cast<int>(out.size()));
  return out;
}

// Booleans arrive as a Uint8Array (0/1) with rows/cols.
BoolMatrix get_bool_matrix(const val& m) {
  const Index rows = static_cast<Index>(get_number(m, "rows"));
  const Index cols = static_cast<Index>(get_number(m, "cols"));
  std::vector<unsigned char> bytes(static_cast<std::size_t>(rows * cols));
  if (!bytes.empty()) {
    val view(emscripten::typed_memory_view(bytes.size(), bytes.data()));
    view.call<void>("set", m["data"]);
  }
  BoolMatrix out(rows, cols);
  for (Index i = 0; i < out.size(); ++i) out.data()[i] = bytes[static_cast<std::size_t>(i)] != 0;
  return out;
}

BoolVector get_bool_vector(const val& m) {
  BoolMatrix b = get_bool_matrix(m);
  return Eigen::Map<const BoolVector>(b.data(), b.size());
}

// kdim / vdim: absent means embed_dim (0 in the core's config). A given 0 would read as
// absent there, so it is refused here; every other value is the core's to check.
std::int64_t optional_dim(const val& obj, const char* key) {
  if (!has(obj, key)) return 0;
  const std::int64_t d = get_int(obj, key);
  if (d == 0) throw std::invalid_argument(std::string(key) + " (0) must be a positive integer");
  return d;
}

std::optional<Matrix> opt_matrix(const val& obj, const char* key) {
  if (!has(obj, key)) return std::nullopt;
  return get_matrix(obj[key]);
}

std::optional<Vector> opt_vector(const val& obj, const char* key) {
  if (!has(obj, key)) return std::nullopt;
  return get_vector(obj[key]);
}

// ---- C++ -> JS --------------------------------------------------------------------------------

val f64_matrix(const double* data, Index n, Index rows, Index cols) {
  return val::take_ownership(
      hw_f64_matrix(data, static_cast<int>(n), static_cast<double>(rows), static_cast<double>(cols)));
}

val matrix_out(const Matrix& m) { return f64_matrix(m.data(), m.size(), m.rows(), m.cols()); }

val vector_out(const Vector& v) { return f64_matrix(v.data(), v.size(), v.size(), 1); }

// Each matrix of ms into the stack's data, one after another.
void fill_stack(const val& stack, const std::vector<Matrix>& ms) {
  for (std::size_t h = 0; h < ms.size(); ++h) {
    const Index size = ms[h].size();
    hw_stack_set(stack.as_handle(), ms[h].data(), static_cast<int>(size),
                 static_cast<int>(static_cast<Index>(h) * size));
  }
}

// A stack of equally shaped matrices -> {data, depth, rows, cols}.
val stack_out(const std::vector<Matrix>& ms) {
  const Index rows = ms.empty() ? 0 : ms[0].rows();
  const Index cols = ms.empty() ? 0 : ms[0].cols();
  val out = val::take_ownership(hw_stack_new(
      static_cast<int>(static_cast<Index>(ms.size()) * rows * cols), static_cast<double>(ms.size()),
      static_cast<double>(rows), static_cast<double>(cols)));
  fill_stack(out, ms);
  return out;
}

val error_out(const std::string& message) {
  val out = val::object();
  out.set("error", message);
  return out;
}

template <typename F>
val guarded(F&& body) {
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    return error_out(e.what());
  } catch (const std::bad_alloc&) {
    return error_out("out of memory: the requested sizes are too large for this device");
  } catch (const std::exception& e) {
    return error_out(std::string("internal error: ") + e.what());
  }
}

#ifndef HEADWISE_LESSON_ONLY
// m into into[key].data where `into` has key (its length checked by into_mismatch), into a new
// array otherwise; the same for a stack.
val matrix_into(const val& into, const char* key, const Matrix& m) {
  if (hw_into_length(into.as_handle(), key) < 0) return matrix_out(m);
  val out = val::take_ownership(hw_into_wrap(into.as_handle(), key, 0,
                                             static_cast<double>(m.rows()),
                                             static_cast<double>(m.cols())));
  hw_stack_set(out.as_handle(), m.data(), static_cast<int>(m.size()), 0);
  return out;
}

val stack_into(const val& into, const char* key, const std::vector<Matrix>& ms) {
  if (hw_into_length(into.as_handle(), key) < 0) return stack_out(ms);
  const double rows = ms.empty() ? 0 : static_cast<double>(ms[0].rows());
  const double cols = ms.empty() ? 0 : static_cast<double>(ms[0].cols());
  val out = val::take_ownership(
      hw_into_wrap(into.as_handle(), key, static_cast<double>(ms.size()), rows, cols));
  fill_stack(out, ms);
  return out;
}

// Every array of `into` holds exactly as many numbers as the result it is to take, or nothing is
// written: for a result of other sizes the caller gets an error, and its arrays stay as they were.
val into_mismatch(const val& into, const headwise::MhaResult& r) {
  double sizes[7][4];
  const auto matrix_size = [](double* s, const Matrix& m) {
    s[0] = static_cast<double>(m.size());
    s[1] = 0;
    s[2] = static_cast<double>(m.rows());
    s[3] = static_cast<double>(m.cols());
  };
  const auto stack_size = [](double* s, const std::vector<Matrix>& ms) {
    s[1] = static_cast<double>(ms.size());
    s[2] = ms.empty() ? 0 : static_cast<double>(ms[0].rows());
    s[3] = ms.empty() ? 0 : static_cast<double>(ms[0].cols());
    s[0] = s[1] * s[2] * s[3];
  };
  matrix_size(sizes[0], r.q);
  matrix_size(sizes[1], r.k);
  matrix_size(sizes[2], r.v);
  stack_size(sizes[3], r.head_weights);
  stack_size(sizes[4], r.head_outputs);
  matrix_size(sizes[5], r.concat);
  matrix_size(sizes[6], r.output);
  return val::take_ownership(hw_into_mismatch(into.as_handle(), &sizes[0][0]));
}
#endif  // HEADWISE_LESSON_ONLY

// The result's matrices; with `into`, written into the caller's arrays where it has them.
val mha_result_out(const headwise::MhaResult& r, const val* into = nullptr) {
  (void)into;  // (unused in the lesson-only module)
  const auto mat = [&](const char* key, const Matrix& m) {
#ifndef HEADWISE_LESSON_ONLY
    if (into != nullptr) return matrix_into(*into, key, m);
#endif
    (void)key;
    return matrix_out(m);
  };
  const auto stack = [&](const char* key, const std::vector<Matrix>& ms) {
#ifndef HEADWISE_LESSON_ONLY
    if (into != nullptr) return stack_into(*into, key, ms);
#endif
    (void)key;
    return stack_out(ms);
  };
  val out = val::object();
  out.set("dHead", static_cast<double>(r.d_head));
  out.set("q", mat("q", r.q));
  out.set("k", mat("k", r.k));
  out.set("v", mat("v", r.v));
  out.set("headWeights", stack("headWeights", r.head_weights));
  out.set("headOutputs", stack("headOutputs", r.head_outputs));
  out.set("concat", mat("concat", r.concat));
  out.set("output", mat("output", r.output));
  return out;
}

void weights_out(val& out, const headwise::MhaWeights& w) {
  out.set("wq", matrix_out(w.wq));
  out.set("wk", matrix_out(w.wk));
  out.set("wv", matrix_out(w.wv));
  out.set("wo", matrix_out(w.wo));
  if (w.bq) {
    out.set("bq", vector_out(*w.bq));
    out.set("bk", vector_out(*w.bk));
    out.set("bv", vector_out(*w.bv));
    out.set("bo", vector_out(*w.bo));
  }
}

headwise::MhaWeights weights_in(const val& o) {
  headwise::MhaWeights w;
  w.wq = get_matrix(o["wq"]);
  w.wk = get_matrix(o["wk"]);
  w.wv = get_matrix(o["wv"]);
  w.wo = get_matrix(o["wo"]);
  w.bq = opt_vector(o, "bq");
  w.bk = opt_vector(o, "bk");
  w.bv = opt_vector(o, "bv");
  w.bo = opt_vector(o, "bo");
  return w;
}

// ---- adapters ---------------------------------------------------------------------------------

val seed_experiment(val o) {
  return guarded([&] {
    headwise::SeedExperimentConfig c;
    c.seed = get_int(o, "seed");
    c.tokens = get_int(o, "tokens");
    c.d_model = get_int(o, "dModel");
    c.num_heads = get_int(o, "numHeads");
    c.bias = get_bool(o, "bias");
    c.causal = get_bool(o, "causal");
    const headwise::SeedExperiment e = headwise::seed_experiment(c);
    val out = mha_result_out(e.result);
    out.set("x", matrix_out(e.x));
    weights_out(out, e.weights);
    return out;
  });
}

val multi_head_attention(val o) {
  return guarded([&] {
    const Matrix x = get_matrix(o["x"]);
    const headwise::MhaWeights w = weights_in(o);
    const headwise::MhaResult r =
        headwise::multi_head_attention(x, w, get_int(o, "numHeads"), get_bool(o, "causal"));
#ifndef HEADWISE_LESSON_ONLY
    if (has(o, "into")) {  // (the wrapper refuses into in the lesson-only module)
      const val into = o["into"];
      const val mismatch = into_mismatch(into, r);
      if (mismatch.isString()) return error_out(mismatch.as<std::string>());
      return mha_result_out(r, &into);
    }
#endif
    return mha_result_out(r);
  });
}

val torch_multihead_attention(val o) {
  return guarded([&] {
    headwise::TorchMhaConfig c;
    c.embed_dim = get_int(o, "embedDim");
    c.num_heads = get_int(o, "numHeads");
    c.kdim = optional_dim(o, "kdim");
    c.vdim = optional_dim(o, "vdim");
    c.bias = has(o, "inProjBias") || has(o, "outProjBias");
    c.add_bias_kv = has(o, "biasK") || has(o, "biasV");
    headwise::TorchMhaParams p;
    p.in_proj_weight = opt_matrix(o, "inProjWeight");
    p.q_proj_weight = opt_matrix(o, "qProjWeight");
    p.k_proj_weight = opt_matrix(o, "kProjWeight");
    p.v_proj_weight = opt_matrix(o, "vProjWeight");
    p.in_proj_bias = opt_vector(o, "inProjBias");
    p.out_proj_weight = get_matrix(o["outProjWeight"]);
    p.out_proj_bias = opt_vector(o, "outProjBias");
    p.bias_k = opt_vector(o, "biasK");
    p.bias_v = opt_vector(o, "biasV");
    headwise::TorchForwardOptions opts;
    if (has(o, "attnMask")) {
      if (get_bool(o, "attnMaskIsBool")) {
        opts.bool_attn_mask = get_bool_matrix(o["attnMask"]);
      } else {
        opts.float_attn_mask = get_matrix(o["attnMask"]);
      }
    }
    if (has(o, "keyPaddingMask")) opts.key_padding_mask = get_bool_vector(o["keyPaddingMask"]);
    opts.need_weights = get_bool(o, "needWeights");
    opts.average_attn_weights = get_bool(o, "averageAttnWeights");
    const headwise::TorchForwardResult r = headwise::torch_mha_forward(
        c, p, get_matrix(o["query"]), get_matrix(o["key"]), get_matrix(o["value"]), opts);
    val out = val::object();
    out.set("attnOutput", matrix_out(r.attn_output));
    if (!opts.need_weights) {
      out.set("attnWeights", val::null());
    } else if (opts.average_attn_weights) {
      out.set("attnWeights", matrix_out(r.attn_weights[0]));
    } else {
      out.set("attnWeights", stack_out(r.attn_weights));
    }
    return out;
  });
}

val parameter_count(val o) {
  return guarded([&] {
    headwise::TorchMhaConfig c;
    c.embed_dim = get_int(o, "embedDim");
    c.num_heads = get_int(o, "numHeads");
    c.bias = get_bool(o, "bias");
    c.add_bias_kv = get_bool(o, "addBiasKv");
    c.kdim = optional_dim(o, "kdim");
    c.vdim = optional_dim(o, "vdim");
    const headwise::ParameterTable t = headwise::parameter_table(c);
    val tensors = val::array();
    for (const headwise::TensorInfo& ti : t.tensors) {
      val entry = val::object();
      entry.set("name", ti.name);
      val shape = val::array();
      for (std::int64_t s : ti.shape) shape.call<void>("push", static_cast<double>(s));
      entry.set("shape", shape);
      entry.set("numel", static_cast<double>(ti.numel));
      tensors.call<void>("push", entry);
    }
    val out = val::object();
    out.set("total", static_cast<double>(t.total));
    out.set("tensors", tensors);
    return out;
  });
}

val pack_lesson_weights(val o) {
  return guarded([&] {
    const headwise::TorchMhaParams p = headwise::pack_lesson_weights(weights_in(o));
    val out = val::object();
    out.set("inProjWeight", matrix_out(*p.in_proj_weight));
    out.set("outProjWeight", matrix_out(p.out_proj_weight));
    if (p.in_proj_bias) {
      out.set("inProjBias", vector_out(*p.in_proj_bias));
      out.set("outProjBias", vector_out(*p.out_proj_bias));
    }
    return out;
  });
}

val compare_heads(val o) {
  return guarded([&] {
    const val stack = o["headWeights"];
    const Index depth = static_cast<Index>(get_number(stack, "depth"));
    const Index rows = static_cast<Index>(get_number(stack, "rows"));
    const Index cols = static_cast<Index>(get_number(stack, "cols"));
    std::vector<double> flat(static_cast<std::size_t>(depth * rows * cols));
    if (!flat.empty()) hw_read_data(stack.as_handle(), flat.data(), static_cast<int>(flat.size()));
    std::vector<Matrix> heads;
    for (Index h = 0; h < depth; ++h) {
      heads.push_back(Eigen::Map<const Matrix>(flat.data() + h * rows * cols, rows, cols));
    }
    const auto pairs =
        headwise::compare_heads(heads, get_number(o, "rtol"), get_number(o, "atol"));
    val out = val::array();
    for (const headwise::HeadPair& p : pairs) {
      val entry = val::object();
      entry.set("a", static_cast<double>(p.a));
      entry.set("b", static_cast<double>(p.b));
      entry.set("allclose", p.allclose);
      entry.set("maxAbsDiff", p.max_abs_diff);
      entry.set("meanJsDivergence", p.mean_js_divergence);
      out.call<void>("push", entry);
    }
    val wrapped = val::object();
    wrapped.set("pairs", out);
    return wrapped;
  });
}

val allclose(val o) {
  return guarded([&] {
    val out = val::object();
    out.set("value", headwise::allclose(get_matrix(o["a"]), get_matrix(o["b"]),
                                        get_number(o, "rtol"), get_number(o, "atol"),
                                        get_bool(o, "equalNan")));
    return out;
  });
}

val max_abs_diff(val o) {
  return guarded([&] {
    val out = val::object();
    out.set("value", headwise::max_abs_diff(get_matrix(o["a"]), get_matrix(o["b"])));
    return out;
  });
}

val heap_stats() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("usedBytes", static_cast<double>(info.uordblks));
  return out;
}

val limits() {
  val out = val::object();
  out.set("maxSeed", static_cast<double>(headwise::kMaxSeed));
  out.set("maxTokens", static_cast<double>(headwise::kMaxTokens));
  out.set("maxDModel", static_cast<double>(headwise::kMaxDModel));
  return out;
}

// ---- training ---------------------------------------------------------------------------------
// Trainers live here, keyed by an id the JS wrapper holds; trainerDispose frees one. Everything
// returned is a plain JS object with Float64Array copies, as for the other adapters.
// The lesson-only module (dist/headwise-lesson.js) is compiled with HEADWISE_LESSON_ONLY: these
// adapters and their registrations are left out, so the linker takes none of the trainer's
// objects (trainer, backward, adam, train_tasks) from the core library.
#ifndef HEADWISE_LESSON_ONLY

std::map<int, std::unique_ptr<headwise::Trainer>>& trainers() {
  static std::map<int, std::unique_ptr<headwise::Trainer>> all;
  return all;
}

headwise::Trainer& trainer_of(const val& o) {
  const int id = o["id"].as<int>();
  auto it = trainers().find(id);
  if (it == trainers().end()) {
    throw std::invalid_argument("this trainer has been disposed; create a new one");
  }
  return *it->second;
}

// {data: Float64Array of integers (checked by the wrapper), rows, cols} -> IntMatrix
headwise::IntMatrix get_int_matrix(const val& m) {
  const Matrix d = get_matrix(m);
  return d.cast<std::int64_t>();
}

val relation_out(const headwise::Relation& r) {
  val out = val::object();
  out.set("name", r.name);
  out.set("title", r.title);
  out.set("rule", r.rule);
  out.set("description", r.description);
  return out;
}

val strings_out(const std::vector<std::string>& items) {
  val out = val::array();
  for (const std::string& s : items) out.call<void>("push", s);
  return out;
}

val training_relations() {
  return guarded([&] {
    val relations = val::array();
    for (const headwise::Relation& r : headwise::training_relations()) {
      relations.call<void>("push", relation_out(r));
    }
    val out = val::object();
    out.set("relations", relations);
    return out;
  });
}

// A task's default settings; numHeads left out where the head count is the experiment's.
val task_defaults_out(const headwise::TaskDefaults& t, bool with_heads = true) {
  val d = val::object();
  if (with_heads) d.set("numHeads", static_cast<double>(t.num_heads));
  d.set("dModel", static_cast<double>(t.d_model));
  d.set("seqLen", static_cast<double>(t.seq_len));
  d.set("vocab", static_cast<double>(t.vocab));
  d.set("learningRate", t.learning_rate);
  d.set("batchSize", static_cast<double>(t.batch_size));
  d.set("steps", static_cast<double>(t.steps));
  d.set("evalSize", static_cast<double>(t.eval_size));
  return d;
}

val heads_needed_defaults() {
  return guarded([&] {
    const headwise::HeadsNeededDefaults& d = headwise::heads_needed_defaults();
    val out = task_defaults_out(d.settings, false);
    out.set("relations", strings_out(d.relations));
    out.set("gridRelations", strings_out(d.grid_relations));
    val heads = val::array();
    for (std::int64_t h : d.head_counts) heads.call<void>("push", static_cast<double>(h));
    out.set("headCounts", heads);
    out.set("solvedAccuracy", d.solved_accuracy);
    out.set("maxRelations", static_cast<double>(headwise::kMaxTaskRelations));
    out.set("tokenLabels", strings_out(headwise::token_labels(d.settings.vocab)));
    return out;
  });
}

val training_tasks() {
  return guarded([&] {
    val tasks = val::array();
    for (const headwise::TrainingTask& t : headwise::training_tasks()) {
      val entry = val::object();
      entry.set("name", t.name);
      entry.set("title", t.title);
      val relations = val::array();
      for (const headwise::Relation& r : t.relations) relations.call<void>("push", relation_out(r));
      entry.set("relations", relations);
      entry.set("vocab", static_cast<double>(t.defaults.vocab));
      entry.set("tokenLabels", strings_out(headwise::token_labels(t.defaults.vocab)));
      entry.set("defaults", task_defaults_out(t.defaults));
      tasks.call<void>("push", entry);
    }
    val out = val::object();
    out.set("tasks", tasks);
    return out;
  });
}

val trainer_config_out(const headwise::Trainer& t) {
  const headwise::TrainerConfig& c = t.config();
  val out = val::object();
  out.set("task", c.task.empty() ? val::null() : val(c.task));
  out.set("title", t.task().title);
  out.set("numHeads", static_cast<double>(c.num_heads));
  out.set("dModel", static_cast<double>(c.d_model));
  out.set("dHead", static_cast<double>(c.d_head));
  out.set("seed", static_cast<double>(c.seed));
  out.set("seqLen", static_cast<double>(c.seq_len));
  out.set("vocab", static_cast<double>(c.vocab));
  out.set("learningRate", c.learning_rate);
  out.set("batchSize", static_cast<double>(c.batch_size));
  out.set("evalSize", static_cast<double>(c.eval_size));
  out.set("numRelations", static_cast<double>(c.num_relations));
  out.set("relations", val::array());
  for (const headwise::Relation& r : t.task().relations) {
    out["relations"].call<void>("push", relation_out(r));
  }
  out.set("tokenLabels", strings_out(headwise::token_labels(c.vocab)));
  return out;
}

val trainer_create(val o) {
  return guarded([&] {
    headwise::TrainerOptions opts;
    if (has(o, "task")) opts.task = o["task"].as<std::string>();
    if (has(o, "relations")) {
      const val list = o["relations"];
      const int count = list["length"].as<int>();
      opts.relations.emplace();
      for (int i = 0; i < count; ++i) opts.relations->push_back(list[i].as<std::string>());
    }
    opts.num_heads = get_int(o, "numHeads");
    opts.d_model = get_int(o, "dModel");
    opts.seed = get_int(o, "seed");
    if (has(o, "seqLen")) opts.seq_len = get_int(o, "seqLen");
    if (has(o, "vocab")) opts.vocab = get_int(o, "vocab");
    if (has(o, "batchSize")) opts.batch_size = get_int(o, "batchSize");
    if (has(o, "evalSize")) opts.eval_size = get_int(o, "evalSize");
    if (has(o, "learningRate")) opts.learning_rate = get_number(o, "learningRate");
    static int next_id = 0;
    auto trainer = std::make_unique<headwise::Trainer>(opts);
    const int id = ++next_id;
    val out = val::object();
    out.set("id", id);
    out.set("config", trainer_config_out(*trainer));
    trainers()[id] = std::move(trainer);
    return out;
  });
}

val trainer_dispose(val o) {
  return guarded([&] {
    trainers().erase(o["id"].as<int>());
    return val::object();
  });
}

val trainer_step(val o) {
  return guarded([&] {
    const headwise::StepResult r = trainer_of(o).step(get_int(o, "steps"));
    val out = val::object();
    out.set("step", static_cast<double>(r.step));
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    return out;
  });
}

val params_out(headwise::ModelParams p) {
  val out = val::object();
  for (const headwise::TensorRef& t : headwise::tensors(p)) {
    out.set(t.name, f64_matrix(t.data, t.rows * t.cols, t.rows, t.cols));
  }
  return out;
}

val trainer_parameters(val o) {
  return guarded([&] { return params_out(trainer_of(o).parameters()); });
}

val trainer_set_parameters(val o) {
  return guarded([&] {
    headwise::ModelParams p;
    const val in = o["parameters"];
    p.token_embedding = get_matrix(in["tokenEmbedding"]);
    p.position_embedding = get_matrix(in["positionEmbedding"]);
    p.wq = get_matrix(in["wq"]);
    p.wk = get_matrix(in["wk"]);
    p.wv = get_matrix(in["wv"]);
    p.wo = get_matrix(in["wo"]);
    p.readout = get_matrix(in["readout"]);
    p.readout_bias = get_vector(in["readoutBias"]);
    trainer_of(o).set_parameters(std::move(p));
    return val::object();
  });
}

val trainer_gradients(val o) {
  return guarded([&] {
    const headwise::GradientResult r =
        trainer_of(o).gradients(get_int_matrix(o["tokens"]), get_int_matrix(o["targets"]));
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    out.set("gradients", params_out(r.grads));
    return out;
  });
}

val trainer_attention(val o) {
  return guarded([&] {
    const std::vector<Matrix> heads = trainer_of(o).attention(get_int_matrix(o["tokens"]));
    val out = val::object();
    out.set("weights", stack_out(heads));
    return out;
  });
}

val trainer_evaluate(val o) {
  return guarded([&] {
    std::vector<std::int64_t> ablate;
    const val list = o["ablate"];
    const int count = list["length"].as<int>();
    for (int i = 0; i < count; ++i)
      ablate.push_back(static_cast<std::int64_t>(list[i].as<double>()));
    const headwise::EvalResult r = trainer_of(o).evaluate(ablate);
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    val rel = val::array();
    for (double a : r.relation_accuracy) rel.call<void>("push", a);
    out.set("relationAccuracy", rel);
    out.set("headFocus", matrix_out(r.head_focus));
    return out;
  });
}

val trainer_parameter_count(val o) {
  return guarded([&] {
    const headwise::Trainer& t = trainer_of(o);
    const auto shapes = headwise::param_shapes(t.config());
    val tensors = val::array();
    double total = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      val entry = val::object();
      entry.set("name", std::string(headwise::kParamNames[i]));
      val shape = val::array();
      shape.call<void>("push", static_cast<double>(shapes[i][0]));
      if (i != 7) shape.call<void>("push", static_cast<double>(shapes[i][1]));
      entry.set("shape", shape);
      const double numel = static_cast<double>(shapes[i][0] * shapes[i][1]);
      entry.set("numel", numel);
      total += numel;
      tensors.call<void>("push", entry);
    }
    val out = val::object();
    out.set("total", total);
    out.set("tensors", tensors);
    return out;
  });
}

val trainer_count() { return val(static_cast<double>(trainers().size())); }
#endif  // HEADWISE_LESSON_ONLY

// ---- benchmark entry points (tests/bench) --------------------------------------------------
// The forward alone, on inputs already in the WASM heap: no JS <-> WASM conversion is timed.
// Not part of the public API; reached through the module object given to the factory. The
// benchmark times dist/headwise.js, so the lesson-only module leaves them out too.
#ifndef HEADWISE_LESSON_ONLY

headwise::SeedExperiment& bench_inputs() {
  static headwise::SeedExperiment inputs;
  return inputs;
}

// Draws the lesson's inputs for (tokens, dModel) at seed 7 and keeps them for bench_run.
val bench_prepare(val o) {
  return guarded([&] {
    headwise::SeedExperimentConfig c;
    c.seed = 7;
    c.tokens = get_int(o, "tokens");
    c.d_model = get_int(o, "dModel");
    c.num_heads = get_int(o, "numHeads");
    bench_inputs() = headwise::seed_experiment(c);
    val out = val::object();
    out.set("kernel", headwise::gemm_description());
    return out;
  });
}

// Runs the forward `repeats` times on the prepared inputs; returns the mean time in ms and a
// few numbers of the last result (to cross-check implementations).
val bench_run(val o) {
  return guarded([&] {
    const headwise::SeedExperiment& in = bench_inputs();
    const std::int64_t heads = get_int(o, "numHeads");
    const std::int64_t repeats = get_int(o, "repeats");
    headwise::MhaResult r;
    const double t0 = emscripten_get_now();
    for (std::int64_t i = 0; i < repeats; ++i) {
      r = headwise::multi_head_attention(in.x, in.weights, heads);
    }
    const double ms = (emscripten_get_now() - t0) / static_cast<double>(repeats);
    val out = val::object();
    out.set("ms", ms);
    out.set("output00", r.output(0, 0));
    out.set("outputSum", r.output.sum());
    out.set("weights000", r.head_weights[0](0, 0));
    out.set("weightsLastSum", r.head_weights.back().row(r.output.rows() - 1).sum());
    return out;
  });
}
#endif  // HEADWISE_LESSON_ONLY

}  // namespace

EMSCRIPTEN_BINDINGS(headwise) {
  emscripten::function("_seedExperiment", &seed_experiment);
  emscripten::function("_multiHeadAttention", &multi_head_attention);
  emscripten::function("_torchMultiheadAttention", &torch_multihead_attention);
  emscripten::function("_parameterCount", &parameter_count);
  emscripten::function("_packLessonWeights", &pack_lesson_weights);
  emscripten::function("_compareHeads", &compare_heads);
  emscripten::function("_allclose", &allclose);
  emscripten::function("_maxAbsDiff", &max_abs_diff);
  emscripten::function("_heapStats", &heap_stats);
  emscripten::function("_limits", &limits);
#ifndef HEADWISE_LESSON_ONLY
  emscripten::function("_trainingTasks", &training_tasks);
  emscripten::function("_trainingRelations", &training_relations);
  emscripten::function("_headsNeededDefaults", &heads_needed_defaults);
  emscripten::function("_trainerCreate", &trainer_create);
  emscripten::function("_trainerDispose", &trainer_dispose);
  emscripten::function("_trainerStep", &trainer_step);
  emscripten::function("_trainerParameters", &trainer_parameters);
  emscripten::function("_trainerSetParameters", &trainer_set_parameters);
  emscripten::function("_trainerGradients", &trainer_gradients);
  emscripten::function("_trainerAttention", &trainer_attention);
  emscripten::function("_trainerEvaluate", &trainer_evaluate);
  emscripten::function("_trainerParameterCount", &trainer_parameter_count);
  emscripten::function("_trainerCount", &trainer_count);
#endif
#ifndef HEADWISE_LESSON_ONLY
  emscripten::function("_benchPrepare", &bench_prepare);
  emscripten::function("_benchRun", &bench_run);
#endif
}
