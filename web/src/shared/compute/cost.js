// The cost model: what a computation is estimated to take, and the most the page lets one block
// its main thread when no Worker can start.

/** The most a computation may block the main thread when no Worker can start (ms). */
export const MAIN_BUDGET_MS = 100;

/**
 * Estimated milliseconds of one seedExperiment at (tokens, dModel, numHeads) in WebAssembly on
 * a laptop-class core (the projections, the scores and the per-head products; measured by
 * `npm run bench` at about 13 GFLOP/s for the kernel, plus the draws and copies).
 * @param {number} tokens
 * @param {number} dModel
 * @param {number} numHeads
 */
export function forwardCost(tokens, dModel, numHeads) {
  const flops = 8 * tokens * dModel * dModel + 4 * tokens * tokens * dModel + 6 * numHeads * tokens * tokens;
  const values = 4 * dModel * dModel + 8 * tokens * dModel + 2 * numHeads * tokens * tokens;
  return flops / 13e6 + values / 2e5;
}
