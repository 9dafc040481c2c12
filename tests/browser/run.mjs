// Runs the browser tests in each engine. First, alone and one at a time, Chromium's files that
// time the page's main-thread tasks (from a trace or long-task entries: timesTasks below), so that
// no other file's load reaches their CPU figures, and those that train on every core (EVERY_CORE).
// Then every other file of every engine from one
// queue that two files at a time draw from, the longest first (TYPICAL_SECONDS). A file keeps
// 1.3 to 1.8 of the 2 cores busy, so more at once only slows each file; one queue ends the
// engines together, and a file run again after its browser went away fills a free slot instead
// of lengthening one engine's run. HEADWISE_BROWSERS lists the engines (e.g.
// HEADWISE_BROWSERS=firefox,webkit); HEADWISE_ONE_ENGINE_AT_A_TIME=1 runs them one after another,
// one file at a time.
// Arguments, if any, are the test files to run (default: every tests/browser/*.test.mjs).
// Prints each file's run as node --test does (whole, once it has ended, where two run at once),
// then a table: tests, passed, failed, skipped (with the reasons) and the time per engine (the
// sum of its files' times). Exits non-zero if any engine failed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINES } from './engine.mjs';
import { TYPICAL_SECONDS } from './typical-seconds.mjs';

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
 * Each file's process gets a temporary directory of its own (TMPDIR), removed once it has ended.
 * Whatever a file that ended by itself left there (a browser profile, a copy of dist/, a
 * scratch file) fails it: cleaning up is part of a test file's work (engine.mjs scratchDir).
 */
const TMP_ROOT = mkdtempSync(join(tmpdir(), 'headwise-run-'));
/** Remove a directory a test file's browsers wrote to; one still being written to is said, not thrown. */
const removeDir = (dir) => {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 12, retryDelay: 150 });
    return null;
  } catch (e) {
    return e.message;
  }
};
process.on('exit', () => removeDir(TMP_ROOT));

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
    // Short: Chromium's socket path (about 45 characters more) must stay within 107.
    const tmp = mkdtempSync(join(TMP_ROOT, `${name}-`));
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
      env: { ...process.env, HEADWISE_BROWSER: name, TMPDIR: tmp },
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
        console.log(`\n# ${name}: ${basename(file)} printed nothing for ${SILENT_MS / 1000} s: ended as hung`);
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
    child.on('exit', (code, signal) => {
      clearTimeout(silent);
      runningGroups.delete(child.pid);
      const seconds = Math.round((Date.now() - started) / 1000);
      if (!live) process.stdout.write(`\n# ---- ${name}: ${basename(file)} ----\n${out}`);
      console.log(`# ${name}: ${basename(file)} took ${seconds} s`);
      const left = hung ? [] : readdirSync(tmp);
      const stuck = removeDir(tmp);
      if (stuck) console.log(`# ${name}: ${basename(file)}'s temporary directory could not be removed: ${stuck}`);
      if (left.length) console.log(`# ${name}: ${basename(file)} left ${left.join(', ')} in its temporary directory: failed (removed now)`);
      const count = (k) => Number((out.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1] || 0);
      resolve({
        file, code: hung || left.length ? code || 1 : code, signal, hung, left, out, seconds,
        tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'),
        cancelled: count('cancelled'), todo: count('todo'),
        skips: [...out.matchAll(/^\s*ok \d+ - (.*?) # SKIP (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`),
      });
    });
  });
}

/** What a test file's output says when its browser, not a test, failed (see record). */
const wentAway = /NoSuchSessionError|^# (?:\\# )?webkit: .*(?:exited|lost its WebDriver session)/m;

/** An engine's tally of its files' runs. */
const tally = (name) => ({
  name, code: 0, failedFiles: [], crashedFiles: [], fileRuns: [], tests: 0, pass: 0, fail: 0, skipped: 0, cancelled: 0, todo: 0, skips: [], seconds: 0,
});

/**
 * Add one file's run to its engine's tally.
 * @returns {boolean} whether the browser itself went away (its driver or session lost,
 *   engine.mjs, or the file hung) rather than a test finding a fault. engine.mjs says so on the
 *   test file's stdout, which node --test's TAP prints as a comment with its '#' escaped:
 *   "# \# webkit: ...".
 */
function record(r, f) {
  for (const k of ['tests', 'pass', 'fail', 'skipped', 'cancelled', 'todo', 'seconds']) r[k] += f[k];
  r.skips.push(...f.skips);
  r.fileRuns.push({ file: f.file, code: f.code, signal: f.signal, hung: f.hung, left: f.left, fail: f.fail, cancelled: f.cancelled });
  if (f.code === 0 && f.fail === 0 && f.cancelled === 0) return false;
  r.code = r.code || f.code || 1;
  r.failedFiles.push(f.file);
  if (!f.hung && !wentAway.test(f.out)) return false;
  r.crashedFiles.push(f.file);
  return true;
}

/** Each engine's tallies, kept across the runner's queues: its files' first runs, and second runs if any. */
const firstRuns = new Map();
const againRuns = new Map();

/**
 * Run the jobs ({engine, file}), `slots` at a time, in the order given. Where the browser went
 * away under a file (WebKitGTK's driver has, rarely), that file goes to the front of the queue
 * once more, in a new browser; it must pass whole. Both runs are reported. A file that failed
 * with its browser still there is a failure, whatever else happened. Counted into firstRuns
 * and againRuns.
 * @param {{engine: string, file: string}[]} jobs
 * @param {number} slots
 * @param {boolean} live  see runFile
 */
async function runQueue(jobs, slots, live) {
  for (const { engine } of jobs) if (!firstRuns.has(engine)) firstRuns.set(engine, tally(engine));
  const queue = jobs.slice();
  const slot = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const f = await runFile(job.engine, job.file, live);
      const crashed = record(job.again ? againRuns.get(job.engine) : firstRuns.get(job.engine), f);
      if (crashed && !job.again) {
        if (!againRuns.has(job.engine)) againRuns.set(job.engine, tally(`${job.engine} (again)`));
        console.log(`\n# ==== ${job.engine}: the browser went away during ${basename(job.file)}; once more, next ====`);
        queue.unshift({ ...job, again: true });
      }
    }
  };
  await Promise.all(Array.from({ length: slots }, slot));
}

/** Each engine's tally in the order of `engines`, each followed by its second runs' if any. */
function tallies(engines) {
  const out = [];
  for (const e of engines.filter((x) => firstRuns.has(x))) {
    const r = firstRuns.get(e);
    const a = againRuns.get(e);
    out.push(r);
    if (!a) continue;
    out.push(a);
    if (r.failedFiles.length === r.crashedFiles.length && a.code === 0 && a.fail === 0 && a.cancelled === 0) r.excused = true;
  }
  return out;
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
 * Whether a test file times the page's main-thread tasks: it measures their CPU from a trace
 * (mainThreadTaskCpu) or reads long-task entries, against GUARD_TASK_MS. In Chromium, the one
 * engine that records both, such a file runs alone.
 * @param {string} file
 */
const timesTasks = (file) => /\b(mainThreadTaskCpu|GUARD_TASK_MS|longtask)\b/.test(readFileSync(file, 'utf8'));
/**
 * Chromium's files whose long run trains on every core (own text: a team of two Workers, to its
 * verdict). Alone it keeps both cores busy anyway; beside another file its one test ran past
 * SILENT_MS (147 s and over 150 s in two CI runs, 106 s alone), and was ended as hung.
 */
const EVERY_CORE = ['own-text.test.mjs'];
/** Whether a file runs alone in Chromium. @param {string} file */
const aloneInChromium = (file) => timesTasks(file) || EVERY_CORE.includes(basename(file));

const oneAtATime = process.env.HEADWISE_ONE_ENGINE_AT_A_TIME === '1';
const jobsOf = (engine) => files.map((file) => ({ engine, file }));
if (oneAtATime) {
  for (const name of wanted) {
    console.log(`\n# ==== ${name} ====`);
    await runQueue(jobsOf(name), 1, true);
  }
} else {
  const alone = wanted.includes('chromium') ? files.filter(aloneInChromium).map((file) => ({ engine: 'chromium', file })) : [];
  const shared = wanted.flatMap(jobsOf).filter((j) => !alone.some((a) => a.engine === j.engine && a.file === j.file));
  if (alone.length) {
    console.log('\n# ==== chromium: the files that time main-thread tasks or train on every core, alone, one at a time ====');
    await runQueue(alone, 1, true);
  }
  const typical = (job) => TYPICAL_SECONDS[job.engine]?.[basename(job.file)] ?? 30;
  const jobs = shared.sort((a, b) => typical(b) - typical(a));
  const engines = wanted.filter((e) => jobs.some((j) => j.engine === e));
  const names = engines.length > 1 ? `${engines.slice(0, -1).join(', ')} and ${engines[engines.length - 1]}` : engines.join('');
  console.log(`\n# ==== ${names}: two files at a time from one queue, the longest first (each file printed once it has ended) ====`);
  const started = Date.now();
  await runQueue(jobs, 2, false);
  console.log(`\n# ${names}: ${Math.round((Date.now() - started) / 1000)} s from the first file's start to the last one's end`);
}
const results = tallies(wanted);
console.log('\n# engine     tests  pass  fail  skipped  cancelled  seconds (its files\' times, added)');
for (const r of results) {
  console.log(`# ${r.name.padEnd(9)} ${String(r.tests).padStart(6)} ${String(r.pass).padStart(5)} ${String(r.fail).padStart(5)} ${String(r.skipped).padStart(8)} ${String(r.cancelled).padStart(10)} ${String(r.seconds).padStart(8)}`);
}
for (const r of results) for (const s of r.skips) console.log(`# skipped in ${r.name}: ${s}`);
for (const r of results) {
  // Named by file: a file that hung printed no count of its tests.
  if (r.excused) console.log(`# ${r.name}: the browser went away (or the file hung) during ${r.crashedFiles.map((f) => basename(f)).join(', ')}; run again in a new browser, passed`);
}
// Last, where the tail of a long log shows it: which files failed, and how (a file can fail with
// no failing test: it hung, exited non-zero, or left files in its temporary directory).
for (const r of results) {
  for (const f of r.fileRuns.filter((x) => x.code !== 0 || x.fail > 0 || x.cancelled > 0)) {
    const how = [f.hung && 'hung', f.left.length && `left ${f.left.join(', ')}`, f.signal ? `ended by ${f.signal}` : `exit ${f.code}`, `${f.fail} failed`, `${f.cancelled} cancelled`].filter(Boolean).join(', ');
    console.log(`# ${r.name}: ${basename(f.file)} failed (${how})${r.excused ? ', excused: run again, passed' : ''}`);
  }
}
process.exit(results.some((r) => !r.excused && (r.code !== 0 || r.fail > 0 || r.cancelled > 0)) ? 1 : 0);
