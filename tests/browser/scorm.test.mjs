// The SCORM packages under a real SCORM run-time: scorm-again (npm), the LMS side that several
// platforms use, loaded into a course page that sets window.API (1.2) or window.API_1484_11
// (2004) and opens the unzipped package's launch page in an iframe of the same origin, as an LMS
// does. For each version: the score counts first answers only, the status follows the mastery
// score, every answer is an interaction, the work comes back on resume, and a run-time that
// fails leaves the lesson working with one notice. The package is unzipped by Python's zipfile
// (not by the project's own code) and must hold every file the page asks for, the language file of
// the page in Spanish included.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scratchDir } from './engine.mjs';
import { DIST, ROOT, serveDist, shareBrowser } from './helpers.mjs';
import { t } from '../../web/src/shared/i18n/i18n.js';

const RUNTIME = join(ROOT, 'node_modules', 'scorm-again', 'dist');

/**
 * The course page's script: the run-time, configured from the page's hash (JSON), with every API
 * call recorded and, where asked, made to fail.
 *   {version: '1.2'|'2004', cmi: {flattened CMI values loaded before launch},
 *    fail: {method, mode: 'throw'|'false', code}}
 */
const HOST_JS = `
const cfg = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const v12 = cfg.version === '1.2';
const api = v12 ? new Scorm12API({ logLevel: 5 }) : new Scorm2004API({ logLevel: 5 });
if (cfg.cmi) api.loadFromFlattenedJSON(cfg.cmi);
window.calls = [];
let failing = '';
for (const m of v12 ? ['LMSInitialize', 'LMSFinish', 'LMSGetValue', 'LMSSetValue', 'LMSCommit', 'LMSGetLastError']
  : ['Initialize', 'Terminate', 'GetValue', 'SetValue', 'Commit', 'GetLastError']) {
  const real = api[m].bind(api);
  api[m] = (...args) => {
    if (/GetLastError$/.test(m) && failing) return failing;
    if (cfg.fail && cfg.fail.method === m) {
      window.calls.push([m, ...args, 'failed']);
      if (cfg.fail.mode === 'throw') throw new Error('the LMS cannot be reached');
      failing = cfg.fail.code;
      return 'false';
    }
    failing = '';
    const r = real(...args);
    if (!/Get/.test(m)) window.calls.push([m, ...args, r]);
    return r;
  };
}
if (v12) window.API = api; else window.API_1484_11 = api;
window.cmi = () => JSON.parse(JSON.stringify(api.cmi));
const frame = document.createElement('iframe');
frame.id = 'sco';
frame.title = 'Lesson';
frame.width = '1000';
frame.height = '700';
frame.src = 'index.html';
document.body.appendChild(frame);
window.leave = () => { frame.src = 'about:blank'; };
`;

const HOST_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title>
<script src="/runtime.js"></script></head><body><h1>Week 8</h1><script src="/host.js"></script></body></html>`;

/** Each question's right option (the quiz in web/src/lesson/hw-quiz.js). */
const RIGHT = [1, 2, 2, 1, 2];
const WRONG = [0, 0, 0, 0, 0];
const LETTER = 'abcd';

let browser;
const packages = {};

before(async () => {
  for (const [version, file, runtime] of [['1.2', 'headwise-scorm12.zip', 'scorm12.min.js'], ['2004', 'headwise-scorm2004.zip', 'scorm2004.min.js']]) {
    const scratch = scratchDir(`headwise-scorm${version}-`);
    execFileSync('/usr/bin/python3', ['-m', 'zipfile', '-e', join(DIST, file), scratch.dir]);
    const server = await serveDist({
      dir: scratch.dir,
      pages: {
        '/course.html': { type: 'text/html; charset=utf-8', body: HOST_HTML },
        '/host.js': { type: 'text/javascript', body: HOST_JS },
        '/runtime.js': { type: 'text/javascript', body: readFileSync(join(RUNTIME, runtime), 'utf8') },
      },
    });
    packages[version] = { scratch, server };
  }
}, { timeout: 120000 });
shareBrowser((b) => { browser = b; }, null);

after(async () => {
  for (const p of Object.values(packages)) {
    await p.server.close();
    p.scratch.remove();
  }
});

/**
 * Open the course page with the run-time configured; wait for the lesson's quiz.
 * @returns {Promise<{page: any, frame: any, context: any, server: any}>}
 */
async function openCourse(version, cfg = {}) {
  const { server } = packages[version];
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.url('/course.html')}#${encodeURIComponent(JSON.stringify({ version, ...cfg }))}`);
  const frame = page.frame('#sco');
  await frame.waitForSelector('hw-quiz[data-ready] input[type=radio]', { state: 'attached', timeout: 30000 });
  await frame.waitForSelector('hw-head-weights[data-ready]', { state: 'attached', timeout: 30000 });
  return { page, frame, context, server };
}

/** Choose option `oi` of question `q` (1–5) as the student does (a click on the radio). */
async function answer(frame, q, oi) {
  await frame.evaluate(([qq, o]) => document.getElementById(`q${qq}-o${o}`).click(), [q, oi]);
}

/** The run-time's data model, as the LMS would store it. */
const cmiOf = (page) => page.evaluate(() => window.cmi());
const callsOf = (page) => page.evaluate(() => window.calls);

/** Leave the lesson (the iframe navigates away) and wait for LMSFinish / Terminate. */
async function leave(page, version) {
  await page.evaluate(() => window.leave());
  const finish = version === '1.2' ? 'LMSFinish' : 'Terminate';
  await page.waitForFunction((f) => window.calls.some((c) => c[0] === f), finish, { timeout: 10000 });
}

/** The interaction records (an object indexed 0, 1, … in scorm-again's JSON) as an array. */
function interactionsOf(cmi) {
  const list = cmi.interactions && (cmi.interactions.childArray || cmi.interactions);
  return Object.keys(list).filter((k) => /^\d+$/.test(k)).sort((a, b) => a - b).map((k) => list[k]);
}

const MASTERY = { '1.2': { 'cmi.student_data.mastery_score': '80' }, 2004: { 'cmi.scaled_passing_score': '0.8' } };

for (const version of ['1.2', '2004']) {
  const v12 = version === '1.2';
  const status = (cmi) => (v12 ? cmi.core.lesson_status : `${cmi.completion_status}/${cmi.success_status}`);
  const score = (cmi) => (v12 ? cmi.core.score : cmi.score);

  describe(`SCORM ${version}`, () => {
    test('the first answers are the score; every answer is an interaction; passed or failed once all are in', async () => {
      const { page, frame, context, server } = await openCourse(version, { cmi: MASTERY[version] });
      try {
        // Three of five right at first (1, 3, 5), then the other two corrected.
        const firsts = [RIGHT[0], WRONG[1], RIGHT[2], WRONG[3]];
        for (const [i, oi] of firsts.entries()) await answer(frame, i + 1, oi);
        let cmi = await cmiOf(page);
        assert.equal(status(cmi), v12 ? 'incomplete' : 'incomplete/unknown', 'four of five answered');
        assert.equal(score(cmi).raw, '', 'no score before the quiz is finished');
        await answer(frame, 5, RIGHT[4]);
        cmi = await cmiOf(page);
        assert.equal(score(cmi).raw, '60');
        assert.equal(status(cmi), v12 ? 'failed' : 'completed/failed');
        await answer(frame, 2, RIGHT[1]);
        await answer(frame, 4, RIGHT[3]);
        cmi = await cmiOf(page);
        assert.equal(score(cmi).raw, '60', 'corrections do not raise the score');
        assert.equal(status(cmi), v12 ? 'failed' : 'completed/failed');
        assert.match(await frame.locator('[data-testid="quiz-score"]').textContent(), /^5 of 5 correct so far/, 'the page itself shows the current answers, as it always has');
        if (!v12) {
          assert.equal(cmi.score.scaled, '0.6');
          assert.equal(cmi.score.min, '0');
          assert.equal(cmi.score.max, '100');
        } else {
          assert.equal(cmi.core.score.min, '0');
          assert.equal(cmi.core.score.max, '100');
        }
        const records = interactionsOf(cmi);
        const order = [[1, RIGHT[0]], [2, WRONG[1]], [3, RIGHT[2]], [4, WRONG[3]], [5, RIGHT[4]], [2, RIGHT[1]], [4, RIGHT[3]]];
        assert.equal(records.length, order.length, 'one record per answer');
        records.forEach((r, n) => {
          const [q, oi] = order[n];
          assert.equal(r.id, `q${q}`);
          assert.equal(r.type, 'choice');
          assert.equal(v12 ? r.student_response : r.learner_response, LETTER[oi]);
          const pattern = Object.values(r.correct_responses.childArray || r.correct_responses).find((c) => c && c.pattern)?.pattern;
          assert.equal(pattern, LETTER[RIGHT[q - 1]]);
          assert.equal(r.result, oi === RIGHT[q - 1] ? 'correct' : v12 ? 'wrong' : 'incorrect');
          if (v12) assert.match(r.time, /^\d\d:\d\d:\d\d$/);
          else {
            assert.match(r.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\dZ$/);
            assert.ok(Math.abs(Date.parse(r.timestamp) - Date.now()) < 10 * 60000, r.timestamp);
            assert.ok(r.description.length > 10, 'the question is described');
          }
        });
        // Every change was committed.
        const calls = await callsOf(page);
        const commits = calls.filter((c) => /Commit$/.test(c[0])).length;
        assert.ok(commits >= 7, `${commits} commits for 7 answers`);
        await leave(page, version);
        cmi = await cmiOf(page);
        assert.equal(v12 ? cmi.core.exit : cmi.exit, v12 ? '' : 'normal', 'a finished quiz ends the attempt');
        const sessionTime = (await callsOf(page)).find((c) => /SetValue$/.test(c[0]) && /session_time$/.test(c[1]));
        assert.ok(sessionTime, 'the session time is given');
        assert.match(sessionTime[2], v12 ? /^\d{4}:\d\d:\d\d\.\d\d$/ : /^PT\d+H\d+M[\d.]+S$/);
        assert.equal(sessionTime[3], 'true', 'and taken');
        assert.deepEqual(server.failed, [], 'every file the page asked for is in the package');
        const sd = JSON.parse(cmi.suspend_data);
        assert.deepEqual({ f: sd.f, a: sd.a }, { f: 'BaCaC', a: 'bccbc' }, 'first answers (upper case: right) and latest ones');
      } finally {
        await context.close();
      }
    });

    test('the work comes back when the student resumes the attempt', async () => {
      let suspended;
      {
        const { page, frame, context } = await openCourse(version, { cmi: MASTERY[version] });
        try {
          await answer(frame, 1, WRONG[0]);
          await frame.fill('#challenge-answer', 'One softmax must serve every relation at once: "previous" and "first" compete.');
          await frame.fill('#seed', '11');
          await leave(page, version);
          const cmi = await cmiOf(page);
          assert.equal(v12 ? cmi.core.exit : cmi.exit, 'suspend', 'an unfinished quiz suspends the attempt');
          assert.equal(status(cmi), v12 ? 'incomplete' : 'incomplete/unknown');
          suspended = cmi.suspend_data;
          const sd = JSON.parse(suspended);
          assert.equal(sd.f, 'a----');
          assert.equal(sd.s, 'seed=11');
          assert.match(sd.c, /^One softmax must serve/);
          assert.ok(suspended.length < 200, `suspend_data is ${suspended.length} characters`);
        } finally {
          await context.close();
        }
      }
      const entry = v12 ? { 'cmi.core.entry': 'resume' } : { 'cmi.entry': 'resume' };
      const { page, frame, context } = await openCourse(version, { cmi: { ...MASTERY[version], ...entry, 'cmi.suspend_data': suspended } });
      try {
        assert.equal(await frame.locator('#q1-o0').isChecked(), true, 'the quiz answer is back');
        assert.match(await frame.locator('[data-testid="quiz-feedback"][data-question="1"]').textContent(), /^Not quite/);
        assert.match(await frame.locator('#challenge-answer').inputValue(), /^One softmax must serve every relation at once: "previous"/);
        assert.match(await frame.locator('#challenge-hint').textContent(), /course platform keeps it/);
        await frame.waitForFunction(() => document.getElementById('seed').value === '11');
        // Answering everything right now: question 1's first answer was wrong, so 80, which passes.
        for (let q = 1; q <= 5; q += 1) await answer(frame, q, RIGHT[q - 1]);
        const cmi = await cmiOf(page);
        assert.equal(score(cmi).raw, '80');
        assert.equal(status(cmi), v12 ? 'passed' : 'completed/passed');
        assert.equal(await frame.locator('[data-testid="course-notice"]').count(), 0, 'nothing went wrong');
      } finally {
        await context.close();
      }
    });

    test('a run-time that fails leaves the lesson working and says so once', async () => {
      const fail = v12 ? { method: 'LMSCommit', mode: 'false', code: '101' } : { method: 'SetValue', mode: 'throw' };
      const { page, frame, context } = await openCourse(version, { cmi: MASTERY[version], fail });
      try {
        await answer(frame, 1, RIGHT[0]);
        await answer(frame, 2, WRONG[1]);
        await frame.fill('#seed', '3');
        const notice = frame.locator('[data-testid="course-notice"]');
        await notice.waitFor({ state: 'visible' });
        const text = await notice.textContent();
        assert.match(text, /could not be saved in the course platform/);
        assert.match(text, v12 ? /LMSCommit\(""\): error 101/ : /SetValue\(.*\): it threw the LMS cannot be reached/);
        assert.match(text, /The lesson keeps working/);
        assert.equal(await notice.count(), 1, 'said once');
        // The lesson goes on: feedback, and the new seed's numbers.
        assert.match(await frame.locator('[data-testid="quiz-feedback"][data-question="2"]').textContent(), /^Not quite/);
        await frame.waitForFunction(() => document.querySelector('hw-head-weights[data-ready]') && !document.querySelector('hw-head-weights[data-stale]'));
        await frame.locator('[data-testid="course-notice"] button').click();
        assert.equal(await notice.count(), 0, 'the notice can be closed');
        await answer(frame, 3, RIGHT[2]);
        assert.equal(await notice.count(), 0, 'and it does not come back');
        await page.harvest();
        assert.deepEqual(page.log.pageErrors, [], 'no uncaught error');
      } finally {
        await context.close();
      }
    });
  });
}

test('with no LMS around it, the packaged page is the lesson as always, in Spanish too (its language\'s file from the package)', async () => {
  const { server } = packages['1.2'];
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  try {
    await page.goto(server.url('/index.html'));
    await page.waitForSelector('hw-quiz[data-ready] input[type=radio]', { state: 'attached', timeout: 30000 });
    await page.evaluate(() => document.getElementById('q1-o1').click());
    assert.match(await page.locator('[data-testid="quiz-feedback"][data-question="1"]').textContent(), /^Correct/);
    assert.equal(await page.locator('[data-testid="course-notice"]').count(), 0);
    assert.match(await page.locator('#challenge-hint').textContent(), /stays in this browser only/);
    await page.goto('about:blank');
    await page.goto(server.url('/index.html#lang=es'));
    await page.waitForSelector('hw-quiz[data-ready] input[type=radio]', { state: 'attached', timeout: 30000 });
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'es');
    assert.equal(await page.locator('#why-title').textContent(), t('why.title', {}, 'es'));
    assert.equal(await page.locator('hw-quiz button[aria-controls]').first().textContent(), t('quiz.show', {}, 'es'));
    await page.harvest();
    page.log.assertClean(server.origin);
  } finally {
    await context.close();
  }
});
