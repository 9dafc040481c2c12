// The training API's bad input: every invalid option throws a JS Error with the exact message
// (type errors from cpp/api.js, value errors from the core), and the trainer and the module
// keep working afterwards. A disposed trainer says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';

const hw = await createHeadwise();
const OPTS = { task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 0 };
const REL = { relations: ['previous', 'first', 'two-back'], numHeads: 4, dModel: 16, seed: 0 };
const CATALOGUE = '"previous", "two-back", "three-back", "four-back", "first", "second", "third"';
const t = hw.createTrainer({ ...OPTS, seqLen: 4, vocab: 5, batchSize: 4, evalSize: 8 });
const TOKENS = [[0, 1, 2, 3], [4, 3, 2, 1]];
const TARGETS = [[[-1, 0], [0, 0], [1, 0], [2, 0]], [[-1, 4], [4, 4], [3, 4], [2, 4]]];
const params = t.parameters();

// [label, call, exact message]
const CASES = [
  // ---- createTrainer: types (api.js) ----
  ['no options', () => hw.createTrainer(),
    'createTrainer: option "task" (a name from trainingTasks()) or option "relations" (names ' +
    'from trainingRelations()) is required'],
  ['no numHeads', () => hw.createTrainer({ relations: ['previous'], dModel: 8, seed: 0 }),
    'createTrainer: option "numHeads" is required'],
  ['unknown option', () => hw.createTrainer({ ...OPTS, heads: 2 }),
    'createTrainer: unknown option "heads"; allowed options are task, relations, layers, ' +
    'numHeads, dModel, seed, seqLen, vocab, learningRate, batchSize, evalSize'],
  ['relations not an array', () => hw.createTrainer({ ...REL, relations: 'previous' }),
    'createTrainer: relations must be an array of names from trainingRelations() (string[]), ' +
    'got "previous" (string)'],
  ['relation not a string', () => hw.createTrainer({ ...REL, relations: ['previous', 2] }),
    'createTrainer: relations[1] must be a name from trainingRelations() (a string), got 2 ' +
    '(number)'],
  ['task not a string', () => hw.createTrainer({ ...OPTS, task: 3 }),
    'createTrainer: task must be a string (one of trainingTasks()\'s names), got 3 (number)'],
  ['numHeads 1.5', () => hw.createTrainer({ ...OPTS, numHeads: 1.5 }),
    'createTrainer: numHeads must be an integer, got 1.5 (number)'],
  ['seed "7"', () => hw.createTrainer({ ...OPTS, seed: '7' }),
    'createTrainer: seed must be an integer, got "7" (string)'],
  ['learningRate NaN', () => hw.createTrainer({ ...OPTS, learningRate: NaN }),
    'createTrainer: learningRate must be a number, got NaN (number)'],
  ['learningRate Infinity', () => hw.createTrainer({ ...OPTS, learningRate: Infinity }),
    'createTrainer: learningRate must be a finite number, got Infinity (number)'],
  // ---- createTrainer: values (the core) ----
  ['unknown task', () => hw.createTrainer({ ...OPTS, task: 'copy' }),
    'createTrainer: task "copy" is not a training task; the tasks are "previous-and-first", ' +
    '"previous-and-two-back", "induction"'],
  ['unknown relation', () => hw.createTrainer({ ...REL, relations: ['previous', 'next'] }),
    'createTrainer: relation "next" is not a training relation; the relations are ' + CATALOGUE],
  ['repeated relation', () => hw.createTrainer({ ...REL,
    relations: ['first', 'previous', 'two-back', 'previous'] }),
  'createTrainer: relation "previous" is listed twice (at 1 and 3); give 1 to 6 distinct ' +
    'relations of ' + CATALOGUE],
  ['no relations', () => hw.createTrainer({ ...REL, relations: [] }),
    'createTrainer: relations is empty; give 1 to 6 distinct relations of ' + CATALOGUE],
  ['seven relations', () => hw.createTrainer({ ...REL,
    relations: ['previous', 'two-back', 'three-back', 'four-back', 'first', 'second', 'third'] }),
  'createTrainer: relations has 7 entries; give 1 to 6 distinct relations of ' + CATALOGUE],
  ['task and relations', () => hw.createTrainer({ ...OPTS, relations: ['previous', 'first'] }),
    'createTrainer: task ("previous-and-first") and relations (["previous", "first"]) were both ' +
    'given; give either a task (a preset of trainingTasks()) or relations (1 to 6 of ' +
    'trainingRelations()), not both'],
  ['relations too long for seqLen', () => hw.createTrainer({ ...REL,
    relations: ['first', 'three-back'], seqLen: 4 }),
  'createTrainer: relation "three-back" (x[i-3]) has no position of its own in sequences of 4 ' +
    'tokens (a position where no other relation reads the same token); seq_len must be at ' +
    'least 5 for these relations'],
  ['dModel % numHeads', () => hw.createTrainer({ ...OPTS, numHeads: 3 }),
    'createTrainer: d_model (8) must be divisible by num_heads (3)'],
  ['numHeads > dModel', () => hw.createTrainer({ ...OPTS, numHeads: 16 }),
    'createTrainer: num_heads (16) must be between 1 and 8'],
  ['dModel 0', () => hw.createTrainer({ ...OPTS, dModel: 0 }),
    'createTrainer: d_model (0) must be between 1 and 256'],
  ['dModel huge', () => hw.createTrainer({ ...OPTS, dModel: 2 ** 40 }),
    'createTrainer: d_model (1099511627776) must be between 1 and 256'],
  ['seed -1', () => hw.createTrainer({ ...OPTS, seed: -1 }),
    'createTrainer: seed (-1) must be between 0 and 4294967295'],
  ['seqLen 2', () => hw.createTrainer({ ...OPTS, seqLen: 2 }),
    'createTrainer: seq_len (2) must be between 3 and 64'],
  ['vocab 300', () => hw.createTrainer({ ...OPTS, vocab: 300 }),
    'createTrainer: vocab (300) must be between 2 and 256'],
  ['batchSize 0', () => hw.createTrainer({ ...OPTS, batchSize: 0 }),
    'createTrainer: batch_size (0) must be between 1 and 1024'],
  ['evalSize 5000', () => hw.createTrainer({ ...OPTS, evalSize: 5000 }),
    'createTrainer: eval_size (5000) must be between 1 and 4096'],
  ['learningRate 0', () => hw.createTrainer({ ...OPTS, learningRate: 0 }),
    'createTrainer: learning_rate (0) must be greater than 0 and at most 1'],
  ['too much memory', () => hw.createTrainer({ ...OPTS, dModel: 256, seqLen: 64,
    batchSize: 1024 }),
  'createTrainer: batch_size or eval_size (1024) with seq_len (64), d_model (256) and vocab (16) ' +
    'would need 1648 MiB of activations; at most 128 MiB is allowed'],
  // ---- step ----
  ['step(0)', () => t.step(0), 'step: steps (0) must be between 1 and 100000'],
  ['step(1.5)', () => t.step(1.5), 'step: k (the number of steps) must be an integer, got 1.5 (number)'],
  ['step("3")', () => t.step('3'), 'step: k (the number of steps) must be an integer, got "3" (string)'],
  // ---- gradients ----
  ['gradients without targets', () => t.gradients({ tokens: TOKENS }),
    'gradients: option "targets" is required'],
  ['token 1.5', () => t.gradients({ tokens: [[0, 1.5, 2, 3]], targets: [TARGETS[0]] }),
    'gradients: tokens[0][1] must be an integer token id, got 1.5 (number)'],
  ['token 1e300', () => t.gradients({ tokens: [[0, 1e300, 2, 3]], targets: [TARGETS[0]] }),
    'gradients: tokens[0][1] must be an integer token id, got 1e+300 (number)'],
  ['target 2^60', () => t.gradients({ tokens: [TOKENS[0]],
    targets: [[[-1, 2 ** 60], [0, 0], [1, 0], [2, 0]]] }),
  'gradients: targets[0][0][1] must be -1 or an integer token id, got 1152921504606847000 ' +
    '(number)'],
  ['token out of range', () => t.gradients({ tokens: [[0, 1, 5, 3]], targets: [TARGETS[0]] }),
    'gradients: tokens[0][2] (5) must be a token id between 0 and 4'],
  ['sequence too long', () => t.gradients({ tokens: [[0, 1, 2, 3, 4]],
    targets: [[[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]] }),
  'gradients: tokens sequence length (5) must be between 1 and 4'],
  ['targets for fewer sequences', () => t.gradients({ tokens: TOKENS, targets: [TARGETS[0]] }),
    'gradients: targets has 1 sequences but tokens has 2; give one list of per-position ' +
    'targets for each sequence'],
  ['targets row too short', () => t.gradients({ tokens: TOKENS,
    targets: [TARGETS[0], TARGETS[1].slice(1)] }),
  'gradients: targets[1] must be an array of 4 positions (like tokens[1]), got an array of 3'],
  ['targets ragged', () => t.gradients({ tokens: [TOKENS[0]],
    targets: [[[-1, 0], [0], [1, 0], [2, 0]]] }),
  'gradients: targets[0][1] has 1 targets but targets[0][0] has 2; every position needs one ' +
    'per relation'],
  ['target -2', () => t.gradients({ tokens: [TOKENS[0]],
    targets: [[[-2, 0], [0, 0], [1, 0], [2, 0]]] }),
  'gradients: targets[0][0][0] (-2) must be -1 (no target) or a token id between 0 and 4'],
  ['three relations', () => t.gradients({ tokens: [TOKENS[0]],
    targets: [[[-1, 0, 0], [0, 0, 0], [1, 0, 0], [2, 0, 0]]] }),
  'gradients: targets (sequences * positions, relations) has shape (4, 3) but must be (4, 2)'],
  ['all targets -1', () => t.gradients({ tokens: [TOKENS[0]],
    targets: [[[-1, -1], [-1, -1], [-1, -1], [-1, -1]]] }),
  'gradients: every target is -1 (no target); at least one target must be a token id'],
  // ---- attention ----
  ['attention with a matrix', () => t.attention({ tokens: 3 }),
    'attention: tokens must be one sequence of token ids (number[]), got 3 (number)'],
  ['attention token out of range', () => t.attention({ tokens: [0, 9] }),
    'attention: tokens[0][1] (9) must be a token id between 0 and 4'],
  // ---- evaluate ----
  ['ablate head 2', () => t.evaluate({ ablate: [2] }),
    'evaluate: ablated head (2) must be between 0 and 1'],
  ['ablate twice', () => t.evaluate({ ablate: [0, 0] }),
    'evaluate: ablated head 0 is listed twice; list each head once'],
  ['ablate not an array', () => t.evaluate({ ablate: 1 }),
    'evaluate: ablate must be an array of heads, each a head index of layer 0 or a [layer, ' +
    'head] pair (number[] or [number, number][]), got 1 (number)'],
  ['ablate "0"', () => t.evaluate({ ablate: ['0'] }),
    'evaluate: ablate[0] must be an integer, got "0" (string)'],
  // ---- setParameters ----
  ['setParameters missing readout', () => t.setParameters({ ...params, readout: undefined }),
    'setParameters: option "readout" is required'],
  ['setParameters wrong shape', () => t.setParameters({ ...params, wq: params.wq.slice(1) }),
    'setParameters: wq has shape (7, 8) but must be (8, 8)'],
  ['setParameters NaN', () => t.setParameters({ ...params,
    readoutBias: params.readoutBias.map((v, i) => (i === 3 ? NaN : v)) }),
  'setParameters: readoutBias contains a non-finite value (nan) at [3]; all values must be ' +
    'finite']
];

test('every invalid call throws the exact message, and everything keeps working', () => {
  const before = t.step(1);
  const stepped = t.parameters();
  for (const [label, call, message] of CASES) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof Error, `${label}: an Error`);
      assert.equal(e.message, message, label);
      return true;
    }, label);
  }
  // Nothing changed: the weights are as they were, and the trainer goes on stepping.
  assert.deepEqual(t.parameters(), stepped);
  assert.equal(t.step(1).step, before.step + 1);
  assert.equal(hw.trainerCount(), 1);
});

test('layers: every bad count, layer or head throws the exact message; nothing is created', () => {
  for (const [layers, message] of [
    [0, 'createTrainer: layers (0) must be between 1 and 4'],
    [5, 'createTrainer: layers (5) must be between 1 and 4'],
    [-1, 'createTrainer: layers (-1) must be between 1 and 4'],
    [1.5, 'createTrainer: layers must be an integer, got 1.5 (number)'],
    ['2', 'createTrainer: layers must be an integer, got "2" (string)']]) {
    assert.throws(() => hw.createTrainer({ ...OPTS, layers }), { message });
  }
  assert.equal(hw.trainerCount(), 1);
  const u = hw.createTrainer({ ...OPTS, layers: 2, seqLen: 4, vocab: 5 });
  const p = u.parameters();
  for (const [call, message] of [
    [() => u.evaluate({ ablate: [[2, 0]] }),
      'evaluate: ablated head\'s layer (2) must be between 0 and 1'],
    [() => u.evaluate({ ablate: [[0, 2]] }), 'evaluate: ablated head (2) must be between 0 and 1'],
    [() => u.evaluate({ ablate: [[0]] }),
      'evaluate: ablate[0] must be a [layer, head] pair, got an array of 1'],
    [() => u.evaluate({ ablate: [4] }),
      'evaluate: ablate[0] (4) must be a head index between 0 and 3 (layer * 2 + head), or a ' +
      '[layer, head] pair'],
    [() => u.evaluate({ ablate: [-1] }),
      'evaluate: ablate[0] (-1) must be a head index between 0 and 3 (layer * 2 + head), or a ' +
      '[layer, head] pair'],
    [() => u.evaluate({ ablate: [3, [1, 1]] }),
      'evaluate: ablated head (layer 1, head 1) is listed twice; list each head once'],
    [() => u.evaluate({ ablate: [['1', 0]] }),
      'evaluate: ablate[0][0] (the layer) must be an integer, got "1" (string)'],
    [() => u.evaluate({ ablate: [[1, 0.5]] }),
      'evaluate: ablate[0][1] (the head) must be an integer, got 0.5 (number)'],
    [() => u.setParameters({ ...p, 'layers.1.wo': undefined }),
      'setParameters: option "layers.1.wo" is required'],
    [() => u.setParameters({ ...p, wq: p['layers.0.wq'] }),
      'setParameters: unknown option "wq"; allowed options are tokenEmbedding, positionEmbedding, ' +
      'layers.0.wq, layers.0.wk, layers.0.wv, layers.0.wo, layers.1.wq, layers.1.wk, layers.1.wv, ' +
      'layers.1.wo, readout, readoutBias'],
    [() => u.setParameters({ ...p, 'layers.1.wk': [[1]] }),
      'setParameters: layers.1.wk has shape (1, 1) but must be (8, 8)']]) {
    assert.throws(call, { message });
  }
  assert.deepEqual(u.parameters(), p);
  u.dispose();
});

test('a failed setParameters changes nothing', () => {
  const u = hw.createTrainer(OPTS);
  const p = u.parameters();
  assert.throws(() => u.setParameters({ ...p, wo: [[1]] }));
  assert.deepEqual(u.parameters(), p);
  u.dispose();
});

test('a disposed trainer says so; dispose twice is harmless', () => {
  const u = hw.createTrainer(OPTS);
  u.dispose();
  u.dispose();
  for (const [call, name] of [[() => u.step(1), 'step'], [() => u.parameters(), 'parameters'],
    [() => u.evaluate(), 'evaluate'], [() => u.attention({ tokens: [0] }), 'attention'],
    [() => u.parameterCount(), 'parameterCount']]) {
    assert.throws(call, { message: `${name}: this trainer has been disposed; create a new one` });
  }
});
