// The lesson's first load as a student meets it (a section of `npm run bench`; also
// `node tests/bench/load.mjs`):
//
//   tasks       the longest main-thread task from navigation until the page is drawn, in headless
//               Chromium from a trace: CPU time (the trace's thread time) and wall time, at 1280
//               and 390 px wide, from file:// and over http; `--rounds` fresh pages each; and
//               what the page's own PerformanceObserver saw: long tasks and long animation frames
//               (over 50 ms of wall time, style, layout and paint included).
//   switch      a switch of language at the switcher once the page is drawn (to each language
//               and back to English), the longest main-thread task of each, as for the load;
//               `--rounds` pages.
//   lighthouse  Lighthouse (tests/bench/package.json) on the served page, its mobile profile
//               (simulated 4× slower CPU, slow 4G) and its desktop profile, `--lighthouse-runs`
//               runs each, median: performance, total blocking time, largest contentful paint,
//               accessibility, best practices, and its legibility audit (font-size).
//
// With --before=DIR (a page built at another commit, e.g. dist/ copied to build/dist-before), both
// builds are measured alternately in one sitting, so that the machine's load falls on both alike.
// Goals: no task over 50 ms during load or a switch of language; Lighthouse mobile performance >= 0.98, total blocking
// time <= 100 ms, accessibility and best practices 1.0.
//
// Options: --dist=DIR (default dist)  --before=DIR  --rounds=N (default 5)
//          --lighthouse-runs=N (default 3)  --skip-lighthouse  --skip-tasks
// Writes build/bench/load.json when run alone.
import {spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import os from 'node:os';
import {createRequire} from 'node:module';
import {join, resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

import {
  benchDir, CHROMIUM, CHROMIUM_ARGS, commandLine, isMain, launchChromium, median, playwright, root,
  runMain, runTasks, threadNames, writeJson
} from './common.mjs';
import {serve} from './serve.mjs';

/** The goals of the first load. */
export const LOAD_GOALS = {taskMs: 50, performance: 0.98, tbtMs: 100, accessibility: 1, bestPractices: 1};
/** Widths (px) a student opens the lesson at: a laptop and a phone. */
const WIDTHS = [1280, 390];
/** Lesson widgets that load on demand, not part of the first load. */
const ON_DEMAND = ['hw-train', 'hw-train-python', 'hw-heads-needed', 'hw-heads-python'];

const round1 = (x) => (x === null ? null : Math.round(x * 10) / 10);

/**
 * Installed before the page's scripts: what a student's own page would see of its tasks, a
 * PerformanceObserver's long tasks (over 50 ms of wall time, style, layout and paint included) and
 * long animation frames (a frame's tasks and its rendering, over 50 ms), and a console line
 * `DRAWN` once the lesson is drawn: every widget of the first load ready, nothing waiting to be
 * redrawn or built. The bench waits for that line, not by evaluating anything in the page: a
 * Playwright evaluation injects its own script, 5 to 10 ms of the page's main thread in one task,
 * which a trace would count as the page's.
 */
const OBSERVE = `(() => {
  if (window.top !== window || window.__hwObserved) return;
  const seen = window.__hwObserved = {longtask: [], frame: []};
  for (const [type, list] of [['longtask', seen.longtask], ['long-animation-frame', seen.frame]]) {
    try {
      new PerformanceObserver((l) => { for (const e of l.getEntries()) list.push(e.duration); }).observe({type, buffered: true});
    } catch {
      // not in this engine
    }
  }
  const onDemand = ${JSON.stringify(ON_DEMAND)};
  const drawn = () => {
    const widgets = [...document.querySelectorAll('main [class~="hw-widget"], main hw-fact')]
      .filter((el) => !onDemand.includes(el.localName));
    if (widgets.length === 0 || !widgets.every((el) => el.hasAttribute('data-ready'))) return false;
    if (document.documentElement.hasAttribute('data-hw-loading')) return false;
    const m = performance.getEntriesByName('hw-redraw');
    const last = m[m.length - 1];
    return !(last && last.detail && last.detail.waiting > 0);
  };
  const check = () => (drawn() ? console.log('DRAWN') : setTimeout(check, 50));
  document.addEventListener('headwise-loaded', check, {once: true});
})();`;

/**
 * Wait until the lesson is drawn (the page's console line, OBSERVE), and the page quiet for a
 * second after that (tasks queued by the load, such as starting the Worker once idle, are part
 * of it).
 */
async function loadDrawn(page, url) {
  const drawn = page.waitForEvent('console', {predicate: (m) => m.text() === 'DRAWN', timeout: 60000});
  await page.goto(url);
  await drawn;
  await page.waitForTimeout(1000);
}

/** The longest task and animation frame (ms of wall time) the page's PerformanceObserver saw (0: none over 50 ms). */
async function observed(page) {
  const seen = await page.evaluate(() => window.__hwObserved);
  return {longtask: Math.max(0, ...seen.longtask), frame: Math.max(0, ...seen.frame)};
}

/** A fresh context at a laptop's or a phone's width, OBSERVE installed. */
async function newContext(browser, width) {
  const context = await browser.newContext({viewport: {width, height: width > 600 ? 800 : 844},
    deviceScaleFactor: width > 600 ? 1 : 3, isMobile: width <= 600, hasTouch: width <= 600});
  await context.addInitScript(OBSERVE);
  return context;
}

/**
 * The page's main-thread tasks while `action` runs, from a trace: the longest by CPU and by wall
 * time, and how many computed for more than the goal. Only the renderers that ran something from
 * under `folder` count: the browser runs renderers of its own, whose tasks are not the page's.
 */
async function tracedTasks(context, page, folder, action, minTasks) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const complete = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
  await cdp.send('Tracing.start', {
    traceConfig: {includedCategories: ['toplevel', '__metadata', 'devtools.timeline']},
    transferMode: 'ReportEvents',
  });
  await action();
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach();
  const threads = threadNames(events);
  const pages = new Set(events.filter((e) => e.args && JSON.stringify(e.args).includes(folder)).map((e) => e.pid));
  const tasks = runTasks(events).filter((e) => threads.get(`${e.pid}:${e.tid}`) === 'CrRendererMain' && pages.has(e.pid));
  const cpu = tasks.map((e) => (Number.isFinite(e.tdur) ? e.tdur : e.dur) / 1000);
  const wall = tasks.map((e) => e.dur / 1000);
  if (tasks.length < minTasks) throw new Error(`the trace holds ${tasks.length} tasks of the page's renderer: it missed the page`);
  return {
    cpu: Math.max(0, ...cpu),
    wall: Math.max(0, ...wall),
    over50: cpu.filter((ms) => ms > LOAD_GOALS.taskMs).length,
    over50Wall: wall.filter((ms) => ms > LOAD_GOALS.taskMs).length,
    tasks: tasks.length,
  };
}

/** One load in a fresh context: the main thread's tasks during it, from a trace. */
async function oneLoad(browser, url, width) {
  const context = await newContext(browser, width);
  try {
    const page = await context.newPage();
    await page.goto('about:blank');
    const tasks = await tracedTasks(context, page, url.replace(/[^/]*$/, ''), () => loadDrawn(page, url), 20);
    return {...tasks, observed: await observed(page)};
  } finally {
    await context.close();
  }
}

/**
 * Switches of language at the switcher, once the page is drawn (1280 px, file://): to each
 * language of `languages` and back to English, `rounds` pages; the longest task of each switch.
 */
export async function switchTasks(dist, {rounds = 5, languages = ['es', 'zh-CN'], log = console.log} = {}) {
  const browser = await launchChromium(await playwright());
  const url = pathToFileURL(join(resolve(dist), 'index.html')).href;
  /** @type {Record<string, number[]>} */
  const samples = {};
  try {
    for (let r = 0; r < rounds; r += 1) {
      const context = await newContext(browser, 1280);
      try {
        const page = await context.newPage();
        await loadDrawn(page, url);
        for (const lang of languages.flatMap((l) => [l, 'en'])) {
          const s = await tracedTasks(context, page, url.replace(/[^/]*$/, ''), async () => {
            await page.selectOption('#hw-language-select', lang);
            await page.waitForFunction((l) => document.documentElement.lang === l, lang, {timeout: 20000});
            await page.waitForTimeout(1600);  // past the time the page holds the reader's place
          }, 5);
          (samples[lang] ||= []).push(s.cpu);
        }
      } finally {
        await context.close();
      }
      log(`  switch round ${r + 1}/${rounds} done`);
    }
  } finally {
    await browser.close();
  }
  return Object.entries(samples).map(([lang, cpu]) => ({lang, cpuMedian: round1(median(cpu)), cpuMax: round1(Math.max(...cpu)),
    over50: cpu.filter((ms) => ms > LOAD_GOALS.taskMs).length, switches: cpu.length, cpu: cpu.map(round1)}));
}

/**
 * The longest main-thread task during load, per build, width and mode; `rounds` loads of each,
 * the builds alternated.
 * @param {{name: string, dir: string}[]} builds
 */
export async function loadTasks(builds, {rounds = 5, log = console.log} = {}) {
  const servers = await Promise.all(builds.map((b) => serve(resolve(b.dir))));
  const browser = await launchChromium(await playwright());
  /** @type {Record<string, {cpu: number[], wall: number[], over50: number[], seen: number[], frames: number[]}>} */
  const samples = {};
  try {
    for (let r = 0; r < rounds; r += 1) {
      for (const width of WIDTHS) {
        for (const mode of ['file', 'http']) {
          const order = r % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
          for (const i of order) {
            const b = builds[i];
            const url = mode === 'file' ? pathToFileURL(join(resolve(b.dir), 'index.html')).href
              : `http://127.0.0.1:${servers[i].address().port}/index.html`;
            const s = await oneLoad(browser, url, width);
            const key = `${b.name}|${width}|${mode}`;
            samples[key] ||= {cpu: [], wall: [], over50: [], seen: [], frames: []};
            samples[key].cpu.push(s.cpu);
            samples[key].wall.push(s.wall);
            samples[key].over50.push(s.over50Wall);
            samples[key].seen.push(s.observed.longtask);
            samples[key].frames.push(s.observed.frame);
          }
        }
      }
      log(`  load round ${r + 1}/${rounds} done`);
    }
  } finally {
    await browser.close();
    for (const s of servers) s.close();
  }
  const rows = [];
  for (const width of WIDTHS) {
    for (const mode of ['file', 'http']) {
      for (const b of builds) {
        const s = samples[`${b.name}|${width}|${mode}`];
        rows.push({
          build: b.name, width, mode,
          cpuMedian: round1(median(s.cpu)), cpuMax: round1(Math.max(...s.cpu)),
          wallMedian: round1(median(s.wall)), wallMax: round1(Math.max(...s.wall)),
          loadsOver50: s.over50.filter((n) => n > 0).length, loads: s.cpu.length,
          loadsSeen: s.seen.filter((ms) => ms > 0).length, seenMax: round1(Math.max(...s.seen)),
          loadsFrames: s.frames.filter((ms) => ms > 0).length, framesMax: round1(Math.max(...s.frames)),
          cpu: s.cpu.map(round1), wall: s.wall.map(round1),
        });
      }
    }
  }
  return rows;
}

/** One Lighthouse run of `url` in a fresh Chromium; `desktop` picks Lighthouse's desktop profile. */
async function lighthouseOnce(url, desktop) {
  const require = createRequire(import.meta.url);
  const lhDir = join(benchDir, 'node_modules', 'lighthouse');
  const {default: lighthouse} = await import(pathToFileURL(join(lhDir, 'core', 'index.js')).href);
  const chromeLauncher = await import(pathToFileURL(require.resolve('chrome-launcher', {paths: [lhDir]})).href);
  const chrome = await chromeLauncher.launch({chromePath: CHROMIUM,
    chromeFlags: ['--headless=new', ...CHROMIUM_ARGS]});
  try {
    const config = desktop
      ? (await import(pathToFileURL(join(lhDir, 'core', 'config', 'desktop-config.js')).href)).default
      : undefined;
    const result = await lighthouse(url, {
      port: chrome.port, output: 'json', logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
    }, config);
    const lhr = result.lhr;
    const audit = (id) => lhr.audits[id] || {};
    const legible = audit('font-size');
    return {
      performance: lhr.categories.performance.score,
      accessibility: lhr.categories.accessibility.score,
      bestPractices: lhr.categories['best-practices'].score,
      tbt: audit('total-blocking-time').numericValue,
      lcp: audit('largest-contentful-paint').numericValue,
      fcp: audit('first-contentful-paint').numericValue,
      maxFid: audit('max-potential-fid').numericValue,
      cls: audit('cumulative-layout-shift').numericValue,
      legibleScore: legible.score,
      legible: legible.displayValue || '',
      longTasks: (audit('long-tasks').details?.items || []).length,
      failing: Object.values(lhr.audits)
        .filter((a) => a.score !== null && a.score < 1 && ['binary', 'numeric'].includes(a.scoreDisplayMode) &&
          !['performance'].includes(a.id) &&
          lhr.categories.accessibility.auditRefs.concat(lhr.categories['best-practices'].auditRefs)
            .some((r) => r.id === a.id && r.weight > 0))
        .map((a) => a.id),
    };
  } finally {
    await chrome.kill();
  }
}

/**
 * Lighthouse on each build, served over http (gzip, as static hosts serve it), mobile and desktop
 * profiles, `runs` runs each, alternated between builds; medians.
 * @param {{name: string, dir: string}[]} builds
 */
export async function lighthouseRuns(builds, {runs = 3, log = console.log} = {}) {
  if (!existsSync(join(benchDir, 'node_modules', 'lighthouse'))) {
    throw new Error('Lighthouse is not installed: run `npm ci --prefix tests/bench` (npm run bench does)');
  }
  const servers = await Promise.all(builds.map((b) => serve(resolve(b.dir), {gzip: true, isolate: false})));
  const samples = {};
  try {
    for (let r = 0; r < runs; r += 1) {
      for (const profile of ['mobile', 'desktop']) {
        const order = r % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
        for (const i of order) {
          const url = `http://127.0.0.1:${servers[i].address().port}/index.html`;
          const s = await lighthouseOnce(url, profile === 'desktop');
          (samples[`${builds[i].name}|${profile}`] ||= []).push(s);
        }
      }
      log(`  lighthouse round ${r + 1}/${runs} done`);
    }
  } finally {
    for (const s of servers) s.close();
  }
  const rows = [];
  for (const profile of ['mobile', 'desktop']) {
    for (const b of builds) {
      const s = samples[`${b.name}|${profile}`];
      const m = (k) => median(s.map((x) => x[k]));
      rows.push({
        build: b.name, profile,
        performance: m('performance'), tbt: m('tbt'), lcp: m('lcp'), fcp: m('fcp'), maxFid: m('maxFid'),
        cls: m('cls'), accessibility: m('accessibility'), bestPractices: m('bestPractices'),
        legibleScore: m('legibleScore'), legible: s.map((x) => x.legible),
        failing: [...new Set(s.flatMap((x) => x.failing))],
        runs: s.map((x) => ({performance: x.performance, tbt: Math.round(x.tbt), lcp: Math.round(x.lcp)})),
      });
    }
  }
  return rows;
}

/** The tables, as Markdown. */
export function loadTable({tasks = [], switches = [], lighthouse = []}) {
  const out = [];
  if (tasks.length) {
    out.push('Longest main-thread task from navigation until the lesson is drawn (Chromium, trace; ms, median and max of the loads);',
      'the loads with a task over 50 ms of wall time in the trace, and those whose PerformanceObserver saw a long task or a long animation frame (the longest)',
      '', '| build | width | from | CPU median | CPU max | wall median | wall max | loads with a task over 50 ms wall | observer: long task | observer: long frame |',
      '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of tasks) {
      out.push(`| ${r.build} | ${r.width} | ${r.mode} | ${r.cpuMedian} | ${r.cpuMax} | ${r.wallMedian} | ${r.wallMax} | ${r.loadsOver50} of ${r.loads} | ${r.loadsSeen} (${r.seenMax}) | ${r.loadsFrames} (${r.framesMax}) |`);
    }
    out.push('');
  }
  if (switches.length) {
    out.push('Longest main-thread task of a switch of language at the switcher (Chromium, 1280 px, file://, trace; ms of CPU)',
      '', '| to | median | max | switches with a task over 50 ms | goal |', '|---|---:|---:|---:|---|');
    for (const r of switches) out.push(`| ${r.lang} | ${r.cpuMedian} | ${r.cpuMax} | ${r.over50} of ${r.switches} | ${r.cpuMax <= LOAD_GOALS.taskMs ? 'met' : 'missed'} |`);
    out.push('');
  }
  if (lighthouse.length) {
    out.push('Lighthouse 12.2.3, median of the runs (performance score: each run)', '',
      '| build | profile | performance | TBT ms | LCP ms | FCP ms | accessibility | best practices | legible text | runs (perf/TBT/LCP) |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|---|');
    for (const r of lighthouse) {
      out.push(`| ${r.build} | ${r.profile} | ${r.performance} | ${Math.round(r.tbt)} | ${Math.round(r.lcp)} | ${Math.round(r.fcp)} | ${r.accessibility} | ${r.bestPractices} | ${[...new Set(r.legible)].join('; ')} | ${r.runs.map((x) => `${x.performance}/${x.tbt}/${x.lcp}`).join(', ')} |`);
      if (r.failing.length) out.push(`|  |  | failing audits: ${r.failing.join(', ')} | | | | | | | |`);
    }
    out.push('', `Goals: no task over ${LOAD_GOALS.taskMs} ms; mobile performance >= ${LOAD_GOALS.performance}, TBT <= ${LOAD_GOALS.tbtMs} ms; accessibility and best practices ${LOAD_GOALS.accessibility}.`);
  }
  return out.join('\n');
}

/** Both parts, for run.mjs and the command line. */
export async function loadMetrics({dist = join(root, 'dist'), before = null, rounds = 5, lighthouseRunsN = 3,
  skipLighthouse = false, skipTasks = false, log = console.log} = {}) {
  const builds = [...(before ? [{name: 'before', dir: before}] : []), {name: before ? 'after' : 'dist', dir: dist}];
  for (const b of builds) {
    if (!existsSync(join(b.dir, 'index.html'))) throw new Error(`${b.dir}/index.html is missing: build the page first`);
  }
  const result = {builds, loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100)};
  if (!skipTasks) result.tasks = await loadTasks(builds, {rounds, log});
  if (!skipTasks) result.switches = await switchTasks(dist, {rounds, log});
  if (!skipLighthouse) result.lighthouse = await lighthouseRuns(builds, {runs: lighthouseRunsN, log});
  result.loadavgAfter = os.loadavg().map((x) => Math.round(x * 100) / 100);
  return result;
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const {flag, option, count} = commandLine();
    const result = await loadMetrics({
      dist: resolve(option('dist', join(root, 'dist'))),
      before: option('before', null) && resolve(option('before', null)),
      rounds: count('rounds', 5),
      lighthouseRunsN: count('lighthouse-runs', 3),
      skipLighthouse: flag('skip-lighthouse'),
      skipTasks: flag('skip-tasks'),
    });
    const chromium = spawnSync(CHROMIUM, ['--version'], {encoding: 'utf8'}).stdout.trim();
    console.log(`\n${chromium}; ${os.cpus().length} cores; load average ${result.loadavg.join(' ')} before, ${result.loadavgAfter.join(' ')} after\n`);
    console.log(loadTable(result));
    console.log(`wrote ${writeJson('load.json', result)}`);
  });
}
