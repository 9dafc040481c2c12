// Type-level check of cpp/api.d.ts (run by types.test.mjs with tsc --noEmit --strict; never
// executed): every method used as the docs show, and misuse that must not compile.
import createHeadwise = require('../../cpp/api');

type Headwise = createHeadwise.Headwise;

export async function useEveryMethod(): Promise<number> {
  const hw: Headwise = await createHeadwise();
  await createHeadwise({ print: (text: string) => text.length });

  // seedExperiment
  const r = hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
  const w00: number = r.headWeights[0][0][0];
  const x: number[][] = r.x;
  const dHead: number = r.dHead;
  const seed: number = r.seed;
  const biased = hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2, bias: true,
    causal: true });
  const bq: number[] | undefined = biased.bq;

  // multiHeadAttention: nested arrays or typed-array rows
  const m = hw.multiHeadAttention({ x, wq: r.wq, wk: r.wk, wv: r.wv, wo: r.wo, numHeads: 2 });
  const concat: number[][] = m.concat;
  const typed = hw.multiHeadAttention({
    x: x.map((row) => Float64Array.from(row)), wq: r.wq, wk: r.wk, wv: r.wv, wo: r.wo,
    numHeads: 2, bq: new Float64Array(8), bk: [0, 0, 0, 0, 0, 0, 0, 0], bv: bq ?? [], bo: bq ?? [],
    causal: true
  });
  const headOutputs: number[][][] = typed.headOutputs;

  // packLessonWeights + torchMultiheadAttention, with the overloads' narrowing
  const packed = hw.packLessonWeights({ wq: r.wq, wk: r.wk, wv: r.wv, wo: r.wo });
  const inProjBias: number[] | undefined = packed.inProjBias;
  const base = {
    embedDim: 8, numHeads: 2, inProjWeight: packed.inProjWeight,
    outProjWeight: packed.outProjWeight, query: x, key: x, value: x
  };
  const averaged: number[][] = hw.torchMultiheadAttention(base).attnWeights;
  const perHead: number[][][] = hw.torchMultiheadAttention({
    ...base, averageAttnWeights: false
  }).attnWeights;
  const none: null = hw.torchMultiheadAttention({ ...base, needWeights: false }).attnWeights;
  const flag: boolean = Math.random() > 0.5;
  const either: number[][] | number[][][] | null = hw.torchMultiheadAttention({
    ...base, needWeights: flag, averageAttnWeights: flag,
    attnMask: [[false, true], [false, false]], keyPaddingMask: [false, true]
  }).attnWeights;
  const additive = hw.torchMultiheadAttention({
    ...base, attnMask: [[0, -Infinity], [0, 0]], kdim: 8, vdim: 8
  });
  const out: number[][] = additive.attnOutput;
  const kv = hw.torchMultiheadAttention({
    embedDim: 8, numHeads: 2, qProjWeight: r.wq, kProjWeight: [[1, 2, 3, 4, 5]],
    vProjWeight: [[1]], inProjBias: new Array<number>(24).fill(0), outProjWeight: r.wo,
    outProjBias: new Array<number>(8).fill(0), biasK: new Array<number>(8).fill(0),
    biasV: new Array<number>(8).fill(0), kdim: 5, vdim: 7, query: x, key: [[1]], value: [[1]]
  });

  // parameterCount
  const table = hw.parameterCount({ embedDim: 8, numHeads: 2, bias: false });
  const total: number = table.total;
  const names: string[] = table.tensors.map((t) => t.name + t.shape.join('x') + t.numel);
  hw.parameterCount({ embedDim: 8, numHeads: 2, addBiasKv: true, kdim: 5, vdim: 7 });

  // comparisons
  const pairs = hw.compareHeads({ headWeights: r.headWeights, rtol: 1e-5, atol: 1e-8 });
  const js: number = pairs[0].meanJsDivergence + pairs[0].maxAbsDiff + pairs[0].a + pairs[0].b;
  const same: boolean = pairs[0].allclose && hw.allclose({ a: x, b: x, equalNan: true });
  const diff: number = hw.maxAbsDiff({ a: x, b: x });

  // heapStats, limits, version
  const heap: number = hw.heapStats().heapBytes + hw.heapStats().usedBytes;
  const maxTokens: number = hw.limits.maxTokens + hw.limits.maxDModel + hw.limits.maxSeed;
  const version: string = hw.version;

  // ---- misuse that must not compile ----
  // @ts-expect-error numHeads is required
  hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8 });
  // @ts-expect-error seed is a number
  hw.seedExperiment({ seed: '7', tokens: 5, dModel: 8, numHeads: 2 });
  // @ts-expect-error unknown option
  hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2, heads: 2 });
  // @ts-expect-error one options object, not positional arguments
  hw.parameterCount(8, 2);
  // @ts-expect-error matrices are number[][], not flat arrays
  hw.maxAbsDiff({ a: [1, 2], b: [1, 2] });
  // @ts-expect-error keyPaddingMask holds booleans
  hw.torchMultiheadAttention({ ...base, keyPaddingMask: [0, 1] });
  // @ts-expect-error averaged weights are a matrix, not a stack
  const wrong: number[][][] = hw.torchMultiheadAttention(base).attnWeights;
  // @ts-expect-error results are read-only data of the documented shape
  const missing: number = r.attention;
  // @ts-expect-error the API has no delete()
  hw.delete();

  // Training.
  const task: createHeadwise.TrainingTask = hw.trainingTasks()[0];
  const trainer = hw.createTrainer({ task: task.name, numHeads: task.defaults.numHeads,
    dModel: task.defaults.dModel, seed: 0, learningRate: 0.01 });
  const stepped: createHeadwise.StepResult = trainer.step(10);
  const focus: number[][] = trainer.evaluate({ ablate: [0] }).headFocus;
  const bias: number[] = trainer.parameters().readoutBias;
  const grads = trainer.gradients({ tokens: [[0, 1, 2]], targets: [[[-1, 0], [0, 0], [1, 0]]] });
  const heads: number[][][] = trainer.attention({ tokens: [0, 1, 2] });
  const headsTensor: createHeadwise.Tensor = trainer.attention({ tokens: [0, 1, 2] }).typed;
  const focusTensor: createHeadwise.Tensor = trainer.evaluate().typed.headFocus;
  const biasTensor: createHeadwise.Tensor = trainer.parameters().typed.readoutBias;
  const tensorSizes: number = biasTensor.shape.length + headsTensor.shape[0] + focusTensor.rows;
  const cfg: number = trainer.config.dHead + trainer.info().seqLen + trainer.parameterCount().total;
  trainer.setParameters(trainer.parameters());
  const circuits: createHeadwise.ModelCircuits = trainer.circuits();
  const copying: number | number[] = circuits.copying[0][0];
  const kComp: number[][][][] = circuits.composition.k;
  trainer.dispose();
  const lessonHeads = hw.headCircuits({ wq: r.wq, wk: r.wk, wv: r.wv, wo: r.wo, numHeads: 2 });
  const ov0: number[][] = lessonHeads.ov[0];
  // @ts-expect-error headCircuits needs numHeads
  hw.headCircuits({ wq: r.wq, wk: r.wk, wv: r.wv, wo: r.wo });
  // @ts-expect-error createTrainer needs a seed
  hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8 });
  // @ts-expect-error config is read-only
  trainer.config.numHeads = 4;
  // Tasks built from relations.
  const catalogue: createHeadwise.TrainingRelation[] = hw.trainingRelations();
  const grid: createHeadwise.HeadsNeededDefaults = hw.headsNeededDefaults();
  const built = hw.createTrainer({ relations: grid.relations, numHeads: grid.headCounts[3],
    dModel: grid.dModel, seed: 0 });
  const built0: string | null = built.config.task;
  const builtTitle: string = built.config.title + catalogue[0].title;
  built.dispose();
  // @ts-expect-error relations are names, not relation objects
  hw.createTrainer({ relations: catalogue, numHeads: 1, dModel: 4, seed: 0 });

  // errors: a code, the option and the parameters, for programs
  let refused = '';
  try {
    hw.createTrainer({ task: 'previous-and-first', layers: 5, numHeads: 2, dModel: 8, seed: 0 });
  } catch (e) {
    const err = e as createHeadwise.HeadwiseError;
    const field: string | null = err.field;
    const max = err.params.max;
    refused = err.code + (field ?? '') + String(max) + err.message;
  }

  return w00 + dHead + seed + concat.length + headOutputs.length + (inProjBias?.length ?? 0) +
    averaged.length + perHead.length + (none === null ? 0 : 1) + (either ? 1 : 0) + out.length +
    kv.attnOutput.length + total + names.length + js + Number(same) + diff + heap + maxTokens +
    version.length + wrong.length + missing + stepped.loss + focus.length + bias.length +
    grads.loss + heads.length + cfg + task.tokenLabels.length + (built0 ?? '').length +
    builtTitle.length + grid.steps + (typeof copying === 'number' ? copying : copying.length) +
    kComp.length + ov0.length + refused.length;
}

// The text model's circuits, as cpp/api.d.ts documents them.
export function useTextCircuits(model: createHeadwise.TextModel): number {
  const a: createHeadwise.TextAttribution = model.attribute({ text: 'the people of the united',
    position: 4, word: 'states' });
  const byId = model.attribute({ ids: [1, 2, 3], position: 2, word: 35 });
  const heads: number[][] = a.heads;
  const top: createHeadwise.TextPromotedWord = model.promoted({ layer: 1, head: 0, word: 'states',
    k: 5 }).promoted[0];
  const c: number[][] = model.circuits().previousPosition;
  // @ts-expect-error attribute needs a position
  model.attribute({ text: 'the people' });
  // @ts-expect-error a word is a string or an id
  model.promoted({ layer: 0, head: 0, word: true });
  return a.logit + a.direct + a.probability + byId.id + heads.length + top.value + c.length;
}
