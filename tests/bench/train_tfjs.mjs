// The training model written in TensorFlow.js (@tensorflow/tfjs-core, float32), for the bench's
// comparison with the WASM trainer (tests/bench/train_heads.mjs): what a user would pick instead
// to train this model in a browser. Bench-only; it never enters the page or `npm start`.
//
// The same model as cpp/headwise/trainer.hpp: z = tokenEmbedding[x] + positionEmbedding (the
// lookup written as a one-hot product, see loss());
// q, k, v = z @ wq, z @ wk, z @ wv split into heads by reshape; causal softmax(q k^T / sqrt(d_head))
// per head; concat @ wo; r = z + that; logits = r @ readout + readoutBias read as (n, R, V); the
// mean softmax cross-entropy over targets that are not -1; Adam as torch.optim.Adam (eps 1e-8
// after the square root, bias correction). Weights start from the WASM trainer's (so from
// NumPy's draws), cast to float32.
import {existsSync, mkdirSync} from 'node:fs';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';

import {benchDir, outDir} from './common.mjs';

const require = createRequire(import.meta.url);
const BUNDLE = join(outDir, 'tfjs.cjs');
const WASM_DIR = join(benchDir, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist') + '/';
const PARAMS = ['tokenEmbedding', 'positionEmbedding', 'wq', 'wk', 'wv', 'wo', 'readout',
  'readoutBias'];

let loaded = null;

// tfjs-core, its gradients and both backends, bundled once (see tfjs_entry.mjs).
export function loadTfjs() {
  if (loaded) return loaded;
  if (!existsSync(join(benchDir, 'node_modules', '@tensorflow', 'tfjs-core'))) {
    throw new Error('TensorFlow.js is missing: npm ci --prefix tests/bench (npm run bench does it)');
  }
  mkdirSync(dirname(BUNDLE), {recursive: true});
  require('esbuild').buildSync({
    entryPoints: [join(benchDir, 'tfjs_entry.mjs')], bundle: true, platform: 'node', format: 'cjs',
    // One copy of tfjs-core: the ES modules everywhere (its gradients exist only as such).
    mainFields: ['module', 'main'], outfile: BUNDLE, logLevel: 'error'
  });
  loaded = quietly(() => require(BUNDLE));
  loaded.setWasmPaths(WASM_DIR);
  loaded.setThreadsCount(1);
  return loaded;
}

// tfjs-core greets Node users on the console when a backend starts; keep the bench's output clean.
function quietly(f) {
  const {log, warn} = console;
  console.log = console.warn = () => {};
  try {
    return f();
  } finally {
    Object.assign(console, {log, warn});
  }
}

// Switches tfjs to `backend` ('wasm' or 'cpu').
export async function useBackend(backend) {
  const {tf} = loadTfjs();
  if (!(await quietly(() => tf.setBackend(backend)))) {
    throw new Error(`tfjs backend ${backend} did not start`);
  }
  await quietly(() => tf.ready());
  quietly(() => tf.dispose(tf.add(tf.scalar(1), tf.scalar(1))));
  return tf;
}

/**
 * A tfjs model with the WASM trainer's settings and initial weights.
 * @param {object} config  the trainer's config (numHeads, dModel, seqLen, vocab, numRelations,
 *                         learningRate)
 * @param {object} params  the trainer's parameters() (nested arrays)
 */
export function tfjsModel(tf, config, params) {
  const {numHeads: h, dModel: d, seqLen: n, vocab: V, numRelations: R} = config;
  const dh = d / h;
  const vars = {};
  for (const name of PARAMS) vars[name] = tf.variable(tf.tensor(params[name], undefined, 'float32'));
  // Additive causal mask (n, n): 0 on and below the diagonal, a large negative number above
  // (softmax then gives exactly 0 there in float32).
  const mask = tf.tensor2d(Array.from({length: n}, (_, i) => Array.from({length: n},
    (_, j) => (j > i ? -1e9 : 0))), [n, n], 'float32');
  const optimizer = tf.train.adam(config.learningRate, 0.9, 0.999, 1e-8);

  // tokens: Int32Array (B * n); targets: Int32Array (B * n * R), -1 for none -> the mean loss.
  function loss(tokens, targets, B) {
    // The embedding lookup as one-hot rows @ tokenEmbedding (the same numbers): the gradient of
    // tf.gather needs UnsortedSegmentSum, which tfjs-backend-wasm does not have.
    const onehot = tf.oneHot(tf.tensor1d(tokens, 'int32'), V);
    const z = tf.add(tf.reshape(tf.matMul(onehot, vars.tokenEmbedding), [B, n, d]),
      vars.positionEmbedding);
    const z2 = tf.reshape(z, [B * n, d]);
    const split = (w) => tf.transpose(tf.reshape(tf.matMul(z2, w), [B, n, h, dh]), [0, 2, 1, 3]);
    const q = split(vars.wq);
    const k = split(vars.wk);
    const v = split(vars.wv);
    const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), mask);
    const heads = tf.matMul(tf.softmax(scores), v);                              // (B, h, n, dh)
    const concat = tf.reshape(tf.transpose(heads, [0, 2, 1, 3]), [B * n, d]);
    const r = tf.add(z2, tf.matMul(concat, vars.wo));
    const logits = tf.reshape(tf.add(tf.matMul(r, vars.readout), vars.readoutBias), [B * n * R, V]);
    const t = tf.tensor1d(targets, 'int32');
    const counted = tf.cast(tf.greaterEqual(t, 0), 'float32');
    const picked = tf.sum(tf.mul(tf.logSoftmax(logits), tf.oneHot(tf.maximum(t, tf.zerosLike(t)), V)),
      1);
    return tf.div(tf.neg(tf.sum(tf.mul(picked, counted))), tf.sum(counted));
  }

  return {
    // The loss of one batch, without training.
    loss(tokens, targets, B) {
      return tf.tidy(() => loss(tokens, targets, B).dataSync()[0]);
    },
    // One Adam step on one batch; returns nothing (reading the loss back would add a sync).
    step(tokens, targets, B) {
      tf.tidy(() => {
        optimizer.minimize(() => loss(tokens, targets, B), false, Object.values(vars));
      });
    },
    dispose() {
      Object.values(vars).forEach((x) => x.dispose());
      mask.dispose();
      optimizer.dispose();
    }
  };
}
