// Invalid calls throw a real JS Error with the exact message (the core's messages cross the
// WASM boundary intact) and a documented code, field and params, allocate nothing that stays,
// and leave the module giving the right numbers afterwards.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { LESSON, assertLessonNumbers, createHeadwise, documentedCodes } from './helpers.mjs';

const hw = await createHeadwise();
const CODES = documentedCodes();

// Valid inputs at the lesson's size, varied one thing at a time below.
const lesson = hw.seedExperiment(LESSON);
const W = { wq: lesson.wq, wk: lesson.wk, wv: lesson.wv, wo: lesson.wo };
const MHA = { x: lesson.x, ...W, numHeads: 2 };
const packed = hw.packLessonWeights(W);
const TORCH = {
  embedDim: 8, numHeads: 2, inProjWeight: packed.inProjWeight,
  outProjWeight: packed.outProjWeight, query: lesson.x, key: lesson.x, value: lesson.x
};
const B8 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
const CAUSAL = [0, 1, 2, 3, 4].map((i) => [0, 1, 2, 3, 4].map((j) => j > i));
const ADDITIVE = CAUSAL.map((row) => row.map((masked) => (masked ? -Infinity : 0)));

// m with m[i][j] replaced by value.
function withEntry(m, i, j, value) {
  return m.map((row, a) => row.map((x, b) => (a === i && b === j ? value : x)));
}
// options without one key.
function without(options, key) {
  const { [key]: _, ...rest } = options;
  return rest;
}

// [label, call, exact message]
const CASES = [
  // ---- seedExperiment: sizes and seeds (the core's messages) ----
  ['d_model not divisible by num_heads', () => hw.seedExperiment({ ...LESSON, dModel: 10,
    numHeads: 4 }), 'seedExperiment: d_model (10) must be divisible by num_heads (4)'],
  ['seed -1', () => hw.seedExperiment({ ...LESSON, seed: -1 }),
    'seedExperiment: seed (-1) must be an integer between 0 and 4294967295'],
  ['seed 2^32', () => hw.seedExperiment({ ...LESSON, seed: 4294967296 }),
    'seedExperiment: seed (4294967296) must be an integer between 0 and 4294967295'],
  ['seed 2^53 (not a safe integer)', () => hw.seedExperiment({ ...LESSON, seed: 2 ** 53 }),
    'seedExperiment: seed (9007199254740992) is too large; it must be a safe integer'],
  ['tokens 0', () => hw.seedExperiment({ ...LESSON, tokens: 0 }),
    'seedExperiment: tokens (0) must be a positive integer'],
  ['tokens -3', () => hw.seedExperiment({ ...LESSON, tokens: -3 }),
    'seedExperiment: tokens (-3) must be a positive integer'],
  ['tokens 100000', () => hw.seedExperiment({ ...LESSON, tokens: 100000 }),
    'seedExperiment: tokens (100000) must be at most 2048'],
  ['tokens 2^32 + 5 (would wrap to 5 in 32 bits)', () => hw.seedExperiment({ ...LESSON,
    tokens: 4294967301 }), 'seedExperiment: tokens (4294967301) must be at most 2048'],
  ['dModel 4096', () => hw.seedExperiment({ ...LESSON, dModel: 4096 }),
    'seedExperiment: d_model (4096) must be at most 2048'],
  ['numHeads 0', () => hw.seedExperiment({ ...LESSON, numHeads: 0 }),
    'seedExperiment: num_heads (0) must be a positive integer'],
  ['numHeads 2^32 + 2 (would wrap to 2 in 32 bits)', () => hw.seedExperiment({ ...LESSON,
    numHeads: 4294967298 }), 'seedExperiment: d_model (8) must be divisible by num_heads (4294967298)'],
  ['sizes needing 64 GiB are refused before allocating', () => hw.seedExperiment({ ...LESSON,
    tokens: 2048, dModel: 2048, numHeads: 2048 }), 'seedExperiment: tokens (2048), d_model ' +
    '(2048) and num_heads (2048) would need 65888 MiB; at most 512 MiB is allowed'],
  ['bias "yes"', () => hw.seedExperiment({ ...LESSON, bias: 'yes' }),
    'seedExperiment: bias must be true or false, got "yes" (string)'],
  ['causal 1', () => hw.seedExperiment({ ...LESSON, causal: 1 }),
    'seedExperiment: causal must be true or false, got 1 (number)'],

  // ---- the options object itself ----
  ['unknown option', () => hw.seedExperiment({ ...LESSON, heads: 2 }),
    'seedExperiment: unknown option "heads"; allowed options are seed, tokens, dModel, ' +
    'numHeads, bias, causal'],
  ['unknown option (wrong case)', () => hw.parameterCount({ embedDim: 8, numHeads: 2,
    addBiasKV: true }), 'parameterCount: unknown option "addBiasKV"; allowed options are ' +
    'embedDim, numHeads, bias, addBiasKv, kdim, vdim'],
  ['options a string', () => hw.seedExperiment('seed=7'),
    'seedExperiment: expected one options object, got "seed=7" (string)'],
  ['options an array', () => hw.seedExperiment([7, 5, 8, 2]),
    'seedExperiment: expected one options object, got an array'],
  ['options null', () => hw.parameterCount(null),
    'parameterCount: expected one options object, got null'],
  ['options a number', () => hw.maxAbsDiff(42),
    'maxAbsDiff: expected one options object, got 42 (number)'],
  ['no options', () => hw.seedExperiment(), 'seedExperiment: option "seed" is required'],

  // ---- multiHeadAttention: matrices ----
  ['ragged x', () => hw.multiHeadAttention({ ...MHA, x: [lesson.x[0], lesson.x[1].slice(1)] }),
    'multiHeadAttention: x[1] has 7 entries but x[0] has 8; every row must have the same length'],
  ['a string inside x', () => hw.multiHeadAttention({ ...MHA, x: withEntry(lesson.x, 2, 3,
    '1') }), 'multiHeadAttention: x[2][3] must be a number, got "1" (string)'],
  ['null inside x', () => hw.multiHeadAttention({ ...MHA, x: withEntry(lesson.x, 0, 0, null) }),
    'multiHeadAttention: x[0][0] must be a number, got null'],
  ['x with no rows', () => hw.multiHeadAttention({ ...MHA, x: [] }),
    'multiHeadAttention: x must have at least one row'],
  ['x with no columns', () => hw.multiHeadAttention({ ...MHA, x: [[]] }),
    'multiHeadAttention: x must have at least one column'],
  ['x a flat array', () => hw.multiHeadAttention({ ...MHA, x: [1, 2, 3] }),
    'multiHeadAttention: x[0] must be an array of numbers, got 1 (number)'],
  ['x an object', () => hw.multiHeadAttention({ ...MHA, x: {} }),
    'multiHeadAttention: x must be an array of rows (number[][]) or {data, rows, cols}, got an object'],
  ['NaN inside x', () => hw.multiHeadAttention({ ...MHA, x: withEntry(lesson.x, 2, 3, NaN) }),
    'multiHeadAttention: x contains a non-finite value (nan) at [2, 3]; all values must be finite'],
  ['Infinity inside wq', () => hw.multiHeadAttention({ ...MHA, wq: withEntry(lesson.wq, 0, 1,
    Infinity) }), 'multiHeadAttention: wq contains a non-finite value (inf) at [0, 1]; all ' +
    'values must be finite'],
  ['-Infinity inside wo', () => hw.multiHeadAttention({ ...MHA, wo: withEntry(lesson.wo, 7, 7,
    -Infinity) }), 'multiHeadAttention: wo contains a non-finite value (-inf) at [7, 7]; all ' +
    'values must be finite'],
  ['wk with 7 rows', () => hw.multiHeadAttention({ ...MHA, wk: lesson.wk.slice(1) }),
    'multiHeadAttention: wk has shape (7, 8) but must be (8, 8)'],
  ['bq of length 7', () => hw.multiHeadAttention({ ...MHA, bq: B8.slice(1), bk: B8, bv: B8,
    bo: B8 }), 'multiHeadAttention: bq has length 7 but must have length 8'],
  ['only bq and bk', () => hw.multiHeadAttention({ ...MHA, bq: B8, bk: B8 }),
    'multiHeadAttention: biases must be given all together (bq, bk, bv, bo) or not at all; ' +
    '2 of 4 were given'],
  ['NaN inside bv', () => hw.multiHeadAttention({ ...MHA, bq: B8, bk: B8, bv: [...B8.slice(1),
    NaN], bo: B8 }), 'multiHeadAttention: bv contains a non-finite value (nan) at [7]; all ' +
    'values must be finite'],
  ['numHeads 3 for d_model 8', () => hw.multiHeadAttention({ ...MHA, numHeads: 3 }),
    'multiHeadAttention: d_model (8) must be divisible by num_heads (3)'],
  ['numHeads 2^32 + 2', () => hw.multiHeadAttention({ ...MHA, numHeads: 4294967298 }),
    'multiHeadAttention: d_model (8) must be divisible by num_heads (4294967298)'],

  // ---- torchMultiheadAttention ----
  ['boolean mask with a number inside', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: withEntry(CAUSAL, 1, 2, 1) }), 'torchMultiheadAttention: attnMask[1][2] must be ' +
    'a boolean (the mask is boolean because attnMask[0][0] is), got 1 (number)'],
  ['float mask with a boolean inside', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: withEntry(ADDITIVE, 1, 2, true) }),
    'torchMultiheadAttention: attnMask[1][2] must be a number, got true (boolean)'],
  ['mask of shape (4, 5) for L = S = 5', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: CAUSAL.slice(1) }),
    'torchMultiheadAttention: attn_mask has shape (4, 5) but must be (5, 5)'],
  ['ragged boolean mask', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: [CAUSAL[0], CAUSAL[1].slice(1), ...CAUSAL.slice(2)] }),
    'torchMultiheadAttention: attnMask[1] must be an array of 5 booleans'],
  ['+Infinity in a float mask', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: withEntry(ADDITIVE, 0, 1, Infinity) }), 'torchMultiheadAttention: attn_mask ' +
    'contains inf at [0, 1]; a float mask may hold finite values and -inf only'],
  ['NaN in a float mask', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: withEntry(ADDITIVE, 3, 0, NaN) }), 'torchMultiheadAttention: attn_mask contains ' +
    'nan at [3, 0]; a float mask may hold finite values and -inf only'],
  ['keyPaddingMask of length 3 for S = 5', () => hw.torchMultiheadAttention({ ...TORCH,
    keyPaddingMask: [false, true, false] }), 'torchMultiheadAttention: key_padding_mask has ' +
    'length 3 but must have length S (5)'],
  ['keyPaddingMask of numbers', () => hw.torchMultiheadAttention({ ...TORCH,
    keyPaddingMask: [0, 1, 0, 0, 0] }),
    'torchMultiheadAttention: keyPaddingMask[0] must be a boolean, got 0 (number)'],
  ['both masks, the padding mask too short', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: CAUSAL, keyPaddingMask: [false, true] }), 'torchMultiheadAttention: ' +
    'key_padding_mask has length 2 but must have length S (5)'],
  ['both masks, the attention mask too small', () => hw.torchMultiheadAttention({ ...TORCH,
    attnMask: CAUSAL.map((row) => row.slice(1)), keyPaddingMask: [false, true, false, false,
      false] }), 'torchMultiheadAttention: attn_mask has shape (5, 4) but must be (5, 5)'],
  ['kdim 0', () => hw.torchMultiheadAttention({ ...TORCH, kdim: 0 }),
    'torchMultiheadAttention: kdim (0) must be a positive integer'],
  ['kdim 5 with inProjWeight', () => hw.torchMultiheadAttention({ ...TORCH, kdim: 5 }),
    'torchMultiheadAttention: in_proj_weight is only used when kdim and vdim equal embed_dim; ' +
    'give q_proj_weight, k_proj_weight and v_proj_weight instead'],
  ['embedDim 2^31 (3 * embed_dim would overflow)', () => hw.torchMultiheadAttention({ ...TORCH,
    embedDim: 2 ** 31 }), 'torchMultiheadAttention: embed_dim (2147483648) must be at most ' +
    '16777216'],
  ['inProjBias without outProjBias', () => hw.torchMultiheadAttention({ ...TORCH,
    inProjBias: new Array(24).fill(0) }), 'torchMultiheadAttention: in_proj_bias and ' +
    'out_proj_bias are required when bias is true'],
  ['inProjBias of length 23', () => hw.torchMultiheadAttention({ ...TORCH,
    inProjBias: new Array(23).fill(0), outProjBias: B8 }),
    'torchMultiheadAttention: in_proj_bias has length 23 but must have length 24'],
  ['biasK without biasV', () => hw.torchMultiheadAttention({ ...TORCH, biasK: B8 }),
    'torchMultiheadAttention: bias_k and bias_v are required when add_bias_kv is true'],
  ['no inProjWeight', () => hw.torchMultiheadAttention(without(TORCH, 'inProjWeight')),
    'torchMultiheadAttention: in_proj_weight is required when kdim and vdim equal embed_dim'],
  ['inProjWeight of shape (8, 8)', () => hw.torchMultiheadAttention({ ...TORCH,
    inProjWeight: lesson.wq }),
    'torchMultiheadAttention: in_proj_weight has shape (8, 8) but must be (24, 8)'],
  ['embedDim 10 with 4 heads', () => hw.torchMultiheadAttention({ ...TORCH, embedDim: 10,
    numHeads: 4 }), 'torchMultiheadAttention: embed_dim (10) must be divisible by num_heads (4)'],
  ['query with 7 columns', () => hw.torchMultiheadAttention({ ...TORCH,
    query: lesson.x.map((row) => row.slice(1)) }),
    'torchMultiheadAttention: query has 7 columns but must have embed_dim (8)'],
  ['key and value of different lengths', () => hw.torchMultiheadAttention({ ...TORCH,
    value: lesson.x.slice(1) }), 'torchMultiheadAttention: key has 5 rows but value has 4; key ' +
    'and value must have the same length S'],
  ['NaN inside key', () => hw.torchMultiheadAttention({ ...TORCH, key: withEntry(lesson.x, 4,
    0, NaN) }), 'torchMultiheadAttention: key contains a non-finite value (nan) at [4, 0]; all ' +
    'values must be finite'],
  ['needWeights "no"', () => hw.torchMultiheadAttention({ ...TORCH, needWeights: 'no' }),
    'torchMultiheadAttention: needWeights must be true or false, got "no" (string)'],

  // ---- parameterCount ----
  ['embedDim 10 with 4 heads (parameterCount)', () => hw.parameterCount({ embedDim: 10,
    numHeads: 4 }), 'parameterCount: embed_dim (10) must be divisible by num_heads (4)'],
  ['kdim 0 (parameterCount)', () => hw.parameterCount({ embedDim: 8, numHeads: 2, kdim: 0 }),
    'parameterCount: kdim (0) must be a positive integer'],
  ['vdim -7', () => hw.parameterCount({ embedDim: 8, numHeads: 2, vdim: -7 }),
    'parameterCount: vdim (-7) must be a positive integer'],
  ['embedDim 2^31 - 1 (counts would overflow)', () => hw.parameterCount({ embedDim: 2 ** 31 - 1,
    numHeads: 1 }), 'parameterCount: embed_dim (2147483647) must be at most 16777216'],
  ['embedDim 2^32 + 8 (would wrap to 8 in 32 bits)', () => hw.parameterCount({
    embedDim: 4294967304, numHeads: 2 }),
    'parameterCount: embed_dim (4294967304) must be at most 16777216'],
  ['kdim 2^32 + 5 (would wrap to 5 in 32 bits)', () => hw.parameterCount({ embedDim: 8,
    numHeads: 2, kdim: 4294967301 }), 'parameterCount: kdim (4294967301) must be at most 16777216'],
  ['addBiasKv "true"', () => hw.parameterCount({ embedDim: 8, numHeads: 2, addBiasKv: 'true' }),
    'parameterCount: addBiasKv must be true or false, got "true" (string)'],

  // ---- packLessonWeights ----
  ['wk with 7 rows (packLessonWeights)', () => hw.packLessonWeights({ ...W,
    wk: lesson.wk.slice(1) }), 'packLessonWeights: wk has shape (7, 8) but must be (8, 8)'],
  ['no wo', () => hw.packLessonWeights(without(W, 'wo')),
    'packLessonWeights: option "wo" is required'],
  ['only bq (packLessonWeights)', () => hw.packLessonWeights({ ...W, bq: B8 }),
    'packLessonWeights: biases must be given all together (bq, bk, bv, bo) or not at all; ' +
    '1 of 4 were given'],
  ['bq of length 9 (packLessonWeights)', () => hw.packLessonWeights({ ...W, bq: [...B8, 0.9],
    bk: B8, bv: B8, bo: B8 }), 'packLessonWeights: bq has length 9 but must have length 8'],
  ['bo of length 3 (packLessonWeights)', () => hw.packLessonWeights({ ...W, bq: B8, bk: B8,
    bv: B8, bo: [1, 2, 3] }), 'packLessonWeights: bo has length 3 but must have length 8'],

  // ---- compareHeads, allclose, maxAbsDiff ----
  ['heads of different shapes', () => hw.compareHeads({ headWeights: [lesson.headWeights[0],
    lesson.headWeights[1].slice(1)] }), 'compareHeads: headWeights[1] has shape (4, 5) but ' +
    'headWeights[0] has (5, 5); all must match'],
  ['no heads', () => hw.compareHeads({ headWeights: [] }), 'compareHeads: headWeights must be ' +
    'a non-empty array of matrices (number[][][]), got an empty array'],
  ['rtol "x"', () => hw.compareHeads({ headWeights: lesson.headWeights, rtol: 'x' }),
    'compareHeads: rtol must be a number, got "x" (string)'],
  ['rtol -1', () => hw.compareHeads({ headWeights: lesson.headWeights, rtol: -1 }),
    'compareHeads: rtol (-1) must be a finite number >= 0'],
  ['atol Infinity', () => hw.allclose({ a: [[1]], b: [[1]], atol: Infinity }),
    'allclose: atol (inf) must be a finite number >= 0'],
  ['allclose of shapes (2, 2) and (2, 3)', () => hw.allclose({ a: [[1, 2], [3, 4]],
    b: [[1, 2, 3], [4, 5, 6]] }), 'allclose: cannot compare shape (2, 2) with shape (2, 3); the ' +
    'shapes must be equal'],
  ['equalNan 1', () => hw.allclose({ a: [[1]], b: [[1]], equalNan: 1 }),
    'allclose: equalNan must be true or false, got 1 (number)'],
  ['maxAbsDiff without b', () => hw.maxAbsDiff({ a: [[1]] }),
    'maxAbsDiff: option "b" is required'],
  ['maxAbsDiff of shapes (1, 1) and (2, 1)', () => hw.maxAbsDiff({ a: [[1]], b: [[1], [2]] }),
    'maxAbsDiff: cannot compare shape (1, 1) with shape (2, 1); the shapes must be equal']
];

// Every integer option of every method, given 'abc', NaN, 2.5, null or nothing.
const INTEGER_OPTIONS = [
  ['seedExperiment', LESSON, ['seed', 'tokens', 'dModel', 'numHeads']],
  ['multiHeadAttention', MHA, ['numHeads']],
  ['torchMultiheadAttention', TORCH, ['embedDim', 'numHeads']],
  ['parameterCount', { embedDim: 8, numHeads: 2 }, ['embedDim', 'numHeads']]
];
for (const [method, valid, names] of INTEGER_OPTIONS) {
  for (const name of names) {
    const call = (value) => () => hw[method]({ ...valid, [name]: value });
    CASES.push(
      [method + ' ' + name + ' "abc"', call('abc'),
        method + ': ' + name + ' must be an integer, got "abc" (string)'],
      [method + ' ' + name + ' NaN', call(NaN),
        method + ': ' + name + ' must be an integer, got NaN (number)'],
      [method + ' ' + name + ' 2.5', call(2.5),
        method + ': ' + name + ' must be an integer, got 2.5 (number)'],
      [method + ' ' + name + ' null', call(null),
        method + ': option "' + name + '" is required'],
      [method + ' ' + name + ' missing', () => hw[method](without(valid, name)),
        method + ': option "' + name + '" is required']);
  }
}
// Optional integers: null means "not given", anything else must be an integer.
for (const name of ['kdim', 'vdim']) {
  for (const [value, shown] of [['abc', '"abc" (string)'], [NaN, 'NaN (number)'],
    [2.5, '2.5 (number)'], [Infinity, 'Infinity (number)']]) {
    CASES.push(['parameterCount ' + name + ' ' + shown, () => hw.parameterCount({ embedDim: 8,
      numHeads: 2, [name]: value }), 'parameterCount: ' + name + ' must be an integer, got ' +
      shown]);
  }
}

describe('invalid calls throw Errors with exact messages and leave the module usable', () => {
  let heap;
  let reference;
  before(() => {
    reference = JSON.stringify(assertLessonNumbers(hw));
    // The first C++ exception of the module's life allocates the exception runtime's globals
    // (a few bytes, once). Throw one before taking the baseline; 'no heap growth' below then
    // means nothing leaks per error (heap.test.mjs repeats errors thousands of times).
    assert.throws(() => hw.seedExperiment({ seed: 7, tokens: 5, dModel: 10, numHeads: 4 }));
    heap = hw.heapStats();
  });

  test('the table covers every method', () => {
    assert.ok(CASES.length >= 25);
    // Every message starts with the method's name.
    const methods = new Set(CASES.map(([, , message]) => message.split(':')[0]));
    for (const m of ['seedExperiment', 'multiHeadAttention', 'torchMultiheadAttention',
      'parameterCount', 'packLessonWeights', 'compareHeads', 'allclose', 'maxAbsDiff']) {
      assert.ok(methods.has(m), m + ' has invalid calls in the table');
    }
  });

  for (const [label, call, message] of CASES) {
    test(label, () => {
      let error = null;
      try {
        call();
      } catch (e) {
        error = e;
      }
      assert.ok(error !== null, 'expected an Error with message: ' + message);
      assert.ok(error instanceof Error, 'thrown value is an Error, got ' + typeof error + ': ' +
        String(error));
      assert.equal(error.message, message);
      assert.ok(CODES.has(error.code), `code ${error.code} is documented in cpp/api.d.ts`);
      assert.ok(error.field === null || (typeof error.field === 'string' && error.field !== ''), `field ${error.field}`);
      assert.equal(Object.getPrototypeOf(error.params), Object.prototype);
      // Nothing allocated for the failed call stays allocated, and the heap did not grow.
      assert.deepEqual(hw.heapStats(), heap, 'heap after the error');
      const after = assertLessonNumbers(hw, 'seed 7 after "' + label + '"');
      assert.ok(JSON.stringify(after) === reference, 'seed 7 bit for bit after "' + label + '"');
    });
  }
});

/** What `call` throws. */
function thrown(call) {
  try {
    call();
  } catch (e) {
    return e;
  }
  throw new Error('no error');
}

describe('errors carry a code, the field and the params', () => {
  test('the core\'s refusals, through the bindings', () => {
    const divisible = thrown(() => hw.seedExperiment({ ...LESSON, dModel: 10, numHeads: 4 }));
    assert.deepEqual([divisible.code, divisible.field, divisible.params], ['divisible', 'dModel', { value: 10, divisor: 4, divisorField: 'numHeads' }]);
    const seed = thrown(() => hw.seedExperiment({ ...LESSON, seed: -1 }));
    assert.deepEqual([seed.code, seed.field, seed.params], ['integerRange', 'seed', { value: -1, min: 0, max: 4294967295 }]);
    const tokens = thrown(() => hw.seedExperiment({ ...LESSON, tokens: 100000 }));
    assert.deepEqual([tokens.code, tokens.field, tokens.params], ['atMost', 'tokens', { value: 100000, max: 2048 }]);
    const memory = thrown(() => hw.seedExperiment({ ...LESSON, tokens: 2048, dModel: 2048, numHeads: 2048 }));
    assert.equal(memory.code, 'memory');
    assert.deepEqual(memory.params.fields, ['tokens', 'dModel', 'numHeads']);
    assert.equal(memory.params.need, 65888);
    const shape = thrown(() => hw.multiHeadAttention({ ...MHA, wq: [[1, 2, 3], [4, 5, 6]] }));
    assert.deepEqual([shape.code, shape.field], ['shape', 'wq']);
    assert.deepEqual(shape.params, { rows: 2, cols: 3, expectedRows: 8, expectedCols: 8 });
    const finite = thrown(() => hw.multiHeadAttention({ ...MHA, x: withEntry(lesson.x, 1, 2, NaN) }));
    assert.deepEqual([finite.code, finite.field, finite.params], ['finite', 'x', { value: 'nan', row: 1, col: 2 }]);
    const embed = thrown(() => hw.parameterCount({ embedDim: 12, numHeads: 5 }));
    assert.deepEqual([embed.code, embed.field, embed.params.divisorField], ['divisible', 'embedDim', 'numHeads']);
  });

  test('the JS layer\'s own refusals', () => {
    const integer = thrown(() => hw.seedExperiment({ ...LESSON, tokens: 2.5 }));
    assert.deepEqual([integer.code, integer.field, integer.params], ['integer', 'tokens', { path: 'tokens', given: '2.5 (number)' }]);
    const unknown = thrown(() => hw.seedExperiment({ ...LESSON, heads: 2 }));
    assert.deepEqual([unknown.code, unknown.field, unknown.params.value], ['unknownOption', 'heads', 'heads']);
    assert.deepEqual(unknown.params.allowed, ['seed', 'tokens', 'dModel', 'numHeads', 'bias', 'causal']);
    const required = thrown(() => hw.seedExperiment(without(LESSON, 'seed')));
    assert.deepEqual([required.code, required.field], ['required', 'seed']);
    const nested = thrown(() => hw.multiHeadAttention({ ...MHA, x: withEntry(lesson.x, 0, 1, '2') }));
    assert.deepEqual([nested.code, nested.field, nested.params.path], ['number', 'x', 'x[0][1]']);
    const options = thrown(() => hw.seedExperiment(7));
    assert.deepEqual([options.code, options.field], ['options', null]);
  });

  test('the trainer\'s settings name the option the student set', () => {
    const base = { task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 1 };
    for (const [patch, code, field, params] of [
      [{ layers: 5 }, 'range', 'layers', { value: 5, min: 1, max: 4 }],
      [{ seed: 4294967296 }, 'range', 'seed', { value: 4294967296, min: 0, max: 4294967295 }],
      [{ vocab: 1 }, 'range', 'vocab', { value: 1, min: 2, max: 256 }],
      [{ numHeads: 9 }, 'range', 'numHeads', { value: 9, min: 1, max: 8 }],
      [{ task: 'nope' }, 'unknownName', 'task', null],
      [{ task: undefined, relations: ['previous', 'previous'] }, 'duplicate', 'relations', { value: 'previous', first: 0, second: 1 }],
    ]) {
      const e = thrown(() => hw.createTrainer({ ...base, ...patch }));
      assert.equal(e.code, code, e.message);
      assert.equal(e.field, field, e.message);
      if (params) assert.deepEqual(e.params, params);
    }
    assert.ok(thrown(() => hw.createTrainer({ ...base, task: 'nope' })).params.allowed.includes('previous-and-first'));
  });
});

describe('edge cases that are not errors', () => {
  test('null or undefined optional options mean "not given"', () => {
    assert.equal(hw.parameterCount({ embedDim: 8, numHeads: 2, kdim: null, vdim: undefined,
      bias: null }).total, 288);
    const r = hw.torchMultiheadAttention({ ...TORCH, attnMask: null, keyPaddingMask: undefined });
    assert.equal(r.attnWeights.length, 5);
  });

  test('typed-array rows are accepted as matrix rows', () => {
    const r = hw.multiHeadAttention({ ...MHA, x: lesson.x.map((row) => Float64Array.from(row)) });
    assert.deepEqual(r.output, lesson.output);
  });

  test('a fully masked query row gives NaN, as in PyTorch, not an error', () => {
    const mask = CAUSAL.map((row, i) => (i === 2 ? row.map(() => true) : row));
    const r = hw.torchMultiheadAttention({ ...TORCH, attnMask: mask });
    assert.ok(r.attnOutput[2].every(Number.isNaN));
    assert.ok(r.attnWeights[2].every(Number.isNaN));
    assert.ok(r.attnOutput[1].every(Number.isFinite));
  });

  test('allclose with equalNan', () => {
    assert.equal(hw.allclose({ a: [[NaN, 1]], b: [[NaN, 1]] }), false);
    assert.equal(hw.allclose({ a: [[NaN, 1]], b: [[NaN, 1]], equalNan: true }), true);
    assert.ok(Number.isNaN(hw.maxAbsDiff({ a: [[NaN]], b: [[1]] })));
  });

  test('one head has no pairs to compare', () => {
    assert.deepEqual(hw.compareHeads({ headWeights: [lesson.headWeights[0]] }), []);
  });
});
