// What the bench's scripts share: where things are, how Chromium is launched, medians and
// percentiles, command-line options, reading Chromium traces, the machine, writing results.
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import os from 'node:os';
import {dirname, join, relative, resolve} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const root = resolve(benchDir, '..', '..');
export const outDir = join(root, 'build', 'bench');
export const log = (...a) => console.log(...a);

/** A fresh instance of the built module, dist/headwise.js. */
export const headwise = () => createRequire(import.meta.url)(join(root, 'dist', 'headwise.js'))();

// ---- Chromium -----------------------------------------------------------------------------------

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run'
];

/** playwright-core's chromium; when it is not installed, an error, or with optional a note and null. */
export async function playwright({optional = false} = {}) {
  try {
    return (await import('playwright-core')).chromium;
  } catch (e) {
    if (!optional) throw new Error(`playwright-core is missing (npm ci): ${e.message}`);
    log('note: playwright-core is missing (npm ci); Chromium parts skipped.');
    return null;
  }
}

/**
 * Headless Chromium for a bench. oneCore: every process of it pinned to core 0 (taskset), so
 * that a page's threads share one core as on a slow laptop; freeFrames: frames as soon as they
 * are drawn (no frame-rate limit, no vsync), so that an update is not timed to the next 16 ms.
 */
export function launchChromium(chromium, {oneCore = false, freeFrames = false, env} = {}) {
  let executablePath = CHROMIUM;
  if (oneCore) {
    mkdirSync(outDir, {recursive: true});
    executablePath = join(outDir, 'chromium-one-core.sh');
    writeFileSync(executablePath, `#!/bin/sh\nexec taskset -c 0 ${CHROMIUM} "$@"\n`, {mode: 0o755});
  }
  const args = freeFrames ? [...CHROMIUM_ARGS, '--disable-frame-rate-limit', '--disable-gpu-vsync']
                          : CHROMIUM_ARGS;
  return chromium.launch({executablePath, args, ...(env ? {env} : {})});
}

// ---- statistics ---------------------------------------------------------------------------------

/** The median of the finite numbers in xs, or null when there are none. */
export function median(xs) {
  const s = xs.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile: the smallest sample with at least p % of the samples at or below it. */
export function percentile(xs, p) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Milliseconds with about three significant digits ('-' for none). */
export const fmtMs = (x) =>
    (x == null   ? '-' :
         x < 0.1 ? x.toFixed(4) :
         x < 10  ? x.toFixed(3) :
                   x.toFixed(1));

// ---- the command line ---------------------------------------------------------------------------

/** --name as flag('name'), --name=value as option('name', fallback), whole numbers as count(). */
export function commandLine(argv = process.argv.slice(2)) {
  const flag = (name) => argv.includes(`--${name}`);
  const option = (name, fallback) => {
    const a = argv.find((x) => x.startsWith(`--${name}=`));
    return a ? a.slice(name.length + 3) : fallback;
  };
  // A whole number of at least `min`, or a clear error; `what` names what it counts.
  const count = (name, fallback, min = 1, what = '') => {
    const raw = option(name, null);
    if (raw === null) return fallback;
    const n = Number(raw);
    if (!(Number.isInteger(n) && n >= min))
      throw new Error(`--${name}=${raw}: give a whole number${what ? ` of ${what}` : ''}, ${min} or more`);
    return n;
  };
  return {argv, flag, option, count};
}

/** True in the script node was started with (`node tests/bench/x.mjs`), false when imported. */
export const isMain = (url) =>
    Boolean(process.argv[1]) && resolve(process.argv[1]) === fileURLToPath(url);

/** Runs a script's main: exits 0 when it is done, 1 with the error when it throws. */
export function runMain(main) {
  main().then(() => process.exit(0), (e) => {
    console.error(e);
    process.exit(1);
  });
}

// ---- Chromium traces ----------------------------------------------------------------------------

/** The events of a trace (a saved trace object or the bare list). */
export const traceEvents = (trace) => trace.traceEvents || trace;

/** Stops playwright's tracing of `browser` and returns the trace's events. */
export const stopTrace = async (browser) =>
    traceEvents(JSON.parse((await browser.stopTracing()).toString()));

/** Thread names by `${pid}:${tid}`, from the trace's metadata ('__metadata'). */
export const threadNames = (events) =>
    new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name')
                .map((e) => [`${e.pid}:${e.tid}`, e.args.name]));

/** Every task a thread ran ('toplevel'). */
export const runTasks = (events) =>
    events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask');

/** The CPU time (ms) of every task, by thread: taskCpu(events)(/^CrRendererMain$/). */
export function taskCpu(events) {
  const threads = threadNames(events);
  const tasks = runTasks(events).filter((e) => Number.isFinite(e.tdur));
  return (re) => tasks.filter((e) => re.test(threads.get(`${e.pid}:${e.tid}`) || ''))
                     .map((e) => e.tdur / 1000);
}

// ---- the machine and the results ----------------------------------------------------------------

export function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = (cpuinfo.match(/^model name\s*:\s*(.*)$/m) || [])[1] || os.cpus()[0]?.model;
  const mem = (readFileSync('/proc/meminfo', 'utf8').match(/^MemTotal:\s*(\d+)/m) || [])[1];
  const flags = (cpuinfo.match(/^flags\s*:\s*(.*)$/m) || [])[1] || '';
  const simd =
      ['sse2', 'avx', 'avx2', 'fma', 'avx512f'].filter((f) => flags.split(' ').includes(f));
  return {
    cpu: model,
    cores: os.cpus().length,
    memoryGiB: mem ? +(mem / 1048576).toFixed(1) : null,
    simd,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverage: os.loadavg()
  };
}

/** Writes build/bench/`name` (JSON) and returns its path from the project's root. */
export function writeJson(name, data) {
  mkdirSync(outDir, {recursive: true});
  writeFileSync(join(outDir, name), JSON.stringify(data, null, 1) + '\n');
  return relative(root, join(outDir, name));
}

/**
 * A fresh 1280 × 900 page of the lesson from file://, scrolled to a training part until it is
 * ready to train (`ready`, a selector); long tasks are recorded from the start in window.__long.
 * Returns {context, page}; the caller closes the context.
 */
export async function openTrainingPart(browser, section, ready, hash = '') {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__long.push({start: e.startTime, duration: e.duration});
    }).observe({type: 'longtask', buffered: true});
  });
  await page.goto(pathToFileURL(join(root, 'dist', 'index.html')).href + hash);
  const end = Date.now() + 120000;
  for (;;) {
    await page.evaluate((s) => document.querySelector(s).scrollIntoView({behavior: 'instant'}), section);
    try {
      await page.waitForSelector(ready, {timeout: 2000});
      break;
    } catch (e) {
      if (Date.now() > end) throw e;
    }
  }
  return {context, page};
}
