// dist/headwise-lesson.js, the module the lesson page loads first: the same API as
// dist/headwise.js minus training. Every lesson call gives bit-for-bit the same result (and the
// same error messages) as the full module; the training calls throw an error that names the module
// that has them, and the module keeps working afterwards; it carries none of the trainer's code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';

import { ROOT, createHeadwise } from './helpers.mjs';

const LESSON_JS = join(ROOT, 'dist', 'headwise-lesson.js');
const createLesson = createRequire(import.meta.url)(LESSON_JS);

let full;
let lesson;
before(async () => {
  [full, lesson] = await Promise.all([createHeadwise(), createLesson()]);
});

/** Results compared as plain data, the typed arrays included (NaN equals NaN, -0 is not 0). */
function plain(value) {
  return JSON.parse(JSON.stringify(value, (k, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    if (Object.is(v, -0)) return '-0';
    if (ArrayBuffer.isView(v)) return Array.from(v, (x) => (Object.is(x, -0) ? '-0' : Number.isFinite(x) ? x : String(x)));
    return v;
  }));
}

/** The result of m.method(options), or the message it threw. */
function outcome(m, method, options) {
  try {
    const r = m[method](options);
    return { ok: true, value: plain(r), typed: plain(r && r.typed ? r.typed : null) };
  } catch (e) {
    return { ok: false, message: e.message };
  }
}

const X = [[0.5, -1, 2, 0.25], [1, 0, -0.5, 3], [-2, 1.5, 0, 1]];
const W = [[1, 0.5, 0, -1], [0, 1, 2, 0.5], [0.25, -0.5, 1, 0], [1, 1, -1, 0.75]];

/** The lesson's calls, valid and invalid, as the page and the tests make them. */
const CALLS = [
  ['seedExperiment', { seed: 7, tokens: 5, dModel: 8, numHeads: 2 }],
  ['seedExperiment', { seed: 0, tokens: 16, dModel: 64, numHeads: 8, bias: true, causal: true }],
  ['seedExperiment', { seed: 4294967295, tokens: 1, dModel: 4, numHeads: 1 }],
  ['seedExperiment', { seed: 7, tokens: 5, dModel: 10, numHeads: 4 }],
  ['seedExperiment', { seed: 'x', tokens: 5, dModel: 8, numHeads: 2 }],
  ['multiHeadAttention', { x: X, wq: W, wk: W, wv: W, wo: W, numHeads: 2, causal: true }],
  ['multiHeadAttention', { x: X, wq: W, wk: W, wv: W, wo: W, numHeads: 3 }],
  ['torchMultiheadAttention', {
    embedDim: 4, numHeads: 2, inProjWeight: [...W, ...W, ...W], outProjWeight: W,
    query: X, key: X, value: X, averageAttnWeights: false,
    attnMask: [[false, true, true], [false, false, true], [false, false, false]],
  }],
  ['parameterCount', { embedDim: 8, numHeads: 2, bias: false }],
  ['parameterCount', { embedDim: 512, numHeads: 8, addBiasKv: true, kdim: 64, vdim: 32 }],
  ['parameterCount', { embedDim: 8, numHeads: 3 }],
  ['packLessonWeights', { wq: W, wk: W, wv: W, wo: W, bq: [1, 2, 3, 4], bk: [0, 0, 0, 0], bv: [1, 1, 1, 1], bo: [2, 2, 2, 2] }],
  ['compareHeads', { headWeights: [[[0.5, 0.5], [1, 0]], [[0.5, 0.5], [0, 1]], [[0.5, 0.5], [1, 0]]] }],
  ['allclose', { a: [[1, 2]], b: [[1, 2 + 1e-9]] }],
  ['maxAbsDiff', { a: [[1, 2]], b: [[1.5, 2]] }],
  ['maxAbsDiff', { a: [[1, 2]], b: [[1]] }],
];

describe('the lesson-only module', () => {
  test('has the full module\'s API, with the same version and limits', () => {
    assert.deepEqual(Object.keys(lesson).sort(), Object.keys(full).sort());
    assert.equal(lesson.version, full.version);
    assert.deepEqual(lesson.limits, full.limits);
    assert.equal(createLesson.training, false);
    assert.equal(createHeadwise.training, true);
  });

  for (const [method, options] of CALLS) {
    test(`${method}(${JSON.stringify(options).slice(0, 60)}…) gives exactly what headwise.js gives`, () => {
      const a = outcome(full, method, options);
      const b = outcome(lesson, method, options);
      assert.deepEqual(b, a);
    });
  }

  test('the lesson\'s printed numbers: seed 7, head 0, token 0 -> 0.424 / 0.576', () => {
    const r = lesson.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
    assert.deepEqual(r.headWeights[0][0].slice(2, 4).map((v) => v.toFixed(3)), ['0.424', '0.576']);
    assert.equal(lesson.parameterCount({ embedDim: 8, numHeads: 2, bias: false }).total, 256);
  });

  for (const [method, args] of [['trainingTasks', []], ['trainingRelations', []], ['headsNeededDefaults', []], ['inductionDefaults', []], ['createTrainer', [{ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 1 }]], ['trainerCount', []], ['textModel', [{ weights: new Uint8Array(8) }]], ['createTextTrainer', [{ text: 'the union' }]]]) {
    test(`${method} throws an error that names headwise.js, and the module keeps working`, () => {
      assert.throws(() => lesson[method](...args), {
        name: 'Error',
        message: `${method}: training is not part of headwise-lesson.js, the lesson-only module; load headwise.js, the same API with training`,
      });
      assert.equal(lesson.parameterCount({ embedDim: 8, numHeads: 2, bias: false }).total, 256);
    });
  }

  test('multiHeadAttention\'s into throws an error that names headwise.js, and the call works without it', () => {
    const r = lesson.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
    const args = { x: r.typed.x, wq: r.typed.wq, wk: r.typed.wk, wv: r.typed.wv, wo: r.typed.wo, numHeads: 2 };
    const output = Array.from(r.typed.output.data);
    assert.throws(() => lesson.multiHeadAttention({ ...args, into: r }), {
      name: 'Error',
      message: 'multiHeadAttention: into is not part of headwise-lesson.js, the lesson-only module; load headwise.js, the same API with into',
    });
    assert.deepEqual(Array.from(r.typed.output.data), output);
    assert.deepEqual(Array.from(lesson.multiHeadAttention(args).typed.output.data), output);
    assert.equal(full.multiHeadAttention({ ...args, into: r }).typed.output.data, r.typed.output.data);
  });

  test('the full module still trains', () => {
    const t = full.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 1 });
    assert.equal(t.step(3).step, 3);
    t.dispose();
  });

  test('moduleSource() gives the lesson module\'s own text, which defines a lesson-only createHeadwise', async () => {
    const source = createLesson.moduleSource();
    assert.equal(typeof source, 'string');
    assert.ok(source.length < readFileSync(join(ROOT, 'dist', 'headwise.js'), 'utf8').length, 'smaller than headwise.js');
    // As a classic script (Node's __dirname and require given, as a CommonJS file would have them).
    const make = new Function('__dirname', 'require', `${source}\nreturn createHeadwise;`)(
      join(ROOT, 'dist'), createRequire(LESSON_JS));
    assert.equal(make.training, false);
    const again = await make();
    assert.throws(() => again.createTrainer({}), /load headwise\.js/);
    assert.deepEqual(plain(again.seedExperiment(CALLS[0][1])), plain(full.seedExperiment(CALLS[0][1])));
  });

  test('carries none of the trainer\'s code: its binary has no training bindings and is smaller', () => {
    const binary = (file) => {
      const js = readFileSync(file, 'utf8');
      const m = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]{100,})/.exec(js);
      assert.ok(m, `${file} embeds its binary`);
      const bytes = Buffer.from(m[1], 'base64');
      return bytes[0] === 0x78 ? inflateSync(bytes) : bytes;
    };
    const fullBin = binary(join(ROOT, 'dist', 'headwise.js'));
    const lessonBin = binary(LESSON_JS);
    for (const name of ['_trainerCreate', '_trainerStep', '_trainingTasks', '_trainingRelations', 'previous-and-first', 'three-back']) {
      assert.ok(fullBin.includes(name), `headwise.js has ${name}`);
      assert.ok(!lessonBin.includes(name), `headwise-lesson.js has no ${name}`);
    }
    assert.ok(lessonBin.length < fullBin.length * 0.85, `lesson binary ${lessonBin.length} B vs full ${fullBin.length} B`);
    // The JS API's training parts (cpp/api/training.js and the text parts) are not in the lesson module's glue.
    assert.ok(!readFileSync(LESSON_JS, 'utf8').includes(' has been disposed; create a new one'));
    assert.ok(readFileSync(join(ROOT, 'dist', 'headwise.js'), 'utf8').includes(' has been disposed; create a new one'));
  });
});
