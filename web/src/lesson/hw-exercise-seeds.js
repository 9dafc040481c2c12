// <hw-exercise-seeds>: exercise 1. The student's own seed, with 2 and with 4 heads, on the
// current tokens and d_model: each head's row for the query token and every pair's verdict.

import { concerns } from '../shared/state/errors.js';
import { HwElement, define } from '../shared/ui/element.js';
import { forget } from '../shared/ui/redraw-guard.js';
import { h, morph, code } from '../shared/ui/dom.js';
import { fmt3 } from '../shared/ui/format.js';
import { divergenceText } from './hw-head-weights.js';
import { cellColors, prefersDark } from '../shared/ui/color.js';
import { tokenHeader } from '../shared/ui/tokens.js';
import { reflectNumber, settingField, showError } from '../shared/ui/forms.js';
import { SIZE_CONTROLS } from '../shared/state/lesson-runs.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/** Query rows are drawn as tables up to this many tokens. */
const ROW_MAX_TOKENS = 16;

class HwExerciseSeeds extends HwElement {
  build() {
    this.computes = ['experiment', 'ex1'];
    const { wrap, input, error, id } = settingField(this, 'ex1Seed', this.t('ex1.seed.label'), this.t('ex1.seed.hint'));
    this.input = input;
    this.error = error;
    this.seedControl = id;
    this.context = h('p', { class: 'hw-hint' });
    this.results = h('div', { class: 'hw-ex-results' });
    this.appendChild(h('div', { class: 'hw-ex-controls' }, [wrap]));
    this.appendChild(this.context);
    this.appendChild(this.results);
    this.onTheme(() => { forget(this, 'view'); this.refresh(); });
  }

  /** @param {Store} store */
  update(store) {
    const s = store.state;
    reflectNumber(this.input, s.ex1Seed);
    const missing = store.inputErrors[this.seedControl];
    const mainMissing = SIZE_CONTROLS.find((c) => store.inputErrors[c]);
    // Computed with the main experiment's rules (Store.seeds): never what the main one refuses.
    const ex = store.seeds();
    const blocksIn = ex.state === 'done' ? ex.blocks : null;
    const fresh = this.changed('view', [s.ex1Seed, s.tokens, s.dModel, s.bias, s.causal, s.query, s.labels.slice(0, 64), missing, mainMissing, ex.state, ex.error || '', prefersDark(store)]);
    if (!fresh && blocksIn === this._blocks) return;
    if ((ex.state === 'pending' || ex.state === 'waiting') && this._blocks) return;  // the previous ones stay, dimmed
    this._blocks = blocksIn;
    const extras = `${s.bias ? this.t('ex1.context.bias') : ''}${s.causal ? this.t('ex1.context.causal') : ''}`;
    morph(this.context, [this.t('ex1.context.text', { tokens: s.tokens, dModel: s.dModel, extras, query: s.query })]);
    const lang = this.language;
    if (missing) {
      showError(this.error, this.input, missing, lang);
      morph(this.results, []);
      return;
    }
    if (mainMissing) {
      showError(this.error, this.input, null, lang);
      morph(this.results, [h('p', { class: 'hw-hint', text: this.t('ex1.mainMissing') })]);
      return;
    }
    if (ex.state === 'blocked') {
      showError(this.error, this.input, null, lang);
      morph(this.results, [h('p', { class: 'hw-hint', 'data-testid': 'ex1-blocked', text: this.t('ex1.blocked') })]);
      return;
    }
    if (ex.state === 'error') {
      showError(this.error, this.input, null, lang);
      morph(this.results, [h('p', { class: 'hw-error', role: 'alert', text: this.say(ex.error || '') })]);
      return;
    }
    if (!blocksIn) {
      morph(this.results, []);
      return;
    }
    let seedError = null;
    const dark = prefersDark(store);
    const blocks = blocksIn.map((/** @type {any} */ b) => {
      const numHeads = b.numHeads;
      if (b.error) {
        const message = b.error;
        if (concerns(message, 'seed')) seedError = message;
        return h('section', { class: 'hw-ex-block', 'data-heads': String(numHeads) }, [
          h('h4', { text: this.t('common.heads', { count: numHeads }) }),
          h('p', { class: 'hw-error', role: 'alert', 'data-error-for': `ex1-${numHeads}`, text: this.say(message) }),
        ]);
      }
      const q = Math.min(s.query, b.tokens - 1);
      const pairs = b.pairs;
      const differing = pairs.filter((/** @type {any} */ p) => !p.allclose).length;
      const verdict = h('p', { class: 'hw-verdict', 'data-testid': 'ex1-verdict', 'data-heads': String(numHeads), 'data-same': String(pairs.every((/** @type {any} */ p) => p.allclose)) }, [
        h('strong', { text: this.t(differing === pairs.length ? 'ex1.allDifferent' : differing === 0 ? 'ex1.allSame' : 'ex1.mixed') }),
        this.t('common.sentenceGap'),
        ...this.tNodes('ex1.differ', { differing, count: pairs.length, call: code('np.allclose') }),
      ]);
      return h('section', { class: 'hw-ex-block', 'data-heads': String(numHeads) }, [
        h('h4', { text: this.t('ex1.blockTitle', { count: numHeads, dHead: b.dHead }) }),
        b.weights && b.tokens <= ROW_MAX_TOKENS ? this.rowsTable(store, { tokens: b.tokens, numHeads, headWeights: b.weights }, q, dark) : h('p', { class: 'hw-hint', text: this.t('ex1.rowsHidden', { max: ROW_MAX_TOKENS, tokens: b.tokens }) }),
        verdict,
        h('ul', { class: 'hw-pair-list' }, pairs.map((/** @type {any} */ p) => h('li', { 'data-testid': 'ex1-pair', 'data-heads': String(numHeads), 'data-a': String(p.a), 'data-b': String(p.b), 'data-allclose': String(p.allclose) },
          this.tNodes('ex1.pair', {
            a: p.a, b: p.b, verdict: h('strong', { text: this.t(p.allclose ? 'heads.table.same' : 'heads.table.different') }), divergence: divergenceText(p.meanJsDivergence, this.language),
          })))),
      ]);
    });
    showError(this.error, this.input, seedError, this.language);
    morph(this.results, blocks);
  }

  /**
   * Heads as rows, key tokens as columns: each head's weights for query token q.
   * @param {Store} store
   * @param {any} run
   * @param {number} q
   * @param {boolean} dark
   */
  rowsTable(store, run, q, dark) {
    const n = run.tokens;
    const head = h('tr', {}, [h('th', { scope: 'col', text: this.t('ex1.rowsCorner', { q }) })]);
    for (let j = 0; j < n; j += 1) head.appendChild(h('th', { scope: 'col' }, tokenHeader(store.state, j)));
    const rows = run.headWeights.map((/** @type {number[][]} */ w, /** @type {number} */ hd) => {
      const tr = h('tr', { 'data-head': String(hd) }, [h('th', { scope: 'row', text: this.t('pipeline.diagram.head', { head: hd }) })]);
      for (let j = 0; j < n; j += 1) {
        const { bg, fg } = cellColors(w[q][j], dark);
        const td = h('td', { 'data-col': String(j), text: fmt3(w[q][j]) });
        td.style.backgroundColor = bg;
        td.style.color = fg;
        tr.appendChild(td);
      }
      return tr;
    });
    return h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': this.t('ex1.rowsRegion', { count: run.numHeads }) }, [
      h('table', { class: 'hw-weights hw-weights-rows', 'data-testid': 'ex1-rows', 'data-heads': String(run.numHeads) }, [
        h('caption', { text: this.t('ex1.rowsCaption', { q, count: run.numHeads }) }),
        h('thead', {}, [head]),
        h('tbody', {}, rows),
      ]),
    ]);
  }
}

define('hw-exercise-seeds', HwExerciseSeeds);
