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

/** Run node --test for one engine; echo its output; count what the TAP summary says. */
function runEngine(name) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=tap', ...files], {
      env: { ...process.env, HEADWISE_BROWSER: name },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.on('exit', (code) => {
      const count = (k) => Number((out.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1] || 0);
      const skips = [...out.matchAll(/^\s*ok \d+ - (.*?) # SKIP (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
      resolve({
        name, code, tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'),
        cancelled: count('cancelled'), todo: count('todo'), skips, seconds: Math.round((Date.now() - started) / 1000),
      });
    });
  });
}

const results = [];
for (const name of wanted) {
  console.log(`\n# ==== ${name} ====`);
  results.push(await runEngine(name));
}
console.log('\n# engine     tests  pass  fail  skipped  cancelled  seconds');
for (const r of results) {
  console.log(`# ${r.name.padEnd(9)} ${String(r.tests).padStart(6)} ${String(r.pass).padStart(5)} ${String(r.fail).padStart(5)} ${String(r.skipped).padStart(8)} ${String(r.cancelled).padStart(10)} ${String(r.seconds).padStart(8)}`);
}
for (const r of results) for (const s of r.skips) console.log(`# skipped in ${r.name}: ${s}`);
process.exit(results.some((r) => r.code !== 0 || r.fail > 0 || r.cancelled > 0) ? 1 : 0);
