// <hw-param-table>: nn.MultiheadAttention's named_parameters() for 1, 2, 4 and 8 heads at the
// chosen d_model (bias on or off), as the module reports them, with the totals compared.

import { HwElement, define } from '../shared/ui/element.js';
import { h, morph, code } from '../shared/ui/dom.js';
import { fmtInt, shapeStr } from '../shared/ui/format.js';
import { SETTING } from '../shared/state/settings.js';
import { t } from '../shared/i18n/i18n.js';
import { translateError } from '../shared/i18n/i18n-errors.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

export const HEAD_COUNTS = [1, 2, 4, 8];

/**
 * One parameter table (a real <table> with headers).
 * @param {{total: number, tensors: {name: string, shape: number[], numel: number}[]}} count
 * @param {string} caption
 * @param {string} lang
 * @param {Record<string, string>} [attrs]
 */
export function paramTable(count, caption, lang, attrs = {}) {
  return h('table', { class: 'hw-table hw-param-table', ...attrs }, [
    h('caption', { translate: 'no', text: caption }),
    h('thead', {}, [h('tr', {}, [
      h('th', { scope: 'col', text: t('params.table.parameter', {}, lang) }),
      h('th', { scope: 'col', text: t('params.table.shape', {}, lang) }),
      h('th', { scope: 'col', class: 'hw-num', text: t('params.table.count', {}, lang) }),
    ])]),
    h('tbody', {}, count.tensors.map((t) => h('tr', { 'data-name': t.name }, [
      h('th', { scope: 'row' }, [code(t.name)]),
      h('td', { class: 'hw-mono', text: shapeStr(t.shape) }),
      h('td', { class: 'hw-num', text: fmtInt(t.numel) }),
    ]))),
    h('tfoot', {}, [h('tr', {}, [
      h('th', { scope: 'row', colspan: '2', text: t('params.table.total', {}, lang) }),
      h('td', { class: 'hw-num', 'data-testid': 'param-total', text: fmtInt(count.total) }),
    ])]),
  ]);
}

class HwParamTable extends HwElement {
  build() {
    this.tables = h('div', { class: 'hw-param-grid' });
    this.verdict = h('p', { class: 'hw-verdict', 'data-testid': 'param-verdict', 'aria-live': 'polite' });
    this.why = h('div', { class: 'hw-why', 'data-testid': 'param-why' });
    this.appendChild(this.verdict);
    this.appendChild(this.tables);
    this.appendChild(this.why);
  }

  /** @param {Store} store */
  update(store) {
    const s = store.state;
    const missing = store.inputErrors[SETTING.dModel.control];
    if (!this.changed('tables', [s.dModel, s.bias, missing])) return;
    if (missing) {
      morph(this.verdict, [this.t('params.table.missing')]);
      this.verdict.dataset.equal = '';
      return;
    }
    /** @type {{numHeads: number, count: import('../../../cpp/api').ParameterCountResult}[]} */
    const counts = [];
    const cells = HEAD_COUNTS.map((numHeads) => {
      try {
        const count = store.memo(`pc|${s.dModel}|${numHeads}|${s.bias}`, () => store.hw.parameterCount({ embedDim: s.dModel, numHeads, bias: s.bias }));
        counts.push({ numHeads, count });
        return h('div', { class: 'hw-param-cell' }, [paramTable(count, `num_heads = ${numHeads}`, this.language, { 'data-testid': 'param-table', 'data-heads': String(numHeads) })]);
      } catch (e) {
        return h('div', { class: 'hw-param-cell hw-param-refused', 'data-heads': String(numHeads) }, [
          h('p', { class: 'hw-param-refused-title', translate: 'no', text: `num_heads = ${numHeads}` }),
          h('p', { class: 'hw-error', role: 'alert', 'data-error-for': `param-${numHeads}`, text: translateError(e, this.language) }),
        ]);
      }
    });
    morph(this.tables, cells);

    const totals = counts.map((c) => c.count.total);
    const equal = totals.length > 0 && totals.every((t) => t === totals[0]);
    this.verdict.dataset.equal = String(equal);
    if (counts.length === 0) {
      morph(this.verdict, [this.t('params.table.none')]);
    } else {
      const totals = counts.map((c) => this.t('params.table.totalFor', { total: fmtInt(c.count.total), count: c.numHeads })).join(this.t('common.listSeparator'));
      const gap = this.t('common.sentenceGap');
      morph(this.verdict, [
        h('strong', { text: this.t(equal ? 'params.table.equal' : 'params.table.differ') }),
        gap + this.t(s.bias ? 'params.table.atWith' : 'params.table.atWithout', { dModel: s.dModel, totals })
          + (counts.length < HEAD_COUNTS.length ? gap + this.t('params.table.refused') : ''),
      ]);
    }

    // Why: the same tensors whatever the head count.
    if (counts.length) {
      const tensors = counts[0].count.tensors;
      /** @param {string} name */
      const find = (name) => tensors.find((x) => x.name === name);
      const inW = find('in_proj_weight');
      const outW = find('out_proj.weight');
      const inB = find('in_proj_bias');
      const outB = find('out_proj.bias');
      // Between two sentences, what the language puts there (a space; nothing in Chinese).
      const gap = this.t('common.sentenceGap');
      const parts = [
        h('p', {}, [
          ...this.tNodes('params.why.noHeads'), gap,
          ...(inW ? this.tNodes('params.why.inProj', { name: code('in_proj_weight'), shape: shapeStr(inW.shape), numel: fmtInt(inW.numel) }) : [code('in_proj_weight')]), gap,
          ...(outW ? this.tNodes('params.why.outProj', { name: code('out_proj.weight'), shape: shapeStr(outW.shape), numel: fmtInt(outW.numel) }) : [code('out_proj.weight')]), gap,
          ...(inB && outB ? [...this.tNodes('params.why.bias', {
            inName: code('in_proj_bias'), inShape: shapeStr(inB.shape), outName: code('out_proj.bias'), outShape: shapeStr(outB.shape), numel: fmtInt(inB.numel + outB.numel),
          }), gap] : []),
          this.t('params.why.total', { sum: tensors.map((x) => fmtInt(x.numel)).join(' + '), total: fmtInt(counts[0].count.total) }),
        ]),
        h('p', { text: this.t('params.why.reshape') }),
      ];
      morph(this.why, parts);
    } else {
      morph(this.why, []);
    }
  }
}

define('hw-param-table', HwParamTable);
