// "How many heads does it take?" as a student waits for it (a section of `npm run bench`; also
// `node tests/bench/heads.mjs [--quick]`): in headless Chromium pinned to one core
// (taskset -c 0, every process of it) with one Worker (#workers=1), from file://, the time from
// the click to the last cell
//   - default   the default experiment: the default relations × 1, 2, 4 and 8 heads;
//   - grid      the whole grid: 1 to 4 relations × 1, 2, 4 and 8 heads,
// each in a fresh page, `runs` times, by the page's own clock (the session's startedAt, taken
// in the click's handler, to finishedAt, when the last cell's evaluation arrives), with the
// longest main-thread task in that time (PerformanceObserver, wall clock). Goals: default
// <= 10 s, grid <= 60 s. Then the pool (`--pool`, or in `npm run bench`): Chromium on every
// core, the same experiments with #workers=1 and with the pool (one Worker per core, at most 8),
// alternating, in one run: the ratio of their medians (goal >= 1.7 on two cores), and each
// cell's numbers the same in both. Writes build/bench/heads.json when run alone.
import os from 'node:os';

import {
  commandLine, isMain, launchChromium, median, openTrainingPart, playwright, runMain, writeJson
} from './common.mjs';

/** The goals (s) of the issue: from the click to the last cell. */
export const HEADS_GOALS = {default: 10, grid: 60};

// One run in a fresh page: scroll to the section, click, wait for the last cell.
async function oneRun(browser, button, hash = '') {
  const {context, page} = await openTrainingPart(browser, '#heads-needed', 'hw-heads-needed[data-ready] #heads-run:not([disabled])', hash);
  try {
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
        workers: g.lanes,
        numbers: JSON.stringify(cells.map((c) => [c.key, c.loss, c.evaluation])),
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
  const browser = await launchChromium(chromium, {oneCore: true});
  const out = {chromium: 'pinned to one core (taskset -c 0)', loadAverageBefore: os.loadavg()};
  try {
    for (const [name, button, runs] of [['default', '#heads-run', quick ? 1 : 3], ['grid', '#heads-grid', quick ? 1 : 2]]) {
      const all = [];
      for (let r = 0; r < runs; r += 1) {
        const one = await oneRun(browser, button, '#workers=1');
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

/** The pool's goal on two cores: the default experiment at least this much faster than on one Worker. */
export const POOL_GOAL = 1.7;

/**
 * One Worker against the pool, alternating runs in one browser on every core.
 * @param {any} chromium
 * @param {{quick?: boolean, log?: (s: string) => void}} [o]
 */
export async function headsPoolMetrics(chromium, {quick = false, log = console.log} = {}) {
  const browser = await launchChromium(chromium);
  const out = {cores: os.cpus().length, loadAverageBefore: os.loadavg()};
  try {
    for (const [name, button, runs] of [['default', '#heads-run', quick ? 2 : 4], ['grid', '#heads-grid', quick ? 1 : 2]]) {
      const one = [];
      const pool = [];
      for (let r = 0; r < runs; r += 1) {
        for (const [hash, into, label] of [['#workers=1', one, '1 Worker'], ['', pool, 'the pool']]) {
          const x = await oneRun(browser, button, hash);
          log(`  ${name} with ${label} (${x.workers} at once): ${(x.ms / 1000).toFixed(2)} s to the last of ${x.cells} cells`);
          into.push(x);
        }
      }
      const same = pool.every((x) => x.numbers === one[0].numbers) && one.every((x) => x.numbers === one[0].numbers);
      out[name] = {
        oneMs: one.map((x) => x.ms), poolMs: pool.map((x) => x.ms), workers: pool[0].workers,
        ratio: median(one.map((x) => x.ms)) / median(pool.map((x) => x.ms)), sameNumbers: same,
      };
    }
  } finally {
    await browser.close();
  }
  out.loadAverageAfter = os.loadavg();
  return out;
}

/** @param {any} r headsPoolMetrics's result */
export function headsPoolTable(r) {
  const line = (name) => {
    const x = r[name];
    const s = (ms) => ms.map((m) => (m / 1000).toFixed(2)).join(', ');
    return `  ${name}: 1 Worker ${s(x.oneMs)} s; the pool (${x.workers} Workers) ${s(x.poolMs)} s; ratio of medians ${x.ratio.toFixed(2)}x` +
        ` (goal >= ${POOL_GOAL}x: ${x.ratio >= POOL_GOAL ? 'met' : 'NOT met'}); numbers the same: ${x.sameNumbers ? 'yes' : 'NO'}`;
  };
  return [
    `  Chromium on every core (${r.cores}); load average ${r.loadAverageBefore.map((x) => x.toFixed(1)).join(', ')} -> ${
        r.loadAverageAfter.map((x) => x.toFixed(1)).join(', ')}`,
    line('default'),
    line('grid'),
  ].join('\n');
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

if (isMain(import.meta.url)) {
  runMain(async () => {
    const chromium = await playwright();
    const cl = commandLine();
    /** @type {any} */
    const r = {};
    if (!cl.flag('pool')) {
      console.log('How many heads does it take?, Chromium on one core ...');
      Object.assign(r, await headsPageMetrics(chromium, {quick: cl.flag('quick')}));
      console.log(headsTable(r));
    }
    console.log('How many heads does it take?, one Worker against the pool ...');
    r.pool = await headsPoolMetrics(chromium, {quick: cl.flag('quick')});
    console.log(headsPoolTable(r.pool));
    console.log(`wrote ${writeJson('heads.json', r)}`);
  });
}
