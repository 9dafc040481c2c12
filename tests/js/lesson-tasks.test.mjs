// The page's composite computations (web/src/shared/compute/lesson-tasks.js) against the module's own
// calls: exercise 3's cross-check must compare every head, not only the first.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import { installTasks } from '../../web/src/shared/compute/lesson-tasks.js';

const hw = await createHeadwise();
const OPTIONS = { seed: 7, tokens: 5, dModel: 8, numHeads: 4, bias: true, causal: true };

/**
 * The module with PyTorch's per-head weights changed by `delta` at one entry of one head.
 * @param {number} head
 * @param {number} delta
 */
function tampered(head, delta) {
  const torch = (/** @type {any} */ o) => {
    const r = hw.torchMultiheadAttention(o);
    const w = r.typed.attnWeights;
    w.data[head * w.rows * w.cols + w.rows * w.cols - 1] += delta;
    return r;
  };
  // The module's object is frozen: a stand-in that answers with it, but for this one method.
  return new Proxy({}, { get: (_, name) => (name === 'torchMultiheadAttention' ? torch : /** @type {any} */ (hw)[name]) });
}

test('the cross-check of an untouched run: every head agrees with the manual heads', () => {
  const cc = installTasks(hw).crossCheck(OPTIONS);
  assert.equal(cc.weightsClose, true);
  assert.ok(cc.weightDiff < 1e-12, `weights max |difference| ${cc.weightDiff}`);
  assert.equal(cc.outputClose, true);
});

for (const head of [0, 3]) {
  test(`the cross-check sees a difference in head ${head} of 4`, () => {
    const cc = installTasks(tampered(head, 1e-3)).crossCheck(OPTIONS);
    assert.equal(cc.weightsClose, false);
    assert.ok(Math.abs(cc.weightDiff - 1e-3) < 1e-12, `weights max |difference| ${cc.weightDiff}`);
  });
}

test('a difference within np.allclose\'s tolerance is reported, and still close', () => {
  const cc = installTasks(tampered(2, 1e-10)).crossCheck(OPTIONS);
  assert.equal(cc.weightsClose, true);
  assert.ok(cc.weightDiff > 0 && Math.abs(cc.weightDiff - 1e-10) < 1e-15, `weights max |difference| ${cc.weightDiff}`);
});
