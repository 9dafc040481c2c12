// hw.createTextTrainer: training a text model on the student's own text
// (cpp/headwise/text_trainer.hpp; dist/headwise.js only).

function installTextTrainer(api, raw) {
  var textTrainerFinalizer = finalizerOf(function (o) { raw._textTrainerDispose(o); });

  // Bytes of a weights file (Uint8Array or ArrayBuffer) for option `name`.
  function weightBytes(mm, name, value) {
    var w = value instanceof ArrayBuffer ? new Uint8Array(value) : value;
    if (!(w instanceof Uint8Array)) {
      fail(mm, name + ' must be the bytes of a text model\'s weights file (a Uint8Array or ' +
        'an ArrayBuffer), got ' + describe(value), 'type', { path: name, given: describe(value) });
    }
    return w;
  }

  api.createTextTrainer = function (options) {
    var m = 'createTextTrainer';
    var o = checkOptions(m, options, ['text', 'vocab', 'layers', 'numHeads', 'dModel', 'context',
      'seed', 'heldOut', 'warmStart', 'steps', 'batch'], ['text']);
    if (typeof o.text !== 'string') {
      fail(m, 'text must be a string, got ' + describe(o.text), 'type',
        { path: 'text', given: describe(o.text) });
    }
    var args = { text: o.text };
    ['vocab', 'layers', 'numHeads', 'dModel', 'context', 'seed', 'steps', 'batch'].forEach(function (f) {
      if (given(o[f])) args[f] = integer(m, f, o[f]);
    });
    if (given(o.heldOut)) args.heldOut = number(m, 'heldOut', o.heldOut);
    // warmStart: omitted, the built-in warm-up; null, none; else a weights file's bytes
    if (o.warmStart === null) args.scratch = true;
    else if (o.warmStart !== undefined) args.warmStart = weightBytes(m, 'warmStart', o.warmStart);
    var created = unwrap(m, raw._textTrainerCreate(args));
    var id = created.id;
    var count = created.parameterCount;
    var stepsDone = 0;
    var handle = handleOf('text trainer', id, textTrainerFinalizer, function (o) { raw._textTrainerDispose(o); });
    var live = handle.live;
    var t = {};

    t.config = Object.freeze(created.config);
    t.steps = created.steps;
    t.shards = created.shards;
    t.parameterCount = count;
    t.corpus = Object.freeze(created.corpus);
    t.baselines = Object.freeze(created.baselines);
    Object.defineProperty(t, 'stepsDone', { enumerable: true, get: function () { return stepsDone; } });

    t.step = function (k) {
      var mm = 'step';
      var a = live(mm);
      a.steps = given(k) ? integer(mm, 'k (the number of steps)', k) : 1;
      var r = unwrap(mm, raw._textTrainerStep(a));
      stepsDone = r.stepsDone;
      return r.loss;
    };

    t.shardGradients = function (shards) {
      var mm = 'shardGradients';
      var a = live(mm);
      if (!isRow(shards)) {
        fail(mm, 'shards must be a list of shard indices (number[]), got ' + describe(shards), 'type',
          { path: 'shards', given: describe(shards) });
      }
      a.shards = Array.prototype.map.call(shards, function (s, i) {
        return integer(mm, 'shards[' + i + ']', s);
      });
      var r = unwrap(mm, raw._textTrainerShardGradients(a));
      return { losses: r.losses.data, gradients: r.gradients.data };
    };

    t.shardSum = function (lo, hi) {
      var mm = 'shardSum';
      var a = live(mm);
      a.lo = integer(mm, 'lo', lo);
      a.hi = integer(mm, 'hi', hi);
      var r = unwrap(mm, raw._textTrainerShardSum(a));
      return { loss: r.loss, gradient: r.gradient.data };
    };

    t.applyGradients = function (sum, loss) {
      var mm = 'applyGradients';
      var a = live(mm);
      if (!(sum instanceof Float64Array)) {
        fail(mm, 'sum must be a Float64Array of ' + count + ' numbers, got ' + describe(sum), 'type',
          { path: 'sum', given: describe(sum) });
      }
      a.sum = { data: sum, rows: sum.length, cols: 1 };
      a.loss = number(mm, 'loss', loss, NaN);
      stepsDone = unwrap(mm, raw._textTrainerApplyGradients(a)).stepsDone;
    };

    t.evaluate = function () {
      var mm = 'evaluate';
      var r = unwrap(mm, raw._textTrainerEvaluate(live(mm)));
      return {
        heldOut: r.heldOut,
        heads: moduleResult(r.heads),
        inductionPositions: r.inductionPositions,
        repeats: r.repeats,
        stepsDone: r.stepsDone
      };
    };

    t.save = function () {
      return unwrap('save', raw._textTrainerSave(live('save'))).bytes;
    };

    t.model = function () {
      live('model');
      return api.textModel({ weights: t.save() });
    };

    return handle.finish(t);
  };
}
