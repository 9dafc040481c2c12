// The training section's "Reproduce it in Python" block: the script the page generates, run with
// Debian's NumPy and PyTorch, prints character for character what the page shows for the same
// run, where the page's numbers come from dist/headwise.js (the trainer the page runs). Also the
// formatting helper against Python's own f"{x:.Nf}".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHeadwise } from './helpers.mjs';
import { runPython } from './python.mjs';
import { trainingCode, trainingOutput } from '../../web/src/train/python.js';
import { pyFixed } from '../../web/src/shared/python/format.js';
import { resolveSettings } from '../../web/src/train/session.js';

const hw = await createHeadwise();

/** Python's stdout for `source`, with one BLAS thread. @param {string} source */
const python = (source) => runPython(source, { env: { OMP_NUM_THREADS: '1' } });

test('pyFixed formats as Python does, ties to even on the exact value', () => {
  const values = [0.0625, 0.125, 0.375, 0.5, 1.5, 2.5, 0.0005, 0.0015, 0.9995, 1 / 3, 2 / 3, 0.1, 0.7, 1, 0,
    0.123456, 1e-9, 0.99951171875, 0.00048828125, 0.0009765625, 1234.5678, 0.245, 0.255];
  for (let k = 0; k <= 2048; k += 7) values.push(k / 2048);
  const digits = [0, 1, 2, 3];
  const expected = python(`
values = [${values.map((v) => v.toPrecision(17)).join(', ')}]
for d in (${digits.join(', ')},):
    print(" ".join(f"{v:.{d}f}" for v in values))
`).trim().split('\n');
  digits.forEach((d, i) => assert.equal(values.map((v) => pyFixed(v, d)).join(' '), expected[i], `${d} digits`));
});

test('the training script, run in PyTorch, prints what the page shows for the default run', { timeout: 900000 }, async () => {
  const task = hw.trainingTasks()[0];
  const seed = 1;
  const settings = resolveSettings(hw, task.name, seed);
  const models = settings.headCounts.map((numHeads) => {
    const t = hw.createTrainer({ task: settings.task, numHeads, dModel: settings.dModel, seed, seqLen: settings.seqLen, vocab: settings.vocab, learningRate: settings.learningRate, batchSize: settings.batchSize });
    try {
      t.step(settings.steps);
      const evaluation = t.evaluate({});
      const ablations = Array.from({ length: numHeads }, (_, h) => t.evaluate({ ablate: [h] }));
      return { numHeads, parameters: t.parameterCount().total, evaluation, ablations };
    } finally {
      t.dispose();
    }
  });
  const page = trainingOutput(settings, models);
  const printed = python(trainingCode(settings)).replace(/\n$/, '');
  assert.equal(printed, page);
  // And the run shows what the section claims: the 2-head model divides the relations.
  assert.match(page, /2 heads, \d+ parameters/);
});
