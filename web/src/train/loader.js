// The training section on demand. This small part is in app.js and headwise-elements.js; the
// section itself (<hw-train>, <hw-train-python> and everything they use from src/train/) is
// dist/train.js, a classic script of its own, and it trains with the full module
// (dist/headwise.js, see src/train/training-module.js). Neither is downloaded until the reader comes near
// the training section (an IntersectionObserver with a generous margin) or uses it, whichever
// comes first; the lesson's first tables never wait for them.
//
// train.js does not bundle the page's shared code again: the store, the element base, the DOM
// and form helpers and the Pool of Computes come from the bundle that loads it, through HOST
// (web/build-embed.mjs maps train.js's imports of src/shared/ onto it). So the
// training section's elements read the page's one store, as every other element does, and its
// words come from the page's catalogues (src/shared/i18n/i18n.js), which train.js does not carry.
//
//   watchTraining(document, base, {styles: true})  // the page: train.css too
//   watchTraining(shadowFrame, base)               // an embed (its stylesheet has those rules)

import * as color from '../shared/ui/color.js';
import * as pool from '../shared/compute/pool.js';
import * as dom from '../shared/ui/dom.js';
import * as element from '../shared/ui/element.js';
import * as redrawGuard from '../shared/ui/redraw-guard.js';
import * as errors from '../shared/state/errors.js';
import * as format from '../shared/ui/format.js';
import * as forms from '../shared/ui/forms.js';
import * as i18n from '../shared/i18n/i18n.js';
import * as languageTags from '../shared/i18n/language-tags.js';
import * as slices from '../shared/compute/slices.js';
import * as team from '../shared/compute/team.js';
import * as scripts from '../shared/platform/scripts.js';
import * as codeBlock from '../shared/python/code-block.js';
import * as python from '../shared/python/format.js';
import * as relations from '../shared/i18n/relations.js';
import * as settings from '../shared/state/settings.js';
import { translateError } from '../shared/i18n/i18n-errors.js';

/** The elements train.js defines. */
export const TRAINING_TAGS = ['hw-train', 'hw-train-python', 'hw-heads-needed', 'hw-heads-python', 'hw-induction', 'hw-sentence'];
/** How far ahead of the viewport the section starts loading (px, above and below). */
export const NEAR_MARGIN_PX = 1500;
/** The global under which train.js finds the modules it shares with the page's bundle. */
export const HOST_KEY = Symbol.for('headwise.trainingHost');

/** The modules train.js takes from the bundle that loads it, by path below src/. */
const HOST = {
  'shared/ui/color.js': color,
  'shared/compute/pool.js': pool,
  'shared/ui/dom.js': dom,
  'shared/ui/element.js': element,
  'shared/ui/redraw-guard.js': redrawGuard,
  'shared/state/errors.js': errors,
  'shared/ui/format.js': format,
  'shared/ui/forms.js': forms,
  'shared/i18n/i18n.js': i18n,
  'shared/i18n/language-tags.js': languageTags,
  'shared/platform/scripts.js': scripts,
  'shared/python/code-block.js': codeBlock,
  'shared/python/format.js': python,
  'shared/i18n/relations.js': relations,
  'shared/state/settings.js': settings,
  'shared/compute/slices.js': slices,
  'shared/compute/team.js': team,
};

/** @type {Promise<void>|null} */
let loading = null;

/**
 * Load train.js once (the same promise for every caller).
 * @param {string} base  the folder that holds train.js and headwise.js
 * @returns {Promise<void>}
 */
export function loadTraining(base) {
  if (!loading) {
    /** @type {any} */
    const g = globalThis;
    if (!g[HOST_KEY]) g[HOST_KEY] = HOST;
    loading = scripts.loadScript(new URL('train.js', base).href).then(() => {
      if (TRAINING_TAGS.some((tag) => !customElements.get(tag))) {
        throw new errors.PageError('errors.load.noElements');
      }
    });
    loading.catch((e) => console.error('Headwise: the training section failed to load:', errors.messageOf(e)));
  }
  return loading;
}

/**
 * The section's stylesheet, train.css, for the page (once). Embeds' shadow roots have its rules in
 * headwise-elements.css already.
 * @param {string} base
 */
function loadStyles(base) {
  const href = new URL('train.css', base).href;
  if (Array.from(document.querySelectorAll('link[rel="stylesheet"]')).some((l) => /** @type {HTMLLinkElement} */ (l).href === href)) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  link.dataset.headwiseTraining = '';
  (document.head || document.documentElement).appendChild(link);
}

/**
 * A line in each undefined training element until train.js defines it (or an error if it fails),
 * in the element's language (and again in a new one, should it change meanwhile).
 * @param {Element} el
 * @param {unknown} error  why train.js could not be loaded (a coded error), or null while it loads
 */
function placeholder(el, error) {
  let line = /** @type {HTMLElement|null} */ (el.querySelector(':scope > [data-hw-train-loading]'));
  if (!line) {
    line = dom.h('p', { class: 'hw-widget-status', role: 'status', 'data-hw-train-loading': '', 'data-testid': 'train-loading' });
    el.appendChild(line);
  }
  const shown = line;
  const write = () => {
    const lang = i18n.resolveLanguage(el);
    shown.textContent = error === null ? i18n.t('status.trainLoading', {}, lang)
      : i18n.t('status.trainFailed', { reason: translateError(error, lang) }, lang);
  };
  write();
  placeholders.set(shown, write);
  if (!placeholdersWatched) {
    placeholdersWatched = true;
    i18n.onLanguageChange(() => {
      for (const [line, rewrite] of placeholders) {
        if (line.isConnected) rewrite();
        else placeholders.delete(line);
      }
    });
  }
  line.classList.toggle('hw-error', error !== null);
  if (error !== null) line.setAttribute('role', 'alert');
}
/** The loading lines shown, and how to write each in its element's language. @type {Map<HTMLElement, () => void>} */
const placeholders = new Map();
let placeholdersWatched = false;

/**
 * Load the training section when one of its elements under `root` comes near the viewport or
 * the reader acts on it (a click, focus or key inside it), whichever comes first.
 * @param {ParentNode} root  a document or a shadow root
 * @param {string} base  the folder that holds train.js (and train.css)
 * @param {{styles?: boolean, loaded?: () => void}} [options]  styles: also load train.css into
 *   the document (the lesson page; embeds' shadow roots have those rules in
 *   headwise-elements.css); loaded: called once the elements are defined (and so built)
 */
export function watchTraining(root, base, { styles = false, loaded } = {}) {
  const els = TRAINING_TAGS.flatMap((tag) => Array.from(root.querySelectorAll(tag)))
    .filter((el) => !customElements.get(el.localName));
  if (els.length === 0) return;
  /** @type {IntersectionObserver|null} */
  let watch = null;
  const start = () => {
    if (watch) watch.disconnect();
    for (const el of els) {
      for (const type of ['pointerdown', 'focusin', 'keydown']) el.removeEventListener(type, start);
      if (!customElements.get(el.localName)) placeholder(el, null);
    }
    if (styles) loadStyles(base);
    loadTraining(base).then(() => {
      if (loaded) loaded();
    }).catch((e) => {
      for (const el of els) placeholder(el, errors.errorOf(e));
    });
  };
  if (typeof IntersectionObserver !== 'function') {
    start();
    return;
  }
  watch = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) start();
  }, { rootMargin: `${NEAR_MARGIN_PX}px 0px` });
  for (const el of els) {
    watch.observe(el);
    for (const type of ['pointerdown', 'focusin', 'keydown']) el.addEventListener(type, start);
  }
}
