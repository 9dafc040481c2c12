// The training API through the WASM module: the PyTorch fixtures (gradients within 1e-10 of
// torch.autograd, 50 Adam steps within 1e-9 of torch.optim.Adam), NumPy's draws bit for bit,
// the tasks, attention through the lesson's pipeline, ablation, parameter counts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { assertNear, createHeadwise, loadFixture } from './helpers.mjs';

const hw = await createHeadwise();

const GRADIENT_TOL = 1e-10;
const TRAJECTORY_TOL = 1e-9;
function trainerFor(config) {
  const { task, relations, layers, numHeads, dModel, seed, seqLen, vocab, batchSize, evalSize,
    learningRate } = config;
  return hw.createTrainer({
    task, relations, layers, numHeads, dModel, seed, seqLen, vocab, batchSize, evalSize,
    learningRate
  });
}

function maxDiff(a, b) {
  if (Array.isArray(a)) return Math.max(0, ...a.map((x, i) => maxDiff(x, b[i])));
  if (typeof a === 'object') return Math.max(...Object.keys(a).map((n) => maxDiff(a[n], b[n])));
  return Math.abs(a - b);
}

// Every parameter (or gradient) tensor within tol, named and ordered as the fixture's (the
// order of PyTorch's named_parameters()).
function assertParams(actual, expected, tol, what) {
  assert.deepEqual(Object.keys(actual), Object.keys(expected), `${what}: names`);
  for (const n of Object.keys(expected)) assertNear(actual[n], expected[n], tol, `${what} ${n}`);
}

function label(c) {
  return `${c.task ?? c.relations.join('+')}, ${c.layers ?? 1} layer(s) of ${c.numHeads} heads, ` +
    `d_model ${c.dModel}, seed ${c.seed}`;
}

describe('trainingTasks', () => {
  test('lists both tasks with their relations, labels and defaults', () => {
    const tasks = hw.trainingTasks();
    assert.deepEqual(tasks.map((t) => t.name), ['previous-and-first', 'previous-and-two-back']);
    const [first, two] = tasks;
    assert.deepEqual(first.relations.map((r) => [r.name, r.title, r.rule]),
      [['previous', 'previous token', 'x[i-1]'], ['first', 'first token', 'x[0]']]);
    assert.deepEqual(two.relations.map((r) => r.rule), ['x[i-1]', 'x[i-2]']);
    for (const t of tasks) {
      assert.equal(typeof t.title, 'string');
      assert.ok(t.relations.every((r) => r.description.length > 10));
      assert.equal(t.vocab, t.defaults.vocab);
      assert.equal(t.tokenLabels.length, t.vocab);
      assert.equal(t.tokenLabels[0], 'A');
      assert.deepEqual(Object.keys(t.defaults).sort(), ['batchSize', 'dModel', 'evalSize',
        'learningRate', 'numHeads', 'seqLen', 'steps', 'vocab']);
      // The defaults make a valid trainer.
      const d = t.defaults;
      const trainer = hw.createTrainer({ task: t.name, numHeads: d.numHeads, dModel: d.dModel,
        seed: 0 });
      assert.equal(trainer.config.seqLen, d.seqLen);
      assert.equal(trainer.config.batchSize, d.batchSize);
      assert.equal(trainer.config.learningRate, d.learningRate);
      trainer.dispose();
    }
    // Fresh objects each call: changing one changes nothing for the next caller.
    tasks[0].relations.length = 0;
    assert.equal(hw.trainingTasks()[0].relations.length, 2);
  });
});

// The preset tasks, tasks of 3 and 4 relations with 1, 4 and 8 heads at d_model 16, and models
// of 2 and 3 layers with 1 to 8 heads.
for (const file of ['train_gradients.json', 'train_relations_gradients.json',
  'train_layers_gradients.json'])
describe(`gradients against torch.autograd (${file})`, () => {
  const { cases } = loadFixture(file);
  test(`${cases.length} models: NumPy's initial draws bit for bit, gradients within ` +
    `${GRADIENT_TOL}`, () => {
    assert.ok(cases.length >= 6);
    let worst = 0;
    for (const c of cases) {
      const t = trainerFor(c.config);
      const what = label(c.config);
      assertParams(t.parameters(), c.initial, 0, `${what} initial parameters`);
      const r = t.gradients({ tokens: c.tokens, targets: c.targets });
      assertNear(r.loss, c.loss, GRADIENT_TOL, `${what} loss`);
      assert.equal(r.accuracy, c.accuracy, `${what} accuracy`);
      assert.deepEqual(Object.keys(r.gradients),
        t.parameterCount().tensors.map((x) => x.name));
      assertParams(r.gradients, c.gradients, GRADIENT_TOL, `${what} gradients`);
      worst = Math.max(worst, maxDiff(r.gradients, c.gradients));
      // gradients() changes nothing.
      assertParams(t.parameters(), c.initial, 0, `${what} parameters after gradients()`);
      t.dispose();
    }
    console.log(`gradients vs torch.autograd through WASM (${file}): max |difference| ${worst}`);
  });
});

for (const file of ['train_trajectory.json', 'train_relations_trajectory.json',
  'train_layers_trajectory.json', 'train_induction_trajectory.json'])
describe(`50 Adam steps against torch.optim.Adam (${file})`, () => {
  const { cases } = loadFixture(file);
  for (const c of cases) {
    test(label(c.config), () => {
      const t = trainerFor(c.config);
      assertParams(t.parameters(), c.initial, 0, 'initial parameters');
      let worstLoss = 0;
      for (let s = 0; s < c.steps; s++) {
        const r = t.step(1);
        assert.equal(r.step, s + 1);
        assertNear(r.loss, c.losses[s], TRAJECTORY_TOL, `loss at step ${s + 1}`);
        assert.equal(r.accuracy, c.accuracies[s], `accuracy at step ${s + 1}`);
        worstLoss = Math.max(worstLoss, Math.abs(r.loss - c.losses[s]));
      }
      const final = t.parameters();
      assertParams(final, c.final, TRAJECTORY_TOL, 'final parameters');
      for (const e of c.evaluations) {
        const r = t.evaluate({ ablate: e.ablate });
        const what = `evaluate({ablate: [${e.ablate}]})`;
        assertNear(r.loss, e.loss, TRAJECTORY_TOL, `${what} loss`);
        assert.equal(r.accuracy, e.accuracy, `${what} accuracy`);
        assert.deepEqual(r.relationAccuracy, e.relationAccuracy, `${what} relationAccuracy`);
        assertNear(r.headFocus, e.headFocus, TRAJECTORY_TOL, `${what} headFocus`);
        assert.equal('inductionScore' in r, 'inductionScore' in e, `${what}: the induction task's`);
        if ('inductionScore' in e) {
          assert.equal(r.repeatAccuracy, e.repeatAccuracy, `${what} repeatAccuracy`);
          assertNear(r.repeatLoss, e.repeatLoss, TRAJECTORY_TOL, `${what} repeatLoss`);
          assertNear(r.previousTokenScore, e.previousTokenScore, TRAJECTORY_TOL,
            `${what} previousTokenScore`);
          assertNear(r.inductionScore, e.inductionScore, TRAJECTORY_TOL, `${what} inductionScore`);
        }
      }
      console.log(`${label(c.config)}: ${c.steps} steps, max |loss difference| ${worstLoss}, ` +
        `final weights ${maxDiff(final, c.final)}`);

      // The final weights loaded into a fresh trainer give the same evaluation.
      const fresh = trainerFor(c.config);
      fresh.setParameters(c.final);
      assertParams(fresh.parameters(), c.final, 0, 'setParameters round trip');
      const e = c.evaluations[0];
      assertNear(fresh.evaluate().loss, e.loss, TRAJECTORY_TOL, 'evaluate after setParameters');
      fresh.dispose();
      t.dispose();
    });
  }
});

describe('a trainer', () => {
  test('steps deterministically: same seed, same trajectory, however the steps are grouped',
    () => {
      const opts = { task: 'previous-and-two-back', numHeads: 2, dModel: 8, seed: 5 };
      const a = hw.createTrainer(opts);
      const b = hw.createTrainer(opts);
      const c = hw.createTrainer({ ...opts, seed: 6 });
      const ra = a.step(10);
      b.step(3);
      const rb = b.step(7);
      assert.deepEqual(ra, rb);
      assert.equal(ra.step, 10);
      assertParams(a.parameters(), b.parameters(), 0, 'same seed');
      assert.notDeepEqual(c.parameters().wq, a.parameters().wq);
      assert.ok(ra.loss > 0 && ra.accuracy >= 0 && ra.accuracy <= 1);
      assert.equal(a.step().step, 11, 'step() is one step');
      [a, b, c].forEach((t) => t.dispose());
    });

  test('attention is the lesson\'s multiHeadAttention (causal) on the embedded tokens', () => {
    const t = hw.createTrainer({ task: 'previous-and-first', numHeads: 4, dModel: 8, seed: 1 });
    t.step(20);
    const tokens = [3, 1, 4, 1, 5, 9];
    const heads = t.attention({ tokens });
    assert.equal(heads.length, 4);
    const p = t.parameters();
    const x = tokens.map((tok, i) => p.tokenEmbedding[tok].map((v, j) => v +
      p.positionEmbedding[i][j]));
    const lesson = hw.multiHeadAttention({ x, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo,
      numHeads: 4, causal: true });
    assertNear(heads, lesson.headWeights, 0, 'trainer attention vs multiHeadAttention');
    for (const w of heads) {
      assert.equal(w.length, 6);
      w.forEach((row, i) => {
        assert.ok(Math.abs(row.reduce((s, v) => s + v, 0) - 1) < 1e-12);
        row.forEach((v, j) => { if (j > i) assert.equal(v, 0); });
      });
    }
    t.dispose();
  });

  test('layers: every layer\'s heads, each the lesson\'s multiHeadAttention on its input', () => {
    const t = hw.createTrainer({ task: 'previous-and-first', layers: 2, numHeads: 2, dModel: 8,
      seed: 1 });
    t.step(20);
    const tokens = [3, 1, 4, 1, 5, 9];
    const heads = t.attention({ tokens });
    assert.equal(heads.length, 4, 'layer * numHeads + head');
    const p = t.parameters();
    assert.deepEqual(Object.keys(p), t.parameterCount().tensors.map((x) => x.name));
    assert.deepEqual(Object.keys(p), ['tokenEmbedding', 'positionEmbedding', 'layers.0.wq',
      'layers.0.wk', 'layers.0.wv', 'layers.0.wo', 'layers.1.wq', 'layers.1.wk', 'layers.1.wv',
      'layers.1.wo', 'readout', 'readoutBias']);
    assert.equal(t.config.layers, 2);
    let z = tokens.map((tok, i) => p.tokenEmbedding[tok].map((v, j) => v +
      p.positionEmbedding[i][j]));
    for (const l of [0, 1]) {
      const w = (k) => p[`layers.${l}.${k}`];
      const lesson = hw.multiHeadAttention({ x: z, wq: w('wq'), wk: w('wk'), wv: w('wv'),
        wo: w('wo'), numHeads: 2, causal: true });
      assertNear(heads.slice(2 * l, 2 * l + 2), lesson.headWeights, 0, `layer ${l}`);
      z = z.map((row, i) => row.map((v, j) => v + lesson.output[i][j]));  // the residual stream
    }
    const e = t.evaluate({ ablate: [[1, 0]] });
    assert.equal(e.headFocus.length, 4);
    assert.deepEqual(t.evaluate({ ablate: [2] }), e, 'index 2 is layer 1, head 0');
    assert.notEqual(t.evaluate({ ablate: [[0, 0]] }).loss, e.loss);
    t.dispose();
  });

  test('evaluate: ablation changes accuracy, not attention; headFocus is [h][r]', () => {
    const t = hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 0 });
    t.step(400);
    const all = t.evaluate();
    assert.equal(all.relationAccuracy.length, 2);
    assert.equal(all.headFocus.length, 2);
    assert.equal(all.headFocus[0].length, 2);
    // Trained: each relation is served by one head that puts >= 0.9 of its weight there, and
    // switching that head off breaks that relation while the other stays nearly intact.
    assert.ok(all.accuracy > 0.99, `accuracy ${all.accuracy}`);
    for (let r = 0; r < 2; r++) {
      const h = all.headFocus[0][r] > all.headFocus[1][r] ? 0 : 1;
      assert.ok(all.headFocus[h][r] >= 0.9, `head ${h} focus on relation ${r}`);
      const off = t.evaluate({ ablate: [h] });
      assert.deepEqual(off.headFocus, all.headFocus);
      assert.ok(off.relationAccuracy[r] < 0.5, `relation ${r} without head ${h}`);
      assert.ok(off.relationAccuracy[1 - r] > 0.95, `relation ${1 - r} without head ${h}`);
    }
    t.dispose();
  });

  test('parameterCount: the same for 1, 2 and 4 heads at the same dModel', () => {
    const counts = [1, 2, 4].map((numHeads) => {
      const t = hw.createTrainer({ task: 'previous-and-first', numHeads, dModel: 8, seed: 0 });
      const c = t.parameterCount();
      t.dispose();
      return c;
    });
    assert.deepEqual(counts[0], counts[1]);
    assert.deepEqual(counts[0], counts[2]);
    const V = hw.trainingTasks()[0].defaults.vocab;
    const n = hw.trainingTasks()[0].defaults.seqLen;
    assert.deepEqual(counts[0].tensors.map((x) => [x.name, x.shape]), [
      ['tokenEmbedding', [V, 8]], ['positionEmbedding', [n, 8]], ['wq', [8, 8]], ['wk', [8, 8]],
      ['wv', [8, 8]], ['wo', [8, 8]], ['readout', [8, 2 * V]], ['readoutBias', [2 * V]]]);
    assert.equal(counts[0].total, V * 8 + n * 8 + 4 * 64 + 8 * 2 * V + 2 * V);
  });

  test('config and info() give the resolved settings', () => {
    const t = hw.createTrainer({ task: 'previous-and-two-back', numHeads: 2, dModel: 12, seed: 9,
      vocab: 26, seqLen: 10, batchSize: 8, learningRate: 0.02, evalSize: 16 });
    assert.deepEqual(t.info(), {
      task: 'previous-and-two-back', title: 'Previous token and the one before it', layers: 1,
      numHeads: 2, dModel: 12, dHead: 6, seed: 9, seqLen: 10,
      vocab: 26, learningRate: 0.02, batchSize: 8, evalSize: 16, numRelations: 2,
      relations: hw.trainingTasks()[1].relations,
      tokenLabels: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('')
    });
    assert.ok(Object.isFrozen(t.config));
    assert.equal(t.disposed, false);
    t.dispose();
    assert.equal(t.disposed, true);
  });
});
