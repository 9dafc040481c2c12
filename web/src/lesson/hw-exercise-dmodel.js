// <hw-exercise-dmodel>: exercise 2. The student's own d_model: every head count that divides
// it, each with its parameter total from the module, and any head count they try, which the
// module refuses with its own message when it does not divide d_model.

import { HwElement, define } from '../shared/ui/element.js';
import { h, morph } from '../shared/ui/dom.js';
import { fmtInt } from '../shared/ui/format.js';
import { errorOf } from '../shared/state/errors.js';
import { reflectNumber, settingField, showError } from '../shared/ui/forms.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/**
 * The head counts to tabulate: the divisors of d (a listing, not a validity check: each one
 * still goes through the module). Empty for values that are not whole numbers.
 * @param {number} d
 * @returns {number[]}
 */
function headCountsFor(d) {
  if (!Number.isSafeInteger(d) || d < 1 || d > 1e12) return [];
  const small = [];
  const large = [];
  for (let i = 1; i * i <= d; i += 1) {
    if (d % i === 0) {
      small.push(i);
      if (i * i !== d) large.unshift(d / i);
    }
  }
  return [...small, ...large];
}

class HwExerciseDModel extends HwElement {
  build() {
    const dm = settingField(this, 'ex2DModel', this.t('ex2.dModel.label'), this.t('ex2.dModel.hint'));
    const hd = settingField(this, 'ex2Heads', this.t('ex2.heads.label'), this.t('ex2.heads.hint'));
    this.dm = dm;
    this.hd = hd;
    this.tableBox = h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': this.t('ex2.region') });
    this.verdict = h('p', { class: 'hw-verdict', 'data-testid': 'ex2-verdict', 'aria-live': 'polite' });
    this.tryResult = h('p', { class: 'hw-try', 'data-testid': 'ex2-try', 'aria-live': 'polite' });
    this.appendChild(h('div', { class: 'hw-ex-controls' }, [dm.wrap]));
    this.appendChild(this.verdict);
    this.appendChild(this.tableBox);
    this.appendChild(h('div', { class: 'hw-ex-controls' }, [hd.wrap]));
    this.appendChild(this.tryResult);
  }

  /** @param {Store} store */
  update(store) {
    const s = store.state;
    reflectNumber(this.dm.input, s.ex2DModel);
    reflectNumber(this.hd.input, s.ex2Heads);
    const dMissing = store.inputErrors[this.dm.id];
    const hMissing = store.inputErrors[this.hd.id];
    if (!this.changed('rows', [s.ex2DModel, s.ex2Heads, s.bias, dMissing, hMissing])) return;
    const bias = s.bias;

    // The table of every dividing head count.
    /** @type {import('../shared/state/errors.js').ErrorInfo|string|null} */
    let dError = dMissing || null;
    /** @type {{numHeads: number, total: number}[]} */
    const rows = [];
    if (!dMissing) {
      try {
        // Ask the module about d_model itself first (one head always divides).
        store.memo(`pc|${s.ex2DModel}|1|${bias}`, () => store.hw.parameterCount({ embedDim: s.ex2DModel, numHeads: 1, bias }));
        for (const numHeads of headCountsFor(/** @type {number} */ (s.ex2DModel))) {
          const c = store.memo(`pc|${s.ex2DModel}|${numHeads}|${bias}`, () => store.hw.parameterCount({ embedDim: s.ex2DModel, numHeads, bias }));
          rows.push({ numHeads, total: c.total });
        }
      } catch (e) {
        dError = errorOf(e);
      }
    }
    const lang = this.language;
    showError(this.dm.error, this.dm.input, dError, lang);
    if (dError || rows.length === 0) {
      morph(this.tableBox, []);
      morph(this.verdict, []);
      this.verdict.dataset.equal = '';
    } else {
      const equal = rows.every((r) => r.total === rows[0].total);
      this.verdict.dataset.equal = String(equal);
      const params = { count: rows.length, dModel: s.ex2DModel, total: equal ? fmtInt(rows[0].total) : '' };
      morph(this.verdict, [
        h('strong', { text: this.t(equal ? 'ex2.never' : 'ex2.changes') }),
        this.t('common.sentenceGap'),
        this.t(`ex2.verdict.${equal ? 'same' : 'different'}.${bias ? 'with' : 'without'}`, params),
      ]);
      morph(this.tableBox, [h('table', { class: 'hw-table hw-ex2-table' }, [
        h('caption', { translate: 'no', text: `nn.MultiheadAttention(${s.ex2DModel}, num_heads, bias=${bias ? 'True' : 'False'})` }),
        h('thead', {}, [h('tr', {}, [
          h('th', { scope: 'col', translate: 'no', text: 'num_heads' }),
          h('th', { scope: 'col', class: 'hw-num', translate: 'no', text: 'd_head' }),
          h('th', { scope: 'col', class: 'hw-num', text: this.t('ex2.totalHeader') }),
        ])]),
        h('tbody', {}, rows.map((r) => h('tr', { 'data-testid': 'ex2-row', 'data-heads': String(r.numHeads) }, [
          h('th', { scope: 'row', text: String(r.numHeads) }),
          h('td', { class: 'hw-num', text: String(/** @type {number} */ (s.ex2DModel) / r.numHeads) }),
          h('td', { class: 'hw-num', text: fmtInt(r.total) }),
        ]))),
      ])]);
    }

    // The head count the student tries.
    if (hMissing) {
      showError(this.hd.error, this.hd.input, hMissing, lang);
      morph(this.tryResult, []);
      return;
    }
    if (dMissing) {
      showError(this.hd.error, this.hd.input, null, lang);
      morph(this.tryResult, []);
      return;
    }
    try {
      const c = store.memo(`pc|${s.ex2DModel}|${s.ex2Heads}|${bias}`, () => store.hw.parameterCount({ embedDim: s.ex2DModel, numHeads: s.ex2Heads, bias }));
      showError(this.hd.error, this.hd.input, null, lang);
      this.tryResult.dataset.accepted = 'true';
      morph(this.tryResult, [this.t('ex2.accepted', { count: /** @type {number} */ (s.ex2Heads), dModel: s.ex2DModel, total: fmtInt(c.total) })]);
    } catch (e) {
      const message = errorOf(e);
      // A problem with d_model itself is already shown beside the d_model field.
      showError(this.hd.error, this.hd.input, dError ? null : message, lang);
      this.tryResult.dataset.accepted = 'false';
      morph(this.tryResult, dError ? [] : [this.t('ex2.refused')]);
    }
  }
}

define('hw-exercise-dmodel', HwExerciseDModel);
