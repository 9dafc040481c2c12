// Matrices as {data: Float64Array, rows, cols} (and stacks with depth): accepted wherever a
// matrix goes in, offered on every result as result.typed, with the same numbers as the nested
// form; multiHeadAttention writes into a previous result's arrays when asked (into); bad
// typed input gets a clear error and the module keeps working. And
// createHeadwise.moduleSource(): the module's own text, enough to start it again elsewhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';

import { LESSON, createHeadwise } from './helpers.mjs';

const hw = await createHeadwise();
const run = hw.seedExperiment({ ...LESSON, bias: true });

/** number[][] -> {data, rows, cols} */
function flat(m) {
  const data = new Float64Array(m.length * m[0].length);
  m.forEach((row, i) => data.set(row, i * m[0].length));
  return { data, rows: m.length, cols: m[0].length };
}

test('multiHeadAttention on {data, rows, cols} gives the nested call\'s numbers exactly', () => {
  const nested = hw.multiHeadAttention({ x: run.x, wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, bq: run.bq, bk: run.bk, bv: run.bv, bo: run.bo, numHeads: 2, causal: true });
  const typed = hw.multiHeadAttention({
    x: flat(run.x), wq: flat(run.wq), wk: flat(run.wk), wv: flat(run.wv), wo: flat(run.wo),
    bq: Float64Array.from(run.bq), bk: Float64Array.from(run.bk), bv: Float64Array.from(run.bv), bo: Float64Array.from(run.bo),
    numHeads: 2, causal: true,
  });
  assert.deepEqual(typed.output, nested.output);
  assert.deepEqual(typed.headWeights, nested.headWeights);
  // Typed in, typed out: the result's own arrays, shaped as the input was.
  assert.ok(typed.typed.output.data instanceof Float64Array);
  assert.equal(typed.typed.output.rows, 5);
  assert.equal(typed.typed.output.cols, 8);
  assert.deepEqual(flat(nested.output).data, typed.typed.output.data);
  const w = typed.typed.headWeights;
  assert.deepEqual([w.depth, w.rows, w.cols], [2, 5, 5]);
  assert.equal(w.data[1 * 25 + 4 * 5 + 3], nested.headWeights[1][4][3]);
});

test('result.typed is not enumerable: results still print and compare as plain data', () => {
  assert.ok(!Object.keys(run).includes('typed'));
  assert.equal(JSON.stringify(run).includes('"typed"'), false);
  assert.deepEqual(Object.keys(run.typed).sort(), ['bk', 'bo', 'bq', 'bv', 'concat', 'headOutputs', 'headWeights', 'k', 'output', 'q', 'v', 'wk', 'wo', 'wq', 'wv', 'x']);
  assert.deepEqual(Array.from(run.typed.bq.data), run.bq);
});

test('other typed arrays are converted; stacks go in as {data, depth, rows, cols}', () => {
  const asF32 = { data: Float32Array.from([0.5, 0.25, 0.25, 0.5]), rows: 2, cols: 2 };
  assert.equal(hw.maxAbsDiff({ a: asF32, b: [[0.5, 0.25], [0.25, 0.5]] }), 0);
  const pairs = hw.compareHeads({ headWeights: run.typed.headWeights });
  assert.deepEqual(pairs, hw.compareHeads({ headWeights: run.headWeights }));
  const packed = hw.packLessonWeights({ wq: run.typed.wq, wk: run.typed.wk, wv: run.typed.wv, wo: run.typed.wo });
  assert.deepEqual(packed.typed.inProjWeight.rows, 24);
  const torch = hw.torchMultiheadAttention({
    embedDim: 8, numHeads: 2, inProjWeight: packed.typed.inProjWeight, outProjWeight: packed.typed.outProjWeight,
    query: run.typed.x, key: run.typed.x, value: run.typed.x, averageAttnWeights: false,
  });
  assert.deepEqual([torch.typed.attnWeights.depth, torch.typed.attnWeights.rows], [2, 5]);
  assert.ok(hw.allclose({ a: torch.typed.attnOutput, b: hw.multiHeadAttention({ x: run.x, wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, numHeads: 2 }).typed.output }));
});

test('bad typed input: a clear message naming the option, and the module keeps working', () => {
  const cases = [
    [{ data: new Float64Array(3), rows: 2, cols: 2 }, /multiHeadAttention: x\.data has 3 entries but x\.rows × x\.cols is 4/],
    [{ data: [1, 2, 3, 4], rows: 2, cols: 2 }, /multiHeadAttention: x\.data must be a typed array such as a Float64Array, got an array/],
    [{ data: new Float64Array(4), rows: 0, cols: 4 }, /multiHeadAttention: x\.rows must be a whole number of at least 1, got 0 \(number\)/],
    [{ data: new Float64Array(4), rows: 2, cols: '2' }, /multiHeadAttention: x\.cols must be a whole number of at least 1, got "2" \(string\)/],
    [{ data: new BigInt64Array(4), rows: 2, cols: 2 }, /x\.data must be a typed array such as a Float64Array/],
  ];
  for (const [x, message] of cases) {
    assert.throws(() => hw.multiHeadAttention({ x, wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, numHeads: 2 }), message);
  }
  assert.throws(() => hw.compareHeads({ headWeights: { data: new Float64Array(50), rows: 5, cols: 5 } }),
    /compareHeads: headWeights\.depth must be a whole number of at least 1, got undefined/);
  // Shapes are still the core's to check: (2, 4) is not (n, 8).
  assert.throws(() => hw.multiHeadAttention({ x: { data: new Float64Array(8), rows: 2, cols: 4 }, wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, numHeads: 2 }), /multiHeadAttention: /);
  assert.deepEqual(hw.seedExperiment(LESSON).output, hw.seedExperiment(LESSON).output);
});

test('into: a previous result\'s arrays take the next call\'s results, with the numbers of a call without into', () => {
  const args = (r) => ({ x: r.typed.x, wq: r.typed.wq, wk: r.typed.wk, wv: r.typed.wv, wo: r.typed.wo, numHeads: 2 });
  const other = hw.seedExperiment({ ...LESSON, seed: 8 });
  const first = hw.multiHeadAttention(args(run));
  const arrays = Object.fromEntries(Object.entries(first.typed).map(([k, m]) => [k, m.data]));
  const expected = hw.multiHeadAttention(args(other));
  const firstWeights = first.headWeights;  // read before: kept as it was
  const reused = hw.multiHeadAttention({ ...args(other), into: first });
  assert.deepEqual(first.output, expected.output, 'a nested array not read before');
  assert.deepEqual(first.headWeights, firstWeights);
  assert.notDeepEqual(firstWeights, expected.headWeights);
  for (const f of ['q', 'k', 'v', 'concat', 'output', 'headWeights', 'headOutputs']) {
    assert.equal(reused.typed[f].data, arrays[f], `${f}: a new array`);
    assert.deepEqual(reused.typed[f].data, expected.typed[f].data, `${f}: other numbers`);
  }
  assert.deepEqual(reused.output, expected.output);
  assert.deepEqual(reused.headWeights, expected.headWeights);
  assert.deepEqual([reused.typed.headWeights.depth, reused.typed.headWeights.rows, reused.typed.headWeights.cols], [2, 5, 5]);
  assert.notDeepEqual(expected.output, hw.multiHeadAttention(args(run)).output, 'seeds 7 and 8 give the same output');
  // .typed, or only some arrays: the others are new.
  const some = { output: { data: new Float64Array(40) } };
  const part = hw.multiHeadAttention({ ...args(run), into: some });
  assert.equal(part.typed.output.data, some.output.data);
  assert.deepEqual(part.typed.output.data, hw.multiHeadAttention(args(run)).typed.output.data);
  assert.notEqual(part.typed.q.data, arrays.q);
  assert.equal(hw.multiHeadAttention({ ...args(run), into: reused.typed }).typed.k.data, arrays.k);
});

test('into: bad arrays get a clear message, nothing is written, and the module keeps working', () => {
  const args = { x: run.typed.x, wq: run.typed.wq, wk: run.typed.wk, wv: run.typed.wv, wo: run.typed.wo, numHeads: 2 };
  const smaller = hw.multiHeadAttention({ ...args, x: { data: run.typed.x.data.subarray(0, 32), rows: 4, cols: 8 } });
  const before = Object.fromEntries(Object.entries(smaller.typed).map(([k, m]) => [k, Array.from(m.data)]));
  const cases = [
    [smaller, /multiHeadAttention: into\.q\.data has 32 entries, but this result's q has 40, shape \(5, 8\); pass arrays from a result of the same sizes, or leave into out$/],
    [{ headWeights: { data: new Float64Array(49) } }, /multiHeadAttention: into\.headWeights\.data has 49 entries, but this result's headWeights has 50, shape \(2, 5, 5\);/],
    [5, /multiHeadAttention: into must be a previous result or its \.typed, got 5 \(number\)$/],
    [[], /multiHeadAttention: into must be a previous result or its \.typed, got an empty array$/],
    [{ x: { data: new Float64Array(40) } }, /multiHeadAttention: into has none of the results q, k, v, concat, output, headWeights, headOutputs; pass a previous result or its \.typed$/],
    [{ q: { data: [1, 2] } }, /multiHeadAttention: into\.q\.data must be a Float64Array, got an array$/],
    [{ output: { data: new Float32Array(40) } }, /multiHeadAttention: into\.output\.data must be a Float64Array, got a Float32Array$/],
  ];
  const shared = new Float64Array(80);
  cases.push([{ q: { data: shared.subarray(0, 40) }, k: { data: shared.subarray(39, 79) } },
    /multiHeadAttention: into\.k\.data shares memory with into\.q\.data; each result needs an array of its own$/]);
  for (const [into, message] of cases) assert.throws(() => hw.multiHeadAttention({ ...args, into }), message);
  // Views of one buffer that do not overlap are two arrays.
  const halves = new Float64Array(80);
  hw.multiHeadAttention({ ...args, into: { q: { data: halves.subarray(0, 40) }, k: { data: halves.subarray(40) } } });
  const fresh = hw.multiHeadAttention(args).typed;
  assert.deepEqual([...halves], [...fresh.q.data, ...fresh.k.data]);
  assert.deepEqual(Object.fromEntries(Object.entries(smaller.typed).map(([k, m]) => [k, Array.from(m.data)])), before);
  assert.deepEqual(shared, new Float64Array(80));
  assert.deepEqual(hw.multiHeadAttention(args).output, hw.multiHeadAttention({ ...args, into: hw.multiHeadAttention(args) }).output);
});

test('every tensor carries the shape the module gave it: [n], [rows, cols], [depth, rows, cols]', () => {
  const t = run.typed;
  assert.deepEqual([t.bq.shape, t.x.shape, t.headWeights.shape], [[8], [5, 8], [2, 5, 5]]);
  const packed = hw.packLessonWeights({ wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, bq: run.bq, bk: run.bk, bv: run.bv, bo: run.bo });
  assert.deepEqual([packed.typed.inProjBias.shape, packed.typed.inProjWeight.shape], [[24], [24, 8]]);
  assert.equal(packed.inProjBias.length, 24);
  const torch = hw.torchMultiheadAttention({ embedDim: 8, numHeads: 2, ...packed, query: run.x, key: run.x, value: run.x, averageAttnWeights: false });
  assert.deepEqual([torch.typed.attnOutput.shape, torch.typed.attnWeights.shape], [[5, 8], [2, 5, 5]]);
});

test('the trainer\'s parameters, attention and evaluation are tensors, their nested forms made from them', () => {
  const task = hw.trainingTasks().find((x) => x.name === 'induction') || hw.trainingTasks()[0];
  const trainer = hw.createTrainer({ task: task.name, numHeads: 2, dModel: 8, seed: 3, layers: 2 });
  try {
    trainer.step(3);
    const c = trainer.config;
    const p = trainer.parameters();
    const table = trainer.parameterCount().tensors;
    assert.deepEqual(Object.keys(p.typed), table.map((x) => x.name));
    for (const { name, shape } of table) {
      assert.deepEqual(p.typed[name].shape, shape, name);
      assert.deepEqual(p[name], p.typed[name].tolist(), name);
    }
    assert.ok(!Object.keys(p).includes('typed'));
    const tokens = [1, 2, 3, 1, 2];
    const a = trainer.attention({ tokens });
    assert.deepEqual(a.typed.shape, [c.layers * c.numHeads, 5, 5]);
    assert.deepEqual(a, a.typed.tolist());
    assert.deepEqual(Object.keys(a), ['0', '1', '2', '3']);
    const e = trainer.evaluate({ ablate: [1] });
    assert.deepEqual(e.typed.headFocus.shape, [c.layers * c.numHeads, c.numRelations]);
    assert.deepEqual(e.headFocus, e.typed.headFocus.tolist());
    // Tensors go back in as they came, or as {data, shape} (how they arrive from another thread).
    const moved = Object.fromEntries(Object.entries(p.typed).map(([k, v]) => [k, { data: v.data.slice(), shape: v.shape.slice() }]));
    trainer.step(2);
    trainer.setParameters(moved);
    assert.deepEqual(trainer.attention({ tokens }), a);
    trainer.setParameters(p.typed);
    assert.throws(() => trainer.setParameters({ ...p.typed, readoutBias: { data: moved.readoutBias.data, shape: [moved.readoutBias.data.length, 1] } }),
      /^Error: setParameters: readoutBias must be a vector \(shape \[n\]\), got a tensor of shape \[\d+, 1\]$/);
    assert.throws(() => trainer.setParameters({ ...p.typed, readout: p.typed.readoutBias }),
      /^Error: setParameters: readout must be a matrix \(shape \[rows, cols\]\), got a tensor of shape \[\d+\]$/);
  } finally {
    trainer.dispose();
  }
});

test('moduleSource() is the module itself: evaluated elsewhere it computes the same numbers', async () => {
  const source = createHeadwise.moduleSource();
  assert.equal(typeof source, 'string');
  assert.match(source, /^var createHeadwise = \(/);
  // A fresh global scope with what a Worker has (no require, no module, no document).
  const scope = { importScripts() {}, location: { href: 'blob:null/worker' }, WebAssembly, Blob, Response, ReadableStream, DecompressionStream, TextDecoder, URL, console, setTimeout, clearTimeout, performance, atob, crypto };
  scope.self = scope;
  vm.createContext(scope);
  vm.runInContext(source, scope);
  assert.equal(typeof scope.createHeadwise, 'function');
  const other = await scope.createHeadwise();
  assert.equal(other.version, hw.version);
  // (compared as JSON: the other scope's arrays have its own Array.prototype)
  assert.equal(JSON.stringify(other.seedExperiment(LESSON)), JSON.stringify(hw.seedExperiment(LESSON)));
});
