// The experiment of "Watch heads specialise": the same task, seed and d_model trained with 1, 2
// and 4 heads side by side, in lockstep, to the task's step budget, then each model evaluated
// held-out with every head switched off in turn; the student may then switch heads off. Declared
// here, run by the experiment controller (experiment.js), drawn by <hw-train>.

import { Experiment, ExperimentRun, modelSettings, trainerOptions } from './experiment.js';
import { PageError } from '../shared/state/errors.js';
import { perStore } from './training-module.js';
import { probeTokens } from './timeline.js';

/** The head counts compared, where they divide d_model. */
export const HEAD_COUNTS = [1, 2, 4];

/** @typedef {import('./python.js').TrainSettings} TrainSettings */
/** @typedef {TrainSettings & {title: string, tokenLabels: string[], probe: number[]}} Settings */

/**
 * The section's settings for a task and seed, from the module's task list.
 * @param {import('../../../cpp/api').Headwise} hw
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
    ...modelSettings(d),
    headCounts: HEAD_COUNTS.filter((h) => d.dModel % h === 0),
    probe: probeTokens(d.seqLen, d.vocab),
  };
}

/** @type {import('./experiment.js').Declaration<Settings>} */
export const TRAIN = {
  name: 'hw-train',
  settings: resolveSettings,
  same: (s, taskName, seed) => s.task === taskName && s.seed === seed,
  runs: (s) => s.headCounts.map((numHeads) => new ExperimentRun({ task: s.task, numHeads, ...trainerOptions(s) })),
  probe: (s) => s.probe,
  // Points per curve: about 200 at most, whatever the budget.
  pace: (s) => ({ pacedSteps: s.steps, maxChunk: Math.max(1, Math.floor(s.steps / 200)) }),
};

/** @extends {Experiment<Settings>} */
export class TrainSession extends Experiment {
  /** @param {import('./training-module.js').TrainingModule} store  the training module (training-module.js) */
  constructor(store) {
    super(store, TRAIN);
  }

  /**
   * Switch heads of one model off (or on again) and evaluate it held-out.
   * @param {number} modelIndex
   * @param {number[]} off
   */
  setAblation(modelIndex, off) {
    const model = this.runs[modelIndex];
    return model ? this.ablate(model, off) : Promise.resolve();
  }
}

/**
 * The one training session of a store, shared by the section and its Python block. Its trainers
 * run in the training module (training-module.js), not in the store's.
 */
export const sessionFor = perStore((training) => new TrainSession(training));
