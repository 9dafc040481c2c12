// One training run of the section "Watch heads specialise": the same task, seed and d_model
// trained with 1, 2 and 4 heads side by side, in lockstep, to the task's step budget.
//
// The session drives the trainers (through runner.js) and keeps what the page draws: every
// chunk's loss and accuracy, the probe sequence's attention, and at the end each model's
// held-out evaluation with every head switched off in turn. It never draws; it fires "progress"
// (at most once per chunk) and "state" events, and the element redraws once per frame.
//
// Main-thread mode: each slice runs steps until SLICE_BUDGET_MS is spent, then yields to the event
// loop (a message task, not the next animation frame: where painting is slow, as in WebKitGTK
// under a software compositor, frames come a few times a second and frame-paced training took
// minutes), so no task is long, input and painting get their turns, and the page stays
// responsive. Worker mode: the trainers live in the page's
// Worker and chunks are sent back to back; the element draws whatever has arrived once a frame.

import { openTrainer } from './runner.js';
import { trainingModule, trainingModuleNow } from './module.js';
import { messageOf } from '../shared/errors.js';
import { msPerStepAt, sleep, snapshotEvery } from './timeline.js';
import { nextSlice } from '../shared/tasks.js';

/** Training work per slice (one task) on the main thread (ms). */
export const SLICE_BUDGET_MS = 6;
/** The head counts compared, where they divide d_model. */
export const HEAD_COUNTS = [1, 2, 4];
/** A head "follows" a relation when its mean weight on the relation's source is at least this. */
export const FOLLOWS = 0.9;

/** @typedef {import('./python.js').TrainSettings} TrainSettings */
/** @typedef {import('./python.js').Evaluation} Evaluation */
/** @typedef {import('./runner.js').Remote} Remote */
/** @typedef {import('./timeline.js').Pace} Pace */

/**
 * @typedef {object} Model
 * @property {number} numHeads
 * @property {Remote|null} remote
 * @property {number} parameters
 * @property {number[]} steps        x of every recorded point
 * @property {number[]} loss         the batch's loss at that step
 * @property {number[]} accuracy     the batch's accuracy at that step
 * @property {number[][][]|null} attention  probe weights [h][n][n], the latest
 * @property {number} attentionStep  the step `attention` belongs to
 * @property {{step: number, attention: number[][][]}[]} snapshots  the probe's attention at
 *   regular steps (the timeline)
 * @property {Evaluation|null} evaluation    held-out, all heads on (when done)
 * @property {Evaluation[]} ablations         [h]: head h off (when done)
 * @property {Set<number>} off       heads the student switched off
 * @property {Evaluation|null} offEvaluation  held-out with `off` switched off
 * @property {number} [offTicket]    increases with every switch
 */

/**
 * The section's settings for a task and seed, from the module's task list.
 * @param {any} hw
 * @param {string} taskName
 * @param {number} seed
 * @returns {TrainSettings & {title: string, tokenLabels: string[], probe: number[]}}
 */
export function resolveSettings(hw, taskName, seed) {
  const tasks = hw.trainingTasks();
  const task = tasks.find((/** @type {any} */ t) => t.name === taskName);
  if (!task) throw new Error(`"${taskName}" is not a training task (use ${tasks.map((/** @type {any} */ t) => t.name).join(', ')})`);
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

/**
 * A fixed probe sequence whose tokens are all different where the vocabulary allows: position i
 * holds (3 + i·step) mod V for a step coprime to V, so "the first token" and "the previous token"
 * are never the same letter by accident.
 * @param {number} n
 * @param {number} vocab
 * @returns {number[]}
 */
export function probeTokens(n, vocab) {
  /** @param {number} a @param {number} b @returns {number} */
  const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
  const step = [5, 7, 3, 1].find((s) => gcd(s, vocab) === 1) || 1;
  return Array.from({ length: n }, (_, i) => (3 + i * step) % vocab);
}

/**
 * The source position of relation `rule` at position i (-1 where it does not exist or comes
 * after i, which the model cannot see).
 * @param {string} rule "x[i-k]" or "x[k]"
 * @param {number} i
 * @param {number} n
 */
export function sourceOf(rule, i, n) {
  const back = /^x\[i-(\d+)\]$/.exec(rule);
  const src = back ? i - Number(back[1]) : Number((/^x\[(\d+)\]$/.exec(rule) || [])[1] ?? NaN);
  return Number.isInteger(src) && src >= 0 && src <= i && src < n ? src : -1;
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

export class TrainSession extends EventTarget {
  /**
   * @param {{hw: any, compute?: any}} store  the training module (module.js): its main-thread
   *   instance and its Compute
   */
  constructor(store) {
    super();
    this.store = store;
    this.hw = store.hw;
    /** @type {(TrainSettings & {title: string, tokenLabels: string[], probe: number[]})|null} */
    this.settings = null;
    /** @type {Model[]} */
    this.models = [];
    /** @type {'idle'|'running'|'paused'|'finishing'|'done'|'error'} */
    this.status = 'idle';
    /** @type {string|null} */
    this.error = null;
    this.step = 0;
    /** ms of training work per model step (running mean), for sizing chunks */
    this.msPerStep = 0.5;
    /** started at (performance.now()) and time spent training, for the page's "took" line */
    this.elapsedMs = 0;
    this._generation = 0;
    /**
     * pause() was called while a chunk of steps was still computing (in the Worker): the status
     * stays 'running' until that chunk's steps are counted, so that 'paused' is final.
     */
    this.pausing = false;
    /** @type {Promise<void>|null} */
    this._ready = null;
    /** @type {Promise<void>|null} */
    this._loop = null;
    /** whether prepare() was called: later configurations create their trainers at once */
    this._prepared = false;
    /** @type {Pace} how fast a run goes (timeline.js) */
    this.pace = 'fast';
  }

  /** @param {Pace} pace */
  setPace(pace) {
    this.pace = pace;
  }

  /**
   * Use these settings: disposes the current models; new ones are created by prepare() or on
   * first use.
   * @param {string} taskName
   * @param {number} seed
   */
  configure(taskName, seed) {
    const settings = resolveSettings(this.hw, taskName, seed);
    this._generation += 1;
    this._disposeModels();
    try {
      performance.clearMeasures('hw-train steps');
      performance.clearMeasures('hw-train draw');
    } catch {
      // no User Timing
    }
    this.settings = settings;
    this.models = settings.headCounts.map((numHeads) => ({
      numHeads, remote: null, parameters: 0, steps: [], loss: [], accuracy: [], attention: null, attentionStep: -1, snapshots: [],
      evaluation: null, ablations: [], off: new Set(), offEvaluation: null,
    }));
    this.step = 0;
    this.elapsedMs = 0;
    this.error = null;
    this._ready = null;
    this.pausing = false;
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
    const gen = this._generation;
    this._create().then(() => {
      if (gen === this._generation) this._emit('progress');
    }, (e) => this._fail(gen, e));
  }

  /**
   * @param {number} gen
   * @param {unknown} e
   */
  _fail(gen, e) {
    if (gen !== this._generation) return;
    this.error = messageOf(e);
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
    return Boolean(this.settings) && this.step >= /** @type {any} */ (this.settings).steps;
  }

  /** Train until the budget is reached (or pause() is called). */
  start() {
    if (!this.settings || this.status === 'running' || this.status === 'finishing' || this.finished) return;
    this._clearAblations();
    this._setStatus('running');
    this._loop = this._run(this._generation, Infinity);
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
    this._clearAblations();
    this._setStatus('running');
    this._loop = this._run(this._generation, 1);
    await this._loop;
  }

  /** Free every trainer. */
  dispose() {
    this._generation += 1;
    this._disposeModels();
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
    const gen = this._generation;
    model.off = new Set(off);
    // The latest switch wins: an older evaluation that arrives later is dropped.
    const ticket = (model.offTicket = (model.offTicket || 0) + 1);
    const result = off.length || !model.evaluation
      ? await model.remote.call('evaluate', { ablate: [...model.off].sort((a, b) => a - b) })
      : model.evaluation;
    if (gen !== this._generation || ticket !== model.offTicket) return;
    model.offEvaluation = result;
    this._emit('progress');
  }

  /** Every head on again (training changes the model the switches were evaluated on). */
  _clearAblations() {
    for (const m of this.models) {
      m.off = new Set();
      m.offEvaluation = null;
    }
  }

  /** @param {string} type */
  _emit(type) {
    this.dispatchEvent(new Event(type));
  }

  /** @param {TrainSession['status']} status */
  _setStatus(status) {
    this.status = status;
    this._emit('state');
  }

  _disposeModels() {
    for (const m of this.models) {
      const remote = m.remote;
      m.remote = null;
      if (remote) remote.dispose().catch(() => {});
    }
  }

  /** Create the trainers (once per configuration). */
  _create() {
    if (!this._ready) {
      const s = /** @type {NonNullable<TrainSession['settings']>} */ (this.settings);
      const gen = this._generation;
      this._ready = (async () => {
        for (const m of this.models) {
          // Each model is made in a task of its own (on the main thread, making all of them in
          // the click's task would make it a long one).
          await nextSlice();
          if (gen !== this._generation) return;
          const remote = await openTrainer(this.store, {
            task: s.task, numHeads: m.numHeads, dModel: s.dModel, seed: s.seed, seqLen: s.seqLen, vocab: s.vocab,
            learningRate: s.learningRate, batchSize: s.batchSize,
          });
          if (gen !== this._generation) {
            await remote.dispose();
            return;
          }
          m.remote = remote;
          const count = await remote.call('parameterCount');
          m.parameters = count.total;
          await this._probe(m);
        }
      })();
    }
    return this._ready;
  }

  /**
   * The probe's attention now, kept as the model's latest and as a snapshot of its timeline.
   * @param {Model} m
   */
  async _probe(m) {
    const s = /** @type {NonNullable<TrainSession['settings']>} */ (this.settings);
    if (!m.remote) return;
    m.attention = await m.remote.call('attention', { tokens: s.probe });
    m.attentionStep = this.step;
    const last = m.snapshots[m.snapshots.length - 1];
    if (!last || last.step !== this.step) m.snapshots.push({ step: this.step, attention: m.attention });
  }

  /**
   * The training loop: chunks of steps until `limit` steps more, the budget, or a pause.
   * @param {number} gen
   * @param {number} limit
   */
  async _run(gen, limit) {
    const s = /** @type {NonNullable<TrainSession['settings']>} */ (this.settings);
    const live = () => gen === this._generation && this.status === 'running' && !this.pausing;
    try {
      await this._create();
      if (gen !== this._generation) return;
      const worker = this.models.some((m) => m.remote && m.remote.mode === 'worker');
      // On the main thread the first slice gets a task of its own too, not the click's.
      if (!worker) await nextSlice();
      // Points per curve: about 200 at most, whatever the budget.
      const maxChunk = Math.max(1, Math.floor(s.steps / 200));
      const target = Math.min(s.steps, this.step + limit);
      // The timeline's snapshots: every `every` steps (chunks end on them).
      const every = snapshotEvery(s.steps);
      const began = performance.now();
      const firstStep = this.step;
      while (live() && this.step < target) {
        const sliceStart = performance.now();
        // Main thread: as many chunks as fit in this slice's budget. Worker: one bigger chunk.
        do {
          // Chunks of at most maxChunk steps (each call reports its last step only); on the main
          // thread also no more than fit in the slice's budget.
          const fit = Math.floor(SLICE_BUDGET_MS / (this.msPerStep * this.models.length));
          const k = Math.max(1, Math.min(target - this.step, maxChunk, worker ? maxChunk : fit, every - (this.step % every)));
          const t0 = performance.now();
          const results = await Promise.all(this.models.map((m) => /** @type {Remote} */ (m.remote).call('step', k)));
          const spent = performance.now() - t0;
          if (gen !== this._generation) return;
          this.elapsedMs += spent;
          this.msPerStep = 0.8 * this.msPerStep + 0.2 * Math.max(0.005, spent / (k * this.models.length));
          this.step = results[0].step;
          results.forEach((r, i) => {
            const m = this.models[i];
            m.steps.push(r.step);
            m.loss.push(r.loss);
            m.accuracy.push(r.accuracy);
          });
        } while (!worker && live() && this.step < target && this.step % every !== 0
          && performance.now() - sliceStart + this.msPerStep * this.models.length <= SLICE_BUDGET_MS);
        if (this.step % every === 0 || this.step >= target) {
          for (const m of this.models) await this._probe(m);
        }
        // User Timing: this slice's training work (read by `npm run bench`).
        if (!worker) measure('hw-train steps', sliceStart);
        this._emit('progress');
        // At the real-time pace, wait until the run's clock catches up with its steps.
        const ms = msPerStepAt(this.pace, s.steps);
        if (ms > 0) await sleep(began + (this.step - firstStep) * ms - performance.now());
        else if (!worker) await nextSlice();
      }
      if (gen !== this._generation) return;
      this.pausing = false;
      if (this.step >= s.steps) await this._finish(gen, worker);
      else if (this.status === 'running') this._setStatus('paused');
    } catch (e) {
      this._fail(gen, e);
    }
  }

  /**
   * Held-out evaluation of every model, all heads on and each head off in turn.
   * @param {number} gen
   * @param {boolean} worker
   */
  async _finish(gen, worker) {
    this._setStatus('finishing');
    for (const m of this.models) {
      const remote = /** @type {Remote} */ (m.remote);
      m.evaluation = await remote.call('evaluate', {});
      m.ablations = [];
      for (let h = 0; h < m.numHeads; h += 1) {
        m.ablations.push(await remote.call('evaluate', { ablate: [h] }));
        if (!worker) await nextSlice();
        if (gen !== this._generation) return;
      }
      m.off = new Set();
      m.offEvaluation = m.evaluation;
    }
    if (gen !== this._generation) return;
    this._emit('progress');
    this._setStatus('done');
  }
}

/**
 * One object of a kind per store (the page's, or one embed's), made from the training module
 * once it has loaded: a store's training session, its grid.
 * @template T
 * @param {(training: import('./module.js').TrainingModule) => T} make
 * @returns {(store: {hw: any}) => T|null}  null until the store's module and the training
 *   module have loaded
 */
export function perStore(make) {
  /** @type {WeakMap<object, T>} */
  const made = new WeakMap();
  return (store) => {
    const training = trainingModuleNow();
    if (!store.hw || !training) return null;
    let s = made.get(store);
    if (!s) {
      s = make(training);
      made.set(store, s);
    }
    return s;
  };
}

/**
 * The one training session of a store, shared by the section and its Python block. Its trainers
 * run in the training module (module.js), not in the store's.
 */
export const sessionFor = perStore((training) => new TrainSession(training));

/**
 * Until the training module has loaded: the element says so, starts the load, and refreshes when
 * it settles (or shows why it failed).
 * @param {{setStatus: (text: string, isError?: boolean) => void, refresh: () => void, t: (key: string, params?: Record<string, unknown>) => string, say: (message: string) => string}} el
 */
export function awaitTrainingModule(el) {
  el.setStatus(el.t('status.trainLoading'));
  trainingModule().then(() => el.refresh(), (e) => {
    el.setStatus(el.t('status.trainFailed', { reason: el.say(messageOf(e)) }), true);
  });
}
