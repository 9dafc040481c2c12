// The first load (web/src/page/first-load.js), in every engine, at a laptop's and a phone's width,
// from file:// and over http (and in Spanish and Chinese, whose catalogues load as files of their
// own): the page finishes loading with every widget of the lesson drawn and
// every section's height measured; the widgets are drawn over many tasks, none of which computes
// for more than GUARD_TASK_MS (four times the 50 ms goal, which the bench measures; CPU time from a trace, in Chromium; the other engines record none, and that check is a visibly
// skipped subtest, as in responsive.test.mjs); a link into the page keeps the reader where it put
// them while the rest arrives, in WebKit (no scroll anchoring) as in the others; a reader who
// scrolled in early sees what they look at hold still between the page's tasks; a permalink's
// settings are what is drawn; nothing the reader sees moves as the widgets arrive (Chromium's
// layout-shift entries); the stylesheet's height estimates stay close to the real heights;
// and no text is under 12 px on a phone, the training sections included.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRequire } from 'node:module';
import {
  GUARD_TASK_MS, engine, shareBrowser, openPage, pageUrl, mainThreadTaskCpu, reachTraining, waitTrainingDrawn, withCleanPage,
  PHONE, waitLoaded,
} from './helpers.mjs';

const require = createRequire(import.meta.url);
const createHeadwise = require('../../dist/headwise.js');

/** The longest main-thread task the load may have (CPU ms): a guard of the slicing (helpers.mjs). */
const LONG_TASK_MS = GUARD_TASK_MS;
const WIDTHS = [1280, 390];
/** The smallest text a student reads (px). */
const MIN_TEXT_PX = 12;

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

/**
 * Installed before the page's scripts: the page's layout shifts while it loads (what moves in the
 * reader's view without their doing), summed as Lighthouse sums them. Only Chromium has the
 * entries (elsewhere the sum stays null and its check is skipped visibly).
 */
const SHIFTS = `(() => {
  if (window.__hwShift !== undefined || window.top !== window) return;
  window.__hwShift = null;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__hwShift = (window.__hwShift || 0) + e.value;
    }).observe({ type: 'layout-shift', buffered: true });
    window.__hwShift = 0;
  } catch {
    // no layout-shift entries in this engine
  }
})();`;
/**
 * The most layout shift the load may cause (Lighthouse calls under 0.1 good). Without the room
 * kept for the language switcher the page shifted 0.026 to 0.051; a Chinese page, whose prose may
 * be painted in English before its file arrives, shifts up to about 0.017.
 */
const MAX_SHIFT = 0.025;

/**
 * Installed in the page before its scripts: a reader scrolls to the exercises as soon as they
 * exist, then a task of its own, again and again (a timer), looks where the exercises' heading
 * is, until a second and a half after the page is complete. Every 20th look the reader scrolls 30 px down, or back up: from one look to the
 * next the heading must move by what the reader scrolled, and by nothing else.
 */
const PLACE_WATCH = `(() => {
  if (window.top !== window || window.__hwPlace) return;
  const place = window.__hwPlace = { ticks: 0, loadingTicks: 0, scrolls: 0, moves: [], done: false };
  let heading = null;
  let last = 0;
  let completeAt = 0;
  const t0 = performance.now();
  const when = () => Math.round(performance.now() - t0);
  const look = () => {
    const loading = document.documentElement.hasAttribute('data-hw-loading');
    if (!heading) {
      heading = document.querySelector('#exercises > h2');
      if (!heading) return setTimeout(look, 0);
      heading.scrollIntoView({ block: 'start', behavior: 'instant' });
      last = heading.getBoundingClientRect().top;
    }
    place.ticks += 1;
    if (loading) place.loadingTicks += 1;
    else if (!completeAt) completeAt = performance.now();
    const top = heading.getBoundingClientRect().top;
    if (Math.abs(top - last) > 1) place.moves.push([Math.round(top - last), when()]);
    last = top;
    if (place.ticks % 20 === 0) {
      const by = place.scrolls % 2 === 0 ? 30 : -30;
      window.scrollBy({ top: by, behavior: 'instant' });
      place.scrolls += 1;
      last -= by;
    }
    if (completeAt && performance.now() - completeAt > 1500) place.done = true;
    else setTimeout(look, 0);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', look);
  else look();
})();`;

/**
 * Installed before the page's scripts: how many widgets became drawn (`data-ready`) in each task
 * that drew any (a MutationObserver's callback runs once at the end of each such task).
 */
const READY_TASKS = `(() => {
  if (window.__hwReadyTasks || window.top !== window) return;
  const tasks = window.__hwReadyTasks = [];
  new MutationObserver((records) => {
    const n = records.filter((r) => r.target.hasAttribute('data-ready') && r.oldValue === null).length;
    if (n) tasks.push(n);
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'], attributeOldValue: true });
})();`;

/** Every widget of the lesson (but the training sections, which load when the reader nears them) drawn. */
async function widgetsReady(page) {
  return page.evaluate(() => {
    const onDemand = ['hw-train', 'hw-train-python', 'hw-heads-needed', 'hw-heads-python'];
    const widgets = [...document.querySelectorAll('main .hw-widget, main hw-fact')].filter((el) => !onDemand.includes(el.localName));
    return { total: widgets.length, notReady: widgets.filter((el) => !el.hasAttribute('data-ready')).map((el) => el.localName) };
  });
}

/** The languages each width's first load is also tried in (their catalogue is a file of its own). */
const LANGUAGES = { 1280: [['file', 'zh-CN']], 390: [['http', 'es']] };

for (const width of WIDTHS) {
  describe(`at ${width} px`, () => {
    for (const [mode, lang] of [['file', ''], ['http', ''], ...LANGUAGES[width]]) {
      test(`from ${mode}${lang ? `, in ${lang}` : ''}: the load completes with every widget drawn, in tasks of at most ${LONG_TASK_MS} ms`, { timeout: 180000 }, async (t) => {
        await withCleanPage(browser, null, async (page) => {
          await page.goto('about:blank');
          const url = pageUrl(mode, server);
          const cpu = await mainThreadTaskCpu(page, async () => {
            await page.goto(lang ? `${url}#lang=${lang}` : url);
            await waitLoaded(page);
          }, 20, { url: url.replace(/index\.html$/, '') });
          if (lang) assert.equal(await page.evaluate(() => document.documentElement.lang), lang, 'the page is in the language asked for');
          const { total, notReady } = await widgetsReady(page);
          assert.ok(total >= 15, `the lesson's widgets: ${total}`);
          assert.deepEqual(notReady, [], 'widgets not drawn once the page says it has loaded');
          // The slicing itself: the widgets were drawn over more than one task, never all in one
          // (how many tasks depends on what is near the window: at 390 px WebKit can draw in two).
          const readyTasks = await page.evaluate(() => window.__hwReadyTasks);
          await t.test('the widgets are drawn over more than one task, never all in one', readyTasks.length === 0 && engine.name === 'webkit'
            ? { skip: 'webkit: its init script ran after the page had drawn, so the observer saw no drawing (the other engines check it)' } : {}, () => {
            assert.ok(readyTasks.length >= 2 && Math.max(...readyTasks) < total, `widgets drawn per task: ${readyTasks.join(', ')}`);
          });
          // Every block that skips its layout off screen has its measured height by now.
          const unmeasured = await page.evaluate(() => [...document.querySelectorAll('.hw-article > .hw-section, .hw-article > .hw-section > .hw-exercise')]
            .filter((b) => getComputedStyle(b).contentVisibility === 'auto' && !b.hasAttribute('data-hw-measured')).map((b) => b.id));
          assert.deepEqual(unmeasured, [], 'sections not measured once the page says it has loaded');
          await t.test(`no main-thread task computed for more than ${LONG_TASK_MS} ms while it loaded (CPU time, from a trace)`, engine.skipUnless('tracing'), () => {
            console.log(`# ${width} px, ${mode}${lang ? `, ${lang}` : ''}: longest main-thread task of the load ${Math.max(...cpu).toFixed(1)} ms CPU (${cpu.length} tasks)`);
            const long = cpu.filter((ms) => ms > LONG_TASK_MS).map(Math.round).sort((a, b) => b - a);
            assert.deepEqual(long, [], `main-thread tasks of the load that computed for more than ${LONG_TASK_MS} ms`);
          });
          const shift = await page.evaluate(() => window.__hwShift);
          await t.test(`what the reader sees moves by less than ${MAX_SHIFT} while it loads (layout shift)`, shift === null ? { skip: `${engine.name}: it has no layout-shift entries` } : {}, () => {
            console.log(`# ${width} px, ${mode}${lang ? `, ${lang}` : ''}: layout shift while it loaded ${shift.toFixed(4)}`);
            assert.ok(shift < MAX_SHIFT, `layout shift ${shift}`);
          });
        }, { context: { viewport: { width, height: 844 } }, initScripts: [SHIFTS, READY_TASKS], origin: mode === 'http' ? server.origin : null });
      });
    }

    // A link into the page: the browser puts the target at the top of the window before most of
    // the page is drawn; it must still be there when the page is complete (what is drawn above it
    // meanwhile must not push it away: scroll anchoring in Chromium and Firefox, first-load.js's
    // keepPlace in WebKit).
    for (const id of ['exercise-3', 'quiz']) {
      test(`a link to #${id} keeps the reader there while the rest of the page arrives`, { timeout: 120000 }, async () => {
        await withCleanPage(browser, null, async (page) => {
          await page.goto(`${pageUrl('http', server)}#${id}`);
          // As soon as the browser has scrolled to the section (the page may still be loading).
          await page.waitForFunction((id) => {
            const el = document.getElementById(id);
            return el && scrollY > 0 && Math.abs(el.getBoundingClientRect().top) < 40;
          }, id, { timeout: 30000 });
          const loading = await page.evaluate(() => document.documentElement.hasAttribute('data-hw-loading'));
          await waitLoaded(page);
          // Looked at once the page has stopped keeping the place itself too (first-load.js's
          // SETTLE_MS, a second after it is complete): the browser's own anchoring, if any, has it then.
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 1300)))));
          // Where the link puts it: the window's scroll padding (and the section's scroll margin)
          // below the top.
          const { last, want } = await page.evaluate((id) => {
            const el = document.getElementById(id);
            const px = (v) => parseFloat(v) || 0;
            return { last: el.getBoundingClientRect().top, want: px(getComputedStyle(document.documentElement).scrollPaddingTop) + px(getComputedStyle(el).scrollMarginTop) };
          }, id);
          console.log(`# #${id}: the browser went there while the page was ${loading ? 'still loading' : 'already complete'}; at ${last.toFixed(1)} px from the top once complete (the link puts it at ${want} px)`);
          assert.ok(Math.abs(last - want) <= 2, `#${id}: at ${last} px from the top once the page was complete; the link puts it at ${want} px`);
        }, { context: { viewport: { width, height: 844 } }, origin: server.origin });
      });
    }

    // A reader who scrolled into the page before it is complete: what they look at must hold still
    // from one of the page's tasks to the next, not only once a frame is drawn (a click or a tap
    // is aimed between the two), and their own scrolling is kept, not undone by the page keeping
    // an older place (first-load.js keeps it too while it loads, beside the browser's anchoring:
    // the two must not both adjust for the same change).
    const UNANCHORED = engine.name === 'webkit'
      ? { skip: 'webkit: it does not anchor; the page keeps the place itself, and keeps it between its own tasks only where they measure a section; a change between a reader\'s scroll and its event (the next frame) still moves what they see' }
      : {};
    test('a reader who scrolled in while it loads: what they look at holds still between the page\'s tasks, and their own scrolls stay', { timeout: 120000, ...UNANCHORED }, async () => {
      await withCleanPage(browser, null, async (page) => {
        await page.goto(pageUrl('http', server));
        await page.waitForFunction(() => window.__hwPlace && window.__hwPlace.done, undefined, { timeout: 60000 });
        const place = await page.evaluate(() => window.__hwPlace);
        console.log(`# ${width} px: ${place.ticks} tasks looked at while it loaded (${place.loadingTicks} before it was complete), ${place.scrolls} scrolls by the reader`);
        assert.ok(place.loadingTicks >= 5, `looked at only ${place.loadingTicks} times before the page was complete`);
        // (A scroll of the reader's that the page undid shows as a move too.)
        assert.deepEqual(place.moves, [], 'the heading the reader looks at moved between two tasks by more than the reader scrolled (px, ms after the reader arrived)');
      }, { context: { viewport: { width, height: 844 } }, initScripts: [PLACE_WATCH], origin: server.origin });
    });

    test('a permalink\'s settings are what the page draws, and the stylesheet\'s height estimates are close to the real heights', { timeout: 120000 }, async () => {
      await withCleanPage(browser, null, async (page) => {
        await page.goto(`${pageUrl('file', server)}#seed=3&tokens=6&d_model=12&heads=3`);
        await waitLoaded(page);
        const hw = await createHeadwise();
        const want = hw.seedExperiment({ seed: 3, tokens: 6, dModel: 12, numHeads: 3 }).headWeights;
        const shown = await page.$$eval('hw-head-weights table.hw-weights[data-head]', (tables) => tables.map((t) => [...t.querySelectorAll('tbody tr')]
          .map((tr) => [...tr.querySelectorAll('td[data-col]')].map((td) => td.textContent))));
        assert.equal(shown.length, 3, 'one table per head');
        const round3 = (x) => { const r = Math.round(x * 1000) / 1000; return r === 0 ? '0' : String(r); };
        assert.deepEqual(shown.map((rows) => rows.map((r) => r.length)), [[6, 6, 6, 6, 6, 6], [6, 6, 6, 6, 6, 6], [6, 6, 6, 6, 6, 6]]);
        // The drawn weights are the module's (to the page's 3 decimals; round-half cases aside).
        want.forEach((head, h) => head.forEach((row, i) => row.forEach((w, j) => {
          assert.ok(Math.abs(Number(shown[h][i][j]) - w) <= 0.0005 + 1e-12, `head ${h}, row ${i}, column ${j}: ${shown[h][i][j]} for ${round3(w)}`);
        })));
      }, { context: { viewport: { width, height: 844 } } });
      // The estimates (web/src/page/page.css, --hw-est) stand in for a block's height until it is measured;
      // with the lesson's own settings they should be within 10 % of it, or a jump made before
      // the page is complete lands far off. Checked where the page's width is what they were
      // measured at (Chromium; the engines lay text out a little differently).
      if (engine.name !== 'chromium') return;
      const { context: c2, page: p2 } = await openPage(browser, { viewport: { width, height: 844 } });
      try {
        await p2.goto(pageUrl('file', server));
        await waitLoaded(p2);
        const blocks = await p2.evaluate(() => [...document.querySelectorAll('.hw-article > .hw-section, .hw-article > .hw-section > .hw-exercise')]
          .filter((b) => getComputedStyle(b).contentVisibility === 'auto')
          .map((b) => ({ id: b.id, estimate: parseFloat(getComputedStyle(b).getPropertyValue('--hw-est')), measured: parseFloat(b.style.containIntrinsicSize) })));
        assert.ok(blocks.length >= 10, `blocks: ${JSON.stringify(blocks)}`);
        const off = blocks.filter((b) => !(Math.abs(b.estimate - b.measured) <= 0.1 * b.measured));
        assert.deepEqual(off, [], `estimates more than 10 % from the measured height at ${width} px (update web/src/page/page.css)`);
      } finally {
        await c2.close();
      }
    });
  });
}

// Legible on a phone: no text the student reads is under 12 px at 390 px wide, the numbers in the
// tables and the training sections' charts and tables included (tables scroll in their box
// instead of shrinking).
test(`at 390 px no text is smaller than ${MIN_TEXT_PX} px, the training sections included`, { timeout: 180000 }, async () => {
  await withCleanPage(browser, null, async (page) => {
    await page.goto(pageUrl('http', server));
    await waitLoaded(page);
    await reachTraining(page);
    await waitTrainingDrawn(page.locator('hw-train').first());
    await reachTraining(page, { section: '#heads-needed', ready: 'hw-heads-needed[data-ready]' });
    const small = await page.evaluate((min) => {
      const out = new Map();
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent.trim();
        const el = n.parentElement;
        if (!text || !el || el.closest('[hidden], .hw-print-only, script, style, .hw-skip')) continue;
        const cs = getComputedStyle(el);
        if (cs.display === 'none' || cs.visibility === 'hidden') continue;
        // Text in an SVG is drawn at its font size times the SVG's scale.
        const svg = el.closest('svg');
        const scale = svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
        const px = parseFloat(cs.fontSize) * scale;
        if (px < min - 0.01) {
          const key = `${el.localName}.${[...el.classList].join('.')} in ${el.parentElement.localName}.${[...el.parentElement.classList].join('.')}: ${px.toFixed(2)} px`;
          out.set(key, `${out.get(key) || ''}${out.has(key) ? ' ' : ''}${text.slice(0, 20)}`);
        }
      }
      return [...out].map(([k, v]) => `${k} ("${v.slice(0, 60)}")`);
    }, MIN_TEXT_PX);
    assert.deepEqual(small, [], `text under ${MIN_TEXT_PX} px at 390 px`);
  }, { context: { viewport: PHONE }, origin: server.origin });
});
