// The training section's "Reproduce it in Python": a PyTorch (float64) script that trains the
// same models from the same initial weights on the same batches as the page, and what it prints,
// formatted from the page's own final results. NumPy's legacy RandomState draws everything, in
// the trainer's order: np.random.seed(seed); token embedding randn(V, d); position embedding
// randn(n, d); wq, wk, wv, wo each randn(d, d) / sqrt(d); readout randn(d, R*V) / sqrt(d); the
// held-out set randint(V, size=(evalSize, n)); then one randint(V, size=(batch, n)) per step.
// Every model re-seeds, so the 1-, 2- and 4-head models start from the same weights and see the
// same batches: only the split into heads differs.
//
// Only numbers that the page and PyTorch give identically are printed: accuracies (exact
// fractions of the held-out targets) and attention weights and losses rounded to 3 and 2
// decimals, formatted exactly as Python's f"{x:.3f}" (round half to even on the exact value).

import { relationSource } from '../shared/i18n/relations.js';

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
 * Python's f"{x:.{digits}f}": correctly rounded, ties to even on the exact binary value
 * (JavaScript's toFixed breaks ties away from zero: (0.0625).toFixed(3) is "0.063", Python
 * prints "0.062").
 * @param {number} x
 * @param {number} digits
 */
export function pyFixed(x, digits) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const text = x.toFixed(digits);
  // x = mantissa * 2^exponent exactly; a tie is x * 10^digits = odd / 2.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  if (biased !== 0) mantissa |= 1n << 52n;
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return text;  // an integer: no tie
  const num = mantissa * 10n ** BigInt(digits) * 2n;
  const den = 1n << BigInt(-exponent);
  if (num % den !== 0n) return text;
  const twice = num / den;
  if (twice % 2n === 0n) return text;  // exact at `digits` decimals
  let n = (twice - 1n) / 2n;
  if (n % 2n !== 0n) n += 1n;  // to even
  const s = n.toString().padStart(digits + 1, '0');
  const body = digits ? `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}` : s;
  return x < 0 ? `-${body}` : body;
}

/**
 * @param {number} h
 */
function headsWord(h) {
  return h === 1 ? '1 head' : `${h} heads`;
}

/**
 * A Python string literal for a short, known-safe text (relation names).
 * @param {string} s
 */
function pyStr(s) {
  return JSON.stringify(s);
}

/**
 * The training script for these settings.
 * @param {TrainSettings} s
 * @returns {string}
 */
export function trainingCode(s) {
  const relations = s.relations.map((r) => `    (${pyStr(r.title)}, lambda i: ${ruleSource(r)}),  # ${r.rule}`);
  return [
    'import numpy as np',
    'import torch',
    'import torch.nn.functional as F',
    '',
    `# Task "${s.task}": every position has one target per relation (-1: none).`,
    'RELATIONS = [',
    ...relations,
    ']',
    `SEED, N, V, D_MODEL = ${s.seed}, ${s.seqLen}, ${s.vocab}, ${s.dModel}`,
    `LR, BATCH, STEPS, EVAL_SIZE = ${pyNumber(s.learningRate)}, ${s.batchSize}, ${s.steps}, ${s.evalSize}`,
    'R = len(RELATIONS)',
    '# SOURCE[i, r]: the position relation r reads at position i (-1 where it does not exist or comes after i).',
    'SOURCE = np.array([[src(i) if 0 <= src(i) <= i else -1 for _, src in RELATIONS] for i in range(N)])',
    '',
    '',
    'def targets_of(x):  # tokens (B, N) -> targets (B, N, R)',
    '    return np.where(SOURCE >= 0, x[:, np.maximum(SOURCE, 0)], -1)',
    '',
    '',
    'def init_parameters():  # the trainer\'s draws, in its order',
    '    draw = np.random.randn',
    '    p = {',
    '        "tokenEmbedding": draw(V, D_MODEL),',
    '        "positionEmbedding": draw(N, D_MODEL),',
    '        "wq": draw(D_MODEL, D_MODEL) / np.sqrt(D_MODEL),',
    '        "wk": draw(D_MODEL, D_MODEL) / np.sqrt(D_MODEL),',
    '        "wv": draw(D_MODEL, D_MODEL) / np.sqrt(D_MODEL),',
    '        "wo": draw(D_MODEL, D_MODEL) / np.sqrt(D_MODEL),',
    '        "readout": draw(D_MODEL, R * V) / np.sqrt(D_MODEL),',
    '        "readoutBias": np.zeros(R * V),',
    '    }',
    '    return {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in p.items()}',
    '',
    '',
    'def forward(p, x, num_heads, off=()):  # x: (B, n) tokens; off: heads switched off',
    '    B, n = x.shape',
    '    d_head = D_MODEL // num_heads',
    '    z = p["tokenEmbedding"][x] + p["positionEmbedding"][:n]',
    '    q, k, v = ((z @ p[w]).reshape(B, n, num_heads, d_head).transpose(1, 2) for w in ("wq", "wk", "wv"))',
    '    scores = q @ k.transpose(-1, -2) / np.sqrt(d_head)',
    '    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)',
    '    weights = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)  # (B, h, n, n)',
    '    heads = weights @ v',
    '    keep = torch.tensor([0.0 if h in off else 1.0 for h in range(num_heads)], dtype=torch.float64)',
    '    concat = (heads * keep[:, None, None]).transpose(1, 2).reshape(B, n, D_MODEL)',
    '    r = z + concat @ p["wo"]',
    '    return (r @ p["readout"] + p["readoutBias"]).reshape(B, n, R, V), weights',
    '',
    '',
    'def loss_of(logits, targets):  # mean cross-entropy over the targets that exist',
    '    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-1)',
    '',
    '',
    'def evaluate(p, num_heads, x, targets, off=()):',
    '    with torch.no_grad():',
    '        logits, weights = forward(p, x, num_heads, off)',
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
    '',
    '',
    `for num_heads in (${s.headCounts.join(', ')}${s.headCounts.length === 1 ? ',' : ''}):`,
    '    np.random.seed(SEED)  # every model: the same initial weights and the same batches',
    '    p = init_parameters()',
    '    x_eval = np.random.randint(V, size=(EVAL_SIZE, N))',
    '    x_eval, t_eval = torch.from_numpy(x_eval), torch.from_numpy(targets_of(x_eval))',
    '    adam = torch.optim.Adam(p.values(), lr=LR)',
    '    for step in range(STEPS):',
    '        x = np.random.randint(V, size=(BATCH, N))',
    '        loss = loss_of(forward(p, torch.from_numpy(x), num_heads)[0], torch.from_numpy(targets_of(x)))',
    '        adam.zero_grad()',
    '        loss.backward()',
    '        adam.step()',
    '',
    '    loss, acc, per_relation, focus = evaluate(p, num_heads, x_eval, t_eval)',
    '    count = sum(t.numel() for t in p.values())',
    '    print(f"{num_heads} head{\'s\' if num_heads > 1 else \'\'}, {count} parameters: held-out loss {loss:.2f}, accuracy {acc:.3f}")',
    '    print("  accuracy per relation: " + ", ".join(f"{name} {a:.3f}" for (name, _), a in zip(RELATIONS, per_relation)))',
    '    for h in range(num_heads):',
    '        print(f"  head {h} weight on: " + ", ".join(f"{name} {focus[h][r]:.2f}" for r, (name, _) in enumerate(RELATIONS)))',
    '    for h in range(num_heads):',
    '        per_relation = evaluate(p, num_heads, x_eval, t_eval, off=(h,))[2]',
    '        print(f"  without head {h}: " + ", ".join(f"{name} {a:.3f}" for (name, _), a in zip(RELATIONS, per_relation)))',
  ].join('\n');
}

/**
 * A float as a Python literal (shortest round-trip digits).
 * @param {number} x
 */
function pyNumber(x) {
  const s = String(x);
  return /[.e]/.test(s) ? s : `${s}.0`;
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
    out.push(`${headsWord(m.numHeads)}, ${m.parameters} parameters: held-out loss ${pyFixed(e.loss, 2)}, accuracy ${pyFixed(e.accuracy, 3)}`);
    out.push(`  accuracy per relation: ${perRelation(e.relationAccuracy)}`);
    for (let h = 0; h < m.numHeads; h += 1) {
      out.push(`  head ${h} weight on: ${names.map((name, r) => `${name} ${pyFixed(e.headFocus[h][r], 2)}`).join(', ')}`);
    }
    for (let h = 0; h < m.numHeads; h += 1) out.push(`  without head ${h}: ${perRelation(m.ablations[h].relationAccuracy)}`);
  }
  return out.join('\n');
}
