// Base class for every Headwise widget: a light-DOM custom element fed by a Store.
// A widget builds its skeleton once (build), then updates from the store's state (update)
// whenever the store changes. Widgets are self-sufficient: drop one on any page that loads
// headwise-lesson.js and app.js and it renders from the shared store (or from `el.store = …`).

import { getStore } from '../state/store.js';
import { h, morph } from './dom.js';
import { onLanguageChange, resolveLanguage, setAutoLang, t, tNodes } from '../i18n/i18n.js';
import { translateError } from '../i18n/i18n-errors.js';

/** @typedef {import('../state/store.js').Store} Store */

export class HwElement extends HTMLElement {
  constructor() {
    super();
    /** @type {Store|null} */
    this._store = null;
    this._built = false;
    this._onChange = () => {
      if (this._store && this._store.deferRender) deferRefresh(this);
      else if (inView.get(this) === false && this.hasAttribute('data-ready')) refreshAfterFrame(this);
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
    } else if (inView.get(part) === false && !inDrain) {
      partWrites.set(part, write);
      scheduleLater();
      return;
    }
    partWrites.delete(part);
    write();
  }

  /** Forget the parts drawn so far (the widget is rebuilding them, or leaving the page). */
  dropParts() {
    for (const part of this._parts) {
      unwatchView(part);
      partWrites.delete(part);
    }
    this._parts.clear();
  }

  /** Re-render from the store. */
  refresh() {
    later.delete(this);
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
 * A redraw guard without hand-built keys: whether `values` differ, value by value (arrays
 * element by element), from those `holder` last recorded for `part`; records them if so. The
 * record is an own field of the holder, so a widget drawn again for another language forgets it.
 * @param {any} holder  a widget, or an object standing for one of its views
 * @param {string} part
 * @param {unknown[]} values
 */
export function changed(holder, part, values) {
  if (!holder._drawnFrom) holder._drawnFrom = new Map();
  /** @type {Map<string, unknown[]>} */
  const seen = holder._drawnFrom;
  const last = seen.get(part);
  if (last && same(last, values)) return false;
  seen.set(part, values);
  return true;
}

/**
 * Forget what `holder` recorded for `part` (or for every part): its next changed() is true.
 * @param {any} holder
 * @param {string} [part]
 */
export function forget(holder, part) {
  if (!holder._drawnFrom) return;
  if (part === undefined) holder._drawnFrom.clear();
  else holder._drawnFrom.delete(part);
}

/**
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
function same(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) return Object.is(a, b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (!same(a[i], b[i])) return false;  // holes read as undefined
  return true;
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

// A big result arrives (Store.deferRender): widgets redraw one after another, in slices of about
// 8 ms per task, so that the page stays responsive while they draw.
/** @type {Set<HwElement|PartWrite>} */
const pending = new Set();
let draining = false;
const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;

/** True while the slices redraw: a redraw already put off draws all of its parts at once. */
let inDrain = false;

function drain() {
  const t0 = performance.now();
  inDrain = true;
  try {
    for (const el of pending) {
      pending.delete(el);
      if (el.isConnected) el.refresh();
      if (performance.now() - t0 > 8 && pending.size > 0) {
        redrawn(t0);
        nextSlice();
        return;
      }
    }
  } finally {
    inDrain = false;
  }
  draining = false;
  redrawn(t0);
  if (later.size === 0 && partWrites.size === 0) whenIdle.splice(0).forEach((f) => f());
}

/** Called once no widget waits to be drawn again (whenRedrawn). @type {(() => void)[]} */
const whenIdle = [];

/**
 * Call `f` once every widget and part waiting to be drawn again has been (at once if none waits):
 * what follows a change of language then does not share a frame with the slices.
 * @param {() => void} f
 */
export function whenRedrawn(f) {
  if (!draining && pending.size === 0 && later.size === 0 && partWrites.size === 0) f();
  else whenIdle.push(f);
}

/**
 * A User Timing measure of one slice of deferred redraws (read by `npm run bench`), with how
 * many widgets and parts are still waiting.
 * @param {number} start
 */
function redrawn(start) {
  try {
    // One is made per slice for as long as the page is open: only the latest are kept, so that
    // the browser's performance timeline does not grow with every change of a long session.
    if (redrawMeasures >= REDRAW_MEASURES_KEPT) {
      performance.clearMeasures('hw-redraw');
      redrawMeasures = 0;
    }
    performance.measure('hw-redraw', { start, detail: { waiting: pending.size + later.size + partWrites.size } });
    redrawMeasures += 1;
  } catch {
    // User Timing Level 3 is missing: nothing to record
  }
}
/** The most 'hw-redraw' measures the page keeps. */
const REDRAW_MEASURES_KEPT = 100;
let redrawMeasures = 0;

function nextSlice() {
  if (channel) channel.port2.postMessage(0);
  else setTimeout(drain, 0);
}
if (channel) channel.port1.onmessage = drain;

/** @param {HwElement|PartWrite} el */
function deferRefresh(el) {
  pending.add(el);
  if (!draining) {
    draining = true;
    nextSlice();
  }
}

// Widgets out of the window (farther than VIEW_MARGIN) redraw right after the next frame instead
// of in the task of the change: what the student sees is answered first, and the rest follows
// one frame later (the lesson's sections off screen skip layout anyway, src/page/page.css). A widget's
// first drawing is never deferred (a page, or a host's frame, is sized once from it), and until
// the observer has reported on a widget, or where there is no IntersectionObserver, it redraws
// at once.
const VIEW_MARGIN = '200px 0px';
// A part of a widget in view (drawPart) waits only if it is wholly outside the window: the
// widget around it is already on screen, and a part scrolled into view during the frame shows
// its new numbers one frame later.
const PART_MARGIN = '0px';
/** @type {WeakMap<Element, boolean>} */
const inView = new WeakMap();
/** @type {IntersectionObserver|null} */
let viewObserver = null;
/** @type {IntersectionObserver|null} */
let partObserver = null;
/** Widgets, and widgets' relocalize() (relocalizeAll), waiting for the next frame. @type {Set<HwElement|PartWrite>} */
const later = new Set();
let laterTimer = 0;
/** Parts of widgets waiting for the next frame: each part's latest write. @type {Map<Element, () => void>} */
const partWrites = new Map();

/**
 * A part's write as the slices run it: whatever write is latest when its turn comes.
 * @typedef {{isConnected: boolean, refresh: () => void}} PartWrite
 */
/** @type {WeakMap<Element, PartWrite>} */
const partTasks = new WeakMap();
/** @param {Element} part @returns {PartWrite} */
function partTask(part) {
  let t = partTasks.get(part);
  if (!t) {
    t = {
      isConnected: true,
      refresh() {
        const write = partWrites.get(part);
        partWrites.delete(part);
        if (write && part.isConnected) write();
      },
    };
    partTasks.set(part, t);
  }
  return t;
}

/** @param {IntersectionObserverEntry[]} entries */
const seen = (entries) => {
  for (const e of entries) inView.set(e.target, e.isIntersecting);
};

/**
 * @param {Element} el
 * @param {boolean} [part]  a part of a widget (drawPart), not a widget
 */
function watchView(el, part = false) {
  if (typeof IntersectionObserver !== 'function') return;
  if (part) {
    if (!partObserver) partObserver = new IntersectionObserver(seen, { rootMargin: PART_MARGIN });
    partObserver.observe(el);
    return;
  }
  if (!viewObserver) viewObserver = new IntersectionObserver(seen, { rootMargin: VIEW_MARGIN });
  viewObserver.observe(el);
}

/** @param {Element} el */
function unwatchView(el) {
  if (viewObserver) viewObserver.unobserve(el);
  if (partObserver) partObserver.unobserve(el);
  inView.delete(el);
  later.delete(/** @type {HwElement} */ (el));
}

/**
 * Redraw after the next frame: the frame's callbacks hand the widgets to the slices above, whose
 * first task runs once the frame is painted. Where no frame comes (a hidden tab, an iframe the
 * browser throttles) a timer does it.
 * @param {HwElement} el
 */
function refreshAfterFrame(el) {
  later.add(el);
  scheduleLater();
}

/** Hand the widgets and parts waiting for the frame to the slices, once the frame is drawn. */
function scheduleLater() {
  if (laterTimer) return;
  const go = () => {
    if (!laterTimer) return;
    clearTimeout(laterTimer);
    laterTimer = 0;
    for (const w of later) deferRefresh(w);
    later.clear();
    for (const part of partWrites.keys()) deferRefresh(partTask(part));
  };
  laterTimer = window.setTimeout(go, 100);
  requestAnimationFrame(go);
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

// Widgets follow the language of the page and of their ancestors: when a `lang` changes (or the
// lesson's switcher sets the page's), every widget whose language it changes is drawn again.
/** Non-inline widgets on the page (in shadow roots too), for relocalizeAll. @type {Set<HwElement>} */
const widgets = new Set();
/** The fields every widget keeps through relocalize(). */
const BASE_FIELDS = ['_store', '_onChange', '_authored', '_built', '_lang', '_themeWatched', '_onTheme'];
let languageWatched = false;

/** @param {HwElement} el */
function watchLanguage(el) {
  if ((/** @type {typeof HwElement} */ (el.constructor)).inline) return;
  widgets.add(el);
  if (!languageWatched) {
    languageWatched = true;
    onLanguageChange(relocalizeAll);
  }
}

/** @param {HwElement} el */
function unwatchLanguage(el) {
  widgets.delete(el);
}

/**
 * Draw again every widget whose language has changed (see HwElement.relocalize): those in or near
 * the window at once, in the change's task, the others after the next frame, in the slices that
 * redraw widgets out of view (a whole page in one task would block it). Each widget reads its
 * language when its turn comes, so a language changed again meanwhile is the one it draws.
 */
function relocalizeAll() {
  for (const w of [...widgets]) {
    if (!w.isConnected) continue;
    if (inView.get(w) === false) relocalizeLater(w);
    else relocalizeNow(w);
  }
}

/** @param {HwElement} w */
function relocalizeNow(w) {
  try {
    w.relocalize();
  } catch (e) {
    console.error(`${w.localName}:`, e);
  }
}

/** Each widget's relocalize() as the slices run it (one per widget, so that it is queued once). @type {WeakMap<HwElement, PartWrite>} */
const relocalizeTasks = new WeakMap();

/** @param {HwElement} w */
function relocalizeLater(w) {
  let task = relocalizeTasks.get(w);
  if (!task) {
    task = {
      get isConnected() { return w.isConnected; },
      refresh() { relocalizeNow(w); },
    };
    relocalizeTasks.set(w, task);
  }
  later.add(task);
  scheduleLater();
}

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
