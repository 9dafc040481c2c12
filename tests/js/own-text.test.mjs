// "Train it on your own text": the controller's pure parts (which lane computes which shard, the
// sum in shard order whatever the lanes, the page's own limits), the panel's (the evaluation
// steps, which heads came from the warm-up), and the build's preset texts (one president's or one
// decade's addresses, as classic scripts that register them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import {
  MAX_FILE_BYTES, MAX_TEXT_CHARS, checkFile, checkModelFile, checkText, laneShards, sumShards,
} from '../../web/src/text/own-text-training.js';
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

test('laneShards: every shard on exactly one lane, s mod lanes, never more lanes than shards', () => {
  for (const shards of [1, 3, 8]) {
    for (let lanes = 1; lanes <= 9; lanes += 1) {
      const a = laneShards(shards, lanes);
      assert.equal(a.length, Math.min(lanes, shards));
      assert.deepEqual(a.flat().sort((x, y) => x - y), Array.from({ length: shards }, (_, i) => i));
      a.forEach((list, lane) => { for (const s of list) assert.equal(s % a.length, lane); });
    }
  }
  assert.deepEqual(laneShards(8, 3), [[0, 3, 6], [1, 4, 7], [2, 5]]);
});

test('sumShards: the left fold in shard order, bit for bit, however the shards are spread over lanes', () => {
  const shards = 8;
  const P = 257;
  const next = doubles(7);
  const grads = Array.from({ length: shards }, () => Float64Array.from({ length: P }, next));
  const losses = Array.from({ length: shards }, next);
  const shard0 = new Float64Array(grads[0]);
  // The contract's sum: a copy of shard 0, then shard 1, 2, … added elementwise.
  const want = new Float64Array(grads[0]);
  let wantLoss = losses[0];
  for (let s = 1; s < shards; s += 1) {
    for (let i = 0; i < P; i += 1) want[i] += grads[s][i];
    wantLoss += losses[s];
  }
  // A fold in another order gives other bits for these numbers (so the test can fail).
  const reversed = new Float64Array(grads[shards - 1]);
  for (let s = shards - 2; s >= 0; s -= 1) for (let i = 0; i < P; i += 1) reversed[i] += grads[s][i];
  assert.ok(reversed.some((v, i) => !Object.is(v, want[i])), 'the order matters for these numbers');
  for (let lanes = 1; lanes <= 8; lanes += 1) {
    const assignment = laneShards(shards, lanes);
    const parts = assignment.map((list) => {
      const gradients = new Float64Array(list.length * P);
      list.forEach((s, j) => gradients.set(grads[s], j * P));
      return { losses: Float64Array.from(list, (s) => losses[s]), gradients };
    });
    const { sum, loss } = sumShards(assignment, parts, P);
    assert.deepEqual(new Uint8Array(sum.buffer), new Uint8Array(want.buffer), `${lanes} lanes`);
    assert.ok(Object.is(loss, wantLoss), `${lanes} lanes: loss`);
  }
  // Shard 0's gradient is copied, not summed into.
  assert.deepEqual(grads[0], shard0);
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
