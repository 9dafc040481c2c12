// "Heads that work together"'s circuit curves (web/src/train/induction.js): layer 2's circuits
// added from trainer.circuits() at each snapshot, and the two steps read from them, where the
// copier formed (copierStep) and where it learnt where to look (readsStep, circuitSteps), on
// hand-made curves and on a real trainer of the WASM module; and the circuits' PyTorch script
// (induction-python.js), run by /usr/bin/python3, printing what the page's curves hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import { runPython } from './python.mjs';
import { COPIER_FORMED, READS_PREVIOUS, addCircuits, circuitSteps, copierStep, inductionSettings, readsStep } from '../../web/src/train/induction.js';
import { inductionCircuitsCode, inductionCircuitsOutput } from '../../web/src/train/induction-python.js';

const STEPS = [0, 12, 24, 36, 48];

test('copierStep: the first snapshot where a layer-2 head reaches the threshold, and which head', () => {
  assert.deepEqual(copierStep(STEPS, [[0.1, 0.5, 0.79, 0.85, 0.9], [0.2, 0.6, 0.81, 0.7, 0.95]]), { step: 24, head: 1, score: 0.81 });
  // Exactly at the threshold counts; the highest head at that step is named.
  assert.deepEqual(copierStep(STEPS, [[0, 0, COPIER_FORMED, 0.9, 0.9], [0, 0, 0.1, 0.95, 1]]), { step: 24, head: 0, score: COPIER_FORMED });
  assert.equal(copierStep(STEPS, [[0.1, 0.2, 0.3, 0.4, 0.79], [0.7, 0.7, 0.7, 0.7, 0.7]]), null);
  assert.equal(copierStep([], [[], []]), null);
  assert.deepEqual(copierStep(STEPS, [[0.1, 0.5, 0.6, 0.6, 0.6]], 0.5), { step: 12, head: 0, score: 0.5 });
});

test('readsStep: the previous-token pair at the threshold and the highest of its row', () => {
  const k = [[0.18, 0.2, 0.27, 0.3, 0.3], [0.17, 0.19, 0.26, 0.26, 0.31]];
  // Head 1 passes 0.25 at step 24 but head 0 is higher there and at 36; it is highest at 48.
  assert.deepEqual(readsStep(STEPS, k, 1), { step: 48, score: 0.31 });
  assert.deepEqual(readsStep(STEPS, k, 0), { step: 24, score: 0.27 });
  // Highest but under the threshold: not yet.
  assert.equal(readsStep(STEPS, [[0.1, 0.1, 0.1, 0.1, 0.1], [0.2, 0.2, 0.24, 0.249, READS_PREVIOUS - 1e-9]], 1), null);
  assert.deepEqual(readsStep(STEPS, [[0.1, 0.1, 0.1, 0.1, 0.1], [0.2, 0.2, 0.24, 0.249, READS_PREVIOUS]], 1), { step: 48, score: READS_PREVIOUS });
});

test('circuitSteps: the copier\'s own K-composition row; the previous-token head given or read from the latest scores', () => {
  const curves = {
    steps: STEPS,
    copying: [[0.1, 0.85, 0.9, 0.95, 0.99], [0.1, 0.3, 0.5, 0.9, 0.99]],
    // k[h][g]: head 0 (the copier) reads layer-1 head 1 from step 36; head 1 would read head 0 at 12.
    k: [[[0.2, 0.2, 0.2, 0.2, 0.2], [0.18, 0.2, 0.22, 0.28, 0.3]], [[0.2, 0.3, 0.3, 0.3, 0.3], [0.1, 0.1, 0.1, 0.1, 0.1]]],
    previous: [[0.1, 0.1, 0.3, 0.3, 0.2], [0.1, 0.1, 0.1, 0.2, 0.5]],
  };
  const cs = circuitSteps(curves, null);
  assert.equal(cs.previous, 1, 'the latest previous-position scores name layer 1 head 1');
  assert.deepEqual(cs.copier, { step: 12, head: 0, score: 0.85 });
  assert.deepEqual(cs.reads, { step: 36, score: 0.28 });
  const given = circuitSteps(curves, 0);
  assert.equal(given.previous, 0);
  assert.equal(given.reads, null, 'the copier never reads head 0 past the threshold');
  assert.deepEqual(circuitSteps({ steps: [], copying: [], k: [], previous: [] }, null), { copier: null, reads: null, previous: null });
});

test('addCircuits keeps layer 2\'s copying, its K-composition with layer 1 and layer 1\'s previous-position scores', async () => {
  const hw = await createHeadwise();
  const t = hw.createTrainer({ task: 'induction', layers: 2, numHeads: 2, dModel: 8, seed: 3, seqLen: 16, vocab: 10, batchSize: 4, evalSize: 12 });
  const curves = { steps: [], copying: [], k: [], previous: [] };
  const seen = [];
  for (const step of [0, 5, 10]) {
    if (step) t.step(5);
    const c = t.circuits();
    seen.push(c);
    addCircuits(curves, step, c);
  }
  t.dispose();
  assert.deepEqual(curves.steps, [0, 5, 10]);
  for (let h = 0; h < 2; h += 1) {
    assert.deepEqual(curves.copying[h], seen.map((c) => c.copying[1][h]));
    for (let g = 0; g < 2; g += 1) assert.deepEqual(curves.k[h][g], seen.map((c) => c.composition.k[1][h][0][g]));
    assert.deepEqual(curves.previous[h], seen.map((c) => c.previousPosition[0][h]));
  }
  assert.notDeepEqual(curves.copying[0][0], curves.copying[0][2], 'training moves the scores');
});

test('the circuits\' PyTorch script prints the page\'s curves at the timeline\'s step', async () => {
  const hw = await createHeadwise();
  // The section's settings for seed 4, at a step early enough to run in seconds.
  const s = inductionSettings(hw, 4);
  const t = hw.createTrainer({ task: 'induction', layers: s.layers, numHeads: s.numHeads, dModel: s.dModel, seed: s.seed });
  const curves = { steps: [], copying: [], k: [], previous: [] };
  addCircuits(curves, 0, t.circuits());
  for (const step of [12, 24, 36]) {
    t.step(12);
    addCircuits(curves, step, t.circuits());
  }
  t.dispose();
  const k = 2;
  const printed = inductionCircuitsOutput(curves, k);
  assert.match(printed, /^step 24: layer 2's circuits\n  layer 2 head 0: copying -?\d\.\d{3}, K-composition with layer 1 heads \d\.\d{3} \d\.\d{3}\n/);
  const stdout = runPython(inductionCircuitsCode(s, curves.steps[k]), { name: 'induction_circuits.py' });
  assert.equal(stdout.trim(), printed);
});
