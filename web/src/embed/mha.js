// The <mha-*> elements (see mha-elements.js). Attributes set the state; attribute changes update
// it; `controls` chooses which controls are shown, `locked` (or `lock`) which are shown but can't
// be changed, and `theme` the colours (light, dark, or auto: the system's).

import { EmbedStore } from './embed-store.js';
import { DEFAULTS } from '../shared/store.js';
import { define } from '../shared/element.js';
import { h, replace } from '../shared/dom.js';
import { scriptBase, sharedModule } from '../shared/module-loader.js';
import { EXPORT_FORMATS } from './hw-export.js';
import { watchTraining } from '../train/loader.js';
import { onLanguageChange, resolveLanguage, setAutoLang, translateTree } from '../shared/i18n.js';
import { translateError } from '../shared/i18n-errors.js';

/** @typedef {import('../shared/store.js').State} State */

/** The lesson page's <main>, put in by the build (web/build-embed.mjs) from web/index.html. */
const LESSON_MARKUP = /** @type {string} */ (__HEADWISE_LESSON_MARKUP__);

const BASE = scriptBase('headwise-elements.js');
const STYLESHEET = new URL('headwise-elements.css', BASE).href;

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

/** Values of the `theme` attribute. */
export const THEMES = ['light', 'dark', 'auto'];

/** Attributes any HTML element may have; the element neither reads nor warns about them. */
const GLOBAL_ATTRIBUTES = new Set(['id', 'class', 'style', 'title', 'hidden', 'lang', 'dir', 'slot', 'part', 'exportparts',
  'tabindex', 'role', 'inert', 'is', 'nonce', 'autofocus', 'translate', 'draggable', 'contenteditable', 'spellcheck',
  'accesskey', 'enterkeyhint', 'inputmode', 'popover', 'itemid', 'itemprop', 'itemref', 'itemscope', 'itemtype']);

/**
 * @typedef {object} ControlDef
 * @property {keyof State} field  the state field
 * @property {string} id          the control's element id (and error key) inside the widget
 * @property {string} attr        the element attribute that sets it
 * @property {'number'|'boolean'|'index'|'labels'|'text'} kind
 * @property {boolean} panel      part of the settings panel (<hw-controls>)
 */

/** Every control an embed can show, hide or lock, by its public name. */
export const CONTROLS = /** @type {Record<string, ControlDef>} */ ({
  seed: { field: 'seed', id: 'seed', attr: 'seed', kind: 'number', panel: true },
  tokens: { field: 'tokens', id: 'tokens', attr: 'tokens', kind: 'number', panel: true },
  dModel: { field: 'dModel', id: 'd-model', attr: 'd-model', kind: 'number', panel: true },
  heads: { field: 'numHeads', id: 'num-heads', attr: 'heads', kind: 'number', panel: true },
  bias: { field: 'bias', id: 'bias', attr: 'bias', kind: 'boolean', panel: true },
  causal: { field: 'causal', id: 'causal', attr: 'causal', kind: 'boolean', panel: true },
  query: { field: 'query', id: 'query-token', attr: 'query-token', kind: 'index', panel: true },
  labels: { field: 'labels', id: 'token-labels', attr: 'labels', kind: 'labels', panel: true },
  ex1Seed: { field: 'ex1Seed', id: 'ex1-seed', attr: 'ex1-seed', kind: 'number', panel: false },
  ex2DModel: { field: 'ex2DModel', id: 'ex2-d-model', attr: 'ex2-d-model', kind: 'number', panel: false },
  ex2Heads: { field: 'ex2Heads', id: 'ex2-heads', attr: 'ex2-heads', kind: 'number', panel: false },
  trainSeed: { field: 'trainSeed', id: 'train-seed', attr: 'train-seed', kind: 'number', panel: false },
  trainTask: { field: 'trainTask', id: 'train-task', attr: 'train-task', kind: 'text', panel: false },
  headsRelations: { field: 'headsRelations', id: 'heads-relations', attr: 'heads-relations', kind: 'text', panel: false },
  headsSeed: { field: 'headsSeed', id: 'heads-seed', attr: 'heads-seed', kind: 'number', panel: false },
});
const NAMES = Object.keys(CONTROLS);
const BY_ATTR = new Map(NAMES.map((name) => [CONTROLS[name].attr, name]));
const BY_ID = new Map(NAMES.map((name) => [CONTROLS[name].id, name]));
const SETTINGS = NAMES.filter((name) => CONTROLS[name].panel);
/** The element's own attributes, besides the state ones. */
const OPTIONS = ['controls', 'locked', 'lock', 'exports', 'theme'];
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
 * @param {string} what  for messages
 * @returns {{names: Set<string>, problems: string[]}}
 */
function parseList(value, all, normalise, what) {
  const words = value.split(/[\s,]+/).filter(Boolean);
  if (words.length === 1 && words[0].toLowerCase() === 'all') return { names: new Set(all), problems: [] };
  if (words.length === 0 || (words.length === 1 && words[0].toLowerCase() === 'none')) return { names: new Set(), problems: [] };
  const names = new Set();
  const problems = [];
  for (const word of words) {
    const name = normalise(word);
    if (name) names.add(name);
    // In English, as every message is kept; src/shared/i18n-errors.js says it in the widget's language.
    else problems.push(`"${word.slice(0, 40)}" is not ${what} (use ${all.join(', ')}, all or none).`);
  }
  return { names, problems };
}

/**
 * Read one state attribute.
 * @param {ControlDef} def
 * @param {string|null} raw
 * @returns {{value: any, error: string|null, problem: string|null}}
 *   error: a number that can't be read (shown like an empty field); problem: anything else
 */
export function parseAttribute(def, raw) {
  const quoted = raw === null ? '' : `"${raw.slice(0, 40)}"`;
  switch (def.kind) {
    case 'number': {
      if (raw === null) return { value: DEFAULTS[def.field], error: null, problem: null };
      const n = raw.trim() === '' ? NaN : Number(raw.trim());
      if (!Number.isFinite(n)) return { value: null, error: `${def.attr}: ${quoted} is not a number.`, problem: null };
      return { value: n, error: null, problem: null };
    }
    case 'boolean':
      return { value: raw !== null && !['0', 'false', 'no', 'off'].includes(raw.trim().toLowerCase()), error: null, problem: null };
    case 'text':
      if (raw === null || raw.trim() === '') return { value: DEFAULTS[def.field], error: null, problem: null };
      return { value: raw.trim().slice(0, 64), error: null, problem: null };
    case 'index':
      if (raw === null) return { value: 0, error: null, problem: null };
      if (!/^\s*\d{1,5}\s*$/.test(raw)) return { value: 0, error: null, problem: `${def.attr}: ${quoted} is not a token index (0, 1, 2, …).` };
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
    /** @type {Map<string, string[]>} attribute problems, by attribute (English; shown translated) */
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
    /** @type {Record<string, string>} */
    const errors = {};
    for (const name of NAMES) {
      const def = CONTROLS[name];
      const { value, error, problem } = parseAttribute(def, this.getAttribute(def.attr));
      state[def.field] = value;
      if (error) errors[def.id] = error;
      if (problem) this.problems.set(def.attr, [problem]);
    }
    const store = new EmbedStore(state, () => sharedModule(BASE));
    for (const [id, message] of Object.entries(errors)) store.setInputError(id, message);
    this.hwStore = store;
    if (!REM_REGISTERED) this.style.setProperty('--hw-rem', getComputedStyle(this).fontSize);
    this.warnUnknown(this.getAttributeNames());
    new MutationObserver((records) => this.warnUnknown(records.map((r) => /** @type {string} */ (r.attributeName)).filter((n) => this.hasAttribute(n))))
      .observe(this, { attributes: true });
    this.build();
    store.addEventListener('change', () => this.renderProblems());
    // The element follows its own `lang`, else its ancestors', else the page's (src/shared/i18n.js):
    // its widgets draw themselves again in a new language; here, the frame's lang and the problems.
    onLanguageChange(() => {
      if (!this.isConnected || !this.frame) return;
      const lang = resolveLanguage(this);
      if (lang === this.language) return;
      this.language = lang;
      setAutoLang(this.frame, lang);
      translateTree(this.frame, lang);
      this.renderProblems();
    });
    store.init().then(() => {
      this.dispatchEvent(new CustomEvent('headwise-ready', { bubbles: true, composed: true, detail: { error: store.loadError } }));
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
      this.applyOptions();
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
      : parseList(controls, NAMES, controlName, 'a control');
    // `locked` and `lock` are the same attribute (the iframe's query parameter is `lock`).
    const lockAttr = this.hasAttribute('locked') || !this.hasAttribute('lock') ? 'locked' : 'lock';
    const lockValue = [this.getAttribute('locked'), this.getAttribute('lock')].filter((v) => v !== null).join(',');
    const locked = parseList(lockValue || 'none', NAMES, controlName, 'a control');
    const themeAttr = (this.getAttribute('theme') ?? 'auto').trim().toLowerCase();
    const theme = THEMES.includes(themeAttr) ? themeAttr : 'auto';
    const exportsAttr = this.getAttribute('exports');
    const formats = exportsAttr === null
      ? { names: new Set(EXPORT_FORMATS), problems: [] }
      : parseList(exportsAttr, EXPORT_FORMATS, (w) => (EXPORT_FORMATS.includes(/** @type {any} */ (w.toLowerCase())) ? w.toLowerCase() : null), 'a download format');
    this.setProblem('controls', shown.problems);
    this.setProblem(lockAttr, locked.problems);
    this.problems.delete(lockAttr === 'locked' ? 'lock' : 'locked');
    this.setProblem('exports', formats.problems);
    this.setProblem('theme', theme === themeAttr ? [] : [`"${themeAttr.slice(0, 40)}" is not a theme (use ${THEMES.join(', ')}); the system's is used.`]);
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
    const labels = root.getElementById('token-labels');
    if (labels && labels !== this.labelsWatched) {
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
   * @param {string[]} problems
   */
  setProblem(attr, problems) {
    if (problems.length) this.problems.set(attr, problems.map((p) => `${attr}: ${p}`));
    else this.problems.delete(attr);
  }

  /** Problems the student can't see beside a control: bad attributes, errors of hidden controls. */
  renderProblems() {
    const store = this.hwStore;
    const box = this.problemsBox;
    if (!store || !box) return;
    const lines = [...this.problems.values()].flat();
    const errors = this.spec.experiment && store.hw ? store.errors() : { ...store.inputErrors };
    const panelShown = SETTINGS.some((name) => this.shown.has(name));
    for (const [id, message] of Object.entries(errors)) {
      const name = BY_ID.get(id);
      const visible = name ? this.shown.has(name) : id === 'general' && panelShown;
      if (!visible && !lines.includes(message)) lines.push(message);
    }
    const key = `${this.language}\n${lines.join('\n')}`;
    if (key === this.problemsKey) return;
    this.problemsKey = key;
    replace(box, lines.map((text) => h('p', { class: 'hw-error', text: translateError(text, this.language) })));
    box.hidden = lines.length === 0;
  }
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
    return { tags: [], controls: NAMES, experiment: true };
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
  }
}

/** Define every <mha-*> element (once). */
export function defineEmbedElements() {
  widget('mha-heads', { tags: ['hw-controls', 'hw-head-weights'], controls: [...PANEL, 'labels'], experiment: true });
  widget('mha-params', { tags: ['hw-controls', 'hw-param-table'], controls: ['dModel', 'bias'], experiment: false });
  widget('mha-exercise-seeds', { tags: ['hw-controls', 'hw-exercise-seeds'], controls: ['ex1Seed', 'tokens', 'dModel', 'query'], experiment: true });
  widget('mha-exercise-dmodel', { tags: ['hw-controls', 'hw-exercise-dmodel'], controls: ['ex2DModel', 'ex2Heads', 'bias'], experiment: false });
  widget('mha-exercise-torch', { tags: ['hw-controls', 'hw-exercise-torch'], controls: PANEL, experiment: true });
  widget('mha-quiz', { tags: ['hw-quiz'], controls: [], experiment: false });
  widget('mha-python', { tags: ['hw-controls', 'hw-python'], controls: PANEL, experiment: true });
  widget('mha-train', { tags: ['hw-train'], controls: ['trainTask', 'trainSeed'], experiment: false, exports: false });
  widget('mha-heads-needed', { tags: ['hw-heads-needed'], controls: ['headsRelations', 'headsSeed'], experiment: false, exports: false });
  define('mha-lesson', MhaLesson);
}
