// Results: the one tensor type and the plain results made from the module's {data, shape}
// (part of the public JS API; cpp/api/assemble.mjs puts the parts together).

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
