// Training (dist/headwise.js only): the trainer's checks and hw.createTrainer, and
// installTraining, which adds every training method to the API (cpp/api/text-model.js and
// cpp/api/text-trainer.js add the text model's and the text trainer's). The lesson-only module
// has cpp/api/no-training.js instead.

// number[][] of integer token ids -> {data: Float64Array, rows, cols} (ids' range is the
// core's to check).
function tokenMatrix(method, name, value) {
  var m = matrix(method, name, value);
  for (var i = 0; i < m.data.length; i++) {
    if (!Number.isSafeInteger(m.data[i])) {
      var at = name + '[' + Math.floor(i / m.cols) + '][' + (i % m.cols) + ']';
      fail(method, at + ' must be an integer token id, got ' + describe(m.data[i]), 'integer',
        { path: at, given: describe(m.data[i]) });
    }
  }
  return m;
}

// targets (sequences, positions, relations) as number[][][] -> {data, rows: B * n, cols: R},
// shaped like tokens (B, n).
function targetStack(method, name, value, tokens) {
  if (!Array.isArray(value)) {
    fail(method, name + ' must be an array with one entry per sequence (number[][][]), got ' +
      describe(value), 'type', { path: name, given: describe(value) });
  }
  if (value.length !== tokens.rows) {
    fail(method, name + ' has ' + value.length + ' sequences but tokens has ' + tokens.rows +
      '; give one list of per-position targets for each sequence', 'length',
      { path: name, length: value.length, expected: tokens.rows });
  }
  var relations = -1;
  var data = null;
  for (var b = 0; b < value.length; b++) {
    var seq = value[b];
    if (!Array.isArray(seq) || seq.length !== tokens.cols) {
      var gotSeq = Array.isArray(seq) ? 'an array of ' + seq.length : describe(seq);
      fail(method, name + '[' + b + '] must be an array of ' + tokens.cols +
        ' positions (like tokens[' + b + ']), got ' + gotSeq, 'type',
        { path: name + '[' + b + ']', given: gotSeq });
    }
    for (var i = 0; i < seq.length; i++) {
      var pos = seq[i];
      if (!isRow(pos) || pos.length === 0) {
        fail(method, name + '[' + b + '][' + i + '] must be an array with one target per ' +
          'relation, got ' + describe(pos), 'type',
          { path: name + '[' + b + '][' + i + ']', given: describe(pos) });
      }
      if (relations < 0) {
        relations = pos.length;
        data = new Float64Array(tokens.rows * tokens.cols * relations);
      } else if (pos.length !== relations) {
        fail(method, name + '[' + b + '][' + i + '] has ' + pos.length + ' targets but ' + name +
          '[0][0] has ' + relations + '; every position needs one per relation', 'length',
          { path: name + '[' + b + '][' + i + ']', length: pos.length, expected: relations });
      }
      for (var r = 0; r < relations; r++) {
        var t = pos[r];
        if (typeof t !== 'number' || !Number.isSafeInteger(t)) {
          fail(method, name + '[' + b + '][' + i + '][' + r + '] must be -1 or an integer ' +
            'token id, got ' + describe(t), 'integer',
            { path: name + '[' + b + '][' + i + '][' + r + ']', given: describe(t) });
        }
        data[(b * tokens.cols + i) * relations + r] = t;
      }
    }
  }
  return { data: data, rows: tokens.rows * tokens.cols, cols: relations };
}


// ablate (absent, or heads: a head index of layer 0 or a [layer, head] pair) ->
// [layer, head, layer, head, ...]; a bare index k is head k % heads of layer
// floor(k / heads), the numbering of attention()'s heads and headFocus's rows.
function ablatePairs(mm, value, layers, heads) {
  var ablate = given(value) ? value : [];
  if (!Array.isArray(ablate)) {
    fail(mm, 'ablate must be an array of heads, each a head index of layer 0 or a ' +
      '[layer, head] pair (number[] or [number, number][]), got ' + describe(ablate), 'type',
      { path: 'ablate', given: describe(ablate) });
  }
  var pairs = [];
  ablate.forEach(function (h, i) {
    var name = 'ablate[' + i + ']';
    if (Array.isArray(h)) {
      if (h.length !== 2) {
        fail(mm, name + ' must be a [layer, head] pair, got an array of ' + h.length, 'type',
          { path: name, given: 'an array of ' + h.length });
      }
      pairs.push(integer(mm, name + '[0] (the layer)', h[0]),
        integer(mm, name + '[1] (the head)', h[1]));
    } else {
      var k = integer(mm, name, h);
      if (layers > 1 && (k < 0 || k >= layers * heads)) {
        fail(mm, name + ' (' + k + ') must be a head index between 0 and ' +
          (layers * heads - 1) + ' (layer * ' + heads + ' + head), or a [layer, head] pair',
          'range', { path: name, value: k, min: 0, max: layers * heads - 1 });
      }
      // (with one layer the core checks the index: "ablated head (2) must be ...")
      pairs.push(layers > 1 ? Math.floor(k / heads) : 0, layers > 1 ? k % heads : k);
    }
  });
  return pairs;
}

// A model's circuits (cpp/bindings/trainer.cpp's circuits_out) nested by layer and head;
// copying[l][h] is a number with one read-out, a list of one score per read-out with more.
function circuitsOut(r, layers, heads) {
  var qk = new Tensor(r.qk.data, r.qk.shape);
  var ov = new Tensor(r.ov.data, r.ov.shape);
  var copying = new Tensor(r.copying.data, r.copying.shape).tolist();
  var previous = new Tensor(r.previousPosition.data, r.previousPosition.shape).tolist();
  function byHead(f) {
    var out = [];
    for (var l = 0; l < layers; l++) {
      var layer = [];
      for (var h = 0; h < heads; h++) layer.push(f(l, h, l * heads + h));
      out.push(layer);
    }
    return out;
  }
  // [l][h][m][g] of a (layers * heads)^2 table, for every layer m < l
  function composed(raw) {
    var table = new Tensor(raw.data, raw.shape).tolist();
    return byHead(function (l, h, k) {
      var earlier = [];
      for (var e = 0; e < l; e++) earlier.push(table[k].slice(e * heads, (e + 1) * heads));
      return earlier;
    });
  }
  return {
    qk: byHead(function (l, h, k) { return qk.head(k).tolist(); }),
    ov: byHead(function (l, h, k) { return ov.head(k).tolist(); }),
    copying: byHead(function (l, h, k) {
      return copying[k].length === 1 ? copying[k][0] : copying[k];
    }),
    previousPosition: previous,
    composition: {
      q: composed(r.compositionQ),
      k: composed(r.compositionK),
      v: composed(r.compositionV)
    }
  };
}


// What a trainer, a text model and a text trainer share: the module holds each by id, freed by
// free({id}). Where the engine has FinalizationRegistry, one never disposed is freed when its JS
// object is collected (finalizerOf(free): the registry, or null); dispose() frees at once.
function finalizerOf(free) {
  return typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(function (id) { free({ id: id }); })
    : null;
}

// handle.live(method): the id to pass to the module, or the coded refusal once disposed;
// handle.finish(t): t.dispose() (frees once, then does nothing) and t.disposed, t registered with
// the registry and frozen.
function handleOf(noun, id, registry, free) {
  var disposed = false;
  return {
    live: function (method) {
      if (disposed) fail(method, 'this ' + noun + ' has been disposed; create a new one', 'disposed', {}, null);
      return { id: id };
    },
    finish: function (t) {
      t.dispose = function () {
        if (disposed) return;
        disposed = true;
        // Stryker disable next-line ConditionalExpression,CallExpression: without it the registry would later dispose an id already erased, which erases nothing
        if (registry) registry.unregister(t);
        free({ id: id });
      };
      Object.defineProperty(t, 'disposed', { enumerable: true, get: function () { return disposed; } });
      if (registry) registry.register(t, id, t);
      return Object.freeze(t);
    }
  };
}

// Every training method of the API, added to api (lesson.js's wrap, when the module has them).
var installTraining = function (api, raw) {
  installTrainer(api, raw);
  installTextModel(api, raw);
  installTextTrainer(api, raw);
};

function installTrainer(api, raw) {
  api.trainingTasks = function () {
    // Stryker disable next-line StringLiteral: _trainingTasks cannot fail, so the name never shows
    return unwrap('trainingTasks', raw._trainingTasks()).tasks;
  };

  api.trainingRelations = function () {
    // Stryker disable next-line StringLiteral: _trainingRelations cannot fail, so the name never shows
    return unwrap('trainingRelations', raw._trainingRelations()).relations;
  };

  api.headsNeededDefaults = function () {
    // Stryker disable next-line StringLiteral: _headsNeededDefaults cannot fail, so the name never shows
    return unwrap('headsNeededDefaults', raw._headsNeededDefaults());
  };

  api.inductionDefaults = function () {
    // Stryker disable next-line StringLiteral: _inductionDefaults cannot fail, so the name never shows
    return unwrap('inductionDefaults', raw._inductionDefaults());
  };

  // Trainers not disposed are freed when their JS object is collected (where the engine
  // has FinalizationRegistry); dispose() frees at once.
  var finalizer = finalizerOf(function (o) { raw._trainerDispose(o); });

  api.createTrainer = function (options) {
    var m = 'createTrainer';
    var allowed = ['task', 'relations', 'layers', 'numHeads', 'dModel', 'seed', 'seqLen',
      'vocab', 'learningRate', 'batchSize', 'evalSize'];
    var o = checkOptions(m, options, allowed, []);
    if (!given(o.task) && !given(o.relations)) {
      fail(m, 'option "task" (a name from trainingTasks()) or option "relations" (names from ' +
        'trainingRelations()) is required', 'required', { path: 'task', other: 'relations' });
    }
    checkOptions(m, o, allowed, ['numHeads', 'dModel', 'seed']);
    if (given(o.task) && typeof o.task !== 'string') {
      fail(m, 'task must be a string (one of trainingTasks()\'s names), got ' + describe(o.task),
        'type', { path: 'task', given: describe(o.task) });
    }
    if (given(o.relations)) {
      if (!Array.isArray(o.relations)) {
        fail(m, 'relations must be an array of names from trainingRelations() (string[]), got ' +
          describe(o.relations), 'type', { path: 'relations', given: describe(o.relations) });
      }
      o.relations.forEach(function (r, i) {
        if (typeof r !== 'string') {
          fail(m, 'relations[' + i + '] must be a name from trainingRelations() (a string), got ' +
            describe(r), 'type', { path: 'relations[' + i + ']', given: describe(r) });
        }
      });
    }
    var args = {
      numHeads: integer(m, 'numHeads', o.numHeads),
      dModel: integer(m, 'dModel', o.dModel),
      seed: integer(m, 'seed', o.seed)
    };
    if (given(o.task)) args.task = o.task;
    if (given(o.relations)) args.relations = o.relations.slice();
    ['layers', 'seqLen', 'vocab', 'batchSize', 'evalSize'].forEach(function (f) {
      if (given(o[f])) args[f] = integer(m, f, o[f]);
    });
    if (given(o.learningRate)) {
      args.learningRate = number(m, 'learningRate', o.learningRate);
      if (!Number.isFinite(args.learningRate)) {
        fail(m, 'learningRate must be a finite number, got ' + describe(o.learningRate), 'finite',
          { path: 'learningRate', value: String(o.learningRate) });
      }
    }
    var created = unwrap(m, raw._trainerCreate(args));
    var id = created.id;
    var tensors = created.parameterCount.tensors;
    var names = tensors.map(function (t) { return t.name; });
    var heads = created.config.numHeads;
    var layers = created.config.layers;
    var handle = handleOf('trainer', id, finalizer, function (o) { raw._trainerDispose(o); });
    var live = handle.live;
    var t = {};

    t.config = Object.freeze(created.config);
    t.info = function () { return JSON.parse(JSON.stringify(created.config)); };

    t.step = function (k) {
      var mm = 'step';
      var a = live(mm);
      a.steps = given(k) ? integer(mm, 'k (the number of steps)', k) : 1;
      return unwrap(mm, raw._trainerStep(a));
    };

    t.parameters = function () {
      return moduleResult(unwrap('parameters', raw._trainerParameters(live('parameters'))));
    };

    t.setParameters = function (parameters) {
      var mm = 'setParameters';
      var a = live(mm);
      var p = checkOptions(mm, parameters, names, names);
      a.parameters = {};
      tensors.forEach(function (t) {
        var f = t.name;
        a.parameters[f] = t.shape.length === 1 ? vector(mm, f, p[f]) : matrix(mm, f, p[f]);
      });
      unwrap(mm, raw._trainerSetParameters(a));
    };

    t.gradients = function (options) {
      var mm = 'gradients';
      var a = live(mm);
      var opt = checkOptions(mm, options, ['tokens', 'targets'], ['tokens', 'targets']);
      a.tokens = tokenMatrix(mm, 'tokens', opt.tokens);
      a.targets = targetStack(mm, 'targets', opt.targets, a.tokens);
      var r = unwrap(mm, raw._trainerGradients(a));
      return { loss: r.loss, accuracy: r.accuracy, gradients: moduleResult(r.gradients) };
    };

    t.attention = function (options) {
      var mm = 'attention';
      var a = live(mm);
      var opt = checkOptions(mm, options, ['tokens'], ['tokens']);
      if (!isRow(opt.tokens)) {
        fail(mm, 'tokens must be one sequence of token ids (number[]), got ' +
          describe(opt.tokens), 'type', { path: 'tokens', given: describe(opt.tokens) });
      }
      a.tokens = tokenMatrix(mm, 'tokens', [opt.tokens]);
      var w = unwrap(mm, raw._trainerAttention(a)).weights;
      return nestedOf(new Tensor(w.data, w.shape));
    };

    t.evaluate = function (options) {
      var mm = 'evaluate';
      var a = live(mm);
      var opt = checkOptions(mm, options, ['ablate'], []);
      a.ablate = ablatePairs(mm, opt.ablate, layers, heads);
      return moduleResult(unwrap(mm, raw._trainerEvaluate(a)));
    };

    t.parameterCount = function () {
      return unwrap('parameterCount', raw._trainerParameterCount(live('parameterCount')));
    };

    t.circuits = function () {
      return circuitsOut(unwrap('circuits', raw._trainerCircuits(live('circuits'))),
        layers, heads);
    };

    return handle.finish(t);
  };

  api.trainerCount = function () { return raw._trainerCount(); };

}
