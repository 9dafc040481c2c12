// The heads-needed experiment's full grid (D = 1 .. 4 relations x every head count, all alive at
// once, as the page keeps them to open any cell) in one WASM module, ten times in a row: once
// the grid's trainers are disposed, malloc's bytes in use are exactly what they were before,
// and the WASM memory does not grow after the first grid. The heap is deterministic, so these
// are exact assertions; tests/bench/train_heads.mjs reports the same figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { gridMemory } from '../bench/train_heads.mjs';
import { createHeadwise } from './helpers.mjs';

const hw = await createHeadwise();

test('ten full grids leave malloc as it was and the WASM memory at its first size', () => {
  // The module's one-time allocations (the relation catalogue, the defaults) are made first.
  const d = hw.headsNeededDefaults();
  hw.createTrainer({ relations: d.gridRelations, numHeads: 1, dModel: d.dModel, seed: 0 }).dispose();
  const m = gridMemory(hw, { grids: 10, steps: 1, everyHead: false });
  assert.equal(m.models, d.gridRelations.length * d.headCounts.length);
  assert.equal(hw.trainerCount(), 0);
  for (const [i, g] of m.grids.entries()) {
    assert.equal(g.usedBytesAfter, m.before.usedBytes, `grid ${i + 1}: malloc back where it was`);
    assert.equal(g.heapBytes, m.grids[0].heapBytes, `grid ${i + 1}: no growth after the first`);
    // While the grid is alive it holds its models: well above the empty module.
    assert.ok(g.peakUsedBytes > m.before.usedBytes + m.models * 100000, `grid ${i + 1} peak`);
  }
  console.log(`full grid: peak ${(m.grids[0].peakUsedBytes / 2 ** 20).toFixed(1)} MiB in use, ` +
    `WASM memory ${(m.grids[0].heapBytes / 2 ** 20).toFixed(1)} MiB`);
});
