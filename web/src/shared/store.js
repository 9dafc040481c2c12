// The one place that owns the page's state, its URL-hash serialisation and the single WASM
// module instance. Widgets read `store.state`, call the module through `store.hw`, and listen
// for the store's "change" event. Changes are applied at once; listeners are notified once per
// animation frame, so a burst of input events costs one recompute.

import { controlFor, controlsNamed, messageOf } from './errors.js';
import { MAIN_BUDGET_MS, forwardCost, getCompute, isAbort } from './compute.js';
import { installTasks } from './compute-tasks.js';
import { fmtInt } from './format.js';
import { SETTING, defaults, langOf, parseHash, toHash } from './settings.js';

/** @typedef {import('./settings.js').State} State */

/** Computations estimated below this (ms) run at once, on the main thread, in the update. */
export const SYNC_MS = 4;
/** A computation pending for longer than this (ms) shows progress in place. */
export const BUSY_AFTER_MS = 150;
/** The address bar's hash is rewritten at most this often (ms): 5 a second, well inside every engine's limit. */
export const HASH_WRITE_MS = 200;
/** Exercise 1's head counts (its cost is part of every setting's budget). */
export const EX1_HEAD_COUNTS = [2, 4];
/** The controls of the main run's number inputs (an empty one stops the run). */
const MAIN_CONTROLS = ['seed', 'tokens', 'dModel', 'numHeads'].map((n) => SETTING[/** @type {keyof State} */ (n)].control);
/** The settings each of the lesson's runs reads: a run is computed again when one of them changes. */
const RUN_INPUTS = /** @type {Record<string, (keyof State)[]>} */ ({
  experiment: ['seed', 'tokens', 'dModel', 'numHeads', 'bias', 'causal'],
  ex1: ['ex1Seed', 'tokens', 'dModel', 'bias', 'causal'],
});

/**
 * Whether a run's inputs are unchanged: value by value for a list, else as they are.
 * @param {unknown} a
 * @param {unknown} b
 */
function sameInputs(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  return a === b;
}
let storeIds = 0;

/**
 * @typedef {object} Experiment
 * @property {any|null} result      hw.seedExperiment's result for the current state, or null
 * @property {string|null} error    the module's (or the page's "required") message
 * @property {string|null} errorFor control id the error belongs to
 * @property {any|null} lastGood    the last result that computed, for widgets that keep showing it
 * @property {boolean} [pending]    the result for the current state is being computed
 */

/** @typedef {{key: string, params: Record<string, unknown>}} Label */

/**
 * @typedef {object} Slot  one computation of the page for the current state
 * @property {unknown} key  the inputs it was computed from
 * @property {boolean} pending
 * @property {{ok: boolean, value?: any, error?: any}|null} result
 * @property {Label|null} label  what is being computed ("512 × 768, 12 heads"), as a key of the
 *   catalogues and its parameters: the widget that shows it says it in its language
 * @property {number} since      when it started (performance.now())
 * @property {boolean} [shown]   its progress is shown (it has been pending for BUSY_AFTER_MS)
 */

export class Store extends EventTarget {
  /**
   * @param {object} [options]
   * @param {boolean} [options.syncHash] read and write location.hash (the lesson page does)
   * @param {Partial<State>} [options.state]
   */
  constructor({ syncHash = true, state = {}, compute } = {}) {
    super();
    /** @type {import('./compute.js').Compute} where heavy computations run */
    this.compute = compute || getCompute();
    storeIds += 1;
    this.id = `store${storeIds}`;
    /** @type {Record<string, Slot>} */
    this._slots = {};
    this._busyTimer = 0;
    /** True while listeners are told about a computation that arrived (they may redraw later). */
    this.deferRender = false;
    /** @type {Record<string, Function>|null} */
    this._tasks = null;
    /** @type {State} */
    this.state = { ...defaults(), ...state };
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
    /** @type {any|null} */
    this._lastGood = null;
    /** @type {Map<string, any>} */
    this._memo = new Map();
    this._writingHash = false;
    /** the last hash this store wrote, and when (performance.now()); a pending write's timer */
    this._writtenHash = '';
    this._hashWrittenAt = -Infinity;
    this._hashTimer = 0;
    /** @type {string|null} the hash as this store last read or wrote it (null: not yet) */
    this._knownHash = null;
  }

  /** Read the hash (if synced), load the module, notify. Safe to call more than once. */
  init() {
    if (this._init) return this._init;
    if (this.syncHash) {
      this.readHash();
      window.addEventListener('hashchange', () => {
        // Our own write coming back (a hash navigation where replaceState was refused) is not
        // a new link.
        if (this._writingHash || window.location.hash === this._writtenHash) return;
        this.readHash();
        this.notify();
      });
    }
    this._init = this.loadModule().then(() => this.notify());
    return this._init;
  }

  async loadModule() {
    try {
      this.hw = await this.compute.main();
    } catch (e) {
      this.loadError = messageOf(e);
      console.error('Headwise: the WASM module failed to load:', e);
    }
  }

  readHash() {
    // An in-page link such as the skip link's #settings is navigation, not a permalink: the
    // settings stay as they are (notify() then writes them back into the hash).
    // Stryker disable next-line Regex: location.hash is empty or starts with its one '#'
    this._knownHash = window.location.hash;
    const fragment = window.location.hash.replace(/^#/, '');
    if (/^[A-Za-z][\w-]*$/.test(fragment) && document.getElementById(fragment)) return;
    try {
      this.state = parseHash(window.location.hash);
      this.notice = null;
    } catch (e) {
      // The defaults, in the language the link asks for if it asks for one plainly: a student
      // whose link is mistyped reads why in their own language.
      this.state = { ...defaults(), lang: langOf(window.location.hash) };
      this.notice = `This link's settings could not be read (${messageOf(e)}), so the page shows the lesson's defaults instead.`;
    }
    this.inputErrors = {};
    this.lastChanged = null;
  }

  /**
   * Put the settings into the address bar, at most once per HASH_WRITE_MS (the newest settings
   * are written when that time is up). Browsers limit how often a page may change its history
   * entry: WebKit refuses more than about 100 replaceState calls in 10 s with a SecurityError,
   * and the page's earlier fallback, a hash navigation, was then itself dropped while its
   * hashchange events came back with older settings, so a change made after a burst of input
   * was undone.
   *
   * Always from a timer of its own, never in the change's task: a replaceState on the lesson
   * page costs Chromium 0.6 to 1 ms here (100 in a row, timed in the page), as much as the
   * rest of the change's task at the lesson's size, and the new numbers need not wait for the
   * address bar. A change notified in an animation frame (Store.schedule) gets its write
   * after that frame is drawn.
   */
  writeHash() {
    if (!this.syncHash || this._hashTimer) return;
    const wait = this._hashWrittenAt + HASH_WRITE_MS - performance.now();
    this._hashTimer = setTimeout(() => {
      this._hashTimer = 0;
      this.writeHashNow();
    }, Math.max(0, wait));
  }

  /** The write itself (writeHash's timer). */
  writeHashNow() {
    const now = performance.now();
    const next = `#${toHash(this.state)}`;
    if (window.location.hash === next) return;
    // The address changed since the store last read or wrote it (a link followed, the address
    // bar edited) and its hashchange has not been handled yet: that navigation wins. Writing
    // the older settings now would undo it, and its hashchange would then be taken for the
    // store's own write and dropped.
    if (this._knownHash !== null && window.location.hash !== this._knownHash) return;
    this._hashWrittenAt = now;
    this._knownHash = next;
    this._writtenHash = next;
    this._writingHash = true;
    try {
      // Stryker disable next-line StringLiteral: browsers ignore replaceState's title
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
   * The current state's computation called `name`: done at once when it is cheap (estimated
   * under SYNC_MS), otherwise through Compute (key `name`: a newer state supersedes it), and the
   * store notifies its listeners when the result arrives. Results are kept per key.
   * @param {string} name
   * @param {unknown} key      the inputs that matter (a list of values, compared one by one)
   * @param {number} cost       estimated milliseconds
   * @param {string} method     a task of compute-tasks.js or a module method
   * @param {any} options
   * @param {Label} label       shown while it computes: "Computing <label>…"
   * @param {() => string|null} [refuse]  a reason not to start it, asked once the mode is known
   * @returns {Slot}
   */
  computed(name, key, cost, method, options, label, refuse) {
    let slot = this._slots[name];
    if (!slot) {
      // Stryker disable next-line ObjectLiteral,StringLiteral: the slot's shape; every field is set below before it is read
      slot = { key: null, pending: false, result: null, label: null, since: 0 };
      this._slots[name] = slot;
    }
    if (slot.key !== null && sameInputs(slot.key, key)) return slot;
    slot.key = key;
    slot.label = label;
    if (!(cost > SYNC_MS)) {
      if (!this._tasks) this._tasks = installTasks(this.hw);
      try {
        slot.result = { ok: true, value: this._tasks[method](options) };
      } catch (e) {
        slot.result = { ok: false, error: e };
      }
      slot.pending = false;
      this.compute.cancel(`${this.id}:${name}`);  // an older, slower one is no longer wanted
      return slot;
    }
    slot.pending = true;
    slot.shown = false;
    slot.result = null;
    slot.since = performance.now();
    this.scheduleBusy();
    const settle = (/** @type {{ok: boolean, value?: any, error?: any}} */ result) => {
      if (slot.key !== key) return;
      slot.pending = false;
      slot.result = result;
      // A big result: widgets redraw one after another (element.js), not all in this task.
      this.deferRender = true;
      try {
        this.notify();
      } finally {
        this.deferRender = false;
      }
    };
    this.compute.start().then(() => {
      const why = refuse ? refuse() : null;
      if (why) throw new Error(why);
      return this.compute.run(method, options, { key: `${this.id}:${name}`, cost });
    }).then((value) => settle({ ok: true, value }), (e) => {
      if (!isAbort(e)) settle({ ok: false, error: e });
    });
    return slot;
  }

  /** Notify when a pending computation becomes old enough to show progress (once per run). */
  scheduleBusy() {
    if (this._busyTimer) return;
    const now = performance.now();
    const waiting = Object.values(this._slots).filter((slot) => slot.pending && !slot.shown);
    if (waiting.length === 0) return;
    const due = Math.min(...waiting.map((slot) => slot.since + BUSY_AFTER_MS));
    this._busyTimer = setTimeout(() => {
      this._busyTimer = 0;
      const t = performance.now();
      const ripe = waiting.filter((slot) => slot.pending && t - slot.since >= BUSY_AFTER_MS);
      for (const slot of ripe) slot.shown = true;
      if (ripe.length > 0) this.notify();
      this.scheduleBusy();  // a newer run that is not old enough yet
    }, Math.max(0, due - now) + 5);
  }

  /**
   * What is being computed for `names`, once it has taken longer than BUSY_AFTER_MS.
   * @param {string[]} names
   * @returns {{pending: boolean, label: Label|null}}
   */
  busy(names) {
    const now = performance.now();
    let pending = false;
    for (const name of names) {
      const slot = this._slots[name];
      if (!slot || !slot.pending) continue;
      pending = true;
      if (now - slot.since >= BUSY_AFTER_MS) return { pending, label: slot.label };
    }
    return { pending, label: null };
  }

  /**
   * When no Worker runs, a reason to refuse work estimated above the main thread's budget.
   * @param {number} cost  estimated ms of everything one change computes
   * @param {string} what  e.g. "512 tokens at d_model 768"
   */
  mainBudget(cost, what) {
    if (this.compute.mode !== 'main' || !(cost > MAIN_BUDGET_MS)) return null;
    return `This page computes on the main thread: ${this.compute.reason}. So a change may take at most about ${MAIN_BUDGET_MS} ms, and ${what} would take about ${fmtInt(Math.round(cost))} ms with the exercises. Choose fewer tokens or a smaller d_model.`;
  }

  /** Estimated ms of everything one change of the main settings computes. */
  changeCost() {
    const s = this.state;
    const n = Number(s.tokens);
    const d = Number(s.dModel);
    const h = Number(s.numHeads);
    return 2.3 * forwardCost(n, d, h) + EX1_HEAD_COUNTS.reduce((sum, k) => sum + forwardCost(n, d, k), 0);
  }

  /** The main settings as seedExperiment's options. */
  mainOptions() {
    const s = this.state;
    return { seed: s.seed, tokens: s.tokens, dModel: s.dModel, numHeads: s.numHeads, bias: s.bias, causal: s.causal };
  }

  /**
   * The main experiment for the current state (hw.seedExperiment plus the head pairs, as
   * `result.pairs`), computed once per distinct state; `pending` while it computes.
   * @returns {Experiment}
   */
  experiment() {
    const s = this.state;
    const missing = MAIN_CONTROLS.find((c) => this.inputErrors[c]);
    if (!this.hw) return { result: null, error: null, errorFor: null, lastGood: null };
    if (missing) return { result: null, error: this.inputErrors[missing], errorFor: missing, lastGood: this._lastGood };
    const key = RUN_INPUTS.experiment.map((n) => s[n]);
    const cost = forwardCost(Number(s.tokens), Number(s.dModel), Number(s.numHeads));
    const slot = this.computed('experiment', key, cost, 'lessonRun', this.mainOptions(),
      { key: 'status.what.run', params: { tokens: s.tokens, dModel: s.dModel, count: s.numHeads } },
      () => this.mainBudget(this.changeCost(), `${s.tokens} tokens at d_model ${s.dModel}`));
    // Stryker disable next-line LogicalOperator: a slot is pending exactly when it has no result
    if (slot.pending || !slot.result) return { result: null, error: null, errorFor: null, lastGood: this._lastGood, pending: true };
    if (slot.result.ok) {
      this._lastGood = slot.result.value;
      return { result: slot.result.value, error: null, errorFor: null, lastGood: slot.result.value };
    }
    const message = messageOf(slot.result.error);
    if (!slot.result.errorFor) {
      const changed = this.lastChanged && MAIN_CONTROLS.includes(this.lastChanged) ? this.lastChanged : null;
      slot.result.errorFor = /main thread/.test(message) ? (changed || 'tokens') : controlFor(message, this.lastChanged);
    }
    return { result: null, error: message, errorFor: slot.result.errorFor, lastGood: this._lastGood };
  }

  /**
   * Exercise 1 for the current state: the student's seed at EX1_HEAD_COUNTS heads, on the
   * settings' tokens and d_model. It only starts once the main experiment has computed (or was
   * refused for its head count alone): it never starts work the main experiment refuses.
   * @returns {{state: 'missing'|'waiting'|'blocked'|'pending'|'done'|'error', blocks?: any[], error?: string, lastGood?: any[]|null}}
   */
  seeds() {
    const s = this.state;
    if (this.inputErrors['ex1-seed'] || ['tokens', 'd-model'].some((c) => this.inputErrors[c])) return { state: 'missing' };
    const main = this.experiment();
    const last = this._lastSeeds || null;
    if (main.pending) return { state: 'waiting', lastGood: last };
    // Refused for its seed or head count alone, the main experiment says nothing against the
    // tokens and d_model that exercise 1 reuses; refused for anything else, exercise 1 waits.
    if (!main.result && (!main.error || controlsNamed(main.error).some((c) => c !== 'num-heads' && c !== 'seed'))) {
      return { state: 'blocked', error: main.error || '', lastGood: last };
    }
    const key = RUN_INPUTS.ex1.map((n) => s[n]);
    const n = Number(s.tokens);
    const d = Number(s.dModel);
    const cost = EX1_HEAD_COUNTS.reduce((sum, k) => sum + forwardCost(n, d, k), 0);
    const slot = this.computed('ex1', key, cost, 'seedsRun',
      { seed: s.ex1Seed, tokens: s.tokens, dModel: s.dModel, headCounts: EX1_HEAD_COUNTS, bias: s.bias, causal: s.causal },
      { key: 'status.what.ex1', params: { tokens: s.tokens, dModel: s.dModel } },
      () => this.mainBudget(this.changeCost(), `${s.tokens} tokens at d_model ${s.dModel}`));
    // Stryker disable next-line LogicalOperator: a slot is pending exactly when it has no result
    if (slot.pending || !slot.result) return { state: 'pending', lastGood: last };
    if (!slot.result.ok) return { state: 'error', error: messageOf(slot.result.error), lastGood: last };
    this._lastSeeds = slot.result.value;
    return { state: 'done', blocks: slot.result.value };
  }

  /**
   * Exercise 3 for the main experiment's result (the compute-tasks crossCheck summary).
   * @returns {{state: 'none'|'pending'|'done'|'error', value?: any, error?: string, run?: any}}
   */
  crossCheck() {
    const main = this.experiment();
    if (!main.result) return { state: main.pending ? 'pending' : 'none' };
    const run = main.result;
    // The main run's own inputs, as it echoes them.
    const key = RUN_INPUTS.experiment.map((n) => run[n]);
    const cost = 1.3 * forwardCost(run.tokens, run.dModel, run.numHeads);
    const slot = this.computed('ex3', key, cost, 'crossCheck', this.mainOptions(), { key: 'status.what.ex3', params: { tokens: run.tokens, dModel: run.dModel } });
    // Stryker disable next-line LogicalOperator: a slot is pending exactly when it has no result
    if (slot.pending || !slot.result) return { state: 'pending', run };
    if (!slot.result.ok) return { state: 'error', error: messageOf(slot.result.error), run };
    return { state: 'done', value: slot.result.value, run };
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
    const store = defaultStore;
    // The lesson page starts its Worker once it is idle, so that a first big setting does not
    // wait for it. (Embeds start theirs on first need: a host's CSP may forbid workers.)
    store.init().then(() => {
      const idle = /** @type {any} */ (globalThis).requestIdleCallback || ((/** @type {() => void} */ f) => setTimeout(f, 500));
      idle(() => store.compute.start(), { timeout: 3000 });
    });
  }
  return defaultStore;
}
