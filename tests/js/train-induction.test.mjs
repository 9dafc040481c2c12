// The task "induction" through the WASM module: inductionDefaults(), the held-out scores that
// evaluate() adds, ablation by (layer, head), and its errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';

const hw = await createHeadwise();
const SMALL = { task: 'induction', layers: 2, numHeads: 2, dModel: 8, seed: 3, seqLen: 16,
  vocab: 10, batchSize: 4, evalSize: 12 };

test('inductionDefaults: the experiment\'s settings make valid trainers', () => {
  const d = hw.inductionDefaults();
  assert.deepEqual(Object.keys(d).sort(), ['batchSize', 'compareHeadCounts', 'dModel', 'evalSize',
    'formedAccuracy', 'formedScore', 'layers', 'learningRate', 'numHeads', 'seqLen', 'steps',
    'tokenLabels', 'vocab']);
  assert.equal(d.layers, 2);
  assert.deepEqual(d.compareHeadCounts, [2, 4, 8]);
  assert.equal(d.tokenLabels.length, d.vocab);
  const t = hw.createTrainer({ task: 'induction', layers: d.layers, numHeads: d.numHeads,
    dModel: d.dModel, seed: 0 });
  assert.deepEqual([t.config.seqLen, t.config.vocab, t.config.batchSize, t.config.learningRate,
    t.config.evalSize], [d.seqLen, d.vocab, d.batchSize, d.learningRate, d.evalSize]);
  assert.equal(t.config.task, 'induction');
  assert.equal(t.config.relations.length, 1);
  t.dispose();
  for (const h of d.compareHeadCounts) {
    const one = hw.createTrainer({ task: 'induction', numHeads: h, dModel: d.dModel, seed: 0 });
    assert.equal(one.config.layers, 1);
    one.dispose();
  }
  // Not among the page's presets of relations.
  assert.ok(!hw.trainingTasks().some((x) => x.name === 'induction'));
});

test('evaluate adds repeatAccuracy, repeatLoss and every head\'s two scores', () => {
  const t = hw.createTrainer(SMALL);
  t.step(10);
  const e = t.evaluate();
  assert.equal(e.repeatAccuracy, e.accuracy);
  assert.equal(e.repeatLoss, e.loss);
  assert.equal(e.previousTokenScore.length, 2);
  assert.equal(e.previousTokenScore[0].length, 2);
  assert.equal(e.inductionScore.length, 2);
  // previousTokenScore[l][h] is the mean weight on the token before, as attention() shows it.
  const tokens = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6];
  const heads = t.attention({ tokens });
  assert.equal(heads.length, 4);
  for (const row of e.inductionScore.flat().concat(e.previousTokenScore.flat())) {
    assert.ok(row > 0 && row < 1);
  }
  e.inductionScore.forEach((row, l) => row.forEach((s, h) => {
    assert.equal(e.headFocus[l * 2 + h][0], s);
  }));
  // A head switched off changes the loss, and the attention of later layers only.
  const last = t.evaluate({ ablate: [[1, 1]] });
  assert.notEqual(last.repeatLoss, e.repeatLoss);
  assert.deepEqual(last.inductionScore, e.inductionScore);
  const first = t.evaluate({ ablate: [[0, 1]] });
  assert.deepEqual(first.inductionScore[0], e.inductionScore[0]);
  assert.notDeepEqual(first.inductionScore[1], e.inductionScore[1]);
  // Other tasks add none of them.
  const u = hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 0 });
  assert.equal('repeatAccuracy' in u.evaluate(), false);
  u.dispose();
  t.dispose();
});

test('the same seed gives the same repeats, steps and scores', () => {
  const a = hw.createTrainer(SMALL);
  const b = hw.createTrainer(SMALL);
  assert.deepEqual(a.step(7), b.step(7));
  assert.deepEqual(a.evaluate(), b.evaluate());
  const c = hw.createTrainer({ ...SMALL, seed: 4 });
  assert.notDeepEqual(c.evaluate().previousTokenScore, a.evaluate().previousTokenScore);
  [a, b, c].forEach((t) => t.dispose());
});

test('too short a sequence for a segment and its repeat is refused; nothing is created', () => {
  const before = hw.trainerCount();
  assert.throws(() => hw.createTrainer({ ...SMALL, seqLen: 11 }), {
    message: 'createTrainer: seq_len (11) must be at least 12 for the task "induction" (a ' +
      'segment of 3 or more tokens and its repeat)'
  });
  assert.equal(hw.trainerCount(), before);
});
