// Layout in every engine, at a phone's, a tablet's and a laptop's width: the lesson, the gallery
// and each iframe widget; in dark mode too, at the phone's width only (dark mode changes colours
// only, which tests/js/dark-css.test.mjs checks, so its geometry is light mode's). Nothing makes
// the page scroll sideways (only containers meant to scroll may), no identifier or shape in a
// table breaks across lines, nothing is clipped by a box too small for it, and a table's caption
// stays within the width of the box that scrolls the table; NumPy printouts wrap rather than
// scroll. Full-page screenshots are saved under build/screenshots/<engine>/ to
// be looked at (unless HEADWISE_SCREENSHOTS=0).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  ENGINE, ROOT, openPage, settle, shareBrowser,
} from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

// HEADWISE_SCREENSHOTS=0 (as in CI, where nobody looks at them) saves the time they take.
const SHOTS = process.env.HEADWISE_SCREENSHOTS === '0' ? null : join(ROOT, 'build', 'screenshots', ENGINE);
if (SHOTS) mkdirSync(SHOTS, { recursive: true });

const WIDTHS = [360, 768, 1280];
const WIDGETS = ['heads', 'params', 'ex1', 'ex2', 'ex3', 'quiz', 'python', 'lesson'];
const PAGES = [
  ['lesson', '/index.html', 'hw-head-weights[data-ready]'],
  ['lesson-heatmaps', '/index.html#tokens=20&d_model=64&heads=32&bias=1', 'hw-head-weights[data-ready]'],
  ['gallery', '/gallery.html', 'section[data-widget="lesson"]'],
  ...WIDGETS.map((w) => [`embed-${w}`, `/embed.html?widget=${w}&id=${w}`, 'main#embed > *']),
];

/**
 * Runs in the page: every layout problem found, one line each.
 * Containers meant to scroll are those whose overflow-x is auto or scroll.
 */
function layoutProblems() {
  const problems = [];
  const describe = (e) => {
    let s = e.localName;
    if (e.id) s += `#${e.id}`;
    else if (e.classList.length) s += `.${[...e.classList].join('.')}`;
    const t = e.getAttribute('data-testid');
    if (t) s += `[data-testid=${t}]`;
    const host = e.getRootNode().host;
    return host ? `${host.localName} › ${s}` : s;
  };
  /** Every element, through open shadow roots. */
  const all = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      all.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(document);
  const parentOf = (e) => e.parentElement || e.getRootNode().host || null;
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  // Visually hidden on purpose (the usual 1 px clip pattern), or the skip link until focused.
  const hiddenOnPurpose = (e) => {
    for (let a = e; a; a = parentOf(a)) {
      const r = a.getBoundingClientRect();
      if (r.width <= 1 && r.height <= 1) return true;
      if (a.matches('.hw-skip, .visually-hidden, .sr-only, [hidden], template, noscript')) return true;
    }
    return false;
  };
  const scrollsX = (e) => /auto|scroll/.test(getComputedStyle(e).overflowX);
  const vw = document.documentElement.clientWidth;

  // 1. The page itself does not scroll sideways.
  const sw = document.documentElement.scrollWidth;
  if (sw > vw + 1) problems.push(`the page is ${sw}px wide in a ${vw}px viewport`);

  // 2. Nothing sticks out of the viewport unless a scrolling container holds it.
  for (const e of all) {
    if (!shown(e) || hiddenOnPurpose(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.right <= vw + 1 && r.left >= -1) continue;
    let held = false;
    for (let a = parentOf(e); a && a !== document.documentElement; a = parentOf(a)) {
      if (scrollsX(a)) { held = true; break; }
    }
    if (!held) problems.push(`${describe(e)} reaches ${Math.round(r.left)}..${Math.round(r.right)}px in a ${vw}px viewport`);
  }

  // 3. No identifier or shape in a table breaks across lines.
  const TOKEN = /\([\d, ]*\d\)|[A-Za-z_][\w.]*_[\w.]*|[A-Za-z_]+\.[\w.]+|\d[\d,]{3,}/g;
  for (const cell of all.filter((e) => e.matches('td, th') && shown(e))) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(TOKEN)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
        if (tops.size > 1) problems.push(`"${m[0]}" breaks across ${tops.size} lines in ${describe(cell)}`);
      }
    }
  }

  // 4. Nothing is cut off: a box that hides overflow is big enough for what it holds, and a
  //    scrolling box shows the start of its content (it is not scrolled past it on load).
  for (const e of all) {
    if (!shown(e) || hiddenOnPurpose(e)) continue;
    const cs = getComputedStyle(e);
    const clipX = /hidden|clip/.test(cs.overflowX);
    const clipY = /hidden|clip/.test(cs.overflowY);
    if (cs.textOverflow === 'ellipsis') continue; // shortened on purpose, with the full text in a title
    if (clipX && e.scrollWidth > e.clientWidth + 1) problems.push(`${describe(e)} cuts off ${e.scrollWidth - e.clientWidth}px of its content sideways`);
    if (clipY && e.scrollHeight > e.clientHeight + 1) problems.push(`${describe(e)} cuts off ${e.scrollHeight - e.clientHeight}px of its content below`);
    if ((scrollsX(e) && e.scrollLeft > 0) || (/auto|scroll/.test(cs.overflowY) && e !== document.scrollingElement && e.scrollTop > 0 && e.localName !== 'html')) {
      problems.push(`${describe(e)} is scrolled to ${e.scrollLeft},${e.scrollTop}: the start of its content is hidden`);
    }
  }
  // 5. A printout is read without scrolling sideways (code snippets may scroll; printouts wrap).
  for (const e of all.filter((x) => x.matches('.hw-printout') && shown(x))) {
    if (e.scrollWidth > e.clientWidth + 1) problems.push(`${describe(e)} must be scrolled ${e.scrollWidth - e.clientWidth}px sideways to be read`);
  }
  // 6. Tables set side by side are read without scrolling sideways: where they do not fit,
  //    they stack (a phone's single column may scroll).
  for (const pair of all.filter((x) => x.matches('.hw-side-by-side') && shown(x))) {
    const boxes = [...pair.children].filter(shown);
    const tops = new Set(boxes.map((b) => Math.round(b.getBoundingClientRect().top)));
    if (boxes.length < 2 || tops.size === boxes.length) continue;  // stacked
    for (const b of boxes) {
      if (b.scrollWidth > b.clientWidth + 1) problems.push(`${describe(b)} sits beside another table but must be scrolled ${b.scrollWidth - b.clientWidth}px sideways`);
    }
  }
  // 7. A table's caption is read whole without scrolling: in a box that scrolls sideways (the
  //    table is wider than its column), its words stay within the box's visible width.
  for (const cap of all.filter((x) => x.matches('caption') && shown(x))) {
    let box = parentOf(cap);
    while (box && box !== document.documentElement && !scrollsX(box)) box = parentOf(box);
    if (!box || box === document.documentElement || hiddenOnPurpose(cap)) continue;
    const range = document.createRange();
    range.selectNodeContents(cap);
    const right = Math.max(...[...range.getClientRects()].map((q) => q.right));
    const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
    if (right > edge + 1) problems.push(`${describe(cap)} "${cap.textContent.slice(0, 32)}…" runs ${Math.round(right - edge)}px past the visible width of its scrolling box`);
  }
  return [...new Set(problems)];
}

for (const [colorScheme, widths] of [['light', WIDTHS], ['dark', [WIDTHS[0]]]]) {
  describe(`layout, ${colorScheme}`, () => {
    for (const width of widths) {
      test(`${width} px: no sideways scrolling, no broken identifiers, nothing cut off`, { timeout: 600000 }, async () => {
        const { context, page, log } = await openPage(browser, { colorScheme, viewport: { width, height: 900 } });
        const found = [];
        try {
          for (const [name, path, ready] of PAGES) {
            await page.goto('about:blank');
            await page.goto(server.url(path));
            await page.waitForSelector(ready, { state: 'attached', timeout: 30000 });
            await page.waitForFunction(() => !document.querySelector('[data-busy]'));
            await settle(page);
            assert.equal((await page.viewport()).width, width, 'the viewport has the width asked for');
            if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-${width}-${colorScheme}.png`), fullPage: true });
            found.push(...(await page.evaluate(layoutProblems)).map((p) => `${name}: ${p}`));
          }
          await page.harvest();
          log.assertClean(server.origin);
        } finally {
          await context.close();
        }
        assert.deepEqual(found, []);
      });
    }
  });
}
