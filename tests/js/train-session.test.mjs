// The training section's session (web/src/train/session.js) driving real trainers through a
// Worker-like remote whose answers arrive when the test lets them, as the page's Worker's do:
// a pause that lands while a chunk of steps is computing is final only once that chunk is counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import { TrainSession } from '../../web/src/train/session.js';

// No MessageChannel: the session yields with setTimeout, which does not keep Node alive.
globalThis.MessageChannel = undefined;

const hw = await createHeadwise();
const TASK = hw.trainingTasks()[0].name;

/** A store whose compute creates real trainers, each call answered only by `answer()`. */
function workerLikeStore() {
  /** @type {{method: string, run: () => void}[]} */
  const pending = [];
  const compute = {
    mode: 'worker',
    async start() {},
    async create(_name, options) {
      const trainer = hw.createTrainer(options);
      return {
        call: (method, ...args) => new Promise((resolve, reject) => {
          pending.push({ method, run: () => { try { resolve(trainer[method](...args)); } catch (e) { reject(e); } } });
        }),
        dispose: async () => trainer.dispose(),
      };
    },
  };
  return { store: { hw, compute }, pending };
}

/** Let the session's promises and message tasks run. */
const turn = () => new Promise((r) => setTimeout(r, 5));

/** Answer pending calls (each answer may queue more) until a 'step' call waits unanswered. */
async function untilStepPending(pending) {
  for (let i = 0; i < 1000; i += 1) {
    await turn();
    const next = pending.shift();
    if (!next) continue;
    if (next.method === 'step') {
      pending.unshift(next);
      return;
    }
    next.run();
  }
  assert.fail('no step call was made');
}

test('a pause while a chunk computes: "running" until that chunk is counted, then "paused" for good', async () => {
  const { store, pending } = workerLikeStore();
  const session = new TrainSession(store);
  session.configure(TASK, 1);
  const states = [];
  session.addEventListener('state', () => states.push(session.pausing ? `${session.status}, pausing` : session.status));
  session.start();
  await untilStepPending(pending);
  // Count one chunk, then pause while the next is computing.
  for (const p of pending.splice(0)) p.run();
  await untilStepPending(pending);
  const before = session.step;
  assert.ok(before > 0, 'the first chunk was counted');
  session.pause();
  assert.equal(session.status, 'training');
  assert.equal(session.pausing, true);
  // Neither a second pause, nor a start or one step, starts anything meanwhile.
  session.pause();
  session.start();
  await session.stepOnce();
  const inFlight = pending.filter((p) => p.method === 'step').length;
  assert.equal(inFlight, session.models.length, 'one chunk per model, nothing more');
  // The chunk lands: its steps count, and only then is the session paused.
  for (const p of pending.splice(0)) p.run();
  for (let i = 0; i < 50 && session.status !== 'paused'; i += 1) {
    await turn();
    for (const p of pending.splice(0)) p.run();
  }
  assert.equal(session.status, 'paused');
  assert.equal(session.pausing, false);
  const paused = session.step;
  assert.ok(paused > before, `the chunk computing at the pause was counted (${before} → ${paused})`);
  assert.deepEqual(states.slice(-2), ['training, pausing', 'paused']);
  // Paused means paused: nothing more is asked of the trainers, and the count stays.
  await turn();
  await turn();
  assert.equal(pending.filter((p) => p.method === 'step').length, 0);
  assert.equal(session.step, paused);
  // One step from there is exactly one.
  const one = session.stepOnce();
  for (let i = 0; i < 50 && session.status !== 'paused'; i += 1) {
    await turn();
    for (const p of pending.splice(0)) p.run();
  }
  await one;
  assert.equal(session.step, paused + 1);
  session.dispose();
});

test('a reset while pausing leaves nothing pausing', async () => {
  const { store, pending } = workerLikeStore();
  const session = new TrainSession(store);
  session.configure(TASK, 2);
  session.start();
  await untilStepPending(pending);
  session.pause();
  assert.equal(session.pausing, true);
  session.reset();
  assert.equal(session.status, 'idle');
  assert.equal(session.pausing, false);
  // The old chunk's answer arrives and changes nothing.
  for (const p of pending.splice(0)) p.run();
  await turn();
  assert.equal(session.step, 0);
  assert.equal(session.status, 'idle');
  session.dispose();
});

test('Run pressed while one step computes (the status still "training") trains on after that step, instead of pausing', async () => {
  const { store, pending } = workerLikeStore();
  const session = new TrainSession(store);
  session.configure(TASK, 3);
  const one = session.stepOnce();
  await untilStepPending(pending);
  // The first model's step lands (the counter moves) while the others still compute.
  pending.shift().run();
  await turn();
  assert.equal(session.step, 1);
  assert.equal(session.status, 'training');
  assert.equal(session.stepping, true);
  // What the Run button does now: start, not pause.
  session.start();
  assert.equal(session.pausing, false, 'not a pause');
  assert.equal(session.trainOn, true);
  for (let i = 0; i < 200 && session.step < 5; i += 1) {
    await turn();
    for (const p of pending.splice(0)) p.run();
  }
  await one;
  assert.ok(session.step >= 5, `training went on after the step (step ${session.step})`);
  assert.equal(session.status, 'training');
  assert.equal(session.trainOn, false);
  // A reset forgets a pending "train on".
  session.reset();
  assert.equal(session.trainOn, false);
  assert.equal(session.status, 'idle');
  session.dispose();
});
