// The attributes of the <mha-*> elements (and so the iframe's query parameters): which controls
// there are, how each is spelled, and how a value is read. No DOM here (the node tests read values
// as the elements do); src/embed/mha.js applies them. Every problem is a coded error
// (src/shared/state/errors.js): src/shared/i18n/i18n-errors.js says it in the widget's language.

import { DEFAULTS, SETTINGS } from '../shared/state/settings.js';
import { PageError, errorOf } from '../shared/state/errors.js';

/** @typedef {import('../shared/state/settings.js').State} State */

/** Values of the `theme` attribute. */
export const THEMES = ['light', 'dark', 'auto'];

/**
 * @typedef {object} ControlDef
 * @property {keyof State} field  the state field
 * @property {string} id          the control's element id (and error key) inside the widget
 * @property {string} attr        the element attribute that sets it
 * @property {'number'|'boolean'|'index'|'labels'|'text'} kind
 * @property {boolean} panel      part of the settings panel (<hw-controls>)
 */

/** Every control an embed can show, hide or lock, by its public name (the settings' `embed`). */
export const CONTROLS = /** @type {Record<string, ControlDef>} */ (Object.fromEntries(SETTINGS.filter((s) => s.embed).map((s) => [
  s.embed, { field: s.name, id: s.control, attr: s.attr, kind: s.type, panel: Boolean(s.panel) },
])));
export const NAMES = Object.keys(CONTROLS);

/**
 * A control's public name from any spelling of it: "dModel", "d-model", "d_model", "num_heads"…
 * @param {string} raw
 * @returns {string|null}
 */
export function controlName(raw) {
  const key = raw.toLowerCase().replace(/[-_]/g, '');
  const aliases = /** @type {Record<string, string>} */ ({ numheads: 'heads', querytoken: 'query' });
  return NAMES.find((n) => n.toLowerCase() === key) || aliases[key] || null;
}

/**
 * A list attribute: "none", "all", or names separated by commas or spaces.
 * @param {string} value
 * @param {readonly string[]} all
 * @param {(raw: string) => string|null} normalise
 * @param {string} code  the problem's code for a word that is none of them (embed.notControl)
 * @returns {{names: Set<string>, problems: any[]}}
 */
export function parseList(value, all, normalise, code) {
  const words = value.split(/[\s,]+/).filter(Boolean);
  if (words.length === 1 && words[0].toLowerCase() === 'all') return { names: new Set(all), problems: [] };
  if (words.length === 0 || (words.length === 1 && words[0].toLowerCase() === 'none')) return { names: new Set(), problems: [] };
  const names = new Set();
  const problems = [];
  for (const word of words) {
    const name = normalise(word);
    if (name) names.add(name);
    else problems.push(errorOf(new PageError(code, { value: word.slice(0, 40), list: [...all] })));
  }
  return { names, problems };
}

/**
 * Read one state attribute.
 * @param {ControlDef} def
 * @param {string|null} raw
 * @returns {{value: any, error: any, problem: any}}  (coded errors: embed.attribute)
 *   error: a number that can't be read (shown like an empty field); problem: anything else
 */
export function parseAttribute(def, raw) {
  const given = raw === null ? '' : raw.slice(0, 40);
  /** The attribute's name before its problem (code: embed.notNumber, embed.notIndex). */
  const problem = (/** @type {string} */ code) => errorOf(new PageError('errors.embed.attribute', { name: def.attr, problem: new PageError(code, { value: given }) }, def.field));
  switch (def.kind) {
    case 'number': {
      if (raw === null) return { value: DEFAULTS[def.field], error: null, problem: null };
      const n = raw.trim() === '' ? NaN : Number(raw.trim());
      if (!Number.isFinite(n)) return { value: null, error: problem('errors.embed.notNumber'), problem: null };
      return { value: n, error: null, problem: null };
    }
    case 'boolean':
      return { value: raw !== null && !['0', 'false', 'no', 'off'].includes(raw.trim().toLowerCase()), error: null, problem: null };
    case 'text':
      if (raw === null || raw.trim() === '') return { value: DEFAULTS[def.field], error: null, problem: null };
      return { value: raw.trim().slice(0, 64), error: null, problem: null };
    case 'index':
      if (raw === null) return { value: 0, error: null, problem: null };
      if (!/^\s*\d{1,5}\s*$/.test(raw)) return { value: 0, error: null, problem: problem('errors.embed.notIndex') };
      return { value: Number(raw), error: null, problem: null };
    default: {
      if (raw === null || raw.trim() === '') return { value: [], error: null, problem: null };
      /** @type {string[]} */
      const labels = [];
      raw.split(',').slice(0, 4096).forEach((l, i) => {
        if (l.trim() !== '') labels[i] = l.trim();
      });
      return { value: labels, error: null, problem: null };
    }
  }
}

/**
 * The problem with a `theme` value (lower case, trimmed), or null for a theme there is.
 * @param {string} value
 */
export function themeProblem(value) {
  return THEMES.includes(value) ? null : errorOf(new PageError('errors.embed.notTheme', { value: value.slice(0, 40), list: [...THEMES] }));
}
