// The training engine (web/src/train/model-run.js) on its own, with real trainers of the WASM module on
// the main thread: runs of different shapes trained side by side in lockstep give the numbers
// of the same trainers trained directly, bit for bit; the latest switch of heads wins; a disposed
// run's late answers are dropped and its trainer freed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import { Disposed, ModelRun, RunSet, isDisposed } from '../../web/src/train/model-run.js';

// No MessageChannel: the engine yields with setTimeout, which does not keep Node alive.
globalThis.MessageChannel = undefined;

const hw = await createHeadwise();
const OPTIONS = { relations: ['previous', 'first'], dModel: 8, seed: 3, seqLen: 6, vocab: 8, batchSize: 8, evalSize: 32 };

test('runs of 1 and 4 heads trained in lockstep: snapshots on every 10th step, the direct trainers\' numbers', async () => {
  const set = new RunSet({ hw }, 'hw-test steps');
  set.probe = [0, 1, 2, 3];
  set.probeKey = '0 1 2 3';
  const runs = [new ModelRun({ ...OPTIONS, numHeads: 1 }), new ModelRun({ ...OPTIONS, numHeads: 4 })];
  let progress = 0;
  set.addEventListener('progress', () => { progress += 1; });
  for (const r of runs) await r.open({ hw });
  await set.train(runs, { to: 25, every: 10, pacedSteps: 25 });
  assert.ok(progress > 0);
  for (const r of runs) {
    assert.equal(r.mode, 'main');
    assert.equal(r.step, 25);
    assert.equal(r.steps.at(-1), 25);
    // A snapshot on every 10th step and at the end, each on the set's probe.
    assert.deepEqual(r.snapshots.map((s) => s.step), [10, 20, 25]);
    assert.ok(r.snapshots.every((s) => s.probeKey === '0 1 2 3' && s.parameters === undefined));
    await r.evaluateHeads();
    assert.equal(r.ablations.length, r.numHeads);
    const t = hw.createTrainer({ ...OPTIONS, numHeads: r.numHeads });
    t.step(25);
    assert.equal(r.parameters, t.parameterCount().total);
    assert.deepEqual(r.attention, t.attention({ tokens: [0, 1, 2, 3] }));
    assert.deepEqual(r.evaluation, t.evaluate({}));
    assert.deepEqual(r.ablations.at(-1), t.evaluate({ ablate: [r.numHeads - 1] }));
    t.dispose();
  }
  // The latest switch wins: an earlier one whose answer comes later is not kept.
  const four = runs[1];
  const first = four.ablate([0]);
  const second = four.ablate([1, 2]);
  assert.deepEqual([await first, await second], [false, true]);
  assert.deepEqual([...four.off], [1, 2]);
  const t = hw.createTrainer({ ...OPTIONS, numHeads: 4 });
  t.step(25);
  assert.deepEqual(four.offEvaluation, t.evaluate({ ablate: [1, 2] }));
  t.dispose();
  const count = hw.trainerCount();
  for (const r of runs) r.dispose();
  assert.equal(hw.trainerCount(), count - 2);
});

test('a run disposed while it trains: the loop rejects with Disposed, nothing more is recorded', async () => {
  const set = new RunSet({ hw }, 'hw-test steps');
  set.probe = [0, 1];
  const run = new ModelRun({ ...OPTIONS, numHeads: 2 });
  await run.open({ hw });
  const count = hw.trainerCount();
  set.addEventListener('progress', () => run.dispose(), { once: true });
  const error = await set.train([run], { to: 1000, every: 1, pacedSteps: 1000 }).then(() => null, (e) => e);
  assert.ok(isDisposed(error), String(error));
  assert.ok(error instanceof Disposed);
  const recorded = run.steps.length;
  assert.ok(recorded >= 1 && run.step < 1000);
  assert.equal(hw.trainerCount(), count - 1);
  await assert.rejects(run.call('evaluate', {}), Disposed);
  assert.equal(run.steps.length, recorded);
  // Disposed before its trainer is made: none is made.
  const never = new ModelRun({ ...OPTIONS, numHeads: 1 });
  const opening = never.open({ hw });
  never.dispose();
  await assert.rejects(opening, Disposed);
  assert.equal(hw.trainerCount(), count - 1);
});
