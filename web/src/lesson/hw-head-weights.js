// <hw-head-weights>: every head's n×n attention weights side by side, the query token's row
// highlighted in all of them, the "same pattern?" verdict and a comparison of every pair.
// n <= 16: real <table>s with one cell per weight. n > 16: one <canvas> heatmap per head whose
// values are read out on hover and with the arrow keys.

import { HwElement, define } from '../shared/ui/element.js';
import { forget } from '../shared/ui/redraw-guard.js';
import { h, replace, morph, setText, setAttr, code } from '../shared/ui/dom.js';
import { fmt3, fmtSig, numpyArrayStr } from '../shared/ui/format.js';
import { cellColors, colourRows, paintCell, prefersDark } from '../shared/ui/color.js';
import { tokenHeader, tokenText } from '../shared/ui/tokens.js';
import { SETTING } from '../shared/state/settings.js';
import { t } from '../shared/i18n/i18n.js';

/** @typedef {import('../shared/state/store.js').Store} Store */
/** @typedef {import('../shared/state/store.js').State} State */

/** The query token's control (the settings table's id): a click on a row sets it. */
const QUERY = SETTING.query.control;

/** Largest n drawn as tables; above it, canvases. */
export const TABLE_MAX_TOKENS = 16;
/** Heads drawn at once; more are paged. */
const HEADS_PER_PAGE = 16;
/** Pairwise comparisons are listed up to this many heads (120 pairs). */
const PAIRS_MAX_HEADS = 16;
/** The NumPy-style printout of the query rows is shown up to this many tokens. */
const PRINT_MAX_TOKENS = 32;

/**
 * A divergence as shown: the module's number, or "n/a" when it could not be computed (NaN).
 * @param {number} x
 * @param {string} lang
 */
export function divergenceText(x, lang) {
  return Number.isFinite(x) ? fmtSig(x) : t('heads.table.notAvailable', {}, lang);
}

/**
 * A weight cell's tooltip: which query and key, and the exact weight.
 * @param {State} s
 * @param {HTMLElement} td  a cell with data-row, data-col and data-value
 * @param {string} lang
 */
function cellTitle(s, td, lang) {
  return t('heads.table.cellTitle', { query: tokenText(s, Number(td.dataset.row)), key: tokenText(s, Number(td.dataset.col)), value: td.dataset.value }, lang);
}

class HwHeadWeights extends HwElement {
  build() {
    this.computes = ['experiment'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    // What NumPy prints, character for character: never translated.
    this.printout = h('pre', { class: 'hw-printout', 'data-testid': 'query-rows', role: 'figure', translate: 'no', 'aria-label': this.t('heads.table.printoutLabel') });
    this.verdict = h('p', { class: 'hw-verdict', 'data-testid': 'verdict', 'aria-live': 'polite' });
    this.pairsBox = h('div', { class: 'hw-pairs' });
    /** @type {{tr: HTMLElement, name: HTMLElement, same: HTMLElement, diff: HTMLElement, divergence: HTMLElement}[]|null} the pairs table's rows */
    this.pairRows = null;
    this.legend = h('div', { class: 'hw-legend', 'aria-hidden': 'true' });
    this.pager = h('div', { class: 'hw-pager' });
    this.grid = h('div', { class: 'hw-heads' });
    // A weight's tooltip (query → key: exact value) is written when the pointer or the focus
    // reaches its cell, not for every cell on every update.
    const tooltip = (/** @type {Event} */ e) => {
      const td = /** @type {HTMLElement|null} */ (e.target instanceof Element ? e.target.closest('td[data-value]') : null);
      if (!td) return;
      td.title = cellTitle(this.store.state, td, this.language);
    };
    this.grid.addEventListener('pointerover', tooltip);
    this.grid.addEventListener('focusin', tooltip);
    this.appendChild(this.staleNote);
    this.appendChild(h('div', { class: 'hw-verdict-box' }, [this.printout, this.verdict]));
    this.appendChild(h('div', { class: 'hw-heads-head' }, [this.legend, this.pager]));
    this.appendChild(this.grid);
    this.appendChild(this.pairsBox);
    // The page of heads shown survives a change of language (see keep).
    if (this.firstHead === undefined) this.firstHead = 0;
    /** @type {{canvas: HTMLCanvasElement, head: number, weights: any, cursor: [number, number], readout: HTMLElement}[]} */
    this.canvases = [];
    this.onTheme(() => {
      forget(this, 'heads');
      this.refresh();
    });
  }

  static get keep() {
    return ['firstHead'];
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const run = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(run));
    if (!run) {
      replace(this.grid, []);
      forget(this, 'tables');
      this.verdict.textContent = ex.error ? this.t('heads.table.nothing') : '';
      forget(this, 'sentence');
      return;
    }
    const s = store.state;
    const numHeads = run.numHeads;
    if (this.firstHead >= numHeads) this.firstHead = 0;
    const dark = prefersDark(store);
    const drawnFrom = [s.labels.slice(0, run.tokens), this.firstHead, dark];
    const resultChanged = this._run !== run;
    this._run = run;
    const query = Math.min(s.query, run.tokens - 1);
    if (this.changed('heads', drawnFrom) || resultChanged) {
      this.drawHeads(store, run, dark);
      this.drawLegend(dark);
      this.drawPairs(store, run);
    }
    this.highlightQuery(query);
    this.drawPrintout(store, run, query, drawnFrom);
  }

  /**
   * @param {Store} store
   * @param {import('../../../cpp/api').SeedExperimentResult & {pairs: import('../../../cpp/api').HeadPair[]}} run
   */
  drawPairs(store, run) {
    const numHeads = run.numHeads;
    // Compared where the run was computed (lesson-tasks.js lessonRun).
    const pairs = run.pairs;
    const same = numHeads >= 2 && pairs && pairs.length > 0 ? pairs[0].allclose : null;
    const flag = same === null ? '' : String(same);
    if (this.verdict.dataset.same !== flag) this.verdict.dataset.same = flag;
    if (same === null) {
      morph(this.verdict, [this.t(numHeads < 2 ? 'heads.table.oneHead' : 'heads.table.notCompared')]);
      replace(this.pairsBox, []);
      forget(this, 'sentence');
      this.pairRows = null;
      return;
    }
    const differing = pairs.filter((p) => !p.allclose).length;
    if (this.changed('sentence', [same, numHeads, differing, pairs.length])) {
      const params = {
        answer: h('strong', { text: this.t(same ? 'heads.table.samePatternYes' : 'heads.table.samePatternNo') }),
        call: code('np.allclose(weights[0], weights[1])'),
        value: same ? 'True' : 'False',
        differing,
        count: pairs.length,
      };
      let key = 'heads.table.verdict';
      if (numHeads > 2 && numHeads <= PAIRS_MAX_HEADS) key = differing === pairs.length ? 'heads.table.verdictAll' : 'heads.table.verdictSome';
      morph(this.verdict, this.tNodes(key, params));
    }

    if (numHeads > PAIRS_MAX_HEADS) {
      this.pairRows = null;
      morph(this.pairsBox, [h('p', { class: 'hw-hint', text: this.t('heads.table.tooManyPairs', { numHeads, max: PAIRS_MAX_HEADS }) })]);
      return;
    }
    // The table is built once per number of pairs; a new seed writes into its cells.
    if (!this.pairRows || this.pairRows.length !== pairs.length || !this.pairsBox.firstChild) {
      this.pairRows = pairs.map(() => ({
        tr: h('tr', { 'data-testid': 'pair' }),
        name: h('th', { scope: 'row' }),
        same: h('td'),
        diff: h('td', { class: 'hw-num' }),
        divergence: h('td', { class: 'hw-num', 'data-testid': 'divergence' }),
      }));
      for (const r of this.pairRows) r.tr.append(r.name, r.same, r.diff, r.divergence);
      const table = h('table', { class: 'hw-table hw-pairs-table', 'data-testid': 'pairs' }, [
        h('caption', { text: this.t('heads.table.pairsCaption') }),
        h('thead', {}, [h('tr', {}, [
          h('th', { scope: 'col', text: this.t('heads.table.pairsHeads') }),
          h('th', { scope: 'col', text: this.t('heads.table.pairsAllclose') }),
          h('th', { scope: 'col', class: 'hw-num', text: this.t('heads.table.pairsMaxDiff') }),
          h('th', { scope: 'col', class: 'hw-num', text: this.t('heads.table.pairsDivergence') }),
        ])]),
        h('tbody', {}, this.pairRows.map((r) => r.tr)),
      ]);
      replace(this.pairsBox, [
        h('div', { class: pairs.length > 10 ? 'hw-scroll hw-scroll-tall' : 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': this.t('heads.table.pairsRegion') }, [table]),
        h('p', { class: 'hw-hint', text: this.t('heads.table.pairsHint') }),
      ]);
    }
    pairs.forEach((p, k) => {
      const r = this.pairRows[k];
      setAttr(r.tr, 'data-a', String(p.a));
      setAttr(r.tr, 'data-b', String(p.b));
      setAttr(r.tr, 'data-allclose', String(p.allclose));
      setText(r.name, this.t('heads.table.pair', { a: p.a, b: p.b }));
      setText(r.same, this.t(p.allclose ? 'heads.table.same' : 'heads.table.different'));
      setText(r.diff, fmtSig(p.maxAbsDiff));
      setText(r.divergence, divergenceText(p.meanJsDivergence, this.language));
      setAttr(r.divergence, 'title', Number.isFinite(p.meanJsDivergence) ? null : this.t('heads.table.nanTitle'));
    });
  }

  /**
   * The lesson's printout: each head's row for the query token, as NumPy prints it.
   * @param {Store} store
   * @param {any} run
   * @param {number} query
   * @param {unknown[]} drawnFrom  what the heads were drawn from (labels, first head, theme)
   */
  drawPrintout(store, run, query, drawnFrom) {
    // A new run (another seed or head count) prints anew, as do new labels, heads or query.
    if (!this.changed('printout', [...drawnFrom, query]) && run === this._printed) return;
    this._printed = run;
    // Long rows are better read from the heatmaps; the Python section prints them all.
    const hidden = run.tokens > PRINT_MAX_TOKENS;
    if (this.printout.hidden !== hidden) this.printout.hidden = hidden;
    if (hidden) return;
    const lines = [];
    const last = Math.min(run.numHeads, this.firstHead + HEADS_PER_PAGE);
    for (let head = this.firstHead; head < last; head += 1) {
      // print("...:", array) puts NumPy's own line breaks after the prefix, as here.
      lines.push(`head ${head} weights, token ${query}: ${numpyArrayStr(Array.from(run.typed.headWeights.head(head).row(query)))}`);
    }
    if (run.numHeads >= 2) {
      // The verdict line mirrors print(np.allclose(weights[0], weights[1])).
      lines.push(`same pattern? ${this.verdict.dataset.same === 'true' ? 'True' : 'False'}`);
    }
    morph(this.printout, [lines.join('\n')]);
  }

  /** @param {boolean} dark */
  drawLegend(dark) {
    if (dark === this.legendDark) return;
    /** @type {boolean} */
    this.legendDark = dark;
    const stops = [0, 0.25, 0.5, 0.75, 1].map((t) => {
      const { bg, fg } = cellColors(t, dark);
      const sw = h('span', { class: 'hw-swatch', text: fmt3(t) });
      sw.style.backgroundColor = bg;
      sw.style.color = fg;
      return sw;
    });
    replace(this.legend, [h('span', { class: 'hw-legend-label', text: this.t('heads.table.legend') }), ...stops]);
  }

  /**
   * @param {Store} store
   * @param {any} run
   * @param {boolean} dark
   */
  drawHeads(store, run, dark) {
    const s = store.state;
    const n = run.tokens;
    const numHeads = run.numHeads;
    const last = Math.min(numHeads, this.firstHead + HEADS_PER_PAGE);
    // The same tables (tokens, labels, heads shown, d_head): only numbers change, in place.
    const tables = n <= TABLE_MAX_TOKENS;
    const sameTables = !this.changed('tables', tables ? [n, numHeads, this.firstHead, run.dHead, s.labels.slice(0, n)] : []);
    if (tables && sameTables) {
      this.cells.forEach((rows, k) => this.fill(s, rows, run.typed.headWeights.head(this.firstHead + k), dark));
      return;
    }
    /** @type {HTMLElement[][][]} each shown head's weight cells, [head][row][col] */
    this.cells = [];
    this.drawPager(numHeads, last);
    this.canvases = [];
    const figures = [];
    for (let head = this.firstHead; head < last; head += 1) {
      const weights = run.typed.headWeights.head(head);
      const caption = [
        h('span', { class: 'hw-head-name', text: this.t('heads.table.head', { head }) }),
        h('span', { class: 'hw-head-dims', translate: 'no', text: ` · ${n}×${n}, d_head = ${run.dHead}` }),
      ];
      if (n <= TABLE_MAX_TOKENS) {
        figures.push(h('figure', { class: 'hw-head', 'data-head': String(head) }, [this.table(s, head, weights, caption, dark)]));
      } else {
        figures.push(this.canvasFigure(s, head, weights, caption, dark));
      }
    }
    replace(this.grid, figures);
    this.grid.classList.toggle('hw-heads-canvas', n > TABLE_MAX_TOKENS);
    this.paintBases(this.canvases);
  }

  /**
   * Colour the heatmaps' pixels a few rows at a time, one short task each (about 6 ms), until
   * all are drawn or a newer draw replaced them: a big run's heatmaps fill in one after another
   * instead of blocking the page. data-drawing is set meanwhile.
   * @param {any[]} entries
   */
  paintBases(entries) {
    const step = () => {
      if (this.canvases !== entries) return;
      const t0 = performance.now();
      for (const entry of entries) {
        if (entry.base) continue;
        const n = entry.weights.rows;
        if (!entry.job) {
          const canvas = document.createElement('canvas');
          canvas.width = n;
          canvas.height = n;
          const ctx = canvas.getContext('2d');
          if (!ctx) {
            entry.base = true;
            continue;
          }
          entry.job = { canvas, ctx, img: ctx.createImageData(n, n), row: 0 };
        }
        const job = entry.job;
        while (job.row < n) {
          const to = Math.min(n, job.row + 16);
          colourRows(job.img, entry.weights.data, 0, n, job.row, to, entry.dark);
          job.row = to;
          if (performance.now() - t0 > 6) break;
        }
        if (job.row >= n) {
          job.ctx.putImageData(job.img, 0, 0);
          entry.base = job.canvas;
          entry.job = null;
          this.paint(entry);
        }
        if (performance.now() - t0 > 6) {
          this.toggleAttribute('data-drawing', true);
          setTimeout(step, 0);
          return;
        }
      }
      this.toggleAttribute('data-drawing', false);
    };
    step();
  }

  /**
   * @param {number} numHeads
   * @param {number} last
   */
  drawPager(numHeads, last) {
    if (numHeads <= HEADS_PER_PAGE) {
      replace(this.pager, []);
      return;
    }
    const prev = h('button', { type: 'button', class: 'hw-button', text: this.t('heads.table.previous'), disabled: this.firstHead === 0 });
    const next = h('button', { type: 'button', class: 'hw-button', text: this.t('heads.table.next'), disabled: last >= numHeads });
    prev.addEventListener('click', () => { this.firstHead = Math.max(0, this.firstHead - HEADS_PER_PAGE); forget(this, 'heads'); this.refresh(); });
    next.addEventListener('click', () => { this.firstHead += HEADS_PER_PAGE; forget(this, 'heads'); this.refresh(); });
    replace(this.pager, [
      h('span', { 'aria-live': 'polite', text: `${this.t('heads.table.page', { first: this.firstHead, last: last - 1, count: numHeads })} ` }),
      prev, next,
    ]);
  }

  /**
   * @param {State} s
   * @param {number} head
   * @param {any} weights  the head's (n, n) Tensor
   * @param {HTMLElement[]} caption
   * @param {boolean} dark
   */
  table(s, head, weights, caption, dark) {
    const n = weights.rows;
    /** @type {HTMLElement[][]} */
    const rows = [];
    const headRow = h('tr', {}, [h('td', { class: 'hw-corner' }, [
      h('span', { class: 'hw-corner-q', text: this.t('heads.table.cornerQuery') }), h('span', { class: 'hw-corner-k', text: this.t('heads.table.cornerKey') }),
    ])]);
    for (let j = 0; j < n; j += 1) headRow.appendChild(h('th', { scope: 'col', 'data-col': String(j) }, tokenHeader(s, j)));
    const body = [];
    for (let i = 0; i < n; i += 1) {
      const rowHeader = h('th', { scope: 'row', class: 'hw-row-head', title: this.t('heads.table.rowTitle') }, tokenHeader(s, i));
      rowHeader.addEventListener('click', () => this.store.set({ query: i }, QUERY));
      const tr = h('tr', { 'data-token': String(i) }, [rowHeader]);
      const row = [];
      for (let j = 0; j < n; j += 1) row.push(tr.appendChild(h('td', { 'data-row': String(i), 'data-col': String(j) })));
      rows.push(row);
      body.push(tr);
    }
    this.cells.push(rows);
    this.fill(s, rows, weights, dark);
    return h('table', { class: 'hw-weights', 'data-head': String(head) }, [
      h('caption', {}, caption),
      h('thead', {}, [headRow]),
      h('tbody', {}, body),
    ]);
  }

  /**
   * Write one head's weights into its cells: text, exact value and colours.
   * @param {State} s
   * @param {HTMLElement[][]} rows
   * @param {any} weights  the head's (n, n) Tensor
   * @param {boolean} dark
   */
  fill(s, rows, weights, dark) {
    rows.forEach((row, i) => row.forEach((td, j) => {
      const w = weights.data[i * weights.cols + j];
      setText(td, fmt3(w));
      td.setAttribute('data-value', String(w));
      if (td.hasAttribute('title')) td.title = cellTitle(s, td, this.language);  // a cell once hovered (see build)
      paintCell(td, w, dark);
    }));
  }

  /**
   * @param {State} s
   * @param {number} head
   * @param {any} weights  the head's (n, n) Tensor
   * @param {HTMLElement[]} caption
   * @param {boolean} dark
   */
  canvasFigure(s, head, weights, caption, dark) {
    const n = weights.rows;
    const scale = Math.max(1, Math.ceil(320 / n));
    const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', {
      class: 'hw-heatmap', 'data-head': String(head), width: String(n * scale), height: String(n * scale), tabindex: '0', role: 'img',
      'aria-label': this.t('heads.table.heatmapLabel', { head, n }),
    }));
    const readout = h('output', { class: 'hw-readout', 'data-testid': 'readout', 'aria-live': 'polite', text: this.t('heads.table.readoutIdle') });
    // The colours, computed once per head, a few heads per task (paintBases): a big run's
    // heatmaps appear one after another instead of blocking the page.
    /** @type {any} */
    const entry = { canvas, base: null, head, weights, scale, cursor: /** @type {[number, number]} */ ([-1, -1]), readout, dark };
    this.canvases.push(entry);
    const show = () => {
      const [i, j] = entry.cursor;
      if (i < 0) return;
      readout.textContent = this.t('heads.table.readout', { head, query: tokenText(this.store.state, i), key: tokenText(this.store.state, j), value: fmt3(weights.data[i * n + j]) });
      this.paint(entry);
    };
    canvas.addEventListener('mousemove', (e) => {
      const rect = canvas.getBoundingClientRect();
      const j = Math.min(n - 1, Math.max(0, Math.floor(((e.clientX - rect.left) / rect.width) * n)));
      const i = Math.min(n - 1, Math.max(0, Math.floor(((e.clientY - rect.top) / rect.height) * n)));
      entry.cursor = [i, j];
      show();
    });
    canvas.addEventListener('click', () => {
      if (entry.cursor[0] >= 0) this.store.set({ query: entry.cursor[0] }, QUERY);
    });
    canvas.addEventListener('focus', () => {
      if (entry.cursor[0] < 0) entry.cursor = [Math.min(this.store.state.query, n - 1), 0];
      show();
    });
    canvas.addEventListener('keydown', (e) => {
      let [i, j] = entry.cursor;
      if (i < 0) [i, j] = [0, 0];
      const step = e.shiftKey ? 8 : 1;
      switch (e.key) {
        case 'ArrowUp': i -= step; break;
        case 'ArrowDown': i += step; break;
        case 'ArrowLeft': j -= step; break;
        case 'ArrowRight': j += step; break;
        case 'Home': j = 0; break;
        case 'End': j = n - 1; break;
        case 'Enter': case ' ': this.store.set({ query: i }, QUERY); e.preventDefault(); return;
        default: return;
      }
      e.preventDefault();
      entry.cursor = [Math.min(n - 1, Math.max(0, i)), Math.min(n - 1, Math.max(0, j))];
      show();
    });
    return h('figure', { class: 'hw-head hw-head-canvas', 'data-head': String(head) }, [
      h('figcaption', {}, caption),
      h('div', { class: 'hw-heatmap-axes' }, [
        h('span', { class: 'hw-axis-k', text: this.t('heads.table.axisKey', { last: n - 1 }) }),
        h('span', { class: 'hw-axis-q', text: this.t('heads.table.axisQuery', { last: n - 1 }) }),
        canvas,
      ]),
      readout,
    ]);
  }

  /**
   * Draw a heatmap with the query row and the cursor outlined.
   * @param {any} entry
   */
  paint(entry) {
    const { canvas, base, scale, weights } = entry;
    const n = weights.rows;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.imageSmoothingEnabled = false;
    if (!base) return;  // not coloured yet (paintBases)
    if (base !== true) ctx.drawImage(base, 0, 0, n * scale, n * scale);
    const q = Math.min(this.store.state.query, n - 1);
    const lw = Math.max(2, scale);
    ctx.lineWidth = lw;
    ctx.strokeStyle = entry.dark ? '#ffb000' : '#c2410c';
    ctx.strokeRect(lw / 2, q * scale - lw / 2, n * scale - lw, scale + lw);
    const [i, j] = entry.cursor;
    if (i >= 0) {
      ctx.strokeStyle = entry.dark ? '#fff' : '#000';
      ctx.lineWidth = Math.max(1, scale / 2);
      ctx.strokeRect(j * scale, i * scale, scale, scale);
    }
  }

  /** @param {number} query */
  highlightQuery(query) {
    // Only the rows whose marking changes are touched.
    this.grid.querySelectorAll('tr[data-token]').forEach((tr) => {
      const on = tr.getAttribute('data-token') === String(query);
      if (tr.hasAttribute('data-query') === on) return;
      const th = /** @type {Element} */ (tr.querySelector('th'));
      if (on) {
        tr.setAttribute('data-query', 'true');
        th.setAttribute('aria-current', 'true');
      } else {
        tr.removeAttribute('data-query');
        th.removeAttribute('aria-current');
      }
    });
    for (const entry of this.canvases) this.paint(entry);
  }
}

define('hw-head-weights', HwHeadWeights);
