// createHeadwise: the feature checks, then the module wrapped (the last part of the API).
/* global createHeadwise, module */

var rawFactory = createHeadwise;
var VERSION = '0.1.0';

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
factory.training = installTraining !== null;

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
