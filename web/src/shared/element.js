// Base class for every Headwise widget: a light-DOM custom element fed by a Store.
// A widget builds its skeleton once (build), then updates from the store's state (update)
// whenever the store changes. Widgets are self-sufficient: drop one on any page that loads
// headwise-lesson.js and app.js and it renders from the shared store (or from `el.store = …`).

import { getStore } from './store.js';
import { h, morph } from './dom.js';
import { messageOf } from './errors.js';

/** @typedef {import('./store.js').Store} Store */

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
    // The lesson page's first load (src/lesson/first-load.js) may start this widget later:
    // the widgets nearest the reader first, the rest in slices of their own.
    if (!this._built && firstLoad && firstLoad.hold(this)) return;
    this.start();
  }

  /** Build the skeleton (once), listen to the store, and draw. */
  start() {
    if (!this._built) {
      if (!(/** @type {typeof HwElement} */ (this.constructor)).inline) {
        this.classList.add('hw-widget');
        this._status = h('p', { class: 'hw-widget-status', role: 'status' });
        this.appendChild(this._status);
      }
      this.build();
      this._built = true;
    }
    this.store.addEventListener('change', this._onChange);
    watchView(this);
    this.refresh();
  }

  disconnectedCallback() {
    if (this._store) this._store.removeEventListener('change', this._onChange);
    unwatchView(this);
    this.dropParts();
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
        ? `The computation module could not be loaded: ${store.loadError}`
        : 'Loading the computation module…', Boolean(store.loadError));
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
      this.setStatus(`Something went wrong while drawing this part: ${messageOf(e)}`, true);
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
    if (label) this.setStatus(`Computing ${label}…`);
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
   * @param {string} [what]
   */
  markStale(slot, stale, what = 'the last valid settings') {
    this.toggleAttribute('data-stale', stale);
    morph(slot, stale ? [h('span', { text: `Showing ${what}. Fix the setting marked in red to update this part.` })] : []);
    if (slot.hidden !== !stale) slot.hidden = !stale;
  }

  /** Build the skeleton once. */
  build() {}

  /**
   * Render from the store.
   * @param {Store} _store
   */
  update(_store) {}
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
// one frame later (the lesson's sections off screen skip layout anyway, styles.css). A widget's
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
/** Widgets waiting for the next frame. @type {Set<HwElement>} */
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

/**
 * Register a custom element once (embedding pages may load app.js more than once).
 * @param {string} name
 * @param {CustomElementConstructor} ctor
 */
export function define(name, ctor) {
  if (!customElements.get(name)) customElements.define(name, ctor);
}
