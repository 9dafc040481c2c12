// Tasks built from relations, through the WASM API: the catalogue, the heads-needed
// experiment's defaults, a trainer on 1 to 6 relations (its config, per-relation results in the
// list's order, headFocus [h][r], attention), the same run as the preset of the same relations,
// determinism and no trainer left behind. Errors are in train-errors.test.mjs; the PyTorch
// fixtures of such tasks in train.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import { relationSource, sourceOf } from '../../web/src/shared/i18n/relations.js';

const hw = await createHeadwise();

describe('trainingRelations', () => {
  test('lists the catalogue: name, title, rule and description, fresh each call', () => {
    const relations = hw.trainingRelations();
    assert.deepEqual(relations.map((r) => [r.name, r.rule]), [
      ['previous', 'x[i-1]'], ['two-back', 'x[i-2]'], ['three-back', 'x[i-3]'],
      ['four-back', 'x[i-4]'], ['first', 'x[0]'], ['second', 'x[1]'], ['third', 'x[2]']]);
    for (const r of relations) {
      assert.deepEqual(Object.keys(r).sort(), ['description', 'name', 'rule', 'source', 'title']);
      assert.ok(r.title.length > 3 && r.description.length > 20, r.name);
    }
    relations.length = 0;
    assert.equal(hw.trainingRelations().length, 7);
  });
});

describe('where each relation reads, as the module gives it (source) and the page uses it (web/src/shared/i18n/relations.js)', () => {
  test('every relation of the module carries the position its rule names, in every task too', () => {
    const relations = hw.trainingRelations();
    for (const r of relations) {
      const s = relationSource(r);
      assert.equal('back' in s ? `x[i-${s.back}]` : `x[${s.at}]`, r.rule, r.name);
    }
    for (const task of hw.trainingTasks()) {
      for (const r of task.relations) assert.deepEqual(r.source, relations.find((o) => o.name === r.name).source, `${task.name}: ${r.name}`);
    }
  });

  test('a source exists only at or before i and inside the sequence; a relation without one says so', () => {
    const byName = Object.fromEntries(hw.trainingRelations().map((r) => [r.name, r]));
    assert.equal(sourceOf(byName['two-back'], 1, 8), -1);
    assert.equal(sourceOf(byName['two-back'], 5, 8), 3);
    assert.equal(sourceOf(byName.third, 1, 8), -1);
    assert.equal(sourceOf(byName.third, 2, 8), 2);
    assert.equal(sourceOf(byName.first, 0, 1), 0);
    assert.equal(sourceOf(byName.second, 3, 1), -1);
    assert.throws(() => sourceOf({ name: 'nope' }, 1, 4), {
      message: 'the relation "nope" carries no source: take relations from hw.trainingRelations() or hw.trainingTasks()',
    });
  });
});

describe('headsNeededDefaults', () => {
  test('the experiment: its relations, grid order, head counts and settings make trainers', () => {
    const d = hw.headsNeededDefaults();
    assert.deepEqual(d.relations, ['previous', 'first', 'two-back']);
    assert.deepEqual(d.gridRelations, ['previous', 'first', 'two-back', 'three-back']);
    assert.deepEqual(d.headCounts, [1, 2, 4, 8]);
    assert.equal(d.maxRelations, 6);
    assert.ok(d.solvedAccuracy > 0.5 && d.solvedAccuracy < 1);
    assert.equal(d.tokenLabels.length, d.vocab);
    const names = new Set(hw.trainingRelations().map((r) => r.name));
    assert.ok(d.gridRelations.every((r) => names.has(r)));
    for (const numHeads of d.headCounts) {
      const t = hw.createTrainer({ relations: d.relations, numHeads, dModel: d.dModel, seed: 1 });
      // A task from relations takes the experiment's settings as its defaults.
      for (const k of ['seqLen', 'vocab', 'learningRate', 'batchSize', 'evalSize']) {
        assert.equal(t.config[k], d[k], k);
      }
      t.dispose();
    }
  });
});

describe('createTrainer({relations})', () => {
  test('config, per-relation results in the list\'s order, headFocus [h][r], attention', () => {
    const relations = ['second', 'previous', 'three-back', 'first'];
    const t = hw.createTrainer({ relations, numHeads: 8, dModel: 16, seed: 2, seqLen: 6,
      vocab: 7, batchSize: 8, evalSize: 16 });
    assert.equal(t.config.task, null);
    assert.equal(t.config.title, 'Second token, previous token, three back and first token');
    assert.deepEqual(t.config.relations.map((r) => r.name), relations);
    assert.equal(t.config.numRelations, 4);
    assert.deepEqual(t.parameterCount().tensors.find((x) => x.name === 'readout').shape, [16, 28]);
    t.step(20);
    const e = t.evaluate({ ablate: [3, 5] });
    assert.equal(e.relationAccuracy.length, 4);
    assert.equal(e.headFocus.length, 8);
    assert.ok(e.headFocus.every((row) => row.length === 4 && row.every(Number.isFinite)));
    const w = t.attention({ tokens: [0, 1, 2, 3, 4, 5] });
    assert.equal(w.length, 8);
    assert.equal(w[0].length, 6);
    // One relation, and six: the extremes of the list.
    const one = hw.createTrainer({ relations: ['third'], numHeads: 1, dModel: 4, seed: 0 });
    assert.equal(one.evaluate().relationAccuracy.length, 1);
    const six = hw.createTrainer({ relations: ['previous', 'two-back', 'three-back', 'four-back',
      'first', 'second'], numHeads: 2, dModel: 4, seed: 0 });
    assert.equal(six.evaluate().headFocus[1].length, 6);
    for (const x of [t, one, six]) x.dispose();
  });

  test('a fixed position is no target before the model can see it: accuracies over the rest', () => {
    // relation "second" (x[1]) has no target at position 0: with seqLen 3 it has 2 of 3 positions.
    const t = hw.createTrainer({ relations: ['second'], numHeads: 1, dModel: 4, seed: 0,
      seqLen: 3, vocab: 4, batchSize: 2, evalSize: 4 });
    const tokens = [[1, 2, 3]];
    const g = t.gradients({ tokens, targets: [[[-1], [2], [2]]] });
    assert.ok(Number.isFinite(g.loss) && g.loss > 0);
    // The held-out accuracy is a multiple of 1/8 (4 sequences x 2 positions).
    const acc = t.evaluate().relationAccuracy[0];
    assert.equal(Math.round(acc * 8), acc * 8);
    t.dispose();
  });

  test('the relations of a preset train exactly as the preset; same seed, same run', () => {
    const common = { numHeads: 2, dModel: 8, seed: 4 };
    const a = hw.createTrainer({ ...common, relations: ['previous', 'two-back'], seqLen: 8,
      vocab: 16, batchSize: 64, evalSize: 256, learningRate: 0.01 });
    const b = hw.createTrainer({ ...common, task: 'previous-and-two-back' });
    const c = hw.createTrainer({ ...common, relations: ['previous', 'two-back'], seqLen: 8,
      vocab: 16, batchSize: 64, evalSize: 256, learningRate: 0.01 });
    const [ra, rb, rc] = [a, b, c].map((t) => t.step(30));
    assert.equal(ra.loss, rb.loss);
    assert.equal(ra.loss, rc.loss);
    assert.deepEqual(a.evaluate(), b.evaluate());
    assert.deepEqual(a.parameters(), c.parameters());
    for (const t of [a, b, c]) t.dispose();
  });

  test('a refused list creates nothing', () => {
    const before = hw.trainerCount();
    for (const relations of [[], ['previous', 'previous'], ['nope'], ['previous', 'first',
      'two-back', 'three-back', 'four-back', 'second', 'third']]) {
      assert.throws(() => hw.createTrainer({ relations, numHeads: 1, dModel: 4, seed: 0 }));
    }
    assert.throws(() => hw.createTrainer({ task: 'previous-and-first', relations: ['first'],
      numHeads: 1, dModel: 4, seed: 0 }));
    assert.equal(hw.trainerCount(), before);
  });
});
