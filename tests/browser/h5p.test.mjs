// dist/headwise.h5p played as an H5P platform plays it: unzipped and run by h5p-standalone (H5P's
// own core scripts, jQuery and the iframe embed), on a page that listens on
// H5P.externalDispatcher as Moodle's H5P activity does, for a signed-in student. One page load per
// engine:
//   - player A, the package's own content (the whole lesson): the module's numbers in the head
//     tables; five quiz answers (questions 2 and 4 wrong at first, then 2 corrected) and a changed
//     seed; the xAPI statements: an "answered" per answer (a choice interaction under the
//     content, with the response and whether it was right) and one "completed" with the score of
//     the first answers (3 of 5, scaled 0.6, failed against the mastery score of 80); every
//     statement valid by xapi-validation (the xAPI 1.0.3 statement rules);
//   - getCurrentState() of A given back to player B as H5P's core reads a saved state
//     (H5PIntegration's contentUserData[0].state, as Moodle writes it):
//     B shows A's latest answers and A's seed, and reports nothing again.
// The package's validation by an H5P server is tests/js/h5p.test.mjs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DIST, ENGINE, ROOT, shareBrowser, until } from './helpers.mjs';

const require = createRequire(import.meta.url);
const validateStatement = require('xapi-validation').default;
const hw = await require(join(DIST, 'headwise.js'))();

const OUT = join(ROOT, 'build', 'h5p', ENGINE);
const PLAYER = join(ROOT, 'node_modules', 'h5p-standalone', 'dist');

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>An H5P page</title>
<script src="/player/main.bundle.js"></script></head>
<body>
<h1>Week 8</h1>
<div id="player-a"></div>
<div id="player-b"></div>
<script>
window.statements = [];
// Kept: the player takes the global name H5PStandalone for itself once it runs.
const Player = H5PStandalone.H5P;
const options = (id, extra) => ({ id, h5pJsonPath: '/pkg', frameJs: '/player/frame.bundle.js', frameCss: '/player/styles/h5p.css', ...extra });
// The signed-in student, as a platform names them in every statement (set once the player has
// started: H5P's core would otherwise fetch the student's saved state from a server).
window.signIn = () => {
  for (const w of [window, ...[...document.querySelectorAll('iframe')].map((f) => f.contentWindow)]) {
    if (w.H5PIntegration) w.H5PIntegration.user = { name: 'A student', mail: 'student@example.org' };
  }
};
window.playerA = new Player(document.getElementById('player-a'), options('a')).then(() => {
  H5P.externalDispatcher.on('xAPI', (event) => window.statements.push(JSON.parse(JSON.stringify(event.data.statement))));
});
window.startB = (state) => { new Player(document.getElementById('player-b'),
  options('b', { saveFreq: 30, contentUserData: [{ state: JSON.stringify(state) }] }));
};
</script>
</body>
</html>`;

// ---- in the page --------------------------------------------------------------------------------

/** In the page: player `id`'s lesson, drawn (its quiz and head tables ready), or null. */
function lessonDrawn(id) {
  const frame = document.querySelector(`#player-${id} iframe`);
  const doc = frame && frame.contentDocument;
  const el = doc && doc.querySelector('mha-lesson');
  const root = el && el.shadowRoot;
  return Boolean(root && root.querySelectorAll('hw-quiz fieldset').length === 5 && root.querySelector('hw-head-weights[data-ready]') &&
    !root.querySelector('hw-head-weights[data-busy]'));
}

// ---- in node ------------------------------------------------------------------------------------

let browser;
let server;

before(async () => {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(join(OUT, 'pkg'), { recursive: true });
  // Unzipped with Python's zipfile, as a platform unzips an upload.
  execFileSync('/usr/bin/python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', join(DIST, 'headwise.h5p'), join(OUT, 'pkg')]);
  await cp(PLAYER, join(OUT, 'player'), { recursive: true });
}, { timeout: 120000 });
shareBrowser((b, s) => { browser = b; server = s; }, { dir: OUT, pages: { '/page.html': { type: 'text/html; charset=utf-8', body: PAGE } } });

describe('dist/headwise.h5p in h5p-standalone', () => {
  test('the lesson plays; answers and completion become valid xAPI statements; the saved state resumes in a second player', { timeout: 300000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    try {
      await page.goto(server.url('/page.html'));
      await until(() => page.evaluate(lessonDrawn, 'a'), 'player A\'s lesson drawn', 90000);
      await page.evaluate(() => window.signIn());
      // The module ran inside H5P: head 0's weights are the module's own numbers.
      const head0 = await page.evaluate(() => {
        const root = /** @type {any} */ (document.querySelector('#player-a iframe')).contentDocument.querySelector('mha-lesson').shadowRoot;
        const out = [];
        for (const td of root.querySelectorAll('table.hw-weights[data-head="0"] td[data-row]')) (out[Number(td.dataset.row)] ||= [])[Number(td.dataset.col)] = Number(td.dataset.value);
        return out;
      });
      assert.deepEqual(head0, hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 }).headWeights[0]);

      // Answers: 1, 3, 5 right; 2 and 4 wrong; then 2 right. A changed seed.
      const answers = await page.evaluate(() => {
        const root = /** @type {any} */ (document.querySelector('#player-a iframe')).contentDocument.querySelector('mha-lesson').shadowRoot;
        const pick = (q, right) => {
          const input = root.querySelector(`fieldset[data-question="${q}"] input[data-correct="${right}"]`);
          input.click();
          return Number(input.value);
        };
        const chosen = [pick(1, true), pick(2, false), pick(3, true), pick(4, false), pick(5, true), pick(2, true)];
        const seed = root.querySelector('#seed');
        seed.value = '11';
        seed.dispatchEvent(new Event('input', { bubbles: true }));
        seed.dispatchEvent(new Event('change', { bubbles: true }));
        return chosen;
      });
      const statements = await until(async () => {
        const s = await page.evaluate(() => window.statements);
        return s.filter((x) => x.verb.id.endsWith('/answered')).length === 6 && s.some((x) => x.verb.id.endsWith('/completed')) ? s : null;
      }, 'six answered statements and one completed');
      const answered = statements.filter((x) => x.verb.id === 'http://adlnet.gov/expapi/verbs/answered');
      const completed = statements.filter((x) => x.verb.id === 'http://adlnet.gov/expapi/verbs/completed');
      assert.equal(completed.length, 1);
      const main = completed[0].object.id;
      assert.deepEqual(answered.map((x) => [x.object.id.slice(main.length), x.result.response, x.result.success, x.result.score.raw]),
        [[1, true], [2, false], [3, true], [4, false], [5, true], [2, true]].map(([q, right], i) => [`?subContentId=q${q}`, String(answers[i]), right, right ? 1 : 0]));
      for (const x of answered) {
        assert.equal(x.object.definition.interactionType, 'choice');
        assert.equal(x.object.definition.choices.length, 4, 'the four options, with their texts');
        assert.ok(x.object.definition.choices.every((c) => Object.keys(c.description).join() === 'en' && c.description.en.length > 0), "each option's text, in the widget's language");
        assert.deepEqual(x.context.contextActivities.parent, [{ id: main, objectType: 'Activity' }]);
      }
      // The score counts first answers: 3 of 5, failed at the mastery score of 80.
      assert.deepEqual(completed[0].result.score, { min: 0, max: 5, raw: 3, scaled: 0.6 });
      assert.equal(completed[0].result.completion, true);
      assert.equal(completed[0].result.success, false);
      for (const x of statements) {
        assert.deepEqual(validateStatement(x).map((w) => `${w.path.join('.')}: ${w.constructor.name}`), [], `a valid statement: ${JSON.stringify(x)}`);
      }

      // The state H5P saves, given back to a second player.
      const state = await until(() => page.evaluate(() => {
        const s = /** @type {any} */ (document.querySelector('#player-a iframe')).contentWindow.H5P.instances[0].getCurrentState();
        return s && s.s && s.s.seed ? s : null;
      }), 'player A\'s state with the changed seed');
      const letter = (/** @type {number} */ n) => 'abcdefghijklmnopqrstuvwxyz'[n];
      const first = [letter(answers[0]).toUpperCase(), letter(answers[1]), letter(answers[2]).toUpperCase(), letter(answers[3]), letter(answers[4]).toUpperCase()].join('');
      const latest = [answers[0], answers[5], answers[2], answers[3], answers[4]].map(letter).join('');
      assert.deepEqual(state, { v: 1, f: first, a: latest, s: { seed: '11' }, c: 1 });
      const before = statements.length;
      await page.evaluate((s) => window.startB(s), state);
      await until(() => page.evaluate(lessonDrawn, 'b'), 'player B\'s lesson drawn');
      const resumed = await until(() => page.evaluate(() => {
        const root = /** @type {any} */ (document.querySelector('#player-b iframe')).contentDocument.querySelector('mha-lesson').shadowRoot;
        const checked = [1, 2, 3, 4, 5].map((q) => {
          const c = root.querySelector(`fieldset[data-question="${q}"] input:checked`);
          return c ? Number(c.value) : null;
        });
        return checked.every((c) => c !== null) ? { checked, seed: root.querySelector('#seed').value } : null;
      }), 'player B\'s answers put back');
      assert.deepEqual(resumed, { checked: [answers[0], answers[5], answers[2], answers[3], answers[4]], seed: '11' });
      assert.equal((await page.evaluate(() => window.statements)).length, before, 'the resumed player reports nothing again');
      const log = page.log;
      await page.harvest();
      assert.deepEqual([...log.consoleErrors, ...log.pageErrors, ...log.failedRequests, ...log.cspViolations], []);
    } finally {
      await context.close();
    }
  });
});
