// The API object: wrap() turns the raw Embind module into the public API
// (part of the public JS API; cpp/api/assemble.mjs puts the parts together).

// ---- training, where the module has none ---------------------------------------------------
// In dist/headwise-lesson.js (cpp/api/no-training.js), and in any module without the trainer's
// bindings, the training methods throw an error naming the module that has them.

var LESSON_ONLY_ERROR = ' is not part of headwise-lesson.js, the lesson-only module; ' +
  'load headwise.js, the same API with training';

function lessonOnly(api) {
  ['trainingTasks', 'trainingRelations', 'headsNeededDefaults', 'inductionDefaults',
    'createTrainer', 'trainerCount', 'textModel', 'createTextTrainer'].forEach(function (name) {
    api[name] = function () {
      throw coded(name + ': training' + LESSON_ONLY_ERROR, 'lessonOnly', null, { method: name });
    };
  });
}

// ---- the API ------------------------------------------------------------------------------

function wrap(raw) {
  var api = {};

  api.seedExperiment = function (options) {
    var m = 'seedExperiment';
    var o = checkOptions(m, options, ['seed', 'tokens', 'dModel', 'numHeads', 'bias', 'causal'],
      ['seed', 'tokens', 'dModel', 'numHeads']);
    var args = {
      seed: integer(m, 'seed', o.seed),
      tokens: integer(m, 'tokens', o.tokens),
      dModel: integer(m, 'dModel', o.dModel),
      numHeads: integer(m, 'numHeads', o.numHeads),
      bias: flag(m, 'bias', o.bias, false),
      causal: flag(m, 'causal', o.causal, false)
    };
    var r = unwrap(m, raw._seedExperiment(args));
    return moduleResult(r, {
      seed: args.seed, tokens: args.tokens, dModel: args.dModel, numHeads: args.numHeads,
      bias: args.bias, causal: args.causal
    });
  };

  api.multiHeadAttention = function (options) {
    var m = 'multiHeadAttention';
    var o = checkOptions(m, options,
      ['x', 'wq', 'wk', 'wv', 'wo', 'numHeads', 'bq', 'bk', 'bv', 'bo', 'causal', 'into'],
      ['x', 'wq', 'wk', 'wv', 'wo', 'numHeads']);
    var args = weightsIn(m, o, {
      x: matrix(m, 'x', o.x),
      numHeads: integer(m, 'numHeads', o.numHeads),
      causal: flag(m, 'causal', o.causal, false)
    });
    if (given(o.into)) {
      if (!intoArrays) {
        fail(m, 'into is not part of headwise-lesson.js, the lesson-only module; load headwise.js, the same API with into',
          'lessonOnly', { path: 'into', method: m });
      }
      args.into = intoArrays(m, o.into);
    }
    var r = unwrap(m, raw._multiHeadAttention(args));
    return moduleResult(r, { numHeads: args.numHeads, causal: args.causal });
  };

  api.torchMultiheadAttention = function (options) {
    var m = 'torchMultiheadAttention';
    var o = checkOptions(m, options,
      ['embedDim', 'numHeads', 'inProjWeight', 'qProjWeight', 'kProjWeight', 'vProjWeight',
        'inProjBias', 'outProjWeight', 'outProjBias', 'biasK', 'biasV', 'kdim', 'vdim',
        'query', 'key', 'value', 'attnMask', 'keyPaddingMask', 'needWeights',
        'averageAttnWeights'],
      ['embedDim', 'numHeads', 'outProjWeight', 'query', 'key', 'value']);
    var args = {
      embedDim: integer(m, 'embedDim', o.embedDim),
      numHeads: integer(m, 'numHeads', o.numHeads),
      outProjWeight: matrix(m, 'outProjWeight', o.outProjWeight),
      query: matrix(m, 'query', o.query),
      key: matrix(m, 'key', o.key),
      value: matrix(m, 'value', o.value),
      needWeights: flag(m, 'needWeights', o.needWeights, true),
      averageAttnWeights: flag(m, 'averageAttnWeights', o.averageAttnWeights, true),
      attnMaskIsBool: false
    };
    ['inProjWeight', 'qProjWeight', 'kProjWeight', 'vProjWeight'].forEach(function (f) {
      if (given(o[f])) args[f] = matrix(m, f, o[f]);
    });
    ['inProjBias', 'outProjBias', 'biasK', 'biasV'].forEach(function (f) {
      if (given(o[f])) args[f] = vector(m, f, o[f]);
    });
    ['kdim', 'vdim'].forEach(function (f) {
      if (given(o[f])) args[f] = integer(m, f, o[f]);
    });
    if (given(o.attnMask)) {
      var mask = o.attnMask;
      if (Array.isArray(mask) && Array.isArray(mask[0]) && mask[0].length > 0 &&
          typeof mask[0][0] === 'boolean') {
        args.attnMask = boolMatrix(m, 'attnMask', mask);
        args.attnMaskIsBool = true;
      } else {
        args.attnMask = matrix(m, 'attnMask', mask);
      }
    }
    if (given(o.keyPaddingMask)) {
      args.keyPaddingMask = boolVector(m, 'keyPaddingMask', o.keyPaddingMask);
    }
    var r = unwrap(m, raw._torchMultiheadAttention(args));
    return moduleResult(r);
  };

  api.parameterCount = function (options) {
    var m = 'parameterCount';
    var o = checkOptions(m, options, ['embedDim', 'numHeads', 'bias', 'addBiasKv', 'kdim', 'vdim'],
      ['embedDim', 'numHeads']);
    var args = {
      embedDim: integer(m, 'embedDim', o.embedDim),
      numHeads: integer(m, 'numHeads', o.numHeads),
      bias: flag(m, 'bias', o.bias, true),
      addBiasKv: flag(m, 'addBiasKv', o.addBiasKv, false)
    };
    if (given(o.kdim)) args.kdim = integer(m, 'kdim', o.kdim);
    if (given(o.vdim)) args.vdim = integer(m, 'vdim', o.vdim);
    return unwrap(m, raw._parameterCount(args));
  };

  api.packLessonWeights = function (options) {
    var m = 'packLessonWeights';
    var o = checkOptions(m, options, ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'],
      ['wq', 'wk', 'wv', 'wo']);
    var r = unwrap(m, raw._packLessonWeights(weightsIn(m, o, {})));
    return moduleResult(r);
  };

  api.compareHeads = function (options) {
    var m = 'compareHeads';
    var o = checkOptions(m, options, ['headWeights', 'rtol', 'atol'], ['headWeights']);
    var args = {
      headWeights: stack(m, 'headWeights', o.headWeights),
      rtol: number(m, 'rtol', o.rtol, 1e-5),
      atol: number(m, 'atol', o.atol, 1e-8)
    };
    return unwrap(m, raw._compareHeads(args)).pairs;
  };

  api.allclose = function (options) {
    var m = 'allclose';
    var o = checkOptions(m, options, ['a', 'b', 'rtol', 'atol', 'equalNan'], ['a', 'b']);
    return unwrap(m, raw._allclose({
      a: matrix(m, 'a', o.a),
      b: matrix(m, 'b', o.b),
      rtol: number(m, 'rtol', o.rtol, 1e-5),
      atol: number(m, 'atol', o.atol, 1e-8),
      equalNan: flag(m, 'equalNan', o.equalNan, false)
    })).value;
  };

  api.maxAbsDiff = function (options) {
    var m = 'maxAbsDiff';
    var o = checkOptions(m, options, ['a', 'b'], ['a', 'b']);
    return unwrap(m, raw._maxAbsDiff({ a: matrix(m, 'a', o.a), b: matrix(m, 'b', o.b) })).value;
  };

  // Each head's W_QK = Wq_h Wk_h^T and W_OV = Wv_h Wo_h (cpp/headwise/circuits.hpp).
  api.headCircuits = function (options) {
    var m = 'headCircuits';
    var o = checkOptions(m, options, ['wq', 'wk', 'wv', 'wo', 'numHeads'],
      ['wq', 'wk', 'wv', 'wo', 'numHeads']);
    var r = unwrap(m, raw._headCircuits(weightsIn(m, o, {
      numHeads: integer(m, 'numHeads', o.numHeads)
    })));
    return moduleResult(r);
  };

  if (installTraining && typeof raw._trainerCreate === 'function') installTraining(api, raw);
  else lessonOnly(api);

  api.heapStats = function () {
    return { heapBytes: raw.HEAP8.length, usedBytes: raw._heapStats().usedBytes };
  };

  api.limits = raw._limits();
  api.version = VERSION;
  return Object.freeze(api);
}
