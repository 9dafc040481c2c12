// Runs inside Emscripten's module factory, before the WebAssembly is instantiated.
//
// With SINGLE_FILE the .wasm bytes are embedded as a data: URL. Emscripten 3.1.6 would first
// try fetch() on that URL in browsers, which a strict Content-Security-Policy (no data: in
// connect-src) refuses and reports as a violation, before falling back to decoding it. This
// hook decodes the embedded bytes directly and instantiates them, so no request is made.
/* global Module, wasmBinaryFile, tryParseAsDataURI, readyPromiseReject */
Module['instantiateWasm'] = function (imports, receiveInstance) {
  var bytes = tryParseAsDataURI(wasmBinaryFile);
  WebAssembly.instantiate(bytes, imports).then(function (output) {
    receiveInstance(output.instance, output.module);
  }, function (error) {
    readyPromiseReject(error);
  });
  return {};  // exports arrive asynchronously through receiveInstance
};
