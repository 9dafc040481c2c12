// "How many heads does it take?" without a browser: the grid's session (web/src/train/grid.js)
// training real trainers of the WASM module on the main thread, and the words and checks the
// page builds from their numbers (the cliff, the probe's errors, the settled steps).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import {
  GridSession, MAX_RELATIONS, cliffSentence, gridSettings, headsNeeded, parseProbe, parseRelations,
} from '../../web/src/train/grid.js';
import { probeFocus, settledSentence, settledSteps, uniqueSources } from '../../web/src/train/timeline.js';
import { snapshotEvery } from '../../web/src/train/model-run.js';
import { relationPhrase } from '../../web/src/shared/i18n/relations.js';

// No MessageChannel: the session yields with setTimeout, which does not keep Node alive.
globalThis.MessageChannel = undefined;

const hw = await createHeadwise();
const CATALOGUE = hw.trainingRelations();
const DEFAULTS = hw.headsNeededDefaults();
const message = (f) => {
  try {
    f();
  } catch (e) {
    return e.message;
  }
  return null;
};

test('relations are read from names of the catalogue: 1 to 4, each once, with a message naming what is wrong', () => {
  const allowed = CATALOGUE.map((r) => r.name).join(', ');
  assert.deepEqual(parseRelations('previous, first', CATALOGUE).map((r) => r.name), ['previous', 'first']);
  assert.equal(message(() => parseRelations('', CATALOGUE)), `choose at least one relation (of ${allowed})`);
  assert.equal(message(() => parseRelations('previous,nope', CATALOGUE)), `"nope" is not a relation (use ${allowed})`);
  assert.equal(message(() => parseRelations('first,first', CATALOGUE)), '"first" is chosen twice; each relation counts once');
  const five = CATALOGUE.slice(0, MAX_RELATIONS + 1).map((r) => r.name).join(',');
  assert.equal(message(() => parseRelations(five, CATALOGUE)), `5 relations chosen; at most 4 (of ${allowed})`);
});

test('the full grid puts the student\'s relations first, then the experiment\'s own order', () => {
  const s = gridSettings(hw, 'three-back', 3);
  assert.deepEqual(s.order.map((r) => r.name), ['three-back', ...DEFAULTS.gridRelations.filter((n) => n !== 'three-back')].slice(0, 4));
  const d = gridSettings(hw, DEFAULTS.relations.join(','), 1);
  assert.deepEqual(d.order.map((r) => r.name), DEFAULTS.gridRelations);
  assert.equal(d.dModel, DEFAULTS.dModel);
  assert.deepEqual(d.headCounts, DEFAULTS.headCounts);
});

test('the probe takes letters of the vocabulary up to the sequence length, and says which letter or length is wrong', () => {
  const s = gridSettings(hw, 'previous', 1);
  const last = s.tokenLabels[s.tokenLabels.length - 1];
  assert.deepEqual(parseProbe('ab c', s), [0, 1, 2]);
  assert.equal(message(() => parseProbe('AZB', s)), `"Z" is not in the vocabulary: use the letters A to ${last}`);
  assert.equal(message(() => parseProbe('A'.repeat(s.seqLen + 1), s)), `${s.seqLen + 1} letters is too long: the models read at most ${s.seqLen}`);
  assert.equal(message(() => parseProbe('  ', s)), `type a sequence of 1 to ${s.seqLen} letters from A to ${last}`);
});

test('the cliff is the smallest head count from which every larger one solves the task', () => {
  const row = (...w) => [1, 2, 4, 8].map((numHeads, k) => ({ numHeads, worst: w[k] }));
  assert.equal(headsNeeded(row(0.27, 0.81, 1, 1), 0.95), 4);
  assert.equal(headsNeeded(row(0.27, 0.96, 0.5, 1), 0.95), 8);
  assert.equal(headsNeeded(row(0.1, 0.2, 0.3, 0.4), 0.95), null);
  assert.equal(cliffSentence(3, row(0.27, 0.81, 1, 1), 0.95), '3 relations need 4 heads: 1 head 0.27, 2 heads 0.81, 4 heads 1.00, 8 heads 1.00');
  assert.equal(cliffSentence(1, row(1, 1, 1, 1), 0.95), '1 relation needs 1 head: 1 head 1.00, 2 heads 1.00, 4 heads 1.00, 8 heads 1.00');
  assert.equal(cliffSentence(4, row(0.28, 0.4, 0.9, 0.94), 0.95), '4 relations: no head count here solves them all: 1 head 0.28, 2 heads 0.40, 4 heads 0.90, 8 heads 0.94');
});

test('a head has settled from the first snapshot after which it stays at 0.9 or more on the relation\'s source', () => {
  const rels = [{ name: 'previous', title: 'previous token', rule: 'x[i-1]', source: { back: 1 } }, { name: 'first', title: 'first token', rule: 'x[0]', source: { at: 0 } }];
  assert.equal(relationPhrase(rels[0]), 'the previous token');
  assert.equal(relationPhrase({ name: 'three-back', title: 'three back' }), 'the token three back');
  assert.equal(relationPhrase(rels[1]), 'the first token');
  // A relation the catalogues do not know yet is named in English from the module's title.
  assert.equal(relationPhrase({ name: 'nine-back', title: 'nine back' }), 'the token nine back');
  assert.equal(relationPhrase({ name: 'last', title: 'last token' }), 'the last token');
  const points = [[0.3, 0.2], [0.95, 0.4], [0.85, 0.92], [0.97, 0.95], [0.99, 0.97]].map(([a, b], k) => ({ step: 20 * k, focus: [[a, 0.1], [0.1, b]] }));
  const list = settledSteps(points, 2);
  assert.deepEqual(list.map((s) => [s.head, s.step]), [[0, 60], [1, 40]]);
  assert.equal(settledSentence(list, rels), 'head 0 settled on the previous token near step 60; head 1 settled on the first token near step 40');
  const never = settledSteps(points.map((p) => ({ ...p, focus: [[0.5, 0.1], [0.1, 0.6]] })), 2);
  assert.equal(settledSentence(never, rels), 'no head settled on the previous token (at most 0.50, head 0); no head settled on the first token (at most 0.60, head 1)');
  // On the probe, a relation is measured only where its source is its own (and not after i),
  // and not at position 0, which sees only itself.
  const rows = uniqueSources(rels, 4);
  assert.deepEqual(rows, [[{ i: 2, src: 1 }, { i: 3, src: 2 }], [{ i: 2, src: 0 }, { i: 3, src: 0 }]]);
  const eye = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (j === i - 1 ? 1 : 0)));
  assert.deepEqual(probeFocus([eye], rows), [[1, 0]]);
});

test('the session trains the chosen row cell by cell, as a trainer trained directly does, and keeps the timeline', { timeout: 600000 }, async () => {
  const session = new GridSession({ hw });
  session.configure('previous,first', 5);
  const st = /** @type {any} */ (session.settings);
  st.steps = 60;  // a short run: the facts below do not depend on the budget
  const events = [];
  session.addEventListener('state', () => events.push(session.status));
  session.start(false);
  await new Promise((resolve, reject) => {
    const check = () => (session.status === 'done' ? resolve() : session.status === 'failed' ? reject(new Error(session.error)) : setTimeout(check, 20));
    check();
  });
  assert.equal(events.at(-1), 'done');
  const row = session.row(2);
  assert.deepEqual(row.map((c) => c.numHeads), DEFAULTS.headCounts);
  for (const c of row) {
    assert.equal(c.status, 'done');
    assert.equal(c.step, 60);
    const every = snapshotEvery(60);
    assert.deepEqual(c.snapshots.map((s) => s.step), Array.from({ length: 60 / every + 1 }, (_, k) => k * every));
    assert.equal(c.ablations.length, c.numHeads);
    assert.equal(c.worst, Math.min(...c.evaluation.relationAccuracy));
    // The same model trained directly gives the same numbers, bit for bit.
    const t = hw.createTrainer({ relations: ['previous', 'first'], numHeads: c.numHeads, dModel: st.dModel, seed: 5, seqLen: st.seqLen, vocab: st.vocab, learningRate: st.learningRate, batchSize: st.batchSize, evalSize: st.evalSize });
    t.step(60);
    assert.deepEqual(c.evaluation, t.evaluate({}));
    assert.deepEqual(c.ablations.at(-1), t.evaluate({ ablate: [c.numHeads - 1] }));
    assert.equal(c.parameters, t.parameterCount().total);
    t.dispose();
  }
  // The other rows wait for the full grid; every cell of a row has one parameter count.
  assert.ok(session.row(1).every((c) => c.status === 'idle'));
  assert.equal(new Set(row.map((c) => c.parameters)).size, 1);

  // A new probe: the latest attention is taken on it; an old snapshot is taken again from its
  // parameters, and the trainer is left as it was.
  const c = row.at(-1);
  const probe = [1, 2, 3];
  await session.setProbe(probe);
  assert.equal(c.attention.length, c.numHeads);
  assert.equal(c.attention[0].length, 3);
  const before = c.remote ? await c.remote.call('evaluate', {}) : null;
  assert.equal(await session.retake(c), true);
  assert.ok(c.snapshots.every((sn) => sn.probeKey === '1 2 3'));
  const early = c.snapshots[1].attention;
  assert.equal(early[0].length, 3);
  const direct = hw.createTrainer({ relations: ['previous', 'first'], numHeads: c.numHeads, dModel: st.dModel, seed: 5, seqLen: st.seqLen, vocab: st.vocab, learningRate: st.learningRate, batchSize: st.batchSize, evalSize: st.evalSize });
  direct.step(c.snapshots[1].step);
  assert.deepEqual(early, direct.attention({ tokens: probe }));
  direct.dispose();
  assert.deepEqual(await c.remote.call('evaluate', {}), before);
  const count = hw.trainerCount();
  session.dispose();
  // Disposing frees every trainer the session made.
  assert.equal(hw.trainerCount(), count - DEFAULTS.headCounts.length);
});
