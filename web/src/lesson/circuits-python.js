// "Each head as two matrices" in Python: a NumPy script that draws the lesson's weights as the
// lesson does (np.random.seed; X, then Wq, Wk, Wv, Wo), forms every head's W_QK and W_OV, and
// prints their ranks and whether the heads' W_OV add up to Wv @ Wo; and what it prints, from the
// page's run (hw.headCircuits). The sum is printed as a yes or no within 1e-12, not as the
// difference itself, whose last bits depend on the BLAS.

/**
 * @param {{seed: number, tokens: number, dModel: number, numHeads: number}} run
 * @returns {string}
 */
export function headCircuitsCode(run) {
  return [
    'import numpy as np',
    '',
    `np.random.seed(${run.seed})`,
    `n, d_model, num_heads = ${run.tokens}, ${run.dModel}, ${run.numHeads}`,
    'd_head = d_model // num_heads',
    'X = np.random.randn(n, d_model)  # drawn first, as in the lesson',
    'Wq, Wk, Wv, Wo = (np.random.randn(d_model, d_model) for _ in range(4))',
    '',
    'ov_sum = np.zeros((d_model, d_model))',
    'for h in range(num_heads):',
    '    c = slice(h * d_head, (h + 1) * d_head)',
    '    W_QK = Wq[:, c] @ Wk[:, c].T  # which pairs of tokens head h matches',
    '    W_OV = Wv[:, c] @ Wo[c, :]    # what head h writes once it has looked',
    '    ov_sum += W_OV',
    '    print(f"head {h}: W_QK {W_QK.shape} rank {np.linalg.matrix_rank(W_QK)}, "',
    '          f"W_OV {W_OV.shape} rank {np.linalg.matrix_rank(W_OV)} (d_head {d_head})")',
    'print("sum of the heads\' W_OV == Wv @ Wo (to 1e-12):", np.allclose(ov_sum, Wv @ Wo, rtol=0, atol=1e-12))',
  ].join('\n');
}

/**
 * What the script prints, from hw.headCircuits's result for the run's weights.
 * @param {{dModel: number, numHeads: number}} run
 * @param {{qkRank: number[], ovRank: number[], ovSumError: number}} c
 * @returns {string}
 */
export function headCircuitsOutput(run, c) {
  const d = run.dModel;
  const shape = `(${d}, ${d})`;
  const out = c.qkRank.map((r, h) => `head ${h}: W_QK ${shape} rank ${r}, W_OV ${shape} rank ${c.ovRank[h]} (d_head ${d / run.numHeads})`);
  out.push(`sum of the heads' W_OV == Wv @ Wo (to 1e-12): ${c.ovSumError <= 1e-12 ? 'True' : 'False'}`);
  return out.join('\n');
}
