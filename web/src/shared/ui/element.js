// Base class for every Headwise widget: a light-DOM custom element fed by a Store.
// A widget builds its skeleton once (build), then updates from the store's state (update)
// whenever the store changes. Widgets are self-sufficient: drop one on any page that loads
// headwise-lesson.js and app.js and it renders from the shared store (or from `el.store = …`).

import { getStore } from '../state/store.js';
import { h, morph } from './dom.js';
import { resolveLanguage, setAutoLang, t, tNodes } from '../i18n/i18n.js';
import { translateError } from '../i18n/i18n-errors.js';
import { changed } from './redraw-guard.js';
import {
  deferRefresh, drawnNow, dropPartWrite, outOfView, putOffPart, refreshAfterFrame, unwatchLanguage,
  unwatchView, watchLanguage, watchView,
} from './redraw.js';

/** @typedef {import('../state/store.js').Store} Store */

export class HwElement extends HTMLElement {
  constructor() {
    super();
    /** @type {Store|null} */
    this._store = null;
    this._built = false;
    this._onChange = () => {
      if (this._store && this._store.deferRender) deferRefresh(this);
      else if (outOfView(this) && this.hasAttribute('data-ready')) refreshAfterFrame(this);
      else this.refresh();
    };
    /** @type {HTMLElement|null} */
    this._status = null;
    /** @type {string[]} the store's computations this widget draws (see Store.computed) */
    this.computes = [];
    /** @type {Set<Element>} parts drawn through drawPart, watched for the window */
    this._parts = new Set();
    /** the language this widget is drawn in (src/shared/i18n/i18n.js resolveLanguage) */
    this._lang = 'en';
  }

  /** The language this widget is drawn in. */
  get language() {
    return this._lang;
  }

  /**
   * A string of this widget's language (src/shared/i18n/i18n.js t).
   * @param {string} key
   * @param {Record<string, unknown>} [params]
   */
  t(key, params) {
    return t(key, params, this._lang);
  }

  /**
   * A string of this widget's language as nodes, for values with markup (src/shared/i18n/i18n.js tNodes).
   * @param {string} key
   * @param {Record<string, unknown>} [params]
   */
  tNodes(key, params) {
    return tNodes(key, params, this._lang);
  }

  /**
   * An error of the module or the page (coded: src/shared/state/errors.js), as this widget shows
   * it: in its language, from the catalogue (src/shared/i18n/i18n-errors.js).
   * @param {unknown} error
   */
  say(error) {
    return translateError(error, this._lang);
  }

  /** @returns {Store} */
  get store() {
    if (!this._store) this._store = contextStore(this) || getStore();
    return this._store;
  }

  /** @param {Store} store */
  set store(store) {
    if (this._store) this._store.removeEventListener('change', this._onChange);
    this._store = store;
    if (this.isConnected) {
      store.addEventListener('change', this._onChange);
      this.refresh();
    }
  }

  /** Inline elements (a number in a sentence) get no widget frame and no status line. */
  static get inline() {
    return false;
  }

  connectedCallback() {
    // The lesson page's first load (src/page/first-load.js) may start this widget later:
    // the widgets nearest the reader first, the rest in slices of their own.
    if (!this._built && firstLoad && firstLoad.hold(this)) return;
    this.start();
  }

  /** Build the skeleton (once), listen to the store, and draw. */
  start() {
    if (!this._built) {
      // What the page put inside the element (the challenge's discussion): kept when the widget
      // is drawn again in another language.
      this._authored = new Set(this.childNodes);
      this._lang = resolveLanguage(this);
      this.setUp();
    }
    this.store.addEventListener('change', this._onChange);
    watchView(this);
    watchLanguage(this);
    this.refresh();
  }

  /** Build the skeleton (the widget's frame, its status line, then build()). */
  setUp() {
    if (!(/** @type {typeof HwElement} */ (this.constructor)).inline) {
      this.classList.add('hw-widget');
      setAutoLang(this, this._lang);
      this._status = h('p', { class: 'hw-widget-status', role: 'status' });
      this.appendChild(this._status);
    }
    this.build();
    this._built = true;
  }

  disconnectedCallback() {
    if (this._store) this._store.removeEventListener('change', this._onChange);
    unwatchView(this);
    unwatchLanguage(this);
    this.dropParts();
  }

  /**
   * Draw the widget again in the language it now resolves to (a language switched on the page, a
   * `lang` attribute set on it or above it), in place: the same element, a new skeleton, and what
   * the student did carried over (saveState / restoreState: what they typed, chose and opened).
   * Fields listed in the class's static `keep` survive; every other field of the instance is
   * dropped, so that the widget draws everything anew. Does nothing when the language is the same.
   */
  relocalize() {
    const lang = resolveLanguage(this);
    if (!this._built || lang === this._lang || (/** @type {typeof HwElement} */ (this.constructor)).inline) return;
    const state = this.saveState();
    this.dropParts();
    const authored = /** @type {Set<Node>} */ (this._authored);
    for (const child of [...this.childNodes]) if (!authored.has(child)) this.removeChild(child);
    const keep = new Set([...BASE_FIELDS, ...(/** @type {typeof HwElement} */ (this.constructor)).keep]);
    for (const field of Object.keys(this)) if (!keep.has(field)) delete /** @type {any} */ (this)[field];
    this._status = null;
    this.computes = [];
    this._parts = new Set();
    this._lang = lang;
    this.setUp();
    this.refresh();
    this.restoreState(state);
    this.dispatchEvent(new CustomEvent('headwise-relocalized', { bubbles: true, composed: true }));
  }

  /** Instance fields that survive relocalize() (a run, a page of heads); none by default. @returns {string[]} */
  static get keep() {
    return [];
  }

  /**
   * What the student has done in this widget that the store does not hold, before it is drawn
   * again: by default the value of every field with an id (what they typed, even when it does not
   * read as a number), which <details> are open, and where the focus is.
   * @returns {any}
   */
  saveState() {
    /** @type {Record<string, {value: string, checked: boolean}>} */
    const fields = {};
    for (const el of this.querySelectorAll('input[id], textarea[id], select[id]')) {
      const f = /** @type {HTMLInputElement} */ (el);
      fields[f.id] = { value: f.value, checked: f.checked };
    }
    const open = [...this.querySelectorAll('details')].map((d) => /** @type {HTMLDetailsElement} */ (d).open);
    const root = /** @type {Document|ShadowRoot} */ (this.getRootNode());
    const focused = root.activeElement && this.contains(root.activeElement) ? root.activeElement.id : '';
    return { fields, open, focused };
  }

  /**
   * Put back what saveState() kept, into the widget drawn anew (without input events: the store
   * already holds the settings).
   * @param {any} state
   */
  restoreState(state) {
    if (!state) return;
    for (const [id, { value, checked }] of Object.entries(/** @type {Record<string, {value: string, checked: boolean}>} */ (state.fields || {}))) {
      const f = /** @type {HTMLInputElement|null} */ (this.querySelector(`#${cssId(id)}`));
      if (!f) continue;
      if (f.type === 'checkbox' || f.type === 'radio') f.checked = checked;
      else if (f.value !== value) f.value = value;
    }
    [...this.querySelectorAll('details')].forEach((d, i) => {
      if (state.open && state.open[i] && !(/** @type {HTMLDetailsElement} */ (d).open)) /** @type {HTMLDetailsElement} */ (d).open = true;
    });
    if (state.focused) {
      const f = /** @type {HTMLElement|null} */ (this.querySelector(`#${cssId(state.focused)}`));
      if (f) f.focus({ preventScroll: true });
    }
  }

  /**
   * Call `redraw` when the system's colour scheme changes (registered once per element, however
   * often it is built).
   * @param {() => void} redraw
   */
  onTheme(redraw) {
    this._onTheme = redraw;
    if (this._themeWatched || typeof matchMedia !== 'function') return;
    this._themeWatched = true;
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      if (this._onTheme) this._onTheme();
    });
  }

  /**
   * Write one part of this widget (a table row) now if any of it is in the window, else right
   * after the next frame, as a widget out of view is (the latest write for a part wins). A
   * widget in view may be taller than the window: the numbers the student cannot see then cost
   * nothing in the change's task. A part's first write, and every write of a redraw that was
   * already put off, happens at once.
   * @param {Element} part
   * @param {() => void} write
   */
  drawPart(part, write) {
    if (!this._parts.has(part)) {
      this._parts.add(part);
      watchView(part, true);
    } else if (putOffPart(part, write)) {
      return;
    }
    dropPartWrite(part);
    write();
  }

  /** Forget the parts drawn so far (the widget is rebuilding them, or leaving the page). */
  dropParts() {
    for (const part of this._parts) {
      unwatchView(part);
      dropPartWrite(part);
    }
    this._parts.clear();
  }

  /** Re-render from the store. */
  refresh() {
    drawnNow(this);
    const store = this.store;
    if (!store.hw) {
      this.setStatus(store.loadError
        ? this.t('status.loadFailed', { reason: this.say(store.loadError) })
        : this.t('status.loading'), Boolean(store.loadError));
      this.toggleAttribute('data-ready', false);
      return;
    }
    this.setStatus('');
    try {
      this.update(store);
      this.toggleAttribute('data-ready', true);
      this.showBusy(store);
    } catch (e) {
      console.error(`${this.localName}:`, e);
      this.setStatus(this.t('status.drawFailed', { reason: this.say(e) }), true);
    }
  }

  /**
   * While this widget's computations are pending: aria-busy at once; after BUSY_AFTER_MS the
   * previous result dimmed (data-computing) and a "Computing …" line in place.
   * @param {Store} store
   */
  showBusy(store) {
    if (this.computes.length === 0) return;
    const { pending, label } = store.busy(this.computes);
    if (pending) this.setAttribute('aria-busy', 'true');
    else this.removeAttribute('aria-busy');
    this.toggleAttribute('data-computing', Boolean(label));
    if (label) this.setStatus(this.t('status.computing', { what: this.t(label.key, label.params) }));
  }

  /**
   * @param {string} text
   * @param {boolean} [isError]
   */
  setStatus(text, isError = false) {
    if (!this._status) return;
    // Every refresh passes here: nothing is written when nothing changes.
    morph(this._status, [text]);
    if (this._status.hidden !== (text === '')) this._status.hidden = text === '';
    this._status.classList.toggle('hw-error', isError);
  }

  /**
   * Mark the widget as showing the last valid settings while the current ones are invalid.
   * @param {HTMLElement} slot  where the notice goes
   * @param {boolean} stale
   * @param {string} [what]  what is shown, in the widget's language
   */
  markStale(slot, stale, what = this.t('status.lastValid')) {
    this.toggleAttribute('data-stale', stale);
    morph(slot, stale ? [h('span', { text: this.t('status.stale', { what }) })] : []);
    if (slot.hidden !== !stale) slot.hidden = !stale;
  }

  /** Build the skeleton once. */
  build() {}

  /**
   * Render from the store.
   * @param {Store} _store
   */
  update(_store) {}

  /**
   * Whether the values one part of this widget is drawn from changed since it last asked.
   * @param {string} part
   * @param {unknown[]} values
   */
  changed(part, values) {
    return changed(this, part, values);
  }
}

/**
 * What holds widgets back while the lesson page first loads: hold(el) returns true when it will
 * call el.start() itself later. Null everywhere else (embeds, and the page once loaded).
 * @typedef {{hold: (el: HwElement) => boolean}} FirstLoad
 */
/** @type {FirstLoad|null} */
let firstLoad = null;

/**
 * Install (or, with null, remove) the first load's hold on widgets.
 * @param {FirstLoad|null} f
 */
export function setFirstLoad(f) {
  firstLoad = f;
}

/**
 * The store of the nearest enclosing embed: an ancestor (across shadow roots) that carries a
 * `hwStore` property, as every <mha-*> element does. The lesson page has none.
 * @param {Node} node
 * @returns {Store|null}
 */
function contextStore(node) {
  /** @type {any} */
  let n = node.parentNode;
  while (n) {
    if (n.hwStore) return n.hwStore;
    n = n.parentNode || n.host || null;
  }
  return null;
}

/** The fields every widget keeps through relocalize(). */
const BASE_FIELDS = ['_store', '_onChange', '_authored', '_built', '_lang', '_themeWatched', '_onTheme'];

/** @param {string} id */
function cssId(id) {
  return typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(id) : id.replace(/[^\w-]/g, '\\$&');
}

/**
 * Register a custom element once (embedding pages may load app.js more than once).
 * @param {string} name
 * @param {CustomElementConstructor} ctor
 */
export function define(name, ctor) {
  if (!customElements.get(name)) customElements.define(name, ctor);
}
