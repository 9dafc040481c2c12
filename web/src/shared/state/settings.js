// The page's settings: one table (name, type, default, section, range, allowed form, hash key,
// control, embed attribute, the runs that read it) from which the defaults, the URL hash in both
// directions, the controls, the embeds' attributes, the runs' options and "back to the lesson's
// settings" are all derived. A range whose maximum is the page's (workers) is judged here; one
// whose maximum is a core limit (`hw.limits`) is the module's to judge (heads=3 with d_model 8,
// or seed=-1, is kept, and the page shows the module's message at the control).

import { isLanguageTag } from '../i18n/i18n.js';
import { MAX_WORKERS } from '../compute/limits.js';
import { PageError } from './errors.js';

/**
 * A core limit a range may name as its maximum: a field of `hw.limits` (the module's own numbers,
 * cpp/api.d.ts's Limits), read when the module has loaded.
 * @typedef {'maxSeed'|'maxTokens'|'maxDModel'} CoreLimit
 */

/**
 * The values a number setting allows: whole numbers (step 1) from min to max. A `max` that names
 * a core limit is the module's to judge (its message is shown at the control); a numeric one is
 * the page's, and the hash and the attributes refuse a value outside it.
 * @typedef {object} Range
 * @property {number} min
 * @property {number|CoreLimit} max
 * @property {number} step
 */

/**
 * Which part of the page a setting belongs to: the lesson's settings panel, an exercise, one of
 * the training sections, or the page as a whole.
 * @typedef {'lesson'|'exercise1'|'exercise2'|'train'|'heads'|'induction'|'page'} Section
 */

/**
 * @typedef {object} Setting
 * @property {string} name        the state field
 * @property {'number'|'boolean'|'index'|'text'|'labels'|'lang'} type
 * @property {any} default
 * @property {Section} section
 * @property {Range} [range]      a number's allowed values
 * @property {boolean} [nullable] null is its default (workers: none chosen)
 * @property {{re: RegExp, code: string}} [form]  what a text may hold, and the error's code
 *   (errors.<code> in the catalogues) that says so
 * @property {string} hash        its key in the URL hash (labels: the prefix of label.<i>)
 * @property {string} control     the id of its control (and the key of its errors)
 * @property {string} [field]     the module's option it is passed as: an error of the module
 *   whose field is this one belongs to its control (src/shared/state/errors.js)
 * @property {string} [embed]     its public name on the <mha-*> elements (no name: not offered)
 * @property {string} [attr]      the element attribute that sets it
 * @property {Record<string, string>} [runs]  the runs that read it, each with the option it is
 *   given as (`{experiment: 'seed', ex1: 'seed'}`): runOptions() builds their options
 * @property {boolean} [lesson]   one of the lesson's settings ("back to the lesson's settings")
 * @property {boolean} [panel]    part of the settings panel (<hw-controls>)
 * @property {string} [label]     a panel number field's label (its key in the catalogues)
 * @property {string} [hint]      and its hint
 */

/** The most relations "How many heads does it take?" takes: its grid's rows, D = 1 … 4 (the
 * core's headsNeededDefaults().gridRelations; a task itself may have up to its maxRelations). */
export const MAX_RELATIONS = 4;

/** A seed: what np.random.seed takes. */
const SEED = /** @type {Range} */ ({ min: 0, max: 'maxSeed', step: 1 });
/** A size the module limits (tokens, d_model, a head count). */
const TOKENS = /** @type {Range} */ ({ min: 1, max: 'maxTokens', step: 1 });
const WIDTH = /** @type {Range} */ ({ min: 1, max: 'maxDModel', step: 1 });
/** The runs every switch of the lesson's panel goes to. */
const BOTH = { experiment: '', ex1: '' };

/** The table as written (its literal types give State's fields). */
const TABLE = /** @type {const} */ ([
  { name: 'seed', type: 'number', default: 7, field: 'seed', section: 'lesson', range: SEED, hash: 'seed', control: 'seed', embed: 'seed', attr: 'seed', runs: { experiment: 'seed' }, lesson: true, panel: true, label: 'controls.seed.label', hint: 'controls.seed.hint' },
  { name: 'tokens', type: 'number', default: 5, field: 'tokens', section: 'lesson', range: TOKENS, hash: 'tokens', control: 'tokens', embed: 'tokens', attr: 'tokens', runs: BOTH, lesson: true, panel: true, label: 'controls.tokens.label', hint: 'controls.tokens.hint' },
  { name: 'dModel', type: 'number', default: 8, field: 'dModel', section: 'lesson', range: WIDTH, hash: 'd_model', control: 'd-model', embed: 'dModel', attr: 'd-model', runs: BOTH, lesson: true, panel: true, label: 'controls.dModel.label', hint: 'controls.dModel.hint' },
  { name: 'numHeads', type: 'number', default: 2, field: 'numHeads', section: 'lesson', range: WIDTH, hash: 'heads', control: 'num-heads', embed: 'heads', attr: 'heads', runs: { experiment: 'numHeads' }, lesson: true, panel: true, label: 'controls.numHeads.label', hint: 'controls.numHeads.hint' },
  { name: 'bias', type: 'boolean', default: false, section: 'lesson', hash: 'bias', control: 'bias', embed: 'bias', attr: 'bias', runs: BOTH, lesson: true, panel: true },
  { name: 'causal', type: 'boolean', default: false, section: 'lesson', hash: 'causal', control: 'causal', embed: 'causal', attr: 'causal', runs: BOTH, lesson: true, panel: true },
  { name: 'query', type: 'index', default: 0, section: 'lesson', hash: 'query', control: 'query-token', embed: 'query', attr: 'query-token', lesson: true, panel: true },
  { name: 'labels', type: 'labels', default: [], section: 'lesson', hash: 'label', control: 'token-labels', embed: 'labels', attr: 'labels', lesson: true, panel: true },
  { name: 'ex1Seed', type: 'number', default: 2024, field: 'seed', section: 'exercise1', range: SEED, hash: 'ex1_seed', control: 'ex1-seed', embed: 'ex1Seed', attr: 'ex1-seed', runs: { ex1: 'seed' } },
  { name: 'ex2DModel', type: 'number', default: 12, field: 'embedDim', section: 'exercise2', range: WIDTH, hash: 'ex2_d_model', control: 'ex2-d-model', embed: 'ex2DModel', attr: 'ex2-d-model' },
  { name: 'ex2Heads', type: 'number', default: 5, field: 'numHeads', section: 'exercise2', range: WIDTH, hash: 'ex2_heads', control: 'ex2-heads', embed: 'ex2Heads', attr: 'ex2-heads' },
  { name: 'trainSeed', type: 'number', default: 1, field: 'seed', section: 'train', range: SEED, hash: 'train_seed', control: 'train-seed', embed: 'trainSeed', attr: 'train-seed', runs: { train: 'seed' } },
  {
    name: 'trainTask', type: 'text', default: 'previous-and-first', section: 'train', hash: 'train_task', control: 'train-task', embed: 'trainTask', attr: 'train-task', runs: { train: 'task' },
    form: { re: /^[a-z0-9-]{1,64}$/, code: 'errors.hash.taskName' },
  },
  {
    name: 'headsRelations', type: 'text', default: 'previous,first,two-back', section: 'heads', hash: 'heads_relations', control: 'heads-relations', embed: 'headsRelations', attr: 'heads-relations', runs: { heads: 'relations' },
    form: { re: new RegExp(`^[a-z0-9-]{1,32}(,[a-z0-9-]{1,32}){0,${MAX_RELATIONS - 1}}$`), code: 'errors.hash.relationNames' },
  },
  { name: 'headsSeed', type: 'number', default: 1, field: 'seed', section: 'heads', range: SEED, hash: 'heads_seed', control: 'heads-seed', embed: 'headsSeed', attr: 'heads-seed', runs: { heads: 'seed' } },
  { name: 'inductionSeed', type: 'number', default: 1, field: 'seed', section: 'induction', range: SEED, hash: 'induction_seed', control: 'induction-seed', embed: 'inductionSeed', attr: 'induction-seed', runs: { induction: 'seed' } },
  { name: 'lang', type: 'lang', default: '', section: 'page', hash: 'lang', control: 'hw-language-select' },
  { name: 'workers', type: 'number', default: /** @type {number|null} */ (null), nullable: true, field: 'workers', section: 'page', range: { min: 1, max: MAX_WORKERS, step: 1 }, hash: 'workers', control: 'workers', attr: 'workers' },
]);

/** Every setting; the hash writes them by type (HASH_ORDER), in this order within each. */
export const SETTINGS = /** @type {readonly Setting[]} */ (Object.freeze(TABLE));

/**
 * The value a setting of this type holds; a number is null while its field is empty or
 * unreadable (and `workers` while none is chosen).
 * @template {string} T
 * @typedef {T extends 'number' ? number|null : T extends 'boolean' ? boolean : T extends 'index' ? number
 *   : T extends 'labels' ? string[] : string} ValueOf
 */

/**
 * The page's state: one field per setting, typed by the setting's type (derived from SETTINGS).
 * labels[i] is sparse (a missing entry is "t<i>"); lang is '' when none was chosen (the page then
 * follows the browser's, src/page/language.js); workers is null for one Worker per core.
 * @typedef {{-readonly [S in (typeof TABLE)[number] as S['name']]: ValueOf<S['type']>}} State
 */

/** The setting called `name`. */
export const SETTING = /** @type {Record<keyof State, Setting>} */ (Object.fromEntries(SETTINGS.map((s) => [s.name, s])));

/**
 * The settings of one part of the page, in the table's order.
 * @param {Section} section
 * @returns {Setting[]}
 */
export function settingsOf(section) {
  return SETTINGS.filter((s) => s.section === section);
}

/**
 * The public names (`embed`) of a section's settings: the controls its <mha-*> element offers.
 * @param {Section} section
 */
export function embedNames(section) {
  return settingsOf(section).filter((s) => s.embed).map((s) => /** @type {string} */ (s.embed));
}

/**
 * The settings a run reads, in the table's order (what makes it compute again).
 * @param {string} run  a name of the settings' `runs`: 'experiment', 'ex1', 'train', 'heads', 'induction'
 * @returns {(keyof State)[]}
 */
export function runInputs(run) {
  return SETTINGS.filter((s) => s.runs && run in s.runs).map((s) => /** @type {keyof State} */ (s.name));
}

/**
 * A run's options from the state: each setting it reads, under its option name (the state
 * field's own where the table gives none).
 * @param {State} state
 * @param {string} run
 * @returns {Record<string, any>}
 */
export function runOptions(state, run) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const s of SETTINGS) {
    if (s.runs && run in s.runs) out[/** @type {any} */ (s.runs)[run] || s.name] = /** @type {any} */ (state)[s.name];
  }
  return out;
}

/**
 * A setting's range with its core limit read from the module's (`hw.limits`), or null for a
 * setting without one (or a core limit the module does not give).
 * @param {Setting} s
 * @param {Partial<Record<CoreLimit, number>>|null} [limits]  hw.limits; none: page limits only
 * @returns {{min: number, max: number, step: number}|null}
 */
export function rangeOf(s, limits = null) {
  if (!s.range) return null;
  const max = typeof s.range.max === 'number' ? s.range.max : limits && limits[s.range.max];
  return typeof max === 'number' ? { min: s.range.min, max, step: s.range.step } : null;
}

/**
 * What is wrong with a number for a setting, as a sentence naming the allowed values, or null
 * when it is allowed. The PageError a caller throws with it (rangeError()) carries the code
 * `errors.setting.range`, the setting's module option as `field` and `params` {name, value, min, max}.
 * @param {Setting} s
 * @param {unknown} value
 * @param {Partial<Record<CoreLimit, number>>|null} [limits]
 */
export function rangeProblem(s, value, limits = null) {
  const r = rangeOf(s, limits);
  if (!r) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= r.min && value <= r.max) return null;
  const what = s.range && s.range.max === 'maxSeed' ? 'seed' : s.hash;
  return `${what} ${String(value).slice(0, 40)} is not allowed: use a whole number from ${r.min} to ${r.max}`;
}

/**
 * rangeProblem's PageError, or null: with the setting's module option as `field` ('seed'), for
 * the page to show it at that setting's control.
 * @param {Setting} s
 * @param {unknown} value
 * @param {Partial<Record<CoreLimit, number>>|null} [limits]
 */
export function rangeError(s, value, limits = null) {
  const problem = rangeProblem(s, value, limits);
  if (!problem) return null;
  const r = /** @type {{min: number, max: number}} */ (rangeOf(s, limits));
  const name = s.range && s.range.max === 'maxSeed' ? 'seed' : s.hash;
  return new PageError('errors.setting.range', { name, value: String(value).slice(0, 40), min: r.min, max: r.max }, s.field || s.name);
}

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
      // A page limit is judged here; a core limit by the module, at the setting's control.
      const r = rangeOf(s);
      if (r && !(Number.isInteger(n) && n >= r.min && n <= r.max)) {
        throw new PageError('errors.hash.whole', { key, min: r.min, max: r.max }, s.field || null);
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
