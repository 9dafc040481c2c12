// multiHeadAttention's option into (dist/headwise.js only; cpp/api/no-training.js declares
// intoArrays null for the lesson-only module).

// multiHeadAttention's option into: a previous result, or its .typed, or any object of such
// {data: Float64Array, ...}. Each array it holds takes this call's result of that name
// instead of a new array (new memory is what most of a large call's cost beyond the forward
// was: see tests/bench/README.md); the module checks each length against the result before it writes
// anything. Not in headwise-lesson.js (null there), whose page does not use it.
var intoArrays = function (method, value) {
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
