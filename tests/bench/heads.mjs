// "How many heads does it take?" as a student waits for it (a section of `npm run bench`; also
// `node tests/bench/heads.mjs [--quick]`): in headless Chromium pinned to one core
// (taskset -c 0, every process of it), from file://, the time from the click to the last cell
//   - default   the default experiment: the default relations × 1, 2, 4 and 8 heads;
//   - grid      the whole grid: 1 to 4 relations × 1, 2, 4 and 8 heads,
// each in a fresh page, `runs` times, by the page's own clock (the session's startedAt, taken
// in the click's handler, to finishedAt, when the last cell's evaluation arrives), with the
// longest main-thread task in that time (PerformanceObserver, wall clock). Goals: default
// <= 10 s, grid <= 60 s. Writes build/bench/heads.json when run alone.
import {mkdirSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const outDir = join(root, 'build', 'bench');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];
/** The goals (s) of the issue: from the click to the last cell. */
export const HEADS_GOALS = {default: 10, grid: 60};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Chromium pinned to one core: a wrapper script around the binary.
function oneCoreChromium() {
  mkdirSync(outDir, {recursive: true});
  const wrapper = join(outDir, 'chromium-one-core-heads.sh');
  writeFileSync(wrapper, `#!/bin/sh\nexec taskset -c 0 ${CHROMIUM} "$@"\n`, {mode: 0o755});
  return wrapper;
}

// One run in a fresh page: scroll to the section, click, wait for the last cell.
async function oneRun(browser, button) {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      window.__long = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) window.__long.push({start: e.startTime, duration: e.duration});
      }).observe({type: 'longtask', buffered: true});
    });
    await page.goto(pathToFileURL(join(root, 'dist', 'index.html')).href);
    const end = Date.now() + 120000;
    for (;;) {
      await page.evaluate(() => document.querySelector('#heads-needed').scrollIntoView({behavior: 'instant'}));
      try {
        await page.waitForSelector('hw-heads-needed[data-ready] #heads-run:not([disabled])', {timeout: 2000});
        break;
      } catch (e) {
        if (Date.now() > end) throw e;
      }
    }
    // The section's first drawing done before the click: what is timed is the training.
    await page.waitForTimeout(1000);
    await page.click(button);
    await page.waitForSelector('hw-heads-needed[data-done]', {state: 'attached', timeout: 600000});
    return await page.evaluate(() => {
      const g = document.querySelector('hw-heads-needed').session;
      const cells = [...g.cells.values()].filter((c) => c.status === 'done');
      const long = window.__long.filter((t) => t.start >= g.startedAt && t.start <= g.finishedAt);
      return {
        ms: Math.round(g.finishedAt - g.startedAt),
        cells: cells.length,
        longestTaskMs: Math.round(long.reduce((m, t) => Math.max(m, t.duration), 0)),
        mode: cells[0].remote.mode,
        cliff: [...document.querySelectorAll('[data-testid="heads-cliff"] li')].map((li) => li.textContent),
      };
    });
  } finally {
    await context.close();
  }
}

/**
 * @param {any} chromium  playwright-core's chromium
 * @param {{quick?: boolean, log?: (s: string) => void}} [o]
 */
export async function headsPageMetrics(chromium, {quick = false, log = console.log} = {}) {
  const browser = await chromium.launch({executablePath: oneCoreChromium(), args: CHROMIUM_ARGS});
  const out = {chromium: 'pinned to one core (taskset -c 0)', loadAverageBefore: os.loadavg()};
  try {
    for (const [name, button, runs] of [['default', '#heads-run', quick ? 1 : 3], ['grid', '#heads-grid', quick ? 1 : 2]]) {
      const all = [];
      for (let r = 0; r < runs; r += 1) {
        const one = await oneRun(browser, button);
        log(`  ${name} run ${r + 1}: ${(one.ms / 1000).toFixed(2)} s to the last of ${one.cells} cells (${one.mode}), longest task ${one.longestTaskMs} ms`);
        all.push(one);
      }
      out[name] = {
        medianMs: median(all.map((x) => x.ms)), runsMs: all.map((x) => x.ms), cells: all[0].cells,
        longestTaskMs: Math.max(...all.map((x) => x.longestTaskMs)), mode: all[0].mode, cliff: all[0].cliff,
      };
    }
  } finally {
    await browser.close();
  }
  out.loadAverageAfter = os.loadavg();
  return out;
}

/** @param {any} r headsPageMetrics's result */
export function headsTable(r) {
  const line = (name, label) => {
    const x = r[name];
    const goal = HEADS_GOALS[name];
    return `  ${label} (${x.cells} cells), click to last cell: median ${(x.medianMs / 1000).toFixed(2)} s ` +
        `(runs ${x.runsMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s; goal <= ${goal} s: ${x.medianMs <= goal * 1000 ? 'met' : 'NOT met'}); ` +
        `longest main-thread task ${x.longestTaskMs} ms (wall)`;
  };
  return [
    `  Chromium ${r.chromium}; load average ${r.loadAverageBefore.map((x) => x.toFixed(1)).join(', ')} -> ${
        r.loadAverageAfter.map((x) => x.toFixed(1)).join(', ')} (${os.cpus().length} cores)`,
    line('default', 'default experiment'),
    line('grid', 'full grid'),
    `  grid's cliff: ${r.grid.cliff.join(' ')}`,
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const {chromium} = await import('playwright-core');
  console.log('How many heads does it take?, Chromium on one core ...');
  const r = await headsPageMetrics(chromium, {quick: process.argv.includes('--quick')});
  console.log(headsTable(r));
  mkdirSync(outDir, {recursive: true});
  writeFileSync(join(outDir, 'heads.json'), JSON.stringify(r, null, 1) + '\n');
  console.log('wrote build/bench/heads.json');
}
