// Every result is plain data: objects, arrays, numbers, booleans, strings and null. Nothing holds
// a handle into the WASM heap, so nothing needs .delete(), and JSON / structuredClone just work.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LESSON, createHeadwise } from './helpers.mjs';

const hw = await createHeadwise();
const lesson = hw.seedExperiment({ ...LESSON, bias: true });
const W = { wq: lesson.wq, wk: lesson.wk, wv: lesson.wv, wo: lesson.wo };
const B = { bq: lesson.bq, bk: lesson.bk, bv: lesson.bv, bo: lesson.bo };
const packed = hw.packLessonWeights({ ...W, ...B });
const TORCH = {
  embedDim: 8, numHeads: 2, ...packed, query: lesson.x, key: lesson.x, value: lesson.x
};

// One call of every method that returns something.
const RESULTS = {
  seedExperiment: () => hw.seedExperiment({ ...LESSON, bias: true, causal: true }),
  multiHeadAttention: () => hw.multiHeadAttention({ x: lesson.x, ...W, ...B, numHeads: 2 }),
  torchAveraged: () => hw.torchMultiheadAttention(TORCH),
  torchPerHead: () => hw.torchMultiheadAttention({ ...TORCH, averageAttnWeights: false }),
  torchNoWeights: () => hw.torchMultiheadAttention({ ...TORCH, needWeights: false }),
  parameterCount: () => hw.parameterCount({ embedDim: 8, numHeads: 2, addBiasKv: true }),
  packLessonWeights: () => hw.packLessonWeights({ ...W, ...B }),
  compareHeads: () => hw.compareHeads({ headWeights: lesson.headWeights }),
  allclose: () => hw.allclose({ a: lesson.q, b: lesson.k }),
  maxAbsDiff: () => hw.maxAbsDiff({ a: lesson.q, b: lesson.k }),
  heapStats: () => hw.heapStats()
};

// Walks a value and fails on anything that is not plain data; returns how many numbers it saw.
function assertPlain(value, path) {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return 0;
  if (typeof value === 'number') return 1;
  assert.equal(typeof value, 'object', path + ' is ' + typeof value);
  if (Array.isArray(value)) {
    assert.equal(Object.getPrototypeOf(value), Array.prototype, path + ' is a plain Array');
    return value.reduce((n, v, i) => n + assertPlain(v, path + '[' + i + ']'), 0);
  }
  assert.equal(Object.getPrototypeOf(value), Object.prototype, path + ' is a plain object');
  assert.equal('delete' in value, false, path + ' has no .delete()');
  let n = 0;
  for (const [k, v] of Object.entries(value)) n += assertPlain(v, path + '.' + k);
  return n;
}

for (const [name, call] of Object.entries(RESULTS)) {
  test(name + ': plain data, JSON round trip, structuredClone', () => {
    const r = call();
    assertPlain(r, name);
    assert.deepEqual(JSON.parse(JSON.stringify(r)), JSON.parse(JSON.stringify(call())));
    assert.deepEqual(structuredClone(r), JSON.parse(JSON.stringify(r)));
  });
}

test('matrices and their rows are arrays (number[][]), stacks are number[][][]', () => {
  const r = RESULTS.seedExperiment();
  for (const f of ['x', 'wq', 'wk', 'wv', 'wo', 'q', 'k', 'v', 'concat', 'output']) {
    assert.ok(Array.isArray(r[f]), f + ' is an array');
    assert.equal(r[f].length, f.startsWith('w') ? 8 : 5, f + ' rows');
    for (const row of r[f]) {
      assert.ok(Array.isArray(row), f + ' rows are arrays');
      assert.equal(row.length, 8);
    }
  }
  for (const f of ['bq', 'bk', 'bv', 'bo']) {
    assert.ok(Array.isArray(r[f]) && r[f].length === 8, f + ' is number[8]');
  }
  assert.ok(r.headWeights.every((h) => Array.isArray(h) && h.every(Array.isArray)));
  assert.ok(r.headOutputs.every((h) => Array.isArray(h) && h.every((row) => row.length === 4)));
  const t = RESULTS.torchPerHead();
  assert.ok(Array.isArray(t.attnOutput) && t.attnOutput.every(Array.isArray));
  assert.equal(t.attnWeights.length, 2);
  assert.ok(t.attnWeights.every((h) => h.length === 5 && h.every(Array.isArray)));
  assert.equal(RESULTS.torchNoWeights().attnWeights, null);
});

test('the result fields are the documented ones, all enumerable', () => {
  assert.deepEqual(Object.keys(RESULTS.seedExperiment()).sort(), [
    'bias', 'bk', 'bo', 'bq', 'bv', 'causal', 'concat', 'dHead', 'dModel', 'headOutputs',
    'headWeights', 'k', 'numHeads', 'output', 'q', 'seed', 'tokens', 'v', 'wk', 'wo', 'wq',
    'wv', 'x'
  ]);
  assert.deepEqual(Object.keys(RESULTS.multiHeadAttention()).sort(), [
    'causal', 'concat', 'dHead', 'headOutputs', 'headWeights', 'k', 'numHeads', 'output', 'q',
    'v'
  ]);
  assert.deepEqual(Object.keys(RESULTS.torchAveraged()).sort(), ['attnOutput', 'attnWeights']);
  assert.deepEqual(Object.keys(RESULTS.packLessonWeights()).sort(),
    ['inProjBias', 'inProjWeight', 'outProjBias', 'outProjWeight']);
  assert.deepEqual(Object.keys(RESULTS.heapStats()).sort(), ['heapBytes', 'usedBytes']);
});

test('results behave like ordinary objects: assign, spread, freeze, mutate', () => {
  const a = RESULTS.seedExperiment();
  a.output = 'replaced before it was ever read';
  assert.equal(a.output, 'replaced before it was ever read');
  a.q[0][0] = 42;
  assert.equal(a.q[0][0], 42, 'rows are writable');
  assert.notEqual(RESULTS.seedExperiment().q[0][0], 42, 'results share nothing');

  const frozen = Object.freeze(RESULTS.seedExperiment());
  assert.equal(frozen.headWeights.length, 2, 'a frozen result can still be read');
  assert.deepEqual(JSON.parse(JSON.stringify(frozen)).x, lesson.x);

  const copy = { ...RESULTS.multiHeadAttention() };
  assert.ok(Array.isArray(copy.output) && copy.output.length === 5);
  assert.equal(Object.getOwnPropertyDescriptor(copy, 'output').writable, true);
});

test('inputs are not modified and not kept', () => {
  const x = lesson.x.map((row) => row.slice());
  const before = JSON.stringify(x);
  const r = hw.multiHeadAttention({ x, ...W, ...B, numHeads: 2 });
  assert.equal(JSON.stringify(x), before);
  x[0][0] = 1000;
  assert.deepEqual(r.output, RESULTS.multiHeadAttention().output);
});

test('the API object is frozen and has no .delete()', () => {
  assert.ok(Object.isFrozen(hw));
  assert.equal('delete' in hw, false);
  assert.deepEqual(Object.keys(hw).sort(), [
    'allclose', 'compareHeads', 'createTextTrainer', 'createTrainer', 'headCircuits', 'headsNeededDefaults', 'heapStats',
    'inductionDefaults', 'limits',
    'maxAbsDiff', 'multiHeadAttention', 'packLessonWeights', 'parameterCount', 'seedExperiment',
    'textModel', 'torchMultiheadAttention', 'trainerCount', 'trainingRelations', 'trainingTasks', 'version'
  ]);
});
