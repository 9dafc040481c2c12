// Runs the browser tests in each engine: Chromium first, alone (its tests read CPU time from
// traces), then Firefox ESR and WebKitGTK at the same time (in a whole local run the two took
// 623 s side by side, against 713 to 832 s one after the other; a file keeps 1.3 to 1.8 of the
// 2 cores busy, so running more at once only slows each file). HEADWISE_BROWSERS lists the engines (e.g. HEADWISE_BROWSERS=firefox,webkit);
// HEADWISE_ONE_ENGINE_AT_A_TIME=1 runs them one after another.
// Arguments, if any, are the test files to run (default: every tests/browser/*.test.mjs).
// Prints each file's run as node --test does (whole, once it has ended, where two engines run at
// once), then a table: tests, passed, failed, skipped (with the reasons) and the time per
// engine. Exits non-zero if any engine failed.
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
      console.log(`# ${name}: ${file.split('/').pop()} took ${Math.round((Date.now() - started) / 1000)} s`);
      const count = (k) => Number((out.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1] || 0);
      resolve({
        file, code: hung ? code || 1 : code, hung, out,
        tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'),
        cancelled: count('cancelled'), todo: count('todo'),
        skips: [...out.matchAll(/^\s*ok \d+ - (.*?) # SKIP (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`),
      });
    });
  });
}

/** What a test file's output says when its browser, not a test, failed (see runEngine). */
const wentAway = /NoSuchSessionError|^# (?:\\# )?webkit: .*(?:exited|lost its WebDriver session)/m;

/**
 * Run the test files for one engine, one file (one node --test process) after another.
 * @param {string} name
 * @param {boolean} live  see runFile
 * @param {string[]} [only]  these test files instead of all
 */
async function runEngine(name, live, only = files) {
  const started = Date.now();
  const r = { name, code: 0, failedFiles: [], crashedFiles: [], tests: 0, pass: 0, fail: 0, skipped: 0, cancelled: 0, todo: 0, skips: [] };
  for (const file of only) {
    const f = await runFile(name, file, live);
    for (const k of ['tests', 'pass', 'fail', 'skipped', 'cancelled', 'todo']) r[k] += f[k];
    r.skips.push(...f.skips);
    if (f.code !== 0 || f.fail > 0 || f.cancelled > 0) {
      r.code = r.code || f.code || 1;
      r.failedFiles.push(file);
      // The browser itself went away (its driver or session lost, engine.mjs, or the file hung)
      // rather than a test finding a fault. engine.mjs says so on the test file's stdout, which
      // node --test's TAP prints as a comment with its '#' escaped: "# \# webkit: ...".
      if (f.hung || wentAway.test(f.out)) r.crashedFiles.push(file);
    }
  }
  r.seconds = Math.round((Date.now() - started) / 1000);
  return r;
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
 * One engine's run, and where the browser went away under a test file (WebKitGTK's driver has,
 * rarely), that file once more in a new browser; it must pass whole. Both runs are reported. A
 * file that failed with its browser still there is a failure, whatever else happened.
 * @param {string} name
 * @param {boolean} live
 */
async function runWithRetry(name, live) {
  if (live) console.log(`\n# ==== ${name} ====`);
  const r = await runEngine(name, live);
  const out = [r];
  if (r.crashedFiles.length > 0) {
    console.log(`\n# ==== ${name}: the browser went away during ${r.crashedFiles.map((f) => f.split('/').pop()).join(', ')}; once more ====`);
    const again = await runEngine(name, live, r.crashedFiles);
    again.name = `${name} (again)`;
    out.push(again);
    if (r.failedFiles.length === r.crashedFiles.length && again.code === 0 && again.fail === 0 && again.cancelled === 0) r.excused = true;
  }
  return out;
}

const oneAtATime = process.env.HEADWISE_ONE_ENGINE_AT_A_TIME === '1';
const results = [];
if (wanted.includes('chromium')) results.push(...await runWithRetry('chromium', true));
const rest = wanted.filter((e) => e !== 'chromium');
if (oneAtATime || rest.length < 2) {
  for (const name of rest) results.push(...await runWithRetry(name, true));
} else {
  console.log(`\n# ==== ${rest.join(' and ')}, at the same time (each file printed once it has ended) ====`);
  for (const r of await Promise.all(rest.map((name) => runWithRetry(name, false)))) results.push(...r);
}
console.log('\n# engine     tests  pass  fail  skipped  cancelled  seconds');
for (const r of results) {
  console.log(`# ${r.name.padEnd(9)} ${String(r.tests).padStart(6)} ${String(r.pass).padStart(5)} ${String(r.fail).padStart(5)} ${String(r.skipped).padStart(8)} ${String(r.cancelled).padStart(10)} ${String(r.seconds).padStart(8)}`);
}
for (const r of results) for (const s of r.skips) console.log(`# skipped in ${r.name}: ${s}`);
for (const r of results) {
  if (r.excused) console.log(`# ${r.name}: ${r.fail} failed where the browser went away; the files re-ran and passed`);
}
process.exit(results.some((r) => !r.excused && (r.code !== 0 || r.fail > 0 || r.cancelled > 0)) ? 1 : 0);
