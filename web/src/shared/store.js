// The one place that owns the page's state, its URL-hash serialisation and the single WASM
// module instance. Widgets read `store.state`, call the module through `store.hw`, and listen
// for the store's "change" event. Changes are applied at once; listeners are notified once per
// animation frame, so a burst of input events costs one recompute.

import { controlFor, messageOf } from './errors.js';

/**
 * @typedef {object} State
 * @property {number|null} seed      null while the field is empty or unreadable
 * @property {number|null} tokens
 * @property {string[]} labels        labels[i] (sparse); missing entries default to "t<i>"
 * @property {number|null} dModel
 * @property {number|null} numHeads
 * @property {boolean} bias
 * @property {boolean} causal
 * @property {number} query           index of the highlighted query token
 * @property {number|null} ex1Seed    exercise 1: the student's own seed
 * @property {number|null} ex2DModel  exercise 2: the student's own d_model
 * @property {number|null} ex2Heads   exercise 2: a head count to try
 * @property {number|null} trainSeed  "Watch heads specialise": the seed of the training run
 * @property {string} trainTask       "Watch heads specialise": the task's name
 */

/** @type {Readonly<State>} */
export const DEFAULTS = Object.freeze({
  seed: 7,
  tokens: 5,
  labels: [],
  dModel: 8,
  numHeads: 2,
  bias: false,
  causal: false,
  query: 0,
  ex1Seed: 2024,
  ex2DModel: 12,
  ex2Heads: 5,
  trainSeed: 1,
  trainTask: 'previous-and-first',
});

/** The lesson's own run, used by prose that quotes it. */
export const LESSON = Object.freeze({ seed: 7, tokens: 5, dModel: 8, numHeads: 2, bias: false, causal: false });

/** Hash key for each numeric field. */
const NUMERIC_KEYS = /** @type {const} */ ({
  seed: 'seed',
  tokens: 'tokens',
  dModel: 'd_model',
  numHeads: 'heads',
  ex1Seed: 'ex1_seed',
  ex2DModel: 'ex2_d_model',
  ex2Heads: 'ex2_heads',
  trainSeed: 'train_seed',
});
/** Hash key for each text field (a name the module checks, such as a training task's). */
const TEXT_KEYS = /** @type {const} */ ({ trainTask: 'train_task' });
const BOOLEAN_KEYS = /** @type {const} */ ({ bias: 'bias', causal: 'causal' });
const MAX_LABEL_INDEX = 4096;
/** Longest URL hash read (characters after '#'); a longer one is refused as a whole. */
const MAX_HASH_LENGTH = 65536;

/**
 * Default label of token i.
 * @param {number} i
 */
export function defaultLabel(i) {
  return `t${i}`;
}

/**
 * @param {State} state
 * @param {number} i
 */
export function labelOf(state, i) {
  const l = state.labels[i];
  return l === undefined || l === null ? defaultLabel(i) : l;
}

/**
 * Parse a URL hash into a state. Throws Error with a readable reason if it is malformed.
 * Values that are well-formed numbers but invalid for the module (e.g. heads=3 with d_model 8)
 * are kept: the page shows the module's message for them.
 * @param {string} hash  with or without the leading "#"
 * @returns {State}
 */
export function parseHash(hash) {
  const text = hash.replace(/^#/, '');
  /** @type {State} */
  const state = { ...DEFAULTS, labels: [] };
  if (text === '') return state;
  if (text.length > MAX_HASH_LENGTH) {
    throw new Error(`the link is too long (${text.length} characters after the #; at most ${MAX_HASH_LENGTH})`);
  }
  let params;
  try {
    params = new URLSearchParams(text);
  } catch {
    throw new Error('the link could not be decoded');
  }
  const numericByKey = Object.fromEntries(Object.entries(NUMERIC_KEYS).map(([f, k]) => [k, f]));
  const boolByKey = Object.fromEntries(Object.entries(BOOLEAN_KEYS).map(([f, k]) => [k, f]));
  const textByKey = Object.fromEntries(Object.entries(TEXT_KEYS).map(([f, k]) => [k, f]));
  const seen = new Set();
  for (const [key, raw] of params) {
    if (seen.has(key)) throw new Error(`"${key}" appears twice`);
    seen.add(key);
    const value = raw.trim();
    if (key in numericByKey) {
      const n = value === '' ? NaN : Number(value);
      if (!Number.isFinite(n)) throw new Error(`"${key}" is not a number`);
      /** @type {any} */ (state)[numericByKey[key]] = n;
    } else if (key in boolByKey) {
      if (!['0', '1', 'true', 'false'].includes(value)) throw new Error(`"${key}" must be 0 or 1`);
      /** @type {any} */ (state)[boolByKey[key]] = value === '1' || value === 'true';
    } else if (key in textByKey) {
      if (!/^[a-z0-9-]{1,64}$/.test(value)) throw new Error(`"${key}" must be a name such as previous-and-first`);
      /** @type {any} */ (state)[textByKey[key]] = value;
    } else if (key === 'query') {
      if (!/^\d{1,5}$/.test(value)) throw new Error('"query" must be a token index');
      state.query = Number(value);
    } else if (/^label\.\d{1,5}$/.test(key)) {
      const i = Number(key.slice(6));
      if (i >= MAX_LABEL_INDEX) throw new Error(`"${key}" is out of range`);
      state.labels[i] = raw;
    } else {
      throw new Error(`"${key.slice(0, 40)}" is not a setting this page knows`);
    }
  }
  return state;
}

/**
 * Serialise a state to a hash (without "#"). Empty/unreadable fields are left out.
 * @param {State} state
 */
export function toHash(state) {
  const p = new URLSearchParams();
  for (const [field, key] of Object.entries(NUMERIC_KEYS)) {
    const v = /** @type {any} */ (state)[field];
    if (typeof v === 'number' && Number.isFinite(v)) p.set(key, String(v));
  }
  for (const [field, key] of Object.entries(BOOLEAN_KEYS)) {
    p.set(key, /** @type {any} */ (state)[field] ? '1' : '0');
  }
  for (const [field, key] of Object.entries(TEXT_KEYS)) {
    const v = /** @type {any} */ (state)[field];
    if (typeof v === 'string' && v !== '') p.set(key, v);
  }
  p.set('query', String(state.query));
  state.labels.forEach((l, i) => {
    if (l !== undefined && l !== null && l !== defaultLabel(i)) p.set(`label.${i}`, l);
  });
  return p.toString();
}

/**
 * @typedef {object} Experiment
 * @property {any|null} result      hw.seedExperiment's result for the current state, or null
 * @property {string|null} error    the module's (or the page's "required") message
 * @property {string|null} errorFor control id the error belongs to
 * @property {any|null} lastGood    the last result that computed, for widgets that keep showing it
 */

export class Store extends EventTarget {
  /**
   * @param {object} [options]
   * @param {boolean} [options.syncHash] read and write location.hash (the lesson page does)
   * @param {Partial<State>} [options.state]
   */
  constructor({ syncHash = true, state = {} } = {}) {
    super();
    /** @type {State} */
    this.state = { ...DEFAULTS, labels: [], ...state };
    /** @type {any} the WASM module, null until loaded */
    this.hw = null;
    /** @type {string|null} */
    this.loadError = null;
    /** @type {string|null} a notice about the URL hash */
    this.notice = null;
    /** @type {Record<string, string>} page-level input problems (empty fields), by control id */
    this.inputErrors = {};
    /** @type {string|null} */
    this.lastChanged = null;
    this.syncHash = syncHash;
    /** @type {number} increases on every notified change */
    this.version = 0;
    this._frame = 0;
    /** @type {{key: string, value: Experiment}|null} */
    this._experiment = null;
    /** @type {any|null} */
    this._lastGood = null;
    /** @type {Map<string, any>} */
    this._memo = new Map();
    this._writingHash = false;
  }

  /** Read the hash (if synced), load the module, notify. Safe to call more than once. */
  init() {
    if (this._init) return this._init;
    if (this.syncHash) {
      this.readHash();
      window.addEventListener('hashchange', () => {
        if (this._writingHash) return;
        this.readHash();
        this.notify();
      });
    }
    this._init = this.loadModule().then(() => this.notify());
    return this._init;
  }

  async loadModule() {
    try {
      const factory = /** @type {any} */ (globalThis).createHeadwise;
      if (typeof factory !== 'function') {
        throw new Error('headwise.js did not load (createHeadwise is missing)');
      }
      this.hw = await factory();
    } catch (e) {
      this.loadError = messageOf(e);
      console.error('Headwise: the WASM module failed to load:', e);
    }
  }

  readHash() {
    // An in-page link such as the skip link's #settings is navigation, not a permalink: the
    // settings stay as they are (notify() then writes them back into the hash).
    const fragment = window.location.hash.replace(/^#/, '');
    if (/^[A-Za-z][\w-]*$/.test(fragment) && document.getElementById(fragment)) return;
    try {
      this.state = parseHash(window.location.hash);
      this.notice = null;
    } catch (e) {
      this.state = { ...DEFAULTS, labels: [] };
      this.notice = `This link's settings could not be read (${messageOf(e)}), so the page shows the lesson's defaults instead.`;
    }
    this.inputErrors = {};
    this.lastChanged = null;
  }

  writeHash() {
    if (!this.syncHash) return;
    const next = `#${toHash(this.state)}`;
    if (window.location.hash === next) return;
    this._writingHash = true;
    try {
      history.replaceState(null, '', next);
    } catch {
      window.location.replace(next);
    }
    // hashchange (if any) fires asynchronously.
    setTimeout(() => { this._writingHash = false; }, 0);
  }

  /**
   * Change part of the state. `source` is the control id that changed (for error placement).
   * @param {Partial<State>} patch
   * @param {string|null} [source]
   */
  set(patch, source = null) {
    this.state = { ...this.state, ...patch };
    if (source) this.lastChanged = source;
    this.schedule();
  }

  /**
   * Record (or clear, with null) a page-level input problem such as an empty field.
   * @param {string} control
   * @param {string|null} message
   */
  setInputError(control, message) {
    if (message) this.inputErrors[control] = message;
    else delete this.inputErrors[control];
  }

  /** Notify listeners on the next animation frame (one notification per frame). */
  schedule() {
    if (this._frame) return;
    const run = () => {
      this._frame = 0;
      this.notify();
    };
    this._frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(run) : setTimeout(run, 0);
  }

  /** Notify listeners now. */
  notify() {
    this.version += 1;
    this.writeHash();
    if (this.notice && this.lastChanged) this.notice = null; // the student has moved on
    this.dispatchEvent(new Event('change'));
  }

  /**
   * The main experiment for the current state (computed once per distinct state).
   * @returns {Experiment}
   */
  experiment() {
    const s = this.state;
    const key = JSON.stringify([s.seed, s.tokens, s.dModel, s.numHeads, s.bias, s.causal, this.inputErrors.seed, this.inputErrors.tokens, this.inputErrors['d-model'], this.inputErrors['num-heads']]);
    if (this._experiment && this._experiment.key === key && this._experiment.value.lastGood === this._lastGood) {
      return this._experiment.value;
    }
    /** @type {Experiment} */
    let value;
    const missing = ['seed', 'tokens', 'd-model', 'num-heads'].find((c) => this.inputErrors[c]);
    if (!this.hw) {
      value = { result: null, error: null, errorFor: null, lastGood: null };
    } else if (missing) {
      value = { result: null, error: this.inputErrors[missing], errorFor: missing, lastGood: this._lastGood };
    } else {
      try {
        const result = this.hw.seedExperiment({
          seed: s.seed, tokens: s.tokens, dModel: s.dModel, numHeads: s.numHeads, bias: s.bias, causal: s.causal,
        });
        this._lastGood = result;
        value = { result, error: null, errorFor: null, lastGood: result };
      } catch (e) {
        const message = messageOf(e);
        value = { result: null, error: message, errorFor: controlFor(message, this.lastChanged), lastGood: this._lastGood };
      }
    }
    this._experiment = { key, value };
    return value;
  }

  /**
   * Memoise a module call by key (results of pure calls on the same inputs are reused).
   * Errors are memoised too and rethrown.
   * @template T
   * @param {string} key
   * @param {() => T} compute
   * @returns {T}
   */
  memo(key, compute) {
    if (!this._memo.has(key)) {
      try {
        this._memo.set(key, { ok: true, value: compute() });
      } catch (e) {
        this._memo.set(key, { ok: false, error: e });
      }
      if (this._memo.size > 200) this._memo.delete(this._memo.keys().next().value);
    }
    const entry = this._memo.get(key);
    if (!entry.ok) throw entry.error;
    return entry.value;
  }

  /**
   * Every current error, by control id: page-level input problems and the main experiment's.
   * @returns {Record<string, string>}
   */
  errors() {
    /** @type {Record<string, string>} */
    const out = { ...this.inputErrors };
    const ex = this.experiment();
    if (ex.error && ex.errorFor && !out[ex.errorFor]) out[ex.errorFor] = ex.error;
    return out;
  }
}

/** @type {Store|null} */
let defaultStore = null;

/**
 * The page's shared store (created on first use, with URL-hash sync).
 * @returns {Store}
 */
export function getStore() {
  if (!defaultStore) {
    defaultStore = new Store({ syncHash: !document.documentElement.hasAttribute('data-hw-no-hash') });
    defaultStore.init();
  }
  return defaultStore;
}
