// Every string a person sees comes from here: the catalogue of the reader's language
// (web/i18n/<tag>.json, one file per language; en.json is the source), looked up by a stable key.
//
//   t(key, params, lang)       the text, {placeholders} filled in (markup dropped)
//   tNodes(key, params, lang)  DOM nodes, for values with inline markup (src/shared/i18n/markup.js);
//                              a parameter may itself be a Node (a number in its own <span>)
//   resolveLanguage(node)      the language a node renders in: its own `lang`, the nearest
//                              ancestor's (crossing shadow roots), the page's choice (#lang= on
//                              the lesson page, lang= in the iframe's query), the browser's
//                              navigator.languages, English; always a language whose catalogue
//                              is here (see "Loading" below)
//
// A key missing from a language falls back to English; a key missing from English is a bug and
// throws. A requested language without a catalogue is shown in English, with one console warning
// that names it and the languages there are. Numbers, code and identifiers are never translated:
// callers format them (src/shared/ui/format.js) and pass them as parameters, inserted as text.
//
// A value is a string, or a plural object {"one": "…", "other": "…"} whose form is chosen by
// Intl.PluralRules of the language for the parameter `count`.
//
// Loading. The bundles carry English and every language's names (_meta); each other language is
// a file of its own, dist/i18n/<tag>.js (web/build-i18n.mjs), a classic script that puts its
// catalogue's JSON text under globalThis[Symbol.for('headwise.catalogues')], before or after the
// bundle runs. ensureLanguage(tag) loads it once, beside the bundle (setLanguageBase), and tells
// every listener when it is there; a file that cannot be loaded leaves that language in English,
// with one console warning naming the file. Until a language is here, resolveLanguage() answers
// with the language shown before (the page's), else English, so nothing is ever drawn in a
// language whose words are missing; a `lang` changed to a language still loading is announced to
// the listeners (onLanguageChange) once it has arrived, not before. Code that must not draw before
// the language is there (a page's first load, an embed's first drawing) waits for
// whenLanguage(tag, ms).
//
// The pseudo-language qps-ploc (never offered in the switcher) is English with every value
// wrapped in ⟦ ⟧: open the page with #lang=qps-ploc and any text without the brackets was not
// taken from the catalogue (tests/browser/i18n.test.mjs fails on it).

import { ENGLISH, META } from './catalogues.js';
import { VERBATIM, isLanguageTag, param, parseMarkup, plainText } from './markup.js';
import { PSEUDO, SOURCE, languageNames, languages, matchLanguage } from './language-tags.js';
import { loadScript } from '../platform/scripts.js';
import { warmFonts } from './fonts.js';
import { nextSlice } from '../compute/slices.js';

/** @typedef {import('./markup.js').MarkupNode} MarkupNode */
/** @typedef {string|Record<string, string>} Value */

/** Marks a `lang` attribute that Headwise wrote (the language it renders in), not a choice. */
export const AUTO = 'data-hw-lang-auto';
export { isLanguageTag };

/** How long a page or an embed waits for its language's file before it draws in English (ms);
 * the language follows when the file arrives. */
export const LANGUAGE_WAIT_MS = 4000;

/** The registry the language files write into, shared by every bundle on the page. */
const REGISTRY = Symbol.for('headwise.catalogues');
/** Loads of language files in flight or done, shared by every bundle on the page (one request
 * per language, whichever bundle asks first). */
const LOADS = Symbol.for('headwise.catalogueLoads');

/** @returns {Record<string, unknown>} */
function registry() {
  /** @type {any} */
  const g = globalThis;
  if (!g[REGISTRY] || typeof g[REGISTRY] !== 'object') g[REGISTRY] = {};
  return g[REGISTRY];
}

/**
 * A language file's load: its promise, and how it ended (null while in flight).
 * @typedef {{done: Promise<boolean>, ok: boolean|null}} Load
 */

/** @returns {Map<string, Load>} */
function loads() {
  /** @type {any} */
  const g = globalThis;
  if (!(g[LOADS] instanceof Map)) g[LOADS] = new Map();
  return g[LOADS];
}

/** @type {Map<string, Record<string, Value>>} */
const parsedCatalogues = new Map();
/** Languages whose registered text could not be read (each warned about once). */
const unreadable = new Set();

/**
 * A language's catalogue, parsed on first use (only the languages a page uses are ever parsed),
 * or null while its file has not registered it.
 * @param {string} tag  a tag of languages(), SOURCE or PSEUDO
 * @returns {Record<string, Value>|null}
 */
function catalogue(tag) {
  let cat = parsedCatalogues.get(tag);
  if (cat) return cat;
  if (tag === PSEUDO) {
    cat = pseudo(/** @type {Record<string, Value>} */ (catalogue(SOURCE)));
  } else if (tag === SOURCE) {
    cat = JSON.parse(ENGLISH);
  } else {
    const text = Object.prototype.hasOwnProperty.call(META, tag) ? registry()[tag] : undefined;
    if (typeof text !== 'string' || unreadable.has(tag)) return null;
    try {
      cat = JSON.parse(text);
      if (!cat || typeof cat !== 'object' || Array.isArray(cat)) throw new Error('it is not a JSON object of keys and values');
    } catch (e) {
      unreadable.add(tag);
      console.warn(`Headwise: the catalogue that i18n/${tag}.js registered cannot be read (${/** @type {Error} */ (e).message}), so "${tag}" is shown in English.`);
      return null;
    }
  }
  parsedCatalogues.set(tag, /** @type {Record<string, Value>} */ (cat));
  return /** @type {Record<string, Value>} */ (cat);
}

/**
 * Whether a language can be shown now: English, the pseudo-language, or a language whose file
 * has registered its catalogue.
 * @param {string} tag
 */
export function isReady(tag) {
  return catalogue(tag) !== null;
}

/** The folder the language files are loaded from: i18n/ beside the bundle (setLanguageBase). */
let base = /** @type {string|null} */ (null);

/**
 * Where this bundle was loaded from (src/shared/platform/scripts.js scriptBase): its languages' files are
 * in i18n/ beside it. Each bundle sets it as it runs (app.js, headwise-elements.js, embed-page.js).
 * @param {string} folder
 */
export function setLanguageBase(folder) {
  base = folder;
}

/** Languages this bundle has heard arrive (its listeners are told once per language). */
const arrived = new Set();

/**
 * Load a language's file, i18n/<tag>.js beside the bundle, once for the page. Resolves true when
 * its catalogue is here (at once for English, the pseudo-language and a language already
 * registered), false when there is no such language or its file could not be loaded or read
 * (one console warning, naming the file and why; the language is then shown in English). Never
 * rejects. When a language arrives, every listener (onLanguageChange) is told.
 * @param {string} tag  a tag of languages() (see matchLanguage)
 * @param {{retry?: boolean}} [options]  retry: load a file that failed before again (a reader's choice)
 * @returns {Promise<boolean>}
 */
export function ensureLanguage(tag, { retry = false } = {}) {
  if (isReady(tag)) return Promise.resolve(true);
  if (!Object.prototype.hasOwnProperty.call(META, tag) || unreadable.has(tag)) return Promise.resolve(false);
  const all = loads();
  let load = all.get(tag);
  // A failed load is tried again only when the reader asks for the language again (retry).
  if (!load || (retry && load.ok === false)) {
    const fresh = /** @type {Load} */ ({ done: Promise.resolve(false), ok: null });
    fresh.done = fetchLanguage(tag).then((ok) => {
      fresh.ok = ok;
      return ok;
    });
    all.set(tag, fresh);
    load = fresh;
  }
  return load.done.then((ok) => {
    const ready = ok && isReady(tag);
    if (ready && !arrived.has(tag)) {
      arrived.add(tag);
      changed();
    }
    return ready;
  });
}

/**
 * The load itself: a <script> element for i18n/<tag>.js (loadScript), and whether it registered.
 * @param {string} tag
 * @returns {Promise<boolean>}
 */
function fetchLanguage(tag) {
  const name = `${languageNames(tag).name} (${tag})`;
  if (!base || typeof document === 'undefined') {
    console.warn(`Headwise: ${name} cannot be loaded: this page has no folder to load i18n/${tag}.js from, so it is shown in English.`);
    return Promise.resolve(false);
  }
  const url = new URL(`i18n/${tag}.js`, base).href;
  // From a task of its own, so that the request does not lengthen app.js's. While it loads,
  // the fonts of the language's script are readied, a face per task (fonts.js): the language is
  // shown once both are done.
  // (Only ever a saving: a page whose fonts cannot be readied still gets its language.)
  const fonts = warmFonts(languageNames(tag).nativeName).catch(() => {});
  const script = nextSlice().then(() => loadScript(url, { data: 'headwiseLanguage' }));
  return Promise.all([script, fonts]).then(() => {
    if (typeof registry()[tag] === 'string') return true;
    console.warn(`Headwise: ${url} loaded but registered no catalogue for "${tag}", so ${name} is shown in English.`);
    return false;
  }, (/** @type {Error} */ e) => {
    console.warn(`Headwise: ${name} is shown in English: ${e.message} (the file is missing, or a Content-Security-Policy refused it).`);
    return false;
  });
}

/**
 * Resolves when a language can be shown (true), or could not be loaded (false), or after `ms`
 * (false, with one console warning; the language still follows when its file arrives).
 * @param {string} tag
 * @param {number} [ms]
 * @returns {Promise<boolean>}
 */
export function whenLanguage(tag, ms = LANGUAGE_WAIT_MS) {
  if (isReady(tag)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      console.warn(`Headwise: i18n/${tag}.js has not arrived within ${ms / 1000} s: shown in English until it does.`);
      resolve(false);
    }, ms);
    ensureLanguage(tag).then((ok) => {
      clearTimeout(timer);
      resolve(ok);
    });
  });
}

/**
 * The pseudo-language: every English value in ⟦ ⟧ (each plural form too), markup and
 * placeholders untouched.
 * @param {Record<string, Value>} en
 */
function pseudo(en) {
  /** @type {Record<string, Value>} */
  const out = {};
  for (const [key, value] of Object.entries(en)) {
    if (key === '_meta') continue;
    out[key] = typeof value === 'string'
      ? `⟦${value}⟧`
      : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, `⟦${v}⟧`]));
  }
  out._meta = /** @type {any} */ ({ name: 'Pseudo-language', nativeName: '⟦Pseudo⟧' });
  return out;
}


/** Requested languages already warned about (each is warned about once). */
const warned = new Set();

/**
 * The catalogue for a language someone chose (a `lang` attribute, #lang=, lang=): English, with
 * one warning, when there is none.
 * @param {string} requested
 */
function chosen(requested) {
  const match = matchLanguage(requested);
  if (match) return match;
  const key = requested.toLowerCase();
  if (!warned.has(key)) {
    warned.add(key);
    console.warn(`Headwise: there is no translation for the language "${requested.slice(0, 40)}", so it is shown in English. The languages available are: ${languages().join(', ')}.`);
  }
  return SOURCE;
}

/** The page's own choice (the lesson's #lang=, the iframe's lang=), or null. */
let choice = /** @type {string|null} */ (null);

/** The page's own choice of language, as set (setPageLanguage), or null. */
export function pageChoice() {
  return choice;
}
/** The language the page last could show: what it shows while the one it asks for is loading. */
let pageShown = SOURCE;

/**
 * Set (or clear, with null or '') the page's choice of language, and tell everyone listening:
 * at once when that language is here, else once its file has arrived (ensureLanguage).
 * @param {string|null} requested
 */
export function setPageLanguage(requested) {
  const next = requested ? String(requested) : null;
  if (next === choice) return;
  choice = next;
  const wanted = requestedPageLanguage();
  if (isReady(wanted)) changed();
  else ensureLanguage(wanted);
}

/** The first of the reader's languages (navigator.languages) that has a catalogue, else English. */
function browserLanguage() {
  const nav = typeof navigator === 'undefined' ? null : navigator;
  const list = nav ? (nav.languages && nav.languages.length ? nav.languages : [nav.language]) : [];
  for (const l of list) {
    const m = l ? matchLanguage(l) : null;
    if (m && m !== PSEUDO) return m;
  }
  return SOURCE;
}

/** The language the page asks for: its choice if it made one, else the browser's (its file may not be here yet). */
export function requestedPageLanguage() {
  return choice ? chosen(choice) : browserLanguage();
}

/**
 * The page's language: the one it asks for once its catalogue is here (its file is loaded
 * meanwhile), else the one it could show before (English at first).
 */
export function pageLanguage() {
  const wanted = requestedPageLanguage();
  if (isReady(wanted)) pageShown = wanted;
  else ensureLanguage(wanted);
  return pageShown;
}

/**
 * The nearest `lang` on `node` or above it (across shadow roots to their hosts) that was not
 * written by Headwise, or null.
 * @param {Node|null} node
 * @returns {string|null}
 */
function langAbove(node) {
  /** @type {any} */
  let n = node;
  while (n) {
    if (n.nodeType === 1 && n.hasAttribute('lang') && !n.hasAttribute(AUTO)) {
      const v = n.getAttribute('lang').trim();
      if (v) return v;
    }
    n = n.parentNode || n.host || null;
  }
  return null;
}

/**
 * The language `node` asks for (its `lang`, an ancestor's, else the page's), whether or not its
 * catalogue is here yet: what a first drawing waits for (whenLanguage).
 * @param {Node|null} node
 */
export function requestedLanguage(node) {
  const v = langAbove(node);
  return v ? chosen(v) : requestedPageLanguage();
}

/**
 * The language `node` renders in: the nearest `lang` on it or above it (across shadow roots to
 * their hosts) that was not written by Headwise, else the page's language; while that language's
 * file is loading, English (the page's previous language, for the page's), and its arrival tells
 * every listener.
 * @param {Node|null} node
 */
export function resolveLanguage(node) {
  const v = langAbove(node);
  if (!v) return pageLanguage();
  const wanted = chosen(v);
  if (isReady(wanted)) return wanted;
  ensureLanguage(wanted);
  return SOURCE;
}

/** `lang` values this page wrote, by element (to tell them from a host page's). */
const written = new WeakMap();

/**
 * Say which language an element's content is in (for screen readers and :lang() styles), as
 * Headwise's and not as a choice: resolveLanguage() passes over it.
 * @param {Element} el
 * @param {string} lang
 */
export function setAutoLang(el, lang) {
  if (el.hasAttribute('lang') && !el.hasAttribute(AUTO)) return;  // the host's choice stays
  written.set(el, lang);
  if (!el.hasAttribute(AUTO)) el.setAttribute(AUTO, '');
  if (el.getAttribute('lang') !== lang) el.setAttribute('lang', lang);
}

/** @type {Set<() => void>} */
const listeners = new Set();
/** @type {MutationObserver|null} */
let observer = null;

/** Tell every listener that a language may have changed. */
function changed() {
  for (const f of [...listeners]) {
    try {
      f();
    } catch (e) {
      console.error('Headwise: redrawing in another language failed:', e);
    }
  }
}

/**
 * Call `f` whenever the language of anything on the page may have changed: a `lang` attribute
 * set, changed or removed anywhere in the document (<html lang>, an <mha-*> element's, an
 * ancestor's), the page's choice, or a language's file arrived. A `lang` set to a language whose
 * file is not here yet is told once it has arrived (or failed), so that nothing draws in English
 * in between. Returns the function that stops it.
 * @param {() => void} f
 */
export function onLanguageChange(f) {
  listeners.add(f);
  if (!observer && typeof MutationObserver === 'function' && typeof document !== 'undefined') {
    observer = new MutationObserver((records) => {
      let real = false;
      /** @type {Promise<boolean>[]} */
      const loading = [];
      for (const r of records) {
        const el = /** @type {Element} */ (r.target);
        if (el.hasAttribute(AUTO) && written.has(el)) {
          if (el.getAttribute('lang') === written.get(el)) continue;  // one of ours
          el.removeAttribute(AUTO);  // a host page set it: a choice from now on
          written.delete(el);
        }
        real = true;
        const v = (el.getAttribute('lang') || '').trim();
        const wanted = v ? matchLanguage(v) : null;
        if (wanted && !isReady(wanted)) loading.push(ensureLanguage(wanted));
      }
      if (!real) return;
      // A language that arrives tells the listeners itself (ensureLanguage); one that cannot be
      // loaded is shown in English, which they are told here.
      if (loading.length === 0) changed();
      else Promise.all(loading).then((ok) => { if (!ok.every(Boolean)) changed(); });
    });
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
  }
  return () => listeners.delete(f);
}

// ---- the text --------------------------------------------------------------------------------

/**
 * Whether English has `key` (for keys made from the module's names, such as a relation's).
 * @param {string} key
 */
export function has(key) {
  const en = /** @type {Record<string, Value>} */ (catalogue(SOURCE));
  return Object.prototype.hasOwnProperty.call(en, key) && key !== '_meta';
}

/**
 * @param {string} key
 * @param {string} lang
 * @returns {Value}
 */
function lookup(key, lang) {
  const cat = catalogue(lang);
  if (cat && key !== '_meta' && Object.prototype.hasOwnProperty.call(cat, key)) return cat[key];
  if (!has(key)) throw new Error(`web/i18n/en.json has no key "${key}"`);
  return /** @type {Record<string, Value>} */ (catalogue(SOURCE))[key];
}

/** @type {Map<string, Intl.PluralRules>} */
const pluralRules = new Map();

/**
 * A plural object's form for params.count, by the language's rules ('other' where a form is missing).
 * @param {Value} value
 * @param {Record<string, unknown>} params
 * @param {string} lang
 */
function form(value, params, lang) {
  if (typeof value === 'string') return value;
  const rulesFor = lang === PSEUDO ? SOURCE : lang;
  let rules = pluralRules.get(rulesFor);
  if (!rules) {
    rules = new Intl.PluralRules(rulesFor);
    pluralRules.set(rulesFor, rules);
  }
  const category = rules.select(Number(param(params, 'count')));
  return value[category] ?? value.other;
}

/**
 * The text of `key` in `lang`, placeholders filled in, markup dropped.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @param {string} [lang]
 * @returns {string}
 */
export function t(key, params = {}, lang = SOURCE) {
  return plainText(parseMarkup(form(lookup(key, lang), params, lang)), params);
}

/**
 * `text` with its first letter in upper case, as `lang` writes it (a language without capitals,
 * Chinese, is left as it is).
 * @param {string} text
 * @param {string} lang
 */
export function capitalise(text, lang) {
  return text.charAt(0).toLocaleUpperCase(lang === PSEUDO ? SOURCE : lang) + text.slice(1);
}

/**
 * The text of `key` in `lang` as DOM nodes: its markup as elements (code, var and kbd marked
 * translate="no"), placeholders as text, or as the Node (or list) passed for them.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @param {string} [lang]
 * @returns {Node[]}
 */
export function tNodes(key, params = {}, lang = SOURCE) {
  return nodesOf(parseMarkup(form(lookup(key, lang), params, lang)), params);
}

/**
 * @param {MarkupNode[]} tree
 * @param {Record<string, unknown>} params
 * @returns {Node[]}
 */
function nodesOf(tree, params) {
  /** @type {Node[]} */
  const out = [];
  let text = '';
  const flush = () => {
    if (text) out.push(document.createTextNode(text));
    text = '';
  };
  /** @param {unknown} v */
  const put = (v) => {
    if (Array.isArray(v)) v.forEach(put);
    else if (v && typeof v === 'object' && 'nodeType' in v) {
      flush();
      out.push(/** @type {Node} */ (v));
    } else text += String(v);
  };
  for (const n of tree) {
    if (typeof n === 'string') text += n;
    else if ('ph' in n) put(param(params, n.ph));
    else {
      flush();
      const el = document.createElement(n.tag);
      for (const [k, v] of Object.entries(n.attrs)) el.setAttribute(k, v);
      if (VERBATIM.has(n.tag)) el.setAttribute('translate', 'no');
      for (const c of nodesOf(n.children, params)) el.appendChild(c);
      out.push(el);
    }
  }
  flush();
  return out;
}
