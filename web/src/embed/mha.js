// The <mha-*> elements (see mha-elements.js). Attributes set the state; attribute changes update
// it; `controls` chooses which controls are shown, `locked` (or `lock`) which are shown but can't
// be changed, and `theme` the colours (light, dark, or auto: the system's).

import { EmbedStore } from './embed-store.js';
import { CONTROLS, NAMES, THEMES, controlName, parseAttribute, parseList, themeProblem } from './attributes.js';
import { define } from '../shared/ui/element.js';
import { SETTING, embedNames, rangeOf } from '../shared/state/settings.js';
import { pinWorkers } from '../shared/compute/pool.js';
import { h, replace } from '../shared/ui/dom.js';
import { sharedModule } from '../shared/platform/lesson-module.js';
import { scriptBase } from '../shared/platform/scripts.js';
import { EXPORT_FORMATS } from './hw-export.js';
import { watchTraining } from '../train/loader.js';
import { startPath } from '../page/path.js';
import {
  isReady, onLanguageChange, requestedLanguage, resolveLanguage, setAutoLang, setLanguageBase,
  whenLanguage,
} from '../shared/i18n/i18n.js';
import { translateTree } from '../shared/i18n/translate-dom.js';
import { translateError } from '../shared/i18n/i18n-errors.js';
import { PageError, errorOf, messageOf } from '../shared/state/errors.js';

/** @typedef {import('../shared/state/store.js').State} State */

/** The lesson page's <main>, put in by the build (web/build-embed.mjs) from web/index.html. */
const LESSON_MARKUP = /** @type {string} */ (__HEADWISE_LESSON_MARKUP__);

const BASE = scriptBase('headwise-elements.js');
const STYLESHEET = new URL('headwise-elements.css', BASE).href;
// The languages' files are in i18n/ beside headwise-elements.js.
setLanguageBase(BASE);

/** The stylesheet sizes everything from --hw-rem: 1em on :host, computed to px and inherited as px. */
const REM_REGISTERED = (() => {
  if (typeof CSS === 'undefined' || typeof CSS.registerProperty !== 'function') return false;
  try {
    CSS.registerProperty({ name: '--hw-rem', syntax: '<length>', inherits: true, initialValue: '16px' });
  } catch {
    // Already registered: a second copy of this script on the page.
  }
  return true;
})();

/** Attributes any HTML element may have; the element neither reads nor warns about them. */
const GLOBAL_ATTRIBUTES = new Set(['id', 'class', 'style', 'title', 'hidden', 'lang', 'dir', 'slot', 'part', 'exportparts',
  'tabindex', 'role', 'inert', 'is', 'nonce', 'autofocus', 'translate', 'draggable', 'contenteditable', 'spellcheck',
  'accesskey', 'enterkeyhint', 'inputmode', 'popover', 'itemid', 'itemprop', 'itemref', 'itemscope', 'itemtype']);

const BY_ATTR = new Map(NAMES.map((name) => [CONTROLS[name].attr, name]));
const BY_ID = new Map(NAMES.map((name) => [CONTROLS[name].id, name]));
const SETTINGS = NAMES.filter((name) => CONTROLS[name].panel);
/** The element's own attributes, besides the state ones. */
const OPTIONS = ['controls', 'locked', 'lock', 'exports', 'theme', 'workers'];
/** Every attribute an <mha-*> element reads, for the unknown-attribute warning. */
export const ATTRIBUTES = [...BY_ATTR.keys(), ...OPTIONS];

/**
 * Whether an attribute is neither read by the element nor a global HTML attribute.
 * @param {string} name
 */
function unknownAttribute(name) {
  return !ATTRIBUTES.includes(name) && !GLOBAL_ATTRIBUTES.has(name) && !/^(aria-|data-|on)/.test(name);
}

/**
 * @typedef {object} WidgetSpec
 * @property {string[]} tags        hw-* elements to render, in order ([] for the whole lesson)
 * @property {string[]} controls    controls shown when the `controls` attribute is absent
 * @property {boolean} experiment   whether the widget shows the main run (for error reporting)
 * @property {boolean} [exports]     whether it offers the main run's downloads (default true)
 */

export class MhaElement extends HTMLElement {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  /** @returns {WidgetSpec} */
  static get spec() {
    return { tags: [], controls: [], experiment: true };
  }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    /** @type {EmbedStore|null} read by the hw-* widgets inside (see element.js) */
    this.hwStore = null;
    /** @type {Map<string, any[]>} attribute problems (coded errors), by attribute; shown translated */
    this.problems = new Map();
    /** @type {Set<string>} controls shown */
    this.shown = new Set();
    this._built = false;
  }

  /** @returns {WidgetSpec} */
  get spec() {
    return /** @type {typeof MhaElement} */ (this.constructor).spec;
  }

  connectedCallback() {
    if (this._built) return;
    this._built = true;
    /** @type {Record<string, any>} */
    const state = {};
    /** @type {Record<string, import('../shared/state/errors.js').ErrorInfo>} */
    const errors = {};
    for (const name of NAMES) {
      const def = CONTROLS[name];
      const { value, error, problem } = parseAttribute(def, this.getAttribute(def.attr));
      state[def.field] = value;
      if (error) errors[def.id] = error;
      if (problem) this.problems.set(def.attr, [problem]);
    }
    const workers = this.getAttribute('workers');
    if (workers !== null) {
      // The page's pools of Workers (shared/compute/pool.js): the last element read pins them.
      const { min: lo, max: hi } = /** @type {{min: number, max: number}} */ (rangeOf(SETTING.workers));
      const n = workers.trim() === '' ? NaN : Number(workers.trim());
      if (Number.isInteger(n) && n >= lo && n <= hi) pinWorkers(n);
      else this.problems.set('workers', [attributeProblem('workers', errorOf(new PageError('errors.embed.notWorkers', { value: workers.slice(0, 40), min: lo, max: hi })))]);
    }
    const store = new EmbedStore(state, () => sharedModule(BASE));
    for (const [id, message] of Object.entries(errors)) store.setInputError(id, message);
    this.hwStore = store;
    if (!REM_REGISTERED) this.style.setProperty('--hw-rem', getComputedStyle(this).fontSize);
    this.warnUnknown(this.getAttributeNames());
    new MutationObserver((records) => this.warnUnknown(records.map((r) => /** @type {string} */ (r.attributeName)).filter((n) => this.hasAttribute(n))))
      .observe(this, { attributes: true });
    store.addEventListener('change', () => this.renderProblems());
    // The element follows its own `lang`, else its ancestors', else the page's (src/shared/i18n/i18n.js):
    // its widgets draw themselves again in a new language; here, the frame's lang and the problems.
    onLanguageChange(() => {
      if (!this.isConnected || !this.frame) return;
      const lang = resolveLanguage(this);
      if (lang === this.language) return;
      /** @type {string} */
      this.language = lang;
      setAutoLang(this.frame, lang);
      translateTree(this.frame, lang);
      this.renderProblems();
    });
    // Drawn once its language is here: a language other than English is a file of its own
    // (i18n/<tag>.js beside this script), loaded first, so that the widget never draws in English
    // and then again; after LANGUAGE_WAIT_MS it draws in English, and in its language when the
    // file arrives. The module loads meanwhile.
    const wanted = requestedLanguage(this);
    /** @type {Promise<void>} */
    let drawn;
    if (isReady(wanted)) {
      this.build();
      drawn = Promise.resolve();
    } else {
      drawn = whenLanguage(wanted).then(() => this.build());
    }
    Promise.all([store.init(), drawn]).then(() => {
      this.dispatchEvent(new CustomEvent('headwise-ready', { bubbles: true, composed: true, detail: { error: store.loadError ? messageOf(store.loadError) : null } }));
    });
  }

  /**
   * A console warning for attributes the element does not read (a misspelling, say), naming the ones it does.
   * @param {string[]} names
   */
  warnUnknown(names) {
    const unknown = names.filter(unknownAttribute);
    if (unknown.length === 0) return;
    const list = unknown.map((n) => `"${n.slice(0, 40)}"`).join(', ');
    console.warn(`<${this.localName}>: ${list} ${unknown.length === 1 ? 'is not an attribute' : 'are not attributes'} of this element and ${unknown.length === 1 ? 'is' : 'are'} ignored. It reads: ${ATTRIBUTES.join(', ')}.`);
  }

  build() {
    const root = /** @type {ShadowRoot} */ (this.shadowRoot);
    const link = h('link', { rel: 'stylesheet', href: STYLESHEET });
    const frame = h('div', { class: `mha-frame mha-${this.localName.slice(4)}`, part: 'frame' });
    /** the language the widget is drawn in (its text's, so lang is set on the frame for screen readers) */
    this.language = resolveLanguage(this);
    setAutoLang(frame, this.language);
    this.frame = frame;
    // Shown once the stylesheet has loaded (or failed), so the unstyled widget never flashes.
    frame.hidden = true;
    const show = () => {
      frame.hidden = false;
      // Where the browser leaves --hw-rem at its initial 16px instead of the host's font size
      // (Firefox ESR does, for a registered property set to 1em on :host), set it here.
      const size = getComputedStyle(this).fontSize;
      if (getComputedStyle(frame).getPropertyValue('--hw-rem').trim() !== size) this.style.setProperty('--hw-rem', size);
    };
    link.addEventListener('load', show);
    link.addEventListener('error', show);
    setTimeout(show, 5000);
    this.problemsBox = h('div', { class: 'mha-problems', role: 'alert', 'data-testid': 'embed-problems', hidden: true });
    this.exporter = h('hw-export');
    frame.appendChild(this.problemsBox);
    this.content(frame);
    root.appendChild(link);
    root.appendChild(frame);
    // The training section's controls exist once train.js has defined its elements: then they
    // are shown, hidden and locked like the others.
    watchTraining(frame, BASE, { loaded: () => this.applyOptions() });
    // A widget drawn again in another language has new controls: show, hide and lock them again.
    frame.addEventListener('headwise-relocalized', () => {
      if (this.reapply) return;
      this.reapply = true;
      queueMicrotask(() => {
        this.reapply = false;
        this.applyOptions();
      });
    });
    this.applyOptions();
  }

  /**
   * Put the widget's content (and the export buttons) into the frame.
   * @param {HTMLElement} frame
   */
  content(frame) {
    for (const tag of this.spec.tags) frame.appendChild(document.createElement(tag));
    if (this.spec.exports !== false) frame.appendChild(/** @type {HTMLElement} */ (this.exporter));
  }

  /**
   * @param {string} name
   * @param {string|null} old
   * @param {string|null} value
   */
  attributeChangedCallback(name, old, value) {
    if (!this._built || old === value || !this.hwStore) return;
    if (OPTIONS.includes(name)) {
      if (this.frame) this.applyOptions();  // (else build() applies them)
      return;
    }
    const control = BY_ATTR.get(name);
    if (!control) return;
    const def = CONTROLS[control];
    const store = this.hwStore;
    const parsed = parseAttribute(def, value);
    if (parsed.problem) this.problems.set(name, [parsed.problem]);
    else this.problems.delete(name);
    store.setInputError(def.id, parsed.error);
    /** @type {any} */ (store.resetState)[def.field] = parsed.value;
    store.setFromHost({ [def.field]: parsed.value });
    this.renderProblems();
  }

  /** Read `controls`, `locked` and `exports` and apply them. */
  applyOptions() {
    const store = /** @type {EmbedStore} */ (this.hwStore);
    const controls = this.getAttribute('controls');
    const shown = controls === null
      ? { names: new Set(this.spec.controls), problems: [] }
      : parseList(controls, NAMES, controlName, 'errors.embed.notControl');
    // `locked` and `lock` are the same attribute (the iframe's query parameter is `lock`).
    const lockAttr = this.hasAttribute('locked') || !this.hasAttribute('lock') ? 'locked' : 'lock';
    const lockValue = [this.getAttribute('locked'), this.getAttribute('lock')].filter((v) => v !== null).join(',');
    const locked = parseList(lockValue || 'none', NAMES, controlName, 'errors.embed.notControl');
    const themeAttr = (this.getAttribute('theme') ?? 'auto').trim().toLowerCase();
    const theme = THEMES.includes(themeAttr) ? /** @type {'light'|'dark'|'auto'} */ (themeAttr) : 'auto';
    const exportsAttr = this.getAttribute('exports');
    const formats = exportsAttr === null
      ? { names: new Set(EXPORT_FORMATS), problems: [] }
      : parseList(exportsAttr, EXPORT_FORMATS, (w) => (EXPORT_FORMATS.includes(/** @type {any} */ (w.toLowerCase())) ? w.toLowerCase() : null), 'errors.embed.notFormat');
    this.setProblem('controls', shown.problems);
    this.setProblem(lockAttr, locked.problems);
    this.problems.delete(lockAttr === 'locked' ? 'lock' : 'locked');
    this.setProblem('exports', formats.problems);
    const themeIssue = themeProblem(themeAttr);
    this.setProblem('theme', themeIssue ? [themeIssue] : []);
    // A locked control is always shown (greyed out, marked "(fixed)"), listed in `controls` or not.
    this.shown = new Set([...shown.names, ...locked.names]);
    this.lockedNames = locked.names;
    store.locked = new Set([...locked.names].map((n) => CONTROLS[n].field));
    if (store.theme !== theme) {
      store.theme = theme;
      store.schedule();
    }

    const root = /** @type {ShadowRoot} */ (this.shadowRoot);
    for (const name of NAMES) {
      const wrap = this.controlWrap(name);
      if (wrap) wrap.hidden = !this.shown.has(name);
    }
    const panel = root.querySelector('hw-controls');
    if (panel) {
      const any = SETTINGS.some((name) => this.shown.has(name));
      /** @type {HTMLElement} */ (panel).hidden = !any;
      const side = panel.closest('.hw-sidebar');
      if (side) /** @type {HTMLElement} */ (side).hidden = !any;
    }
    const exporter = /** @type {HTMLElement} */ (this.exporter);
    exporter.setAttribute('formats', [...formats.names].join(' '));
    this.applyLocks();
    this.renderProblems();
  }

  /** Disable the inputs of locked controls. */
  applyLocks() {
    const root = /** @type {ShadowRoot} */ (this.shadowRoot);
    // The token labels' inputs are made when their panel opens: lock those too (the panel is new
    // when the controls are drawn again in another language).
    const labels = root.getElementById(SETTING.labels.control);
    if (labels && labels !== this.labelsWatched) {
      /** @type {HTMLElement|null} */
      this.labelsWatched = labels;
      new MutationObserver(() => this.applyLocks()).observe(labels, { childList: true });
    }
    const locked = this.lockedNames || new Set();
    for (const name of NAMES) {
      const def = CONTROLS[name];
      const el = root.getElementById(def.id);
      if (!el) continue;
      const isLocked = locked.has(name);
      const inputs = def.kind === 'labels' ? Array.from(el.querySelectorAll('input')) : [el];
      for (const input of inputs) {
        /** @type {HTMLInputElement} */ (input).disabled = isLocked;
        input.toggleAttribute('data-locked', isLocked);
      }
      const wrap = this.controlWrap(name);
      if (wrap) wrap.classList.toggle('mha-locked', isLocked);
    }
  }

  /**
   * The element that holds a control and its label.
   * @param {string} name
   * @returns {HTMLElement|null}
   */
  controlWrap(name) {
    const root = /** @type {ShadowRoot} */ (this.shadowRoot);
    const el = root.getElementById(CONTROLS[name].id);
    if (!el) return null;
    return /** @type {HTMLElement|null} */ (el.closest('.hw-labels-details, .hw-field, .hw-check'));
  }

  /**
   * @param {string} attr
   * @param {any[]} problems
   */
  setProblem(attr, problems) {
    if (problems.length) this.problems.set(attr, problems.map((p) => attributeProblem(attr, p)));
    else this.problems.delete(attr);
  }

  /** Problems the student can't see beside a control: bad attributes, errors of hidden controls. */
  renderProblems() {
    const store = this.hwStore;
    const box = this.problemsBox;
    if (!store || !box) return;
    const lines = [...this.problems.values()].flat().map((p) => translateError(p, this.language));
    const errors = this.spec.experiment && store.hw ? store.errors() : { ...store.inputErrors };
    const panelShown = SETTINGS.some((name) => this.shown.has(name));
    for (const [id, error] of Object.entries(errors)) {
      const name = BY_ID.get(id);
      const visible = name ? this.shown.has(name) : id === 'general' && panelShown;
      const text = translateError(error, this.language);
      if (!visible && !lines.includes(text)) lines.push(text);
    }
    const key = `${this.language}\n${lines.join('\n')}`;
    if (key === this.problemsKey) return;
    /** @type {string} */
    this.problemsKey = key;
    replace(box, lines.map((text) => h('p', { class: 'hw-error', text })));
    box.hidden = lines.length === 0;
  }
}

/**
 * An attribute's problem as the element lists it: after the attribute's name.
 * @param {string} attr
 * @param {any} problem  a coded error
 */
function attributeProblem(attr, problem) {
  return errorOf(new PageError('errors.embed.attribute', { name: attr, problem }));
}

/**
 * @param {string} name
 * @param {WidgetSpec} spec
 */
function widget(name, spec) {
  define(name, class extends MhaElement {
    static get spec() {
      return spec;
    }
  });
}

const PANEL = ['seed', 'tokens', 'dModel', 'heads', 'bias', 'causal', 'query'];

/** <mha-lesson>: the whole lesson, prose included. */
class MhaLesson extends MhaElement {
  static get spec() {
    return { tags: /** @type {string[]} */ ([]), controls: NAMES, experiment: true };
  }

  /** @param {HTMLElement} frame */
  content(frame) {
    const template = document.createElement('template');
    // A constant from the build (the lesson page's own markup), never text from the host page.
    template.innerHTML = LESSON_MARKUP;
    frame.appendChild(document.importNode(template.content, true));
    // The markup holds the lesson's English (the build wrote it in); another language's text
    // goes in before its widgets draw.
    if (this.language !== 'en') translateTree(frame, /** @type {string} */ (this.language));
    const article = frame.querySelector('.hw-article') || frame;
    article.appendChild(/** @type {HTMLElement} */ (this.exporter));
    // The contents and its marks for this visit; the host (an H5P player, a course page) keeps the work.
    startPath(frame, { keep: 'host' });
  }
}

/** Define every <mha-*> element (once). */
export function defineEmbedElements() {
  widget('mha-heads', { tags: ['hw-controls', 'hw-head-weights'], controls: [...PANEL, 'labels'], experiment: true });
  widget('mha-params', { tags: ['hw-controls', 'hw-param-table'], controls: ['dModel', 'bias'], experiment: false });
  widget('mha-circuits', { tags: ['hw-controls', 'hw-head-circuits'], controls: ['seed', 'tokens', 'dModel', 'heads', 'bias'], experiment: true });
  widget('mha-exercise-seeds', { tags: ['hw-controls', 'hw-exercise-seeds'], controls: ['ex1Seed', 'tokens', 'dModel', 'query'], experiment: true });
  widget('mha-exercise-dmodel', { tags: ['hw-controls', 'hw-exercise-dmodel'], controls: ['ex2DModel', 'ex2Heads', 'bias'], experiment: false });
  widget('mha-exercise-torch', { tags: ['hw-controls', 'hw-exercise-torch'], controls: PANEL, experiment: true });
  widget('mha-quiz', { tags: ['hw-quiz'], controls: [], experiment: false });
  widget('mha-python', { tags: ['hw-controls', 'hw-python'], controls: PANEL, experiment: true });
  widget('mha-train', { tags: ['hw-train'], controls: embedNames('train'), experiment: false, exports: false });
  widget('mha-heads-needed', { tags: ['hw-heads-needed'], controls: embedNames('heads'), experiment: false, exports: false });
  widget('mha-induction', { tags: ['hw-induction'], controls: embedNames('induction'), experiment: false, exports: false });
  widget('mha-sentence', { tags: ['hw-sentence'], controls: [], experiment: false, exports: false });
  define('mha-lesson', MhaLesson);
}
