// The form helpers of the lesson's and the training sections' controls: a labelled number field
// with its error slot, a setting's field (its id from the settings table), reading and reflecting
// its number, and showing a message beside a control.

import { h, setText } from './dom.js';
import { translateError } from '../i18n/i18n-errors.js';
import { SETTING } from '../state/settings.js';
import { PageError, errorOf } from '../state/errors.js';

/** @typedef {import('../state/settings.js').State} State */

/**
 * Parse a number field. Empty -> "required" problem; otherwise Number(value) goes through as is.
 * The problem is a coded error (input.required, input.notNumber), as the store keeps every error
 * (src/shared/i18n/i18n-errors.js says it in the widget's language).
 * @param {HTMLInputElement} input
 * @returns {{value: number|null, problem: import('../state/errors.js').ErrorInfo|null}}
 */
export function parseNumberField(input) {
  const raw = input.value.trim();
  const problem = (/** @type {string} */ code) => /** @type {import('../state/errors.js').ErrorInfo} */ (errorOf(new PageError(code)));
  if (raw === '') {
    return { value: null, problem: problem(input.validity && input.validity.badInput ? 'errors.input.notNumber' : 'errors.input.required') };
  }
  const n = Number(raw);
  if (Number.isNaN(n)) return { value: null, problem: problem('errors.input.notNumber') };
  return { value: n, problem: null };
}

/**
 * Keep a number input in step with the state without fighting the student's typing.
 * @param {HTMLInputElement} input
 * @param {number|null} value
 */
export function reflectNumber(input, value) {
  if (value === null) return; // the field holds what the student typed
  const typed = input.value.trim() === '' ? null : Number(input.value);
  if (typed !== value) input.value = String(value);
}

/**
 * A labelled number field with its error slot. Its autocomplete="off", like every stateful
 * control's on the page, keeps it out of the browser's saved form state, which Chromium writes
 * into the history entry on every history.replaceState (the page keeps its own state).
 * @param {string} id
 * @param {string} label
 * @param {string} hint
 */
export function numberField(id, label, hint) {
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id, name: id, type: 'number', step: '1', inputmode: 'numeric', autocomplete: 'off',
    'aria-describedby': `${id}-hint ${id}-error`,
  }));
  const error = h('p', { class: 'hw-error', id: `${id}-error`, 'data-error-for': id, role: 'alert' });
  const wrap = h('div', { class: 'hw-field' }, [
    h('label', { for: id, text: label }),
    input,
    h('p', { class: 'hw-hint', id: `${id}-hint`, text: hint }),
    error,
  ]);
  return { wrap, input, error };
}

/**
 * The number field of a setting, with the id of its control and its range (min, step, and max
 * where the page sets it) from the settings table: what the student types goes to the store as
 * that setting (an empty or unreadable value as the input error of its control,
 * `store.inputErrors[id]`; a value out of range as it is, for the module to judge).
 * @param {{store: any}} el  the widget whose store it sets
 * @param {keyof State} name
 * @param {string} label
 * @param {string} hint
 */
export function settingField(el, name, label, hint) {
  const { control: id, range } = SETTING[name];
  const field = numberField(id, label, hint);
  if (range) {
    field.input.min = String(range.min);
    field.input.step = String(range.step);
    if (typeof range.max === 'number') field.input.max = String(range.max);
  }
  field.input.addEventListener('input', () => {
    const { value, problem } = parseNumberField(field.input);
    el.store.setInputError(id, problem);
    el.store.set({ [name]: value }, id);
  });
  return { ...field, id };
}

/**
 * Show (or clear) an error in a slot and mark the input invalid.
 * @param {HTMLElement} slot
 * @param {HTMLElement|null} input
 * @param {unknown} message  a coded error (the module's or the page's), or nothing
 * @param {string} lang  the language to show it in (src/shared/i18n/i18n-errors.js)
 */
export function showError(slot, input, message, lang) {
  // Written only when it changes: every update passes here, and an attribute set again, even
  // to its own value, costs the sidebar a style and layout pass.
  setText(slot, message ? translateError(message, lang) : '');
  if (slot.hidden !== !message) slot.hidden = !message;
  if (input) {
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
}
