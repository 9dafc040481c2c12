// Runs the browser tests in each engine listed in HEADWISE_BROWSERS (default: all three; e.g.
// HEADWISE_BROWSERS=firefox,webkit), each test file in a node --test process of its own.
// First Chromium's two files that read CPU time from traces, alone; then every other (engine,
// file) on two workers, at most one file per engine at a time. A browser test leaves much of a
// 2-core machine idle (0.6 to 1.2 cores on average), so two files at once finish sooner than one
// after the other; three at once saturated the machine (WebKit's a11y file took 449 s instead of
// 142 s). HEADWISE_ONE_ENGINE_AT_A_TIME=1 runs one file at a time.
// Arguments, if any, are the test files to run (default: every tests/browser/*.test.mjs).
// Prints each file's run as node --test does (whole, once it has ended, where two run at once),
// then a table: tests, passed, failed, skipped (with the reasons) and the time per engine.
// Exits non-zero if any engine failed.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINES } from './engine.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = (process.env.HEADWISE_BROWSERS || ENGINES.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
for (const e of wanted) {
  if (!ENGINES.includes(e)) {
    console.error(`HEADWISE_BROWSERS names "${e}": each must be one of ${ENGINES.join(', ')}`);
    process.exit(2);
  }
}
const files = process.argv.slice(2).length ? process.argv.slice(2)
  : readdirSync(here).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(here, f));

/**
 * The longest a test file may print nothing: its slowest test takes about a minute (WebKit's
 * no-worker test, 62 s in one CI run); node --test prints each test as it ends. A hung file
 * costs the run this long, so it is not much more than that.
 */
const SILENT_MS = 150 * 1000;

/**
 * Run one test file under node --test for one engine; echo its output; count what its TAP
 * summary says. A file that prints nothing for SILENT_MS has hung (a browser that stopped
 * answering): it is ended and counted as failed, and the next file still runs.
 * @param {string} name
 * @param {string} file
 * @param {boolean} live  print the output as it comes (else whole, once the file has ended)
 */
function runFile(name, file, live) {
  return new Promise((resolve) => {
    // In a process group of its own, so that a hung file is ended with every process it started
    // (node --test runs the file in a child process, which starts the browser and its driver).
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
      env: { ...process.env, HEADWISE_BROWSER: name },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    runningGroups.add(child.pid);
    let out = '';
    let hung = false;
    let silent = null;
    const quiet = () => {
      clearTimeout(silent);
      silent = setTimeout(() => {
        console.log(`\n# ${name}: ${file.split('/').pop()} printed nothing for ${SILENT_MS / 1000} s: ended as hung`);
        hung = true;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, SILENT_MS);
    };
    quiet();
    child.stdout.on('data', (d) => { out += d; if (live) process.stdout.write(d); quiet(); });
    const started = Date.now();
    child.on('exit', (code) => {
      clearTimeout(silent);
      runningGroups.delete(child.pid);
      if (!live) process.stdout.write(`\n# ---- ${name}: ${file.split('/').pop()} ----\n${out}`);
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(`# ${name}: ${file.split('/').pop()} took ${seconds} s`);
      const count = (k) => Number((out.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1] || 0);
      resolve({
        file, code: hung ? code || 1 : code, hung, out, seconds,
        tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'),
        cancelled: count('cancelled'), todo: count('todo'),
        skips: [...out.matchAll(/^\s*ok \d+ - (.*?) # SKIP (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`),
      });
    });
  });
}

/** The test files' process groups running now, ended with this runner if it is interrupted. */
const runningGroups = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const group of runningGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    process.exit(130);
  });
}

/**
 * Chromium's files that bound main-thread tasks by the CPU time a trace records: they run first,
 * alone, so that nothing else on the machine weighs on the figures they check.
 */
const ALONE = new Set(['responsive.test.mjs', 'train.test.mjs']);

/**
 * Roughly how long each file takes, in seconds (a local CI run on a 2-core machine, the three
 * engines' times averaged). Used only to order the queue, longest first; a file not listed
 * counts as 30 s.
 */
const EXPECTED_S = {
  'a11y.test.mjs': 125, 'hosts.test.mjs': 75, 'python-blocks.test.mjs': 100, 'layout.test.mjs': 60,
  'bad-input.test.mjs': 57, 'lesson.test.mjs': 45, 'train.test.mjs': 47, 'injection.test.mjs': 41,
  'inplace.test.mjs': 40, 'exercises.test.mjs': 39, 'long-session.test.mjs': 31,
  'responsive.test.mjs': 29, 'csp.test.mjs': 29, 'train-on-demand.test.mjs': 25, 'embed.test.mjs': 23,
  'motion.test.mjs': 18, 'engine.test.mjs': 15, 'compute.test.mjs': 13, 'no-worker.test.mjs': 11,
  'sandbox.test.mjs': 9,
};
/** python-blocks runs Python only in Chromium; elsewhere it ends at once. */
const expected = (engine, file) => {
  const base = file.split('/').pop();
  if (base === 'python-blocks.test.mjs' && engine !== 'chromium') return 1;
  return EXPECTED_S[base] ?? 30;
};

/**
 * Run (engine, file) jobs on `lanes` workers, at most one file per engine at a time (an engine's
 * files share its folders and its Xvfb display; and two browsers of one engine at once would
 * only slow each other). A free worker takes the longest file of the engine with the most
 * expected work left, so that no engine is left alone at the end. Output is printed whole, once
 * each file has ended, unless only one worker runs.
 * @param {{engine: string, file: string}[]} jobs
 * @param {number} lanes
 * @returns {Promise<Map<string, object[]>>}  each engine's file results, in the order they ended
 */
async function runQueue(jobs, lanes) {
  const pending = [...jobs];
  const busy = new Set();
  const done = new Map();
  const live = lanes === 1;
  const left = (engine) => pending.filter((j) => j.engine === engine).reduce((s, j) => s + expected(j.engine, j.file), 0);
  const next = () => {
    const free = pending.filter((j) => !busy.has(j.engine));
    if (free.length === 0) return null;
    free.sort((a, b) => left(b.engine) - left(a.engine) || expected(b.engine, b.file) - expected(a.engine, a.file));
    pending.splice(pending.indexOf(free[0]), 1);
    return free[0];
  };
  let wake = () => {};
  const worker = async () => {
    for (;;) {
      const job = next();
      if (!job) {
        if (pending.length === 0) return;
        // Every pending file's engine is busy on the other worker: wait for it to end one.
        await new Promise((resolve) => { wake = resolve; });
        continue;
      }
      busy.add(job.engine);
      const f = await runFile(job.engine, job.file, live);
      busy.delete(job.engine);
      if (!done.has(job.engine)) done.set(job.engine, []);
      done.get(job.engine).push(f);
      wake();
    }
  };
  await Promise.all(Array.from({ length: lanes }, worker));
  return done;
}

/**
 * An engine's results from its files' results.
 * @param {string} name
 * @param {object[]} fileResults
 */
function summarise(name, fileResults) {
  const r = { name, code: 0, failedFiles: [], crashedFiles: [], tests: 0, pass: 0, fail: 0, skipped: 0, cancelled: 0, todo: 0, skips: [], seconds: 0 };
  for (const f of fileResults) {
    for (const k of ['tests', 'pass', 'fail', 'skipped', 'cancelled', 'todo', 'seconds']) r[k] += f[k];
    r.skips.push(...f.skips);
    if (f.code !== 0 || f.fail > 0 || f.cancelled > 0) {
      r.code = r.code || f.code || 1;
      r.failedFiles.push(f.file);
      // The browser itself went away (its driver or session lost, engine.mjs, or the file hung)
      // rather than a test finding a fault.
      if (f.hung || /NoSuchSessionError|^# webkit: .*(?:exited|lost its WebDriver session)/m.test(f.out)) r.crashedFiles.push(f.file);
    }
  }
  return r;
}

const lanes = process.env.HEADWISE_ONE_ENGINE_AT_A_TIME === '1' ? 1 : 2;
const wallStarted = Date.now();
const byEngine = new Map(wanted.map((e) => [e, []]));
// 1. Chromium's trace-reading files, alone.
if (wanted.includes('chromium')) {
  const alone = files.filter((f) => ALONE.has(f.split('/').pop()));
  if (alone.length) console.log(`\n# ==== chromium, alone: ${alone.map((f) => f.split('/').pop()).join(', ')} ====`);
  for (const file of alone) byEngine.get('chromium').push(await runFile('chromium', file, true));
}
// 2. Everything else, on two workers.
const jobs = wanted.flatMap((engine) => files
  .filter((f) => !(engine === 'chromium' && ALONE.has(f.split('/').pop())))
  .map((file) => ({ engine, file })));
console.log(`\n# ==== ${wanted.join(', ')}: ${jobs.length} files on ${lanes} worker${lanes > 1 ? 's' : ''}, one file per engine at a time${lanes > 1 ? ' (each printed whole once it has ended)' : ''} ====`);
for (const [engine, results] of await runQueue(jobs, lanes)) byEngine.get(engine).push(...results);

const results = [];
const again = [];
for (const [engine, fileResults] of byEngine) {
  const r = summarise(engine, fileResults);
  results.push(r);
  // Where the browser went away under a file (WebKitGTK's driver has, rarely), that file once
  // more in a new browser; it must pass whole. Both runs are reported. A file that failed with
  // its browser still there is a failure, whatever else happened.
  if (r.crashedFiles.length > 0) {
    console.log(`\n# ==== ${engine}: the browser went away during ${r.crashedFiles.map((f) => f.split('/').pop()).join(', ')}; once more ====`);
    again.push({ r, jobs: r.crashedFiles.map((file) => ({ engine, file })) });
  }
}
if (again.length) {
  const rerun = await runQueue(again.flatMap((a) => a.jobs), lanes);
  for (const { r } of again) {
    const a = summarise(`${r.name} (again)`, rerun.get(r.name) || []);
    results.splice(results.indexOf(r) + 1, 0, a);
    if (r.failedFiles.length === r.crashedFiles.length && a.code === 0 && a.fail === 0 && a.cancelled === 0) r.excused = true;
  }
}
console.log('\n# engine     tests  pass  fail  skipped  cancelled  seconds');
for (const r of results) {
  console.log(`# ${r.name.padEnd(9)} ${String(r.tests).padStart(6)} ${String(r.pass).padStart(5)} ${String(r.fail).padStart(5)} ${String(r.skipped).padStart(8)} ${String(r.cancelled).padStart(10)} ${String(r.seconds).padStart(8)}`);
}
console.log(`# (seconds: the engine's files' times added up; the whole run took ${Math.round((Date.now() - wallStarted) / 1000)} s)`);
for (const r of results) for (const s of r.skips) console.log(`# skipped in ${r.name}: ${s}`);
for (const r of results) {
  if (r.excused) console.log(`# ${r.name}: ${r.fail} failed where the browser went away; the files re-ran and passed`);
}
process.exit(results.some((r) => !r.excused && (r.code !== 0 || r.fail > 0 || r.cancelled > 0)) ? 1 : 0);
