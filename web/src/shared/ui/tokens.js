// Token headers: the index always, the label beside it (bidi-isolated, visually truncated).

import { h } from './dom.js';
import { labelOf } from '../state/settings.js';

/** @typedef {import('../state/store.js').State} State */

/**
 * Content for a token's header cell.
 * @param {State} state
 * @param {number} i
 * @returns {HTMLElement[]}
 */
export function tokenHeader(state, i) {
  const label = labelOf(state, i);
  return [
    h('span', { class: 'hw-tok-idx', text: String(i) }),
    // The student's own name for the token (t3 by default): never translated.
    h('span', { class: 'hw-tok-label', dir: 'auto', translate: 'no', title: label, text: label }),
  ];
}

/**
 * "3 (cat)" as plain text, for readouts and aria labels.
 * @param {State} state
 * @param {number} i
 */
export function tokenText(state, i) {
  return `${i} (${labelOf(state, i)})`;
}
