// The WASM heap across 10,010 recomputes in one module (dist/headwise.js in Node): flat when
// nothing is left behind, neither in the heap's size nor in malloc's bytes in use.
import {headwise, log} from './common.mjs';

/** The check into res.heap, printed. */
export async function heapSection(res) {
  const hw = await headwise();
  const args = {seed: 7, tokens: 5, dModel: 8, numHeads: 2};
  for (let i = 0; i < 100; i++) hw.seedExperiment({...args, seed: i});
  hw.seedExperiment({seed: 1, tokens: 128, dModel: 768, numHeads: 12});
  const before = hw.heapStats();
  for (let i = 0; i < 10000; i++) hw.seedExperiment({...args, seed: i}).headWeights;
  for (let i = 0; i < 10; i++) hw.seedExperiment({seed: i, tokens: 128, dModel: 768, numHeads: 12});
  const after = hw.heapStats();
  res.heap = {
    recomputes: 10010,
    before,
    after,
    flat: before.heapBytes === after.heapBytes && before.usedBytes === after.usedBytes
  };
  log(`  WASM heap across ${res.heap.recomputes} recomputes: ${JSON.stringify(before)} -> ${
      JSON.stringify(after)} (${res.heap.flat ? 'flat' : 'GREW'})`);
}
