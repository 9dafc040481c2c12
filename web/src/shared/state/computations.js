// The store's computations: each run of the page is done at once when cheap, else through
// Compute (a newer state supersedes it), once per change of its inputs; its progress is shown
// after BUSY_AFTER_MS, and with no Worker a change above the main thread's budget is refused.

import { MAIN_BUDGET_MS } from '../compute/cost.js';
import { isAbort } from '../compute/errors.js';
import { installTasks } from '../compute/lesson-tasks.js';
import { fmtInt } from '../ui/format.js';
import { PageError } from './errors.js';

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./store.js').Slot} Slot */
/** @typedef {import('./store.js').Label} Label */

/** Computations estimated below this (ms) run at once, on the main thread, in the update. */
export const SYNC_MS = 4;
/** A computation pending for longer than this (ms) shows progress in place. */
export const BUSY_AFTER_MS = 150;

/**
 * Whether a run's inputs are unchanged: value by value for a list, else as they are.
 * @param {unknown} a
 * @param {unknown} b
 */
function sameInputs(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  return a === b;
}

/** Methods of Store (store.js installs them). */
export const computations = {
  /**
   * The current state's computation called `name`: done at once when it is cheap (estimated
   * under SYNC_MS), otherwise through Compute (key `name`: a newer state supersedes it), and the
   * store notifies its listeners when the result arrives. Results are kept per key.
   * @param {string} name
   * @param {unknown} key      the inputs that matter (a list of values, compared one by one)
   * @param {number} cost       estimated milliseconds
   * @param {string} method     a task of lesson-tasks.js or a module method
   * @param {any} options
   * @param {Label} label       shown while it computes: "Computing <label>…"
   * @param {() => Error|null} [refuse]  a refusal to start it (thrown as its error), asked once the mode is known
   * @returns {Slot}
   * @this {Store}
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
      // A big result: widgets redraw one after another (src/shared/ui/redraw.js), not all in this task.
      this.deferRender = true;
      try {
        this.notify();
      } finally {
        this.deferRender = false;
      }
    };
    this.compute.start().then(() => {
      const why = refuse ? refuse() : null;
      if (why) throw why;
      return this.compute.run(method, options, { key: `${this.id}:${name}`, cost });
    }).then((value) => settle({ ok: true, value }), (e) => {
      if (!isAbort(e)) settle({ ok: false, error: e });
    });
    return slot;
  },

  /**
   * Notify when a pending computation becomes old enough to show progress (once per run).
   * @this {Store}
   */
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
  },

  /**
   * What is being computed for `names`, once it has taken longer than BUSY_AFTER_MS.
   * @param {string[]} names
   * @returns {{pending: boolean, label: Label|null}}
   * @this {Store}
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
  },

  /**
   * When no Worker runs, a refusal of work estimated above the main thread's budget (the code
   * 'errors.budget', concerning the tokens and d_model: the sizes that make it cost).
   * @param {number} cost  estimated ms of everything one change computes
   * @param {{tokens: unknown, dModel: unknown}} sizes
   * @returns {PageError|null}
   * @this {Store}
   */
  mainBudget(cost, sizes) {
    const { tokens, dModel } = sizes;
    if (this.compute.mode !== 'main' || !(cost > MAIN_BUDGET_MS)) return null;
    return new PageError('errors.budget', {
      reason: this.compute.reason, budget: MAIN_BUDGET_MS, tokens, dModel, cost: fmtInt(Math.round(cost)), fields: ['tokens', 'dModel'],
    }, 'tokens');
  },
};
