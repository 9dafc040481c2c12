// The WASM side of the benchmark, shared by Node (bench_wasm_node.mjs) and headless Chromium
// (bench.html, driven by run.mjs): the multi-head attention forward of
// build/wasm/headwise-bench.js, timed two ways on the lesson's inputs (np.random.seed(7) draws, made once per size, never timed):
//   core  the forward alone on inputs already in the WASM heap (the module's _benchRun entry
//         point: C++ loop, emscripten_get_now), so no JS <-> WASM conversion is timed;
//   api   hw.multiHeadAttention({x, wq, wk, wv, wo, numHeads}) on nested arrays made
//         beforehand: options checked and flattened, copied in, the forward, results copied
//         out as typed arrays (nested arrays are only built when read, which is not timed);
//   api-typed  the same call on {data: Float64Array, rows, cols} inputs (nothing to flatten);
//   api-into   the same, writing into the previous call's result (option into: no new arrays).
// A classic script: defines HeadwiseBench in browsers, module.exports in Node.
/* global module */
(function(root) {
'use strict';

function now() {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

function check(output, weights) {
  var last = weights[weights.length - 1];
  var lastRow = last[last.length - 1];
  var outputSum = 0;
  for (var i = 0; i < output.length; i++) {
    for (var j = 0; j < output[i].length; j++) outputSum += output[i][j];
  }
  var weightsLastSum = 0;
  for (var k = 0; k < lastRow.length; k++) weightsLastSum += lastRow[k];
  return {
    output00: output[0][0],
    outputSum: outputSum,
    weights000: weights[0][0][0],
    weightsLastSum: weightsLastSum
  };
}

// createHeadwise: the factory of build/wasm/headwise-bench.js (dist/headwise.js plus the
// _bench* hooks). Resolves to {info, time}.
function setup(createHeadwise) {
  var raw = {};  // the Emscripten module object: holds the _bench* entry points
  return createHeadwise(raw).then(function(hw) {
    var prepared = null;
    var apiInputs = {};
    var typedInputs = {of: null, args: null, into: null};

    function prepareCore(n, d, h) {
      var key = n + ',' + d;
      if (prepared !== key) {
        var r = raw._benchPrepare({tokens: n, dModel: d, numHeads: h});
        if (r.error) throw new Error(r.error);
        prepared = key;
      }
    }

    function prepareApi(n, d, h) {
      var key = n + ',' + d + ',' + h;
      if (!apiInputs[key]) {
        apiInputs = {};  // one size at a time: large inputs are big as nested arrays
        var e = hw.seedExperiment({seed: 7, tokens: n, dModel: d, numHeads: h});
        apiInputs[key] = {x: e.x, wq: e.wq, wk: e.wk, wv: e.wv, wo: e.wo, numHeads: h};
      }
      return apiInputs[key];
    }

    function flat(m) {
      var data = new Float64Array(m.length * m[0].length);
      for (var i = 0; i < m.length; i++) data.set(m[i], i * m[0].length);
      return {data: data, rows: m.length, cols: m[0].length};
    }

    function prepareTyped(n, d, h) {
      var a = prepareApi(n, d, h);
      if (typedInputs.of !== a) {
        typedInputs.of = a;
        typedInputs.args = {x: flat(a.x), wq: flat(a.wq), wk: flat(a.wk), wv: flat(a.wv), wo: flat(a.wo),
          numHeads: h};
        typedInputs.into = null;
      }
      return typedInputs.args;
    }

    function info() {
      var p = raw._benchPrepare({tokens: 5, dModel: 8, numHeads: 2});
      prepared = null;
      return {
        impl: 'wasm',
        version: hw.version,
        kernel: p.kernel,
        userAgent: typeof navigator !== 'undefined' ?
            navigator.userAgent :
            'node ' + process.version + ' (V8 ' + process.versions.v8 + ')'
      };
    }

    // samples x batch forwards; each sample is the mean time of one forward in its batch.
    function time(n, d, h, samples, batch, mode) {
      var times = [];
      var result;
      if (mode === 'core') {
        prepareCore(n, d, h);
        for (var i = 0; i < samples; i++) {
          result = raw._benchRun({numHeads: h, repeats: batch});
          if (result.error) throw new Error(result.error);
          times.push(result.ms);
        }
        return {
          times_ms: times,
          check: {
            output00: result.output00,
            outputSum: result.outputSum,
            weights000: result.weights000,
            weightsLastSum: result.weightsLastSum
          }
        };
      }
      var args = mode === 'api-typed' || mode === 'api-into' ? prepareTyped(n, d, h) : prepareApi(n, d, h);
      if (mode === 'api-into') {
        // Arrays to write into: one result made beforehand (untimed), then each call's own.
        if (!typedInputs.into) typedInputs.into = hw.multiHeadAttention(args);
        args = Object.assign({}, args, {into: typedInputs.into});
      }
      for (var s = 0; s < samples; s++) {
        var t0 = now();
        for (var b = 0; b < batch; b++) result = hw.multiHeadAttention(args);
        times.push((now() - t0) / batch);
      }
      return {times_ms: times, check: check(result.output, result.headWeights)};
    }

    return {info: info, time: time, heapStats: hw.heapStats};
  });
}

var api = {setup: setup};
if (typeof module === 'object' && module.exports) {
  module.exports = api;
} else {
  root.HeadwiseBench = api;
}
})(typeof self !== 'undefined' ? self : this);
