// Which languages there are and which one serves a requested tag: the source language and the
// pseudo-language, the languages with a catalogue (loaded or not) and their names, and the
// matching of a requested tag (es-MX, zh-SG) to one of them. No state but caches of answers.

import { META } from './catalogues.js';
import { TAG_FORM } from './markup.js';

/** The source language: every key is in its catalogue. */
export const SOURCE = 'en';
/** The pseudo-language: English in ⟦ ⟧ markers, for finding text that bypasses the catalogue. */
export const PSEUDO = 'qps-ploc';

/** @type {string[]|null} */
let tagsSorted = null;
/**
 * The languages with a catalogue, loaded or not, English first, then by tag (the pseudo-language
 * is not one). Sorted by code point, not localeCompare: the page's first Intl.Collator loads its
 * collation data, tens of milliseconds of the first load.
 */
export function languages() {
  if (!tagsSorted) tagsSorted = Object.keys(META).sort((a, b) => (a === SOURCE ? -1 : b === SOURCE ? 1 : a < b ? -1 : a > b ? 1 : 0));
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
