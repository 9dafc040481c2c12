// "Heads that work together" as a student waits for it (a section of `npm run bench`; also
// `node tests/bench/induction.mjs [--quick]`): in headless Chromium pinned to one core (taskset
// -c 0, every process of it), from file://, the default experiment (inductionDefaults(): two
// layers × two heads beside one layer of four) in a fresh page, `runs` times:
//   - formed: from the click (the session's startedAt) to the first drawing that states the
//     step where the induction head formed (a MutationObserver on its data-step), by the page's
//     clock, and that step;
//   - verdict: from the click to both models evaluated (finishedAt);
//   - the longest main-thread task in that time (PerformanceObserver, wall clock).
// Goals (issue 43): formed <= 20 s, no main-thread task over 50 ms. Writes
// build/bench/induction.json when run alone.
import os from 'node:os';
import {commandLine, isMain, launchChromium, median, openTrainingPart, playwright, runMain, writeJson} from './common.mjs';

/** The goals of the issue: seconds to the head's formation, and the longest main-thread task (ms). */
export const INDUCTION_GOALS = {formedS: 20, taskMs: 50};

async function oneRun(browser) {
  const {context, page} = await openTrainingPart(browser, '#induction', 'hw-induction[data-ready] #induction-run:not([disabled])');
  try {
    await page.waitForTimeout(1000);
    await page.evaluate(() => {
      const line = document.querySelector('[data-testid="induction-formed"]');
      new MutationObserver(() => {
        if (line.dataset.step && !window.__formedAt) window.__formedAt = performance.now();
      }).observe(line, {attributes: true, attributeFilter: ['data-step']});
    });
    await page.click('#induction-run');
    await page.waitForSelector('hw-induction[data-done]', {state: 'attached', timeout: 600000});
    return await page.evaluate(() => {
      const s = document.querySelector('hw-induction').session;
      const long = window.__long.filter((t) => t.start >= s.startedAt && t.start <= s.finishedAt);
      const step = document.querySelector('[data-testid="induction-formed"]').dataset.step;
      return {
        formedMs: window.__formedAt ? Math.round(window.__formedAt - s.startedAt) : null,
        formedStep: step ? Number(step) : null,
        verdictMs: Math.round(s.finishedAt - s.startedAt),
        longestTaskMs: Math.round(long.reduce((m, t) => Math.max(m, t.duration), 0)),
        mode: s.models[0].remote.mode,
        repeatAccuracy: s.models.map((m) => m.evaluation.repeatAccuracy),
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
export async function inductionMetrics(chromium, {quick = false, log = console.log} = {}) {
  const browser = await launchChromium(chromium, {oneCore: true});
  const out = {chromium: 'pinned to one core (taskset -c 0)', loadAverageBefore: os.loadavg(), runs: []};
  try {
    for (let r = 0; r < (quick ? 1 : 3); r += 1) {
      const one = await oneRun(browser);
      log(`  run ${r + 1}: formed at step ${one.formedStep} after ${one.formedMs === null ? '-' : (one.formedMs / 1000).toFixed(2)} s, verdict after ${
          (one.verdictMs / 1000).toFixed(2)} s (${one.mode}), longest task ${one.longestTaskMs} ms`);
      out.runs.push(one);
    }
  } finally {
    await browser.close();
  }
  const formed = out.runs.map((x) => x.formedMs).filter((ms) => ms !== null);
  out.formedMedianMs = formed.length === out.runs.length ? median(formed) : null;
  out.verdictMedianMs = median(out.runs.map((x) => x.verdictMs));
  out.longestTaskMs = Math.max(...out.runs.map((x) => x.longestTaskMs));
  out.loadAverageAfter = os.loadavg();
  return out;
}

/** @param {any} r inductionMetrics's result */
export function inductionTable(r) {
  const formed = r.formedMedianMs === null ? 'not formed in every run' : `${(r.formedMedianMs / 1000).toFixed(2)} s`;
  const met = r.formedMedianMs !== null && r.formedMedianMs <= INDUCTION_GOALS.formedS * 1000;
  return [
    `  Chromium ${r.chromium}; load average ${r.loadAverageBefore.map((x) => x.toFixed(1)).join(', ')} -> ${
        r.loadAverageAfter.map((x) => x.toFixed(1)).join(', ')} (${os.cpus().length} cores)`,
    `  click to the induction head formed: median ${formed} (steps ${r.runs.map((x) => x.formedStep).join(', ')}; goal <= ${
        INDUCTION_GOALS.formedS} s: ${met ? 'met' : 'NOT met'})`,
    `  click to the verdict: median ${(r.verdictMedianMs / 1000).toFixed(2)} s; longest main-thread task ${r.longestTaskMs} ms (wall; goal <= ${
        INDUCTION_GOALS.taskMs} ms: ${r.longestTaskMs <= INDUCTION_GOALS.taskMs ? 'met' : 'NOT met'})`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const chromium = await playwright();
    console.log('Heads that work together, Chromium on one core ...');
    const r = await inductionMetrics(chromium, {quick: commandLine().flag('quick')});
    console.log(inductionTable(r));
    console.log(`wrote ${writeJson('induction.json', r)}`);
  });
}
