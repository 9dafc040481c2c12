// The pool of Workers (web/src/shared/compute/pool.js's Pool) with a Worker stand-in that runs
// compute's protocol on a module instance of its own, one per Worker, answering in later tasks as
// a real Worker does: placement on the least-loaded Worker, calls kept in order on theirs, idle
// Workers closed, keyed runs superseded as on one Worker, the size setting, and the grid of
// "How many heads does it take?" trained on two Workers giving the very numbers of one.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import { Pool, checkWorkers, defaultWorkers, pinWorkers } from '../../web/src/shared/compute/pool.js';
import { MAX_WORKERS } from '../../web/src/shared/compute/limits.js';
import { GridSession } from '../../web/src/train/grid.js';

// No MessageChannel: the sessions yield with setTimeout, which does not keep Node alive.
globalThis.MessageChannel = undefined;

const hw = await createHeadwise();

/** Every Worker stand-in made, and how many had a message in hand at once (at most). */
const made = [];
let inHand = 0;
let peakInHand = 0;

/** A Worker: its own module instance; each message answered in a later task, in order. */
class FakeWorker {
  constructor() {
    made.push(this);
    this.terminated = false;
    this.objects = new Map();
    this.next = 1;
    this.chain = createHeadwise().then((m) => {
      this.hw = m;
      setTimeout(() => this.onmessage?.({ data: { ready: true } }), 0);
    });
  }

  postMessage(m) {
    inHand += 1;
    peakInHand = Math.max(peakInHand, inHand);
    this.chain = this.chain.then(() => new Promise((resolve) => setTimeout(resolve, 1))).then(() => {
      inHand -= 1;
      if (this.terminated) return;
      let reply;
      try {
        reply = { id: m.id, ok: true, value: this.handle(m) };
      } catch (e) {
        reply = { id: m.id, ok: false, error: { name: 'Error', message: e.message } };
      }
      this.onmessage?.({ data: JSON.parse(JSON.stringify(reply)) });
    });
  }

  handle(m) {
    if (m.type === 'run') return this.hw[m.method](m.options);
    if (m.type === 'create') {
      const id = this.next;
      this.next += 1;
      this.objects.set(id, this.hw[m.factory](m.options));
      return { object: id };
    }
    const obj = this.objects.get(m.object);
    if (m.type === 'dispose') {
      this.objects.delete(m.object);
      obj?.dispose();
      return null;
    }
    return obj[m.method](...m.args);
  }

  terminate() {
    this.terminated = true;
  }
}
globalThis.Worker = FakeWorker;

/** createHeadwise as compute.js reads it (moduleSource: the Worker's text, unused by the stand-in). */
const factory = () => Object.assign(() => createHeadwise(), { moduleSource: () => '/* module */', Tensor: createHeadwise.Tensor, result: (x) => x });

/** A Pool of `size` stand-in Workers. */
function pool(size) {
  return new Pool({ factory, size });
}

const TASK = hw.trainingTasks()[0].name;

test('the size: one per core, at most 8, at least 1; a pinned size is 1 to 8 or a clear error', () => {
  assert.equal(defaultWorkers(2), 2);
  assert.equal(defaultWorkers(32), MAX_WORKERS);
  assert.equal(defaultWorkers(undefined), 1);
  assert.equal(defaultWorkers(0), 1);
  assert.equal(checkWorkers('3'), 3);
  for (const bad of [0, 9, 1.5, 'two', '', -1]) {
    assert.throws(() => checkWorkers(bad), /^Error: workers must be a whole number from 1 to 8/);
  }
  const p = pool(2);
  pinWorkers(5);
  assert.equal(p.size, 5);
  assert.equal(pool(undefined).size, 5);
  pinWorkers('');
  assert.equal(p.size, defaultWorkers());
  assert.throws(() => pinWorkers('0'), /workers must be a whole number from 1 to 8/);
  p.dispose();
});

test('objects go to the least-loaded Worker; each one\'s calls stay in order there; idle Workers close', async () => {
  const before = made.length;
  const p = pool(2);
  const a = await p.create('createTrainer', { task: TASK, numHeads: 1, dModel: 8, seed: 1 });
  const b = await p.create('createTrainer', { task: TASK, numHeads: 2, dModel: 8, seed: 1 });
  const c = await p.create('createTrainer', { task: TASK, numHeads: 4, dModel: 8, seed: 1 });
  assert.equal(p.mode, 'worker');
  assert.deepEqual([a.lane, b.lane, c.lane], [0, 1, 0]);
  assert.equal(made.length - before, 2, 'two Workers for three objects in a pool of two');
  // In order on its Worker: three calls sent at once answer steps 1, 2, 3.
  const steps = await Promise.all([a.call('step', 1), a.call('step', 1), a.call('step', 1)]);
  assert.deepEqual(steps.map((r) => r.step), [1, 2, 3]);
  // A keyed run superseded by a newer one with the same key (on the first Worker, as with one).
  const old = p.run('parameterCount', {}, { key: 'k' }).then(() => 'resolved', (e) => e.name);
  const newer = p.run('trainingTasks', undefined, { key: 'k' });
  assert.equal(await old, 'AbortError');
  assert.ok(Array.isArray(await newer));
  const second = made[made.length - 1];
  await b.dispose();
  assert.equal(second.terminated, true, 'the second Worker closes with its last object');
  assert.equal(p.open, 1);
  await a.dispose();
  await c.dispose();
  p.dispose();
  assert.equal(made.slice(before).every((w) => w.terminated), true, 'dispose() terminates every Worker');
});

test('with one Worker the pool is one Compute: every object on it', async () => {
  const before = made.length;
  const p = pool(1);
  const lanes = [];
  for (const numHeads of [1, 2, 4]) lanes.push((await p.create('createTrainer', { task: TASK, numHeads, dModel: 8, seed: 1 })).lane);
  assert.deepEqual(lanes, [0, 0, 0]);
  assert.equal(made.length - before, 1);
  p.dispose();
});

/**
 * The default experiment of "How many heads does it take?" trained through a pool of `size`.
 * @returns {Promise<{numbers: any[], peak: number, lanes: number}>}
 */
async function grid(size) {
  const compute = pool(size);
  const session = new GridSession({ hw, compute });
  const s = hw.headsNeededDefaults();
  session.configure(s.gridRelations.slice(0, 2).join(','), 3);
  peakInHand = 0;
  session.start(false);
  await new Promise((resolve, reject) => {
    const check = () => (session.status === 'done' ? resolve() : session.status === 'failed' ? reject(new Error(session.error)) : setTimeout(check, 20));
    check();
  });
  const numbers = [];
  for (const c of session.plan(false)) {
    numbers.push({ key: c.key, loss: c.loss, accuracy: c.accuracy, evaluation: c.evaluation, ablations: c.ablations, parameters: await c.remote.call('parameters') });
  }
  const out = { numbers, peak: compute.peakBusy, lanes: session.lanes, inHand: peakInHand };
  session.dispose();
  compute.dispose();
  return out;
}

test('the grid on two Workers: two models train at once, and every number is bit for bit one Worker\'s', async () => {
  const one = await grid(1);
  const two = await grid(2);
  assert.equal(one.lanes, 1);
  assert.equal(two.lanes, 2);
  assert.equal(one.peak, 1);
  assert.equal(two.peak, 2, 'two Workers had calls under way at once');
  assert.ok(two.inHand >= 2);
  assert.ok(one.numbers.length >= 4);
  // deepEqual compares numbers with Object.is: bit for bit (NaN and -0 included).
  assert.deepEqual(two.numbers, one.numbers);
});
