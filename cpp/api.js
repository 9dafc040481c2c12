// The public JS API of dist/headwise.js (appended after Emscripten's factory).
//
// The raw Embind functions take flat typed arrays and return every result as {data, shape}
// (cpp/bindings/marshal.hpp); this layer checks every option's type, flattens nested arrays,
// turns {error} results into real Error objects, and wraps each returned {data, shape} in the one
// tensor type (Tensor: flat data + shape), whose shape alone says whether it is a vector, a
// matrix or a stack. Results are plain objects whose tensors are row-major nested arrays made on
// first read (large results cost nothing until used), with the tensors as result.typed.
/* global createHeadwise, module, HEADWISE_LESSON_ONLY */
(function () {
  'use strict';

  var rawFactory = createHeadwise;
  var VERSION = '0.1.0';

  // ---- option checking --------------------------------------------------------------------

  function describe(value) {
    if (value === null) return 'null';
    if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
    if (typeof value === 'string') {
      var shown = value.length > 40 ? value.slice(0, 40) + '…' : value;
      return JSON.stringify(shown) + ' (string)';
    }
    if (typeof value === 'number' || typeof value === 'boolean') {
      return String(value) + ' (' + typeof value + ')';
    }
    if (typeof value === 'object') return 'an object';
    return typeof value;
  }

  // An Error as the API throws it: the English message ("method: what is wrong") for people, and
  // for programs a stable code, the option it concerns (field: null when none) and the
  // parameters the message quotes (cpp/api.d.ts lists the codes). The core's refusals arrive
  // from the module already coded ({error, code, field, params}: cpp/bindings/marshal.hpp).
  function coded(message, code, field, params) {
    var e = new Error(message);
    e.code = code;
    e.field = field === undefined ? null : field;
    e.params = params || {};
    return e;
  }

  // The option a name is part of: "tokens" for "tokens[0][2]", "into" for "into.q.data".
  function fieldOf(name) {
    var m = /^[A-Za-z]\w*/.exec(String(name));
    return m ? m[0] : null;
  }

  // Throws the JS layer's own refusal; field: the option named by params.path unless given.
  function fail(method, message, code, params, field) {
    var p = params || {};
    throw coded(method + ': ' + message, code, field === undefined ? fieldOf(p.path) : field, p);
  }

  function checkOptions(method, options, allowed, required) {
    if (options === undefined) options = {};
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      fail(method, 'expected one options object, got ' + describe(options), 'options',
        { given: describe(options) }, null);
    }
    var keys = Object.keys(options);
    for (var i = 0; i < keys.length; i++) {
      if (allowed.indexOf(keys[i]) < 0) {
        fail(method, 'unknown option "' + String(keys[i]).slice(0, 60) +
          '"; allowed options are ' + allowed.join(', '), 'unknownOption',
          { value: String(keys[i]).slice(0, 60), allowed: allowed.slice() }, String(keys[i]).slice(0, 60));
      }
    }
    for (var j = 0; j < required.length; j++) {
      if (options[required[j]] === undefined || options[required[j]] === null) {
        fail(method, 'option "' + required[j] + '" is required', 'required', { path: required[j] });
      }
    }
    return options;
  }

  function given(value) {
    return value !== undefined && value !== null;
  }

  function integer(method, name, value) {
    if (!Number.isInteger(value)) {  // false for non-numbers, NaN and infinities too
      fail(method, name + ' must be an integer, got ' + describe(value), 'integer',
        { path: name, given: describe(value) });
    }
    if (!Number.isSafeInteger(value)) {
      fail(method, name + ' (' + value + ') is too large; it must be a safe integer', 'safeInteger',
        { path: name, value: value });
    }
    return value;
  }

  function number(method, name, value, fallback) {
    if (!given(value)) return fallback;
    if (typeof value !== 'number' || Number.isNaN(value)) {
      fail(method, name + ' must be a number, got ' + describe(value), 'number',
        { path: name, given: describe(value) });
    }
    return value;
  }

  function flag(method, name, value, fallback) {
    if (!given(value)) return fallback;
    if (typeof value !== 'boolean') {
      fail(method, name + ' must be true or false, got ' + describe(value), 'boolean',
        { path: name, given: describe(value) });
    }
    return value;
  }

  function isRow(value) {
    return Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
  }

  function isTyped(value) {
    return ArrayBuffer.isView(value) && !(value instanceof DataView);
  }

  function size(method, name, value) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      fail(method, name + ' must be a whole number of at least 1, got ' + describe(value), 'whole',
        { path: name, given: describe(value) });
    }
    return value;
  }

  // {data: typed array, rows, cols[, depth]} (or a tensor, {data, shape}) as given: checked, and
  // used without a copy when data is already a Float64Array (the form results also offer, as
  // result.typed).
  function flat(method, name, value, depth) {
    if (!isTyped(value.data) || value.data instanceof BigInt64Array ||
        value.data instanceof BigUint64Array) {
      fail(method, name + '.data must be a typed array such as a Float64Array, got ' +
        describe(value.data), 'type', { path: name + '.data', given: describe(value.data) });
    }
    if (Array.isArray(value.shape)) value = shaped(method, name, value, depth);
    var out = { data: null, rows: size(method, name + '.rows', value.rows),
      cols: size(method, name + '.cols', value.cols) };
    var count = out.rows * out.cols;
    if (depth) {
      out.depth = size(method, name + '.depth', value.depth);
      count *= out.depth;
    }
    if (value.data.length !== count) {
      fail(method, name + '.data has ' + value.data.length + ' entries but ' +
        (depth ? name + '.depth × ' : '') + name + '.rows × ' + name + '.cols is ' + count, 'length',
        { path: name + '.data', length: value.data.length, expected: count });
    }
    out.data = value.data instanceof Float64Array ? value.data : new Float64Array(value.data);
    return out;
  }

  // A tensor {data, shape} as {data, rows, cols[, depth]}: its shape must have 2 dimensions (3 for
  // a stack).
  function shaped(method, name, value, depth) {
    var s = value.shape;
    var rank = depth ? 3 : 2;
    if (s.length !== rank) {
      fail(method, name + ' must be ' + (depth ? 'a stack of matrices (shape [depth, rows, cols])'
        : 'a matrix (shape [rows, cols])') + ', got a tensor of shape [' + s.join(', ') + ']');
    }
    var out = { data: value.data, rows: s[rank - 2], cols: s[rank - 1] };
    if (depth) out.depth = s[0];
    return out;
  }

  function isFlat(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value) &&
      !isTyped(value) && 'data' in value;
  }

  // number[][] (or an array of typed-array rows, or {data, rows, cols}) ->
  // {data: Float64Array, rows, cols}.
  function matrix(method, name, value) {
    if (isFlat(value)) return flat(method, name, value, false);
    if (!Array.isArray(value)) {
      fail(method, name + ' must be an array of rows (number[][]) or {data, rows, cols}, got ' +
        describe(value), 'type', { path: name, given: describe(value) });
    }
    var rows = value.length;
    if (rows === 0) fail(method, name + ' must have at least one row', 'empty', { path: name });
    if (!isRow(value[0])) {
      fail(method, name + '[0] must be an array of numbers, got ' + describe(value[0]), 'type',
        { path: name + '[0]', given: describe(value[0]) });
    }
    var cols = value[0].length;
    if (cols === 0) fail(method, name + ' must have at least one column', 'empty', { path: name });
    var data = new Float64Array(rows * cols);
    for (var i = 0; i < rows; i++) {
      var row = value[i];
      if (!isRow(row)) {
        fail(method, name + '[' + i + '] must be an array of numbers, got ' + describe(row), 'type',
          { path: name + '[' + i + ']', given: describe(row) });
      }
      if (row.length !== cols) {
        fail(method, name + '[' + i + '] has ' + row.length + ' entries but ' + name +
          '[0] has ' + cols + '; every row must have the same length', 'length',
          { path: name + '[' + i + ']', length: row.length, expected: cols });
      }
      for (var j = 0; j < cols; j++) {
        var x = row[j];
        if (typeof x !== 'number') {
          fail(method, name + '[' + i + '][' + j + '] must be a number, got ' + describe(x), 'number',
            { path: name + '[' + i + '][' + j + ']', given: describe(x) });
        }
        data[i * cols + j] = x;
      }
    }
    return { data: data, rows: rows, cols: cols };
  }

  function vector(method, name, value) {
    if (isFlat(value) && Array.isArray(value.shape)) {  // a tensor of shape [n]
      if (value.shape.length !== 1) {
        fail(method, name + ' must be a vector (shape [n]), got a tensor of shape [' +
          value.shape.join(', ') + ']');
      }
      value = value.data;
    }
    if (!isRow(value)) {
      fail(method, name + ' must be an array of numbers, got ' + describe(value), 'type',
        { path: name, given: describe(value) });
    }
    var n = value.length;
    if (n === 0) fail(method, name + ' must have at least one entry', 'empty', { path: name });
    var data = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      if (typeof value[i] !== 'number') {
        fail(method, name + '[' + i + '] must be a number, got ' + describe(value[i]), 'number',
          { path: name + '[' + i + ']', given: describe(value[i]) });
      }
      data[i] = value[i];
    }
    return { data: data, rows: n, cols: 1 };
  }

  function boolMatrix(method, name, value) {
    var rows = value.length;
    var cols = value[0].length;
    var data = new Uint8Array(rows * cols);
    for (var i = 0; i < rows; i++) {
      if (!Array.isArray(value[i]) || value[i].length !== cols) {
        fail(method, name + '[' + i + '] must be an array of ' + cols + ' booleans', 'type',
          { path: name + '[' + i + ']', given: describe(value[i]) });
      }
      for (var j = 0; j < cols; j++) {
        if (typeof value[i][j] !== 'boolean') {
          fail(method, name + '[' + i + '][' + j + '] must be a boolean (the mask is boolean ' +
            'because ' + name + '[0][0] is), got ' + describe(value[i][j]), 'boolean',
            { path: name + '[' + i + '][' + j + ']', given: describe(value[i][j]) });
        }
        data[i * cols + j] = value[i][j] ? 1 : 0;
      }
    }
    return { data: data, rows: rows, cols: cols };
  }

  function boolVector(method, name, value) {
    if (!Array.isArray(value)) {
      fail(method, name + ' must be an array of booleans, got ' + describe(value), 'type',
        { path: name, given: describe(value) });
    }
    if (value.length === 0) fail(method, name + ' must have at least one entry', 'empty', { path: name });
    var data = new Uint8Array(value.length);
    for (var i = 0; i < value.length; i++) {
      if (typeof value[i] !== 'boolean') {
        fail(method, name + '[' + i + '] must be a boolean, got ' + describe(value[i]), 'boolean',
          { path: name + '[' + i + ']', given: describe(value[i]) });
      }
      data[i] = value[i] ? 1 : 0;
    }
    return { data: data, rows: value.length, cols: 1 };
  }

  // An (h, n, n) stack as h nested matrices.
  function stack(method, name, value) {
    if (isFlat(value)) return flat(method, name, value, true);
    if (!Array.isArray(value) || value.length === 0) {
      fail(method, name + ' must be a non-empty array of matrices (number[][][]), got ' +
        describe(value), 'type', { path: name, given: describe(value) });
    }
    var first = matrix(method, name + '[0]', value[0]);
    var data = new Float64Array(value.length * first.rows * first.cols);
    data.set(first.data, 0);
    for (var h = 1; h < value.length; h++) {
      var m = matrix(method, name + '[' + h + ']', value[h]);
      if (m.rows !== first.rows || m.cols !== first.cols) {
        fail(method, name + '[' + h + '] has shape (' + m.rows + ', ' + m.cols + ') but ' +
          name + '[0] has (' + first.rows + ', ' + first.cols + '); all must match', 'shape',
          { path: name + '[' + h + ']', rows: m.rows, cols: m.cols, expectedRows: first.rows,
            expectedCols: first.cols });
      }
      data.set(m.data, h * first.rows * first.cols);
    }
    return { data: data, depth: value.length, rows: first.rows, cols: first.cols };
  }

  // ---- results ------------------------------------------------------------------------------

  // The one tensor type: the numbers the module wrote (flat, row-major, not copied) and their
  // shape as the module gave it: [n], [rows, cols], [depth, rows, cols] (or [layers, heads, n, n]
  // for the text model's attention). rows, cols and depth give the {data, rows, cols[, depth]}
  // form every option accepts; head(h) and row(i) are views of the same numbers; tolist() makes
  // the nested arrays. It crosses to a Worker as its own fields, {data, shape}.
  function Tensor(data, shape) {
    this.data = data;
    this.shape = shape;
  }

  Object.defineProperties(Tensor.prototype, {
    depth: { get: function () { return this.shape.length === 3 ? this.shape[0] : undefined; } },
    rows: { get: function () { return this.shape[this.shape.length === 1 ? 0 : this.shape.length - 2]; } },
    cols: { get: function () { return this.shape.length === 1 ? 1 : this.shape[this.shape.length - 1]; } }
  });

  function numel(shape) {
    var n = 1;
    for (var i = 0; i < shape.length; i++) n *= shape[i];
    return n;
  }

  // The tensor's first index fixed at h: head h of a stack, or layer h of [layers, heads, n, n].
  Tensor.prototype.head = function (h) {
    var inner = this.shape.slice(1);
    var size = numel(inner);
    return new Tensor(this.data.subarray(h * size, (h + 1) * size), inner);
  };

  Tensor.prototype.row = function (i) {
    return this.data.subarray(i * this.cols, (i + 1) * this.cols);
  };

  Tensor.prototype.copy = function () {
    return new Tensor(this.data.slice(), this.shape.slice());
  };

  Tensor.prototype.tolist = function () {
    if (this.shape.length === 1) return Array.prototype.slice.call(this.data);
    if (this.shape.length === 2) return nested(this.data, 0, this.rows, this.cols);
    // Stryker disable next-line ArrayDeclaration: the length only preallocates
    var out = new Array(this.shape[0]);
    for (var h = 0; h < this.shape[0]; h++) out[h] = this.head(h).tolist();
    return out;
  };

  function nested(flat, offset, rows, cols) {
    // Stryker disable next-line ArrayDeclaration: the length only preallocates
    var out = new Array(rows);
    for (var i = 0; i < rows; i++) {
      // Stryker disable next-line ArrayDeclaration: the length only preallocates
      var row = new Array(cols);
      var base = offset + i * cols;
      for (var j = 0; j < cols; j++) row[j] = flat[base + j];
      out[i] = row;
    }
    return out;
  }

  // Whether v is a tensor as the module returns it: {data: Float64Array, shape}.
  function isRawTensor(v) {
    return v !== null && typeof v === 'object' && v.data instanceof Float64Array &&
      Array.isArray(v.shape);
  }

  // The module's fields with each {data, shape} as a Tensor (into fields, returned).
  function tensorFields(raw, fields) {
    Object.keys(raw).forEach(function (f) {
      var v = raw[f];
      fields[f] = isRawTensor(v) ? new Tensor(v.data, v.shape) : v;
    });
    return fields;
  }

  // A tensor's nested arrays as a method documents them (a trainer's attention()), with the
  // tensor itself as their `typed` (not enumerable: they print and compare as plain arrays).
  function nestedOf(tensor) {
    var out = tensor.tolist();
    Object.defineProperty(out, 'typed', { value: tensor, enumerable: false, configurable: true });
    return out;
  }

  // An enumerable property computed on first read, then kept. It behaves like a plain data
  // property: assigning replaces it, and a frozen result still reads (the value is then cached
  // here, because the property can no longer be redefined).
  function lazy(target, name, compute) {
    var done = false;
    var value;
    function settle(v) {
      var d = Object.getOwnPropertyDescriptor(target, name);
      if (d && d.configurable) {
        Object.defineProperty(target, name, {
          value: v, enumerable: true, configurable: true, writable: true
        });
      }
    }
    Object.defineProperty(target, name, {
      enumerable: true,
      configurable: true,
      get: function () {
        if (!done) {
          value = compute();
          done = true;
        }
        settle(value);
        return value;
      },
      set: function (v) {
        settle(v);
      }
    });
  }

  // A result as the API documents it, from fields some of which are Tensors: each Tensor is
  // offered as nested arrays (made on first read) and, under the same name, in result.typed
  // (not enumerable, so results still print and compare as plain objects of nested arrays).
  function resultOf(fields) {
    var out = {};
    var typed = {};
    Object.defineProperty(out, 'typed', { value: typed, enumerable: false, configurable: true });
    Object.keys(fields).forEach(function (f) {
      var v = fields[f];
      if (v instanceof Tensor) {
        typed[f] = v;
        lazy(out, f, function () { return v.tolist(); });
      } else {
        out[f] = v;
      }
    });
    return out;
  }

  function unwrap(method, result) {
    if (result && typeof result.error === 'string') {
      throw coded(method + ': ' + result.error, result.code, result.field, result.params);
    }
    return result;
  }

  // The module's result in the API's form: its tensors as nested arrays made when read, and as
  // result.typed.
  function moduleResult(raw, fields) {
    return resultOf(tensorFields(raw, fields || {}));
  }

  // multiHeadAttention's option into: a previous result, or its .typed, or any object of such
  // {data: Float64Array, ...}. Each array it holds takes this call's result of that name
  // instead of a new array (new memory is what most of a large call's cost beyond the forward
  // was: see tests/bench/README.md); the module checks each length against the result before it writes
  // anything. Not in headwise-lesson.js (null there), whose page does not use it.
  var intoArrays = null;
  if (typeof HEADWISE_LESSON_ONLY === 'undefined' || !HEADWISE_LESSON_ONLY) intoArrays = function (method, value) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || isTyped(value)) {
      fail(method, 'into must be a previous result or its .typed, got ' + describe(value), 'type',
        { path: 'into', given: describe(value) });
    }
    var from = value.typed !== null && typeof value.typed === 'object' ? value.typed : value;
    var out = {};
    var arrays = [];
    // Every array it holds goes to the module, which writes the results it has a name for (and
    // says so when it has none of them).
    Object.keys(from).forEach(function (f) {
      if (!given(from[f]) || typeof from[f] !== 'object' || !('data' in from[f])) return;
      var data = from[f].data;
      if (!(data instanceof Float64Array)) {
        var got = isTyped(data) ? 'a ' + data.constructor.name : describe(data);
        fail(method, 'into.' + f + '.data must be a Float64Array, got ' + got, 'type',
          { path: 'into.' + f + '.data', given: got });
      }
      arrays.forEach(function (other) {
        var a = data.byteOffset;
        var b = other.data.byteOffset;
        if (other.data.buffer === data.buffer &&
            a < b + other.data.byteLength && b < a + data.byteLength) {
          fail(method, 'into.' + f + '.data shares memory with into.' + other.name +
            '.data; each result needs an array of its own', 'sharedMemory',
            { path: 'into.' + f + '.data', other: 'into.' + other.name + '.data' });
        }
      });
      arrays.push({ name: f, data: data });
      out[f] = { data: data };
    });
    return out;
  };

  function weightsIn(method, o, raw) {
    ['wq', 'wk', 'wv', 'wo'].forEach(function (f) { raw[f] = matrix(method, f, o[f]); });
    ['bq', 'bk', 'bv', 'bo'].forEach(function (f) {
      if (given(o[f])) raw[f] = vector(method, f, o[f]);
    });
    return raw;
  }

  // ---- training (not in the lesson-only module) ---------------------------------------------
  // cpp/postlink.mjs defines HEADWISE_LESSON_ONLY as true for dist/headwise-lesson.js, whose
  // minified file then drops this block; there (and in any module without the trainer's
  // bindings) the training methods throw an error naming the module that has them.

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

  var installTraining = null;
  if (typeof HEADWISE_LESSON_ONLY === 'undefined' || !HEADWISE_LESSON_ONLY) {
    installTraining = function (api, raw) {
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
      var finalizer = typeof FinalizationRegistry === 'function'
        ? new FinalizationRegistry(function (id) { raw._trainerDispose({ id: id }); })
        : null;

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
        var disposed = false;
        var t = {};

        function live(method) {
          if (disposed) fail(method, 'this trainer has been disposed; create a new one', 'disposed', {}, null);
          return { id: id };
        }

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

        t.dispose = function () {
          if (disposed) return;
          disposed = true;
          // Stryker disable next-line ConditionalExpression,CallExpression: without it the registry would later dispose an id already erased, which erases nothing
          if (finalizer) finalizer.unregister(t);
          raw._trainerDispose({ id: id });
        };

        Object.defineProperty(t, 'disposed', { enumerable: true, get: function () { return disposed; } });
        if (finalizer) finalizer.register(t, id, t);
        return Object.freeze(t);
      };

      api.trainerCount = function () { return raw._trainerCount(); };

      // A text model from the bytes of its weights file (cpp/headwise/text_model.hpp).
      var textFinalizer = typeof FinalizationRegistry === 'function'
        ? new FinalizationRegistry(function (id) { raw._textModelDispose({ id: id }); })
        : null;

      api.textModel = function (options) {
        var m = 'textModel';
        var o = checkOptions(m, options, ['weights'], ['weights']);
        var w = o.weights;
        if (w instanceof ArrayBuffer) w = new Uint8Array(w);
        if (!(w instanceof Uint8Array)) {
          fail(m, 'weights must be the bytes of a text model\'s weights file (a Uint8Array or ' +
            'an ArrayBuffer), got ' + describe(o.weights), 'type',
            { path: 'weights', given: describe(o.weights) });
        }
        var created = unwrap(m, raw._textModelCreate({ weights: w }));
        var id = created.id;
        var config = Object.freeze(created.config);
        var vocabulary = created.vocabulary;
        var disposed = false;
        var t = {};

        function live(method) {
          if (disposed) fail(method, 'this text model has been disposed; create a new one', 'disposed', {}, null);
          return { id: id };
        }

        t.config = config;
        t.metadata = function () { return JSON.parse(created.metadata); };
        t.vocabulary = function () { return vocabulary.slice(); };

        // A string the module can read as UTF-8: a lone surrogate (half of a character) is refused.
        function textArg(mm, text) {
          if (typeof text !== 'string') {
            fail(mm, 'text must be a string, got ' + describe(text), 'type',
              { path: 'text', given: describe(text) });
          }
          var lone = /[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/.exec(text);
          if (lone) {
            var where = lone.index + (lone[1] ? lone[1].length : 0);
            fail(mm, 'text holds half of a character (a lone UTF-16 surrogate) at index ' + where +
              '; give well-formed text', 'surrogate', { path: 'text', index: where });
          }
          return text;
        }

        // opt.text or opt.ids (one of them) into a.
        function sequenceIn(mm, opt, a) {
          if (given(opt.text) === given(opt.ids)) {
            fail(mm, 'give either text (a string) or ids (word ids, number[]), not ' +
              (given(opt.text) ? 'both' : 'neither'), given(opt.text) ? 'conflict' : 'required',
              { path: 'text', other: 'ids' });
          }
          if (given(opt.text)) {
            a.text = textArg(mm, opt.text);
          } else {
            if (!isRow(opt.ids) || opt.ids.length === 0) {
              fail(mm, 'ids must be a non-empty list of word ids (number[]), got ' +
                describe(opt.ids), 'type', { path: 'ids', given: describe(opt.ids) });
            }
            a.ids = tokenMatrix(mm, 'ids', [opt.ids]);
          }
        }

        // A word (a string, read as the tokenizer reads text) or a word id (an integer) into a.
        function wordIn(mm, word, a) {
          if (typeof word === 'string') a.word = textArg(mm, word);
          else if (typeof word === 'number') a.wordId = integer(mm, 'word', word);
          else fail(mm, 'word must be a word (a string) or a word id (an integer), got ' + describe(word), 'type',
            { path: 'word', given: describe(word) });
        }

        t.tokenize = function (text) {
          var mm = 'tokenize';
          var a = live(mm);
          a.text = textArg(mm, text);
          var r = unwrap(mm, raw._textModelTokenize(a));
          return { words: r.words, ids: r.ids, unknown: r.unknown };
        };

        t.run = function (options) {
          var mm = 'run';
          var a = live(mm);
          var opt = checkOptions(mm, options, ['text', 'ids', 'ablate'], []);
          sequenceIn(mm, opt, a);
          a.ablate = ablatePairs(mm, opt.ablate, config.layers, config.numHeads);
          var r = unwrap(mm, raw._textModelRun(a));
          var topIds = r.topIds.data;
          var topP = r.topProbabilities.data;
          var top = r.topIds.shape[1];
          var predictions = [];
          for (var i = 0; i < r.topIds.shape[0]; i++) {
            var row = [];
            for (var j = 0; j < top; j++) {
              var k = topIds[i * top + j];
              row.push({ word: vocabulary[k], id: k, probability: topP[i * top + j] });
            }
            predictions.push(row);
          }
          return moduleResult({
            words: r.words,
            ids: r.ids,
            unknown: r.unknown,
            attention: r.attention,
            predictions: predictions,
            loss: r.loss,
            tokenLoss: r.tokenLoss
          });
        };

        t.parameters = function () {
          return moduleResult(unwrap('parameters', raw._textModelParameters(live('parameters'))));
        };

        t.circuits = function () {
          return circuitsOut(unwrap('circuits', raw._textModelCircuits(live('circuits'))),
            config.layers, config.numHeads);
        };

        t.attribute = function (options) {
          var mm = 'attribute';
          var a = live(mm);
          var opt = checkOptions(mm, options, ['text', 'ids', 'position', 'word'], ['position']);
          sequenceIn(mm, opt, a);
          a.position = integer(mm, 'position', opt.position);
          if (given(opt.word)) wordIn(mm, opt.word, a);
          var r = unwrap(mm, raw._textModelAttribute(a));
          return {
            word: r.word,
            id: r.id,
            position: r.position,
            logit: r.logit,
            probability: r.probability,
            direct: r.direct,
            heads: new Tensor(r.heads.data, r.heads.shape).tolist()
          };
        };

        t.promoted = function (options) {
          var mm = 'promoted';
          var a = live(mm);
          var opt = checkOptions(mm, options, ['layer', 'head', 'word', 'k'], ['layer', 'head', 'word']);
          a.layer = integer(mm, 'layer', opt.layer);
          a.head = integer(mm, 'head', opt.head);
          wordIn(mm, opt.word, a);
          a.k = given(opt.k) ? integer(mm, 'k', opt.k) : 10;
          return unwrap(mm, raw._textModelPromoted(a));
        };

        t.dispose = function () {
          if (disposed) return;
          disposed = true;
          // Stryker disable next-line ConditionalExpression,CallExpression: without it the registry would later dispose an id already erased, which erases nothing
          if (textFinalizer) textFinalizer.unregister(t);
          raw._textModelDispose({ id: id });
        };

        Object.defineProperty(t, 'disposed', { enumerable: true, get: function () { return disposed; } });
        if (textFinalizer) textFinalizer.register(t, id, t);
        return Object.freeze(t);
      };

      // ---- the text trainer (hw.createTextTrainer; cpp/headwise/text_trainer.hpp) ------------
      var textTrainerFinalizer = typeof FinalizationRegistry === 'function'
        ? new FinalizationRegistry(function (id) { raw._textTrainerDispose({ id: id }); })
        : null;

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
        var disposed = false;
        var t = {};

        function live(method) {
          if (disposed) fail(method, 'this text trainer has been disposed; create a new one', 'disposed', {}, null);
          return { id: id };
        }

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

        t.dispose = function () {
          if (disposed) return;
          disposed = true;
          // Stryker disable next-line ConditionalExpression,CallExpression: without it the registry would later dispose an id already erased, which erases nothing
          if (textTrainerFinalizer) textTrainerFinalizer.unregister(t);
          raw._textTrainerDispose({ id: id });
        };

        Object.defineProperty(t, 'disposed', { enumerable: true, get: function () { return disposed; } });
        if (textTrainerFinalizer) textTrainerFinalizer.register(t, id, t);
        return Object.freeze(t);
      };
      // ---- end of the text trainer ----------------------------------------------------------
    };
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

  // The module uses WebAssembly SIMD (its matrix kernel is f64x2 code). Without it, compiling
  // the module would fail with an opaque CompileError, so say so first. The probe is the
  // smallest module using one SIMD instruction (i8x16.splat): it validates only with SIMD.
  var SIMD_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1,
    8, 0, 65, 0, 253, 15, 253, 98, 11];
  var BROWSERS =
    'Headwise needs Chrome or Edge 91+, Firefox 113+ or Safari 16.4+ (or Node.js 18+)';

  function missingFeature() {
    if (typeof WebAssembly !== 'object' || typeof WebAssembly.validate !== 'function') {
      return { feature: 'webassembly', message: 'This browser does not support WebAssembly; ' + BROWSERS + '.' };
    }
    if (!WebAssembly.validate(new Uint8Array(SIMD_PROBE))) {
      return { feature: 'simd', message: 'This browser does not support WebAssembly SIMD ' +
        '(128-bit vector instructions), which the attention kernels use; ' + BROWSERS + '.' };
    }
    // The embedded module is zlib-compressed (cpp/postlink.mjs); cpp/loader.js inflates it.
    if (typeof DecompressionStream !== 'function' || typeof Response !== 'function') {
      return { feature: 'decompression', message: 'This browser cannot decompress the embedded ' +
        'module (no DecompressionStream); ' + BROWSERS + '.' };
    }
    return null;
  }

  function factory(moduleArg) {
    var missing = missingFeature();
    if (missing) {
      return Promise.reject(coded('createHeadwise: ' + missing.message, 'unsupported', null,
        { feature: missing.feature }));
    }
    return rawFactory(moduleArg || {}).then(wrap);
  }

  // Whether this module trains (false for dist/headwise-lesson.js), known before it is created.
  factory.training = typeof HEADWISE_LESSON_ONLY === 'undefined' || !HEADWISE_LESSON_ONLY;

  // The tensor type and the result builders, for code that moves results between threads
  // (web/src/shared/compute/compute.js): a Tensor posted to another thread arrives as
  // {data, shape}; result() rebuilds an object result, nested() an array one (attention()'s).
  factory.Tensor = Tensor;
  factory.result = resultOf;
  factory.nested = nestedOf;

  // This whole file as the text of a classic script that defines createHeadwise, read from
  // memory (cpp/postlink.mjs wraps the file in the function headwiseModule, whose source text
  // the engine keeps): a blob: Worker gets the module without a second download. null if the
  // file was not post-linked.
  factory.moduleSource = function () {
    /* global headwiseModule */
    return typeof headwiseModule === 'function'
      ? 'var createHeadwise = (' + headwiseModule.toString() + ')();\n'
      : null;
  };

  createHeadwise = factory; // eslint-disable-line no-global-assign
  if (typeof module === 'object' && module && module.exports === rawFactory) {
    module.exports = factory;
  }
})();
