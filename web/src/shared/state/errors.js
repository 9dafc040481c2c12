// Errors as codes. The module's Errors carry a code, the field (the option the student set: "seed",
// "dModel", "numHeads", "layers", "vocab") and the parameters their message quotes (cpp/api.d.ts
// HeadwiseError); the page's own refusals are PageErrors of the same shape. The page places an
// error by its field, through the settings table (each setting names the module's option it is
// passed as), and writes it from the catalogue by code (src/shared/i18n/i18n-errors.js). No
// message is ever read back: rewording one changes no placement and no translation.

import { translateError } from '../i18n/i18n-errors.js';
import { SETTINGS } from './settings.js';

/**
 * @typedef {object} ErrorInfo  an error as the page keeps it (plain, so it crosses to a Worker)
 * @property {string} code
 * @property {string|null} field
 * @property {Record<string, unknown>} params
 * @property {string} message  its English sentence, for consoles only
 */

/** The page's own refusal: its code (its catalogue key, errors.*), its parameters, its field. */
export class PageError extends Error {
  /**
   * @param {string} code     its catalogue key: 'errors.hash.twice'
   * @param {Record<string, unknown>} [params]  numbers, names, lists, or errors quoted in turn
   * @param {string|null} [field]  the setting (its module option) it concerns
   */
  constructor(code, params = {}, field = null) {
    super(translateError({ code, params, field }, 'en'));
    this.code = code;
    this.params = params;
    this.field = field;
  }
}

/**
 * "Training stopped: …" for a training section's error (a coded error, or what was thrown).
 * @param {unknown} error
 */
export function stopped(error) {
  return new PageError('errors.train.stopped', { reason: errorOf(error) });
}

/**
 * Anything thrown as the page keeps it: a coded error as an ErrorInfo (plain data; its
 * parameters that are errors too, likewise), or the message of what was thrown without a code
 * (a browser's own exception: shown as it is).
 * @param {unknown} e
 * @returns {ErrorInfo|string}
 */
export function errorOf(e) {
  if (e === null || typeof e !== 'object' || typeof (/** @type {any} */ (e).code) !== 'string') return messageOf(e);
  const c = /** @type {any} */ (e);
  /** @type {Record<string, unknown>} */
  const params = {};
  for (const [k, v] of Object.entries(c.params || {})) params[k] = v !== null && typeof v === 'object' && typeof v.code === 'string' ? errorOf(v) : v;
  return { code: c.code, field: c.field ?? null, params, message: String(c.message ?? '') };
}

/**
 * The English message of anything thrown, for a console.
 * @param {unknown} e
 */
export function messageOf(e) {
  if (e instanceof Error) return e.message;
  if (e !== null && typeof e === 'object' && typeof (/** @type {any} */ (e).message) === 'string') return /** @type {any} */ (e).message;
  return String(e);
}

/**
 * The fields an error concerns, the first the one to change first: the divisor's ("d_model must
 * be divisible by num_heads": the head count), its field, and any it lists (the memory bound's
 * tokens, dModel, numHeads).
 * @param {unknown} e
 * @returns {string[]}
 */
export function fieldsOf(e) {
  if (e === null || typeof e !== 'object') return [];
  const c = /** @type {any} */ (e);
  const p = c.params || {};
  const all = [p.divisorField, c.field, ...(Array.isArray(p.fields) ? p.fields : [])];
  return [...new Set(all.filter((f) => typeof f === 'string' && f !== ''))];
}

/**
 * Whether an error concerns `field` (a module option: 'seed', 'layers').
 * @param {unknown} e
 * @param {string} field
 */
export function concerns(e, field) {
  return fieldsOf(e).includes(field);
}

/**
 * The controls (ids from the settings table) an error concerns, among the settings named by
 * `among` (the ones passed to the call that failed), in the order of fieldsOf.
 * @param {unknown} e
 * @param {string[]} among  setting names
 * @returns {string[]}
 */
export function controlsOf(e, among) {
  const settings = SETTINGS.filter((s) => among.includes(s.name) && s.field);
  return fieldsOf(e).flatMap((f) => settings.filter((s) => s.field === f).map((s) => s.control));
}

/**
 * The control an error belongs to: the one the student changed last if the error concerns it,
 * otherwise the first it concerns (the table's order), otherwise `fallback`.
 * @param {unknown} e
 * @param {string[]} among  the settings passed to the call that failed
 * @param {string|null} lastChanged  a control id
 * @param {string} [fallback]
 */
export function controlFor(e, among, lastChanged, fallback = 'general') {
  const named = controlsOf(e, among);
  if (lastChanged && named.includes(lastChanged)) return lastChanged;
  return named[0] || fallback;
}
