// <hw-reference-table>: the lesson's reference table (single head vs h heads), filled in from
// the current run and the module's parameter counts.

import { HwElement, define } from '../shared/ui/element.js';
import { h, morph, code } from '../shared/ui/dom.js';
import { fmtInt } from '../shared/ui/format.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

class HwReferenceTable extends HwElement {
  build() {
    this.computes = ['experiment'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    this.box = h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': this.t('reference.region') });
    this.appendChild(this.staleNote);
    this.appendChild(this.box);
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const run = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(run));
    if (!run) return;
    if (!this.changed('table', [run.dModel, run.numHeads, run.dHead, run.tokens, run.bias])) return;
    const d = run.dModel;
    const numHeads = run.numHeads;
    /** @param {number} heads */
    const total = (heads) => {
      try {
        return fmtInt(store.memo(`pc|${d}|${heads}|${run.bias}`, () => store.hw.parameterCount({ embedDim: d, numHeads: heads, bias: run.bias })).total);
      } catch (e) {
        return this.say(e);
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
      h('caption', { text: this.t('reference.caption', { count: numHeads, d }) }),
      h('thead', {}, [h('tr', {}, [
        h('th', { scope: 'col', text: this.t('reference.quantity') }),
        h('th', { scope: 'col', text: this.t('reference.single', { d }) }),
        h('th', { scope: 'col', text: this.t('reference.multi', { count: numHeads, dHead: run.dHead }) }),
      ])]),
      h('tbody', {}, [
        row(this.t('reference.shapes'), [this.t('reference.shapesSingle', { d })], [this.t('reference.shapesMulti', { d })], 'shapes'),
        row(this.t(run.bias ? 'reference.paramsWith' : 'reference.paramsWithout'), [t1], [th, t1 === th ? this.t('reference.same') : ''], 'params'),
        row(this.t('reference.softmaxes'), ['1'], [String(numHeads)], 'softmaxes'),
        row(this.t('reference.dimension'), [String(d)], [String(run.dHead)], 'dimension'),
        row(this.t('reference.weights'), [this.t('reference.weightsSingle', { n: run.tokens })], [this.t('reference.weightsMulti', { count: numHeads, n: run.tokens })], 'weights'),
      ]),
    ]);
    morph(this.box, [table]);
    if (!this.note) {
      this.note = h('p', { class: 'hw-hint' }, this.tNodes('reference.note', { method: code('parameterCount') }));
      this.appendChild(this.note);
    }
  }
}

define('hw-reference-table', HwReferenceTable);
