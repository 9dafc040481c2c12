// The lesson's runs: the main experiment, exercise 1 and exercise 3's cross-check, each from the
// settings it reads, and where each error is shown (beside the control it names).

import { controlFor, controlsOf, errorOf } from './errors.js';
import { forwardCost } from '../compute/cost.js';
import { SETTING, runInputs, runOptions } from './settings.js';

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./store.js').Experiment} Experiment */
/** @typedef {import('./settings.js').State} State */

/** Exercise 1's head counts (its cost is part of every setting's budget). */
export const EX1_HEAD_COUNTS = [2, 4];
/** @param {keyof State} name  a setting; its control's id (the settings table's) */
const control = (name) => SETTING[name].control;
/** The main run's number settings (an empty one stops the run; its errors are placed among them). */
const MAIN_SETTINGS = /** @type {(keyof State)[]} */ (['seed', 'tokens', 'dModel', 'numHeads']);
/** Their controls. */
const MAIN_CONTROLS = MAIN_SETTINGS.map(control);
/** The controls of the sizes exercise 1 shares with the main run (an empty one stops both). */
export const SIZE_CONTROLS = /** @type {(keyof State)[]} */ (['tokens', 'dModel']).map(control);
/** The controls whose refusal by the main run says nothing against exercise 1's sizes. */
const MAIN_ONLY_CONTROLS = /** @type {(keyof State)[]} */ (['numHeads', 'seed']).map(control);
/** The settings each of the lesson's runs reads: a run is computed again when one of them changes. */
const RUN_INPUTS = { experiment: runInputs('experiment'), ex1: runInputs('ex1') };

/**
 * A failed run's error as the page keeps it, made once per result (widgets compare it to see
 * whether anything changed).
 * @param {{error?: unknown, info?: unknown}} result
 */
function infoOf(result) {
  if (result.info === undefined) result.info = errorOf(result.error);
  return result.info;
}

/** Methods of Store (store.js installs them). */
export const lessonRuns = {
  /**
   * Estimated ms of everything one change of the main settings computes.
   * @this {Store}
   */
  changeCost() {
    const s = this.state;
    const n = Number(s.tokens);
    const d = Number(s.dModel);
    const h = Number(s.numHeads);
    return 2.3 * forwardCost(n, d, h) + EX1_HEAD_COUNTS.reduce((sum, k) => sum + forwardCost(n, d, k), 0);
  },

  /**
   * The main settings as seedExperiment's options.
   * @this {Store}
   */
  mainOptions() {
    return runOptions(this.state, 'experiment');
  },

  /**
   * The main experiment for the current state (hw.seedExperiment plus the head pairs, as
   * `result.pairs`), computed once per distinct state; `pending` while it computes.
   * @returns {Experiment}
   * @this {Store}
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
      () => this.mainBudget(this.changeCost(), { tokens: s.tokens, dModel: s.dModel }));
    // Stryker disable next-line LogicalOperator: a slot is pending exactly when it has no result
    if (slot.pending || !slot.result) return { result: null, error: null, errorFor: null, lastGood: this._lastGood, pending: true };
    if (slot.result.ok) {
      this._lastGood = slot.result.value;
      return { result: slot.result.value, error: null, errorFor: null, lastGood: slot.result.value };
    }
    const error = infoOf(slot.result);
    if (!slot.result.errorFor) {
      // The main thread's budget belongs to whichever setting was just changed (any of them adds
      // to the cost); the module's errors to the setting whose field they name.
      const changed = this.lastChanged && MAIN_CONTROLS.includes(this.lastChanged) ? this.lastChanged : null;
      slot.result.errorFor = /** @type {any} */ (error).code === 'errors.budget' ? (changed || control('tokens')) : controlFor(error, MAIN_SETTINGS, this.lastChanged);
    }
    return { result: null, error, errorFor: slot.result.errorFor, lastGood: this._lastGood };
  },

  /**
   * Exercise 1 for the current state: the student's seed at EX1_HEAD_COUNTS heads, on the
   * settings' tokens and d_model. It only starts once the main experiment has computed (or was
   * refused for its head count alone): it never starts work the main experiment refuses.
   * @returns {{state: 'missing'|'waiting'|'blocked'|'pending'|'done'|'error', blocks?: any[], error?: any, lastGood?: any[]|null}}
   * @this {Store}
   */
  seeds() {
    const s = this.state;
    if (this.inputErrors[control('ex1Seed')] || SIZE_CONTROLS.some((c) => this.inputErrors[c])) return { state: 'missing' };
    const main = this.experiment();
    const last = this._lastSeeds || null;
    if (main.pending) return { state: 'waiting', lastGood: last };
    // Refused for its seed or head count alone, the main experiment says nothing against the
    // tokens and d_model that exercise 1 reuses; refused for anything else, exercise 1 waits.
    if (!main.result && (!main.error || controlsOf(main.error, MAIN_SETTINGS).some((c) => !MAIN_ONLY_CONTROLS.includes(c)))) {
      return { state: 'blocked', error: main.error || '', lastGood: last };
    }
    const key = RUN_INPUTS.ex1.map((n) => s[n]);
    const n = Number(s.tokens);
    const d = Number(s.dModel);
    const cost = EX1_HEAD_COUNTS.reduce((sum, k) => sum + forwardCost(n, d, k), 0);
    const slot = this.computed('ex1', key, cost, 'seedsRun',
      { ...runOptions(s, 'ex1'), headCounts: EX1_HEAD_COUNTS },
      { key: 'status.what.ex1', params: { tokens: s.tokens, dModel: s.dModel } },
      () => this.mainBudget(this.changeCost(), { tokens: s.tokens, dModel: s.dModel }));
    // Stryker disable next-line LogicalOperator: a slot is pending exactly when it has no result
    if (slot.pending || !slot.result) return { state: 'pending', lastGood: last };
    if (!slot.result.ok) return { state: 'error', error: infoOf(slot.result), lastGood: last };
    this._lastSeeds = slot.result.value;
    return { state: 'done', blocks: slot.result.value };
  },

  /**
   * Exercise 3 for the main experiment's result (the lesson-tasks.js crossCheck summary).
   * @returns {{state: 'none'|'pending'|'done'|'error', value?: any, error?: any, run?: any}}
   * @this {Store}
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
    if (!slot.result.ok) return { state: 'error', error: infoOf(slot.result), run };
    return { state: 'done', value: slot.result.value, run };
  },

  /**
   * Every current error, by control id: page-level input problems and the main experiment's.
   * @returns {Record<string, any>}
   * @this {Store}
   */
  errors() {
    /** @type {Record<string, any>} */
    const out = { ...this.inputErrors };
    const ex = this.experiment();
    if (ex.error && ex.errorFor && !out[ex.errorFor]) out[ex.errorFor] = ex.error;
    return out;
  },
};
