// <hw-exercise-torch>: exercise 3. The lesson's manual pipeline against PyTorch's
// nn.MultiheadAttention layout on the same weights: how in_proj_weight packs Wqᵀ, Wkᵀ, Wvᵀ,
// both outputs, their largest difference, and the per-head weights of shape (1, h, n, n).

import { HwElement, define } from '../shared/ui/element.js';
import { changed, forget } from '../shared/ui/redraw-guard.js';
import { h, replace, morph, setText, setAttr, code } from '../shared/ui/dom.js';
import { fmt3, pyRepr, shapeStr } from '../shared/ui/format.js';
import { divergenceText } from './hw-head-weights.js';
import { tokenHeader } from '../shared/ui/tokens.js';
import { paintCell, prefersDark } from '../shared/ui/color.js';
import { t } from '../shared/i18n/i18n.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/** Largest preview of a matrix (rows × columns). */
const PREVIEW = 8;

/**
 * @typedef {object} Table  a table built once for its shape, then filled in place
 * @property {HTMLElement} el
 * @property {HTMLElement[]} rows  its body rows, in order
 * @property {(i: number, m: any, q?: number, dark?: boolean) => void} fillRow  write row i's numbers (only the ones that changed)
 */

/**
 * A small preview table of a rows × cols matrix.
 * @param {number} rowsAll
 * @param {number} colsAll
 * @param {string} caption
 * @param {string} lang
 * @param {Record<string,string>} attrs
 * @param {(i: number) => (string|Node)[]} [rowHead]
 * @param {{row?: number, col?: number}} [mark] a row or column to outline
 * @param {number} [maxCols]
 * @returns {Table}
 */
function preview(rowsAll, colsAll, caption, lang, attrs, rowHead, mark = {}, maxCols = PREVIEW) {
  const rows = Math.min(rowsAll, PREVIEW);
  const cols = Math.min(colsAll, maxCols);
  const head = h('tr', {}, [h('td', { class: 'hw-corner' })]);
  for (let j = 0; j < cols; j += 1) head.appendChild(h('th', { scope: 'col', text: String(j) }));
  if (cols < colsAll) head.appendChild(h('th', { scope: 'col', text: '…' }));
  const body = [];
  /** @type {HTMLElement[][]} */
  const cells = [];
  for (let i = 0; i < rows; i += 1) {
    const tr = h('tr', {}, [h('th', { scope: 'row' }, rowHead ? rowHead(i) : [String(i)])]);
    const row = [];
    for (let j = 0; j < cols; j += 1) {
      const marked = mark.row === i || mark.col === j;
      row.push(tr.appendChild(h('td', { class: marked ? 'hw-num hw-marked' : 'hw-num', 'data-row': String(i), 'data-col': String(j) })));
    }
    if (cols < colsAll) tr.appendChild(h('td', { text: '…' }));
    cells.push(row);
    body.push(tr);
  }
  const more = rowsAll > rows || colsAll > cols ? t('ex3.previewMore', { rows, cols, rowsAll, colsAll }, lang) : '';
  return {
    el: h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': caption }, [
      h('table', { class: 'hw-table hw-matrix', ...attrs }, [
        h('caption', { text: caption + more }),
        h('thead', {}, [head]),
        h('tbody', {}, body),
      ]),
    ]),
    rows: body,
    fillRow: (i, m) => {
      const row = m.row(i);
      cells[i].forEach((td, j) => setText(td, fmt3(row[j])));
    },
  };
}

/**
 * PyTorch's per-head weights for one query token: heads as rows, key tokens as columns.
 * @param {Store} store
 * @param {number} n
 * @param {number} numHeads
 * @param {string} lang
 * @returns {Table}  fill(aw (num_heads, n, n), q, dark)
 */
function queryRows(store, n, numHeads, lang) {
  // The label w[0, h, q, :] may break in one place only, after "h," (Firefox narrows the
  // column until it breaks where it can, and left ":]" alone on a line at 390 px). It is code.
  const cornerQuery = h('span', { class: 'hw-corner-part' });
  const corner = h('th', { scope: 'col', translate: 'no' }, [h('span', { class: 'hw-corner-part', text: 'w[0, h,' }), ' ', cornerQuery]);
  const head = h('tr', {}, [corner]);
  for (let j = 0; j < n; j += 1) head.appendChild(h('th', { scope: 'col' }, tokenHeader(store.state, j)));
  /** @type {HTMLElement[][]} */
  const cells = [];
  const rows = [];
  for (let hd = 0; hd < numHeads; hd += 1) {
    const tr = h('tr', { 'data-head': String(hd) }, [h('th', { scope: 'row', text: t('pipeline.diagram.head', { head: hd }, lang) })]);
    const row = [];
    for (let j = 0; j < n; j += 1) row.push(tr.appendChild(h('td', { 'data-col': String(j) })));
    cells.push(row);
    rows.push(tr);
  }
  const caption = h('caption');
  return {
    el: h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': t('ex3.rowsRegion', {}, lang) }, [
      h('table', { class: 'hw-weights hw-weights-rows', 'data-testid': 'ex3-rows' }, [caption, h('thead', {}, [head]), h('tbody', {}, rows)]),
    ]),
    rows,
    fillRow(hd, aw, q = 0, dark = false) {
      if (hd === 0) {
        setText(cornerQuery, `${q}, :]`);
        setText(caption, t('ex3.rowsCaption', { q }, lang));
      }
      const row = aw.head(hd).row(q);
      cells[hd].forEach((td, j) => {
        const w = row[j];
        setText(td, fmt3(w));
        paintCell(td, w, dark);
      });
    },
  };
}

class HwExerciseTorch extends HwElement {
  build() {
    this.computes = ['experiment', 'ex3'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    this.body = h('div', { class: 'hw-ex3' });
    this.appendChild(this.staleNote);
    this.appendChild(this.body);
    this.onTheme(() => { forget(this, 'view'); this.refresh(); });
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const last = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(last));
    if (!last) return;
    // The comparison of the current run (computed where the run was: lesson-tasks.js).
    const cc = store.crossCheck();
    if (cc.state === 'pending' || cc.state === 'none') return;  // the previous one stays, dimmed
    const fresh = this.changed('view', [store.state.labels.slice(0, 16), store.state.query, prefersDark(store)]);
    if (cc.value === this._check && cc.run === this._run && !fresh) return;
    this._check = cc.value;
    this._run = cc.run;
    if (cc.state === 'error') {
      this.view = null;
      this.dropParts();
      replace(this.body, [h('p', { class: 'hw-error', role: 'alert', text: this.say(cc.error || '') })]);
      return;
    }
    this.compute(store, /** @type {any} */ (cc.run), cc.value);
  }

  /**
   * Write a table's numbers row by row, each row now if it is in the window, else right after
   * the frame (element.js drawPart): a reader at exercise 3 waits only for the rows on screen.
   * @param {Table} table
   * @param {any} m
   * @param {number} [q]
   * @param {boolean} [dark]
   */
  fill(table, m, q, dark) {
    table.rows.forEach((tr, i) => this.drawPart(tr, () => table.fillRow(i, m, q, dark)));
  }

  /**
   * How in_proj_weight and out_proj.weight hold the lesson's weights.
   * @param {any} v  the view
   * @param {number} d
   * @param {{name: string, from: number, to: number, diff: number}[]} blocks
   * @param {number} woDiff
   * @param {boolean} bias
   */
  drawPacking(v, d, blocks, woDiff, bias) {
    morph(v.bands, blocks.map((bl) => h('div', { class: `hw-band hw-band-${bl.name.toLowerCase()}`, role: 'listitem' }, [
      h('span', { class: 'hw-band-rows', text: this.t('ex3.bandRows', { from: bl.from, to: bl.to }) }),
      h('span', { class: 'hw-band-name', translate: 'no', text: `${bl.name}ᵀ` }),
      h('span', { class: 'hw-band-check', text: bl.diff === 0 ? this.t('ex3.exactCopy') : this.t('ex3.maxDiff', { diff: pyRepr(bl.diff) }) }),
    ])));
    const gap = this.t('common.sentenceGap');
    morph(v.packText, [
      ...this.tNodes('ex3.packIn', { name: code('in_proj_weight'), shape: shapeStr([3 * d, d]) }), gap,
      ...this.tNodes(woDiff === 0 ? 'ex3.packOutExact' : 'ex3.packOutDiff', { name: code('out_proj.weight'), shape: shapeStr([d, d]), diff: pyRepr(woDiff) }), gap,
      this.t('ex3.transposed'),
      bias ? gap + this.t('ex3.biasStack') : '',
    ]);
  }

  /**
   * @param {Store} store
   * @param {any} run
   * @param {any} check  lesson-tasks.js crossCheck's summary
   */
  compute(store, run, check) {
    const d = run.dModel;
    const n = run.tokens;
    const { packed, torch } = check;
    const aw = torch.typed.attnWeights;
    const q = Math.min(store.state.query, n - 1);

    // Built once per shape; a new seed only writes numbers into the same nodes.
    if (this.changed('shape', [d, n, aw.depth, store.state.labels.slice(0, 16)]) || !this.view) {
      this.dropParts();
      const labelRow = (/** @type {number} */ i) => tokenHeader(store.state, i);
      const lang = this.language;
      const v = {
        bands: h('div', { class: 'hw-stack', role: 'list', 'aria-label': this.t('ex3.bandsLabel', { rows: 3 * d, cols: d }) }),
        packText: h('p'),
        // in_proj_weight's first rows are Wqᵀ: its first d × d block is shown.
        wq: preview(d, d, this.t('ex3.previewWq'), lang, { 'data-testid': 'ex3-wq' }, undefined, { col: 0 }, 5),
        inproj: preview(d, d, this.t('ex3.previewInProj'), lang, { 'data-testid': 'ex3-inproj' }, undefined, { row: 0 }, 5),
        manual: preview(n, d, this.t('ex3.previewManual'), lang, { 'data-testid': 'ex3-manual' }, labelRow),
        torch: preview(n, d, this.t('ex3.previewTorch'), lang, { 'data-testid': 'ex3-torch' }, labelRow),
        verdict: h('p', { class: 'hw-verdict', 'data-testid': 'ex3-verdict' }),
        rows: n <= 16 && aw.depth <= 16 ? queryRows(store, n, aw.depth, lang) : null,
        perHead: h('div', { class: 'hw-perhead' }),
        /** @type {Element|null} the per-head sentences' live numbers (written into in place) */
        weightDiff: null,
        /** @type {Element|null} */
        divergence: null,
      };
      this.view = v;
      replace(this.body, [
        h('h4', { text: this.t('ex3.packingTitle') }),
        h('div', { class: 'hw-packing', 'data-testid': 'ex3-packing' }, [
          v.bands,
          v.packText,
          h('p', { class: 'hw-hint', text: this.t('ex3.readHint') }),
          h('div', { class: 'hw-side-by-side' }, [v.wq.el, v.inproj.el]),
        ]),
        h('h4', { text: this.t('ex3.outputsTitle') }),
        h('div', { class: 'hw-outputs' }, [v.manual.el, v.torch.el, v.verdict]),
        h('h4', { text: this.t('ex3.perHeadTitle') }),
        v.perHead,
      ]);
    }
    const v = this.view;

    // 1. The packing.
    const blocks = ['Wq', 'Wk', 'Wv'].map((name, b) => ({ name, from: b * d, to: (b + 1) * d - 1, diff: check.bandDiffs[b] }));
    const woDiff = check.woDiff;
    // Rewritten only when what they say changes (a new seed gives exact copies again).
    if (changed(v, 'packing', [check.bandDiffs, woDiff, run.bias])) {
      this.drawPacking(v, d, blocks, woDiff, run.bias);
    }
    // Each row is written now if it is in the window, else right after the frame.
    this.fill(v.wq, run.typed.wq);
    // Only the rows the preview shows are read (views of the tensor).
    this.fill(v.inproj, packed.typed.inProjWeight);

    // 2. The outputs.
    const diff = check.outputDiff;
    const close = check.outputClose;
    this.fill(v.manual, run.typed.output);
    this.fill(v.torch, torch.typed.attnOutput);
    setAttr(v.verdict, 'data-allclose', String(close));
    // The sentences below are rebuilt only when what they say changes.
    if (changed(v, 'verdict', [close, n, d, diff])) {
      const gap = this.t('common.sentenceGap');
      morph(v.verdict, [
        h('strong', { text: this.t(close ? 'ex3.match' : 'ex3.differ') }),
        gap,
        ...this.tNodes('ex3.verdict', {
          n, d, diff: h('span', { class: 'hw-mono', 'data-testid': 'ex3-maxdiff', text: pyRepr(diff) }), call: code('np.allclose'), value: close ? 'True' : 'False',
        }),
        gap + this.t(diff === 0 ? 'ex3.lastBit' : 'ex3.rounding'),
      ]);
    }

    // 3. Per-head weights.
    const shape4 = [1, aw.depth, aw.rows, aw.cols];
    const divergence = check.torchPairs;
    if (v.rows) this.fill(v.rows, aw, q, prefersDark(store));
    const divergent = divergence ? divergence.filter((/** @type {any} */ p) => !p.allclose).length : 0;
    // The sentences are rebuilt only when what they say changes; a new seed writes its two
    // numbers into them in place.
    if (changed(v, 'perHead', [shape4, divergence ? [divergent, divergence.length] : null])) {
      morph(v.perHead, [
        v.rows && v.rows.el,
        h('p', {}, this.tNodes('ex3.perHead', {
          option: code('average_attn_weights=False'),
          shape: h('strong', { class: 'hw-mono', 'data-testid': 'ex3-shape', text: shapeStr(shape4) }),
          diff: h('span', { class: 'hw-mono', 'data-testid': 'ex3-weights-maxdiff' }),
        })),
        divergence
          ? h('p', { 'data-testid': 'ex3-divergence' }, this.tNodes(divergent === divergence.length ? 'ex3.structuralAll' : 'ex3.structuralSome', {
            differing: divergent, count: divergence.length, divergence: h('span'),
          }))
          : h('p', { class: 'hw-hint', text: this.t(aw.depth < 2 ? 'ex3.oneHead' : 'ex3.tooManyHeads') }),
      ]);
      // morph keeps the live nodes where the old sentences had the same shape: write into those.
      v.weightDiff = v.perHead.querySelector('[data-testid="ex3-weights-maxdiff"]');
      v.divergence = v.perHead.querySelector('[data-testid="ex3-divergence"] > span');
    }
    setText(v.weightDiff, pyRepr(check.weightDiff));
    if (divergence) setText(v.divergence, divergenceText(divergence[0].meanJsDivergence, this.language));
  }
}

define('hw-exercise-torch', HwExerciseTorch);
