// Post-link step of dist/headwise.js (run by CMake after em++): compresses the embedded
// WebAssembly binary, then minifies the JavaScript around it.
//
// 1. Compression.
// SINGLE_FILE embeds the .wasm as base64 in a data: URL. Base64 hides the binary's repetitions
// from gzip (a byte sequence encodes differently at each offset mod 3), so a served, gzipped
// headwise.js carried the module at about 1.3x its own gzipped size. Here the binary is
// zlib-compressed (deflate, level 9) before base64: the embedded text shrinks by more than half
// and gzip can no longer make it worse. cpp/loader.js inflates it with the platform's
// DecompressionStream before instantiating (it recognises the compressed form because a
// WebAssembly binary starts with "\0asm" and a zlib stream with 0x78).
//
// 2. One function around everything: `var createHeadwise = (function headwiseModule() { … })();`.
//    The page's Worker needs the module's code, and fetching headwise.js again is impossible
//    from file:// and under a strict CSP (and would download it twice). A function's source text
//    is kept by every engine (Function.prototype.toString), so the JS API offers (cpp/api/factory.js)
//    createHeadwise.moduleSource(): this whole file as a string, from memory, for a blob: Worker.
//
// 3. Minification with esbuild (the devDependency that bundles the page), when it is installed
//    (`npm ci`): Emscripten's -O2 output and the JS API keep their whitespace and long names.
//    Strings (every error message) are kept as they are. Without esbuild the step is skipped.
//
//   node cpp/postlink.mjs dist/headwise.js
import {readFileSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';
import {deflateSync, gzipSync, inflateSync} from 'node:zlib';

const file = process.argv[2];
if (!file || process.argv.length > 3) {
  console.error('usage: node cpp/postlink.mjs <headwise.js>');
  process.exit(2);
}
const prefix = 'data:application/octet-stream;base64,';
const js = readFileSync(file, 'utf8');
// The glue also holds the prefix itself as a string: take the occurrence with the payload.
let begin = -1;
let end = -1;
for (let at = js.indexOf(prefix); at >= 0; at = js.indexOf(prefix, at + 1)) {
  let stop = at + prefix.length;
  while (stop < js.length && /[A-Za-z0-9+/=]/.test(js[stop])) stop++;
  if (stop - at - prefix.length > end - begin) {
    begin = at + prefix.length;
    end = stop;
  }
}
if (end - begin < 8) {
  console.error(`${file}: no embedded data:application/octet-stream;base64 payload`);
  process.exit(1);
}
const bytes = Buffer.from(js.slice(begin, end), 'base64');
const gz = (s) => gzipSync(s, {level: 9}).length;
let out = js;
if (bytes[0] === 0x78) {
  console.log(`${file}: the embedded binary is already compressed`);
} else if (bytes.readUInt32BE(0) !== 0x0061736d) {
  console.error(`${file}: the embedded data is not a WebAssembly binary`);
  process.exit(1);
} else {
  const packed = deflateSync(bytes, {level: 9, memLevel: 9});
  if (!inflateSync(packed).equals(bytes)) throw new Error('deflate round trip failed');
  out = js.slice(0, begin) + packed.toString('base64') + js.slice(end);
  console.log(`${file}: wasm ${bytes.length} B, embedded deflated (${packed.length} B)`);
}

const WRAP_BEGIN = 'var createHeadwise = (function headwiseModule() {\n';
const WRAP_END = '\nreturn createHeadwise;\n})();\n';
if (out.startsWith(WRAP_BEGIN)) {
  console.log(`${file}: already wrapped in headwiseModule`);
} else {
  out = WRAP_BEGIN + out + WRAP_END;
}

const require = createRequire(fileURLToPath(new URL('../package.json', import.meta.url)));
let esbuild = null;
try {
  esbuild = require('esbuild');
} catch {
  console.log(`${file}: esbuild is not installed (npm ci); the glue is left unminified`);
}
if (esbuild) {
  // A classic script: top-level names (createHeadwise) are globals and stay as they are.
  out = esbuild.transformSync(out, {
    minify: true,
    legalComments: 'none',
  }).code;
}
writeFileSync(file, out);
console.log(`${file}: ${js.length} -> ${out.length} B, gzip -9 ${gz(js)} -> ${gz(out)} B`);
