// Runs the browser tests once per engine, one engine after another: Chromium, Firefox ESR,
// WebKitGTK (or those listed in HEADWISE_BROWSERS, e.g. HEADWISE_BROWSERS=firefox,webkit).
// Arguments, if any, are the test files to run (default: every tests/browser/*.test.mjs).
// Prints each engine's run as node --test does, then a table: tests, passed, failed, skipped
// (with the reasons) and the time per engine. Exits non-zero if any engine failed.
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

/** The longest an engine's run may print nothing (its slowest test takes about 3 minutes). */
const SILENT_MS = 10 * 60 * 1000;

/**
 * Run node --test for one engine; echo its output; count what the TAP summary says.
 * @param {string} name
 * @param {string[]} [only]  these test files instead of all
 */
function runEngine(name, only = files) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=tap', ...only], {
      env: { ...process.env, HEADWISE_BROWSER: name },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    // A run that prints nothing for SILENT_MS has hung (a browser that stopped answering): it is
    // ended and counted as failed, instead of holding CI until its own time runs out.
    let silent = null;
    const quiet = () => {
      clearTimeout(silent);
      silent = setTimeout(() => {
        console.log(`\n# ${name}: no output for ${SILENT_MS / 60000} minutes: ended as hung`);
        hung = true;
        child.kill('SIGKILL');
      }, SILENT_MS);
    };
    let hung = false;
    quiet();
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); quiet(); });
    child.on('exit', (code) => {
      clearTimeout(silent);
      if (hung) code = code || 1;
      const count = (k) => Number((out.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1] || 0);
      const skips = [...out.matchAll(/^\s*ok \d+ - (.*?) # SKIP (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
      // The files of the failed tests, and whether the browser itself went away (its driver or
      // session lost, engine.mjs, or the run hung) rather than a test finding a fault.
      const failedFiles = [...new Set([...out.matchAll(/not ok \d+ - [^\n]*\n(?:[^\n]*\n){0,8}?\s*location: '([^']+?\.test\.mjs):\d+/g)].map((m) => m[1]))];
      const crashed = hung || /NoSuchSessionError|^# webkit: .*(?:exited|lost its WebDriver session)/m.test(out);
      resolve({
        name, code, failedFiles, crashed, tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'),
        cancelled: count('cancelled'), todo: count('todo'), skips, seconds: Math.round((Date.now() - started) / 1000),
      });
    });
  });
}

const results = [];
for (const name of wanted) {
  console.log(`\n# ==== ${name} ====`);
  const r = await runEngine(name);
  results.push(r);
  // Where the browser went away under a test (WebKitGTK's driver has, rarely), the files with
  // failures run once more in a new browser; they must pass whole. Both runs are reported.
  if (r.crashed && r.failedFiles.length > 0) {
    console.log(`\n# ==== ${name}: the browser went away during the run; once more: ${r.failedFiles.map((f) => f.split('/').pop()).join(', ')} ====`);
    const again = await runEngine(name, r.failedFiles);
    again.name = `${name} (again)`;
    results.push(again);
    if (!again.crashed && again.code === 0 && again.fail === 0 && again.cancelled === 0) r.excused = true;
  }
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
