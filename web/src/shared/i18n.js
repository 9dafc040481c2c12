// Every string a person sees comes from here: the catalogue of the reader's language
// (web/i18n/<tag>.json, one file per language; en.json is the source), looked up by a stable key.
//
//   t(key, params, lang)       the text, {placeholders} filled in (markup dropped)
//   tNodes(key, params, lang)  DOM nodes, for values with inline markup (src/shared/markup.js);
//                              a parameter may itself be a Node (a number in its own <span>)
//   resolveLanguage(node)      the language a node renders in: its own `lang`, the nearest
//                              ancestor's (crossing shadow roots), the page's choice (#lang= on
//                              the lesson page, lang= in the iframe's query), the browser's
//                              navigator.languages, English
//
// A key missing from a language falls back to English; a key missing from English is a bug and
// throws. A requested language without a catalogue is shown in English, with one console warning
// that names it and the languages there are. Numbers, code and identifiers are never translated:
// callers format them (src/shared/format.js) and pass them as parameters, inserted as text.
//
// A value is a string, or a plural object {"one": "…", "other": "…"} whose form is chosen by
// Intl.PluralRules of the language for the parameter `count`.
//
// The pseudo-language qps-ploc (never offered in the switcher) is English with every value
// wrapped in ⟦ ⟧: open the page with #lang=qps-ploc and any text without the brackets was not
// taken from the catalogue (tests/browser/i18n.test.mjs fails on it).

import { CATALOGUES, META } from './catalogues.js';
import { VERBATIM, param, parseMarkup, plainText } from './markup.js';

/** @typedef {import('./markup.js').MarkupNode} MarkupNode */
/** @typedef {string|Record<string, string>} Value */

/** The source language: every key is in its catalogue. */
export const SOURCE = 'en';
/** The pseudo-language: English in ⟦ ⟧ markers, for finding text that bypasses the catalogue. */
export const PSEUDO = 'qps-ploc';
/** Marks a `lang` attribute that Headwise wrote (the language it renders in), not a choice. */
export const AUTO = 'data-hw-lang-auto';
/** What a `lang` value or `#lang=` must look like (a BCP 47 language tag). */
export const TAG_FORM = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,6}$/;

/** @type {Map<string, Record<string, Value>>} */
const parsedCatalogues = new Map();

/**
 * A language's catalogue, parsed on first use (only the languages a page uses are ever parsed).
 * @param {string} tag  a tag of languages(), SOURCE or PSEUDO
 * @returns {Record<string, Value>|null}
 */
function catalogue(tag) {
  let cat = parsedCatalogues.get(tag);
  if (cat) return cat;
  if (tag === PSEUDO) {
    cat = pseudo(/** @type {Record<string, Value>} */ (catalogue(SOURCE)));
  } else if (Object.prototype.hasOwnProperty.call(CATALOGUES, tag)) {
    cat = JSON.parse(CATALOGUES[tag]);
  } else {
    return null;
  }
  parsedCatalogues.set(tag, /** @type {Record<string, Value>} */ (cat));
  return /** @type {Record<string, Value>} */ (cat);
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

/** @type {string[]|null} */
let tagsSorted = null;
/**
 * The languages with a catalogue, English first, then by tag (the pseudo-language is not one).
 * Sorted by code point, not localeCompare: the page's first Intl.Collator loads its collation
 * data, tens of milliseconds of the first load.
 */
export function languages() {
  if (!tagsSorted) tagsSorted = Object.keys(CATALOGUES).sort((a, b) => (a === SOURCE ? -1 : b === SOURCE ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return tagsSorted.slice();
}

/**
 * A language's names from its _meta: `nativeName` (as its readers write it, for the switcher)
 * and `name` (in English).
 * @param {string} tag
 */
export function languageNames(tag) {
  const meta = META[tag];
  return { name: (meta && meta.name) || tag, nativeName: (meta && meta.nativeName) || tag };
}

/**
 * Languages written in more than one script (CLDR's likely subtags tell which from the region):
 * only for these does matching ask Intl.Locale, whose first maximize() loads its data, some 25 ms
 * of the page's first load in Chromium. For every other language, one script.
 */
const MULTI_SCRIPT = new Set(['zh', 'yue', 'sr', 'bs', 'uz', 'az', 'pa', 'mn', 'ha', 'ms', 'ku', 'sd', 'ks', 'shi', 'vai', 'ff']);

/**
 * A tag's language and script, as Intl.Locale's likely subtags fill them in: zh → zh-Hans-CN,
 * zh-SG → zh-Hans-SG, zh-TW → zh-Hant-TW, es-MX → es-Latn-MX. Without a script subtag, a
 * language of one script has script '' (all its tags match each other).
 * @param {string} tag
 * @returns {{language: string, script: string, region: string}|null}
 */
function likely(tag) {
  const parts = tag.split('-');
  const language = parts[0].toLowerCase();
  const script = parts.slice(1).find((p) => /^[A-Za-z]{4}$/.test(p));
  const region = parts.slice(1).find((p) => /^([A-Za-z]{2}|\d{3})$/.test(p));
  if (!MULTI_SCRIPT.has(language) && !script) return { language, script: '', region: region ? region.toUpperCase() : '' };
  try {
    const l = new Intl.Locale(tag).maximize();
    return { language: l.language, script: l.script || '', region: l.region || '' };
  } catch {
    return null;
  }
}

/**
 * The catalogue that serves a requested language, or null: the same tag, in any case; else a
 * catalogue of the same language in the same script (so es-MX gets es, and zh, zh-Hans,
 * zh-Hans-CN and zh-SG get zh-CN, but zh-TW, zh-HK and zh-Hant do not), the one of the same
 * region first, then the one without a region.
 * @param {string} requested
 * @returns {string|null}
 */
export function matchLanguage(requested) {
  const key = String(requested);
  if (!matched.has(key)) matched.set(key, matchNow(key));
  return /** @type {string|null} */ (matched.get(key));
}
/** Each requested language's match, found once. @type {Map<string, string|null>} */
const matched = new Map();

/** @param {string} requested */
function matchNow(requested) {
  const want = requested.trim();
  if (!TAG_FORM.test(want)) return null;
  if (want.toLowerCase() === PSEUDO) return PSEUDO;
  const tags = languages();
  const same = tags.find((t) => t.toLowerCase() === want.toLowerCase());
  if (same) return same;
  const w = likely(want);
  if (!w) return null;
  // (Only tags of the same language are asked about: likely() of another may load Intl's data.)
  const candidates = tags.filter((t) => {
    if (t.split('-')[0].toLowerCase() !== want.split('-')[0].toLowerCase()) return false;
    const c = likely(t);
    return c && c.language === w.language && c.script === w.script;
  });
  return candidates.find((t) => likely(t)?.region === w.region && t.includes('-'))
    || candidates.find((t) => !t.includes('-'))
    || candidates[0]
    || null;
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
let pageChoice = /** @type {string|null} */ (null);

/**
 * Set (or clear, with null or '') the page's choice of language, and tell everyone listening.
 * @param {string|null} requested
 */
export function setPageLanguage(requested) {
  const next = requested ? String(requested) : null;
  if (next === pageChoice) return;
  pageChoice = next;
  changed();
}

/** The first of the reader's languages (navigator.languages) that has a catalogue, else English. */
export function browserLanguage() {
  const nav = typeof navigator === 'undefined' ? null : navigator;
  const list = nav ? (nav.languages && nav.languages.length ? nav.languages : [nav.language]) : [];
  for (const l of list) {
    const m = l ? matchLanguage(l) : null;
    if (m && m !== PSEUDO) return m;
  }
  return SOURCE;
}

/** The page's language: its choice if it made one, else the browser's. */
export function pageLanguage() {
  return pageChoice ? chosen(pageChoice) : browserLanguage();
}

/**
 * The language `node` renders in: the nearest `lang` on it or above it (across shadow roots to
 * their hosts) that was not written by Headwise, else the page's language.
 * @param {Node|null} node
 */
export function resolveLanguage(node) {
  /** @type {any} */
  let n = node;
  while (n) {
    if (n.nodeType === 1 && n.hasAttribute('lang') && !n.hasAttribute(AUTO)) {
      const v = n.getAttribute('lang').trim();
      if (v) return chosen(v);
    }
    n = n.parentNode || n.host || null;
  }
  return pageLanguage();
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
 * ancestor's), or the page's choice. Returns the function that stops it.
 * @param {() => void} f
 */
export function onLanguageChange(f) {
  listeners.add(f);
  if (!observer && typeof MutationObserver === 'function' && typeof document !== 'undefined') {
    observer = new MutationObserver((records) => {
      let real = false;
      for (const r of records) {
        const el = /** @type {Element} */ (r.target);
        if (el.hasAttribute(AUTO) && written.has(el)) {
          if (el.getAttribute('lang') === written.get(el)) continue;  // one of ours
          el.removeAttribute(AUTO);  // a host page set it: a choice from now on
          written.delete(el);
        }
        real = true;
      }
      if (real) changed();
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

/**
 * The strings of a "Copy" button (src/shared/dom.js copyButton) in a language.
 * @param {string} title  the title of what it copies
 * @param {string} lang
 */
export function copyTexts(title, lang) {
  return { label: t('copy.label', { title }, lang), copy: t('copy.button', {}, lang), copied: t('copy.copied', {}, lang), selected: t('copy.selected', {}, lang) };
}

/**
 * Fill in the text of every element under `root` that names a key: `data-i18n="key"` (its
 * content) and `data-i18n-attr="attribute:key;…"` (attributes). The lesson's prose is written
 * this way in web/index.html; the build fills in the English.
 * @param {ParentNode} root
 * @param {string} lang
 */
export function translateTree(root, lang) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    if (el.hasAttribute('data-live')) continue;  // drawn by its widget (the challenge's quote)
    el.replaceChildren(...tNodes(/** @type {string} */ (el.getAttribute('data-i18n')), {}, lang));
  }
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of /** @type {string} */ (el.getAttribute('data-i18n-attr')).split(';')) {
      const [attr, key] = pair.split(':').map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key, {}, lang));
    }
  }
}
