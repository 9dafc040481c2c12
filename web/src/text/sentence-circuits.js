// "Your own sentence", the sum of paths and the circuits (hw-sentence.js draws them): for the
// chosen word, the logit of its guess (or of a word the student types) split by the text model
// (textModel.attribute, cpp/headwise/circuits.hpp) into the direct path and one term per head, as
// bars that add up to it; and the model's circuits (textModel.circuits, computed once per model):
// each head's copying and previous-position scores, the K-composition of every later head with
// every earlier one, and for a chosen head the words its OV circuit promotes from the chosen word
// (textModel.promoted). Every number comes from the module; this file only lays them out.

import { h, replace, setText } from '../shared/ui/dom.js';
import { paintCell } from '../shared/ui/color.js';

/** How many promoted words are listed. */
export const PROMOTED_K = 8;

/** @param {number} x */
const f2 = (x) => x.toFixed(2);

/**
 * A signed number as the bars label it: "+1.40", "−0.68" (a true minus sign).
 * @param {number} x
 */
export function signed(x) {
  const s = f2(Math.abs(x));
  if (s === '0.00') return s;
  return x < 0 ? `\u2212${s}` : `+${s}`;
}

/**
 * The terms of an attribution in the bars' order: the direct path, then every head by layer.
 * @param {{direct: number, heads: number[][]}} a
 * @returns {{part: string, layer: number, head: number, value: number}[]}
 */
export function attributionParts(a) {
  const parts = [{ part: 'direct', layer: -1, head: -1, value: a.direct }];
  a.heads.forEach((row, l) => row.forEach((value, k) => parts.push({ part: `${l},${k}`, layer: l, head: k, value })));
  return parts;
}

/**
 * The bars: one row per term, drawn from a zero line in the middle, scaled by the largest term;
 * then the sum and the model's logit.
 * @param {HTMLElement} list  the <ol> to fill
 * @param {any} a  textModel.attribute's result
 * @param {(part: {layer: number, head: number}) => string} name  a term's label
 */
export function drawBars(list, a, name) {
  const parts = attributionParts(a);
  const scale = Math.max(...parts.map((p) => Math.abs(p.value)), 1e-12);
  replace(list, parts.map((p) => {
    const bar = h('span', { class: `hw-split-bar${p.value < 0 ? ' hw-split-neg' : ''}`, 'aria-hidden': 'true' });
    const half = (50 * Math.abs(p.value)) / scale;
    bar.style.width = `${half.toFixed(2)}%`;
    bar.style.left = p.value < 0 ? `${(50 - half).toFixed(2)}%` : '50%';
    return h('li', { class: 'hw-split-row', 'data-testid': 'split-part', 'data-part': p.part, 'data-value': String(p.value) }, [
      h('span', { class: 'hw-split-name', text: name(p) }),
      h('span', { class: 'hw-split-track', 'aria-hidden': 'true' }, [h('span', { class: 'hw-split-zero' }), bar]),
      h('span', { class: 'hw-split-value', text: signed(p.value) }),
    ]);
  }));
  return parts.reduce((s, p) => s + p.value, 0);
}

/**
 * A table of numbers in [0, 1] coloured by the page's ramp (each cell's colour is its value over
 * `top`, so the strongest cell is the darkest).
 * @param {string[]} columns  header labels (the first is the corner)
 * @param {{label: string, values: number[], attrs?: Record<string, string|number>}[]} rows
 * @param {{dark: boolean, top?: number, testid: string, caption: string, digits?: number}} o
 */
export function scoreTable(columns, rows, o) {
  const top = o.top ?? 1;
  return h('div', { class: 'hw-scroll', tabindex: '0', role: 'region', 'aria-label': o.caption }, [h('table', { class: 'hw-table hw-circuits-table', 'data-testid': o.testid }, [
    h('caption', { text: o.caption }),
    h('thead', {}, [h('tr', {}, columns.map((c, i) => h('th', { scope: 'col', text: c, class: i ? 'hw-num' : null })))]),
    h('tbody', {}, rows.map((r) => h('tr', r.attrs || {}, [
      h('th', { scope: 'row', text: r.label }),
      ...r.values.map((v) => {
        const td = h('td', { class: 'hw-num', 'data-value': String(v), text: v.toFixed(o.digits ?? 2) });
        paintCell(td, top > 0 ? v / top : 0, o.dark);
        return td;
      }),
    ]))),
  ])]);
}

/**
 * The promoted words as a list: "states +5.12".
 * @param {HTMLElement} list
 * @param {{word: string, value: number}[]} promoted
 * @param {(w: string) => string} wordText
 */
export function drawPromoted(list, promoted, wordText) {
  replace(list, promoted.map((p) => h('li', { 'data-word': p.word, 'data-value': String(p.value) }, [
    h('span', { class: 'hw-circuits-word', translate: p.word === '<unk>' ? null : 'no', lang: p.word === '<unk>' ? null : 'en', text: wordText(p.word) }),
    ' ',
    h('span', { class: 'hw-num', text: signed(p.value) }),
  ])));
}

/**
 * Update a paragraph's text and its data-* values in one step.
 * @param {HTMLElement} el
 * @param {string} text
 * @param {Record<string, string>} data
 */
export function setLine(el, text, data) {
  setText(el, text);
  for (const [k, v] of Object.entries(data)) el.dataset[k] = v;
}
