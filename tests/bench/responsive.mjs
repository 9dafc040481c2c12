// The page as a student feels it (a section of `npm run bench`, also runnable alone):
//   node tests/bench/responsive.mjs [--quick]
// In headless Chromium (/usr/bin/chromium), from file://, with long tasks (> 50 ms on the main
// thread) observed by a PerformanceObserver:
//   - settings   a permalink change to (128, 768, 12), (512, 768, 12) and (1024, 1024, 16):
//                time until the final result is shown (every head figure, exercise 1's verdicts,
//                nothing busy) and the longest main-thread task in that time;
//   - typing     "512" typed into Tokens one digit at a time (150 ms apart) at d_model 768,
//                12 heads: the same two figures, from the first key;
//   - lesson     one full update at the lesson's size (the hash changes, the page recomputes,
//                redraws, style and layout are forced): p50 and p95 of 40;
//   - first      navigation to the first verified table (head 0, query 0 reads 0.424 0.576);
//   - api        hw.multiHeadAttention at (128, 768, 12) on {data, rows, cols} inputs (and on
//                nested arrays, and writing into the previous result's arrays with into)
//                against the bare forward on inputs already in the WASM heap.
// Writes build/bench/responsive.json when run alone.
import {join} from 'node:path';
import {pathToFileURL} from 'node:url';

import {
  benchDir, commandLine, isMain, launchChromium, percentile, playwright, root, runMain, writeJson
} from './common.mjs';
import {pageHash, watchFirstTable} from './page_update.mjs';

const round = (x) => (x === null ? null : Math.round(x * 10) / 10);

// Installed before the page's scripts: every long task, as {start, end}.
function observeLongTasks() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__longTasks.push({start: e.startTime, end: e.startTime + e.duration});
    }
  }).observe({type: 'longtask', buffered: true});
}

// True once the page shows the final result for (n, d, h): works for any build of the page.
function shownFor([n, d, h]) {
  const dims = document.querySelector('hw-head-weights .hw-head-dims');
  const context = document.querySelector('hw-exercise-seeds > .hw-hint');
  return Boolean(dims && dims.textContent.includes(`${n}×${n}, d_head = ${d / h}`) &&
      document.querySelectorAll('hw-head-weights figure.hw-head').length === Math.min(h, 16) &&
      context && context.textContent.includes(`${n} tokens, d_model = ${d}`) &&
      document.querySelectorAll('hw-exercise-seeds [data-testid="ex1-verdict"]').length === 2 &&
      !document.querySelector('[aria-busy="true"], [data-computing], [data-drawing], hw-head-weights[data-stale]'));
}

// Waits (polling every frame) until shownFor(size); returns the time and the longest task since t0.
async function settle(page, size, t0) {
  const handle = await page.waitForFunction(
      (s) => (window.__shownFor(s) ? performance.now() : 0), size, {polling: 'raf', timeout: 120000});
  const tEnd = await handle.jsonValue();
  // Tasks that end after the result appeared still count if they started before it.
  await page.waitForTimeout(300);
  const longest = await page.evaluate(([a, b]) => window.__longTasks
      .filter((t) => t.end > a && t.start < b + 250)
      .reduce((m, t) => Math.max(m, t.end - t.start), 0), [t0, tEnd]);
  return {ms: round(tEnd - t0), longestTaskMs: round(longest)};
}

async function freshPage(browser, hash) {
  const context = await browser.newContext();
  await context.addInitScript(observeLongTasks);
  await context.addInitScript(`window.__shownFor = ${shownFor.toString()};`);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${pathToFileURL(join(root, 'dist', 'index.html')).href}${hash}`);
  return {context, page, errors};
}

async function settingsMetrics(browser, sizes) {
  const out = {};
  for (const [n, d, h] of sizes) {
    const {context, page, errors} = await freshPage(browser, pageHash(7, 5, 8, 2));
    await page.waitForFunction(shownFor, [5, 8, 2], {timeout: 60000});
    await page.waitForTimeout(500);
    const t0 = await page.evaluate((hash) => {
      const t = performance.now();
      window.location.hash = hash;
      return t;
    }, pageHash(7, n, d, h));
    out[`${n}x${d}x${h}`] = {...await settle(page, [n, d, h], t0), errors};
    await context.close();
  }
  return out;
}

async function typingMetrics(browser) {
  const {context, page, errors} = await freshPage(browser, pageHash(7, 5, 768, 12));
  await page.waitForFunction(shownFor, [5, 768, 12], {timeout: 60000});
  await page.waitForTimeout(500);
  await page.click('#tokens');
  await page.keyboard.press('Control+A');
  const t0 = await page.evaluate(() => performance.now());
  await page.keyboard.type('512', {delay: 150});
  const r = {...await settle(page, [512, 768, 12], t0), errors};
  await context.close();
  return r;
}

// One full update at the lesson's size, measured inside the page until the frame after it
// (page_update.mjs's UPDATE_IN_PAGE splits it finer, for the page section).
const UPDATE_IN_PAGE = (hash) => new Promise((done) => {
  const t0 = performance.now();
  window.addEventListener('hashchange', () => {
    // The page may draw in the same task or on the next frame: wait for the frame's work.
    requestAnimationFrame(() => {
      void document.documentElement.getBoundingClientRect().height;
      const t1 = performance.now();
      setTimeout(() => done({work: t1 - t0}), 0);
    });
  }, {once: true});
  window.location.hash = hash;
});

async function lessonMetrics(browser, count) {
  const {context, page} = await freshPage(browser, pageHash(7, 5, 8, 2));
  await page.waitForFunction(shownFor, [5, 8, 2], {timeout: 60000});
  await page.evaluate(UPDATE_IN_PAGE, pageHash(1, 5, 8, 2));
  const work = [];
  for (let k = 0; k < count; k++) {
    const r = await page.evaluate(UPDATE_IN_PAGE, pageHash(2 + k, 5, 8, 2));
    work.push(r.work);
  }
  const ok = await page.evaluate(shownFor, [5, 8, 2]);
  await context.close();
  return {p50_ms: round(percentile(work, 50)), p95_ms: round(percentile(work, 95)), count, ok};
}

async function firstTableMetrics(browser, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const context = await browser.newContext();
    await context.addInitScript(watchFirstTable);
    const page = await context.newPage();
    await page.goto(pathToFileURL(join(root, 'dist', 'index.html')).href);
    const t = await (await page.waitForFunction(() => window.__firstVerified, null, {timeout: 60000})).jsonValue();
    times.push(t);
    await context.close();
  }
  return {median_ms: round(percentile(times, 50)), samples: times.map(round)};
}

async function apiMetrics(browser, rounds) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(pathToFileURL(join(benchDir, 'bench.html')).href);
  const r = await page.evaluate(async (rounds) => {
    const bench = await window.HeadwiseBench.setup(window.createHeadwise);
    const n = 128, d = 768, h = 12;
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const out = {};
    const modes = ['core', 'api', 'api-typed', 'api-into'];
    const times = {core: [], api: [], 'api-typed': [], 'api-into': []};
    for (const m of modes) {
      try {
        bench.time(n, d, h, 1, 2, m);  // warm-up
      } catch (e) {
        out[`${m}_error`] = String(e.message || e);
      }
    }
    for (let k = 0; k < rounds; k++) {
      for (const m of modes) {
        if (out[`${m}_error`]) continue;
        times[m].push(med(bench.time(n, d, h, 3, 2, m).times_ms));
      }
    }
    for (const m of modes) out[`${m}_ms`] = times[m].length ? med(times[m]) : null;
    return out;
  }, rounds);
  await context.close();
  const ratio = (a) => (r[a] && r.core_ms ? Math.round((r[a] / r.core_ms) * 100) / 100 : null);
  return {...r, api_ratio: ratio('api_ms'), api_typed_ratio: ratio('api-typed_ms'), api_into_ratio: ratio('api-into_ms')};
}

/**
 * @param {import('playwright-core').Browser} browser
 * @param {{quick?: boolean}} [options]
 */
export async function responsiveMetrics(browser, {quick = false} = {}) {
  const out = {};
  out.settings = await settingsMetrics(browser, [[128, 768, 12], [512, 768, 12], [1024, 1024, 16]]);
  out.typing512 = await typingMetrics(browser);
  out.lessonUpdate = await lessonMetrics(browser, quick ? 20 : 40);
  out.firstVerifiedTableFile = await firstTableMetrics(browser, quick ? 3 : 5);
  out.api = await apiMetrics(browser, quick ? 3 : 7);
  return out;
}

/** A table of responsiveMetrics' figures, for the bench's summary. */
export function responsiveTable(r) {
  const lines = ['| Page, in Chromium from file:// | time to final result | longest main-thread task |', '|---|---:|---:|'];
  for (const [k, v] of Object.entries(r.settings)) lines.push(`| permalink to (${k.replace(/x/g, ', ')}) | ${v.ms} ms | ${v.longestTaskMs} ms |`);
  lines.push(`| typing "512" into Tokens at (·, 768, 12) | ${r.typing512.ms} ms | ${r.typing512.longestTaskMs} ms |`);
  lines.push('');
  lines.push(`Lesson-size full update: p50 ${r.lessonUpdate.p50_ms} ms, p95 ${r.lessonUpdate.p95_ms} ms (${r.lessonUpdate.count} updates).`);
  lines.push(`Navigation to the first verified table from file://: ${r.firstVerifiedTableFile.median_ms} ms (median).`);
  // (performance.now() in a page is coarsened, so its medians print as 33.900000002 and the like.)
  const ms = (v) => (typeof v === 'number' ? v.toFixed(1) : 'n/a');
  lines.push(`multiHeadAttention at (128, 768, 12): bare forward ${ms(r.api.core_ms)} ms; API on nested arrays ${ms(r.api.api_ms)} ms (${r.api.api_ratio}x); API on {data, rows, cols} ${ms(r.api['api-typed_ms'])} ms (${r.api.api_typed_ratio ?? 'n/a'}x); the same, into the previous result's arrays (option into) ${ms(r.api['api-into_ms'])} ms (${r.api.api_into_ratio ?? 'n/a'}x).`);
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const browser = await launchChromium(await playwright());
    try {
      const r = await responsiveMetrics(browser, {quick: commandLine().flag('quick')});
      console.log(JSON.stringify(r, null, 2));
      console.log(responsiveTable(r));
      console.log(`wrote ${writeJson('responsive.json', r)}`);
    } finally {
      await browser.close();
    }
  });
}
