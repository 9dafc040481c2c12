// The one place that owns the page's state and the single WASM module instance. Widgets read
// `store.state`, call the module through `store.hw`, and listen for the store's "change" event.
// Changes are applied at once; listeners are notified once per animation frame, so a burst of
// input events costs one recompute. Its other jobs have files of their own: the URL hash
// (hash-sync.js, with settings.js's codec), computations (computations.js) and the lesson's runs and
// their errors (lesson-runs.js).

import { errorOf } from './errors.js';
import { getCompute } from '../compute/pool.js';
import { defaults } from './settings.js';
import { hashSync } from './hash-sync.js';
import { computations } from './computations.js';
import { lessonRuns } from './lesson-runs.js';

export { HASH_WRITE_MS } from './hash-sync.js';
export { BUSY_AFTER_MS, SYNC_MS } from './computations.js';
export { EX1_HEAD_COUNTS } from './lesson-runs.js';

/** @typedef {import('./settings.js').State} State */

let storeIds = 0;

/**
 * @typedef {object} Experiment
 * @property {any|null} result      hw.seedExperiment's result for the current state, or null
 * @property {any} error          the module's or the page's error (an ErrorInfo: src/shared/state/errors.js), or null
 * @property {string|null} errorFor control id the error belongs to
 * @property {any|null} lastGood    the last result that computed, for widgets that keep showing it
 * @property {boolean} [pending]    the result for the current state is being computed
 */

/** @typedef {{key: string, params: Record<string, unknown>}} Label */

/**
 * @typedef {object} Slot  one computation of the page for the current state
 * @property {unknown} key  the inputs it was computed from
 * @property {boolean} pending
 * @property {{ok: boolean, value?: any, error?: any, info?: unknown, errorFor?: string|null}|null} result
 *   its value or error (`info`: the error as the page keeps it; `errorFor`: the control it belongs to)
 * @property {Label|null} label  what is being computed ("512 × 768, 12 heads"), as a key of the
 *   catalogues and its parameters: the widget that shows it says it in its language
 * @property {number} since      when it started (performance.now())
 * @property {boolean} [shown]   its progress is shown (it has been pending for BUSY_AFTER_MS)
 */

export class Store extends EventTarget {
  // Each job's methods, from its own file (typed there with `@this {Store}`).
  readHash = hashSync.readHash;
  writeHash = hashSync.writeHash;
  writeHashNow = hashSync.writeHashNow;
  computed = computations.computed;
  scheduleBusy = computations.scheduleBusy;
  busy = computations.busy;
  mainBudget = computations.mainBudget;
  changeCost = lessonRuns.changeCost;
  mainOptions = lessonRuns.mainOptions;
  experiment = lessonRuns.experiment;
  seeds = lessonRuns.seeds;
  crossCheck = lessonRuns.crossCheck;
  errors = lessonRuns.errors;

  /**
   * @param {object} [options]
   * @param {boolean} [options.syncHash] read and write location.hash (the lesson page does)
   * @param {Partial<State>} [options.state]
   * @param {import('../compute/pool.js').Pool} [options.compute] where heavy computations run
   *   (default: the page's)
   */
  constructor({ syncHash = true, state = {}, compute } = {}) {
    super();
    /** where heavy computations run */
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
    /** @type {import('../../../../cpp/api').Headwise|null} the WASM module, null until loaded */
    this.hw = null;
    /** @typedef {import('./errors.js').ErrorInfo} ErrorInfo */
    /** @type {ErrorInfo|unknown} why the module did not load (null while it has not failed) */
    this.loadError = null;
    /** @type {ErrorInfo|null} a notice about the URL hash */
    this.notice = null;
    /** @type {Record<string, ErrorInfo>} page-level input problems (empty fields), by control id */
    this.inputErrors = {};
    /** @type {string|null} */
    this.lastChanged = null;
    this.syncHash = syncHash;
    /** @type {number} increases on every notified change */
    this.version = 0;
    this._frame = 0;
    /** @type {any|null} */
    this._lastGood = null;
    /** @type {any[]|null} exercise 1's last blocks (lesson-runs.js seeds()) */
    this._lastSeeds = null;
    /** @type {Map<string, any>} */
    this._memo = new Map();
    this._writingHash = false;
    /** the last hash this store wrote, and when (performance.now()); a pending write's timer */
    this._writtenHash = '';
    this._hashWrittenAt = -Infinity;
    this._hashTimer = 0;
    /** @type {string|null} the hash as this store last read or wrote it (null: not yet) */
    this._knownHash = null;
    /** whether the link's `workers` pinned the page's pools */
    this._pinnedWorkers = false;
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
      this.loadError = errorOf(e);
      console.error('Headwise: the WASM module failed to load:', e);
    }
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
   * @param {import('./errors.js').ErrorInfo|null} problem  (src/shared/ui/forms.js parseNumberField)
   */
  setInputError(control, problem) {
    if (problem) this.inputErrors[control] = problem;
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
