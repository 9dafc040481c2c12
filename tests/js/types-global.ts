// Type-level check of cpp/api.d.ts as a classic-script page sees it: createHeadwise is a global
// (the declaration's `export as namespace`). Checked by types.test.mjs; never executed.
/// <reference path="../../cpp/api.d.ts" />

createHeadwise().then((hw: createHeadwise.Headwise): number => {
  const r = hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
  const row: number[] = r.headWeights[0][0];
  return hw.parameterCount({ embedDim: 8, numHeads: 2, bias: false }).total + row.length;
});
