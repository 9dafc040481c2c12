// The lesson page's language. The page follows the reader's browser (navigator.languages) where
// there is a catalogue for it; `#lang=es` in the address chooses one (the store's `lang`, kept in
// every permalink the store writes), and so does the switcher, <hw-language>, which writes it.
// The page then says which language it is in (<html lang>), writes its prose in it (the elements
// of index.html that name a key, data-i18n) and has every widget draw itself again in place
// (src/shared/element.js relocalizeAll), keeping the reader where they were on the page.
//
// Imported first by main.js: the language is known before any widget draws (from the address,
// read here as the store will read it; the store itself is made once the widgets are there, as a
// link to a section such as #settings names an element that the settings widget makes). A language
// other than English is a file of its own (dist/i18n/<tag>.js, beside app.js), requested here as
// app.js runs; the first load (first-load.js) starts no widget before it has arrived or failed
// (`languageSettled`), so that no widget draws in English first. The prose, English as the build
// wrote it, is written in the language as soon as the file is here.

import { getStore, langOf, parseHash } from '../shared/store.js';
import { relocalizeAll } from '../shared/element.js';
import { h } from '../shared/dom.js';
import { scriptBase } from '../shared/scripts.js';
import {
  AUTO, SOURCE, ensureLanguage, languageNames, languages, onLanguageChange, pageLanguage, requestedPageLanguage, resolveLanguage, setAutoLang,
  setLanguageBase, setPageLanguage, t, translateTree, whenLanguage,
} from '../shared/i18n.js';

// The languages' files are in i18n/ beside app.js (read while app.js runs: currentScript).
setLanguageBase(scriptBase('app.js'));

/** @typedef {import('../shared/store.js').Store} Store */

/**
 * The element nearest the top of the window that stays in place when the page is written again
 * (a section or a heading), and where it is: after the new text, the page scrolls so that it is
 * there again (text of another length moves everything below it).
 * @returns {{el: Element, top: number}|null}
 */
function anchor() {
  let best = null;
  // Sections, the prose's elements and the widgets stay (their content is written again); the
  // settings' sidebar sticks to the window, so it says nothing about where the reader is.
  for (const el of document.querySelectorAll('main section[id], main [data-i18n], main .hw-widget:not(hw-controls)')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // not laid out (a print-only note)
    if (!best || Math.abs(r.top) < Math.abs(best.top)) best = { el, top: r.top };
  }
  return best;
}

/** How long the reader's place is held after a change of language (ms): the training sections
 * build their new blocks one per frame, so the page's height settles over a few frames. */
const HOLD_MS = 1500;

/**
 * Keep `at.el` where it was in the window while the page settles after a change of language
 * (engines without scroll anchoring, WebKit, would let the reader's place drift), until HOLD_MS
 * have passed or the reader scrolls, types or clicks.
 * @param {{el: Element, top: number}} at
 */
function holdPlace(at) {
  const end = performance.now() + HOLD_MS;
  let stopped = false;
  const stop = () => { stopped = true; };
  const events = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
  for (const type of events) window.addEventListener(type, stop, { once: true, passive: true });
  const step = () => {
    if (!stopped && at.el.isConnected) {
      const moved = at.el.getBoundingClientRect().top - at.top;
      if (Math.abs(moved) >= 1) window.scrollBy({ top: moved, behavior: 'instant' });
    }
    if (!stopped && performance.now() < end) requestAnimationFrame(step);
    else for (const type of events) window.removeEventListener(type, stop);
  };
  step();
}

/**
 * Write the lesson page in the page's language whenever it changes (the address's `lang`, else
 * the browser's languages), on the lesson page: a page whose <html> carries data-hw-lang-auto.
 * Elsewhere (a page that embeds hw-* elements itself) the page's own lang decides, and only the
 * widgets follow it.
 * @returns {Promise<void>} settled once the lesson's first language can be shown, or could not
 *   be loaded, or has not arrived within LANGUAGE_WAIT_MS (at once elsewhere)
 */
function writePage() {
  const root = document.documentElement;
  const isLesson = root.hasAttribute(AUTO);
  /** What the page's prose is written in now: the build wrote English into index.html. */
  let written = SOURCE;
  /** Whether the page has been drawn: the first language is written as it loads, where no reader's place is to keep. */
  let drawn = false;
  const apply = () => {
    if (!isLesson) return;
    const lang = pageLanguage();
    if (lang === written) return;
    // While the page first loads, first-load.js keeps the reader's place itself (and a language
    // that arrives then finds no widget drawn yet).
    const at = drawn && document.body && !root.hasAttribute('data-hw-loading') ? anchor() : null;
    setAutoLang(root, lang);
    translateTree(document, lang);
    relocalizeAll();
    written = lang;
    if (at) holdPlace(at);
  };
  onLanguageChange(apply);
  // The address's language (kept from a link whose other settings cannot be read, as the store
  // keeps it), or the browser's: the page is written in it before its widgets draw.
  let lang = '';
  try {
    lang = parseHash(window.location.hash).lang;
  } catch {
    lang = langOf(window.location.hash);
  }
  setPageLanguage(lang || null);
  apply();
  drawn = true;
  // Its file requested (by pageLanguage, above) if it is not here: what the first load waits for.
  return isLesson ? whenLanguage(requestedPageLanguage()).then(() => undefined) : Promise.resolve();
}

/**
 * Follow the store's `lang` from now on (the switcher, a link followed, the address edited).
 * @param {Store} store
 */
export function followStore(store) {
  const follow = () => setPageLanguage(store.state.lang || null);
  store.addEventListener('change', follow);
  follow();
}

/**
 * <hw-language>: the lesson's language switcher, a labelled <select> with every language there
 * is a catalogue for, each named in itself (English, Español, 简体中文, and any file a course adds).
 * Choosing one puts it in the address (#lang=…), which the page follows.
 */
class HwLanguage extends HTMLElement {
  connectedCallback() {
    if (this.select) return;
    this.label = h('label', { for: 'hw-language-select', class: 'hw-language-label' });
    this.select = /** @type {HTMLSelectElement} */ (h('select', { id: 'hw-language-select', autocomplete: 'off', 'data-testid': 'language' }));
    for (const tag of languages()) {
      // Each language's name in that language, and said so (a screen reader reads it as such).
      // A name, never translated (the option is found by it whatever the page's language).
      this.select.appendChild(h('option', { value: tag, lang: tag, translate: 'no', text: languageNames(tag).nativeName }));
    }
    // The chosen language's file first (at once if it is here), then the switch: the address and
    // the page change together, and a file that cannot be loaded leaves both as they were (and
    // the switcher on the language shown, with the console's warning).
    this.select.addEventListener('change', () => {
      const tag = this.select.value;
      this.loading = tag;
      this.select.setAttribute('aria-busy', 'true');
      const done = () => {
        this.loading = null;
        this.select.removeAttribute('aria-busy');
      };
      ensureLanguage(tag, { retry: true }).then((ok) => {
        if (this.loading !== tag) return;  // another language chosen meanwhile
        if (!ok) {
          done();
          this.show();
          return;
        }
        done();
        getStore().set({ lang: tag }, 'lang');
      });
    });
    this.append(this.label, this.select);
    this.show();
    onLanguageChange(() => this.show());
  }

  /** The label in the page's language, and the language shown chosen. */
  show() {
    const lang = resolveLanguage(this);
    const label = /** @type {HTMLElement} */ (this.label);
    const select = /** @type {HTMLSelectElement} */ (this.select);
    label.textContent = t('page.language', {}, lang);
    if (this.loading) return;  // the reader's choice stays shown while its file loads
    if (select.value !== lang && languages().includes(lang)) select.value = lang;
  }
}

/** Resolves once the page's first language can be shown, or could not be loaded, or after
 * LANGUAGE_WAIT_MS (src/shared/i18n.js): the first load starts its widgets then. */
export const languageSettled = writePage();
if (!customElements.get('hw-language')) customElements.define('hw-language', HwLanguage);
