// <hw-head-circuits>: the lesson's own heads as circuits. For the main experiment's weights (the
// settings panel's seed, d_model and heads), each head's W_QK = Wq_h Wk_hᵀ and W_OV = Wv_h Wo_h
// as small heatmaps (d_model × d_model, one pixel per value, darker for a larger magnitude), with
// their rank as the module counts it (hw.headCircuits: np.linalg.matrix_rank's tolerance), and
// the check that the heads' W_OV add up to the unsplit Wv·Wo (max |difference|, from the module).
// The matrices are computed once per experiment result (store.memo), up to CIRCUITS_MAX_DMODEL.

import { HwElement, define } from '../shared/ui/element.js';
import { forget } from '../shared/ui/redraw-guard.js';
import { code, copyButton, h, morph, replace, setText } from '../shared/ui/dom.js';
import { copyTexts } from '../shared/i18n/translate-dom.js';
import { headCircuitsCode, headCircuitsOutput } from './circuits-python.js';
import { prefersDark, rampRGB } from '../shared/ui/color.js';
import { messageOf } from '../shared/state/errors.js';
import { translateError } from '../shared/i18n/i18n-errors.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/** Largest d_model whose circuits are drawn (each head is two d × d maps). */
export const CIRCUITS_MAX_DMODEL = 64;
/** Heads drawn at most (the first ones). */
export const CIRCUITS_MAX_HEADS = 16;

/**
 * A d × d matrix as pixels of the page's ramp, by magnitude over the largest magnitude.
 * @param {HTMLCanvasElement} canvas
 * @param {number[][]} m
 * @param {boolean} dark
 */
function paintMatrix(canvas, m, dark) {
  const n = m.length;
  canvas.width = n;
  canvas.height = n;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  let top = 0;
  for (const row of m) for (const x of row) top = Math.max(top, Math.abs(x));
  const img = ctx.createImageData(n, n);
  for (let i = 0; i < n; i += 1) {
    for (let j = 0; j < n; j += 1) {
      const [r, g, b] = rampRGB(top > 0 ? Math.abs(m[i][j]) / top : 0, dark);
      const k = (i * n + j) * 4;
      img.data[k] = r; img.data[k + 1] = g; img.data[k + 2] = b; img.data[k + 3] = 255;
    }
  }
  ctx.putImageData(img, 0, 0);
}

class HwHeadCircuits extends HwElement {
  build() {
    this.computes = ['experiment'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    this.check = h('p', { class: 'hw-verdict', 'data-testid': 'circuits-check', 'aria-live': 'polite' });
    this.grid = h('div', { class: 'hw-circuit-heads', 'data-testid': 'circuit-heads' });
    this.note = h('p', { class: 'hw-hint', 'data-testid': 'circuits-note' });
    this.appendChild(this.staleNote);
    this.hint = h('p', { class: 'hw-hint' });
    this.appendChild(this.hint);
    this.appendChild(this.check);
    this.appendChild(this.grid);
    this.appendChild(this.note);
    // "Reproduce it in Python": the same heads in NumPy (circuits-python.js), and what it prints.
    const title = this.t('circuits.python');
    this.codeEl = h('code', { class: 'language-python' });
    this.pyOutput = h('pre', { class: 'hw-code hw-code-output', 'data-testid': 'circuits-numpy-output', tabindex: '0', translate: 'no' });
    this.pyBlock = h('section', { class: 'hw-code-block' }, [
      h('h3', { text: title }),
      copyButton(this.codeEl, copyTexts(title, this.language)),
      h('pre', { class: 'hw-code', id: 'circuits-numpy', 'data-testid': 'circuits-numpy', tabindex: '0', translate: 'no' }, [this.codeEl]),
      h('p', { class: 'hw-output-label', text: this.t('python.prints') }),
      this.pyOutput,
    ]);
    this.appendChild(this.pyBlock);
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const run = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(run));
    if (!run) {
      replace(this.grid, []);
      setText(this.check, ex.error ? this.t('circuits.nothing') : '');
      forget(this, 'circuits');
      return;
    }
    const dark = prefersDark(store);
    if (!this.changed('circuits', [run, dark])) return;
    // The ramp runs light to dark in the light scheme and dark to light in the dark one.
    morph(this.hint, this.tNodes('circuits.hint', {
      qk: code('W_QK = Wq_h Wk_hᵀ'), ov: code('W_OV = Wv_h Wo_h'), scale: this.t(`circuits.scale.${dark ? 'dark' : 'light'}`),
    }));
    const d = run.dModel;
    const numHeads = run.numHeads;
    this.dataset.dModel = String(d);
    this.dataset.heads = String(numHeads);
    if (d > CIRCUITS_MAX_DMODEL) {
      replace(this.grid, []);
      setText(this.check, this.t('circuits.tooLarge', { dModel: d, max: CIRCUITS_MAX_DMODEL }));
      this.check.dataset.error = '';
      setText(this.note, '');
      this.pyBlock.hidden = true;
      return;
    }
    let c;
    try {
      c = store.memo(`circuits|${run.seed}|${run.tokens}|${d}|${numHeads}|${run.bias}`, () => store.hw.headCircuits({ wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, numHeads }));
    } catch (e) {
      replace(this.grid, []);
      setText(this.check, translateError(messageOf(e), this.language));
      return;
    }
    this.result = c;
    const dHead = d / numHeads;
    this.check.dataset.error = String(c.ovSumError);
    morph(this.check, this.tNodes('circuits.check', {
      sum: code('Σ_h W_OV^h'), product: code('Wv · Wo'), diff: c.ovSumError.toExponential(1), heads: numHeads, dHead, dModel: d,
    }));
    const shown = Math.min(numHeads, CIRCUITS_MAX_HEADS);
    const cards = [];
    for (let k = 0; k < shown; k += 1) {
      const name = this.t('heads.table.head', { head: k });
      const maps = /** @type {[string, number[][], number][]} */ ([['qk', c.qk[k], c.qkRank[k]], ['ov', c.ov[k], c.ovRank[k]]]).map(([which, m, rank]) => {
        const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'hw-circuit-map', width: 1, height: 1, 'aria-hidden': 'true' }));
        paintMatrix(canvas, /** @type {number[][]} */ (m), dark);
        const label = this.t(`circuits.${which}`);
        return h('figure', { class: 'hw-circuit-figure', 'data-which': which, 'data-rank': String(rank) }, [
          h('div', { class: 'hw-circuit-map-box', role: 'img', 'aria-label': this.t('circuits.mapLabel', { head: name, matrix: label, dModel: d, rank }) }, [canvas]),
          h('figcaption', {}, [h('span', { class: 'hw-circuit-label', translate: 'no', text: label }), ' ', h('span', { 'data-testid': 'circuit-rank', text: this.t('circuits.rank', { rank, dHead }) })]),
        ]);
      });
      cards.push(h('section', { class: 'hw-circuit-head', 'data-testid': 'circuit-head', 'data-head': k }, [h('h4', { text: name }), h('div', { class: 'hw-circuit-pair' }, maps)]));
    }
    replace(this.grid, cards);
    this.pyBlock.hidden = false;
    setText(this.codeEl, headCircuitsCode(run));
    setText(this.pyOutput, headCircuitsOutput(run, c));
    setText(this.note, shown < numHeads ? this.t('circuits.firstHeads', { shown, count: numHeads }) : '');
  }
}

define('hw-head-circuits', HwHeadCircuits);
