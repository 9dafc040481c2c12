// The training section ("Watch heads specialise") in Chromium pinned to one core: the default
// demo from a click on Train to its verdict, in fresh pages; per frame while it trains, the time
// spent drawing the section ('hw-train draw') and training ('hw-train steps'), from the page's own
// User Timing measures; the CPU time of the page's threads and its longest tasks, from traces;
// and the arrival at the section (from scrolling to it until it is drawn whole).
import {existsSync} from 'node:fs';
import os from 'node:os';
import {join} from 'node:path';

import {fmtMs, launchChromium, log, median, percentile, root, stopTrace, taskCpu} from './common.mjs';

// Installed before the page's scripts: the section's measures and every long task.
function observeTraining() {
  window.__train = {draw: [], steps: [], long: []};
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      if (e.name === 'hw-train draw') window.__train.draw.push(e.duration);
      if (e.name === 'hw-train steps') window.__train.steps.push(e.duration);
    }
  }).observe({type: 'measure'});
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__train.long.push(e.duration);
  }).observe({type: 'longtask'});
}

// In the page: clicks Train and resolves with the ms until the verdict (data-done).
function trainToVerdict() {
  return new Promise((ok) => {
    const el = document.querySelector('hw-train');
    window.__train.draw.length = 0;
    window.__train.steps.length = 0;
    window.__train.long.length = 0;
    const t0 = performance.now();
    new MutationObserver((_, obs) => {
      if (el.hasAttribute('data-done')) {
        obs.disconnect();
        ok(performance.now() - t0);
      }
    }).observe(el, {attributes: true});
    document.getElementById('train-run').click();
  });
}

async function oneRun(browser, baseUrl) {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  try {
    const page = await context.newPage();
    await page.addInitScript(observeTraining);
    await page.goto(`${baseUrl}/dist/index.html`);
    // The section is built when the reader comes near it: go there first, then wait for it to
    // be drawn whole (its trainers made, every model's block and untrained heads drawn). The
    // arrival is traced too: the section's code and module loading, and its first frames.
    await page.waitForSelector('hw-head-weights[data-ready]', {state: 'attached', timeout: 60000});
    await page.waitForTimeout(500);
    await browser.startTracing(page, {categories: ['toplevel', '__metadata']});
    await page.evaluate(() => document.querySelector('#train').scrollIntoView({behavior: 'instant'}));
    await page.waitForSelector('hw-train[data-ready] #train-run:not([disabled])', {timeout: 60000});
    await page.waitForFunction(() => {
      const el = document.querySelector('hw-train');
      const stats = [...el.querySelectorAll('[data-testid="train-stats"]')];
      return el.hasAttribute('data-drawn') && el.session && stats.length === el.session.models.length &&
             stats.every((p) => /\d parameters$/.test(p.textContent || ''));
    }, undefined, {timeout: 60000});
    const arrival = taskCpu(await stopTrace(browser))(/^CrRendererMain$/);
    await page.locator('#train').scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    await browser.startTracing(page, {categories: ['toplevel', '__metadata']});
    const ms = await page.evaluate(trainToVerdict);
    // CPU time from the trace: what the run costs whatever else the machine is doing. On one
    // free core, the wall time to the verdict is about the CPU time of all the page's threads.
    const cpuOf = taskCpu(await stopTrace(browser));
    const mainCpu = cpuOf(/^CrRendererMain$/);
    const sum = (xs) => xs.reduce((a, b) => a + b, 0);
    const t = await page.evaluate(() => window.__train);
    const verdict = await page.textContent('[data-testid="train-verdict"]');
    return {
      verdictMs: ms, draw: t.draw, steps: t.steps, long: t.long, verdict, mainCpu,
      arrivalTaskCpuMax: Math.max(0, ...arrival),
      cpuMs: {main: sum(mainCpu), worker: sum(cpuOf(/Worker/)), compositor: sum(cpuOf(/Compositor/))},
    };
  } finally {
    await context.close();
  }
}

/** `runs` runs of the default demo (null without a built page). */
export async function trainPageMetrics(chromium, baseUrl, {quick = false, runs = quick ? 2 : 5} = {}) {
  if (!existsSync(join(root, 'dist', 'index.html'))) return null;
  const browser = await launchChromium(chromium, {oneCore: true});
  const out = {chromium: 'pinned to one core (taskset -c 0)', runs: []};
  try {
    for (let r = 0; r < runs; r += 1) out.runs.push(await oneRun(browser, baseUrl));
  } finally {
    await browser.close();
  }
  const all = (k) => out.runs.flatMap((x) => x[k]);
  out.verdictMs = median(out.runs.map((x) => x.verdictMs));
  out.verdictMsAll = out.runs.map((x) => Math.round(x.verdictMs));
  out.frames = all('draw').length;
  out.drawP50 = percentile(all('draw'), 50);
  out.drawP95 = percentile(all('draw'), 95);
  out.stepsP95 = percentile(all('steps'), 95);
  out.longestTaskMs = Math.max(0, ...all('long'));
  out.mainTaskCpuP95 = percentile(all('mainCpu'), 95);
  out.mainTaskCpuMax = Math.max(0, ...all('mainCpu'));
  out.arrivalTaskCpuMax = out.runs.map((x) => x.arrivalTaskCpuMax);
  out.cpuToVerdictMs = median(out.runs.map((x) => x.cpuMs.main + x.cpuMs.worker + x.cpuMs.compositor));
  out.cpuSplitMs = out.runs[0].cpuMs;
  out.loadAverage = os.loadavg();
  out.verdict = out.runs[0].verdict;
  for (const x of out.runs) {
    delete x.draw;
    delete x.steps;
    delete x.mainCpu;
  }
  return out;
}

export function logTrainPage(t) {
  if (!t) return;
  log(`  default demo (1, 2, 4 heads, click to verdict), Chromium on one core: median ${
      (t.verdictMs / 1000).toFixed(2)} s (runs: ${t.verdictMsAll.join(', ')} ms)`);
  log(`  per frame while training: drawing the section p50 ${fmtMs(t.drawP50)} ms, p95 ${
      fmtMs(t.drawP95)} ms; training work p95 ${fmtMs(t.stepsP95)} ms (${t.frames} frames)`);
  log(`  CPU to the verdict (the page's main, Worker and compositor threads): median ${
      (t.cpuToVerdictMs / 1000).toFixed(2)} s (first run: main ${fmtMs(t.cpuSplitMs.main)} ms, Worker ${
      fmtMs(t.cpuSplitMs.worker)} ms, compositor ${fmtMs(t.cpuSplitMs.compositor)} ms)`);
  log(`  main-thread tasks while training, CPU: p95 ${fmtMs(t.mainTaskCpuP95)} ms, longest ${
      fmtMs(t.mainTaskCpuMax)} ms; longest task by the wall clock (PerformanceObserver): ${
      fmtMs(t.longestTaskMs)} ms`);
  if (t.arrivalTaskCpuMax)
    log(`  arriving at the section (its code and module loading, its first frames), longest main-thread task, CPU, per run: ${
        t.arrivalTaskCpuMax.map((x) => fmtMs(x)).join(', ')} ms`);
  log(`  load average during the run: ${t.loadAverage.map((x) => x.toFixed(1)).join(', ')} (${
      os.cpus().length} cores); wall times count waiting for a core`);
  log(`  verdict: ${t.verdict}`);
}
