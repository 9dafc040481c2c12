// "Train it on your own text": the controller's pure parts (which subtree of the shards' tree each
// lane sums, the tree's sum whatever the lanes, the page's own limits), the panel's (the evaluation
// steps, which heads came from the warm-up), and the build's preset texts (one president's or one
// decade's addresses, as classic scripts that register them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import {
  MAX_FILE_BYTES, MAX_TEXT_CHARS, checkFile, checkModelFile, checkText, laneNodes,
} from '../../web/src/text/own-text-training.js';
import { combineNodes } from '../../web/src/shared/compute/team.js';
import { TEXT_PRESETS as PAGE_PRESETS, checksum, evaluationSteps, headChanges, trainerOptions } from '../../web/src/text/own-text.js';
import { TEXTS_KEY, TEXT_PRESETS, buildTexts, presetText, textScript } from '../../web/build-text.mjs';

/** A reproducible stream of awkward doubles (many magnitudes, both signs). @param {number} seed */
function doubles(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const m = s / 2 ** 32 - 0.5;
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return m * 10 ** ((s % 17) - 8);
  };
}

/** Whether lo .. hi is a node of the pairwise tree over 0 .. shards (by descent from the root). */
function isNode(lo, hi, a, b) {
  if (lo === a && hi === b) return true;
  if (b - a < 2) return false;
  const mid = Math.floor((a + b) / 2);
  return (hi <= mid && isNode(lo, hi, a, mid)) || (lo >= mid && isNode(lo, hi, mid, b));
}

/** The reference tree sum of shards lo .. hi - 1: a fresh array. */
function treeSum(grads, losses, lo, hi) {
  if (hi - lo === 1) return { loss: losses[lo], gradient: new Float64Array(grads[lo]) };
  const mid = Math.floor((lo + hi) / 2);
  const l = treeSum(grads, losses, lo, mid);
  const r = treeSum(grads, losses, mid, hi);
  return { loss: l.loss + r.loss, gradient: l.gradient.map((v, i) => v + r.gradient[i]) };
}

test('laneNodes: one complete subtree of the shards\' tree per lane, covering every shard once, never more lanes than shards', () => {
  for (const shards of [1, 3, 8]) {
    for (let lanes = 1; lanes <= 9; lanes += 1) {
      const nodes = laneNodes(shards, lanes);
      assert.equal(nodes.length, Math.min(lanes, shards));
      let at = 0;
      for (const [lo, hi] of nodes) {
        assert.equal(lo, at, 'in shard order, with no gap');
        assert.ok(isNode(lo, hi, 0, shards), `${lo} .. ${hi} is a node`);
        at = hi;
      }
      assert.equal(at, shards);
      const sizes = nodes.map(([lo, hi]) => hi - lo);
      assert.ok(Math.max(...sizes) <= 2 * Math.min(...sizes), 'balanced');
    }
  }
  assert.deepEqual(laneNodes(8, 1), [[0, 8]]);
  assert.deepEqual(laneNodes(8, 2), [[0, 4], [4, 8]]);
  assert.deepEqual(laneNodes(8, 3), [[0, 2], [2, 4], [4, 8]]);
  assert.deepEqual(laneNodes(8, 5), [[0, 1], [1, 2], [2, 4], [4, 6], [6, 8]]);
});

test('combineNodes: the lanes\' subtree sums added along the upper levels give the tree\'s root, bit for bit', () => {
  const shards = 8;
  const P = 257;
  const next = doubles(7);
  const grads = Array.from({ length: shards }, () => Float64Array.from({ length: P }, next));
  const losses = Array.from({ length: shards }, next);
  const want = treeSum(grads, losses, 0, shards);
  // The left fold in shard order gives other bits for these numbers (so the test can fail).
  const fold = new Float64Array(grads[0]);
  for (let s = 1; s < shards; s += 1) for (let i = 0; i < P; i += 1) fold[i] += grads[s][i];
  assert.ok(fold.some((v, i) => !Object.is(v, want.gradient[i])), 'the order matters for these numbers');
  for (let lanes = 1; lanes <= 8; lanes += 1) {
    const nodes = laneNodes(shards, lanes);
    const parts = nodes.map(([lo, hi]) => treeSum(grads, losses, lo, hi));
    const { sum, loss } = combineNodes(nodes, parts);
    assert.deepEqual(new Uint8Array(sum.buffer), new Uint8Array(want.gradient.buffer), `${lanes} lanes`);
    assert.ok(Object.is(loss, want.loss), `${lanes} lanes: loss`);
  }
});

test('the page\'s limits: an empty text, a text or a file over the limit, coded and naming it', () => {
  const code = (/** @type {() => unknown} */ f) => {
    try {
      f();
    } catch (e) {
      return /** @type {any} */ (e);
    }
    return null;
  };
  assert.equal(code(() => checkText('   \n ')).code, 'errors.ownText.empty');
  const big = code(() => checkText('a'.repeat(MAX_TEXT_CHARS + 1)));
  assert.equal(big.code, 'errors.ownText.tooBig');
  assert.equal(big.params.max, MAX_TEXT_CHARS);
  assert.match(big.message, new RegExp(String(MAX_TEXT_CHARS)));
  assert.equal(checkText('a few words'), 'a few words');
  const file = code(() => checkFile({ name: 'book.txt', size: MAX_FILE_BYTES + 1 }));
  assert.equal(file.code, 'errors.ownText.fileTooBig');
  assert.deepEqual(file.params, { name: 'book.txt', size: MAX_FILE_BYTES + 1, max: MAX_FILE_BYTES });
  assert.equal(code(() => checkFile({ name: 'ok.txt', size: MAX_FILE_BYTES })), null);
  assert.equal(code(() => checkModelFile({ name: 'm.hwtm', size: 8 * MAX_FILE_BYTES + 1 })).code, 'errors.ownText.modelTooBig');
});

test('evaluationSteps: four points, evenly, the last at the end', () => {
  assert.deepEqual([...evaluationSteps(600)], [150, 300, 450, 600]);
  assert.deepEqual([...evaluationSteps(3)], [1, 2, 3]);
});

test('headChanges: a head keeps its warm-up role, gains one, or loses it', () => {
  const before = { previousWord: [[0.9, 0.1]], induction: [[0.0, 0.1]], currentWord: [[0.1, 0.2]] };
  const after = { previousWord: [[0.95, 0.1]], induction: [[0.0, 0.5]], currentWord: [[0.1, 0.2]] };
  const c = headChanges(before, after, 1, 2);
  assert.deepEqual(c.map((x) => [x.before?.role, x.after.role, x.fromWarmup]), [['previousWord', 'previousWord', true], ['mixed', 'induction', false]]);
  assert.equal(headChanges(null, after, 1, 2)[0].before, null);
});

test('the preset texts: one president\'s or one decade\'s addresses, in year order, as scripts that register them', async () => {
  assert.deepEqual(PAGE_PRESETS, TEXT_PRESETS.map((p) => p.key));
  const data = mkdtempSync(join(tmpdir(), 'sotu-'));
  writeFileSync(join(data, '1962_john_f_kennedy_d.txt'), 'Second.\n');
  writeFileSync(join(data, '1961_john_f_kennedy_d.txt'), ' First. ');
  writeFileSync(join(data, '1961_dwight_d_eisenhower_r.txt'), 'Other.');
  writeFileSync(join(data, '1961_john_f_kennedy_d.json'), '{}');
  assert.equal(await presetText(data, { from: 1961, to: 1963, president: 'john_f_kennedy' }), 'First.\n\nSecond.');
  assert.equal(await presetText(data, { from: 1960, to: 1961, president: null }), 'Other.\n\nFirst.');
  const g = { };
  vm.runInNewContext(textScript('k', 'It\'s "quoted" </script>'), { globalThis: g, Symbol });
  assert.equal(/** @type {any} */ (g)[Symbol.for(TEXTS_KEY)].k, 'It\'s "quoted" </script>');
  // The build from the package: each preset's addresses.
  const root = mkdtempSync(join(tmpdir(), 'root-'));
  const dist = join(root, 'dist');
  mkdirSync(dist);
  assert.deepEqual((await buildTexts({ root, dist })).missing, TEXT_PRESETS.map((p) => `texts/${p.key}`));
  const real = join(process.cwd(), 'node_modules', '@stdlib', 'datasets-sotu', 'data');
  const lincoln = await presetText(real, TEXT_PRESETS[0]);
  const files = readdirSync(real).filter((f) => /^186[1-4]_abraham_lincoln_r\.txt$/.test(f)).sort();
  assert.equal(files.length, 4);
  assert.equal(lincoln, files.map((f) => readFileSync(join(real, f), 'utf8').trim()).join('\n\n'));
});

test('checksum: FNV-1a of the bytes; trainerOptions: the page\'s run length only when it is a whole number', () => {
  // FNV-1a 32 of "" and of "a" (the published test vectors).
  assert.equal(checksum(new Uint8Array(0)), '811c9dc5');
  assert.equal(checksum(new TextEncoder().encode('a')), 'e40c292c');
  assert.equal(checksum(new TextEncoder().encode('foobar')), 'bf9cf968');
  assert.deepEqual(trainerOptions('t', null), { text: 't' });
  assert.deepEqual(trainerOptions('t', '12'), { text: 't', steps: 12 });
  assert.deepEqual(trainerOptions('t', '1.5'), { text: 't' });
  assert.deepEqual(trainerOptions('t', '-3'), { text: 't' });
});
