// Exercise 3's computation, shared by the exercise and the Python block: the lesson's run packed
// into PyTorch's layout and pushed through the module's nn.MultiheadAttention forward.

/** @typedef {import('../shared/store.js').Store} Store */

/** @type {WeakMap<object, {packed: any, torch: any}>} */
const cache = new WeakMap();

/**
 * @param {Store} store
 * @param {any} run a seedExperiment result
 * @returns {{packed: any, torch: any}}
 */
export function crossCheck(store, run) {
  const hit = cache.get(run);
  if (hit) return hit;
  const hw = store.hw;
  const weights = run.bias
    ? { wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, bq: run.bq, bk: run.bk, bv: run.bv, bo: run.bo }
    : { wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo };
  const packed = hw.packLessonWeights(weights);
  /** @type {Record<string, any>} */
  const options = {
    embedDim: run.dModel, numHeads: run.numHeads, inProjWeight: packed.inProjWeight, outProjWeight: packed.outProjWeight,
    query: run.x, key: run.x, value: run.x, needWeights: true, averageAttnWeights: false,
  };
  if (run.bias) Object.assign(options, { inProjBias: packed.inProjBias, outProjBias: packed.outProjBias });
  // The causal mask as PyTorch takes it: True where query i may not see key j (j > i).
  if (run.causal) options.attnMask = run.x.map((/** @type {unknown} */ _, /** @type {number} */ i) => run.x.map((/** @type {unknown} */ __, /** @type {number} */ j) => j > i));
  const value = { packed, torch: hw.torchMultiheadAttention(options) };
  cache.set(run, value);
  return value;
}
