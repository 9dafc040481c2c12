// Corners of the JS API's contract (cpp/api/) that the other node tests leave open: how a wrong value is
// described in a message (long strings are cut at 40 characters), the checks of vectors,
// boolean vectors and stacks, and how the lazily built result fields behave as plain data.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { LESSON, createHeadwise } from './helpers.mjs';

const hw = await createHeadwise();
const lesson = hw.seedExperiment(LESSON);
const W = { wq: lesson.wq, wk: lesson.wk, wv: lesson.wv, wo: lesson.wo };
const packed = hw.packLessonWeights(W);
const TORCH = {
  embedDim: 8, numHeads: 2, inProjWeight: packed.inProjWeight,
  outProjWeight: packed.outProjWeight, query: lesson.x, key: lesson.x, value: lesson.x
};
const B8 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

function message(call) {
  try {
    call();
  } catch (e) {
    assert.ok(e instanceof Error, 'an Error');
    return e.message;
  }
  assert.fail('no error thrown');
}

test('a wrong value is described by its type; strings are quoted and cut at 40 characters', () => {
  const bias = (value) => message(() => hw.seedExperiment({ ...LESSON, bias: value }));
  const forty = 'abcdefghij'.repeat(4);
  assert.equal(bias(forty),
    'seedExperiment: bias must be true or false, got "' + forty + '" (string)');
  assert.equal(bias(forty + 'k'),
    'seedExperiment: bias must be true or false, got "' + forty + '…" (string)');
  assert.equal(bias('x'.repeat(1000)), 'seedExperiment: bias must be true or false, got "' +
    'x'.repeat(40) + '…" (string)');
  assert.equal(bias(''), 'seedExperiment: bias must be true or false, got "" (string)');
  assert.equal(bias('say "hi"'),
    'seedExperiment: bias must be true or false, got "say \\"hi\\"" (string)');
  assert.equal(bias(0), 'seedExperiment: bias must be true or false, got 0 (number)');
  assert.equal(bias([true]), 'seedExperiment: bias must be true or false, got an array');
  assert.equal(bias({}), 'seedExperiment: bias must be true or false, got an object');
  assert.equal(bias(() => true), 'seedExperiment: bias must be true or false, got function');
  assert.equal(bias(Symbol('s')), 'seedExperiment: bias must be true or false, got symbol');
  assert.equal(bias(10n), 'seedExperiment: bias must be true or false, got bigint');
  const seed = (value) => message(() => hw.seedExperiment({ ...LESSON, seed: value }));
  assert.equal(seed(true), 'seedExperiment: seed must be an integer, got true (boolean)');
  assert.equal(seed(1.5), 'seedExperiment: seed must be an integer, got 1.5 (number)');
  assert.equal(seed(NaN), 'seedExperiment: seed must be an integer, got NaN (number)');
  assert.equal(seed(Infinity), 'seedExperiment: seed must be an integer, got Infinity (number)');
  assert.equal(seed('7'), 'seedExperiment: seed must be an integer, got "7" (string)');
  assert.equal(seed(-(2 ** 53)),
    'seedExperiment: seed (-9007199254740992) is too large; it must be a safe integer');
  assert.equal(seed(2 ** 53 - 1),
    'seedExperiment: seed (9007199254740991) must be an integer between 0 and 4294967295');
});

test('unknown options are named (cut at 60 characters) next to the allowed ones', () => {
  const long = 'o'.repeat(70);
  assert.equal(message(() => hw.maxAbsDiff({ a: [[1]], b: [[1]], [long]: 1 })),
    'maxAbsDiff: unknown option "' + 'o'.repeat(60) + '"; allowed options are a, b');
  assert.equal(message(() => hw.maxAbsDiff({ a: [[1]] })), 'maxAbsDiff: option "b" is required');
  assert.equal(message(() => hw.maxAbsDiff({ a: [[1]], b: null })),
    'maxAbsDiff: option "b" is required');
  assert.equal(message(() => hw.maxAbsDiff(undefined)), 'maxAbsDiff: option "a" is required');
});

test('matrices: every row, the first and the later ones, must be an array of numbers', () => {
  const mha = (x) => message(() => hw.multiHeadAttention({ ...W, numHeads: 2, x }));
  assert.equal(mha([null]), 'multiHeadAttention: x[0] must be an array of numbers, got null');
  assert.equal(mha([undefined, lesson.x[0]]),
    'multiHeadAttention: x[0] must be an array of numbers, got undefined');
  assert.equal(mha([lesson.x[0], 5]),
    'multiHeadAttention: x[1] must be an array of numbers, got 5 (number)');
  assert.equal(mha([lesson.x[0], 'abcdefgh']),
    'multiHeadAttention: x[1] must be an array of numbers, got "abcdefgh" (string)');
  assert.equal(mha([lesson.x[0], null]),
    'multiHeadAttention: x[1] must be an array of numbers, got null');
  assert.equal(mha([lesson.x[0], new DataView(new ArrayBuffer(64))]),
    'multiHeadAttention: x[1] must be an array of numbers, got an object');
  assert.equal(mha('abc'),
    'multiHeadAttention: x must be an array of rows (number[][]) or {data, rows, cols}, got "abc" (string)');
  // Typed-array rows are rows.
  const typed = hw.multiHeadAttention({ ...W, numHeads: 2,
    x: lesson.x.map((r) => Float64Array.from(r)) });
  assert.deepEqual(typed.output, lesson.output);
});

test('vectors: arrays or typed arrays of numbers, at least one entry', () => {
  const mha = (bq) => message(() => hw.multiHeadAttention({
    x: lesson.x, ...W, numHeads: 2, bq, bk: B8, bv: B8, bo: B8
  }));
  assert.equal(mha([]), 'multiHeadAttention: bq must have at least one entry');
  assert.equal(mha(5), 'multiHeadAttention: bq must be an array of numbers, got 5 (number)');
  assert.equal(mha({ length: 8 }),
    'multiHeadAttention: bq must be an array of numbers, got an object');
  assert.equal(mha(new DataView(new ArrayBuffer(8))),
    'multiHeadAttention: bq must be an array of numbers, got an object');
  assert.equal(mha([...B8.slice(1), '8']),
    'multiHeadAttention: bq[7] must be a number, got "8" (string)');
  // Typed arrays are vectors too, with the same numbers as plain arrays; each bias is added
  // to its own projection.
  const run = (b) => hw.multiHeadAttention({ x: lesson.x, ...W, numHeads: 2, ...b });
  const plain = run({ bq: B8, bk: B8, bv: B8, bo: B8 });
  assert.deepEqual(
    run({ bq: Float64Array.from(B8), bk: B8, bv: B8, bo: Float64Array.from(B8) }).output,
    plain.output);
  const none = run({});
  const zeroBo = run({ bq: B8, bk: B8, bv: B8, bo: new Array(8).fill(0) });
  for (const [b, field, without] of [['bq', 'q', none], ['bk', 'k', none], ['bv', 'v', none],
    ['bo', 'output', zeroBo]]) {
    assert.equal(plain[field][1][2], without[field][1][2] + 0.3, b + ' is added to ' + field);
  }
});

test('boolean key padding masks: an array of booleans, at least one entry', () => {
  const torch = (keyPaddingMask) => message(() => hw.torchMultiheadAttention({
    ...TORCH, keyPaddingMask
  }));
  assert.equal(torch([]), 'torchMultiheadAttention: keyPaddingMask must have at least one entry');
  assert.equal(torch('11000'), 'torchMultiheadAttention: keyPaddingMask must be an array of ' +
    'booleans, got "11000" (string)');
  assert.equal(torch(new Uint8Array(5)), 'torchMultiheadAttention: keyPaddingMask must be an ' +
    'array of booleans, got an object');
  assert.equal(torch([false, false, false, false, null]),
    'torchMultiheadAttention: keyPaddingMask[4] must be a boolean, got null');
  // true hides a key: its column of the weights is exactly 0, the others stay a distribution.
  const r = hw.torchMultiheadAttention({
    ...TORCH, keyPaddingMask: [false, true, false, false, true]
  });
  for (const row of r.attnWeights) {
    assert.equal(row[1], 0);
    assert.equal(row[4], 0);
    assert.ok(row[0] > 0 && row[2] > 0 && row[3] > 0);
    assert.ok(Math.abs(row.reduce((s, x) => s + x, 0) - 1) < 1e-15);
  }
});

test('boolean attention masks: every row an array of booleans of the first row\'s length', () => {
  const torch = (attnMask) => message(() => hw.torchMultiheadAttention({ ...TORCH, attnMask }));
  const row = [false, true, true, true, true];
  assert.equal(torch([row, row, row, row, 'fffff']),
    'torchMultiheadAttention: attnMask[4] must be an array of 5 booleans');
  assert.equal(torch([row, row.concat([true])]),
    'torchMultiheadAttention: attnMask[1] must be an array of 5 booleans');
  // A boolean mask and the same mask as -inf / 0 give the same weights.
  const mask = [0, 1, 2, 3, 4].map((i) => [0, 1, 2, 3, 4].map((j) => j > i));
  const asBool = hw.torchMultiheadAttention({ ...TORCH, attnMask: mask });
  const asFloat = hw.torchMultiheadAttention({
    ...TORCH, attnMask: mask.map((r) => r.map((m) => (m ? -Infinity : 0)))
  });
  assert.deepEqual(asBool.attnWeights, asFloat.attnWeights);
  assert.equal(asBool.attnWeights[0][1], 0);
  assert.ok(asBool.attnWeights[1][1] > 0);
});

test('stacks of heads: a non-empty array of matrices of one shape', () => {
  const compare = (headWeights) => message(() => hw.compareHeads({ headWeights }));
  const empty = 'compareHeads: headWeights must be a non-empty array of matrices (number[][][]), got ';
  assert.equal(compare([]), empty + 'an empty array');
  assert.equal(compare('heads'), empty + '"heads" (string)');
  assert.equal(compare(lesson.headWeights[0][0]),
    'compareHeads: headWeights[0] must be an array of rows (number[][]) or {data, rows, cols}, got 0.' +
    String(lesson.headWeights[0][0][0]).slice(2) + ' (number)');
  assert.equal(compare([lesson.headWeights[0], lesson.headWeights[1].map((r) => r.slice(1))]),
    'compareHeads: headWeights[1] has shape (5, 4) but headWeights[0] has (5, 5); all must match');
  assert.equal(compare([lesson.headWeights[0], [[1, 2, 3, 4, 'x']]]),
    'compareHeads: headWeights[1][0][4] must be a number, got "x" (string)');
  // Three heads: the pairs (0, 1), (0, 2), (1, 2), each compared on its own data.
  const h = lesson.headWeights;
  const pairs = hw.compareHeads({ headWeights: [h[0], h[1], h[0]] });
  assert.deepEqual(pairs.map((p) => [p.a, p.b, p.allclose]),
    [[0, 1, false], [0, 2, true], [1, 2, false]]);
  assert.equal(pairs[1].maxAbsDiff, 0);
  assert.equal(pairs[1].meanJsDivergence, 0);
  assert.equal(pairs[0].maxAbsDiff, pairs[2].maxAbsDiff);
  // rtol and atol reach the comparison.
  const loose = hw.compareHeads({ headWeights: [h[0], h[1]], atol: 2 });
  assert.equal(loose[0].allclose, true);
  const tight = hw.compareHeads({ headWeights: [h[0], h[0].map((r) => r.map((x) => x * 1.001))],
    rtol: 0.01, atol: 0 });
  assert.equal(tight[0].allclose, true);
});

test('allclose: rtol, atol and equalNan are passed through; defaults are NumPy\'s', () => {
  assert.equal(hw.allclose({ a: [[1]], b: [[1 + 1e-6]] }), true);  // 1e-6 <= 1e-8 + 1e-5
  assert.equal(hw.allclose({ a: [[1]], b: [[1 + 2e-5]] }), false);
  assert.equal(hw.allclose({ a: [[1]], b: [[1.1]], rtol: 0.1 }), true);
  assert.equal(hw.allclose({ a: [[0]], b: [[1e-9]] }), true);  // atol 1e-8
  assert.equal(hw.allclose({ a: [[0]], b: [[1e-7]] }), false);
  assert.equal(hw.allclose({ a: [[0]], b: [[0.5]], atol: 0.5 }), true);
  assert.equal(hw.allclose({ a: [[NaN]], b: [[NaN]] }), false);
  assert.equal(hw.allclose({ a: [[NaN]], b: [[NaN]], equalNan: true }), true);
  assert.equal(message(() => hw.allclose({ a: [[0]], b: [[0]], rtol: NaN })),
    'allclose: rtol must be a number, got NaN (number)');
  assert.equal(hw.maxAbsDiff({ a: [[1, 5]], b: [[1.5, 2]] }), 3);
});

test('lazy result fields: built on first read, then ordinary data properties', () => {
  const r = hw.seedExperiment({ ...LESSON, bias: true });
  const d = Object.getOwnPropertyDescriptor(r, 'output');
  assert.equal(typeof d.get, 'function', 'not built before it is read');
  assert.equal(d.enumerable, true);
  const first = r.output;
  assert.equal(r.output, first, 'built once');
  const after = Object.getOwnPropertyDescriptor(r, 'output');
  assert.equal(after.value, first);
  assert.equal(after.writable, true);
  assert.equal(after.enumerable, true);
  assert.equal(after.configurable, true);
  // Assigning before the first read replaces the value, and it is never built.
  r.q = 'mine';
  assert.equal(r.q, 'mine');
  assert.equal(Object.getOwnPropertyDescriptor(r, 'q').value, 'mine');
  // Frozen before any read: still readable, the same value each time.
  const frozen = Object.freeze(hw.seedExperiment(LESSON));
  const x = frozen.x;
  assert.deepEqual(x, lesson.x);
  assert.equal(frozen.x, x);
  assert.equal(typeof Object.getOwnPropertyDescriptor(frozen, 'x').get, 'function');
  // Every field appears as a key, biases only when drawn.
  assert.deepEqual(Object.keys(r).filter((k) => /^b[qkvo]$/.test(k)), ['bq', 'bk', 'bv', 'bo']);
  assert.deepEqual(Object.keys(lesson).filter((k) => /^b[qkvo]$/.test(k)), []);
  assert.equal(r.bq.length, 8);
});

test('results echo the options they were made with', () => {
  const r = hw.seedExperiment({ seed: 3, tokens: 4, dModel: 6, numHeads: 3, causal: true });
  assert.deepEqual([r.seed, r.tokens, r.dModel, r.numHeads, r.bias, r.causal, r.dHead],
    [3, 4, 6, 3, false, true, 2]);
  assert.equal(r.headWeights.length, 3);
  assert.equal(r.headOutputs[2].length, 4);
  assert.equal(r.headOutputs[2][0].length, 2);
  assert.equal(r.headWeights[1][0][1], 0);  // causal
  const m = hw.multiHeadAttention({ x: lesson.x, ...W, numHeads: 4, causal: true });
  assert.deepEqual([m.numHeads, m.causal, m.dHead], [4, true, 2]);
  const n = hw.multiHeadAttention({ x: lesson.x, ...W, numHeads: 1 });
  assert.deepEqual([n.numHeads, n.causal, n.dHead], [1, false, 8]);
  assert.equal(message(() => hw.multiHeadAttention({ x: lesson.x, ...W, numHeads: 2,
    causal: 'yes' })), 'multiHeadAttention: causal must be true or false, got "yes" (string)');
  assert.equal(message(() => hw.torchMultiheadAttention({ ...TORCH, averageAttnWeights: 0 })),
    'torchMultiheadAttention: averageAttnWeights must be true or false, got 0 (number)');
});

// Survivors of the Stryker run over the training API and the methods after seedExperiment
// (cpp/api/lesson.js from seedExperiment on, and training.js): each argument's name in its message, the options each method
// requires, the typed biases of packLessonWeights, a {data, rows, cols} float mask, the
// module's training flag, and a trainer's listed fields.
test('every argument of the later methods is named in its message', () => {
  const rows = 'must be an array of rows (number[][]) or {data, rows, cols}, got "x" (string)';
  for (const f of ['outProjWeight', 'query', 'key', 'value']) {
    assert.equal(message(() => hw.torchMultiheadAttention({ ...TORCH, [f]: 'x' })),
      `torchMultiheadAttention: ${f} ${rows}`);
  }
  for (const f of ['a', 'b']) {
    const ab = { a: lesson.wq, b: lesson.wq, [f]: 'x' };
    assert.equal(message(() => hw.allclose(ab)), `allclose: ${f} ${rows}`);
    assert.equal(message(() => hw.maxAbsDiff(ab)), `maxAbsDiff: ${f} ${rows}`);
  }
  assert.equal(message(() => hw.allclose({ a: lesson.wq, b: lesson.wq, atol: 'x' })),
    'allclose: atol must be a number, got "x" (string)');
  assert.equal(message(() => hw.compareHeads({ headWeights: lesson.headWeights, atol: 'x' })),
    'compareHeads: atol must be a number, got "x" (string)');
  assert.equal(message(() => hw.parameterCount({ embedDim: 8, numHeads: 2, bias: 'x' })),
    'parameterCount: bias must be true or false, got "x" (string)');
  assert.equal(message(() => hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 'x', seed: 0 })),
    'createTrainer: dModel must be an integer, got "x" (string)');
});

test('the later methods say which required option is missing', () => {
  assert.equal(message(() => hw.compareHeads({ atol: 1e-8 })), 'compareHeads: option "headWeights" is required');
  assert.equal(message(() => hw.allclose({ a: lesson.wq })), 'allclose: option "b" is required');
  const t = hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 0 });
  try {
    assert.equal(message(() => t.attention({})), 'attention: option "tokens" is required');
    assert.equal(message(() => t.attention({ tokens: [0, 1.5] })),
      'attention: tokens[0][1] must be an integer token id, got 1.5 (number)');
  } finally {
    t.dispose();
  }
});

test('packLessonWeights offers the packed biases typed too; a float mask may be {data, rows, cols}', () => {
  const b = { bq: B8, bk: B8, bv: B8, bo: B8 };
  const p = hw.packLessonWeights({ ...W, ...b });
  assert.deepEqual([...p.typed.inProjBias.data], p.inProjBias);
  assert.deepEqual([...p.typed.outProjBias.data], p.outProjBias);
  assert.deepEqual([...p.typed.inProjWeight.data], p.inProjWeight.flat());
  const nested = [[0, -Infinity, 0, 0, 0], [0, 0, -Infinity, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, -Infinity]];
  const typed = { data: Float64Array.from(nested.flat()), rows: 5, cols: 5 };
  assert.deepEqual(hw.torchMultiheadAttention({ ...TORCH, attnMask: typed }).attnOutput,
    hw.torchMultiheadAttention({ ...TORCH, attnMask: nested }).attnOutput);
});

test('the full module says it trains; a trainer lists its fields, disposed among them', () => {
  assert.equal(createHeadwise.training, true);
  const t = hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 0 });
  assert.ok(Object.keys(t).includes('disposed'));
  assert.equal(JSON.parse(JSON.stringify({ disposed: t.disposed })).disposed, false);
  const count = hw.trainerCount();
  t.dispose();
  assert.equal(t.disposed, true);
  assert.equal(hw.trainerCount(), count - 1, 'dispose() frees this trainer');
});

test('createHeadwise(moduleArg) builds the module on the object it is given, as Emscripten does', async () => {
  const arg = {};
  const other = await createHeadwise(arg);
  assert.equal(typeof arg.count_emval_handles, 'function');
  assert.equal(other.parameterCount({ embedDim: 8, numHeads: 2, bias: false }).total, 256);
});

test('a trainer that is never disposed is freed once it is garbage-collected', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const before = hw.trainerCount();
  (() => { hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 0 }).step(1); })();
  assert.equal(hw.trainerCount(), before + 1);
  for (let i = 0; i < 50 && hw.trainerCount() > before; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(hw.trainerCount(), before, 'the FinalizationRegistry freed the trainer');
});

// Survivors of the run over the first half (lines 1 to 419): gradients()' targets, checked
// shape by shape, and the sizes of a {data, rows, cols, depth} stack.
test('gradients() says what is wrong with its targets, position by position', () => {
  const t = hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 0, seqLen: 3, vocab: 5 });
  const tokens = [[1, 2, 3]];
  const g = (targets) => message(() => t.gradients({ tokens, targets }));
  try {
    assert.equal(g('x'), 'gradients: targets must be an array with one entry per sequence (number[][][]), got "x" (string)');
    assert.equal(g([[[-1, -1], 7, [2, 1]]]), 'gradients: targets[0][1] must be an array with one target per relation, got 7 (number)');
    assert.equal(g([[[-1, -1], '', [2, 1]]]), 'gradients: targets[0][1] must be an array with one target per relation, got "" (string)');
    assert.equal(g([[[-1, -1], [], [2, 1]]]), 'gradients: targets[0][1] must be an array with one target per relation, got an empty array');
    assert.equal(g([[[-1, -1], [1, 0.5], [2, 1]]]), 'gradients: targets[0][1][1] must be -1 or an integer token id, got 0.5 (number)');
    assert.equal(g([[[-1, -1], [1, '1'], [2, 1]]]), 'gradients: targets[0][1][1] must be -1 or an integer token id, got "1" (string)');
    // A well-formed call still works after the refusals.
    assert.equal(typeof t.gradients({ tokens, targets: [[[-1, -1], [1, -1], [2, 1]]] }).loss, 'number');
  } finally {
    t.dispose();
  }
});

test('a stack given as {data, rows, cols, depth} names each size it checks', () => {
  const w = lesson.typed.headWeights;
  const stack = (over) => message(() => hw.compareHeads({ headWeights: { data: w.data, rows: w.rows, cols: w.cols, depth: w.depth, ...over } }));
  assert.equal(stack({ depth: 0 }), 'compareHeads: headWeights.depth must be a whole number of at least 1, got 0 (number)');
  assert.equal(stack({ depth: 1 }), `compareHeads: headWeights.data has ${w.data.length} entries but headWeights.depth × headWeights.rows × headWeights.cols is ${w.rows * w.cols}`);
  assert.equal(stack({ rows: 1.5 }), 'compareHeads: headWeights.rows must be a whole number of at least 1, got 1.5 (number)');
  assert.equal(stack({ cols: '5' }), 'compareHeads: headWeights.cols must be a whole number of at least 1, got "5" (string)');
});
