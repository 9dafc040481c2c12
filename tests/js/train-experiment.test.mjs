// The experiment controller (web/src/train/experiment.js) running a declaration of its own, with
// real trainers of the WASM module on the main thread: the statuses it goes through, the
// declaration's settings, models, probe and measure used as declared, the numbers of the same
// trainers trained directly, the time it took, a failure named, and a reset whose late answers
// change nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import { Experiment, ExperimentRun, modelSettings, trainerOptions } from '../../web/src/train/experiment.js';
import { snapshotEvery } from '../../web/src/train/model-run.js';

// No MessageChannel: the controller yields with setTimeout, which does not keep Node alive.
globalThis.MessageChannel = undefined;

const hw = await createHeadwise();
const STEPS = 30;

/**
 * Two models of one task in lockstep, a short budget; `heads` chooses their head counts.
 * @param {number[]} heads
 */
function declaration(heads) {
  const measured = [];
  return {
    measured,
    name: 'hw-test',
    settings: (/** @type {any} */ h, /** @type {number} */ seed) => {
      if (!Number.isInteger(seed)) throw new Error(`seed ${seed} is not a whole number`);
      return { ...modelSettings(h.trainingTasks()[0].defaults), task: h.trainingTasks()[0].name, seed, steps: STEPS, evalSize: 32 };
    },
    same: (/** @type {any} */ s, /** @type {number} */ seed) => s.seed === seed,
    runs: (/** @type {any} */ s) => heads.map((numHeads) => new ExperimentRun({ task: s.task, numHeads, ...trainerOptions(s) })),
    probe: () => [0, 1, 2],
    measure: (/** @type {ExperimentRun} */ run) => measured.push(run.key),
  };
}

/** Wait until `exp`'s status is one of `statuses`. */
async function until(exp, ...statuses) {
  for (let i = 0; i < 2000 && !statuses.includes(exp.status); i += 1) await new Promise((r) => setTimeout(r, 5));
  assert.ok(statuses.includes(exp.status), `status ${exp.status}, waited for ${statuses.join(' or ')}`);
}

test('a declared experiment: idle, training, evaluating, done; every model trained, evaluated and measured as declared', async () => {
  const d = declaration([1, 2]);
  const exp = new Experiment({ hw }, d);
  const statuses = [];
  exp.addEventListener('state', () => { if (statuses.at(-1) !== exp.status) statuses.push(exp.status); });
  exp.configure(4);
  assert.equal(exp.status, 'idle');
  assert.deepEqual(exp.runs.map((r) => [r.key, r.status]), [['1', 'idle'], ['2', 'idle']]);
  assert.deepEqual(exp.probe, [0, 1, 2]);
  exp.start();
  assert.equal(exp.status, 'training');
  await until(exp, 'done', 'failed');
  assert.deepEqual(statuses, ['idle', 'training', 'evaluating', 'done']);
  assert.equal(exp.error, null);
  assert.deepEqual(d.measured, ['1', '2']);
  assert.ok(exp.tookMs > 0 && exp.finishedAt >= exp.startedAt);
  const every = snapshotEvery(STEPS);
  for (const r of exp.runs) {
    assert.equal(r.status, 'done');
    assert.equal(r.step, STEPS);
    // The untrained model's snapshot, then one every `every` steps, on the declared probe.
    assert.deepEqual(r.snapshots.map((s) => s.step), Array.from({ length: STEPS / every + 1 }, (_, k) => k * every));
    const t = hw.createTrainer(r.options);
    t.step(STEPS);
    assert.deepEqual(r.evaluation, t.evaluate({}));
    assert.deepEqual(r.attention, t.attention({ tokens: [0, 1, 2] }));
    t.dispose();
  }
  // Done is done: a start trains nothing more; the same inputs keep the models.
  assert.equal(exp.canStart(), false);
  const runs = exp.runs;
  exp.ensure(4);
  assert.equal(exp.runs, runs);
  exp.dispose();
});

test('bad inputs change nothing; a model that cannot be made fails the experiment with its message', async () => {
  const exp = new Experiment({ hw }, declaration([3]));
  exp.configure(1);
  const runs = exp.runs;
  assert.throws(() => exp.configure(1.5), /seed 1.5 is not a whole number/);
  assert.equal(exp.runs, runs);
  assert.equal(exp.settings.seed, 1);
  // 3 heads do not divide d_model: the trainer refuses, and the experiment says so.
  exp.start();
  await until(exp, 'failed', 'done');
  assert.equal(exp.status, 'failed');
  assert.equal(exp.error.code, 'divisible');
  assert.match(exp.error.message, /d_model \(8\) must be divisible by num_heads \(3\)/);
  assert.equal(exp.runs[0].status, 'failed');
  assert.equal(exp.canStart(), false);
  // Reset is the way out: a new generation, nothing failed.
  const gen = exp.generation;
  exp.reset();
  assert.equal(exp.generation, gen + 1);
  assert.equal(exp.status, 'idle');
  assert.equal(exp.error, null);
  exp.dispose();
});

test('a reset while training: the old models are disposed and their late answers change nothing', async () => {
  const exp = new Experiment({ hw }, declaration([1, 2]));
  exp.configure(2);
  const old = exp.runs;
  exp.start();
  for (let i = 0; i < 500 && old[0].step === 0; i += 1) await new Promise((r) => setTimeout(r, 2));
  assert.equal(exp.status, 'training');
  exp.reset();
  assert.equal(exp.status, 'idle');
  assert.ok(old.every((r) => r.disposed));
  assert.notEqual(exp.runs, old);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(exp.status, 'idle');
  assert.equal(exp.error, null);
  assert.ok(exp.runs.every((r) => r.step === 0 && r.status === 'idle'));
  // The new generation trains to the end as if nothing had happened.
  exp.start();
  await until(exp, 'done', 'failed');
  assert.equal(exp.status, 'done');
  exp.dispose();
});
