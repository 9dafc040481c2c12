// The page section: dist/ served over http to headless Chromium; its sizes, the time to the first
// verified table, and full updates at lesson size (at four reader positions) and at (128, 768, 12).
import {existsSync} from 'node:fs';
import {join} from 'node:path';

import {fmtMs, launchChromium, log, median, percentile, root, stopTrace} from './common.mjs';
import {dirSizes, kb, logPageSizes, pageSizes} from './page_sizes.mjs';
import {
  LESSON_POSITIONS, pageHash, placeReader, tracedUpdates, UPDATE_IN_PAGE, updateCpu, watchFirstTable
} from './page_update.mjs';

// `count` updates at (n, d, h) with the reader placed, timed in the page; at lesson size also
// traced twice: the change's task alone (cheap categories), then every task by kind.
async function timeUpdates(browser, page, {n, d, h, count, height, at, traced}) {
  await placeReader(page, height, at);
  await page.evaluate(UPDATE_IN_PAGE, pageHash(1, n, d, h));  // warm-up at this size
  const js = [];
  const work = [];
  const frame = [];
  const redraw = [];
  if (traced) await browser.startTracing(page, {categories: ['toplevel', 'blink.user_timing']});
  for (let k = 0; k < count; k++) {
    const r = await page.evaluate(UPDATE_IN_PAGE, pageHash(2 + k, n, d, h));
    js.push(r.js);
    work.push(r.work);
    frame.push(r.frame);
    redraw.push(r.redraw);
  }
  const events = traced ? await stopTrace(browser) : null;
  const whole = traced ? await tracedUpdates(browser, page, count, 200) : [];
  const cpu = events ? updateCpu(events) : [];
  const redrawCpu = events ? updateCpu(events, 'hw-redraw') : [];  // the deferred slices' tasks
  const together = work.map((w, k) => w + redraw[k]);
  const shown = await page.evaluate(
      () => ({
        tables: document.querySelectorAll('hw-head-weights table[data-head]').length,
        canvases: document.querySelectorAll('hw-head-weights canvas.hw-heatmap').length,
      }));
  const p50p95 = (xs) => ({p50: percentile(xs, 50), p95: percentile(xs, 95)});
  return {
    median_work_ms: median(work),
    median_js_ms: median(js),
    median_next_frame_ms: median(frame),
    p50_work_ms: percentile(work, 50),
    p95_work_ms: percentile(work, 95),
    max_work_ms: Math.max(...work),
    p95_js_ms: percentile(js, 95),
    p50_redraw_ms: percentile(redraw, 50),
    p95_redraw_ms: percentile(redraw, 95),
    p50_whole_ms: percentile(together, 50),
    p95_whole_ms: percentile(together, 95),
    ...(whole.length ? {
      full_update_cpu_ms: Object.fromEntries(['whole', 'js', 'style', 'layout', 'paint', 'bench', 'all'].map(
          (f) => [f, p50p95(whole.map((r) => r[f]))])),
      full_update_samples: whole.length
    } : {}),
    ...(cpu.length ? {
      p50_cpu_ms: percentile(cpu, 50),
      p95_cpu_ms: percentile(cpu, 95),
      cpu_samples: cpu.length
    } : {}),
    ...(redrawCpu.length ? {
      p50_redraw_cpu_ms: percentile(redrawCpu, 50),
      p95_redraw_cpu_ms: percentile(redrawCpu, 95),
      redraw_cpu_samples: redrawCpu.length
    } : {}),
    count,
    shown
  };
}

async function pageMetrics(browser, baseUrl, {quick, updates}) {
  const dist = join(root, 'dist');
  const result = {dist: dirSizes(dist)};
  if (!existsSync(join(dist, 'index.html'))) {
    log('note: dist/index.html is missing (npm run build:web); page timings skipped.');
    return result;
  }
  Object.assign(result, await pageSizes(browser, baseUrl));
  const firstTable = [];
  const errors = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    const context = await browser.newContext();
    await context.addInitScript(watchFirstTable);
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${baseUrl}/dist/index.html`);
    try {
      await page.waitForFunction(() => window.__firstVerified !== null, null, {timeout: 30000});
      firstTable.push(await page.evaluate(() => window.__firstVerified));
    } catch {
      errors.push('the lesson table (head 0: 0.424 0.576) never appeared');
    }
    if (i === 0) {
      // The updates, in the first page: at lesson size at each reader position (the settings
      // stay in the sticky sidebar), then at (128, 768, 12) at the top.
      result.updates = {};
      for (const [key, , height, at] of LESSON_POSITIONS) {
        result.updates[key] = await timeUpdates(
            browser, page, {n: 5, d: 8, h: 2, count: updates, height, at, traced: true});
      }
      result.updates['128x768x12'] = await timeUpdates(
          browser, page, {n: 128, d: 768, h: 12, count: 10, height: 720, at: null, traced: false});
    }
    await context.close();
  }
  result.firstVerifiedTableMs = firstTable.length ? median(firstTable) : null;
  result.firstVerifiedTableSamples = firstTable;
  result.errors = [...new Set(errors)];
  return result;
}

function logUpdate(k, u) {
  log(`  update at ${k}: ${fmtMs(u.median_work_ms)} ms (recompute + redraw in view + layout; ` +
      `JS alone ${fmtMs(u.median_js_ms)} ms; next frame after ${
          fmtMs(u.median_next_frame_ms)} ms; ${JSON.stringify(u.shown)})`);
  log(`    over ${u.count} updates: p50 ${fmtMs(u.p50_work_ms)} ms, p95 ${
      fmtMs(u.p95_work_ms)} ms, longest ${fmtMs(u.max_work_ms)} ms (JS alone: p95 ${
      fmtMs(u.p95_js_ms)} ms)`);
  if (u.p95_cpu_ms != null)
    log(`    main-thread CPU per update (${u.cpu_samples} traced): p50 ${
        fmtMs(u.p50_cpu_ms)} ms, p95 ${fmtMs(u.p95_cpu_ms)} ms`);
  if (u.p95_redraw_ms != null)
    log(`    widgets out of view, redrawn after the frame: p50 ${fmtMs(u.p50_redraw_ms)} ms, p95 ${
        fmtMs(u.p95_redraw_ms)} ms${u.p95_redraw_cpu_ms != null ? ` (CPU p95 ${fmtMs(u.p95_redraw_cpu_ms)} ms over ${
        u.redraw_cpu_samples} tasks)` : ''}; update and redraw together: p50 ${
        fmtMs(u.p50_whole_ms)} ms, p95 ${fmtMs(u.p95_whole_ms)} ms`);
  if (u.full_update_cpu_ms) {
    const f = u.full_update_cpu_ms;
    const pp = (x) => `${fmtMs(x.p50)} / ${fmtMs(x.p95)}`;
    log(`    the whole update, every task (${u.full_update_samples} traced), main-thread CPU p50 / p95: ` +
        `recompute + render + layout ${pp(f.whole)} ms (JS ${pp(f.js)}, style ${pp(f.style)}, layout ${
            pp(f.layout)}); paint ${pp(f.paint)}; every task ${pp(f.all)} ms` +
        (f.bench ? `; the bench's own scripts, not counted, ${pp(f.bench)} ms` : ''));
  }
}

/** The page section into res.page, printed. quick: fewer first loads; updates: at lesson size. */
export async function pageSection(res, chromium, baseUrl, {quick, updates}) {
  log('\npage: sizes, first verified table, updates ...');
  const browser = await launchChromium(chromium, {freeFrames: true});
  try {
    res.page = await pageMetrics(browser, baseUrl, {quick, updates});
  } finally {
    await browser.close();
  }
  const p = res.page;
  const mod = p.dist.files.find((f) => f.file.endsWith('headwise.js'));
  log(`  dist/ (everything it serves, ${p.dist.files.length} files): ${
      kb(p.dist.raw)} KB raw, ${kb(p.dist.gzip)} KB gzipped`);
  if (mod) log(`  dist/headwise.js: ${kb(mod.raw)} KB raw, ${kb(mod.gzip)} KB gzipped`);
  logPageSizes(p);
  if (p.firstVerifiedTableMs != null)
    log(`  navigation to the first verified table: ${fmtMs(p.firstVerifiedTableMs)} ms`);
  for (const [k, u] of Object.entries(p.updates || {})) logUpdate(k, u);
  if (p.errors?.length) log(`  page errors: ${p.errors.join(' | ')}`);
}
