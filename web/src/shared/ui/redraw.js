// When widgets and their parts are drawn: a big result's redraws in slices of about 8 ms per task
// (deferRefresh), widgets and parts out of the window after the next frame (refreshAfterFrame,
// putOffPart), and every widget again when its language changes (watchLanguage). The widgets
// themselves are src/shared/ui/element.js's HwElement.

import { onLanguageChange } from '../i18n/i18n.js';
import { nextSlice } from '../compute/slices.js';

/** @typedef {import('./element.js').HwElement} HwElement */

// A big result arrives (Store.deferRender): widgets redraw one after another, in slices of about
// 8 ms per task, so that the page stays responsive while they draw.
/** @type {Set<HwElement|PartWrite>} */
const pending = new Set();
let draining = false;

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
        nextSlice().then(drain);
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


/** @param {HwElement|PartWrite} el */
export function deferRefresh(el) {
  pending.add(el);
  if (!draining) {
    draining = true;
    nextSlice().then(drain);
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
export function watchView(el, part = false) {
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
export function unwatchView(el) {
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
export function refreshAfterFrame(el) {
  later.add(el);
  scheduleLater();
}

/**
 * Whether an element (a widget, or a part of one) is known to be out of the window.
 * @param {Element} el
 */
export function outOfView(el) {
  return inView.get(el) === false;
}

/**
 * Put off a part's write until after the next frame if the part is out of the window (and the
 * slices are not already drawing what was put off): its latest write wins. False: write it now.
 * @param {Element} part
 * @param {() => void} write
 * @returns {boolean}
 */
export function putOffPart(part, write) {
  if (inView.get(part) !== false || inDrain) return false;
  partWrites.set(part, write);
  scheduleLater();
  return true;
}

/**
 * Forget a part's write put off (it is written now, or the widget is rebuilding it).
 * @param {Element} part
 */
export function dropPartWrite(part) {
  partWrites.delete(part);
}

/**
 * A widget drawn now no longer waits for the frame.
 * @param {HwElement} el
 */
export function drawnNow(el) {
  later.delete(el);
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

// Widgets follow the language of the page and of their ancestors: when a `lang` changes (or the
// lesson's switcher sets the page's), every widget whose language it changes is drawn again.
/** Non-inline widgets on the page (in shadow roots too), for relocalizeAll. @type {Set<HwElement>} */
const widgets = new Set();
let languageWatched = false;

/** @param {HwElement} el */
export function watchLanguage(el) {
  if ((/** @type {typeof import('./element.js').HwElement} */ (el.constructor)).inline) return;
  widgets.add(el);
  if (!languageWatched) {
    languageWatched = true;
    onLanguageChange(relocalizeAll);
  }
}

/** @param {HwElement} el */
export function unwatchLanguage(el) {
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
