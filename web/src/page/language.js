// The lesson page's language. The page follows the reader's browser (navigator.languages) where
// there is a catalogue for it; `#lang=es` in the address chooses one (the store's `lang`, kept in
// every permalink the store writes), and so does the switcher, <hw-language>, which writes it.
// The page then says which language it is in (<html lang>), writes its prose in it (the elements
// of index.html that name a key, data-i18n) and has every widget draw itself again in place
// (src/shared/ui/redraw.js relocalizeAll), keeping the reader where they were on the page.
//
// Imported first by main.js: the language is known before any widget draws (from the address,
// read here as the store will read it; the store itself is made once the widgets are there, as a
// link to a section such as #settings names an element that the settings widget makes). A language
// other than English is a file of its own (dist/i18n/<tag>.js, beside app.js), requested here as
// app.js runs; the first load (first-load.js) starts no widget before it has arrived or failed
// (`languageSettled`), so that no widget draws in English first. The prose, English as the build
// wrote it, is written in the language as soon as the file is here.

import { getStore } from '../shared/state/store.js';
import { langOf, parseHash } from '../shared/state/settings.js';
import { whenRedrawn } from '../shared/ui/redraw.js';
import { h } from '../shared/ui/dom.js';
import { afterFrame } from '../shared/compute/slices.js';
import { scriptBase } from '../shared/platform/scripts.js';
import {
  AUTO, ensureLanguage, onLanguageChange, pageChoice, pageLanguage, requestedPageLanguage,
  resolveLanguage, setAutoLang, setLanguageBase, setPageLanguage, t, whenLanguage,
} from '../shared/i18n/i18n.js';
import { KEYED, translateElement, translateTree } from '../shared/i18n/translate-dom.js';
import { SOURCE, languageNames, languages } from '../shared/i18n/language-tags.js';

// The languages' files are in i18n/ beside app.js (read while app.js runs: currentScript).
setLanguageBase(scriptBase('app.js'));

/** @typedef {import('../shared/state/store.js').Store} Store */

/** How near the window (px, above and below) the prose and the widgets are written in the change's task. */
const NEAR_PX = 200;

/**
 * The page's sections in or near the window (within `margin` px), whose content is laid out
 * anyway. Asking where an element inside a section off screen is would lay that section out
 * (sections off screen skip their layout, page.css): 30 to 45 ms of a change's task for the
 * whole page, in Chromium. A section's own box is known without it.
 * @param {number} margin
 * @returns {{near: Set<Element>, boxes: Map<Element, DOMRect>}}
 */
function sectionsNear(margin) {
  const near = new Set();
  const boxes = new Map();
  for (const section of document.querySelectorAll('main section[id]')) {
    const r = section.getBoundingClientRect();
    boxes.set(section, r);
    if (r.bottom > -margin && r.top < innerHeight + margin) near.add(section);
  }
  return { near, boxes };
}

/**
 * Whether an element lies in one of `near` (or in no section at all: the masthead, the title).
 * @param {Element} el
 * @param {Set<Element>} near
 */
function inNear(el, near) {
  const section = el.closest('main section[id]');
  return !section || near.has(section);
}

/**
 * The element nearest the top of the window that stays in place when the page is written again
 * (a section or a heading), and where it is: after the new text, the page scrolls so that it is
 * there again (text of another length moves everything below it). Only the sections in the
 * window are looked into (sectionsNear).
 * @param {{near: Set<Element>, boxes: Map<Element, DOMRect>}} sections  sectionsNear(NEAR_PX)
 * @returns {{el: Element, top: number}|null}
 */
function anchor({ near, boxes }) {
  /** @type {{el: Element, top: number}|null} */
  let best = null;
  /** @param {Element} el @param {DOMRect} r */
  const consider = (el, r) => {
    if (r.width === 0 && r.height === 0) return;  // not laid out (a print-only note)
    if (!best || Math.abs(r.top) < Math.abs(best.top)) best = { el, top: r.top };
  };
  for (const [section, r] of boxes) consider(section, r);
  // Sections, the prose's elements and the widgets stay (their content is written again); the
  // settings' sidebar sticks to the window, so it says nothing about where the reader is.
  for (const el of document.querySelectorAll('main [data-i18n], main .hw-widget:not(hw-controls)')) {
    if (inNear(el, near)) consider(el, el.getBoundingClientRect());
  }
  return best;
}

// The prose in another language: what is in or near the window in the change's task, the rest
// after the next frame in slices of about SLICE_MS, each a task of its own (a message: no timer
// clamping), so that the change's task and the frame after it carry only what the reader sees. A
// language changed again meanwhile is the one the rest is written in.
//
// Each element written says its language itself (`lang`), and <html lang> follows only once the
// rest is written, in a task of its own: a new <html lang> makes the browser compute the style of
// every element of the page that is laid out and shape its text again for the new language, too
// much to add to the change's own frame.
const SLICE_MS = 8;
/** @type {Element[]} */
let proseLeft = [];
let proseLang = SOURCE;
/** Whether the slices are scheduled (or running) and will end by setting <html lang>. */
let proseScheduled = false;
const proseChannel = new MessageChannel();
proseChannel.port1.onmessage = () => {
  const t0 = performance.now();
  while (proseLeft.length > 0 && performance.now() - t0 < SLICE_MS) writeElement(/** @type {Element} */ (proseLeft.shift()), proseLang);
  if (proseLeft.length > 0) {
    proseChannel.port2.postMessage(0);
    return;
  }
  proseScheduled = false;
  // Once the widgets are drawn again too, when the browser is idle (the training sections build
  // their blocks one per frame), so that its frame carries nothing else.
  whenRedrawn(() => whenIdle(() => {
    if (!proseScheduled) setAutoLang(document.documentElement, proseLang);
  }));
};

/**
 * Call `f` when the browser is idle (at most a second later), or after the next frame where it
 * cannot say (Safari has no requestIdleCallback).
 * @param {() => void} f
 */
function whenIdle(f) {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => f(), { timeout: 1000 });
  else afterFrame(f);
}

/**
 * Write one element of the prose in `lang`, and say so on it (an element with text of its own).
 * @param {Element} el
 * @param {string} lang
 */
function writeElement(el, lang) {
  translateElement(el, lang);
  if (el.hasAttribute('data-i18n') && document.body && document.body.contains(el)) setAutoLang(el, lang);
}

/**
 * Write the page's prose (the template's elements that name keys) in `lang`.
 * @param {string} lang
 * @param {Set<Element>|null} near  the sections written now (sectionsNear, read before anything
 *   changed, so that it lays nothing out); null: everything now, and <html lang> (the first load,
 *   when no widget is drawn yet)
 */
function writeProse(lang, near) {
  proseLang = lang;
  proseLeft = [];
  if (!near) {
    translateTree(document, lang);
    setAutoLang(document.documentElement, lang);
    return;
  }
  for (const el of document.querySelectorAll(KEYED)) {
    if (inNear(el, near)) writeElement(el, lang);
    else proseLeft.push(el);
  }
  if (proseScheduled) return;
  proseScheduled = true;
  afterFrame(() => proseChannel.port2.postMessage(0));
}

/** How long the reader's place is held after a change of language once nothing moves it (ms):
 * the training sections build their new blocks one per frame, so the page's height settles over
 * a few frames, and over more on a busy machine. */
const HOLD_MS = 1500;
/** The longest the place is held in all (ms). */
const HOLD_MAX_MS = 10000;

/**
 * Keep `at.el` where it was in the window while the page settles after a change of language
 * (engines without scroll anchoring, WebKit, would let the reader's place drift): until nothing
 * has moved it for HOLD_MS (at most HOLD_MAX_MS), or the reader scrolls, types or clicks.
 * @param {{el: Element, top: number}} at
 */
function holdPlace(at) {
  const start = performance.now();
  let still = start;
  let stopped = false;
  const stop = () => { stopped = true; };
  const events = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
  for (const type of events) window.addEventListener(type, stop, { once: true, passive: true });
  const step = () => {
    const now = performance.now();
    if (!stopped && at.el.isConnected) {
      const moved = at.el.getBoundingClientRect().top - at.top;
      if (Math.abs(moved) >= 1) {
        window.scrollBy({ top: moved, behavior: 'instant' });
        still = now;
      }
    }
    if (!stopped && now - still < HOLD_MS && now - start < HOLD_MAX_MS) requestAnimationFrame(step);
    else for (const type of events) window.removeEventListener(type, stop);
  };
  requestAnimationFrame(step);
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
    const loading = !drawn || !document.body || root.hasAttribute('data-hw-loading');
    // Where things are, read before anything changes (after, it would lay the page out).
    const sections = loading ? null : sectionsNear(NEAR_PX);
    const at = sections ? anchor(sections) : null;
    // (The widgets are drawn again by redraw.js's own listener, told right after this one.)
    writeProse(lang, sections && sections.near);
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
  return isLesson ? whenLanguage(requestedPageLanguage()).then(() => {}) : Promise.resolve();
}

/**
 * Follow the store's `lang` from now on (the switcher, a link followed, the address edited). The
 * store tells its listeners in an animation frame's callback, whose task the browser ends by
 * laying out and painting the page: the new language is written in a task of its own instead, so
 * that the writing and the layout of what it changed are two tasks, not one twice as long.
 * @param {Store} store
 */
export function followStore(store) {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => setPageLanguage(store.state.lang || null);
  store.addEventListener('change', () => {
    if ((store.state.lang || null) !== (pageChoice() || null)) channel.port2.postMessage(0);
  });
  setPageLanguage(store.state.lang || null);
}

/**
 * <hw-language>: the lesson's language switcher, a labelled <select> with every language there
 * is a catalogue for, each named in itself (English, Español, 简体中文, and any file a course adds).
 * Choosing one puts it in the address (#lang=…), which the page follows.
 */
class HwLanguage extends HTMLElement {
  connectedCallback() {
    if (this.select || this.waiting) return;
    // Built in the page's next frame (its room is kept, page.css), not as app.js runs: Chromium lays
    // out what is new by then as the document finishes parsing, in app.js's task (10 objects, 2 to 3
    // ms of CPU and 10 to 25 ms of wall time in traces on a busy machine, fonts included); in the
    // frame it is part of a layout that happens anyway. (A timer where no frame comes: a hidden tab.)
    this.waiting = true;
    let timer = 0;
    const build = () => {
      if (!this.waiting) return;
      this.waiting = false;
      clearTimeout(timer);
      this.build();
    };
    timer = setTimeout(build, 100);
    requestAnimationFrame(build);
  }

  /** The label and the <select>, once. */
  build() {
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
    setAutoLang(label, lang);  // (<html lang> follows the prose a little later)
    if (this.loading) return;  // the reader's choice stays shown while its file loads
    if (select.value !== lang && languages().includes(lang)) select.value = lang;
  }
}

/** Resolves once the page's first language can be shown, or could not be loaded, or after
 * LANGUAGE_WAIT_MS (src/shared/i18n/i18n.js): the first load starts its widgets then. */
export const languageSettled = writePage();
if (!customElements.get('hw-language')) customElements.define('hw-language', HwLanguage);
