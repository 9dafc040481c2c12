// The text model of "Your own sentence", loaded once per page and only on demand: its weights
// come as dist/models/sotu.hwtm.js, a classic script beside train.js (written by
// web/build-text.mjs) that registers the weights file's bytes in base64 under
// globalThis[Symbol.for('headwise.models')]; a <script> element is what file:// and a strict CSP
// allow (no fetch of a local file). The model is read by the training section's full module
// (src/train/training-module.js, the main thread's instance): a forward of at most 32 words takes a few
// milliseconds there, so the widget calls it directly (tests/bench measures the longest task).
//
//   const model = await textModel();   // hw.textModel({weights}) of cpp/api.d.ts
//   textModelNow();                    // the model the section shows, or null until it has loaded
//   setOwnModel(model, evaluation);    // the student's own (trained here or opened from a file)
//   showModel('own' | 'sotu');         // which one every view of the section reads

import { loadScript, scriptBase } from '../shared/platform/scripts.js';
import { PageError, messageOf } from '../shared/state/errors.js';
import { trainingModule } from '../train/training-module.js';

/** The weights file the section reads (dist/models/). */
export const MODEL_FILE = 'sotu.hwtm';
/** Where its script registers the bytes (web/build-text.mjs MODELS_KEY). */
const MODELS_KEY = Symbol.for('headwise.models');

/** Where train.js was loaded from: the models are in models/ beside it. */
const BASE = typeof document === 'undefined' ? '' : scriptBase('train.js');

/** @typedef {import('../../../cpp/api').TextModel} TextModel */

/** @type {Promise<TextModel>|null} */
let loading = null;
/** @type {TextModel|null} */
let loaded = null;
/** @type {any} the student's own model (null until one is trained or opened) */
let own = null;
/** @type {'sotu'|'own'} which model the section shows */
let showing = 'sotu';
/** @type {WeakMap<object, {heads: any, heldOut: any}>} a model's evaluation, when the page made it */
const evaluations = new WeakMap();

/**
 * Base64 to bytes, without a copy through a string of code points per byte beyond atob's.
 * @param {string} base64
 */
function bytesOf(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/**
 * The bytes of a model's weights file, from its script (loaded once; a page that registered them
 * itself is not asked again).
 * @param {string} name
 * @returns {Promise<Uint8Array>}
 */
async function weightsOf(name) {
  /** @type {any} */
  const g = globalThis;
  if (!g[MODELS_KEY] || typeof g[MODELS_KEY][name] !== 'string') {
    const url = new URL(`models/${name}.js`, BASE).href;
    await loadScript(url, { data: 'headwiseTextModel' });
    if (!g[MODELS_KEY] || typeof g[MODELS_KEY][name] !== 'string') throw new PageError('errors.load.noModel', { url, name });
  }
  const bytes = bytesOf(g[MODELS_KEY][name]);
  // The base64 text is not needed again: the model keeps its own copy in the module.
  delete g[MODELS_KEY][name];
  return bytes;
}

/**
 * The section's text model (loaded once; the same promise for every caller).
 * @returns {Promise<TextModel>}
 */
export function textModel() {
  if (!loading) {
    loading = (async () => {
      const [{ hw }, weights] = await Promise.all([trainingModule(), weightsOf(MODEL_FILE)]);
      if (typeof hw.textModel !== 'function') throw new PageError('errors.load.noTextModel');
      loaded = hw.textModel({ weights });
      return loaded;
    })();
    loading.catch((e) => console.error('Headwise: the text model failed to load:', messageOf(e)));
  }
  return loading;
}

/** @returns {any} the model the section shows (the student's own when chosen), or null until the State of the Union model has loaded */
export function textModelNow() {
  if (!loaded) return null;
  return showing === 'own' && own ? own : loaded;
}

/** @returns {any} the State of the Union model, or null until it has loaded */
export function sotuModelNow() {
  return loaded;
}

/** @returns {any} the student's own model, or null */
export function ownModelNow() {
  return own;
}

/** @returns {'sotu'|'own'} which model the section shows */
export function shownModel() {
  return showing === 'own' && own ? 'own' : 'sotu';
}

/**
 * The student's own model, with the evaluation the page measured for it (null: its file's metadata
 * holds it); the one it replaces is disposed.
 * @param {any} model  a TextModel
 * @param {{heads: any, heldOut: any}|null} [evaluation]
 */
export function setOwnModel(model, evaluation = null) {
  if (own && own !== model) own.dispose();
  own = model;
  if (evaluation) evaluations.set(model, evaluation);
}

/** @param {'sotu'|'own'} which */
export function showModel(which) {
  showing = which;
}

/**
 * A model's head measures and held-out losses: the page's evaluation of it, else its metadata's
 * (the `heads` and `heldOut` the training recorded, or its `evaluation` when the trainer saved it).
 * @param {any} model
 * @returns {{heads: Record<string, number[][]>, heldOut: Record<string, number>}}
 */
export function evaluationOf(model) {
  const e = evaluations.get(model);
  if (e) return e;
  const meta = /** @type {any} */ (model.metadata()) || {};
  const ev = meta.evaluation || {};
  return { heads: meta.heads || ev.heads || {}, heldOut: meta.heldOut || ev.heldOut || {} };
}
