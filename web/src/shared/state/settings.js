// The page's settings: one table (name, type, default, allowed form, hash key, control) from
// which the defaults, the URL hash in both directions, the controls and "back to the lesson's
// settings" are all derived. Numbers are only read here: the module judges their values (heads=3
// with d_model 8 is kept, and the page shows the module's message for it).

import { isLanguageTag } from '../i18n/i18n.js';
import { PageError } from './errors.js';

/**
 * @typedef {object} State
 * @property {number|null} seed      null while the field is empty or unreadable
 * @property {number|null} tokens
 * @property {string[]} labels        labels[i] (sparse); missing entries default to "t<i>"
 * @property {number|null} dModel
 * @property {number|null} numHeads
 * @property {boolean} bias
 * @property {boolean} causal
 * @property {number} query           index of the highlighted query token
 * @property {number|null} ex1Seed    exercise 1: the student's own seed
 * @property {number|null} ex2DModel  exercise 2: the student's own d_model
 * @property {number|null} ex2Heads   exercise 2: a head count to try
 * @property {number|null} trainSeed  "Watch heads specialise": the seed of the training run
 * @property {string} trainTask       "Watch heads specialise": the task's name
 * @property {number|null} headsSeed  "How many heads does it take?": the seed of every model
 * @property {string} headsRelations  "How many heads does it take?": the relations, by name,
 *   separated by commas ("previous,first,two-back")
 * @property {string} lang            the language chosen for the page (a BCP 47 tag, "es"); ''
 *   when none was: the page then follows the browser's (src/page/language.js)
 * @property {number|null} workers    how many Workers the page computes with (1 to 8; null: one
 *   per core, at most 8; see shared/compute/compute.js's Pool)
 */

/**
 * @typedef {object} Setting
 * @property {keyof State} name   the state field
 * @property {'number'|'boolean'|'index'|'text'|'labels'|'lang'} type
 * @property {any} default
 * @property {{re: RegExp, code: string}} [form]  what a text may hold, and the error's code
 *   (errors.<code> in the catalogues) that says so
 * @property {string} hash        its key in the URL hash (labels: the prefix of label.<i>)
 * @property {string} control     the id of its control (and the key of its errors)
 * @property {string} [field]     the module's option it is passed as: an error of the module
 *   whose field is this one belongs to its control (src/shared/state/errors.js)
 * @property {string} [embed]     its public name on the <mha-*> elements (no name: not offered)
 * @property {string} [attr]      the element attribute that sets it
 * @property {boolean} [lesson]   one of the lesson's settings ("back to the lesson's settings")
 * @property {boolean} [panel]    part of the settings panel (<hw-controls>)
 * @property {string} [label]     a panel number field's label (its key in the catalogues)
 * @property {string} [hint]      and its hint
 * @property {[number, number]} [whole]  a number read as a whole number in this range (the page
 *   judges it, not the module)
 */

/** Every setting; the hash writes them by type (HASH_ORDER), in this order within each. */
export const SETTINGS = /** @type {readonly Setting[]} */ (Object.freeze([
  { name: 'seed', type: 'number', default: 7, field: 'seed', hash: 'seed', control: 'seed', embed: 'seed', attr: 'seed', lesson: true, panel: true, label: 'controls.seed.label', hint: 'controls.seed.hint' },
  { name: 'tokens', type: 'number', default: 5, field: 'tokens', hash: 'tokens', control: 'tokens', embed: 'tokens', attr: 'tokens', lesson: true, panel: true, label: 'controls.tokens.label', hint: 'controls.tokens.hint' },
  { name: 'dModel', type: 'number', default: 8, field: 'dModel', hash: 'd_model', control: 'd-model', embed: 'dModel', attr: 'd-model', lesson: true, panel: true, label: 'controls.dModel.label', hint: 'controls.dModel.hint' },
  { name: 'numHeads', type: 'number', default: 2, field: 'numHeads', hash: 'heads', control: 'num-heads', embed: 'heads', attr: 'heads', lesson: true, panel: true, label: 'controls.numHeads.label', hint: 'controls.numHeads.hint' },
  { name: 'bias', type: 'boolean', default: false, hash: 'bias', control: 'bias', embed: 'bias', attr: 'bias', lesson: true, panel: true },
  { name: 'causal', type: 'boolean', default: false, hash: 'causal', control: 'causal', embed: 'causal', attr: 'causal', lesson: true, panel: true },
  { name: 'query', type: 'index', default: 0, hash: 'query', control: 'query-token', embed: 'query', attr: 'query-token', lesson: true, panel: true },
  { name: 'labels', type: 'labels', default: [], hash: 'label', control: 'token-labels', embed: 'labels', attr: 'labels', lesson: true, panel: true },
  { name: 'ex1Seed', type: 'number', default: 2024, field: 'seed', hash: 'ex1_seed', control: 'ex1-seed', embed: 'ex1Seed', attr: 'ex1-seed' },
  { name: 'ex2DModel', type: 'number', default: 12, field: 'embedDim', hash: 'ex2_d_model', control: 'ex2-d-model', embed: 'ex2DModel', attr: 'ex2-d-model' },
  { name: 'ex2Heads', type: 'number', default: 5, field: 'numHeads', hash: 'ex2_heads', control: 'ex2-heads', embed: 'ex2Heads', attr: 'ex2-heads' },
  { name: 'trainSeed', type: 'number', default: 1, field: 'seed', hash: 'train_seed', control: 'train-seed', embed: 'trainSeed', attr: 'train-seed' },
  {
    name: 'trainTask', type: 'text', default: 'previous-and-first', hash: 'train_task', control: 'train-task', embed: 'trainTask', attr: 'train-task',
    form: { re: /^[a-z0-9-]{1,64}$/, code: 'errors.hash.taskName' },
  },
  {
    name: 'headsRelations', type: 'text', default: 'previous,first,two-back', hash: 'heads_relations', control: 'heads-relations', embed: 'headsRelations', attr: 'heads-relations',
    form: { re: /^[a-z0-9-]{1,32}(,[a-z0-9-]{1,32}){0,5}$/, code: 'errors.hash.relationNames' },
  },
  { name: 'headsSeed', type: 'number', default: 1, field: 'seed', hash: 'heads_seed', control: 'heads-seed', embed: 'headsSeed', attr: 'heads-seed' },
  { name: 'lang', type: 'lang', default: '', hash: 'lang', control: 'hw-language-select' },
  { name: 'workers', type: 'number', default: null, field: 'workers', hash: 'workers', control: 'workers', attr: 'workers', whole: [1, 8] },
]));

/** The setting called `name`. */
export const SETTING = /** @type {Record<keyof State, Setting>} */ (Object.fromEntries(SETTINGS.map((s) => [s.name, s])));

/** @type {Readonly<State>} */
export const DEFAULTS = Object.freeze(/** @type {State} */ (Object.fromEntries(SETTINGS.map((s) => [s.name, s.default]))));

/** A fresh copy of the defaults (labels is an array of its own). */
export function defaults() {
  return /** @type {State} */ ({ ...DEFAULTS, labels: [] });
}

/** The lesson's own settings, where "back to the lesson's settings" returns. */
export function lessonSettings() {
  return /** @type {Partial<State>} */ (Object.fromEntries(SETTINGS.filter((s) => s.lesson)
    .map((s) => [s.name, Array.isArray(s.default) ? s.default.slice() : s.default])));
}

/** The lesson's own run (its sizes and switches), used by prose that quotes it. */
export const LESSON = Object.freeze(Object.fromEntries(SETTINGS.filter((s) => s.lesson && (s.type === 'number' || s.type === 'boolean'))
  .map((s) => [s.name, s.default])));

/** The highest token index a label may have. */
const MAX_LABEL_INDEX = 4096;
/** Longest URL hash read (characters after '#'); a longer one is refused as a whole. */
const MAX_HASH_LENGTH = 65536;

/**
 * Default label of token i.
 * @param {number} i
 */
export function defaultLabel(i) {
  return `t${i}`;
}

/**
 * @param {State} state
 * @param {number} i
 */
export function labelOf(state, i) {
  const l = state.labels[i];
  return l === undefined || l === null ? defaultLabel(i) : l;
}

/**
 * One hash value of a setting, read as its type says. Throws with a readable reason.
 * @param {Setting} s
 * @param {string} key
 * @param {string} value  trimmed
 */
function readValue(s, key, value) {
  switch (s.type) {
    case 'number': {
      const n = value === '' ? NaN : Number(value);
      if (!Number.isFinite(n)) throw new PageError('errors.hash.notNumber', { key }, s.field || null);
      if (s.whole && !(Number.isInteger(n) && n >= s.whole[0] && n <= s.whole[1])) {
        throw new PageError('errors.hash.whole', { key, min: s.whole[0], max: s.whole[1] }, s.field || null);
      }
      return n;
    }
    case 'boolean':
      if (!['0', '1', 'true', 'false'].includes(value)) throw new PageError('errors.hash.zeroOrOne', { key });
      return value === '1' || value === 'true';
    case 'text': {
      const form = /** @type {{re: RegExp, code: string}} */ (s.form);
      if (!form.re.test(value)) throw new PageError(form.code, { key });
      return value;
    }
    case 'lang':
      if (!isLanguageTag(value)) throw new PageError('errors.hash.lang');
      return value;
    default:  // 'index'
      if (!/^\d{1,5}$/.test(value)) throw new PageError('errors.hash.query', { key });
      return Number(value);
  }
}

/** Each hash key's setting (labels, whose keys are label.<i>, apart). */
const BY_HASH = new Map(SETTINGS.filter((s) => s.type !== 'labels').map((s) => [s.hash, s]));

/**
 * Parse a URL hash into a state. Throws Error with a readable reason if it is malformed.
 * @param {string} hash  with or without the leading "#"
 * @returns {State}
 */
export function parseHash(hash) {
  const text = hash.replace(/^#/, '');
  const state = defaults();
  if (text.length > MAX_HASH_LENGTH) {
    throw new PageError('errors.hash.tooLong', { length: text.length, max: MAX_HASH_LENGTH });
  }
  // Never throws for a string (a malformed escape such as %zz is kept as it is); an empty
  // hash has no entries and gives the defaults.
  const params = new URLSearchParams(text);
  const seen = new Set();
  for (const [key, raw] of params) {
    if (seen.has(key)) throw new PageError('errors.hash.twice', { key });
    seen.add(key);
    const s = BY_HASH.get(key);
    if (s) {
      /** @type {any} */ (state)[s.name] = readValue(s, key, raw.trim());
    } else if (/^label\.\d{1,5}$/.test(key)) {
      const i = Number(key.slice(6));
      if (i >= MAX_LABEL_INDEX) throw new PageError('errors.hash.range', { key });
      state.labels[i] = raw;
    } else {
      throw new PageError('errors.hash.unknown', { key: key.slice(0, 40) });
    }
  }
  return state;
}

/**
 * The language a hash asks for, read on its own (for a hash whose other settings cannot be read):
 * its one `lang`, when that is a language tag; '' otherwise.
 * @param {string} hash
 */
export function langOf(hash) {
  const text = hash.replace(/^#/, '');
  if (text.length > MAX_HASH_LENGTH) return '';
  const values = new URLSearchParams(text).getAll('lang').map((v) => v.trim());
  return values.length === 1 && isLanguageTag(values[0]) ? values[0] : '';
}

/** The order of the hash's parts, by type. */
const HASH_ORDER = ['number', 'boolean', 'text', 'index', 'labels', 'lang'];

/**
 * Serialise a state to a hash (without "#"). Empty/unreadable fields are left out, and so is a
 * language the reader did not choose (a link without one follows its reader's browser).
 * @param {State} state
 */
export function toHash(state) {
  const p = new URLSearchParams();
  for (const type of HASH_ORDER) {
    for (const s of SETTINGS) {
      if (s.type !== type) continue;
      const v = /** @type {any} */ (state)[s.name];
      if (type === 'number') {
        if (typeof v === 'number' && Number.isFinite(v)) p.set(s.hash, String(v));
      } else if (type === 'boolean') {
        p.set(s.hash, v ? '1' : '0');
      } else if (type === 'index') {
        p.set(s.hash, String(v));
      } else if (type === 'labels') {
        state.labels.forEach((l, i) => {
          if (l !== undefined && l !== null && l !== defaultLabel(i)) p.set(`${s.hash}.${i}`, l);
        });
      } else if (typeof v === 'string' && v !== '') {
        p.set(s.hash, v);
      }
    }
  }
  return p.toString();
}
