// <hw-exercise-seeds>: exercise 1. The student's own seed, with 2 and with 4 heads, on the
// current tokens and d_model: each head's row for the query token and every pair's verdict.

import { HwElement, define } from '../shared/element.js';
import { h, morph, code } from '../shared/dom.js';
import { fmt3 } from '../shared/format.js';
import { divergenceText } from './hw-head-weights.js';
import { cellColors, prefersDark } from '../shared/color.js';
import { tokenHeader } from '../shared/tokens.js';
import { numberField, parseNumberField, reflectNumber, showError } from './hw-controls.js';

/** @typedef {import('../shared/store.js').Store} Store */

/** Query rows are drawn as tables up to this many tokens. */
const ROW_MAX_TOKENS = 16;

class HwExerciseSeeds extends HwElement {
  build() {
    this.computes = ['experiment', 'ex1'];
    const { wrap, input, error } = numberField('ex1-seed', 'Your seed', 'Any whole number from 0 to 4294967295.');
    this.input = input;
    this.error = error;
    input.addEventListener('input', () => {
      const { value, problem } = parseNumberField(input);
      this.store.setInputError('ex1-seed', problem);
      this.store.set({ ex1Seed: value }, 'ex1-seed');
    });
    this.context = h('p', { class: 'hw-hint' });
    this.results = h('div', { class: 'hw-ex-results' });
    this.appendChild(h('div', { class: 'hw-ex-controls' }, [wrap]));
    this.appendChild(this.context);
    this.appendChild(this.results);
    if (typeof matchMedia === 'function') {
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { this.key = ''; this.refresh(); });
    }
  }

  /** @param {Store} store */
  update(store) {
    const s = store.state;
    reflectNumber(this.input, s.ex1Seed);
    const missing = store.inputErrors['ex1-seed'];
    const mainMissing = ['tokens', 'd-model'].find((c) => store.inputErrors[c]);
    // Computed with the main experiment's rules (Store.seeds): never what the main one refuses.
    const ex = store.seeds();
    const blocksIn = ex.state === 'done' ? ex.blocks : null;
    const key = JSON.stringify([s.ex1Seed, s.tokens, s.dModel, s.bias, s.causal, s.query, s.labels.slice(0, 64), missing, mainMissing, ex.state, ex.error || '', prefersDark(store)]);
    if (key === this.key && blocksIn === this._blocks) return;
    if ((ex.state === 'pending' || ex.state === 'waiting') && this._blocks) return;  // the previous ones stay, dimmed
    this.key = key;
    this._blocks = blocksIn;
    morph(this.context, [
      `Same recipe as above with your seed: ${s.tokens} tokens, d_model = ${s.dModel}${s.bias ? ', with bias' : ''}${s.causal ? ', causal mask' : ''}; the rows shown are for query token ${s.query}. Tokens and d_model come from the settings.`,
    ]);
    if (missing) {
      showError(this.error, this.input, missing);
      morph(this.results, []);
      return;
    }
    if (mainMissing) {
      showError(this.error, this.input, null);
      morph(this.results, [h('p', { class: 'hw-hint', text: 'Enter the token count and d_model in the settings first.' })]);
      return;
    }
    if (ex.state === 'blocked') {
      showError(this.error, this.input, null);
      morph(this.results, [h('p', { class: 'hw-hint', 'data-testid': 'ex1-blocked', text: 'Exercise 1 uses the settings\' tokens and d_model: it runs once the settings above compute.' })]);
      return;
    }
    if (ex.state === 'error') {
      showError(this.error, this.input, null);
      morph(this.results, [h('p', { class: 'hw-error', role: 'alert', text: ex.error || '' })]);
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
        if (/\bseed\b/.test(message.replace(/^[A-Za-z]+: /, ''))) seedError = message;
        return h('section', { class: 'hw-ex-block', 'data-heads': String(numHeads) }, [
          h('h4', { text: `${numHeads} heads` }),
          h('p', { class: 'hw-error', role: 'alert', 'data-error-for': `ex1-${numHeads}`, text: message }),
        ]);
      }
      const q = Math.min(s.query, b.tokens - 1);
      const pairs = b.pairs;
      const differing = pairs.filter((/** @type {any} */ p) => !p.allclose).length;
      const verdict = h('p', { class: 'hw-verdict', 'data-testid': 'ex1-verdict', 'data-heads': String(numHeads), 'data-same': String(pairs.every((/** @type {any} */ p) => p.allclose)) }, [
        h('strong', { text: differing === pairs.length ? 'All different. ' : differing === 0 ? 'All the same. ' : 'Mixed. ' }),
        `${differing} of ${pairs.length} pair${pairs.length === 1 ? '' : 's'} differ (`,
        code('np.allclose'), ' is False for them).',
      ]);
      return h('section', { class: 'hw-ex-block', 'data-heads': String(numHeads) }, [
        h('h4', { text: `${numHeads} heads (d_head = ${b.dHead})` }),
        b.weights && b.tokens <= ROW_MAX_TOKENS ? this.rowsTable(store, { tokens: b.tokens, numHeads, headWeights: b.weights }, q, dark) : h('p', { class: 'hw-hint', text: `Rows are shown for ${ROW_MAX_TOKENS} tokens or fewer; the verdicts below cover all ${b.tokens}.` }),
        verdict,
        h('ul', { class: 'hw-pair-list' }, pairs.map((/** @type {any} */ p) => h('li', { 'data-testid': 'ex1-pair', 'data-heads': String(numHeads), 'data-a': String(p.a), 'data-b': String(p.b), 'data-allclose': String(p.allclose) }, [
          `heads ${p.a} and ${p.b}: `,
          h('strong', { text: p.allclose ? 'same' : 'different' }),
          `, divergence ${divergenceText(p.meanJsDivergence)}`,
        ]))),
      ]);
    });
    showError(this.error, this.input, seedError);
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
    const head = h('tr', {}, [h('th', { scope: 'col', text: `query ${q} → key` })]);
    for (let j = 0; j < n; j += 1) head.appendChild(h('th', { scope: 'col' }, tokenHeader(store.state, j)));
    const rows = run.headWeights.map((/** @type {number[][]} */ w, /** @type {number} */ hd) => {
      const tr = h('tr', { 'data-head': String(hd) }, [h('th', { scope: 'row', text: `head ${hd}` })]);
      for (let j = 0; j < n; j += 1) {
        const { bg, fg } = cellColors(w[q][j], dark);
        const td = h('td', { 'data-col': String(j), text: fmt3(w[q][j]) });
        td.style.backgroundColor = bg;
        td.style.color = fg;
        tr.appendChild(td);
      }
      return tr;
    });
    return h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': `Query row, ${run.numHeads} heads` }, [
      h('table', { class: 'hw-weights hw-weights-rows', 'data-testid': 'ex1-rows', 'data-heads': String(run.numHeads) }, [
        h('caption', { text: `Token ${q}'s attention in each of the ${run.numHeads} heads` }),
        h('thead', {}, [head]),
        h('tbody', {}, rows),
      ]),
    ]);
  }
}

define('hw-exercise-seeds', HwExerciseSeeds);
