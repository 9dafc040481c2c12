// The lesson page's first load, in slices: no task of it should keep the main thread for long, on a
// school laptop or a phone. Imported by main.js before any element is defined, so that it holds
// every widget of the page as it is connected (element.js, setFirstLoad), then:
//
//   1. the widgets in or near the window start (build their skeleton and draw) as soon as they are
//      known and the page's language is here (a language other than English is a file of its own,
//      requested by language.js: no widget draws in English and then again), even before the WASM
//      module is ready (they show that it is loading, then their numbers as it arrives);
//   2. once the module is ready, the others start one after another, nearest the reader first,
//      each in a task of its own (a few together only while each costs little: SLICE_MS);
//   3. then each section off screen is laid out once, one per task, and keeps its measured height
//      (src/page/page.css: sections off screen skip layout, content-visibility: auto, from the first
//      frame, with an estimate of their height until then), so that a jump or a smooth scroll
//      through the page lands where it aims;
//   4. the page is complete: <html data-hw-loading> is removed and `headwise-loaded` is
//      dispatched on the document.
// The training sections are not held apart: they load when the reader comes near them
// (src/train/loader.js), and are laid out as they are built.
//
// Throughout, engines with no scroll anchoring (WebKit) keep the reader's place by hand: when a
// block wholly above the window changes height, the page scrolls by as much (keepPlace).

import { setFirstLoad } from '../shared/ui/element.js';
import { getStore } from '../shared/state/store.js';
import { languageSettled } from './language.js';

/**
 * How long (ms) one slice of the load may start widgets before the next waits for its own task.
 * Small: what a widget's start queues (its microtasks) runs after the slice, often as much again,
 * and on a busy or slow processor a task takes several times its CPU time (Lighthouse's mobile
 * profile counts four times it, and any task over 50 ms of that as blocking).
 */
export const SLICE_MS = 1;
/** How close to the window (px, above and below) a widget starts before the module is ready. */
const NEAR_PX = 200;

const html = document.documentElement;
/** The blocks whose heights the page manages: the article's sections, and the exercises. */
const SKIPPING = 'body > .hw-layout > .hw-article > .hw-section, body > .hw-layout > .hw-article > .hw-section > .hw-exercise';

/** @typedef {import('../shared/ui/element.js').HwElement} HwElement */

/** Widgets held back, not started yet. @type {Set<HwElement>} */
const held = new Set();
/** Whether each held widget (or its section) is within NEAR_PX of the window. @type {WeakMap<Element, boolean>} */
const near = new WeakMap();
let moduleReady = false;
/** Whether the page's language can be shown (or could not be loaded, or is late): language.js. */
let languageReady = false;
let complete = false;
let queued = false;

const channel = new MessageChannel();
channel.port1.onmessage = () => {
  queued = false;
  slice();
};
/** Run the next slice in a task of its own (a message task: no timer clamping, no frame wait). */
function next() {
  if (queued) return;
  queued = true;
  channel.port2.postMessage(0);
}

/**
 * Run the next slice after the next frame has been drawn (its first task after the frame); where
 * no frame comes (a page loading in a hidden tab), after a timer.
 */
function afterFrame() {
  if (queued) return;
  queued = true;
  let sent = false;
  const go = () => {
    if (sent) return;
    sent = true;
    clearTimeout(timer);
    channel.port2.postMessage(0);
  };
  const timer = setTimeout(go, 100);
  requestAnimationFrame(go);
}

/**
 * The block a widget is laid out in: its section or exercise (which may skip layout while off
 * screen), else the widget itself.
 * @param {Element} el
 */
function blockOf(el) {
  return el.closest('.hw-exercise, .hw-section, .hw-sidebar') || el;
}

/** Where each watched block was (px from the top of the page) when the observer last saw it. @type {WeakMap<Element, {top: number, bottom: number}>} */
const where = new WeakMap();

/**
 * About how far the block of `el` is from the window (px; 0 when in it), from where the
 * observer last saw the block and where the reader is now: it never asks for a layout, so the
 * choice of what comes next costs nothing while the page is half drawn.
 * @param {Element} el
 */
function distance(el) {
  const block = blockOf(el);
  if (near.get(block)) return 0;
  const at = where.get(block);
  if (!at) return Infinity;
  const top = reader.y - NEAR_PX;
  const bottom = reader.y + innerHeight + NEAR_PX;
  if (at.bottom < top) return top - at.bottom;
  if (at.top > bottom) return at.top - bottom;
  return 0;
}

/**
 * Where the reader is (scrollY), as of the last scroll event, or of the observer's first report,
 * after the first frame: where the page has been laid out anyway. Reading scrollY as this script
 * runs, or in a slice after the last slice changed the page, would lay the page out then and
 * there (50 ms as this script ran, in one trace).
 */
const reader = { y: NaN };
addEventListener('scroll', () => { reader.y = scrollY; }, { passive: true });

// Which blocks are near the window, and where they are: told once per frame at most, never
// forcing a layout.
const watch = new IntersectionObserver((entries) => {
  if (Number.isNaN(reader.y)) reader.y = scrollY;
  if (!anchor && keepingPlace()) pickAnchor();
  for (const e of entries) {
    near.set(e.target, e.isIntersecting);
    where.set(e.target, { top: e.boundingClientRect.top + reader.y, bottom: e.boundingClientRect.bottom + reader.y });
  }
  next();
}, { rootMargin: `${NEAR_PX}px 0px` });

/**
 * A User Timing measure of one step of the load (read by `npm run bench`).
 * @param {string} name
 * @param {number} start
 */
function mark(name, start) {
  try {
    performance.measure(name, { start });
  } catch {
    // User Timing Level 3 is missing: nothing to record
  }
}

/** @param {HwElement} el */
function hold(el) {
  if (complete || el.getRootNode() !== document) return false;
  held.add(el);
  watch.observe(blockOf(el));
  next();
  return true;
}

/**
 * One slice: start a widget, the nearest the window (more than one only while each costs little:
 * the work a widget's start queues, its microtasks, runs after the slice and is not counted here).
 */
function slice() {
  const t0 = performance.now();
  for (const el of held) {
    if (!el.isConnected) held.delete(el);
  }
  if (!languageReady) return;
  while (held.size > 0) {
    // Before the module is ready only the widgets near the window start: the others would draw a
    // "loading" line now and their whole drawing again when it arrives.
    const ready = [...held].filter((el) => moduleReady || near.get(blockOf(el)) === true);
    if (ready.length === 0) return;
    let best = ready[0];
    let bestD = distance(best);
    for (const el of ready) {
      const d = distance(el);
      if (d < bestD) {
        bestD = d;
        best = el;
      }
    }
    held.delete(best);
    const start = performance.now();
    best.start();
    mark(`hw-start ${best.localName}`, start);
    // A widget near the window is laid out, painted too, in the next frame: the next one waits
    // for that frame, so that one frame lays out one widget's worth of the page, not several.
    if (bestD === 0) {
      afterFrame();
      return;
    }
    if (performance.now() - t0 > SLICE_MS) {
      next();
      return;
    }
  }
  if (moduleReady && !measuring) measureSections();
}

let measuring = false;

/**
 * Lay out, one per task, each block that skips layout off screen and has not been laid out yet,
 * nearest the reader first, and keep its height as its size while it is off screen; then the
 * page is complete.
 */
function measureSections() {
  measuring = true;
  const todo = [...document.querySelectorAll(SKIPPING)].filter((b) => !b.hasAttribute('data-hw-measured') && skips(b));
  todo.sort((a, b) => distance(a) - distance(b));
  const step = () => {
    while (todo.length > 0) {
      // Nearest first (their heights are the ones a reader scrolling on meets first).
      const block = /** @type {Element} */ (todo.shift());
      if (block.isConnected && !block.hasAttribute('data-hw-measured')) {
        const start = performance.now();
        // Where the browser does not anchor, the place is kept in this task: until the next
        // frame's observer a click or a tap would be aimed at the page as it was, its target
        // moved by the height this block gained or lost above it.
        if (!nativeAnchoring) retakePlace();
        block.classList.add('hw-measure');
        keepHeight(block, contentHeight(block));
        block.classList.remove('hw-measure');
        if (!nativeAnchoring) keepPlace();
        mark(`hw-measure #${block.id}`, start);
        // One block per task: the layout of one is up to about 10 ms of CPU already.
        if (todo.length > 0) {
          setTimeout(step, 0);
          return;
        }
      }
    }
    finish();
  };
  setTimeout(step, 0);
}

/** The blocks that skip their layout while off screen: page.css's rule, which this mirrors. */
const SKIPS = 'body > .hw-layout > .hw-article > .hw-section:not(#train):not(#heads-needed):not(#induction):not(#sentence):not(#exercises), body > .hw-layout > .hw-article > #exercises > .hw-exercise';

/**
 * Whether a block skips its layout while off screen (asked of the selector, not the computed
 * style: that would bring the page's style up to date in a slice).
 * @param {Element} block
 */
function skips(block) {
  return block.matches(SKIPS);
}

/**
 * The height of a block's content box (what contain-intrinsic-size stands in for), laid out now.
 * @param {Element} block
 */
function contentHeight(block) {
  const cs = getComputedStyle(block);
  const px = (/** @type {string} */ v) => parseFloat(v) || 0;
  return block.getBoundingClientRect().height - px(cs.paddingTop) - px(cs.paddingBottom) -
    px(cs.borderTopWidth) - px(cs.borderBottomWidth);
}

/**
 * A block's content height, kept as its size for while it is off screen (a measured height, instead
 * of the stylesheet's estimate). Not contain-intrinsic-size's `auto`, which remembers the size of
 * the block's last rendering: that may be from before its widgets were drawn (a block near the
 * window is rendered as the page loads), and WebKit forgets it once the block is off screen again.
 * @param {Element} block
 * @param {number} height
 */
function keepHeight(block, height) {
  if (!(height > 0)) return;
  const value = `${height}px`;
  const style = /** @type {HTMLElement} */ (block).style;
  if (style.containIntrinsicSize !== value) style.containIntrinsicSize = value;
  block.setAttribute('data-hw-measured', '');
}

function finish() {
  complete = true;
  settling = performance.now() + SETTLE_MS;
  setFirstLoad(null);
  watch.disconnect();
  // Anything connected meanwhile and still held starts now (none is expected).
  for (const el of held) if (el.isConnected) el.start();
  held.clear();
  html.removeAttribute('data-hw-loading');
  document.dispatchEvent(new Event('headwise-loaded'));
}

// Every block keeps the height it is laid out at whenever it is on screen (ResizeObserver sees a
// block's new size after each layout). Kept in the next frame, not in the observer's callback:
// a size changed there would be an observation the browser cannot deliver in this frame (the
// "ResizeObserver loop" error, which WebKit reports from a file:// page as a bare "Script error.").
/** @type {Set<Element>} */
const resized = new Set();
const sizes = new ResizeObserver((entries) => {
  if (resized.size === 0) {
    requestAnimationFrame(() => {
      for (const block of resized) {
        // Laid out for real (not skipped): keep this height for while it is off screen.
        if (block.isConnected && (block.hasAttribute('data-hw-measured') || onScreen(block))) keepHeight(block, contentHeight(block));
      }
      resized.clear();
    });
  }
  for (const e of entries) resized.add(e.target);
});

/**
 * Whether a block is (at least partly) in the window, and so laid out even if it may skip.
 * @param {Element} block
 */
function onScreen(block) {
  const r = block.getBoundingClientRect();
  return r.bottom > 0 && r.top < innerHeight;
}

// ---- the reader's place ------------------------------------------------------------------------
// What the reader looks at stays put while the page grows or shrinks above it: the page keeps an
// anchor, the first element that reaches into the window (found as browsers do for their own scroll
// anchoring: the first block whose bottom is below the window's top, then within it the same,
// a few levels down), and after every layout that changed the page's blocks it scrolls by as much
// as the anchor moved. Chromium and Firefox anchor scrolling themselves; the page does it too
// while it first loads and a second after (a link's target must not move however the page
// arrives), and WebKit, which does not anchor, has it all the time.

const nativeAnchoring = typeof CSS !== 'undefined' && CSS.supports('overflow-anchor', 'auto');
/** The page's blocks in the order they are laid out, top to bottom. */
const PLACE_BLOCKS = 'body > header, body > hw-status, body > .hw-layout > .hw-section, body > .hw-layout > .hw-sidebar, body > .hw-layout > .hw-article > .hw-section, body > footer';
/** How many levels below a block the anchor is looked for. */
const ANCHOR_DEPTH = 6;
/**
 * The element kept in place, its top (px from the window's top) and the page's scroll offset
 * (scrollY) when that was taken: a scroll since, whose event has not come yet (scroll events
 * wait for the next frame), moved the reader, not the page.
 * @type {{el: Element, top: number, y: number}|null}
 */
let anchor = null;
/**
 * How long (ms) after the page is complete it still keeps the reader's place itself, in every
 * engine: the heights kept in the last frames of the load settle then. Firefox's own anchoring
 * may have stopped by that time (it stops for good after many small adjustments in a row, as a
 * page drawn in slices makes them), which left a link's target a few pixels off.
 */
const SETTLE_MS = 1000;
/** Until when (performance.now()) the page keeps the place after it is complete. */
let settling = 0;
/**
 * A link's target: it is the anchor, to be kept where the link puts it (at the top of the window),
 * until the reader scrolls or follows another link (in Chromium and Firefox, at most until
 * SETTLE_MS after the page is complete: their own scroll anchoring takes over then). While the
 * page loads it may be too short to scroll the target to the top (what is below it is not drawn
 * yet), so the place kept is where it should be, not where it is.
 * @type {boolean}
 */
let pinned = false;

/** Whether the page keeps the reader's place itself now. */
function keepingPlace() {
  return !nativeAnchoring || html.hasAttribute('data-hw-loading') || performance.now() < settling;
}

/**
 * The first of `els` that reaches below the window's top, and its top (px from the window's top).
 * @param {Iterable<Element>} els
 * @param {DOMRect|null} beside  a block laid out beside this one (the article, for the sidebar)
 */
function firstReaching(els, beside = null) {
  for (const el of els) {
    const r = el.getBoundingClientRect();
    if (r.height === 0 || r.bottom <= 0) continue;
    if (beside && el.classList.contains('hw-sidebar') && (r.right <= beside.left || r.left >= beside.right)) continue;
    return { el, top: r.top, y: scrollY };
  }
  return null;
}

/** Choose the anchor where the reader is now. */
function pickAnchor() {
  const article = document.querySelector('body > .hw-layout > .hw-article');
  let found = firstReaching(document.querySelectorAll(PLACE_BLOCKS), article ? article.getBoundingClientRect() : null);
  // Within it, the first element that reaches into the window, a few levels down: an element
  // above that grows inside the same block moves the anchor too.
  for (let depth = 0; found && depth < ANCHOR_DEPTH && found.top < 0; depth += 1) {
    const inner = firstReaching(found.el.children);
    if (!inner) break;
    found = inner;
  }
  anchor = found;
}

/** After a layout that changed the page's blocks: scroll by as much as the anchor moved. */
function keepPlace() {
  if (!keepingPlace()) return;
  if (!anchor || !anchor.el.isConnected) {
    pickAnchor();
    return;
  }
  const moved = anchor.el.getBoundingClientRect().top - anchor.top;
  // (Less than a pixel is rounding between a block laid out and its kept height: scrolling by it
  // would only stop a smooth scroll under way, which WebKit does on any scroll by script.)
  if (Math.abs(moved) < 1) return;
  window.scrollBy({ top: moved, behavior: 'instant' });
  anchor.y = scrollY;
  if (!pinned) anchor.top = anchor.el.getBoundingClientRect().top;
}

/**
 * Before a change made in a task of the page's own: choose the anchor again if the reader has
 * scrolled since it was chosen (the scroll's event waits for the next frame), so that keepPlace
 * keeps where the reader is now, not where the reader was.
 */
function retakePlace() {
  if (keepingPlace() && !pinned && (!anchor || Math.abs(scrollY - anchor.y) >= 1)) pickAnchor();
}

/**
 * Keep a link's target at the top of the window while the page loads (see `pinned`).
 * @param {Element} target
 */
function pin(target) {
  const margin = parseFloat(getComputedStyle(html).scrollPaddingTop) || 0;
  anchor = { el: target, top: margin + (parseFloat(getComputedStyle(target).scrollMarginTop) || 0), y: scrollY };
  pinned = true;
  const unpin = () => {
    pinned = false;
    for (const type of UNPIN) removeEventListener(type, unpin, true);
  };
  for (const type of UNPIN) addEventListener(type, unpin, { capture: true, passive: true });
  keepPlace();
}
/** What the reader does that ends a pin: scrolling by wheel, touch, key or scrollbar; another link. */
const UNPIN = ['wheel', 'touchstart', 'keydown', 'mousedown', 'hashchange'];

const blocksChanged = new ResizeObserver(keepPlace);

// On the lesson page only (app.js may also serve a page that embeds one widget); app.js is a
// deferred script, so the page is parsed when this runs.
if (document.querySelector('body > .hw-layout > .hw-article')) {
  // (index.html starts with it, so that a link's target is scrolled to at once: page.css.)
  html.setAttribute('data-hw-loading', '');
  // A link to something a widget draws (#settings, #python-numpy): every widget is built at once,
  // as the elements are defined, so that the browser finds the link's target and the store does
  // not take the fragment for settings (main.js starts the store once they are).
  const fragment = location.hash.replace(/^#/, '');
  const eager = /^[A-Za-z][\w-]*$/.test(fragment) && !document.getElementById(fragment);
  if (!eager) setFirstLoad({ hold });
  for (const block of document.querySelectorAll(SKIPPING)) {
    if (skips(block)) sizes.observe(block);
    watch.observe(block);
  }
  // A link's target: where the browser put it (again, in case the page moved it before this
  // script ran), and the place to keep.
  const target = fragment && document.getElementById(fragment);
  if (target && target.closest('body > .hw-layout')) pin(target);
  // (Otherwise the anchor is chosen after the first frame, by the observer below: choosing it now
  // would lay the page out in this script's task.)
  for (const block of document.querySelectorAll(PLACE_BLOCKS)) blocksChanged.observe(block);
  addEventListener('scroll', () => { if (keepingPlace() && !pinned) pickAnchor(); }, { passive: true });
  // (After main.js's own call when eager: this module's code runs before the elements are defined.)
  queueMicrotask(() => getStore().init().then(() => {
    moduleReady = true;
    next();
  }));
  languageSettled.then(() => {
    languageReady = true;
    next();
  });
}
