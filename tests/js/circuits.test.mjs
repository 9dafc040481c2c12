// Each head's circuits through dist/headwise.js against NumPy float64
// (tests/fixtures/circuits.json, made by make_circuit_fixtures.py): hw.headCircuits on the lesson's
// seed-7 weights (also in the lesson-only module), textModel.circuits / attribute / promoted on the
// shipped model, trainer.circuits on two trained models, and every refused input.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT, createHeadwise, loadFixture } from './helpers.mjs';

const require = createRequire(import.meta.url);
const hw = await createHeadwise();
const cases = loadFixture('circuits.json').cases;
const bytes = new Uint8Array(readFileSync(join(ROOT, 'web', 'models', 'sotu.hwtm')));
const textCase = cases.find((c) => c.kind === 'text');

const REL = 1e-9;
const EIGEN = 1e-6;

// Every number of actual within tol * max(1, |expected|) of expected (same nesting).
function near(actual, expected, tol, what) {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${what}: not an array`);
    assert.equal(actual.length, expected.length, `${what}: length`);
    expected.forEach((e, i) => near(actual[i], e, tol, `${what}[${i}]`));
    return;
  }
  assert.equal(typeof actual, 'number', `${what}: not a number`);
  assert.ok(Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} vs ${expected}`);
}

const frobenius = (m) => Math.sqrt(m.flat().reduce((s, x) => s + x * x, 0));
const product = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, x, k) => s + x * b[k][j], 0)));

test('headCircuits: each head\'s W_QK and W_OV of the lesson\'s seed-7 weights, and sum_h W_OV = Wv Wo', async () => {
  const lessonOnly = await require('../../dist/headwise-lesson.js')();
  for (const e of cases.filter((c) => c.kind === 'lesson')) {
    const options = { wq: e.wq, wk: e.wk, wv: e.wv, wo: e.wo, numHeads: e.numHeads };
    const c = hw.headCircuits(options);
    near(c.qk, e.qk, REL, `qk (${e.numHeads} heads)`);
    near(c.ov, e.ov, REL, `ov (${e.numHeads} heads)`);
    assert.deepEqual(c.typed.ov.shape, [e.numHeads, 8, 8]);
    const sum = c.ov.reduce((s, m) => s.map((row, i) => row.map((x, j) => x + m[i][j])));
    near(sum, e.wvWo, REL, 'sum of W_OV');
    near(sum, product(e.wv, e.wo), 1e-12, 'sum of W_OV against Wv Wo');
    // each head's rank as np.linalg.matrix_rank counts it (d_head here), and the module's own check
    assert.deepEqual(c.qkRank, e.qkRank, 'rank of each W_QK');
    assert.deepEqual(c.ovRank, e.ovRank, 'rank of each W_OV');
    assert.deepEqual(e.ovRank, Array(e.numHeads).fill(8 / e.numHeads), 'the fixture: rank d_head');
    const diff = Math.max(...sum.flat().map((x, i) => Math.abs(x - e.wvWo.flat()[i])));
    assert.ok(c.ovSumError >= 0 && c.ovSumError <= 1e-12, `ovSumError ${c.ovSumError}`);
    assert.ok(Math.abs(c.ovSumError - diff) <= 1e-13, `ovSumError ${c.ovSumError} vs ${diff}`);
    // the lesson-only module computes the same numbers, bit for bit
    assert.deepEqual(lessonOnly.headCircuits(options).ov, c.ov);
  }
  // the seed experiment's own result feeds it directly
  const L = hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
  near(hw.headCircuits({ wq: L.typed.wq, wk: L.wk, wv: L.wv, wo: L.wo, numHeads: 2 }).qk,
    cases[0].qk, REL, 'qk from seedExperiment');
});

test('textModel.circuits: copying, previous position and composition are NumPy\'s', () => {
  const m = hw.textModel({ weights: bytes });
  const c = m.circuits();
  const e = textCase;
  for (let l = 0; l < 2; l++) {
    for (let h = 0; h < 4; h++) {
      near(frobenius(c.qk[l][h]), e.qkNorm[l][h], REL, `|qk[${l}][${h}]|`);
      near(frobenius(c.ov[l][h]), e.ovNorm[l][h], REL, `|ov[${l}][${h}]|`);
      near(c.qk[l][h][0], e.qkRow0[l][h], REL, `qk[${l}][${h}][0]`);
      near(c.ov[l][h][0], e.ovRow0[l][h], REL, `ov[${l}][${h}][0]`);
      assert.equal(c.qk[l][h].length, 64);
      assert.equal(typeof c.copying[l][h], 'number', 'one read-out: a number per head');
    }
  }
  near(c.copying, e.copying, EIGEN, 'copying');
  assert.deepEqual(c.previousPosition, e.previousPosition);
  for (const key of ['q', 'k', 'v']) {
    assert.deepEqual(c.composition[key][0], [[], [], [], []], `${key}: layer 1 has no earlier layer`);
    near(c.composition[key], e.composition[key], REL, `composition.${key}`);
  }
  // what the issue reads from them: layer 2 head 0 copies, layer 1 head 0 looks one back, and the
  // first K-composes most with the second
  assert.ok(c.copying[1][0] > 0.99);
  assert.equal(c.previousPosition[0][0], 1);
  const k = c.composition.k[1][0][0];
  assert.equal(k.indexOf(Math.max(...k)), 0);
  m.dispose();
});

test('textModel.attribute: direct + heads is the logit, as NumPy splits it', () => {
  const m = hw.textModel({ weights: bytes });
  for (const e of textCase.attributions) {
    const options = { text: e.text, position: e.position };
    if (e.wordGiven !== null) options.word = e.wordGiven;
    const a = m.attribute(options);
    assert.equal(a.id, e.word);
    assert.equal(a.word, m.vocabulary()[e.word]);
    assert.equal(a.position, e.position);
    near(a.logit, e.logit, REL, 'logit');
    near(a.probability, e.probability, REL, 'probability');
    near(a.direct, e.direct, REL, 'direct');
    near(a.heads, e.heads, REL, 'heads');
    const paths = a.direct + a.heads.flat().reduce((s, x) => s + x, 0);
    assert.ok(Math.abs(paths - a.logit) <= 1e-12 * Math.abs(a.logit), `paths ${paths} vs ${a.logit}`);
    // the same by ids, and by the word's id or its capitalised form
    assert.deepEqual(m.attribute({ ids: e.ids, position: e.position, word: e.word }), a);
    assert.deepEqual(m.attribute({ ...options, word: a.word.toUpperCase() }), a);
    // the probability is run()'s
    const run = m.run({ ids: e.ids });
    const guess = run.predictions[e.position].find((p) => p.id === a.id);
    if (guess) near(a.probability, guess.probability, 1e-12, 'probability of run()');
  }
  // at the last position the default is the likeliest guess
  const text = 'the people of the united';
  const last = m.attribute({ text, position: 4 });
  assert.equal(last.word, m.run({ text }).predictions[4][0].word);
  m.dispose();
});

test('textModel.promoted: the top k of E[w] W_OV U, as NumPy orders them', () => {
  const m = hw.textModel({ weights: bytes });
  for (const e of textCase.promoted) {
    const r = m.promoted({ layer: e.layer, head: e.head, word: e.word, k: 5 });
    assert.equal(r.word, e.word);
    assert.equal(r.id, e.id);
    assert.deepEqual(r.promoted.map((p) => p.id), e.ids);
    assert.deepEqual(r.promoted.map((p) => p.word), e.ids.map((i) => m.vocabulary()[i]));
    near(r.promoted.map((p) => p.value), e.values, REL, `values of ${e.word}`);
    assert.deepEqual(m.promoted({ layer: e.layer, head: e.head, word: e.id, k: 5 }), r);
  }
  assert.equal(m.promoted({ layer: 0, head: 0, word: 'the' }).promoted.length, 10, 'k defaults to 10');
  m.dispose();
});

test('trainer.circuits: two trained models\' measures are NumPy\'s; copying per read-out', () => {
  for (const e of cases.filter((c) => c.kind === 'trainer')) {
    const t = hw.createTrainer(e.config);
    t.setParameters(e.parameters);
    const c = t.circuits();
    near(c.qk, e.qk, REL, 'qk');
    near(c.ov, e.ov, REL, 'ov');
    const R = t.config.numRelations;
    const copying = R === 1 ? e.copying.map((l) => l.map((h) => h[0])) : e.copying;
    if (R > 1) assert.equal(c.copying[0][0].length, R, 'one score per read-out');
    near(c.copying, copying, EIGEN, 'copying');
    assert.deepEqual(c.previousPosition, e.previousPosition);
    for (const key of ['q', 'k', 'v']) near(c.composition[key], e.composition[key], REL, key);
    t.dispose();
  }
});

test('circuits refuse bad input with a message naming the field and what is allowed', () => {
  const m = hw.textModel({ weights: bytes });
  const L = hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
  const W = { wq: L.wq, wk: L.wk, wv: L.wv, wo: L.wo };
  const text = 'the people of the united states';
  const CASES = [
    [() => hw.headCircuits({ ...W, numHeads: 3 }), 'headCircuits: d_model (8) must be divisible by num_heads (3)'],
    [() => hw.headCircuits({ ...W }), 'headCircuits: option "numHeads" is required'],
    [() => hw.headCircuits({ ...W, numHeads: 2, x: L.x }), 'headCircuits: unknown option "x"; allowed options are wq, wk, wv, wo, numHeads'],
    [() => hw.headCircuits({ ...W, wk: [[1, 2], [3, 4]], numHeads: 2 }), 'headCircuits: wk has shape (2, 2) but must be (8, 8)'],
    [() => m.attribute({ text, ids: [1, 2], position: 0 }), 'attribute: give either text (a string) or ids (word ids, number[]), not both'],
    [() => m.attribute({ position: 0 }), 'attribute: give either text (a string) or ids (word ids, number[]), not neither'],
    [() => m.attribute({ text }), 'attribute: option "position" is required'],
    [() => m.attribute({ text, position: 6 }), 'attribute: position (6) must be between 0 and 5'],
    [() => m.attribute({ text, position: -1 }), 'attribute: position (-1) must be between 0 and 5'],
    [() => m.attribute({ text, position: 1.5 }), 'attribute: position must be an integer, got 1.5 (number)'],
    [() => m.attribute({ text, position: 0, word: 'zyzzyva' }), 'attribute: word ("zyzzyva") is not in the model\'s vocabulary of 2001 words (see vocabulary())'],
    [() => m.attribute({ text, position: 0, word: 'united states' }), 'attribute: word ("united states") must be one word; it reads as 2 words'],
    [() => m.attribute({ text, position: 0, word: '' }), 'attribute: word ("") must be one word; it reads as 0 words'],
    [() => m.attribute({ text, position: 0, word: 2001 }), 'attribute: word (2001) must be between 0 and 2000'],
    [() => m.attribute({ text, position: 0, word: true }), 'attribute: word must be a word (a string) or a word id (an integer), got true (boolean)'],
    [() => m.attribute({ text, position: 0, ablate: [] }), 'attribute: unknown option "ablate"; allowed options are text, ids, position, word'],
    [() => m.attribute({ ids: [1, 2001], position: 0 }), 'attribute: ids[1] (2001) must be a word id between 0 and 2000'],
    [() => m.promoted({ layer: 0, head: 0 }), 'promoted: option "word" is required'],
    [() => m.promoted({ layer: 2, head: 0, word: 'the' }), 'promoted: layer (2) must be between 0 and 1'],
    [() => m.promoted({ layer: 0, head: 4, word: 'the' }), 'promoted: head (4) must be between 0 and 3'],
    [() => m.promoted({ layer: 0, head: 0, word: 'the', k: 0 }), 'promoted: k (0) must be between 1 and 2001'],
    [() => m.promoted({ layer: 0, head: 0, word: -1 }), 'promoted: word (-1) must be between 0 and 2000'],
    [() => m.promoted({ layer: 0, head: 0, word: 'qwertyuiop' }), 'promoted: word ("qwertyuiop") is not in the model\'s vocabulary of 2001 words (see vocabulary())'],
  ];
  for (const [call, message] of CASES) assert.throws(call, { message }, message);
  // the model keeps working, and a disposed one says so
  assert.equal(m.attribute({ text, position: 4 }).word, 'states');
  m.dispose();
  assert.throws(() => m.circuits(), { message: 'circuits: this text model has been disposed; create a new one' });
  const t = hw.createTrainer({ task: 'induction', layers: 2, numHeads: 2, dModel: 8, seed: 0 });
  t.dispose();
  assert.throws(() => t.circuits(), { message: 'circuits: this trainer has been disposed; create a new one' });
});
