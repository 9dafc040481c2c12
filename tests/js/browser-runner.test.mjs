// tests/browser/run.mjs, the browser suite's runner, on stand-in test files that start no
// browser: Chromium's files that time main-thread tasks or train on every core run first, alone;
// every other file of every engine shares one queue, two at a time; a file whose browser went
// away runs once more and must pass whole; a test that fails with its browser still there fails
// the run, whatever else happened; a file that leaves anything in its temporary directory fails.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), '..', 'browser', 'run.mjs');
const dir = mkdtempSync(join(tmpdir(), 'headwise-runner-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A stand-in test file. It logs its engine, start, end and temporary directory to `log`, takes
 * `ms`, and then, per `behaviour`: passes; fails a test; in Firefox, leaves a file in its
 * temporary directory and passes; or, in WebKit, says its browser went away (as engine.mjs does)
 * and fails, the first time only or every time. `extra`: a first line of source (a comment).
 */
function standIn(name, behaviour, ms = 300, extra = '') {
  const file = join(dir, name);
  writeFileSync(file, `${extra}
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
const engine = process.env.HEADWISE_BROWSER;
const log = ${JSON.stringify(join(dir, 'log'))};
const marker = ${JSON.stringify(`${file}.ran`)} + '.' + engine;
test(${JSON.stringify(name)}, async () => {
  appendFileSync(log, JSON.stringify({ file: ${JSON.stringify(name)}, engine, at: Date.now(), edge: 'start', tmp: tmpdir() }) + '\\n');
  await new Promise((r) => setTimeout(r, ${ms}));
  appendFileSync(log, JSON.stringify({ file: ${JSON.stringify(name)}, engine, at: Date.now(), edge: 'end' }) + '\\n');
  const behaviour = ${JSON.stringify(behaviour)};
  const first = !existsSync(marker);
  writeFileSync(marker, '');
  if (behaviour === 'fail' && engine === 'firefox') throw new Error('a real fault');
  if (behaviour === 'litter' && engine === 'firefox') writeFileSync(join(tmpdir(), 'profile-left-behind'), '');
  if (engine === 'webkit' && (behaviour === 'crash always' || (behaviour === 'crash once' && first))) {
    console.log('# webkit: MiniBrowser lost its WebDriver session; a new WebKitWebDriver and MiniBrowser are started for the next test.');
    throw new Error('NoSuchSessionError');
  }
});
`);
  return file;
}

/** Run the runner on these files; its exit code, output, and the files' logged runs. */
function run(files, env = {}) {
  rmSync(join(dir, 'log'), { force: true });
  for (const f of files) for (const e of ['chromium', 'firefox', 'webkit']) rmSync(`${f}.ran.${e}`, { force: true });
  // Without NODE_TEST_CONTEXT, which node --test sets in this process: the runner's own
  // node --test processes would otherwise report to this one's runner instead of printing.
  const { NODE_TEST_CONTEXT, ...outer } = process.env;
  // The runner's own temporary directory, to see that it leaves nothing there either.
  const tmp = join(dir, 'tmp');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  const r = spawnSync(process.execPath, [RUNNER, ...files], {
    encoding: 'utf8', env: { ...outer, HEADWISE_BROWSERS: 'firefox,webkit', HEADWISE_ONE_ENGINE_AT_A_TIME: '', TMPDIR: tmp, ...env },
  });
  assert.deepEqual(readdirSync(tmp), [], 'the runner removes every file\'s temporary directory');
  let lines = [];
  try {
    lines = readFileSync(join(dir, 'log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  } catch {
    // no file ran
  }
  return { code: r.status, out: r.stdout + r.stderr, lines };
}

/** The most files running at one time, from the logged starts and ends. */
function mostAtOnce(lines) {
  let now = 0;
  let most = 0;
  for (const l of [...lines].sort((a, b) => a.at - b.at || (a.edge === 'end' ? -1 : 1))) {
    now += l.edge === 'start' ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}

const row = (out, name) => out.split('\n').find((l) => new RegExp(`^# ${name.replace(/[()]/g, '\\$&')} +\\d`).test(l));

test('every file runs once in each engine, two at a time from one queue, the longest first', () => {
  // Named as the suite's files, so that the runner's table of typical times applies: both
  // engines' a11y are the longest, their compute the shortest; an unlisted file counts as 30 s.
  const files = ['compute.test.mjs', 'unlisted.test.mjs', 'hosts.test.mjs', 'a11y.test.mjs'].map((n) => standIn(n, 'pass', 300));
  const { code, out, lines } = run(files);
  assert.equal(code, 0, out);
  const starts = lines.filter((l) => l.edge === 'start').map((l) => `${l.engine}:${l.file}`);
  assert.deepEqual([...starts].sort(), ['firefox', 'webkit'].flatMap((e) => ['a11y', 'compute', 'hosts', 'unlisted'].map((n) => `${e}:${n}.test.mjs`)));
  assert.equal(mostAtOnce(lines), 2, 'two files run at once, never more');
  // Two start together, so each pair's order is the processes' race; the pairs' is the queue's.
  assert.deepEqual(starts.slice(0, 2).sort(), ['firefox:a11y.test.mjs', 'webkit:a11y.test.mjs']);
  assert.deepEqual(starts.slice(-2).sort(), ['firefox:compute.test.mjs', 'webkit:compute.test.mjs']);
  assert.match(row(out, 'firefox'), /^# firefox +4 +4 +0 +0 +0/);
  assert.match(row(out, 'webkit'), /^# webkit +4 +4 +0 +0 +0/);
  assert.match(out, /firefox and webkit: \d+ s from the first file's start to the last one's end/);
  const tmps = lines.filter((l) => l.edge === 'start').map((l) => l.tmp);
  assert.equal(new Set(tmps).size, 8, 'each file\'s process has a temporary directory of its own');
  for (const t of tmps) assert.ok(t.startsWith(join(dir, 'tmp')), t);
});

test('Chromium: the files that time main-thread tasks or train on every core first, alone; its others share the queue with the other engines', () => {
  // timed.test.mjs names mainThreadTaskCpu (in a comment is enough: the runner reads the source).
  const timed = standIn('timed.test.mjs', 'pass', 400, '// measured with mainThreadTaskCpu against GUARD_TASK_MS');
  // own-text.test.mjs trains on every core: it too runs alone in Chromium.
  const plain = ['a11y.test.mjs', 'compute.test.mjs', 'own-text.test.mjs'].map((n) => standIn(n, 'pass', 400));
  const { code, out, lines } = run([timed, ...plain], { HEADWISE_BROWSERS: 'chromium,firefox,webkit' });
  assert.equal(code, 0, out);
  const starts = lines.filter((l) => l.edge === 'start');
  assert.equal(starts.length, 12, 'every file once in each engine');
  // Chromium's two files run first, one after the other, and nothing runs while they do.
  const alone = (/** @type {any} */ l) => l.engine === 'chromium' && ['timed.test.mjs', 'own-text.test.mjs'].includes(l.file);
  assert.deepEqual(starts.slice(0, 2).map((l) => `${l.engine}:${l.file}`).sort(), ['chromium:own-text.test.mjs', 'chromium:timed.test.mjs']);
  assert.equal(mostAtOnce(lines.filter(alone)), 1);
  const end = Math.max(...lines.filter((l) => l.edge === 'end' && alone(l)).map((l) => l.at));
  assert.ok(starts.slice(2).every((l) => l.at >= end), 'no file starts before Chromium\'s two have ended');
  // The other engines' files and Chromium's others are in the one queue: two at a time.
  assert.equal(mostAtOnce(lines.filter((l) => !alone(l))), 2);
  assert.match(out, /# ==== chromium: the files that time main-thread tasks or train on every core, alone, one at a time ====/);
  assert.match(out, /# ==== chromium, firefox and webkit: two files at a time from one queue/);
  // One row per engine, its files from both queues counted together.
  assert.match(row(out, 'chromium'), /^# chromium +4 +4 +0 +0 +0/);
  assert.equal(out.split('\n').filter((l) => /^# chromium +\d/.test(l)).length, 1, 'one row for Chromium');
  assert.match(row(out, 'webkit'), /^# webkit +4 +4 +0 +0 +0/);
});

test('a file that leaves anything in its temporary directory fails the run, and it is removed', () => {
  const files = [standIn('litter.test.mjs', 'litter', 100), standIn('tidy.test.mjs', 'pass', 100)];
  const { code, out } = run(files);
  assert.equal(code, 1, out);
  assert.match(out, /^# firefox: litter\.test\.mjs left profile-left-behind in its temporary directory: failed \(removed now\)$/m);
  assert.doesNotMatch(out, /webkit: litter\.test\.mjs left|tidy\.test\.mjs left/);
  // Its tests passed; the file is what failed, and it is not run again.
  assert.match(row(out, 'firefox'), /^# firefox +2 +2 +0 /);
  assert.doesNotMatch(out, /once more, next/);
});

test('HEADWISE_ONE_ENGINE_AT_A_TIME=1: one file at a time, Firefox\'s before WebKit\'s', () => {
  const files = ['a.test.mjs', 'b.test.mjs'].map((n) => standIn(n, 'pass', 200));
  const { code, out, lines } = run(files, { HEADWISE_ONE_ENGINE_AT_A_TIME: '1' });
  assert.equal(code, 0, out);
  assert.equal(mostAtOnce(lines), 1);
  assert.deepEqual(lines.filter((l) => l.edge === 'start').map((l) => l.engine), ['firefox', 'firefox', 'webkit', 'webkit']);
});

test('a file whose browser went away runs once more, next, and passing then, the run passes', () => {
  // WebKit's crash.test.mjs is the 6th of 10 files in the queue: 4 are still waiting when it ends.
  const files = [standIn('crash.test.mjs', 'crash once', 100), ...['d', 'e', 'f', 'g'].map((n) => standIn(`${n}.test.mjs`, 'pass', 400))];
  const { code, out, lines } = run(files);
  assert.equal(code, 0, out);
  const webkitCrash = lines.filter((l) => l.edge === 'start' && l.engine === 'webkit' && l.file === 'crash.test.mjs');
  assert.equal(webkitCrash.length, 2, 'run twice in WebKit');
  // "Next": when it ends, three files are still waiting; the second run goes before them, not
  // after (a file's start is logged once its process is up, so two may swap by a few ms).
  const startedAfter = lines.filter((l) => l.edge === 'start' && l.at > webkitCrash[1].at).length;
  assert.ok(startedAfter >= 2, `the second run goes to the front of the queue (${startedAfter} files started after it)`);
  assert.match(out, /# ==== webkit: the browser went away during crash\.test\.mjs; once more, next ====/);
  assert.match(row(out, 'webkit'), /^# webkit +5 +4 +1 /);
  assert.match(row(out, 'webkit (again)'), /^# webkit \(again\) +1 +1 +0 /);
  assert.match(out, /# webkit: the browser went away \(or the file hung\) during crash\.test\.mjs; run again in a new browser, passed/);
});

test('a browser that goes away again, or a test that fails with its browser still there, fails the run', () => {
  const files = [standIn('crash-always.test.mjs', 'crash always', 100), standIn('fault.test.mjs', 'fail', 100)];
  const { code, out, lines } = run(files);
  assert.equal(code, 1, out);
  assert.match(row(out, 'webkit (again)'), /^# webkit \(again\) +1 +0 +1 /);
  assert.doesNotMatch(out, /run again in a new browser, passed/);
  // The fault is Firefox's, with its browser there: counted, and not run again.
  assert.equal(lines.filter((l) => l.edge === 'start' && l.file === 'fault.test.mjs' && l.engine === 'firefox').length, 1);
  assert.match(row(out, 'firefox'), /^# firefox +2 +1 +1 /);
  assert.doesNotMatch(out, /# ==== firefox: the browser went away/);
});

test('the runner\'s table of typical times has every browser test file, in each engine', async () => {
  const { TYPICAL_SECONDS } = await import('../browser/typical-seconds.mjs');
  const browserDir = join(dirname(RUNNER));
  const suite = readdirSync(browserDir).filter((f) => f.endsWith('.test.mjs')).sort();
  assert.ok(suite.length > 20, suite.join(', '));
  for (const engine of ['chromium', 'firefox', 'webkit']) {
    const listed = Object.keys(TYPICAL_SECONDS[engine]);
    assert.deepEqual(suite.filter((f) => !listed.includes(f)), [], `${engine}: files without a typical time`);
    assert.deepEqual(listed.filter((f) => !suite.includes(f)), [], `${engine}: times of files that are gone`);
    for (const f of listed) assert.ok(Number.isInteger(TYPICAL_SECONDS[engine][f]) && TYPICAL_SECONDS[engine][f] > 0, `${engine} ${f}`);
  }
});
