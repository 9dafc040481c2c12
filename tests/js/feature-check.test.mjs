// createHeadwise() checks what the module needs before compiling it: WebAssembly, WebAssembly
// SIMD and DecompressionStream. dist/headwise.js runs here as a classic script in a fresh
// context whose globals lack one feature at a time; the promise must reject with a clear Error
// naming the missing feature and the browsers that have it, without touching the module.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import vm from 'node:vm';

import { DIST_JS } from './helpers.mjs';

const SOURCE = readFileSync(DIST_JS, 'utf8');
const BROWSERS =
  'Headwise needs Chrome or Edge 91+, Firefox 113+ or Safari 16.4+ (or Node.js 18+).';

// A context with only the given globals (and the environment variables, without which a
// mutation-testing run could not switch its mutants on in here); returns its createHeadwise,
// a global as after a <script>.
function load(globals) {
  const context = vm.createContext({ ...globals, process: { env: process.env } });
  vm.runInContext(SOURCE, context, { filename: 'headwise.js' });
  assert.equal(typeof context.createHeadwise, 'function', 'createHeadwise is a global');
  return context.createHeadwise;
}

async function rejection(factory) {
  try {
    await factory();
  } catch (e) {
    return e;
  }
  assert.fail('createHeadwise() resolved');
}

test('without WebAssembly: a clear Error, before anything else', async () => {
  for (const WebAssembly of [undefined, 'wasm', {}, { validate: 1 }]) {
    const e = await rejection(load({ WebAssembly }));
    assert.ok(e instanceof Error || e.constructor.name === 'Error');
    assert.equal(e.message,
      'createHeadwise: This browser does not support WebAssembly; ' + BROWSERS);
  }
});

test('without WebAssembly SIMD: the probe fails to validate, and the message says so', async () => {
  let probe = null;
  const noSimd = {
    validate(bytes) {
      probe = bytes;
      return false;
    }
  };
  const e = await rejection(load({ WebAssembly: noSimd, DecompressionStream, Response }));
  assert.equal(e.message, 'createHeadwise: This browser does not support WebAssembly SIMD ' +
    '(128-bit vector instructions), which the attention kernels use; ' + BROWSERS);
  // The probe is a real module that uses a SIMD instruction: valid here (Node has SIMD), and
  // invalid once its SIMD opcode prefix (0xfd) is gone.
  assert.ok(probe instanceof Uint8Array || probe.constructor.name === 'Uint8Array');
  assert.equal(WebAssembly.validate(probe), true);
  const bytes = Array.from(probe);
  assert.deepEqual(bytes.slice(0, 8), [0, 97, 115, 109, 1, 0, 0, 0]);  // "\0asm", version 1
  assert.ok(bytes.includes(0xfd));
  assert.equal(WebAssembly.validate(new Uint8Array(bytes.map((b) => (b === 0xfd ? 0x01 : b)))),
    false);
});

test('without DecompressionStream (or Response): the embedded module cannot be inflated', async () => {
  for (const globals of [{ WebAssembly, Response }, { WebAssembly, DecompressionStream }]) {
    const e = await rejection(load(globals));
    assert.equal(e.message, 'createHeadwise: This browser cannot decompress the embedded ' +
      'module (no DecompressionStream); ' + BROWSERS);
  }
});

test('with every feature, the same script loads and computes in the fresh context', async () => {
  const factory = load({
    WebAssembly, DecompressionStream, Response, ReadableStream, Blob, TextDecoder, TextEncoder, atob, console,
    setTimeout, clearTimeout, performance, crypto
  });
  const hw = await factory();
  assert.equal(hw.parameterCount({ embedDim: 8, numHeads: 2, bias: false }).total, 256);
});
