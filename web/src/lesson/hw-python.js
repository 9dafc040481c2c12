// <hw-python>: copyable Python for the current settings that prints the numbers this page
// shows: the NumPy pipeline, PyTorch's parameter counts, and exercise 3's cross-check.
// The expected output under each block is formatted from the module's results.

import { HwElement, define } from '../shared/ui/element.js';
import { h, replace, code } from '../shared/ui/dom.js';
import { codeBlock } from '../shared/python/code-block.js';
import { numpyArrayStr, fmtSig, pyRepr, shapeStr } from '../shared/ui/format.js';
import { HEAD_COUNTS } from './hw-param-table.js';
import { messageOf } from '../shared/state/errors.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/** Pairwise lines are printed up to this many heads, as on the page. */
const PAIRS_MAX_HEADS = 16;

/**
 * Exercise 3's cross-check prints whether max |difference| / max |output| is below this, not the
 * difference itself: the difference's last bits depend on the BLAS (the same script gives 0.0 with
 * one and 7.1e-15 with another), so no page can print it for every machine. The ratio stays far
 * from the bound: at most 6e-14 for NumPy 1.24 + PyTorch 1.13 on reference BLAS and OpenBLAS, and
 * for the page's own two paths, over d_model 8 to 222 and up to 1024 tokens.
 */
const RESIDUAL_BOUND = '1e-12';

/**
 * The NumPy script (without its prints when `printing` is false).
 * @param {any} run
 * @param {number} query
 * @param {boolean} printing
 */
export function numpyCode(run, query, printing) {
  const bias = run.bias;
  const causal = run.causal;
  const lines = [
    'import numpy as np',
    '',
    'np.set_printoptions(suppress=True)  # plain decimals, as on the page',
    '',
    '',
    'def softmax(x, axis=-1):',
    '    e = np.exp(x - np.max(x, axis=axis, keepdims=True))',
    '    return e / e.sum(axis=axis, keepdims=True)',
    '',
    '',
    'def attention(Q, K, V, mask=None):',
    '    scores = Q @ K.T / np.sqrt(Q.shape[-1])',
    '    if mask is not None:',
    '        scores = np.where(mask, -np.inf, scores)  # masked keys get weight 0',
    '    weights = softmax(scores, axis=-1)',
    '    return weights @ V, weights',
    '',
    '',
    'def split_heads(M, num_heads, d_head):',
    '    return M.reshape(M.shape[0], num_heads, d_head).transpose(1, 0, 2)',
    '',
    '',
    `np.random.seed(${run.seed})`,
    `n, d_model, num_heads = ${run.tokens}, ${run.dModel}, ${run.numHeads}`,
    'd_head = d_model // num_heads',
    'X = np.random.randn(n, d_model)',
    'Wq, Wk, Wv, Wo = [np.random.randn(d_model, d_model) for _ in range(4)]',
  ];
  if (bias) {
    lines.push('bq, bk, bv, bo = [np.random.randn(d_model) for _ in range(4)]');
    lines.push('Q, K, V = X @ Wq + bq, X @ Wk + bk, X @ Wv + bv');
  } else {
    lines.push('Q, K, V = X @ Wq, X @ Wk, X @ Wv');
  }
  lines.push(causal
    ? 'mask = np.triu(np.ones((n, n), dtype=bool), k=1)  # causal: True where a key may not be seen'
    : 'mask = None  # no mask');
  lines.push(
    '',
    'Qh, Kh, Vh = (split_heads(m, num_heads, d_head) for m in (Q, K, V))',
    'outs, weights = zip(*(attention(Qh[h], Kh[h], Vh[h], mask) for h in range(num_heads)))',
    `mha_out = np.concatenate(outs, axis=-1) @ Wo${bias ? ' + bo' : ''}`,
  );
  if (!printing) return lines.join('\n');
  lines.push(
    '',
    `query = ${query}`,
    'for h in range(num_heads):',
    '    print(f"head {h} weights, token {query}:", np.round(weights[h][query], 3))',
  );
  if (run.numHeads >= 2) {
    lines.push('print("same pattern?", np.allclose(weights[0], weights[1]))');
  }
  if (run.numHeads >= 2 && run.numHeads <= PAIRS_MAX_HEADS) {
    lines.push(
      '',
      '',
      'def js_divergence(p, q):',
      '    """Jensen-Shannon divergence in nats (0 = identical, ln 2 = no overlap)."""',
      '    def kl_to_mean(a):  # KL(a || (p + q) / 2), safe for the tiniest weights',
      '        nz = a > 0',
      '        return np.sum(a[nz] * (np.log(2 * a[nz]) - np.log(p[nz] + q[nz])))',
      '    return (kl_to_mean(p) + kl_to_mean(q)) / 2',
      '',
      '',
      'for a in range(num_heads):',
      '    for b in range(a + 1, num_heads):',
      '        same = np.allclose(weights[a], weights[b])',
      '        div = np.mean([js_divergence(weights[a][i], weights[b][i]) for i in range(n)])',
      '        print(f"heads {a} and {b}: {\'same\' if same else \'different\'}, divergence {div:.3g}")',
    );
  }
  return lines.join('\n');
}

/**
 * What the NumPy script prints, from the module's results. NumPy's weights differ from the
 * module's in the last bits only (by BLAS), and they are printed rounded (np.round(w, 3), the
 * divergences at 3 significant digits), so a line can only change where a value lies within about
 * 1e-15 of a rounding boundary. Softmax weights are never negative, so "-0." cannot appear.
 * @param {Store} store
 * @param {any} run
 * @param {number} query
 */
export function numpyOutput(store, run, query) {
  const out = [];
  for (let head = 0; head < run.numHeads; head += 1) {
    out.push(`head ${head} weights, token ${query}: ${numpyArrayStr(Array.from(run.typed.headWeights.head(head).row(query)))}`);
  }
  if (run.numHeads >= 2 && run.numHeads <= PAIRS_MAX_HEADS) {
    const pairs = run.pairs;
    out.push(`same pattern? ${pairs[0].allclose ? 'True' : 'False'}`);
    for (const p of pairs) out.push(`heads ${p.a} and ${p.b}: ${p.allclose ? 'same' : 'different'}, divergence ${Number.isFinite(p.meanJsDivergence) ? fmtSig(p.meanJsDivergence) : '(not computed here)'}`);
  } else if (run.numHeads >= 2) {
    out.push(`same pattern? ${run.pairs[0].allclose ? 'True' : 'False'}`);
  }
  return out.join('\n');
}

/**
 * @param {number} dModel
 * @param {boolean} bias
 */
export function paramsCode(dModel, bias) {
  return [
    'import torch.nn as nn',
    '',
    `d_model = ${dModel}`,
    `for num_heads in (${HEAD_COUNTS.join(', ')}):`,
    '    try:',
    `        mha = nn.MultiheadAttention(d_model, num_heads=num_heads, bias=${bias ? 'True' : 'False'}, batch_first=True)`,
    '    except AssertionError as e:',
    '        print(f"num_heads={num_heads}: refused:", e)',
    '        continue',
    '    for name, p in mha.named_parameters():',
    '        print(f"  {name:16} {tuple(p.shape)} {p.numel()}")',
    '    print(f"num_heads={num_heads}: total", sum(p.numel() for p in mha.parameters()))',
  ].join('\n');
}

/**
 * @param {Store} store
 * @param {number} dModel
 * @param {boolean} bias
 */
function paramsOutput(store, dModel, bias) {
  const out = [];
  for (const numHeads of HEAD_COUNTS) {
    let c;
    try {
      c = store.memo(`pc|${dModel}|${numHeads}|${bias}`, () => store.hw.parameterCount({ embedDim: dModel, numHeads, bias }));
    } catch (e) {
      // PyTorch's own wording for the one refusal this loop can meet.
      out.push(/** @type {any} */ (e).code === 'divisible' ? `num_heads=${numHeads}: refused: embed_dim must be divisible by num_heads` : `num_heads=${numHeads}: ${messageOf(e)}`);
      continue;
    }
    for (const t of c.tensors) out.push(`  ${t.name.padEnd(16)} ${shapeStr(t.shape)} ${t.numel}`);
    out.push(`num_heads=${numHeads}: total ${c.total}`);
  }
  return out.join('\n');
}

/** @param {any} run */
function torchCode(run) {
  return `${numpyCode(run, 0, false)}\n\n${torchTail(run)}`;
}

/**
 * Exercise 3's PyTorch part. It runs after the NumPy script (numpyCode), which defines X, the
 * weights, mask, weights and mha_out.
 * @param {any} run
 */
export function torchTail(run) {
  const lines = [
    '# Exercise 3: the same weights in PyTorch\'s layout.',
    'import torch',
    'import torch.nn as nn',
    '',
    `mha = nn.MultiheadAttention(d_model, num_heads, bias=${run.bias ? 'True' : 'False'}, batch_first=True, dtype=torch.float64)`,
    'with torch.no_grad():',
    '    # PyTorch computes x @ W.T, so it stores each of the lesson\'s matrices transposed.',
    '    mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([Wq.T, Wk.T, Wv.T])))',
    '    mha.out_proj.weight.copy_(torch.from_numpy(Wo.T))',
  ];
  if (run.bias) {
    lines.push(
      '    mha.in_proj_bias.copy_(torch.from_numpy(np.concatenate([bq, bk, bv])))',
      '    mha.out_proj.bias.copy_(torch.from_numpy(bo))',
    );
  }
  lines.push(
    '',
    'x = torch.from_numpy(X).unsqueeze(0)  # a batch of one: (1, n, d_model)',
    `out, w = mha(x, x, x, need_weights=True, average_attn_weights=False${run.causal ? ', attn_mask=torch.from_numpy(mask)' : ''})`,
    'out, w = out.detach().numpy(), w.detach().numpy()',
    '',
    'print("in_proj_weight:", tuple(mha.in_proj_weight.shape))',
    'print("per-head weights:", w.shape)',
    'print("outputs match:", np.allclose(out[0], mha_out))',
    '# The exact difference depends on the machine: the order in which its BLAS adds up products',
    '# sets its last bits (0.0 on one, 7e-15 on another; more for a large d_model). Rounding keeps',
    `# it far below ${RESIDUAL_BOUND} of the largest output, so that is what is printed.`,
    'diff = np.abs(out[0] - mha_out).max()',
    `print("max |difference| / max |output| < ${RESIDUAL_BOUND}:", diff / np.abs(mha_out).max() < ${RESIDUAL_BOUND})`,
    'print("per-head weights match:", np.allclose(w[0], np.stack(weights)))',
  );
  return lines.join('\n');
}

/**
 * What the PyTorch script prints, from exercise 3's cross-check (lesson-tasks.js crossCheck).
 * @param {any} run
 * @param {any} check
 */
function torchOutput(run, check) {
  const d = run.dModel;
  const aw = check.torch.typed.attnWeights;
  return [
    `in_proj_weight: ${shapeStr([3 * d, d])}`,
    `per-head weights: ${shapeStr([1, aw.depth, aw.rows, aw.cols])}`,
    `outputs match: ${check.outputClose ? 'True' : 'False'}`,
    `max |difference| / max |output| < ${RESIDUAL_BOUND}: ${check.outputDiff / check.outputScale < Number(RESIDUAL_BOUND) ? 'True' : 'False'}`,
    `per-head weights match: ${check.weightsClose ? 'True' : 'False'}`,
  ].join('\n');
}

/**
 * A code block (codeBlock) with (if `withNote`) a note under it, built once; set() writes what
 * changed.
 * @param {string} id
 * @param {string} title
 * @param {boolean} withNote
 * @param {string} lang
 */
function block(id, title, withNote, lang) {
  const hint = h('p', { class: 'hw-hint' });
  const b = codeBlock({ id, title, lang, after: [withNote ? hint : null] });
  let noteKey = '';
  return {
    el: b.el,
    /**
     * Write the code, its output and the note under it (only what changed).
     * @param {string} source
     * @param {string} printed
     * @param {Node[]} note
     * @param {string} noteKeyNow  what the note says (it is rebuilt only when this changes)
     */
    set(source, printed, note, noteKeyNow) {
      b.set(source, printed);
      if (noteKeyNow === noteKey) return;
      noteKey = noteKeyNow;
      replace(hint, note);
    },
  };
}

class HwPython extends HwElement {
  build() {
    this.computes = ['experiment', 'ex3'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    this.body = h('div', { class: 'hw-python' });
    this.appendChild(this.staleNote);
    this.appendChild(this.body);
    // Built once; an update writes text into the same nodes (so a copy button, a selection or
    // the focus stays where it was).
    const lang = this.language;
    this.numpy = block('python-numpy', this.t('python.numpyTitle'), true, lang);
    this.params = block('python-params', this.t('python.paramsTitle'), false, lang);
    this.torch = block('python-torch', this.t('python.torchTitle'), true, lang);
    this.torchTooBig = h('section', { class: 'hw-code-block' }, [
      h('h3', { text: this.t('python.torchTitle') }),
      h('p', { class: 'hw-hint', text: this.t('python.torchTooBig') }),
    ]);
    /** @type {boolean|null} */
    this.big = null;
    /** d_model and bias of the parameter counts shown */
    /** @type {string} */
    this.paramsKey = '';
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const run = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(run));
    if (!run) return;
    const query = Math.min(store.state.query, run.tokens - 1);
    const big = run.dModel * run.dModel * 4 + run.tokens * run.dModel > 200000;
    const cc = !big && run === ex.result ? store.crossCheck() : null;
    const check = cc && cc.state === 'done' ? cc.value : null;
    if (run === this._run && query === this.query && check === this.check) return;
    this._run = run;
    this.query = query;
    this.check = check;
    if (big !== this.big) {
      this.big = big;
      replace(this.body, [this.numpy.el, this.params.el, big ? this.torchTooBig : this.torch.el]);
    }
    this.numpy.set(numpyCode(run, query, true), numpyOutput(store, run, query), this.tNodes('python.numpyNote'), 'numpy');
    // The parameter counts depend on d_model and bias alone: not rebuilt for a new seed.
    const paramsKey = `${run.dModel}|${run.bias}`;
    if (paramsKey !== this.paramsKey) {
      this.params.set(paramsCode(run.dModel, run.bias), paramsOutput(store, run.dModel, run.bias), [], '');
      this.paramsKey = paramsKey;
    }
    if (big) return;
    // While the cross-check computes, or where it failed, the block says so in words (outside
    // the printout's own text, which is what Python prints).
    const diff = check ? pyRepr(check.outputDiff) : '…';
    this.torch.set(torchCode(run),
      check ? torchOutput(run, check) : cc && cc.state === 'error' ? this.say(cc.error || '') : this.t('python.computing'),
      this.tNodes('python.torchNote', { bound: RESIDUAL_BOUND, diff, print: code('print(diff)'), dtype: code('dtype=torch.float64') }), diff);
  }
}

define('hw-python', HwPython);
