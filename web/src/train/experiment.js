// The one experiment controller under every training section. An experiment is declared: its
// settings (from the module's defaults and the section's inputs), its models (ExperimentRuns of
// the training engine, model-run.js), its pace, which models train together, what it measures on a
// model once that model is trained. The controller runs any declaration: the lifecycle
// (configure, ensure, prepare, start, pause, stepOnce, reset, dispose), one status vocabulary,
// staleness by one generation number, the timeline's snapshots on the probe, the timing (the
// "took" line) and the errors. It never draws: it fires "state" when its status changes and
// "progress" when there is something new to draw; the section's element redraws once per frame
// with the shared run view (run-view.js).
//
// Statuses (of the experiment, and of each of its runs):
//   idle ──start/stepOnce──► training ──budget reached──► evaluating ──► done
//                               │  ▲                                    (failed: from any of them)
//                        pause, │  │ start, stepOnce
//              one step done ▼  │
//                             paused
// "paused" is a state, not a flag: training stopped under the budget (pause() landed, or one
// step was asked for), so that the page can say so (`data-status="paused"`). A pause asked for
// while a chunk of steps computes in a Worker lands when that chunk is counted (`pausing`
// meanwhile). Reset and new settings dispose the runs and start a new generation: an answer of an
// older generation is dropped wherever it arrives.
//
//   const TRAIN = {
//     name: 'hw-train',                            // User Timing: 'hw-train steps', 'hw-train draw'
//     settings: (hw, task, seed) => ({...hw.trainingTasks()…, seed}),  // throws on bad inputs
//     same: (s, task, seed) => s.task === task && s.seed === seed,
//     runs: (s) => [1, 2, 4].map((numHeads) => new ExperimentRun({...trainerOptions(s), numHeads})),
//     probe: (s) => probeTokens(s.seqLen, s.vocab),
//   };
//   const exp = new Experiment(store, TRAIN);
//   exp.configure('previous-first', 1);  exp.start();  // … 'done': every run evaluated

import { ModelRun, RunSet, isDisposed, snapshotEvery } from './model-run.js';
import { errorOf } from '../shared/state/errors.js';

/** @typedef {'idle'|'training'|'paused'|'evaluating'|'done'|'failed'} Status */

/** The model settings every experiment takes from the module's defaults, by the same names. */
export const MODEL_SETTINGS = /** @type {const} */ (['seqLen', 'vocab', 'dModel', 'learningRate', 'batchSize', 'steps', 'evalSize']);

/**
 * The model settings of a defaults object (hw.trainingTasks()[k].defaults, hw.headsNeededDefaults(),
 * hw.inductionDefaults()).
 * @param {Record<string, any>} defaults
 * @returns {{seqLen: number, vocab: number, dModel: number, learningRate: number, batchSize: number, steps: number, evalSize: number}}
 */
export function modelSettings(defaults) {
  return /** @type {any} */ (Object.fromEntries(MODEL_SETTINGS.map((k) => [k, defaults[k]])));
}

/**
 * hw.createTrainer's options that every model of an experiment shares (a declaration adds its task
 * or relations, its layers and heads).
 * @param {{seed: number, seqLen: number, vocab: number, dModel: number, learningRate: number, batchSize: number, evalSize: number}} s
 */
export function trainerOptions(s) {
  return {
    seed: s.seed, dModel: s.dModel, seqLen: s.seqLen, vocab: s.vocab, learningRate: s.learningRate, batchSize: s.batchSize, evalSize: s.evalSize,
  };
}

/** A model of an experiment: a ModelRun with a key, a status and its error. */
export class ExperimentRun extends ModelRun {
  /**
   * @param {import('../../../cpp/api').CreateTrainerOptions} options  hw.createTrainer's options
   * @param {{key?: string, heads?: any[]}} [o]  key: names the run in the page (data-model, data-cell);
   *   heads: as ModelRun's
   */
  constructor(options, { key, heads } = {}) {
    super(options, heads);
    this.key = key ?? String(options.numHeads);
    /** @type {Status} */
    this.status = 'idle';
    /** @type {import('../shared/state/errors.js').ErrorInfo|string|null} what stopped it (coded) */
    this.error = null;
    /** @type {Promise<void>|null} the trainer made and its first snapshot taken */
    this._first = null;
  }

  /**
   * Make the trainer and take the untrained model's snapshot on the probe (once).
   * @param {import('./training-module.js').TrainingModule} store
   * @param {import('./model-run.js').Probe} probe
   */
  ready(store, probe) {
    if (!this._first) {
      this._first = (async () => {
        await this.open(store);
        await this.snapshot(probe);
      })();
    }
    return this._first;
  }
}

/**
 * An experiment's declaration. `S` is its settings object; it has at least `steps` (the budget
 * every model trains to) and `seed`.
 * @template {{steps: number, seed: number}} S
 * @typedef {object} Declaration
 * @property {string} name  names the User Timing measures of its training ("<name> steps") and its
 *   drawing ("<name> draw"), which `npm run bench` reads
 * @property {(hw: any, ...args: any[]) => S} settings  the settings for the section's inputs;
 *   throws an Error saying what is wrong (nothing changes then)
 * @property {(settings: S, ...args: any[]) => boolean} same  whether the inputs give these settings
 * @property {(settings: S) => ExperimentRun[]} runs  the models, made anew for each configuration
 * @property {(settings: S) => number[]} probe  the default probe the snapshots are taken on
 * @property {boolean} [keepProbe]  a probe the student typed stays when the settings change (where
 *   it still fits the vocabulary and length)
 * @property {boolean} [keepParameters]  the snapshots keep the parameters, so that the timeline can
 *   be shown on a new probe (RunSet.retake)
 * @property {boolean} [sideBySide]  each group trains on a Worker of its own, as many at once as
 *   the pool has (else one group after another)
 * @property {(settings: S, exp: Experiment<S>) => {pacedSteps: number, maxChunk?: number}} [pace]
 *   the steps the real-time pace spreads over REAL_TIME_MS (default: the budget) and the most
 *   steps per chunk
 * @property {(run: ExperimentRun, settings: S) => void} [measure]  what is measured on a run once it
 *   is trained and evaluated (its held-out evaluation with each head off is taken by the controller)
 */

/**
 * @template {{steps: number, seed: number}} S
 */
export class Experiment extends RunSet {
  /**
   * @param {import('./training-module.js').TrainingModule} store  the training module (training-module.js)
   * @param {Declaration<S>} declaration
   */
  constructor(store, declaration) {
    super(store, `${declaration.name} steps`, { keepParameters: Boolean(declaration.keepParameters) });
    this.declaration = declaration;
    /** the draw measure's name, for the section's FrameDrawer */
    this.drawName = `${declaration.name} draw`;
    /** @type {S|null} */
    this.settings = null;
    /** @type {any[]} the inputs of these settings (configure's arguments, for reset) */
    this.inputs = [];
    /** @type {ExperimentRun[]} every model of this configuration */
    this.runs = [];
    /** @type {Status} */
    this.status = 'idle';
    /** @type {import('../shared/state/errors.js').ErrorInfo|string|null} what stopped the training (coded) */
    this.error = null;
    /** one more with every configuration and disposal: older answers are stale */
    this.generation = 0;
    /** pause() was asked for while a chunk of steps computes: 'paused' once it is counted */
    this.pausing = false;
    /**
     * One step (stepOnce) is computing: the status says 'training' meanwhile, but Run means "train
     * on", not "pause", and trainOn makes training go on once the step is done.
     */
    this.stepping = false;
    this.trainOn = false;
    /** the models and probe whose timelines are being taken again (timelineCurrent) */
    this._retaking = '';
    /** whether prepare() was called: later configurations make their trainers at once */
    this._prepared = false;
    /** performance.now() when the training under way (or the last) was asked for, and when it was done */
    this.startedAt = 0;
    this.finishedAt = 0;
    /** how many groups the training under way trains at once (sideBySide: the pool's Workers) */
    this.lanes = 1;
  }

  /** The models, in their declared order. */
  get models() {
    return this.runs;
  }

  /** The first model's step (the models of a lockstep experiment are all at it). */
  get step() {
    return this.runs.length ? this.runs[0].step : 0;
  }

  /** Whether every model has reached the step budget. */
  get finished() {
    const s = this.settings;
    return Boolean(s) && this.runs.length > 0 && this.runs.every((r) => r.step >= /** @type {S} */ (s).steps);
  }

  /** Training or evaluating: the settings and the models may not be asked anything else now. */
  get busy() {
    return this.status === 'training' || this.status === 'evaluating';
  }

  /** The time from the last start to done (ms; 0 until done): the page's "took" line. */
  get tookMs() {
    return this.finishedAt ? this.finishedAt - this.startedAt : 0;
  }

  /**
   * Whether `generation` is still the current one (nothing was reset or configured since).
   * @param {number} generation
   */
  current(generation) {
    return generation === this.generation;
  }

  /**
   * Use the settings these inputs give: the models of other settings are disposed; new ones are
   * made by prepare() or on the first start. Throws (changing nothing) when the inputs are wrong.
   * @param {...any} args  the declaration's inputs
   */
  configure(...args) {
    const d = this.declaration;
    const s = d.settings(this.hw, ...args);
    this._dispose();
    try {
      performance.clearMeasures(this.measureName);
      performance.clearMeasures(this.drawName);
    } catch {
      // no User Timing
    }
    this.settings = s;
    this.inputs = args;
    if (!d.keepProbe || this.probe.length === 0 || !this.fits(this.probe)) this.probe = d.probe(s);
    this.probeKey = this.probe.join(' ');
    this.runs = d.runs(s);
    this.elapsedMs = 0;
    this.error = null;
    this.pausing = false;
    this.trainOn = false;
    this.startedAt = 0;
    this.finishedAt = 0;
    this._setStatus('idle');
    if (this._prepared) this.prepare();
  }

  /**
   * Whether a probe fits these settings' vocabulary and length.
   * @param {number[]} tokens
   */
  fits(tokens) {
    const s = /** @type {any} */ (this.settings);
    return tokens.length <= s.seqLen && tokens.every((t) => t < s.vocab);
  }

  /**
   * Configure unless these inputs give the settings already (so that every element may call it).
   * @param {...any} args
   */
  ensure(...args) {
    if (this.settings && this.declaration.same(this.settings, ...args)) return;
    this.configure(...args);
  }

  /** The same settings, nothing trained. */
  reset() {
    if (this.settings) this.configure(...this.inputs);
  }

  /** Free every trainer; nothing is configured afterwards. */
  dispose() {
    this._dispose();
    this.runs = [];
    this.settings = null;
  }

  _dispose() {
    this.generation += 1;
    for (const r of this.runs) r.dispose();
  }

  /**
   * Make the trainers now (the section is in view), so that the tables show the untrained heads
   * and bad settings show at once. Until then nothing lives in the training module's Workers.
   */
  prepare() {
    this._prepared = true;
    if (!this.settings) return;
    const gen = this.generation;
    const runs = this.runs;
    (async () => {
      for (const r of runs) await r.ready(this.store, this.currentProbe());
    })().then(() => {
      if (this.current(gen)) this._emit('progress');
    }, (e) => this._fail(gen, e, []));
  }

  /**
   * The groups of models trained together (in lockstep) that a start trains, in order. A section
   * whose models do not all train together says which (the grid: one cell at a time).
   * @param {any} [options]  start's options
   * @returns {ExperimentRun[][]}
   */
  groups(options) {
    void options;
    return [this.runs];
  }

  /**
   * The order groups trained side by side are taken in (the grid: the costliest first).
   * @param {ExperimentRun[][]} groups
   * @param {number} lanes
   * @returns {ExperimentRun[][]}
   */
  queue(groups, lanes) {
    void lanes;
    return groups;
  }

  /**
   * Train to the budget the groups that `options` ask for and are not done (or until pause()).
   * While one step computes, it means "train on after it".
   * @param {any} [options]
   */
  start(options) {
    if (this.stepping) {
      this.trainOn = true;
      return;
    }
    if (!this.canStart(options)) return;
    this._run(this._todo(options), Infinity);
  }

  /**
   * Whether start(options) would train something now.
   * @param {any} [options]
   */
  canStart(options) {
    return Boolean(this.settings) && !this.busy && this.status !== 'failed' && this._todo(options).length > 0;
  }

  /** Stop after the chunk of steps now computing (see `pausing`). */
  pause() {
    if (this.status !== 'training' || this.pausing) return;
    this.pausing = true;
    this._emit('state');
  }

  /**
   * One step of every model of the first group not done (idle or paused only).
   * @returns {Promise<void>}
   */
  async stepOnce() {
    if (!this.canStart()) return;
    this.stepping = true;
    try {
      await this._run(this._todo().slice(0, 1), 1);
    } finally {
      this.stepping = false;
    }
    if (this.trainOn) {
      this.trainOn = false;
      this.start();
    }
  }

  /**
   * Switch these heads of a trained model off (the others on) and evaluate it held-out.
   * @param {ExperimentRun} run
   * @param {number[]} off  as the run's `heads` name them
   */
  async ablate(run, off) {
    if (!run.remote || this.busy || this.status === 'failed') return;
    const gen = this.generation;
    try {
      if ((await run.ablate(off)) && this.current(gen)) this._emit('progress');
    } catch (e) {
      this._fail(gen, e, []);
    }
  }

  /**
   * A new probe: the latest attention of every model not training is taken on it.
   * @param {number[]} tokens
   */
  setProbe(tokens) {
    return super.setProbe(tokens, this.runs, (r) => !['training', 'evaluating'].includes(/** @type {ExperimentRun} */ (r).status));
  }

  /**
   * A trained model's timeline taken again on the current probe (RunSet.retake).
   * @param {ExperimentRun} run
   */
  retake(run) {
    return super.retake(run, run.status === 'done');
  }

  /**
   * Whether these models' timelines are all on the current probe. Where they are not and the
   * models are trained, their snapshots are taken again on it (once per probe; a "progress" event
   * says when they are), so that the section can show the timeline from then on.
   * @param {ExperimentRun[]} runs
   */
  timelineCurrent(runs) {
    const key = this.probeKey;
    if (runs.every((r) => r.snapshots.every((sn) => sn.probeKey === key))) return true;
    const ticket = `${this.generation}|${runs.map((r) => r.key).join()}|${key}`;
    if (runs.every((r) => r.status === 'done') && this._retaking !== ticket) {
      this._retaking = ticket;
      const gen = this.generation;
      (async () => {
        for (const r of runs) await this.retake(r);
      })().then(() => {
        if (this._retaking === ticket) this._retaking = '';
      }, (e) => this._fail(gen, e, []));
    }
    return false;
  }

  /**
   * The groups of `options` with a model not done.
   * @param {any} [options]
   */
  _todo(options) {
    return this.groups(options).filter((g) => g.some((r) => r.status !== 'done'));
  }

  /** @param {Status} status */
  _setStatus(status) {
    this.status = status;
    this._emit('state');
  }

  /**
   * Stop on an error, unless it belongs to an older generation (new settings came).
   * @param {number} gen
   * @param {unknown} e
   * @param {ExperimentRun[]} group  the models it happened in
   */
  _fail(gen, e, group) {
    if (isDisposed(e) || !this.current(gen)) return;
    this.error = errorOf(e);
    for (const r of group) {
      r.status = 'failed';
      r.error = this.error;
    }
    this.pausing = false;
    this._setStatus('failed');
  }

  /**
   * Train the groups, `limit` steps more at most; a group at the budget is evaluated.
   * @param {ExperimentRun[][]} groups
   * @param {number} limit
   */
  async _run(groups, limit) {
    const gen = this.generation;
    const s = /** @type {S} */ (this.settings);
    this.error = null;
    this.startedAt = performance.now();
    this.finishedAt = 0;
    this._setStatus('training');
    let lanes = 1;
    if (this.declaration.sideBySide) {
      const compute = this.store.compute;
      if (compute) await (compute.warm ? compute.warm() : compute.start());
      if (!this.current(gen)) return;
      lanes = compute && compute.mode === 'worker' && 'size' in compute ? Math.min(compute.size, groups.length) : 1;
    }
    this.lanes = lanes;
    const queue = this.queue(groups.slice(), lanes);
    const going = () => this.current(gen) && this.status !== 'failed' && !this.pausing;
    const lane = async (/** @type {unknown} */ _, /** @type {number} */ k) => {
      while (queue.length > 0 && going()) {
        const group = /** @type {ExperimentRun[]} */ (queue.shift());
        try {
          await this._trainGroup(group, s, gen, limit, going, k);
        } catch (e) {
          this._fail(gen, e, group);
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    if (!this.current(gen) || this.status === 'failed') return;
    this.pausing = false;
    if (groups.every((g) => g.every((r) => r.status === 'done'))) {
      this.finishedAt = performance.now();
      this._emit('progress');
      this._setStatus('done');
    } else {
      this._setStatus('paused');
    }
  }

  /**
   * One group: its trainers made, trained in lockstep to the budget (or `limit` steps more, or a
   * pause), then evaluated and measured.
   * @param {ExperimentRun[]} group
   * @param {S} s
   * @param {number} gen
   * @param {number} limit
   * @param {() => boolean} going
   * @param {number} lane
   */
  async _trainGroup(group, s, gen, limit, going, lane) {
    for (const r of group) {
      r.clearAblation();
      r.status = 'training';
      if (this.declaration.sideBySide && !r.remote) r.lane = lane;
    }
    this._follow();
    for (const r of group) await r.ready(this.store, this.currentProbe());
    const pace = this.declaration.pace ? this.declaration.pace(s, this) : { pacedSteps: s.steps };
    await this.train(group, {
      to: Math.min(s.steps, group[0].step + limit),
      every: snapshotEvery(s.steps),
      live: going,
      ...pace,
    });
    if (!this.current(gen)) return;
    if (group[0].step < s.steps) {
      for (const r of group) r.status = 'paused';
      return;
    }
    for (const r of group) r.status = 'evaluating';
    this._follow();
    for (const r of group) {
      await r.evaluateHeads();
      if (this.declaration.measure) this.declaration.measure(r, s);
      r.status = 'done';
    }
    this._emit('progress');
  }

  /** The experiment's status while it trains: 'training' while a model trains, else 'evaluating'. */
  _follow() {
    if (!this.busy) return;
    const next = this.runs.some((r) => r.status === 'training') ? 'training' : 'evaluating';
    if (next !== this.status) this._setStatus(next);
    else this._emit('state');
  }
}
