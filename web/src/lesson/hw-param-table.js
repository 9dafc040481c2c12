// <hw-param-table>: nn.MultiheadAttention's named_parameters() for 1, 2, 4 and 8 heads at the
// chosen d_model (bias on or off), as the module reports them, with the totals compared.

import { HwElement, define } from '../shared/element.js';
import { h, morph, code } from '../shared/dom.js';
import { fmtInt, shapeStr } from '../shared/format.js';
import { messageOf } from '../shared/errors.js';

/** @typedef {import('../shared/store.js').Store} Store */

export const HEAD_COUNTS = [1, 2, 4, 8];

/**
 * One parameter table (a real <table> with headers).
 * @param {{total: number, tensors: {name: string, shape: number[], numel: number}[]}} count
 * @param {string} caption
 * @param {Record<string, string>} [attrs]
 */
export function paramTable(count, caption, attrs = {}) {
  return h('table', { class: 'hw-table hw-param-table', ...attrs }, [
    h('caption', { text: caption }),
    h('thead', {}, [h('tr', {}, [
      h('th', { scope: 'col', text: 'Parameter' }),
      h('th', { scope: 'col', text: 'Shape' }),
      h('th', { scope: 'col', class: 'hw-num', text: 'Count' }),
    ])]),
    h('tbody', {}, count.tensors.map((t) => h('tr', { 'data-name': t.name }, [
      h('th', { scope: 'row' }, [code(t.name)]),
      h('td', { class: 'hw-mono', text: shapeStr(t.shape) }),
      h('td', { class: 'hw-num', text: fmtInt(t.numel) }),
    ]))),
    h('tfoot', {}, [h('tr', {}, [
      h('th', { scope: 'row', colspan: '2', text: 'Total' }),
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
    const missing = store.inputErrors['d-model'];
    const key = JSON.stringify([s.dModel, s.bias, missing]);
    if (key === this.key) return;
    this.key = key;
    if (missing) {
      morph(this.verdict, ['Enter a d_model (in the settings) to count the parameters.']);
      this.verdict.dataset.equal = '';
      return;
    }
    /** @type {any[]} */
    const counts = [];
    const cells = HEAD_COUNTS.map((numHeads) => {
      try {
        const count = store.memo(`pc|${s.dModel}|${numHeads}|${s.bias}`, () => store.hw.parameterCount({ embedDim: s.dModel, numHeads, bias: s.bias }));
        counts.push({ numHeads, count });
        return h('div', { class: 'hw-param-cell' }, [paramTable(count, `num_heads = ${numHeads}`, { 'data-testid': 'param-table', 'data-heads': String(numHeads) })]);
      } catch (e) {
        return h('div', { class: 'hw-param-cell hw-param-refused', 'data-heads': String(numHeads) }, [
          h('p', { class: 'hw-param-refused-title', text: `num_heads = ${numHeads}` }),
          h('p', { class: 'hw-error', role: 'alert', 'data-error-for': `param-${numHeads}`, text: messageOf(e) }),
        ]);
      }
    });
    morph(this.tables, cells);

    const totals = counts.map((c) => c.count.total);
    const equal = totals.length > 0 && totals.every((t) => t === totals[0]);
    this.verdict.dataset.equal = String(equal);
    if (counts.length === 0) {
      morph(this.verdict, ['No head count could be built with this d_model; see the messages below.']);
    } else {
      morph(this.verdict, [
        h('strong', { text: equal ? 'Equal totals. ' : 'Totals differ. ' }),
        `At d_model = ${s.dModel}${s.bias ? ' with' : ' without'} bias: `,
        counts.map((c) => `${fmtInt(c.count.total)} (${c.numHeads} head${c.numHeads === 1 ? '' : 's'})`).join(', '),
        counts.length < HEAD_COUNTS.length ? '. Head counts that do not divide d_model are refused by the module.' : '.',
      ]);
    }

    // Why: the same tensors whatever the head count.
    if (counts.length) {
      const t = counts[0].count.tensors;
      /** @param {string} name */
      const find = (name) => t.find((x) => x.name === name);
      const inW = find('in_proj_weight');
      const outW = find('out_proj.weight');
      const inB = find('in_proj_bias');
      const outB = find('out_proj.bias');
      const parts = [
        h('p', {}, [
          'None of these shapes mentions the number of heads. ',
          code('in_proj_weight'),
          inW ? ` ${shapeStr(inW.shape)} is Wq, Wk and Wv stacked: three d_model × d_model matrices, ${fmtInt(inW.numel)} numbers. ` : ' ',
          code('out_proj.weight'),
          outW ? ` ${shapeStr(outW.shape)} is Wo, ${fmtInt(outW.numel)} more. ` : ' ',
          inB && outB ? ['With bias, ', code('in_proj_bias'), ` ${shapeStr(inB.shape)} and `, code('out_proj.bias'), ` ${shapeStr(outB.shape)} add ${fmtInt(inB.numel + outB.numel)}. `] : '',
          `Total: ${t.map((x) => fmtInt(x.numel)).join(' + ')} = ${fmtInt(counts[0].count.total)}.`,
        ].flat()),
        h('p', { text: 'Splitting into heads happens after the projections (a reshape of Q, K and V), and joining them happens before the output projection (another reshape). Reshapes have no parameters, so the head count changes how the projected numbers are grouped, never how many weights there are.' }),
      ];
      morph(this.why, parts);
    } else {
      morph(this.why, []);
    }
  }
}

define('hw-param-table', HwParamTable);
