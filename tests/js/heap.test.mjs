// No leaks across thousands of calls: after a warm-up, 10,000 calls of each method at the
// lesson's size (and 10,000 failing calls) leave the WASM heap's size, the bytes malloc has in
// use, and Embind's table of JS value handles exactly where they were.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { LESSON, assertLessonNumbers, createHeadwise } from './helpers.mjs';

const CALLS = 10000;
const WARM_UP = 100;

// The object given to the factory is Emscripten's Module: after loading it also carries
// count_emval_handles(), the number of live JS values held by C++ (val) handles.
const moduleArg = {};
const hw = await createHeadwise(moduleArg);

const lesson = hw.seedExperiment({ ...LESSON, bias: true });
const W = { wq: lesson.wq, wk: lesson.wk, wv: lesson.wv, wo: lesson.wo };
const B = { bq: lesson.bq, bk: lesson.bk, bv: lesson.bv, bo: lesson.bo };
const packed = hw.packLessonWeights({ ...W, ...B });
const TORCH = {
  embedDim: 8, numHeads: 2, ...packed, query: lesson.x, key: lesson.x, value: lesson.x
};
const CAUSAL = [0, 1, 2, 3, 4].map((i) => [0, 1, 2, 3, 4].map((j) => j > i));

function expectThrow(call) {
  try {
    call();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

// Each call reads one field, so lazily built results are built too.
const METHODS = {
  seedExperiment: () => hw.seedExperiment(LESSON).headWeights,
  'seedExperiment (bias, causal)': () =>
    hw.seedExperiment({ ...LESSON, bias: true, causal: true }).output,
  multiHeadAttention: () => hw.multiHeadAttention({ x: lesson.x, ...W, ...B, numHeads: 2 }).output,
  torchMultiheadAttention: () => hw.torchMultiheadAttention({
    ...TORCH, attnMask: CAUSAL, keyPaddingMask: [false, false, true, false, false],
    averageAttnWeights: false
  }).attnWeights,
  parameterCount: () => hw.parameterCount({ embedDim: 8, numHeads: 2, kdim: 5, vdim: 7 }).tensors,
  packLessonWeights: () => hw.packLessonWeights({ ...W, ...B }).inProjBias,
  compareHeads: () => hw.compareHeads({ headWeights: lesson.headWeights }),
  allclose: () => hw.allclose({ a: lesson.q, b: lesson.k }),
  maxAbsDiff: () => hw.maxAbsDiff({ a: lesson.q, b: lesson.k }),
  heapStats: () => hw.heapStats(),
  // The core throws std::invalid_argument; the adapter catches it and returns the message.
  'seedExperiment failing in the core': () =>
    expectThrow(() => hw.seedExperiment({ ...LESSON, dModel: 10, numHeads: 4 })),
  'torchMultiheadAttention failing in the core': () =>
    expectThrow(() => hw.torchMultiheadAttention({ ...TORCH, keyPaddingMask: [true] })),
  'packLessonWeights failing in the adapter': () =>
    expectThrow(() => hw.packLessonWeights({ ...W, bq: B.bq }))
};

function snapshot() {
  return { ...hw.heapStats(), emvalHandles: moduleArg.count_emval_handles() };
}

before(() => {
  assert.equal(typeof moduleArg.count_emval_handles, 'function');
});

for (const [name, call] of Object.entries(METHODS)) {
  test(CALLS + ' calls of ' + name, () => {
    for (let i = 0; i < WARM_UP; i++) call();
    const baseline = snapshot();
    for (let i = 0; i < CALLS; i++) call();
    assert.deepEqual(snapshot(), baseline, 'heap after ' + CALLS + ' calls of ' + name);
  });
}

test('still the lesson\'s numbers afterwards', () => {
  assertLessonNumbers(hw);
});

test('the measure sees a leak of even one small buffer', () => {
  // heapStats().usedBytes is dlmalloc's mallinfo().uordblks: a buffer left allocated shows at
  // once (Module._malloc stands in for a leaking adapter).
  const before = hw.heapStats();
  const p = moduleArg._malloc(100);
  assert.ok(hw.heapStats().usedBytes >= before.usedBytes + 100, 'a live 100-byte buffer is counted');
  moduleArg._free(p);
  assert.deepEqual(hw.heapStats(), before);
});
