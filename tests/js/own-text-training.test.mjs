// The own-text controller (web/src/text/own-text-training.js) with the module's real text trainer,
// in Node: spread over 1 to 8 replicas (each its own trainer, as each Worker holds one), stepped
// by the page's tree sum (one subtree sum per replica and step, combined here), it saves the same
// model file, byte for byte, as one trainer's own step(); on the main thread (no Worker)
// likewise; and its replicas are freed.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT, createHeadwise } from './helpers.mjs';
import { OwnTextTraining, laneNodes } from '../../web/src/text/own-text-training.js';

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

/** A trainer behind the remote shape a Worker's object has (Promises, fields read with get). */
function replica(freed, calls = []) {
  const t = hw.createTextTrainer(OPTIONS);
  return {
    calls,
    call: async (/** @type {string} */ method, /** @type {any[]} */ ...args) => {
      calls.push([method, ...(method === 'applyGradients' ? [] : args)]);
      return t[method](...args);
    },
    get: async (/** @type {string} */ field) => t[field],
    dispose: async () => {
      t.dispose();
      freed.push(1);
    },
  };
}

const want = direct();

test('spread over 1 to 8 replicas, the tree sum gives the file one trainer\'s step() gives', async () => {
  for (const n of [1, 2, 3, 4, 8]) {
    const freed = [];
    const replicas = Array.from({ length: n }, () => replica(freed));
    const info = {};
    for (const f of ['steps', 'stepsDone', 'shards', 'parameterCount', 'corpus', 'baselines']) info[f] = await replicas[0].get(f);
    const run = new OwnTextTraining(replicas, 'worker', info);
    assert.equal(run.workers, Math.min(n, info.shards));
    const losses = [];
    while (run.stepsDone < run.steps) losses.push(await run.step());
    assert.equal(losses.length, STEPS);
    // Each lane sums its own subtree once a step (one lane: its own step()); every replica applies.
    const nodes = laneNodes(info.shards, n);
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

test('on the main thread: the trainer\'s own step(), the same file', async () => {
  const run = await OwnTextTraining.open({ hw }, OPTIONS);
  assert.equal(run.mode, 'main');
  assert.equal(run.workers, 0);
  assert.equal(run.steps, STEPS);
  assert.ok(run.corpus.words > 1000 && run.corpus.vocab <= 301);
  assert.ok(run.baselines.unigram > run.baselines.bigram * 0.5);
  while (run.stepsDone < run.steps) await run.step();
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
  await run.step();
  await run.dispose();
  assert.equal(freed.length, 2);
  await assert.rejects(OwnTextTraining.open({ hw, compute: /** @type {any} */ (pool(3, 1)) }, OPTIONS), (e) => e.code === 'tooFewWords');
  assert.equal(freed.length, 4, 'the two replicas made were freed');
});
