// "Heads that work together" in Python: a PyTorch (float64) script that trains the section's two
// models from the same initial weights on the same batches as the page, and what it prints,
// formatted from the page's own final results. The model and its draws are model-script.js's
// (`layers` layers, readout randn(d, V) / sqrt(d)); the held-out batch, then one batch per step,
// are drawn as the task 'induction' draws them (randint(V, (B, n)), then per sequence the
// repeat's length, distance and start).
//
// The numbers are printed as the page shows them, to 2 decimals (Python's f"{x:.2f}"). The page's
// trainer and PyTorch's BLAS sum in different orders; over 600 steps through the phase change the
// two-layer model's last bits drift apart until a held-out prediction or two differ, so its
// numbers may differ from the page's by 0.01 (the one-layer model's come out the same).
//
// The circuits' script (inductionCircuitsCode) trains the two-layer model alone to the timeline's
// step and prints layer 2's circuits there, as the section's charts and table show them: each
// head's copying score and its K-composition with each layer-1 head (3 decimals), and layer 1's
// previous-position scores (2 decimals). Through the drop its last digit may differ likewise.

import { pyCount, pyFixed } from '../shared/python/format.js';
import { modelScript } from './model-script.js';

/** @typedef {import('./induction.js').InductionSettings} InductionSettings */

/**
 * @typedef {object} InductionResult
 * @property {number} layers
 * @property {number} numHeads
 * @property {number} parameters
 * @property {any} evaluation   all heads on
 * @property {any[]} ablations  [layer * numHeads + head]: that head off
 */

/** The task's comment lines before the settings. */
const ABOUT = [
  '# Task "induction": random tokens in which a segment of 3 to N // 4 tokens repeats at a',
  '# distance drawn per sequence; the target is the next token along the repeat (-1 elsewhere).',
];

/** The task's batches, drawn as the trainer draws them (both scripts'). */
const DRAW = [
  '',
  '',
  'def draw_batch(b):  # the trainer\'s draws, in its order: tokens, then each sequence\'s repeat',
  '    x = np.random.randint(V, size=(b, N))',
  '    t = np.full((b, N), -1)',
  '    repeats = []',
  '    one = lambda high: int(np.random.randint(high, size=(1, 1))[0, 0])',
  '    for i in range(b):',
  '        length = 3 + one(N // 4 - 3 + 1)',
  '        distance = length + one(N - 2 * length + 1)',
  '        start = one(N - distance - length + 1)',
  '        x[i, start + distance:start + distance + length] = x[i, start:start + length]',
  '        for j in range(length - 1):',
  '            t[i, start + distance + j] = x[i, start + j + 1]',
  '        repeats.append((start, length, distance))',
  '    return torch.from_numpy(x), torch.from_numpy(t), repeats',
];

/**
 * The script for these settings: the deep model, then one layer of as many heads.
 * @param {InductionSettings} s
 * @returns {string}
 */
export function inductionCode(s) {
  return modelScript(s, {
    about: ABOUT,
    task: [
      ...DRAW,
      '',
      '',
      'def evaluate(p, layers, num_heads, batch, off=()):',
      '    x, t, repeats = batch',
      '    with torch.no_grad():',
      '        logits, w = forward(p, x, layers, num_heads, off)',
      '    right = (logits.argmax(-1) == t)[t >= 0].double().mean().item()',
      '    n = x.shape[1]',
      '    previous = w[:, :, torch.arange(1, n), torch.arange(0, n - 1)].mean(dim=(0, 2))',
      '    # induction: the weight a repeated token gives the position right after its earlier occurrence',
      '    cells = [(i, start + distance + j, start + j + 1) for i, (start, length, distance) in enumerate(repeats) for j in range(length - 1)]',
      '    induction = torch.stack([w[i, :, q, k] for i, q, k in cells]).mean(dim=0)',
      '    return right, previous.reshape(layers, num_heads), induction.reshape(layers, num_heads)',
    ],
    outputs: 'V',
    models: [[s.layers, s.numHeads], [1, s.wideHeads]],
    seedNote: 'both models: the same draws, the same batches',
    report: [
      '    acc, previous, induction = evaluate(p, layers, num_heads, held_out)',
      '    count = sum(v.numel() for v in p.values())',
      '    name = f"{layers} layer{\'s\' if layers > 1 else \'\'} x {num_heads} head{\'s\' if num_heads > 1 else \'\'}"',
      '    print(f"{name}, {count} parameters: held-out repeat accuracy {acc:.2f}")',
      '    for l in range(layers):',
      '        for h in range(num_heads):',
      '            off = evaluate(p, layers, num_heads, held_out, off=((l, h),))[0]',
      '            print(f"  layer {l + 1} head {h}: previous-token {previous[l, h]:.2f}, induction {induction[l, h]:.2f}, repeat accuracy with it off {off:.2f}")',
    ],
  });
}

/**
 * The layer-2 circuits' script: the two-layer model trained to `step` (the timeline's), then each
 * layer-2 head's copying score and K-composition with each layer-1 head, and layer 1's
 * previous-position scores, from its weights.
 * @param {InductionSettings} s
 * @param {number} step
 * @returns {string}
 */
export function inductionCircuitsCode(s, step) {
  return modelScript({ ...s, steps: step }, {
    about: [...ABOUT, `# STEPS is the timeline's step: the circuits are read from the weights after ${step} steps.`],
    task: [
      ...DRAW,
      '',
      '',
      'def circuits(p, l, h, num_heads):  # W_QK = Wq_h Wk_h^T and W_OV = Wv_h Wo_h of layer l\'s head h',
      '    c = slice(h * (D_MODEL // num_heads), (h + 1) * (D_MODEL // num_heads))',
      '    w = {k: p[f"layers.{l}.{k}"].detach().numpy() for k in ("wq", "wk", "wv", "wo")}',
      '    return w["wq"][:, c] @ w["wk"][:, c].T, w["wv"][:, c] @ w["wo"][c]',
      '',
      '',
      'def copying(ov, E, U):  # sum(eig) / sum(|eig|) of E W_OV U, from the d x d W_OV U E (same non-zero eigenvalues)',
      '    lam = np.linalg.eigvals(ov @ U @ E)',
      '    total = np.abs(lam).sum()',
      '    return lam.real.sum() / total if total > 0 else 0.0',
      '',
      '',
      'def previous(qk, P):  # share of positions i >= 1 whose best positional match j <= i is i - 1 (ties lose)',
      '    wins = 0',
      '    for i in range(1, N):',
      '        s = P[i] @ qk @ P[:i + 1].T',
      '        wins += bool(s[i - 1] > np.delete(s, i - 1).max())',
      '    return wins / (N - 1)',
    ],
    outputs: 'V',
    models: [[s.layers, s.numHeads]],
    seedNote: 'the page\'s draws and batches',
    report: [
      '    E, P, U = (p[k].detach().numpy() for k in ("tokenEmbedding", "positionEmbedding", "readout"))',
      '    fro = np.linalg.norm',
      '    last = layers - 1',
      '    print(f"step {STEPS}: layer {last + 1}\'s circuits")',
      '    for h in range(num_heads):',
      '        qk, ov = circuits(p, last, h, num_heads)',
      '        k = [fro(qk @ circuits(p, last - 1, g, num_heads)[1].T) / (fro(qk) * fro(circuits(p, last - 1, g, num_heads)[1])) for g in range(num_heads)]',
      '        print(f"  layer {last + 1} head {h}: copying {copying(ov, E, U):.3f}, K-composition with layer {last} heads " + " ".join(f"{x:.3f}" for x in k))',
      '    print(f"  layer {last} previous-position scores: " + " ".join(f"{previous(circuits(p, last - 1, g, num_heads)[0], P):.2f}" for g in range(num_heads)))',
    ],
  });
}

/**
 * What inductionCircuitsCode prints, from the page's curves at snapshot `k`.
 * @param {import('./induction.js').CircuitCurves} c
 * @param {number} k
 * @returns {string}
 */
export function inductionCircuitsOutput(c, k) {
  const layer = 2;
  const out = [`step ${c.steps[k]}: layer ${layer}'s circuits`];
  c.copying.forEach((ys, h) => {
    out.push(`  layer ${layer} head ${h}: copying ${pyFixed(ys[k], 3)}, K-composition with layer ${layer - 1} heads ${c.k[h].map((g) => pyFixed(g[k], 3)).join(' ')}`);
  });
  out.push(`  layer ${layer - 1} previous-position scores: ${c.previous.map((g) => pyFixed(g[k], 2)).join(' ')}`);
  return out.join('\n');
}

/**
 * What the script prints, from the page's final results (the deep model, then the wide one).
 * @param {InductionResult[]} models
 * @returns {string}
 */
export function inductionOutput(models) {
  const out = [];
  for (const m of models) {
    const e = m.evaluation;
    out.push(`${pyCount(m.layers, 'layer')} x ${pyCount(m.numHeads, 'head')}, ${m.parameters} parameters: held-out repeat accuracy ${pyFixed(e.repeatAccuracy, 2)}`);
    for (let l = 0; l < m.layers; l += 1) {
      for (let h = 0; h < m.numHeads; h += 1) {
        out.push(`  layer ${l + 1} head ${h}: previous-token ${pyFixed(e.previousTokenScore[l][h], 2)}, induction ${pyFixed(e.inductionScore[l][h], 2)}, repeat accuracy with it off ${pyFixed(m.ablations[l * m.numHeads + h].repeatAccuracy, 2)}`);
      }
    }
  }
  return out.join('\n');
}
