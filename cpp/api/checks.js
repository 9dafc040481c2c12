// Option checking: each option's type and shape, and the coded Error the API throws
// (part of the public JS API; cpp/api/assemble.mjs puts the parts together).

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

function weightsIn(method, o, raw) {
  ['wq', 'wk', 'wv', 'wo'].forEach(function (f) { raw[f] = matrix(method, f, o[f]); });
  ['bq', 'bk', 'bv', 'bo'].forEach(function (f) {
    if (given(o[f])) raw[f] = vector(method, f, o[f]);
  });
  return raw;
}
