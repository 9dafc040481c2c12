// The experiment of "Heads that work together": on the task 'induction' (random tokens in which a
// segment repeats; the target is the next token along the repeat), a model of two layers × two
// heads trains beside one layer of four heads at the same d_model, in lockstep (two ModelRuns of
// the training engine, model-run.js). Each keeps its curves, its timeline on the student's probe and,
// when trained, the held-out evaluation (repeat accuracy, every head's previous-token and
// induction scores) with each head off in turn. Declared here (and what is its own: the probe,
// the step where the head formed, the key heads), run by the experiment controller
// (experiment.js), drawn by <hw-induction>. Only comparisons here: every number comes from the
// trainer.

import { Experiment, ExperimentRun, modelSettings, trainerOptions } from './experiment.js';
import { perStore } from './training-module.js';
import { PageError } from '../shared/state/errors.js';
import { SETTING, rangeError } from '../shared/state/settings.js';

/**
 * @typedef {object} InductionSettings
 * @property {number} layers      the deep model's layers (2)
 * @property {number} numHeads    its heads per layer (2)
 * @property {number} wideHeads   the one-layer model's heads (layers × numHeads: the same count)
 * @property {number} dModel
 * @property {number} seqLen
 * @property {number} vocab
 * @property {number} learningRate
 * @property {number} batchSize
 * @property {number} steps
 * @property {number} evalSize
 * @property {number} formedAccuracy  the head has formed: repeat accuracy at least this ...
 * @property {number} formedScore     ... and a last-layer head's induction score at least this
 * @property {string[]} tokenLabels
 * @property {number} seed
 */

/** Consecutive curve points at or above formedAccuracy that count as "formed" (not one lucky batch). */
export const FORMED_POINTS = 3;

/**
 * The copier has formed: a layer-2 head's copying score (its OV circuit) at least this. At the
 * section's defaults (seeds 1 to 3) the untrained heads score -0.05 to 0.3; within the first 60 to
 * 204 steps one passes 0.8 and stays between 0.66 and 0.95 while the repeat accuracy is still near
 * chance; it ends at 0.98 to 1 (cpp/TRAINING.md).
 */
export const COPIER_FORMED = 0.8;

/**
 * The copier has learnt where to look: its K-composition with the previous-token head at least
 * this, and the highest of its K-compositions with layer 1. Untrained (seeds 1 to 3) every pair
 * lies between 0.14 and 0.21; the copier's pair with the previous-token head passes 0.25 at steps
 * 360 to 408 (no pair above 0.255 before), before the loss drops, and ends at 0.28 to 0.30.
 */
export const READS_PREVIOUS = 0.25;

/**
 * The experiment's settings (chosen by `npm run sweep:induction`, cpp/TRAINING.md) and a seed.
 * @param {import('../../../cpp/api').Headwise} hw
 * @param {number} seed
 * @returns {InductionSettings}
 */
export function inductionSettings(hw, seed) {
  if (typeof hw.inductionDefaults !== 'function') {
    throw new PageError('errors.induction.missing');
  }
  const refused = rangeError(SETTING.inductionSeed, seed, hw.limits);
  if (refused) throw refused;
  const d = hw.inductionDefaults();
  return {
    layers: d.layers, numHeads: d.numHeads, wideHeads: d.layers * d.numHeads, ...modelSettings(d),
    formedAccuracy: d.formedAccuracy, formedScore: d.formedScore, tokenLabels: d.tokenLabels, seed,
  };
}

/**
 * The default probe: random-looking tokens in which a segment of three repeats (drawn with a fixed
 * pattern, so that it is the same on every page), 9 long where the settings allow (a head's table
 * fits a phone's width without scrolling).
 * @param {InductionSettings} s
 * @returns {number[]}
 */
export function defaultInductionProbe(s) {
  const n = Math.min(9, s.seqLen);
  const tokens = Array.from({ length: n }, (_, i) => (5 + 11 * i) % s.vocab);
  const len = Math.min(3, Math.floor(n / 3));
  const from = 1;
  for (let j = 0; j < len; j += 1) tokens[n - len + j] = tokens[from + j];
  return tokens;
}

/**
 * Read the student's probe: token labels separated by spaces or commas (letters may also be
 * written together when every label is one letter), 2 to seqLen of them. Throws an Error saying
 * which token or length is wrong and what is allowed.
 * @param {string} text
 * @param {InductionSettings} s
 * @returns {number[]}
 */
export function parseInductionProbe(text, s) {
  const labels = s.tokenLabels;
  const first = labels[0];
  const last = labels[labels.length - 1];
  const single = labels.every((l) => l.length === 1);
  const raw = String(text).trim().toUpperCase();
  const parts = single && !/[\s,]/.test(raw) ? [...raw] : raw.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0) throw new PageError('errors.induction.empty', { max: s.seqLen, first, last });
  const bad = parts.find((p) => !labels.includes(p));
  if (bad !== undefined) throw new PageError('errors.induction.token', { token: bad.slice(0, 12), first, last });
  if (parts.length < 2) throw new PageError('errors.induction.short');
  if (parts.length > s.seqLen) throw new PageError('errors.induction.tooLong', { count: parts.length, max: s.seqLen });
  return parts.map((p) => labels.indexOf(p));
}

/**
 * The probe's repeat, as the tables mark it: for each position i, the position right after the
 * latest earlier occurrence of the token at i (-1: the token has not occurred before).
 * @param {number[]} tokens
 * @returns {number[]}
 */
export function inductionTargets(tokens) {
  return tokens.map((tok, i) => {
    for (let j = i - 1; j >= 0; j -= 1) if (tokens[j] === tok && j + 1 < i) return j + 1;
    return -1;
  });
}

/**
 * The step where the head formed, from the live curve: the first recorded step from which
 * FORMED_POINTS points in a row reach `threshold` (null: not yet).
 * @param {number[]} steps
 * @param {number[]} accuracy
 * @param {number} threshold
 * @returns {number|null}
 */
export function formedStep(steps, accuracy, threshold) {
  let run = 0;
  for (let k = 0; k < accuracy.length; k += 1) {
    run = accuracy[k] >= threshold ? run + 1 : 0;
    if (run === FORMED_POINTS) return steps[k - FORMED_POINTS + 1];
  }
  return null;
}

/**
 * The plateau's loss before the drop: the mean of the loss points recorded up to `step` after the
 * first tenth of the run (the initial fall), or of them all when the head never formed.
 * @param {number[]} steps
 * @param {number[]} loss
 * @param {number|null} step
 * @param {number} total
 */
export function plateauLoss(steps, loss, step, total) {
  const pick = loss.filter((_, k) => steps[k] >= total / 10 && (step === null || steps[k] < step));
  if (pick.length === 0) return null;
  return pick.reduce((a, b) => a + b, 0) / pick.length;
}

/**
 * The head of the last layer with the highest induction score, and of the first layer with the
 * highest previous-token score, from an evaluation (indices layer * numHeads + head).
 * @param {{previousTokenScore: number[][], inductionScore: number[][]}} e
 */
export function keyHeads(e) {
  const layers = e.inductionScore.length;
  const best = (/** @type {number[]} */ row) => row.reduce((b, x, k) => (x > row[b] ? k : b), 0);
  const ind = best(e.inductionScore[layers - 1]);
  const prev = best(e.previousTokenScore[0]);
  const numHeads = e.inductionScore[0].length;
  return {
    previous: { layer: 0, head: prev, index: prev, score: e.previousTokenScore[0][prev] },
    induction: { layer: layers - 1, head: ind, index: (layers - 1) * numHeads + ind, score: e.inductionScore[layers - 1][ind] },
  };
}

/**
 * The index of the largest value (the first on ties); -1 for none.
 * @param {number[]} row
 */
function argmax(row) {
  return row.reduce((b, x, k) => (b < 0 || x > row[b] ? k : b), -1);
}

/**
 * The step where the copier formed, from the circuits' curves: the first snapshot where a
 * layer-2 head's copying score reaches `threshold`, and that head (the highest then).
 * @param {number[]} steps  the snapshots' steps
 * @param {number[][]} copying  [h][k]: layer-2 head h's copying score at steps[k]
 * @param {number} [threshold]
 * @returns {{step: number, head: number, score: number}|null}  null: not yet
 */
export function copierStep(steps, copying, threshold = COPIER_FORMED) {
  for (let k = 0; k < steps.length; k += 1) {
    const head = argmax(copying.map((c) => c[k]));
    if (head >= 0 && copying[head][k] >= threshold) return { step: steps[k], head, score: copying[head][k] };
  }
  return null;
}

/**
 * The step where the copier learnt where to look: the first snapshot where its K-composition
 * with the previous-token head reaches `threshold` and is the highest of its K-compositions with
 * layer 1's heads.
 * @param {number[]} steps
 * @param {number[][]} k  [g][k]: the copier's K-composition with layer-1 head g at steps[k]
 * @param {number} previous  the previous-token head of layer 1
 * @param {number} [threshold]
 * @returns {{step: number, score: number}|null}  null: not yet
 */
export function readsStep(steps, k, previous, threshold = READS_PREVIOUS) {
  for (let i = 0; i < steps.length; i += 1) {
    const row = k.map((c) => c[i]);
    if (row[previous] >= threshold && argmax(row) === previous) return { step: steps[i], score: row[previous] };
  }
  return null;
}

/**
 * Layer 2's circuits over the run: the curves of "Heads that work together", one point per
 * snapshot (trainer.circuits(): copying, composition.k, previousPosition).
 * @typedef {object} CircuitCurves
 * @property {number[]} steps
 * @property {number[][]} copying   [h][k]: layer-2 head h's copying score
 * @property {number[][][]} k       [h][g][k]: its K-composition with layer-1 head g
 * @property {number[][]} previous  [g][k]: layer-1 head g's previous-position score
 */

/**
 * Add one snapshot's circuits to the curves (the last layer reads the one before it).
 * @param {CircuitCurves} curves
 * @param {number} step
 * @param {{copying: any[][], previousPosition: number[][], composition: {k: number[][][][]}}} c
 */
export function addCircuits(curves, step, c) {
  const last = c.copying.length - 1;
  /** @type {(list: any[], i: number) => any[]} */
  const at = (list, i) => list[i] || (list[i] = []);
  curves.steps.push(step);
  c.copying[last].forEach((x, h) => at(curves.copying, h).push(Number(x)));
  c.composition.k[last].forEach((row, h) => row[last - 1].forEach((x, g) => at(at(curves.k, h), g).push(x)));
  c.previousPosition[last - 1].forEach((x, g) => at(curves.previous, g).push(x));
}

/**
 * The circuits' two steps from the curves so far: where the copier formed (copierStep) and where
 * it learnt where to look (readsStep, with the previous-token head `previous`; null: the layer-1
 * head whose previous-position score is the highest at the latest snapshot).
 * @param {CircuitCurves} curves
 * @param {number|null} previous
 * @returns {{copier: ReturnType<typeof copierStep>, reads: ReturnType<typeof readsStep>, previous: number|null}}
 */
export function circuitSteps(curves, previous) {
  const last = curves.steps.length - 1;
  const prev = previous ?? (last < 0 ? null : argmax(curves.previous.map((c) => c[last])));
  const copier = copierStep(curves.steps, curves.copying);
  const reads = copier && prev !== null ? readsStep(curves.steps, curves.k[copier.head], prev) : null;
  return { copier, reads, previous: prev };
}

/** One of the two models. */
export class InductionModel extends ExperimentRun {
  /**
   * @param {'deep'|'wide'} key
   * @param {import('../../../cpp/api').CreateTrainerOptions} options  hw.createTrainer's options
   */
  constructor(key, options) {
    const count = options.layers * options.numHeads;
    super(options, { key, heads: Array.from({ length: count }, (_, k) => k) });
    this.layers = options.layers;
    /** @type {CircuitCurves} with more than one layer: layer 2's circuits at every snapshot */
    this.circuits = { steps: [], copying: [], k: [], previous: [] };
  }

  /**
   * The snapshot on the probe, and (with more than one layer) the model's circuits at its step.
   * @param {import('./model-run.js').Probe} probe
   */
  async snapshot(probe) {
    await super.snapshot(probe);
    const steps = this.circuits.steps;
    if (this.layers < 2 || steps[steps.length - 1] === this.step) return;
    const step = this.step;
    const c = await this.call('circuits');
    addCircuits(this.circuits, step, c);
  }
}

/** @type {import('./experiment.js').Declaration<InductionSettings>} */
export const INDUCTION = {
  name: 'hw-induction',
  settings: inductionSettings,
  same: (s, seed) => s.seed === seed,
  runs: (s) => {
    const common = { task: 'induction', ...trainerOptions(s) };
    return [
      new InductionModel('deep', { ...common, layers: s.layers, numHeads: s.numHeads }),
      new InductionModel('wide', { ...common, layers: 1, numHeads: s.wideHeads }),
    ];
  },
  probe: defaultInductionProbe,
  keepProbe: true,
  keepParameters: true,
};

/** @extends {Experiment<InductionSettings>} */
export class InductionSession extends Experiment {
  /** @param {import('./training-module.js').TrainingModule} store  the training module (training-module.js) */
  constructor(store) {
    super(store, INDUCTION);
  }

  /** @returns {InductionModel[]} */
  get models() {
    return /** @type {InductionModel[]} */ (this.runs);
  }
}

/** The one induction experiment of a store, shared by the section, its Python block and the challenge. */
export const inductionFor = perStore((training) => new InductionSession(training));
