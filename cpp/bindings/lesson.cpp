// The lesson's adapters: the multi-head attention pipeline, PyTorch's layout, comparisons.
#include "lesson.hpp"

#include <emscripten/emscripten.h>
#include <malloc.h>

#include "headwise/circuits.hpp"
#include "headwise/headwise.hpp"
#include "marshal.hpp"

using emscripten::EM_VAL;

#ifndef HEADWISE_LESSON_ONLY
// Option into of multiHeadAttention (not in the lesson-only module: its page does not use it).

// into[key].data.length (a Float64Array the wrapper has checked), or -1 where into has no key.
EM_JS(double, hw_into_length, (EM_VAL into, const char* key), {
  var f = Emval.toValue(into)[UTF8ToString(key)];
  return f ? f.data.length : -1;
});

// Null if each array of into has as many entries as the result of its name, else what is wrong
// (into holding none of them is wrong too: the wrapper passes on every array it was given).
// sizes: for q, k, v, headWeights, headOutputs, concat, output in turn, {entries, depth (0 for
// a matrix), rows, cols}.
EM_JS(EM_VAL, hw_into_mismatch, (EM_VAL into, const double* sizes), {
  var names = ['q', 'k', 'v', 'headWeights', 'headOutputs', 'concat', 'output'];
  var o = Emval.toValue(into);
  if (!names.some(function (name) { return o[name]; })) {
    return Emval.toHandle('into has none of the results q, k, v, concat, output, headWeights, ' +
                          'headOutputs; pass a previous result or its .typed');
  }
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

// The caller's array into[key].data as a tensor {data, shape} (shape [rows, cols], or
// [depth, rows, cols] where depth > 0): hw_tensor_set then writes the result into it, so no new
// memory is touched.
EM_JS(EM_VAL, hw_into_wrap,
      (EM_VAL into, const char* key, double depth, double rows, double cols), {
  var data = Emval.toValue(into)[UTF8ToString(key)].data;
  return Emval.toHandle({data: data, shape: depth > 0 ? [depth, rows, cols] : [rows, cols]});
});
#endif  // HEADWISE_LESSON_ONLY

namespace headwise_js {

namespace {

#ifndef HEADWISE_LESSON_ONLY
// m into into[key].data where `into` has key (its length checked by into_mismatch), into a new
// array otherwise; the same for a stack.
val matrix_into(const val& into, const char* key, const Matrix& m) {
  if (hw_into_length(into.as_handle(), key) < 0) return matrix_out(m);
  val out = val::take_ownership(hw_into_wrap(into.as_handle(), key, 0,
                                             static_cast<double>(m.rows()),
                                             static_cast<double>(m.cols())));
  set_data(out, m.data(), static_cast<int>(m.size()), 0);
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

}  // namespace

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
      if (mismatch.isString()) return error_out(mismatch.as<std::string>(), "intoSize", "into");
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

val head_circuits(val o) {
  return guarded([&] {
    const headwise::HeadCircuits c = headwise::head_circuits(
        get_matrix(o["wq"]), get_matrix(o["wk"]), get_matrix(o["wv"]), get_matrix(o["wo"]),
        get_int(o, "numHeads"));
    val out = val::object();
    out.set("qk", stack_out(c.qk));
    out.set("ov", stack_out(c.ov));
    val qk_rank = val::array();
    val ov_rank = val::array();
    for (std::size_t h = 0; h < c.qk_rank.size(); ++h) {
      qk_rank.call<void>("push", static_cast<double>(c.qk_rank[h]));
      ov_rank.call<void>("push", static_cast<double>(c.ov_rank[h]));
    }
    out.set("qkRank", qk_rank);
    out.set("ovRank", ov_rank);
    out.set("ovSumError", c.ov_sum_error);
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
    if (!flat.empty()) read_data(stack, flat.data(), static_cast<int>(flat.size()));
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

}  // namespace headwise_js
