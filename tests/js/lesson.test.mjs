// The numbers the lesson prints and asks the student to verify, through the public API and
// through the exact one-line command the lesson gives.
import assert from 'node:assert/strict';
import { exec } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';

import { LESSON, ROOT, assertLessonNumbers, createHeadwise } from './helpers.mjs';

let hw;
before(async () => {
  hw = await createHeadwise();
});

test('seed 7, 5 tokens, d_model 8, 2 heads: the two heads attend differently', () => {
  const r = assertLessonNumbers(hw);
  assert.equal(r.dHead, 4);
  assert.equal(r.headWeights.length, 2);
  for (const head of r.headWeights) {
    assert.equal(head.length, 5);
    for (const row of head) {
      assert.equal(row.length, 5);
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-12, 'each row sums to 1');
    }
  }
  const [pair] = hw.compareHeads({ headWeights: r.headWeights });
  assert.deepEqual([pair.a, pair.b, pair.allclose], [0, 1, false]);
  assert.ok(pair.maxAbsDiff > 0.99, 'head 1 puts ~all weight where head 0 puts ~none');
  assert.ok(pair.meanJsDivergence > 0 && pair.meanJsDivergence <= Math.LN2);
  assert.equal(hw.allclose({ a: r.headWeights[0], b: r.headWeights[1] }), false);
  assert.equal(hw.allclose({ a: r.headWeights[0], b: r.headWeights[0] }), true);
});

test('the same seed gives the same numbers every time', () => {
  const a = hw.seedExperiment(LESSON);
  const b = hw.seedExperiment({ ...LESSON });
  assert.deepEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
});

test('parameterCount: 256 without bias and 288 with bias at embedDim 8, for 1, 2, 4, 8 heads',
  () => {
    for (const numHeads of [1, 2, 4, 8]) {
      assert.equal(hw.parameterCount({ embedDim: 8, numHeads, bias: false }).total, 256,
        numHeads + ' heads, no bias');
      assert.equal(hw.parameterCount({ embedDim: 8, numHeads, bias: true }).total, 288,
        numHeads + ' heads, bias');
      assert.equal(hw.parameterCount({ embedDim: 8, numHeads }).total, 288,
        numHeads + ' heads, bias by default (like PyTorch)');
    }
    assert.deepEqual(hw.parameterCount({ embedDim: 8, numHeads: 2, bias: false }).tensors, [
      { name: 'in_proj_weight', shape: [24, 8], numel: 192 },
      { name: 'out_proj.weight', shape: [8, 8], numel: 64 }
    ]);
  });

test('the lesson\'s command line prints 256', async () => {
  // Verbatim, through a shell, from the repository root.
  const command = 'node -e "require(\'./dist/headwise.js\')().then(h => console.log(' +
    'h.parameterCount({embedDim: 8, numHeads: 2, bias: false}).total))"';
  const { stdout, stderr } = await promisify(exec)(command, { cwd: ROOT, timeout: 30000 });
  assert.equal(stdout, '256\n');
  assert.equal(stderr, '');
});

test('version and limits', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(hw.version, pkg.version);
  assert.deepEqual(hw.limits, { maxSeed: 4294967295, maxTokens: 2048, maxDModel: 2048 });
});
