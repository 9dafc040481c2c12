// The PyTorch (float64) script of a Headwise model, shared by the training sections' "Reproduce it
// in Python": the model of cpp/headwise (token and position embeddings, `layers` causal attention
// layers on a residual stream, each with its own wq, wk, wv, wo, then the readout), drawn from
// NumPy's legacy RandomState in the trainer's order (np.random.seed(seed); token embedding
// randn(V, d); position embedding randn(n, d); each layer's wq, wk, wv, wo randn(d, d) / sqrt(d);
// readout randn(d, outputs) / sqrt(d); then the task's held-out batch and one batch per step),
// trained with torch.optim.Adam. A task (train/python.js: targets from relations; induction-
// python.js: a repeated segment) gives its constants, its batches (`draw_batch(b)` returning the
// tokens and targets first), its `evaluate` and what the script prints; the model is written
// here once, for one layer and for several.

import { pyFloat, pyTuple } from '../shared/python/format.js';

/**
 * @typedef {object} ModelScriptSettings
 * @property {number} seed
 * @property {number} seqLen
 * @property {number} vocab
 * @property {number} dModel
 * @property {number} learningRate
 * @property {number} batchSize
 * @property {number} steps
 * @property {number} evalSize
 */

/**
 * @typedef {object} ModelScriptTask
 * @property {string[]} about     comment lines (and constants) before the settings
 * @property {string[]} task      the task's definitions: draw_batch(b), evaluate(...), …
 * @property {string} outputs     the readout's width, as Python ("V", "R * V")
 * @property {[number, number][]} models  (layers, heads) of each model, trained in this order
 * @property {string} seedNote    the comment on the per-model np.random.seed(SEED)
 * @property {string[]} report    what each model prints once trained (indented 4), with p, layers,
 *   num_heads and held_out defined
 */

/** The model: its parameters in the trainer's order of draws, and its forward. */
const MODEL = [
  'def init_parameters(layers, outputs):  # the trainer\'s draws, in its order',
  '    draw = np.random.randn',
  '    p = {"tokenEmbedding": draw(V, D_MODEL), "positionEmbedding": draw(N, D_MODEL)}',
  '    for l in range(layers):',
  '        pre = "" if layers == 1 else f"layers.{l}."',
  '        for w in ("wq", "wk", "wv", "wo"):',
  '            p[pre + w] = draw(D_MODEL, D_MODEL) / np.sqrt(D_MODEL)',
  '    p["readout"] = draw(D_MODEL, outputs) / np.sqrt(D_MODEL)',
  '    p["readoutBias"] = np.zeros(outputs)',
  '    return {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in p.items()}',
  '',
  '',
  'def forward(p, x, layers, num_heads, off=()):  # x: (B, n) tokens; off: (layer, head) pairs switched off',
  '    B, n = x.shape',
  '    d_head = D_MODEL // num_heads',
  '    z = p["tokenEmbedding"][x] + p["positionEmbedding"][:n]',
  '    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)',
  '    all_weights = []',
  '    for l in range(layers):',
  '        pre = "" if layers == 1 else f"layers.{l}."',
  '        q, k, v = ((z @ p[pre + w]).reshape(B, n, num_heads, d_head).transpose(1, 2) for w in ("wq", "wk", "wv"))',
  '        weights = torch.softmax((q @ k.transpose(-1, -2) / np.sqrt(d_head)).masked_fill(causal, float("-inf")), dim=-1)',
  '        keep = torch.tensor([0.0 if (l, h) in off else 1.0 for h in range(num_heads)], dtype=torch.float64)',
  '        concat = ((weights @ v) * keep[:, None, None]).transpose(1, 2).reshape(B, n, D_MODEL)',
  '        z = z + concat @ p[pre + "wo"]  # each layer adds to the residual stream',
  '        all_weights.append(weights)',
  '    return z @ p["readout"] + p["readoutBias"], torch.cat(all_weights, dim=1)  # weights: (B, layers * h, n, n)',
  '',
  '',
  'def loss_of(logits, targets):  # mean cross-entropy over the targets that exist (-1: none)',
  '    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-1)',
];

/**
 * The script of a task's models.
 * @param {ModelScriptSettings} s
 * @param {ModelScriptTask} t
 * @returns {string}
 */
export function modelScript(s, t) {
  return [
    'import numpy as np',
    'import torch',
    'import torch.nn.functional as F',
    '',
    ...t.about,
    `SEED, N, V, D_MODEL = ${s.seed}, ${s.seqLen}, ${s.vocab}, ${s.dModel}`,
    `LR, BATCH, STEPS, EVAL_SIZE = ${pyFloat(s.learningRate)}, ${s.batchSize}, ${s.steps}, ${s.evalSize}`,
    ...t.task,
    '',
    '',
    ...MODEL,
    '',
    '',
    `for layers, num_heads in ${pyTuple(t.models.map(([l, h]) => `(${l}, ${h})`))}:`,
    `    np.random.seed(SEED)  # ${t.seedNote}`,
    `    p = init_parameters(layers, ${t.outputs})`,
    '    held_out = draw_batch(EVAL_SIZE)',
    '    adam = torch.optim.Adam(p.values(), lr=LR)',
    '    for step in range(STEPS):',
    '        x, t = draw_batch(BATCH)[:2]',
    '        loss = loss_of(forward(p, x, layers, num_heads)[0], t)',
    '        adam.zero_grad()',
    '        loss.backward()',
    '        adam.step()',
    '',
    ...t.report,
  ].join('\n');
}
