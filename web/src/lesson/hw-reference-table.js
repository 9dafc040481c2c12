// <hw-reference-table>: the lesson's reference table (single head vs h heads), filled in from
// the current run and the module's parameter counts.

import { HwElement, define } from '../shared/element.js';
import { h, morph, code } from '../shared/dom.js';
import { fmtInt } from '../shared/format.js';
import { messageOf } from '../shared/errors.js';

/** @typedef {import('../shared/store.js').Store} Store */

class HwReferenceTable extends HwElement {
  build() {
    this.computes = ['experiment'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    this.box = h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': 'Reference table' });
    this.appendChild(this.staleNote);
    this.appendChild(this.box);
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const run = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(run));
    if (!run) return;
    const key = JSON.stringify([run.dModel, run.numHeads, run.dHead, run.tokens, run.bias]);
    if (key === this.key) return;
    this.key = key;
    const d = run.dModel;
    const numHeads = run.numHeads;
    /** @param {number} heads */
    const total = (heads) => {
      try {
        return fmtInt(store.memo(`pc|${d}|${heads}|${run.bias}`, () => store.hw.parameterCount({ embedDim: d, numHeads: heads, bias: run.bias })).total);
      } catch (e) {
        return messageOf(e);
      }
    };
    const t1 = total(1);
    const th = total(numHeads);
    /**
     * @param {string} quantity
     * @param {(string|Node)[]} single
     * @param {(string|Node)[]} multi
     * @param {string} id
     */
    const row = (quantity, single, multi, id) => h('tr', { 'data-row': id }, [
      h('th', { scope: 'row', text: quantity }),
      h('td', { 'data-col': 'single' }, single),
      h('td', { 'data-col': 'multi' }, multi),
    ]);
    const table = h('table', { class: 'hw-table hw-reference', 'data-testid': 'reference-table' }, [
      h('caption', { text: `One head versus ${numHeads} heads at d_model = ${d}` }),
      h('thead', {}, [h('tr', {}, [
        h('th', { scope: 'col', text: 'Quantity' }),
        h('th', { scope: 'col', text: `Single head (d_k = d_model = ${d})` }),
        h('th', { scope: 'col', text: `${numHeads} head${numHeads === 1 ? '' : 's'} (d_head = d_model / ${numHeads} = ${run.dHead})` }),
      ])]),
      h('tbody', {}, [
        row('Wq, Wk, Wv, Wo shapes', [`${d} × ${d} each`], [`${d} × ${d} each (unchanged)`], 'shapes'),
        row(`Total parameters (${run.bias ? 'with' : 'without'} bias)`, [t1], [th, t1 === th ? ' (the same)' : ''], 'params'),
        row('Independent softmax computations', ['1'], [String(numHeads)], 'softmaxes'),
        row('Dimension each softmax works over (the query·key space its scores come from)', [String(d)], [String(run.dHead)], 'dimension'),
        row('Attention weights produced', [`one ${run.tokens} × ${run.tokens} matrix`], [`${numHeads} ${numHeads === 1 ? 'matrix' : 'matrices'} of ${run.tokens} × ${run.tokens}`], 'weights'),
      ]),
    ]);
    morph(this.box, [table]);
    if (!this.note) {
      this.note = h('p', { class: 'hw-hint' }, [
        'Each softmax runs along a row of scores, one per key token; the "dimension" above is the width of the query and key vectors those scores are dot products of. The parameter counts come from ',
        code('parameterCount'), ' in the module, the same numbers as the table above.',
      ]);
      this.appendChild(this.note);
    }
  }
}

define('hw-reference-table', HwReferenceTable);
