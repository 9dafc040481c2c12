// The one training engine under every training section. A ModelRun is one model: its trainer
// (runner.js: in the training module's Worker, or on the main thread), what the page draws of it
// (curves, the probe's attention, the timeline's snapshots, the held-out evaluation with each head
// off in turn, the student's switches) and its disposal. A RunSet trains runs: several side by
// side in lockstep (one chunk of steps each, then the next), sliced on the main thread, at a pace.
//
// A disposed run is a finished generation: every call of it made before the disposal rejects
// with Disposed once it returns, so that results of settings no longer shown are never kept. The
// sections' sessions dispose their runs when their settings change and ignore Disposed.
//
//   const run = new ModelRun({relations, numHeads, dModel, seed, ...});  // createTrainer's options
//   await run.open(store);                         // the trainer, its parameter count
//   set.probe = tokens;                            // a RunSet's snapshots are taken on its probe
//   await set.train([run], {to: 600, every: 12, pacedSteps: 600});
//   await run.evaluateHeads();                     // run.evaluation, run.ablations
//   run.dispose();

import { openTrainer } from './runner.js';
import { nextSlice } from '../shared/compute/slices.js';

/** @typedef {import('./python.js').Evaluation} Evaluation */
/** @typedef {import('./runner.js').Remote} Remote */

/** Training work per slice (one task) on the main thread (ms). */
export const SLICE_BUDGET_MS = 6;
/** The paces a run can go at. "real": about REAL_TIME_MS per run; "fast": as fast as it can. */
export const PACES = /** @type {const} */ (['real', 'fast']);
/** @typedef {typeof PACES[number]} Pace */
/** How long a run at the real-time pace takes (ms): slow enough to watch a head lock on. */
export const REAL_TIME_MS = 15000;
/** Snapshots kept per model and run (and so the timeline's resolution). */
export const SNAPSHOTS = 50;

/**
 * Steps between snapshots for a run of `steps` steps.
 * @param {number} steps
 */
export function snapshotEvery(steps) {
  return Math.max(1, Math.round(steps / SNAPSHOTS));
}

/**
 * ms per step at a pace, for a run of `totalSteps` steps (0: no waiting).
 * @param {Pace} pace
 * @param {number} totalSteps
 */
export function msPerStepAt(pace, totalSteps) {
  return pace === 'real' ? REAL_TIME_MS / Math.max(1, totalSteps) : 0;
}

/**
 * Resolves after `ms` (a timer: the pace's waits are idle time, not work).
 * @param {number} ms
 */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/**
 * A User Timing measure from `start` to now (for `npm run bench` and the browser's profiler).
 * @param {string} name
 * @param {number} start  performance.now() at the start
 */
export function measure(name, start) {
  try {
    performance.measure(name, { start });
  } catch {
    // User Timing Level 3 is missing: nothing to record
  }
}

/** A call of a disposed run: its answer belongs to settings no longer shown. */
export class Disposed extends Error {
  /** @param {string} method */
  constructor(method) {
    super(`the run was disposed before ${method}() returned`);
    this.name = 'Disposed';
  }
}

/** @typedef {import('../../../cpp/api').Tensor} Tensor */

/**
 * @typedef {object} Snapshot
 * @property {number} step
 * @property {number[][][] & {typed: Tensor}} attention   [h][i][j] on the probe it was taken on
 *   (attention()'s result: the tensor [h, n, n] it came as is `attention.typed`)
 * @property {string} [probeKey]        that probe, where the probe can change
 * @property {Record<string, Tensor>} [parameters]  the model's parameters then (parameters()'s
 *   `typed`: to redraw on another probe)
 */

/**
 * The probe a snapshot is taken on: its tokens, a key naming it, and whether the snapshot keeps
 * the parameters to be taken again on another probe (ModelRun.retake).
 * @typedef {{tokens: number[], key?: string, keepParameters?: boolean}} Probe
 */

export class ModelRun {
  /**
   * @param {import('../../../cpp/api').CreateTrainerOptions} options  hw.createTrainer's options
   * @param {any[]} [heads]  each head as evaluate({ablate}) names it (default: 0 to numHeads - 1)
   */
  constructor(options, heads) {
    this.options = options;
    /** @type {number} */
    this.numHeads = options.numHeads;
    this.heads = heads || Array.from({ length: options.numHeads }, (_, h) => h);
    /** @type {Remote|null} */
    this.remote = null;
    this.disposed = false;
    this.parameters = 0;
    this.step = 0;
    /** @type {number[]} x of every recorded point */
    this.steps = [];
    /** @type {number[]} the batch's loss at that step */
    this.loss = [];
    /** @type {number[]} the batch's accuracy at that step */
    this.accuracy = [];
    /** @type {number[][][]|null} the probe's attention [h][n][n], the latest */
    this.attention = null;
    /** the step `attention` belongs to */
    this.attentionStep = -1;
    /** @type {Snapshot[]} the probe's attention at regular steps (the timeline) */
    this.snapshots = [];
    /** @type {Evaluation|null} held-out, all heads on (when trained) */
    this.evaluation = null;
    /** @type {Evaluation[]} [k]: held-out with heads[k] off */
    this.ablations = [];
    /** @type {Set<number>} heads the student switched off */
    this.off = new Set();
    /** @type {Evaluation|null} held-out with `off` switched off */
    this.offEvaluation = null;
    /** increases with every switch: the latest one's evaluation wins */
    this.offTicket = 0;
    /** @type {Promise<void>|null} */
    this._opening = null;
    /** @type {number|undefined} the pool's Worker to train on (undefined: the least-loaded) */
    this.lane = undefined;
  }

  /** @returns {'main'|'worker'|null} where the trainer runs (null: not made yet) */
  get mode() {
    return this.remote ? this.remote.mode : null;
  }

  /**
   * Make the trainer (once), in a task of its own: made in a click's task on the main thread,
   * several models would make it a long one.
   * @param {import('./training-module.js').TrainingModule} store  the training module (training-module.js)
   * @returns {Promise<void>}
   */
  open(store) {
    if (!this._opening) {
      this._opening = (async () => {
        await nextSlice();
        if (this.disposed) throw new Disposed('createTrainer');
        const remote = await openTrainer(store, this.options, this.lane);
        if (this.disposed) {
          await remote.dispose();
          throw new Disposed('createTrainer');
        }
        this.remote = remote;
        this.parameters = (await this.call('parameterCount')).total;
      })();
    }
    return this._opening;
  }

  /**
   * One of the trainer's methods, as a Promise; rejects with Disposed when the run is disposed
   * before it returns.
   * @param {string} method
   * @param {...any} args
   */
  async call(method, ...args) {
    if (this.disposed || !this.remote) throw new Disposed(method);
    const result = await this.remote.call(method, ...args);
    if (this.disposed) throw new Disposed(method);
    return result;
  }

  /**
   * Train k steps and record the last one's loss and accuracy as a point of the curves.
   * @param {number} k
   */
  async train(k) {
    const r = await this.call('step', k);
    this.step = r.step;
    this.steps.push(r.step);
    this.loss.push(r.loss);
    this.accuracy.push(r.accuracy);
    return r;
  }

  /**
   * The attention on a probe now, kept as the latest and as the timeline's snapshot of this step.
   * @param {Probe} probe
   */
  async snapshot(probe) {
    const attention = await this.call('attention', { tokens: probe.tokens });
    /** @type {Snapshot} */
    const snap = { step: this.step, attention };
    if (probe.key !== undefined) snap.probeKey = probe.key;
    if (probe.keepParameters) snap.parameters = (await this.call('parameters')).typed;
    this.attention = attention;
    this.attentionStep = this.step;
    const last = this.snapshots[this.snapshots.length - 1];
    if (!last || last.step !== this.step) this.snapshots.push(snap);
  }

  /**
   * The latest attention on a new probe (the snapshots keep theirs until retake).
   * @param {number[]} tokens
   */
  async look(tokens) {
    this.attention = await this.call('attention', { tokens });
  }

  /**
   * Take the snapshots made on another probe again on this one, from their parameters; the
   * trainer is put back to its latest parameters afterwards. Resolves true when they are all on
   * this probe (false: `current()` turned false meanwhile).
   * @param {Probe & {key: string}} probe
   * @param {() => boolean} current  whether this probe is still the one to show
   * @returns {Promise<boolean>}
   */
  async retake(probe, current) {
    const stale = this.snapshots.filter((sn) => sn.probeKey !== probe.key);
    if (stale.length === 0) return true;
    const last = this.snapshots[this.snapshots.length - 1];
    try {
      for (const snap of stale) {
        if (!current()) return false;
        await this.call('setParameters', copied(snap.parameters));
        snap.attention = await this.call('attention', { tokens: probe.tokens });
        snap.probeKey = probe.key;
      }
    } finally {
      if (!this.disposed) await this.call('setParameters', copied(last.parameters));
    }
    return true;
  }

  /** The held-out evaluation, all heads on and each head off in turn (each in a task of its own). */
  async evaluateHeads() {
    const main = this.mode !== 'worker';
    this.evaluation = await this.call('evaluate', {});
    this.ablations = [];
    for (const head of this.heads) {
      if (main) await nextSlice();
      this.ablations.push(await this.call('evaluate', { ablate: [head] }));
    }
    this.off = new Set();
    this.offEvaluation = this.evaluation;
  }

  /**
   * Switch these heads off (the others on) and evaluate held-out; the latest switch wins.
   * Resolves true when this switch's evaluation is the one kept.
   * @param {number[]} off
   * @returns {Promise<boolean>}
   */
  async ablate(off) {
    this.off = new Set(off);
    const ticket = (this.offTicket += 1);
    const result = off.length || !this.evaluation
      ? await this.call('evaluate', { ablate: [...this.off].sort((a, b) => a - b) })
      : this.evaluation;
    if (ticket !== this.offTicket) return false;
    this.offEvaluation = result;
    return true;
  }

  /** Every head on again (training changes the model the switches were evaluated on). */
  clearAblation() {
    this.off = new Set();
    this.offEvaluation = null;
  }

  /** Free the trainer; calls under way reject with Disposed. */
  dispose() {
    this.disposed = true;
    const remote = this.remote;
    this.remote = null;
    if (remote) remote.dispose().catch(() => {});
  }
}

/**
 * Whether `e` only says that a run was disposed (its work belonged to older settings).
 * @param {unknown} e
 */
export function isDisposed(e) {
  return e instanceof Disposed;
}

/**
 * Runs trained at one pace, with the main thread's slice sized from a running mean of the time
 * a step takes. A section's session extends it and fires "progress" (after every slice) and
 * "state" events; its element redraws once per frame.
 */
export class RunSet extends EventTarget {
  /**
   * @param {import('./training-module.js').TrainingModule} store  the training module (training-module.js)
   * @param {string} measureName  the User Timing measure of a slice's training (`npm run bench`)
   * @param {{keepParameters?: boolean}} [o]  keepParameters: the snapshots keep the parameters,
   *   so that a new probe can be shown at every step of the timeline (retake)
   */
  constructor(store, measureName, { keepParameters = false } = {}) {
    super();
    this.store = store;
    this.hw = store.hw;
    // The pool's Workers start now, so that a run's models do not wait for them.
    store.compute?.warm?.();
    this.measureName = measureName;
    this.keepParameters = keepParameters;
    /** @type {number[]} the probe's tokens: the timeline's snapshots are taken on it */
    this.probe = [];
    /** names the probe (its tokens, space-separated) */
    this.probeKey = '';
    /** @type {Pace} */
    this.pace = 'fast';
    /** ms of training work per step and model (running mean), for sizing main-thread slices */
    this.msPerStep = 0.5;
    /** time spent training (ms), for the page's "took" line */
    this.elapsedMs = 0;
  }

  /** @param {Pace} pace */
  setPace(pace) {
    this.pace = pace;
  }

  /** @param {string} type */
  _emit(type) {
    this.dispatchEvent(new Event(type));
  }

  /** @returns {Probe & {key: string}} the probe snapshots are taken on now */
  currentProbe() {
    return { tokens: this.probe, key: this.probeKey, keepParameters: this.keepParameters };
  }

  /**
   * A new probe: the latest attention of every run that `idle` allows is taken on it again
   * (their snapshots when the timeline shows them, see retake).
   * @param {number[]} tokens
   * @param {Iterable<ModelRun>} runs
   * @param {(run: ModelRun) => boolean} idle  whether a run may be asked now (not training)
   */
  async setProbe(tokens, runs, idle) {
    this.probe = tokens.slice();
    this.probeKey = this.probe.join(' ');
    const key = this.probeKey;
    try {
      for (const r of runs) {
        if (!r.remote || !idle(r)) continue;
        await r.look(this.probe);
        if (key !== this.probeKey) return;
      }
    } catch (e) {
      if (isDisposed(e)) return;
      throw e;
    }
    this._emit('progress');
  }

  /**
   * Take a run's snapshots made on an earlier probe again on the current one (ModelRun.retake).
   * Resolves true when they are all on it (false: the run is not `ready`, or it was disposed or
   * the probe changed meanwhile).
   * @param {ModelRun} run
   * @param {boolean} ready  whether the run may be asked now (trained, not training)
   * @returns {Promise<boolean>}
   */
  async retake(run, ready) {
    const probe = this.currentProbe();
    if (run.snapshots.every((sn) => sn.probeKey === probe.key)) return true;
    if (!run.remote || !ready) return false;
    try {
      if (!(await run.retake(probe, () => probe.key === this.probeKey))) return false;
    } catch (e) {
      if (isDisposed(e)) return false;
      throw e;
    }
    this._emit('progress');
    return true;
  }

  /**
   * Train `runs` together until they reach step `to` (or `live()` turns false), in chunks that
   * end on every `every`-th step, where each run's attention on the probe becomes a snapshot. On the
   * main thread a slice trains as many chunks as fit in SLICE_BUDGET_MS, then yields; from a
   * Worker chunks are sent back to back. At the real-time pace the run waits until its clock,
   * REAL_TIME_MS over `pacedSteps` steps, catches up with its steps. Rejects with Disposed when a
   * run is disposed meanwhile.
   * @param {ModelRun[]} runs  at the same step
   * @param {object} o
   * @param {number} o.to
   * @param {number} o.every
   * @param {number} o.pacedSteps
   * @param {number} [o.maxChunk]  the most steps in one chunk (bounds the points per curve)
   * @param {() => boolean} [o.live]
   * @returns {Promise<void>}
   */
  async train(runs, { to, every, pacedSteps, maxChunk = Infinity, live = () => true }) {
    const worker = runs.some((r) => r.mode === 'worker');
    const step = () => runs[0].step;
    const going = () => live() && !runs.some((r) => r.disposed) && step() < to;
    // On the main thread the first slice gets a task of its own, not the click's.
    if (!worker) await nextSlice();
    const began = performance.now();
    const first = step();
    while (going()) {
      const sliceStart = performance.now();
      do {
        const fit = Math.floor(SLICE_BUDGET_MS / (this.msPerStep * runs.length));
        const k = Math.max(1, Math.min(to - step(), maxChunk, worker ? maxChunk : fit, every - (step() % every)));
        const t0 = performance.now();
        await Promise.all(runs.map((r) => r.train(k)));
        const spent = performance.now() - t0;
        this.elapsedMs += spent;
        this.msPerStep = 0.8 * this.msPerStep + 0.2 * Math.max(0.005, spent / (k * runs.length));
      } while (!worker && going() && step() % every !== 0
        && performance.now() - sliceStart + this.msPerStep * runs.length <= SLICE_BUDGET_MS);
      if (step() % every === 0 || step() >= to) {
        for (const r of runs) await r.snapshot(this.currentProbe());
      }
      if (!worker) measure(this.measureName, sliceStart);
      this._emit('progress');
      const ms = msPerStepAt(this.pace, pacedSteps);
      if (ms > 0) await sleep(began + (step() - first) * ms - performance.now());
      else if (!worker) await nextSlice();
    }
    if (runs.some((r) => r.disposed)) throw new Disposed('step');
  }
}

/**
 * A snapshot's parameters for setParameters: copies of its tensors, whose buffers a Worker's
 * trainer takes over (they are transferred to it), so that the snapshot keeps its own.
 * @param {Record<string, Tensor>|undefined} p
 */
function copied(p) {
  return Object.fromEntries(Object.entries(p || {}).map(([name, t]) => [name, t.copy()]));
}
