// "How many heads does it take?" as a student waits for it (a section of `npm run bench`; also
// `node tests/bench/heads.mjs [--quick]`): in headless Chromium pinned to one core
// (taskset -c 0, every process of it), from file://, the time from the click to the last cell
//   - default   the default experiment: the default relations × 1, 2, 4 and 8 heads;
//   - grid      the whole grid: 1 to 4 relations × 1, 2, 4 and 8 heads,
// each in a fresh page, `runs` times, by the page's own clock (the session's startedAt, taken
// in the click's handler, to finishedAt, when the last cell's evaluation arrives), with the
// longest main-thread task in that time (PerformanceObserver, wall clock). Goals: default
// <= 10 s, grid <= 60 s. Writes build/bench/heads.json when run alone.
import os from 'node:os';

import {
  commandLine, isMain, launchChromium, median, openTrainingPart, playwright, runMain, writeJson
} from './common.mjs';

/** The goals (s) of the issue: from the click to the last cell. */
export const HEADS_GOALS = {default: 10, grid: 60};

// One run in a fresh page: scroll to the section, click, wait for the last cell.
async function oneRun(browser, button) {
  const {context, page} = await openTrainingPart(browser, '#heads-needed', 'hw-heads-needed[data-ready] #heads-run:not([disabled])');
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

if (isMain(import.meta.url)) {
  runMain(async () => {
    const chromium = await playwright();
    console.log('How many heads does it take?, Chromium on one core ...');
    const r = await headsPageMetrics(chromium, {quick: commandLine().flag('quick')});
    console.log(headsTable(r));
    console.log(`wrote ${writeJson('heads.json', r)}`);
  });
}
