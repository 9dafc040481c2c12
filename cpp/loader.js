// Runs inside Emscripten's module factory, before the WebAssembly is instantiated.
//
// With SINGLE_FILE the .wasm bytes are embedded as a data: URL. Emscripten 3.1.6 would first
// try fetch() on that URL in browsers, which a strict Content-Security-Policy (no data: in
// connect-src) refuses and reports as a violation, before falling back to decoding it. This
// hook decodes the embedded bytes directly and instantiates them, so no request is made.
//
// cpp/postlink.mjs stores those bytes zlib-compressed (base64 defeats gzip, so a served
// headwise.js is much smaller this way): they are inflated here with the platform's
// DecompressionStream. A WebAssembly binary starts with "\0asm", a zlib stream with 0x78.
/* global Module, wasmBinaryFile, tryParseAsDataURI, readyPromiseReject */
// The bytes are written to the stream directly: WebKitGTK cannot read a Blob's stream() in a
// blob: Worker of a file:// page (NotReadableError), which kept the module out of the Worker there.
function inflateWasm(bytes) {
  if (bytes[0] === 0) return Promise.resolve(bytes);
  var inflate = new DecompressionStream('deflate');
  var writer = inflate.writable.getWriter();
  writer.write(bytes).catch(function () {});
  writer.close().catch(function () {});
  return new Response(inflate.readable).arrayBuffer();
}

Module['instantiateWasm'] = function (imports, receiveInstance) {
  inflateWasm(tryParseAsDataURI(wasmBinaryFile)).then(function (bytes) {
    return WebAssembly.instantiate(bytes, imports);
  }).then(function (output) {
    receiveInstance(output.instance, output.module);
  }, function (error) {
    readyPromiseReject(error);
  });
  return {};  // exports arrive asynchronously through receiveInstance
};
