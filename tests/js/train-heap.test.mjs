// No leak over thousands of trainers: after a warm-up, 2,000 trainers created, trained a step,
// evaluated, read and disposed (and 1,000 failing creations) leave the WASM heap's size, the
// bytes malloc has in use and Embind's table of JS value handles exactly where they were.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';

const TRAINERS = 2000;
const moduleArg = {};
const hw = await createHeadwise(moduleArg);
const OPTS = { task: 'previous-and-two-back', numHeads: 2, dModel: 8, seed: 0, evalSize: 16 };

function cycle(i) {
  const t = hw.createTrainer({ ...OPTS, seed: i });
  t.step(1);
  t.evaluate({ ablate: [i % 2] });
  t.attention({ tokens: [1, 2, 3] });
  const p = t.parameters();
  t.gradients({ tokens: [[1, 2, 3]], targets: [[[-1, -1], [1, -1], [2, 1]]] });
  t.setParameters(p);
  t.parameterCount();
  t.dispose();
}

function snapshot() {
  return {
    heapBytes: hw.heapStats().heapBytes,
    usedBytes: hw.heapStats().usedBytes,
    handles: moduleArg.count_emval_handles(),
    trainers: hw.trainerCount()
  };
}

test(`${TRAINERS} trainers leave the heap, malloc and the handle table as they were`, () => {
  for (let i = 0; i < 50; i++) cycle(i);
  // The warm-up refuses a creation too: malloc's count of bytes in use includes the headers of
  // free blocks, and the first exception can leave the heap cut into one more of them.
  assert.throws(() => hw.createTrainer({ ...OPTS, numHeads: 3 }));
  const before = snapshot();
  assert.equal(before.trainers, 0);
  for (let i = 0; i < TRAINERS; i++) cycle(i);
  for (let i = 0; i < TRAINERS / 2; i++) {
    assert.throws(() => hw.createTrainer({ ...OPTS, numHeads: 3 }));
  }
  assert.deepEqual(snapshot(), before);
});

test('a live trainer holds memory until it is disposed', () => {
  const before = snapshot();
  const trainers = Array.from({ length: 20 }, (_, i) => hw.createTrainer({ ...OPTS, seed: i }));
  const during = snapshot();
  assert.equal(during.trainers, 20);
  assert.ok(during.usedBytes > before.usedBytes);
  trainers.forEach((t) => t.dispose());
  assert.deepEqual(snapshot(), before);
});
