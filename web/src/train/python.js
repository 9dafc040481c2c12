// The training section's "Reproduce it in Python": a PyTorch (float64) script that trains the
// same models from the same initial weights on the same batches as the page, and what it prints,
// formatted from the page's own final results. The model and its draws are model-script.js's
// (one layer, readout randn(d, R*V) / sqrt(d)); the task's batches are randint(V, size=(b, n)):
// the held-out set first, then one per step.
// Every model re-seeds, so the 1-, 2- and 4-head models start from the same weights and see the
// same batches: only the split into heads differs.
//
// Only numbers that the page and PyTorch give identically are printed: accuracies (exact
// fractions of the held-out targets) and attention weights and losses rounded to 3 and 2
// decimals, formatted exactly as Python's f"{x:.3f}" (round half to even on the exact value).

import { relationSource } from '../shared/i18n/relations.js';
import { pyCount, pyFixed, pyString } from '../shared/python/format.js';
import { modelScript } from './model-script.js';

/**
 * @typedef {object} Relation
 * @property {string} name         "previous" (the catalogue's name)
 * @property {string} title        "previous token" (how the page names it)
 * @property {string} rule         "x[i-1]" or "x[0]"
 * @property {string} [description]
 */

/**
 * @typedef {object} TrainSettings
 * @property {string} task         the task's name
 * @property {Relation[]} relations
 * @property {number} seed
 * @property {number} seqLen
 * @property {number} vocab
 * @property {number} dModel
 * @property {number} learningRate
 * @property {number} batchSize
 * @property {number} steps
 * @property {number} evalSize
 * @property {number[]} headCounts
 */

/**
 * @typedef {object} Evaluation
 * @property {number} loss
 * @property {number} accuracy
 * @property {number[]} relationAccuracy  [r]
 * @property {number[][]} headFocus        [h][r]
 */

/**
 * @typedef {object} ModelResult
 * @property {number} numHeads
 * @property {number} parameters     total parameter count
 * @property {Evaluation} evaluation  all heads on
 * @property {Evaluation[]} ablations  [h]: head h switched off
 */

/**
 * A relation's source position as Python: of target i, or -1 where it is undefined.
 * @param {Relation} r
 * @returns {string}
 */
export function ruleSource(r) {
  const s = relationSource(r);
  return 'back' in s ? `i - ${s.back}` : String(s.at);
}

/**
 * The training script for these settings (one layer; a model per head count).
 * @param {TrainSettings} s
 * @returns {string}
 */
export function trainingCode(s) {
  const relations = s.relations.map((r) => `    (${pyString(r.title)}, lambda i: ${ruleSource(r)}),  # ${r.rule}`);
  return modelScript(s, {
    about: [
      `# Task "${s.task}": every position has one target per relation (-1: none).`,
      'RELATIONS = [',
      ...relations,
      ']',
    ],
    task: [
      'R = len(RELATIONS)',
      '# SOURCE[i, r]: the position relation r reads at position i (-1 where it does not exist or comes after i).',
      'SOURCE = np.array([[src(i) if 0 <= src(i) <= i else -1 for _, src in RELATIONS] for i in range(N)])',
      '',
      '',
      'def draw_batch(b):  # tokens (b, N) and their targets (b, N, R)',
      '    x = np.random.randint(V, size=(b, N))',
      '    return torch.from_numpy(x), torch.from_numpy(np.where(SOURCE >= 0, x[:, np.maximum(SOURCE, 0)], -1))',
      '',
      '',
      'def evaluate(p, num_heads, batch, off=()):',
      '    x, targets = batch',
      '    with torch.no_grad():',
      '        logits, weights = forward(p, x, 1, num_heads, off)',
      '        logits = logits.reshape(*targets.shape, V)  # (B, N, R, V)',
      '        right = (logits.argmax(-1) == targets)[targets >= 0]',
      '        per_relation = [(logits[..., r, :].argmax(-1) == targets[..., r])[targets[..., r] >= 0].double().mean().item() for r in range(R)]',
      '        # focus[h][r]: mean weight head h puts on relation r\'s source, where that source',
      '        # exists and differs from every other relation\'s source at the same position.',
      '        focus = [[0.0] * R for _ in range(num_heads)]',
      '        for r in range(R):',
      '            rows = [i for i in range(N) if SOURCE[i, r] >= 0 and all(SOURCE[i, o] != SOURCE[i, r] for o in range(R) if o != r)]',
      '            for h in range(num_heads):',
      '                focus[h][r] = weights[:, h, rows, SOURCE[rows, r]].mean().item()',
      '    return loss_of(logits, targets).item(), right.double().mean().item(), per_relation, focus',
    ],
    outputs: 'R * V',
    models: s.headCounts.map((h) => /** @type {[number, number]} */ ([1, h])),
    seedNote: 'every model: the same initial weights and the same batches',
    report: [
      '    loss, acc, per_relation, focus = evaluate(p, num_heads, held_out)',
      '    count = sum(v.numel() for v in p.values())',
      '    print(f"{num_heads} head{\'s\' if num_heads > 1 else \'\'}, {count} parameters: held-out loss {loss:.2f}, accuracy {acc:.3f}")',
      '    print("  accuracy per relation: " + ", ".join(f"{name} {a:.3f}" for (name, _), a in zip(RELATIONS, per_relation)))',
      '    for h in range(num_heads):',
      '        print(f"  head {h} weight on: " + ", ".join(f"{name} {focus[h][r]:.2f}" for r, (name, _) in enumerate(RELATIONS)))',
      '    for h in range(num_heads):',
      '        per_relation = evaluate(p, num_heads, held_out, off=((0, h),))[2]',
      '        print(f"  without head {h}: " + ", ".join(f"{name} {a:.3f}" for (name, _), a in zip(RELATIONS, per_relation)))',
    ],
  });
}

/**
 * What the script prints, from the page's final results (one entry per model, in headCounts order).
 * @param {TrainSettings} s
 * @param {ModelResult[]} models
 * @returns {string}
 */
export function trainingOutput(s, models) {
  const out = [];
  const names = s.relations.map((r) => r.title);
  /** @param {number[]} acc */
  const perRelation = (acc) => names.map((name, r) => `${name} ${pyFixed(acc[r], 3)}`).join(', ');
  for (const m of models) {
    const e = m.evaluation;
    out.push(`${pyCount(m.numHeads, 'head')}, ${m.parameters} parameters: held-out loss ${pyFixed(e.loss, 2)}, accuracy ${pyFixed(e.accuracy, 3)}`);
    out.push(`  accuracy per relation: ${perRelation(e.relationAccuracy)}`);
    for (let h = 0; h < m.numHeads; h += 1) {
      out.push(`  head ${h} weight on: ${names.map((name, r) => `${name} ${pyFixed(e.headFocus[h][r], 2)}`).join(', ')}`);
    }
    for (let h = 0; h < m.numHeads; h += 1) out.push(`  without head ${h}: ${perRelation(m.ablations[h].relationAccuracy)}`);
  }
  return out.join('\n');
}
