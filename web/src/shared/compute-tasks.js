// The page's composite computations: a few module calls that belong together, run where the
// module lives (in the Worker, or on the main thread), so that big intermediate results never
// cross to the main thread only to be sent back. compute.run(name, options) finds them beside
// the module's own methods.
//
// installTasks is stringified into the Worker's source (web/src/shared/compute.js), so it must
// stay self-contained: no imports, no references to anything outside its own body.

/**
 * @param {any} hw  a module instance (createHeadwise's result)
 * @returns {Record<string, (options: any) => any>}
 */
export function installTasks(hw) {
  /** @type {{key: string, run: any}|null} the last seedExperiment, reused by crossCheck */
  let last = null;
  /** @param {any} o */
  const experiment = (o) => {
    const key = JSON.stringify([o.seed, o.tokens, o.dModel, o.numHeads, Boolean(o.bias), Boolean(o.causal)]);
    // Reused unless its arrays went to the main thread (a Worker transfers them, detached here).
    if (last && last.key === key && last.run.typed.x.data.length > 0) return last.run;
    const run = hw.seedExperiment({ seed: o.seed, tokens: o.tokens, dModel: o.dModel, numHeads: o.numHeads, bias: o.bias, causal: o.causal });
    last = { key, run };
    return run;
  };
  /** Pairs of heads as the page lists them: every pair up to 16 heads, else heads 0 and 1. */
  const pairsOf = (/** @type {any} */ w) => {
    if (w.depth < 2) return [];
    if (w.depth <= 16) return hw.compareHeads({ headWeights: w });
    const size = w.rows * w.cols;
    const a = { data: w.data.subarray(0, size), rows: w.rows, cols: w.cols };
    const b = { data: w.data.subarray(size, 2 * size), rows: w.rows, cols: w.cols };
    return [{ a: 0, b: 1, allclose: hw.allclose({ a, b }), maxAbsDiff: hw.maxAbsDiff({ a, b }), meanJsDivergence: NaN }];
  };
  const transpose = (/** @type {any} */ m) => {
    const out = new Float64Array(m.data.length);
    for (let i = 0; i < m.rows; i += 1) {
      for (let j = 0; j < m.cols; j += 1) out[j * m.rows + i] = m.data[i * m.cols + j];
    }
    return { data: out, rows: m.cols, cols: m.rows };
  };
  return {
    /**
     * The main experiment and its head comparison: seedExperiment's result plus `pairs`.
     * @param {{seed: number, tokens: number, dModel: number, numHeads: number, bias?: boolean, causal?: boolean}} o
     */
    lessonRun(o) {
      const run = experiment(o);
      const pairs = pairsOf(run.typed.headWeights);
      const out = Object.create(Object.getPrototypeOf(run));
      Object.defineProperties(out, Object.getOwnPropertyDescriptors(run));
      out.pairs = pairs;
      return out;
    },
    /**
     * Exercise 1: one seed at several head counts. Each block: {numHeads, dHead, tokens, pairs,
     * weights (only up to 16 tokens)} or {numHeads, error}.
     * @param {{seed: number, tokens: number, dModel: number, headCounts: number[], bias?: boolean, causal?: boolean}} o
     */
    seedsRun(o) {
      return o.headCounts.map((numHeads) => {
        let run;
        try {
          run = hw.seedExperiment({ seed: o.seed, tokens: o.tokens, dModel: o.dModel, numHeads, bias: o.bias, causal: o.causal });
        } catch (e) {
          return { numHeads, error: e instanceof Error ? e.message : String(e) };
        }
        return {
          numHeads, dHead: run.dHead, tokens: run.tokens,
          pairs: pairsOf(run.typed.headWeights),
          weights: run.tokens <= 16 ? run.headWeights : null,
        };
      });
    },
    /**
     * Exercise 3: the main experiment's weights packed in PyTorch's layout and pushed through
     * nn.MultiheadAttention's forward, with every comparison the page shows.
     * @param {{seed: number, tokens: number, dModel: number, numHeads: number, bias?: boolean, causal?: boolean}} o
     */
    crossCheck(o) {
      const run = experiment(o);
      const t = run.typed;
      const d = run.dModel;
      const n = run.tokens;
      const weights = run.bias
        ? { wq: t.wq, wk: t.wk, wv: t.wv, wo: t.wo, bq: t.bq.data, bk: t.bk.data, bv: t.bv.data, bo: t.bo.data }
        : { wq: t.wq, wk: t.wk, wv: t.wv, wo: t.wo };
      const packed = hw.packLessonWeights(weights);
      const p = packed.typed;
      /** @type {Record<string, any>} */
      const options = {
        embedDim: d, numHeads: run.numHeads, inProjWeight: p.inProjWeight, outProjWeight: p.outProjWeight,
        query: t.x, key: t.x, value: t.x, needWeights: true, averageAttnWeights: false,
      };
      if (run.bias) Object.assign(options, { inProjBias: p.inProjBias.data, outProjBias: p.outProjBias.data });
      if (run.causal) {
        const mask = new Float64Array(n * n);
        for (let i = 0; i < n; i += 1) for (let j = i + 1; j < n; j += 1) mask[i * n + j] = -Infinity;
        options.attnMask = { data: mask, rows: n, cols: n };
      }
      const torch = hw.torchMultiheadAttention(options);
      const tt = torch.typed;
      const band = (/** @type {number} */ b) => ({ data: p.inProjWeight.data.subarray(b * d * d, (b + 1) * d * d), rows: d, cols: d });
      const aw = tt.attnWeights;
      const size = aw.rows * aw.cols;
      let weightDiff = 0;
      let weightsClose = true;
      for (let head = 0; head < aw.depth; head += 1) {
        const a = { data: aw.data.subarray(head * size, (head + 1) * size), rows: aw.rows, cols: aw.cols };
        const b = { data: t.headWeights.data.subarray(head * size, (head + 1) * size), rows: aw.rows, cols: aw.cols };
        weightDiff = Math.max(weightDiff, hw.maxAbsDiff({ a, b }));
        weightsClose = weightsClose && hw.allclose({ a, b });
      }
      return {
        packed, torch,
        bandDiffs: [t.wq, t.wk, t.wv].map((w, b) => hw.maxAbsDiff({ a: band(b), b: transpose(w) })),
        woDiff: hw.maxAbsDiff({ a: p.outProjWeight, b: transpose(t.wo) }),
        outputDiff: hw.maxAbsDiff({ a: t.output, b: tt.attnOutput }),
        outputClose: hw.allclose({ a: tt.attnOutput, b: t.output }),
        weightDiff,
        weightsClose,
        torchPairs: aw.depth >= 2 && aw.depth <= 16 ? hw.compareHeads({ headWeights: aw }) : null,
      };
    },
  };
}
