// The page's own markup in a language: elements that name catalogue keys (data-i18n,
// data-i18n-attr, as web/index.html's prose is written) filled in, and a "Copy" button's strings.

import { t, tNodes } from './i18n.js';

/**
 * The strings of a "Copy" button (src/shared/ui/dom.js copyButton) in a language.
 * @param {string} title  the title of what it copies
 * @param {string} lang
 */
export function copyTexts(title, lang) {
  return { label: t('copy.label', { title }, lang), copy: t('copy.button', {}, lang), copied: t('copy.copied', {}, lang), selected: t('copy.selected', {}, lang) };
}

/** The elements a template names keys in (translateTree, translateElement). */
export const KEYED = '[data-i18n], [data-i18n-attr]';

/**
 * Fill in the text of every element under `root` that names a key: `data-i18n="key"` (its
 * content) and `data-i18n-attr="attribute:key;…"` (attributes). The lesson's prose is written
 * this way in web/index.html; the build fills in the English.
 * @param {ParentNode} root
 * @param {string} lang
 */
export function translateTree(root, lang) {
  for (const el of root.querySelectorAll(KEYED)) translateElement(el, lang);
}

/**
 * Fill in one element's text and attributes that name keys (see translateTree).
 * @param {Element} el
 * @param {string} lang
 */
export function translateElement(el, lang) {
  const key = el.getAttribute('data-i18n');
  // (An element with data-live is drawn by its widget: the challenge's quote.)
  if (key && !el.hasAttribute('data-live')) el.replaceChildren(...tNodes(key, {}, lang));
  const attrs = el.getAttribute('data-i18n-attr');
  if (!attrs) return;
  for (const pair of attrs.split(';')) {
    const [attr, k] = pair.split(':').map((x) => x.trim());
    if (attr && k) el.setAttribute(attr, t(k, {}, lang));
  }
}
