// The reader's place on the lesson page. What the reader looks at stays put while the page grows
// or shrinks above it: the page keeps an anchor, the first element that reaches into the window
// (found as browsers do for their own scroll anchoring: the first block whose bottom is below the
// window's top, then within it the same, a few levels down), and after every layout that changed
// the page's blocks it scrolls by as much as the anchor moved. Chromium and Firefox anchor
// scrolling themselves; the page does it too while it first loads and a second after (a link's
// target must not move however the page arrives: first-load.js), for a while after a change of
// language (language.js), and WebKit, which does not anchor, has it all the time.

const html = document.documentElement;

const nativeAnchoring = typeof CSS !== 'undefined' && CSS.supports('overflow-anchor', 'auto');
/** The page's blocks in the order they are laid out, top to bottom. */
const PLACE_BLOCKS = 'body > header, body > hw-status, body > .hw-layout > .hw-section, body > .hw-layout > .hw-sidebar, body > .hw-layout > .hw-article > .hw-section, body > footer';
/** How many levels below a block the anchor is looked for. */
const ANCHOR_DEPTH = 6;
/** @type {{el: Element, top: number}|null} */
let anchor = null;
/** Until when (performance.now()) the page keeps the place itself in every engine (keepFor). */
let settling = 0;
/** Until when the anchor is never chosen inside a widget (holdPlace). */
let stableUntil = 0;
/**
 * A link's target: it is the anchor, to be kept where the link puts it (at the top of the window),
 * until the reader scrolls or follows another link (in Chromium and Firefox, at most until
 * the page has settled after its load: their own scroll anchoring takes over then). While the
 * page loads it may be too short to scroll the target to the top (what is below it is not drawn
 * yet), so the place kept is where it should be, not where it is.
 * @type {boolean}
 */
let pinned = false;

/** Whether the page keeps the reader's place itself now. */
export function keepingPlace() {
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
    return { el, top: r.top };
  }
  return null;
}

/**
 * Choose the anchor where the reader is now.
 * @param {{stable?: boolean}} [options]  stable: not inside a widget (by default while a place
 *   is held, holdPlace)
 */
export function pickAnchor({ stable = performance.now() < stableUntil } = {}) {
  const article = document.querySelector('body > .hw-layout > .hw-article');
  let found = firstReaching(document.querySelectorAll(PLACE_BLOCKS), article ? article.getBoundingClientRect() : null);
  // Within it, the first element that reaches into the window, a few levels down: an element
  // above that grows inside the same block moves the anchor too.
  for (let depth = 0; found && depth < ANCHOR_DEPTH && found.top < 0; depth += 1) {
    // (A widget drawn again in place, as a change of language draws it, keeps its own element
    // only: `stable` stops there.)
    if (stable && found.el.matches('.hw-widget')) break;
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
  if (!pinned) anchor.top = anchor.el.getBoundingClientRect().top;
}

/**
 * Keep a link's target at the top of the window while the page loads (see `pinned`).
 * @param {Element} target
 */
export function pin(target) {
  const margin = parseFloat(getComputedStyle(html).scrollPaddingTop) || 0;
  anchor = { el: target, top: margin + (parseFloat(getComputedStyle(target).scrollMarginTop) || 0) };
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

/** Whether an anchor has been chosen yet. */
export function hasAnchor() {
  return anchor !== null;
}

/**
 * Keep the place in every engine for `ms` from now (the heights that change meanwhile are
 * answered by the page, not only by the browser's anchoring).
 * @param {number} ms
 */
export function keepFor(ms) {
  settling = performance.now() + ms;
}

/**
 * Before a change that rewrites the page in place (a new language): the reader's place, where
 * they are now, is kept for `ms`, in every engine, until the reader scrolls.
 * @param {number} ms
 */
export function holdPlace(ms) {
  pinned = false;
  keepFor(ms);
  stableUntil = settling;
  pickAnchor();
}

/** Watch the page's blocks (each change of size keeps the place) and the reader's scrolling. */
export function watchPlace() {
  for (const block of document.querySelectorAll(PLACE_BLOCKS)) blocksChanged.observe(block);
  addEventListener('scroll', () => { if (keepingPlace() && !pinned) pickAnchor(); }, { passive: true });
}
