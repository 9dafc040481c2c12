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

/**
 * The script for these settings: the deep model, then one layer of as many heads.
 * @param {InductionSettings} s
 * @returns {string}
 */
export function inductionCode(s) {
  return modelScript(s, {
    about: [
      '# Task "induction": random tokens in which a segment of 3 to N // 4 tokens repeats at a',
      '# distance drawn per sequence; the target is the next token along the repeat (-1 elsewhere).',
    ],
    task: [
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
