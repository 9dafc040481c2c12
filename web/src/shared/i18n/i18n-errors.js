// Errors written in the reader's language. An error is a code, the field it concerns and the
// parameters it quotes (the module's Errors carry them: cpp/api.d.ts HeadwiseError; the page's
// own are src/shared/state/errors.js PageErrors); its sentence is the catalogue's, never read
// back from its English message:
//   the module's codes are single words, keys errors.code.<code> ("range": errors.code.range);
//   the page's own codes are their keys ("errors.hash.twice").
// A field is written as errors.field.<field> says (the name the module uses for it, "d_model");
// a parameter that is an error itself (the reason of "Training stopped: …") is written in turn; a
// list of names is joined as the language joins a list. An error without a code (a browser's own
// exception) is shown as its message, as it is.

import { has, t } from './i18n.js';

/**
 * @typedef {object} Coded  what an error says, as a program reads it
 * @property {string} code
 * @property {string|null} [field]
 * @property {Record<string, unknown>} [params]
 * @property {string} [message]  its English sentence (for consoles), never read here
 */

/**
 * The catalogue key of a code.
 * @param {string} code
 */
export function keyOfCode(code) {
  return code.startsWith('errors.') ? code : `errors.code.${code}`;
}

/**
 * Whether `value` is a coded error (an Error or a plain object with a string code).
 * @param {unknown} value
 * @returns {value is Coded}
 */
export function isCoded(value) {
  return value !== null && typeof value === 'object' && typeof (/** @type {any} */ (value).code) === 'string';
}

/**
 * A field's name as `lang` writes it (the field itself where the catalogue has no entry: an
 * identifier such as wq is written as it is in every language).
 * @param {unknown} field
 * @param {string} lang
 */
export function fieldName(field, lang) {
  const key = `errors.field.${field}`;
  return has(key) ? t(key, {}, lang) : String(field);
}

/**
 * One parameter as the sentence shows it.
 * @param {string} name
 * @param {unknown} value
 * @param {string} lang
 * @param {number} depth
 * @returns {string}
 */
function shown(name, value, lang, depth) {
  if (isCoded(value)) return translateError(value, lang, depth + 1);
  if (Array.isArray(value)) return value.map((v) => shown(name, v, lang, depth)).join(t('common.listSeparator', {}, lang));
  if (name === 'field' || name.endsWith('Field')) return fieldName(value, lang);
  return String(value);
}

/**
 * An error as the reader of `lang` reads it: the catalogue's sentence for its code, filled with
 * its parameters (its field as {field}). A text, or an error without a code the catalogue knows,
 * is shown as it is.
 * @param {unknown} error  a coded error (or anything thrown)
 * @param {string} lang
 * @param {number} [depth]
 * @returns {string}
 */
export function translateError(error, lang, depth = 0) {
  if (error === null || error === undefined || error === '') return '';
  if (!isCoded(error)) return error instanceof Error ? error.message : String(error);
  const key = keyOfCode(error.code);
  if (!has(key) || depth > 4) return String(error.message ?? error.code);
  /** @type {Record<string, string>} */
  const params = {};
  for (const [name, value] of Object.entries(error.params || {})) params[name] = shown(name, value, lang, depth);
  params.field = error.field ? fieldName(error.field, lang) : '';
  return t(key, params, lang);
}
