// <hw-exercise-torch>: exercise 3. The lesson's manual pipeline against PyTorch's
// nn.MultiheadAttention layout on the same weights: how in_proj_weight packs Wqᵀ, Wkᵀ, Wvᵀ,
// both outputs, their largest difference, and the per-head weights of shape (1, h, n, n).

import { HwElement, define } from '../shared/element.js';
import { h, replace, code } from '../shared/dom.js';
import { fmt3, pyRepr, shapeStr } from '../shared/format.js';
import { divergenceText } from './hw-head-weights.js';
import { tokenHeader } from '../shared/tokens.js';
import { cellColors, prefersDark } from '../shared/color.js';

/** @typedef {import('../shared/store.js').Store} Store */

/** Largest preview of a matrix (rows × columns). */
const PREVIEW = 8;
/**
 * A small preview table of a matrix.
 * @param {number[][]} m
 * @param {string} caption
 * @param {Record<string,string>} attrs
 * @param {(i: number) => (string|Node)[]} [rowHead]
 * @param {{row?: number, col?: number}} [mark] a row or column to outline
 * @param {number} [maxCols]
 */
function preview(m, caption, attrs, rowHead, mark = {}, maxCols = PREVIEW) {
  const rows = Math.min(m.length, PREVIEW);
  const cols = Math.min(m[0].length, maxCols);
  const head = h('tr', {}, [h('td', { class: 'hw-corner' })]);
  for (let j = 0; j < cols; j += 1) head.appendChild(h('th', { scope: 'col', text: String(j) }));
  if (cols < m[0].length) head.appendChild(h('th', { scope: 'col', text: '…' }));
  const body = [];
  for (let i = 0; i < rows; i += 1) {
    const tr = h('tr', {}, [h('th', { scope: 'row' }, rowHead ? rowHead(i) : [String(i)])]);
    for (let j = 0; j < cols; j += 1) {
      const marked = mark.row === i || mark.col === j;
      tr.appendChild(h('td', { class: marked ? 'hw-num hw-marked' : 'hw-num', 'data-row': String(i), 'data-col': String(j), text: fmt3(m[i][j]) }));
    }
    if (cols < m[0].length) tr.appendChild(h('td', { text: '…' }));
    body.push(tr);
  }
  const more = m.length > rows || m[0].length > cols ? ` (first ${rows} × ${cols} of ${m.length} × ${m[0].length})` : '';
  return h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': caption }, [
    h('table', { class: 'hw-table hw-matrix', ...attrs }, [
      h('caption', { text: caption + more }),
      h('thead', {}, [head]),
      h('tbody', {}, body),
    ]),
  ]);
}

/**
 * PyTorch's per-head weights for one query token: heads as rows, key tokens as columns.
 * @param {Store} store
 * @param {number[][][]} aw (num_heads, n, n)
 * @param {number} q
 */
function queryRows(store, aw, q) {
  const dark = prefersDark(store);
  const n = aw[0].length;
  const head = h('tr', {}, [h('th', { scope: 'col', text: `w[0, h, ${q}, :]` })]);
  for (let j = 0; j < n; j += 1) head.appendChild(h('th', { scope: 'col' }, tokenHeader(store.state, j)));
  const rows = aw.map((m, hd) => {
    const tr = h('tr', { 'data-head': String(hd) }, [h('th', { scope: 'row', text: `head ${hd}` })]);
    for (let j = 0; j < n; j += 1) {
      const { bg, fg } = cellColors(m[q][j], dark);
      const td = h('td', { 'data-col': String(j), text: fmt3(m[q][j]) });
      td.style.backgroundColor = bg;
      td.style.color = fg;
      tr.appendChild(td);
    }
    return tr;
  });
  return h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': 'PyTorch per-head weights for the query token' }, [
    h('table', { class: 'hw-weights hw-weights-rows', 'data-testid': 'ex3-rows' }, [
      h('caption', { text: `PyTorch's per-head weights for query token ${q}` }),
      h('thead', {}, [head]),
      h('tbody', {}, rows),
    ]),
  ]);
}

class HwExerciseTorch extends HwElement {
  build() {
    this.computes = ['experiment', 'ex3'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    this.body = h('div', { class: 'hw-ex3' });
    this.appendChild(this.staleNote);
    this.appendChild(this.body);
    if (typeof matchMedia === 'function') {
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { this.key = ''; this.refresh(); });
    }
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const last = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(last));
    if (!last) return;
    // The comparison of the current run (computed where the run was: compute-tasks.js).
    const cc = store.crossCheck();
    if (cc.state === 'pending' || cc.state === 'none') return;  // the previous one stays, dimmed
    const key = JSON.stringify([store.state.labels.slice(0, 16), store.state.query, prefersDark(store)]);
    if (cc.value === this._check && cc.run === this._run && key === this.key) return;
    this._check = cc.value;
    this._run = cc.run;
    this.key = key;
    if (cc.state === 'error') {
      replace(this.body, [h('p', { class: 'hw-error', role: 'alert', text: cc.error || '' })]);
      return;
    }
    this.compute(store, /** @type {any} */ (cc.run), cc.value);
  }

  /**
   * @param {Store} store
   * @param {any} run
   * @param {any} check  compute-tasks.js crossCheck's summary
   */
  compute(store, run, check) {
    const d = run.dModel;
    const n = run.tokens;
    const { packed, torch } = check;

    // 1. The packing.
    const blocks = ['Wq', 'Wk', 'Wv'].map((name, b) => ({ name, from: b * d, to: (b + 1) * d - 1, diff: check.bandDiffs[b] }));
    const woDiff = check.woDiff;
    const inShape = [3 * d, d];
    // The first rows of in_proj_weight (Wqᵀ), read lazily: a preview shows PREVIEW of them.
    /** @type {number[][]} */
    const wqT = new Array(d);
    for (let i = 0; i < Math.min(d, PREVIEW); i += 1) wqT[i] = packed.inProjWeight[i];
    const packing = h('div', { class: 'hw-packing', 'data-testid': 'ex3-packing' }, [
      h('div', { class: 'hw-stack', role: 'list', 'aria-label': `in_proj_weight, ${3 * d} × ${d}` }, blocks.map((bl) => h('div', { class: `hw-band hw-band-${bl.name.toLowerCase()}`, role: 'listitem' }, [
        h('span', { class: 'hw-band-rows', text: `rows ${bl.from}–${bl.to}` }),
        h('span', { class: 'hw-band-name', text: `${bl.name}ᵀ` }),
        h('span', { class: 'hw-band-check', text: bl.diff === 0 ? 'exact copy' : `max |diff| ${pyRepr(bl.diff)}` }),
      ]))),
      h('p', {}, [
        code('in_proj_weight'), ` has shape ${shapeStr(inShape)}: Wqᵀ, Wkᵀ and Wvᵀ stacked. `,
        code('out_proj.weight'), ` ${shapeStr([d, d])} is Woᵀ (${woDiff === 0 ? 'an exact copy' : `max |diff| ${pyRepr(woDiff)}`}). `,
        'They are transposed because PyTorch computes x·Wᵀ (a Linear layer stores its weight as (out, in)), while the lesson writes X @ Wq.',
        run.bias ? ' The biases stack the same way: in_proj_bias is [bq, bk, bv] and out_proj.bias is bo.' : '',
      ]),
      h('p', { class: 'hw-hint', text: 'Read column 0 of the lesson\'s Wq down, then row 0 of in_proj_weight across: the same numbers.' }),
      h('div', { class: 'hw-side-by-side' }, [
        preview(run.wq, 'The lesson\'s Wq', { 'data-testid': 'ex3-wq' }, undefined, { col: 0 }, 6),
        preview(wqT, 'in_proj_weight, rows 0 onward (Wqᵀ)', { 'data-testid': 'ex3-inproj' }, undefined, { row: 0 }, 6),
      ]),
    ]);

    // 2. The outputs.
    const diff = check.outputDiff;
    const close = check.outputClose;
    const labelRow = (/** @type {number} */ i) => tokenHeader(store.state, i);
    const outputs = h('div', { class: 'hw-outputs' }, [
      preview(run.output, 'Manual pipeline: mha_out', { 'data-testid': 'ex3-manual' }, labelRow),
      preview(torch.attnOutput, 'PyTorch layout: attn_output', { 'data-testid': 'ex3-torch' }, labelRow),
      h('p', { class: 'hw-verdict', 'data-testid': 'ex3-verdict', 'data-allclose': String(close) }, [
        h('strong', { text: close ? 'They match. ' : 'They differ. ' }),
        'Largest |difference| over all ', `${n} × ${d}`, ' entries: ',
        h('span', { class: 'hw-mono', 'data-testid': 'ex3-maxdiff', text: pyRepr(diff) }),
        '; ', code('np.allclose'), ` is ${close ? 'True' : 'False'}.`,
        diff === 0 ? ' (Here the two paths even agree to the last bit.)' : ' (A difference this small is floating-point rounding from a different order of operations.)',
      ]),
    ]);

    // 3. Per-head weights.
    const aw = torch.attnWeights;
    const awShape = torch.typed.attnWeights;
    const shape = [1, awShape.depth, awShape.rows, awShape.cols];
    const weightDiff = check.weightDiff;
    const divergence = check.torchPairs;
    const q = Math.min(store.state.query, n - 1);
    const perHead = h('div', { class: 'hw-perhead' }, [
      n <= 16 && awShape.depth <= 16 ? queryRows(store, aw, q) : null,
      h('p', {}, [
        'With ', code('average_attn_weights=False'), ' and a batch of one, PyTorch returns per-head weights of shape ',
        h('strong', { class: 'hw-mono', 'data-testid': 'ex3-shape', text: shapeStr(shape) }),
        ` (batch, num_heads, n, n). Their largest difference from the manual heads' weights: `,
        h('span', { class: 'hw-mono', 'data-testid': 'ex3-weights-maxdiff', text: pyRepr(weightDiff) }), '.',
      ]),
      divergence
        ? h('p', { 'data-testid': 'ex3-divergence' }, [
          'The structural check: PyTorch\'s heads differ from one another just as in exercise 1 — ',
          divergence.filter((p) => !p.allclose).length === divergence.length ? 'every pair differs' : `${divergence.filter((p) => !p.allclose).length} of ${divergence.length} pairs differ`,
          ` (heads 0 and 1: divergence ${divergenceText(divergence[0].meanJsDivergence)}).`,
        ])
        : h('p', { class: 'hw-hint', text: awShape.depth < 2 ? 'With one head there is no cross-head comparison to make.' : 'Pairwise comparison is listed for 16 heads or fewer.' }),
    ]);

    replace(this.body, [
      h('h4', { text: 'How PyTorch packs the lesson\'s weights' }), packing,
      h('h4', { text: 'Both outputs on the same input' }), outputs,
      h('h4', { text: 'Per-head weights' }), perHead,
    ]);
  }
}

define('hw-exercise-torch', HwExerciseTorch);
