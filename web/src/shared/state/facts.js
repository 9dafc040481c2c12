// The lesson's own numbers (seed 7, 5 tokens, d_model 8, 2 heads, no bias), computed by the
// module so that prose quoting them is verified like everything else.

import { LESSON } from './settings.js';
import { fmt3, fmtInt } from '../ui/format.js';

/** @typedef {import('./store.js').Store} Store */

/**
 * The lesson's run.
 * @param {Store} store
 */
export function lessonRun(store) {
  return store.memo('lesson-run', () => store.hw.seedExperiment(/** @type {import('../../../../cpp/api').SeedExperimentOptions} */ ({ ...LESSON })));
}

/**
 * Formatted facts about the lesson's run, by name.
 * @param {Store} store
 * @returns {Record<string, string>}
 */
export function lessonFacts(store) {
  return store.memo('lesson-facts', () => {
    const run = lessonRun(store);
    const w = run.headWeights;
    const pairs = store.hw.compareHeads({ headWeights: w });
    /** @param {number} numHeads */
    const total = (numHeads) => fmtInt(store.hw.parameterCount({ embedDim: LESSON.dModel, numHeads, bias: false }).total);
    return {
      'h0-t2': fmt3(w[0][0][2]),
      'h0-t3': fmt3(w[0][0][3]),
      'h1-t4': fmt3(w[1][0][4]),
      'h1-t4-pct': `${Math.round(Number(fmt3(w[1][0][4])) * 100)}%`,
      same: pairs[0].allclose ? 'True' : 'False',
      'params-1': total(1),
      'params-2': total(2),
      'd-head': String(run.dHead),
    };
  });
}
