// One training run of the section "Watch heads specialise": the same task, seed and d_model
// trained with 1, 2 and 4 heads side by side, in lockstep, to the task's step budget, by the
// training engine (run.js). At the end each model is evaluated held-out with every head
// switched off in turn, and the student may switch heads off. The session never draws; it fires
// "progress" and "state" events, and the element redraws once per frame.

import { ModelRun, RunSet, isDisposed, snapshotEvery } from './run.js';
import { PageError, errorOf } from '../shared/state/errors.js';
import { perStore } from './module.js';
import { probeTokens } from './timeline.js';

/** The head counts compared, where they divide d_model. */
export const HEAD_COUNTS = [1, 2, 4];

/** @typedef {import('./python.js').TrainSettings} TrainSettings */
/** @typedef {TrainSettings & {title: string, tokenLabels: string[], probe: number[]}} Settings */

/**
 * The section's settings for a task and seed, from the module's task list.
 * @param {any} hw
 * @param {string} taskName
 * @param {number} seed
 * @returns {Settings}
 */
export function resolveSettings(hw, taskName, seed) {
  const tasks = hw.trainingTasks();
  const task = tasks.find((/** @type {any} */ t) => t.name === taskName);
  if (!task) throw new PageError('errors.train.task', { task: taskName, list: tasks.map((/** @type {any} */ t) => t.name) }, 'task');
  const d = task.defaults;
  return {
    task: task.name,
    title: task.title,
    relations: task.relations,
    tokenLabels: task.tokenLabels,
    seed,
    seqLen: d.seqLen,
    vocab: d.vocab,
    dModel: d.dModel,
    learningRate: d.learningRate,
    batchSize: d.batchSize,
    steps: d.steps,
    evalSize: d.evalSize,
    headCounts: HEAD_COUNTS.filter((h) => d.dModel % h === 0),
    probe: probeTokens(d.seqLen, d.vocab),
  };
}

export class TrainSession extends RunSet {
  /** @param {{hw: any, compute?: any}} store  the training module (module.js) */
  constructor(store) {
    super(store, 'hw-train steps');
    /** @type {Settings|null} */
    this.settings = null;
    /** @type {ModelRun[]} one per head count */
    this.models = [];
    /** @type {'idle'|'running'|'paused'|'finishing'|'done'|'error'} */
    this.status = 'idle';
    /** @type {string|null} */
    this.error = null;
    /**
     * pause() was called while a chunk of steps was still computing (in the Worker): the status
     * stays 'running' until that chunk's steps are counted, so that 'paused' is final.
     */
    this.pausing = false;
    /**
     * A single step (stepOnce) is computing: the status is 'running' meanwhile, but Run means
     * "train on", not "pause" (a student clicks Resume as the counter moves, before the status
     * says paused), and then trainOn makes training go on once the step is done.
     */
    this.stepping = false;
    this.trainOn = false;
    /** whether prepare() was called: later configurations create their trainers at once */
    this._prepared = false;
    /** @type {Promise<void>|null} the models' creation (once per configuration) */
    this._ready = null;
  }

  /** The models' step (they train in lockstep). */
  get step() {
    return this.models.length ? this.models[0].step : 0;
  }

  /**
   * Use these settings: disposes the current models; new ones are created by prepare() or on
   * first use.
   * @param {string} taskName
   * @param {number} seed
   */
  configure(taskName, seed) {
    const s = resolveSettings(this.hw, taskName, seed);
    for (const m of this.models) m.dispose();
    try {
      performance.clearMeasures('hw-train steps');
      performance.clearMeasures('hw-train draw');
    } catch {
      // no User Timing
    }
    this.settings = s;
    this.probe = s.probe;
    this.probeKey = s.probe.join(' ');
    this.models = s.headCounts.map((numHeads) => new ModelRun({
      task: s.task, numHeads, dModel: s.dModel, seed: s.seed, seqLen: s.seqLen, vocab: s.vocab,
      learningRate: s.learningRate, batchSize: s.batchSize,
    }));
    this._ready = null;
    this.elapsedMs = 0;
    this.error = null;
    this.pausing = false;
    this.trainOn = false;
    this._setStatus('idle');
    if (this._prepared) this.prepare();
  }

  /**
   * Create the trainers now (the section is in view), so the tables show the untrained heads and
   * bad settings show at once. Until then nothing lives in the page's Worker: the Compute can
   * restart it to abandon a long lesson computation only while it holds no objects.
   */
  prepare() {
    this._prepared = true;
    if (!this.settings) return;
    const models = this.models;
    this._create().then(() => this._emit('progress'), (e) => this._fail(models, e));
  }

  /**
   * Show an error, unless it only says that these models were disposed (new settings came).
   * @param {ModelRun[]} models
   * @param {unknown} e
   */
  _fail(models, e) {
    if (isDisposed(e) || models !== this.models) return;
    this.error = errorOf(e);
    this.pausing = false;
    this._setStatus('error');
  }

  /**
   * Configure unless these are already the settings (so every element can call it).
   * @param {string} taskName
   * @param {number} seed
   */
  ensure(taskName, seed) {
    if (this.settings && this.settings.task === taskName && this.settings.seed === seed) return;
    this.configure(taskName, seed);
  }

  /** Same settings, back to step 0. */
  reset() {
    if (!this.settings) return;
    this.configure(this.settings.task, this.settings.seed);
  }

  /** @returns {boolean} whether the step budget has been reached */
  get finished() {
    return Boolean(this.settings) && this.step >= /** @type {Settings} */ (this.settings).steps;
  }

  /** Train until the budget is reached (or pause() is called). */
  start() {
    if (this.stepping) {
      this.trainOn = true;
      return;
    }
    if (!this.settings || this.status === 'running' || this.status === 'finishing' || this.finished) return;
    this._run(Infinity);
  }

  /** Stop after the chunk of steps now computing (see `pausing`). */
  pause() {
    if (this.status !== 'running' || this.pausing) return;
    this.pausing = true;
    this._emit('state');
  }

  /**
   * One Adam step for every model (paused or idle only).
   * @returns {Promise<void>}
   */
  async stepOnce() {
    if (!this.settings || this.status === 'running' || this.status === 'finishing' || this.finished) return;
    this.stepping = true;
    try {
      await this._run(1);
    } finally {
      this.stepping = false;
    }
    if (this.trainOn) {
      this.trainOn = false;
      this.start();
    }
  }

  /** Free every trainer. */
  dispose() {
    for (const m of this.models) m.dispose();
    this.models = [];
    this.settings = null;
  }

  /**
   * Switch heads of one model off (or on again) and evaluate it held-out.
   * @param {number} modelIndex
   * @param {number[]} off
   */
  async setAblation(modelIndex, off) {
    const model = this.models[modelIndex];
    if (!model || !model.remote || this.status === 'running' || this.status === 'finishing') return;
    try {
      if (await model.ablate(off)) this._emit('progress');
    } catch (e) {
      if (!isDisposed(e)) throw e;
    }
  }

  /** @param {TrainSession['status']} status */
  _setStatus(status) {
    this.status = status;
    this._emit('state');
  }

  /**
   * Create the models' trainers, one after another, each with the probe's attention (once per
   * configuration).
   * @returns {Promise<void>}
   */
  _create() {
    if (!this._ready) {
      const models = this.models;
      this._ready = (async () => {
        for (const m of models) {
          await m.open(this.store);
          await m.snapshot(this.currentProbe());
        }
      })();
    }
    return this._ready;
  }

  /**
   * Train `limit` steps more (or to the budget, or a pause); at the budget, evaluate.
   * @param {number} limit
   */
  async _run(limit) {
    const s = /** @type {Settings} */ (this.settings);
    const models = this.models;
    for (const m of models) m.clearAblation();
    this._setStatus('running');
    try {
      await this._create();
      await this.train(models, {
        to: Math.min(s.steps, this.step + limit),
        every: snapshotEvery(s.steps),
        // Points per curve: about 200 at most, whatever the budget.
        maxChunk: Math.max(1, Math.floor(s.steps / 200)),
        pacedSteps: s.steps,
        live: () => this.status === 'running' && !this.pausing,
      });
      this.pausing = false;
      if (this.finished) {
        this._setStatus('finishing');
        for (const m of models) await m.evaluateHeads();
        this._emit('progress');
        this._setStatus('done');
      } else if (this.status === 'running') {
        this._setStatus('paused');
      }
    } catch (e) {
      this._fail(models, e);
    }
  }
}

/**
 * The one training session of a store, shared by the section and its Python block. Its trainers
 * run in the training module (module.js), not in the store's.
 */
export const sessionFor = perStore((training) => new TrainSession(training));
