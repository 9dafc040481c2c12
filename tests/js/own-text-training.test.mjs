// The own-text controller (web/src/text/own-text-training.js) with the module's real text trainer,
// in Node: spread over 1 to 8 replicas (each its own trainer, as each Worker holds one), stepped
// as a team (web/src/shared/compute/team.js: one subtree sum per replica and step, sent to the
// others over MessageChannels, combined by each), it saves the same model file, byte for byte, as
// one trainer's own step(), and so does every replica; on the main thread (no Worker) likewise; a
// member that fails stops the others instead of leaving them waiting; and its replicas are freed.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT, createHeadwise } from './helpers.mjs';
import { OwnTextTraining, laneNodes } from '../../web/src/text/own-text-training.js';
import { combineNodes, teamMember } from '../../web/src/shared/compute/team.js';

const hw = await createHeadwise();
const DATA = join(ROOT, 'node_modules', '@stdlib', 'datasets-sotu', 'data');
const TEXT = readdirSync(DATA).filter((f) => /^1962_john_f_kennedy_d\.txt$/.test(f)).map((f) => readFileSync(join(DATA, f), 'utf8')).join('\n\n');
const STEPS = 3;
// A small model, so that eight replicas step quickly (no warm start: its sizes are fixed).
const OPTIONS = { text: TEXT, steps: STEPS, warmStart: null, dModel: 16, numHeads: 2, layers: 1, context: 16, vocab: 300 };

/** The file one trainer saves after STEPS of its own step(). */
function direct() {
  const t = hw.createTextTrainer(OPTIONS);
  try {
    for (let k = 0; k < STEPS; k += 1) t.step(1);
    return t.save();
  } finally {
    t.dispose();
  }
}

/**
 * A trainer behind the remote shape a Worker's object has (Promises, fields read with get, and
 * link / steps: a team member as the Worker's dispatcher makes one). Every call that reaches the
 * trainer is logged.
 * @param {number[]} freed
 * @param {{failAt?: number}} [o]  shardSum throws at this step (counted from 1)
 */
function replica(freed, { failAt = 0 } = {}) {
  const t = hw.createTextTrainer(OPTIONS);
  /** @type {any[][]} */
  const calls = [];
  let sums = 0;
  const logged = {
    shardSum: (/** @type {number} */ lo, /** @type {number} */ hi) => {
      calls.push(['shardSum', lo, hi]);
      sums += 1;
      if (sums === failAt) throw new Error('out of memory (a test)');
      return t.shardSum(lo, hi);
    },
    applyGradients: (/** @type {Float64Array} */ g, /** @type {number} */ l) => {
      calls.push(['applyGradients']);
      return t.applyGradients(g, l);
    },
  };
  /** @type {ReturnType<typeof teamMember>|null} */
  let member = null;
  return {
    calls,
    call: async (/** @type {string} */ method, /** @type {any[]} */ ...args) => {
      calls.push([method, ...args]);
      return t[method](...args);
    },
    get: async (/** @type {string} */ field) => t[field],
    link: async (/** @type {any} */ setup) => {
      member = teamMember(setup, combineNodes);
      return null;
    },
    steps: (/** @type {number} */ k) => member.steps(logged, k),
    dispose: async () => {
      member?.close();
      t.dispose();
      freed.push(1);
    },
  };
}

/** A run over n replicas, as OwnTextTraining.open makes one on a pool. */
async function team(replicas) {
  const info = {};
  for (const f of ['steps', 'stepsDone', 'shards', 'parameterCount', 'corpus', 'baselines']) info[f] = await replicas[0].get(f);
  const run = new OwnTextTraining(replicas, 'worker', info);
  await run.link();
  return run;
}

const want = direct();

test('spread over 1 to 8 replicas, the team gives the file one trainer\'s step() gives, on every replica', async () => {
  for (const n of [1, 2, 3, 4, 8]) {
    const freed = [];
    const replicas = Array.from({ length: n }, () => replica(freed));
    const run = await team(replicas);
    assert.equal(run.workers, Math.min(n, run.shards));
    const losses = [];
    // two steps at once, then one: the team's steps(k) and the last, shorter call
    while (run.stepsDone < run.steps) losses.push(...await run.advance(2));
    assert.equal(losses.length, STEPS);
    // Each lane sums its own subtree once a step (one lane: its own step()) and applies the sum.
    const nodes = laneNodes(run.shards, n);
    replicas.forEach((r, lane) => {
      const once = n === 1 ? [['step', 1]] : [['shardSum', ...nodes[lane]], ['applyGradients']];
      assert.deepEqual(r.calls, Array.from({ length: STEPS }, () => once).flat(), `${n} replicas, lane ${lane}`);
    });
    assert.ok(losses.every(Number.isFinite));
    const bytes = await run.save();
    assert.deepEqual(Buffer.from(bytes), Buffer.from(want), `${n} replicas`);
    // Every replica holds the same model (not only the first).
    for (const r of replicas) assert.deepEqual(Buffer.from(await r.call('save')), Buffer.from(want));
    await run.dispose();
    assert.equal(freed.length, n, 'every replica freed');
  }
});

test('a member that fails stops the team: every member\'s steps() rejects, none waits for ever', async () => {
  const freed = [];
  const replicas = [replica(freed), replica(freed, { failAt: 2 }), replica(freed)];
  const run = await team(replicas);
  assert.deepEqual((await run.advance(1)).length, 1);
  await assert.rejects(run.advance(2), /out of memory \(a test\)/);
  assert.equal(run.stepsDone, 1);
  // the team stays stopped: the next call says so at once
  await assert.rejects(run.advance(1), /team/);
  await run.dispose();
  assert.equal(freed.length, 3);
});

test('on the main thread: the trainer\'s own step(), the same file', async () => {
  const run = await OwnTextTraining.open({ hw }, OPTIONS);
  assert.equal(run.mode, 'main');
  assert.equal(run.workers, 0);
  assert.equal(run.steps, STEPS);
  assert.ok(run.corpus.words > 1000 && run.corpus.vocab <= 301);
  assert.ok(run.baselines.unigram > run.baselines.bigram * 0.5);
  while (run.stepsDone < run.steps) await run.advance(1);
  assert.deepEqual(Buffer.from(await run.save()), Buffer.from(want));
  const e = await run.evaluate();
  assert.ok(Number.isFinite(e.heldOut.loss));
  await run.dispose();
});

test('a text the trainer refuses: its coded error, and nothing left open', async () => {
  await assert.rejects(OwnTextTraining.open({ hw }, { text: 'the cat sat on the mat' }), (e) => e.code === 'tooFewWords' && e.params.min > 0);
});

test('on a pool: one replica per Worker made at once; one refused, the others freed and its error thrown', async () => {
  const freed = [];
  /** A pool of `size` Workers whose lane `refuse` refuses (as pool.js's create places them). */
  const pool = (size, refuse = -1) => ({
    mode: 'worker', size, lanes: [],
    start: async () => {},
    warm: async () => {},
    create: async (/** @type {string} */ factory, /** @type {any} */ options, { lane }) => {
      assert.equal(factory, 'createTextTrainer');
      if (lane === refuse) hw.createTextTrainer({ ...options, text: 'too short' });
      return { lane, ...replica(freed) };
    },
  });
  const run = await OwnTextTraining.open({ hw, compute: /** @type {any} */ (pool(2)) }, OPTIONS);
  assert.deepEqual(run.replicas.map((r) => r.lane), [0, 1]);
  assert.equal(run.workers, 2);
  await run.advance(1);
  await run.dispose();
  assert.equal(freed.length, 2);
  await assert.rejects(OwnTextTraining.open({ hw, compute: /** @type {any} */ (pool(3, 1)) }, OPTIONS), (e) => e.code === 'tooFewWords');
  assert.equal(freed.length, 4, 'the two replicas made were freed');
});
