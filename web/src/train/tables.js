// One head's attention on the probe sequence as a small table, built once and then updated in
// place: only cells whose shown value changed are touched. Row i is query position i; the
// cells where a relation's answer sits (x[i-1], x[0], ...) are marked, so a head that has learnt
// a relation shows as a coloured diagonal or column inside its outline.

import { h } from '../shared/ui/dom.js';
import { cellColors } from '../shared/ui/color.js';
import { t } from '../shared/i18n/i18n.js';

/**
 * A weight as a cell shows it: two decimals without the leading zero; "1" and "0" at the ends.
 * @param {number} x
 */
export function cellText(x) {
  if (x >= 0.995) return '1';
  if (x < 0.005) return '0';
  return x.toFixed(2).replace(/^0/, '');
}

export class HeadTable {
  /**
   * @param {object} o
   * @param {number} o.head
   * @param {string[]} o.labels  the probe's token labels
   * @param {number[][]} o.sources  sources[i][r]: relation r's source position at i (-1: none)
   * @param {string} o.lang      the language of its words
   */
  constructor({ head, labels, sources, lang }) {
    const n = labels.length;
    this.n = n;
    this.caption = h('caption', {}, [h('span', { class: 'hw-head-name', text: t('pipeline.diagram.head', { head }, lang) })]);
    const headRow = h('tr', {}, [h('td', { class: 'hw-corner', 'aria-hidden': 'true' })]);
    // The probe's tokens are letters of the task's vocabulary: names, never translated.
    for (let j = 0; j < n; j += 1) headRow.appendChild(h('th', { scope: 'col', title: t('train.table.key', { j }, lang), translate: 'no', text: labels[j] }));
    const body = h('tbody');
    /** @type {HTMLElement[][]} */
    this.cells = [];
    /** @type {string[][]} what each cell shows now */
    this.shown = [];
    for (let i = 0; i < n; i += 1) {
      const tr = h('tr', {}, [h('th', { scope: 'row', title: t('train.table.query', { i }, lang) }, [
        h('span', { class: 'hw-tok-idx', text: String(i) }), ' ', h('span', { class: 'hw-tok-label', translate: 'no', text: labels[i] }),
      ])]);
      const row = [];
      for (let j = 0; j < n; j += 1) {
        const rels = sources[i].map((src, r) => (src === j ? r : -1)).filter((r) => r >= 0);
        const td = h('td', { 'data-row': i, 'data-col': j, 'data-rel': rels.length ? rels.join(' ') : null, class: j > i ? 'hw-masked' : null });
        tr.appendChild(td);
        row.push(td);
      }
      this.cells.push(row);
      this.shown.push(new Array(n).fill(''));
      body.appendChild(tr);
    }
    this.table = h('table', { class: 'hw-weights hw-train-weights', 'data-head': head }, [this.caption, h('thead', {}, [headRow]), body]);
  }

  /**
   * @param {number[][]} weights (n, n)
   * @param {boolean} dark
   */
  update(weights, dark) {
    for (let i = 0; i < this.n; i += 1) {
      for (let j = 0; j <= i; j += 1) {
        const w = weights[i][j];
        const text = cellText(w);
        const key = `${text}${dark ? 'd' : 'l'}`;
        if (this.shown[i][j] === key) continue;
        this.shown[i][j] = key;
        const td = this.cells[i][j];
        td.textContent = text;
        const { bg, fg } = cellColors(w, dark);
        td.style.backgroundColor = bg;
        td.style.color = fg;
      }
    }
  }
}
