// The lesson page as a student opens it, straight from disk (file://) and from a web server
// (http://): the lesson's verified numbers, the head comparison, the divisibility error, the
// quiz, permalinks, and nothing logged, failed or fetched from elsewhere.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MODES, gotoFresh, headTable, loadWholeLesson, pageUrl, settle, shareBrowser, typeInto, waitReady, withPage,
} from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

/** The lesson in a fresh context, with a clean log required afterwards. */
const openLesson = (mode, hash, body) => withPage(browser, server, mode, hash, body);

/** The numbers in a NumPy-style printout line, e.g. "[0.    0.424 1.   ]" -> [0, 0.424, 1]. */
function numbersIn(line) {
  return (line.match(/\[([^\]]*)\]/)?.[1] ?? '').trim().split(/\s+/).map(Number);
}

for (const mode of MODES) {
  describe(`lesson page over ${mode}://`, () => {
    test('the defaults show 0.424, 0.576 and 1 where the lesson says', async () => {
      await openLesson(mode, '', async (page) => {
        // The settings are the lesson's: seed 7, 5 tokens, d_model 8, 2 heads.
        assert.deepEqual(
          await Promise.all(['#seed', '#tokens', '#d-model', '#num-heads'].map((s) => page.inputValue(s))),
          ['7', '5', '8', '2'],
        );
        // The prose: head 0 gives tokens 2 and 3 0.424 and 0.576; head 1 gives token 4 a weight of 1.
        const facts = Object.fromEntries(await page.$$eval('hw-fact', (els) => els.map((e) => [e.getAttribute('name'), e.textContent])));
        assert.deepEqual(facts, { 'h0-t2': '0.424', 'h0-t3': '0.576', 'h1-t4': '1', same: 'False', 'params-1': '256' });
        // The tables: query token 0's row in each head.
        assert.equal((await page.$$('hw-head-weights table.hw-weights[data-head]')).length, 2);
        assert.deepEqual((await headTable(page, 0))[0], ['0', '0', '0.424', '0.576', '0']);
        assert.deepEqual((await headTable(page, 1))[0], ['0', '0', '0', '0', '1']);
        assert.equal(await page.getAttribute('hw-head-weights tr[data-token="0"]', 'data-query'), 'true');
        // The printout mirrors the lesson's "Verified output" block.
        const lines = (await page.textContent('[data-testid=query-rows]')).split('\n');
        assert.match(lines[0], /^head 0 weights, token 0: /);
        assert.deepEqual(numbersIn(lines[0]), [0, 0, 0.424, 0.576, 0]);
        assert.match(lines[1], /^head 1 weights, token 0: /);
        assert.deepEqual(numbersIn(lines[1]), [0, 0, 0, 0, 1]);
        assert.equal(lines[2], 'same pattern? False');
        assert.match(await page.textContent('[data-testid=verdict]'), /Same pattern\? No\..*np\.allclose\(weights\[0\], weights\[1\]\) is False/);
        // The quiz quotes the same run.
        assert.match(await page.textContent('fieldset[data-question="3"]'), /\(0\.424, 0\.576\); head 1 gave token 4 100%/);
        // Zero extra parameters: 256 for 1, 2, 4 and 8 heads.
        const totals = await page.$$eval('hw-param-table [data-testid=param-table][data-heads]', (ts) => ts.map((t) => [t.dataset.heads, t.querySelector('[data-testid=param-total]')?.textContent]));
        assert.deepEqual(totals, [['1', '256'], ['2', '256'], ['4', '256'], ['8', '256']]);
      });
    });

    test('4 heads give 4 tables and 6 pairwise verdicts', async () => {
      await openLesson(mode, '', async (page) => {
        await typeInto(page, '#num-heads', '4');
        const heads = await page.$$eval('hw-head-weights table.hw-weights[data-head]', (ts) => ts.map((t) => t.dataset.head));
        assert.deepEqual(heads, ['0', '1', '2', '3']);
        for (const head of heads) {
          const rows = await headTable(page, head);
          assert.equal(rows.length, 5);
          for (const row of rows) {
            assert.equal(row.length, 5);
            // Every row of weights adds up to 1 (each shown value is rounded to 3 decimals).
            const sum = row.map(Number).reduce((a, b) => a + b, 0);
            assert.ok(Math.abs(sum - 1) <= 0.003, `head ${head} row sums to ${sum}`);
          }
        }
        assert.match(await page.textContent('hw-head-weights caption'), /d_head = 2/);
        const pairs = await page.$$eval('[data-testid=pair]', (rs) => rs.map((r) => `${r.dataset.a}-${r.dataset.b}:${r.dataset.allclose}:${r.querySelector('td').textContent}`));
        assert.deepEqual(pairs, ['0-1', '0-2', '0-3', '1-2', '1-3', '2-3'].map((p) => `${p}:false:different`));
        assert.match(await page.textContent('[data-testid=verdict]'), /Same pattern\? No\..*all 6 pairs of heads differ/);
        // Each divergence is a number in [0, ln 2].
        const divergences = await page.$$eval('[data-testid=pair] [data-testid=divergence]', (cs) => cs.map((c) => Number(c.textContent)));
        assert.equal(divergences.length, 6);
        for (const d of divergences) assert.ok(d > 0 && d <= Math.LN2, `divergence ${d}`);
      });
    });

    test('d_model 10 with 4 heads shows the divisibility message and the page still responds', async () => {
      await openLesson(mode, '', async (page) => {
        await typeInto(page, '#num-heads', '4');
        await typeInto(page, '#d-model', '10');
        const error = page.locator('[data-error-for="d-model"]');
        assert.ok(await error.isVisible());
        assert.match(await error.textContent(), /d_model \(10\) must be divisible by num_heads \(4\)/);
        assert.equal(await page.getAttribute('#d-model', 'aria-invalid'), 'true');
        assert.match(await page.getAttribute('#d-model', 'aria-describedby'), /d-model-error/);
        // The last valid tables stay, marked as stale, with a note saying so.
        assert.equal(await page.getAttribute('hw-head-weights', 'data-stale'), '');
        assert.match(await page.textContent('hw-head-weights .hw-stale'), /Showing the last valid settings/);
        assert.equal((await page.$$('hw-head-weights table.hw-weights[data-head]')).length, 4);
        // The page still responds: 2 heads divide 10, so the error goes and the tables follow.
        await typeInto(page, '#num-heads', '2');
        assert.ok(await error.isHidden());
        assert.equal(await page.getAttribute('#d-model', 'aria-invalid'), null);
        assert.equal(await page.getAttribute('hw-head-weights', 'data-stale'), null);
        assert.equal((await page.$$('hw-head-weights table.hw-weights[data-head]')).length, 2);
        assert.match(await page.textContent('hw-head-weights caption'), /d_head = 5/);
        // And the same message arrives from a link.
        await gotoFresh(page, pageUrl(mode, server, '#d_model=10&heads=4'));
        await page.waitForSelector('hw-controls[data-ready]');
        await settle(page);
        const fromLink = await page.$$eval('[data-error-for="num-heads"], [data-error-for="d-model"]', (es) => es.filter((e) => !e.hidden).map((e) => e.textContent));
        assert.equal(fromLink.length, 1);
        assert.match(fromLink[0], /d_model \(10\) must be divisible by num_heads \(4\)/);
        assert.match(await page.textContent('hw-head-weights [data-testid=verdict]'), /Nothing to show until the settings are valid/);
      });
    });

    test('the quiz gives feedback; no control is left in the browser\'s form state', async () => {
      await openLesson(mode, '', async (page) => {
        await loadWholeLesson(page);
        const items = await page.$$('hw-quiz fieldset[data-question]');
        assert.equal(items.length, 5);
        assert.match(await page.textContent('[data-testid=quiz-score]'), /^5 questions\./);
        for (let q = 1; q <= 5; q += 1) {
          const feedback = page.locator(`[data-testid=quiz-feedback][data-question="${q}"]`);
          assert.equal((await feedback.textContent()).trim(), '');
          // A wrong option first, then the right one: each gets its own explanation.
          await page.check(`fieldset[data-question="${q}"] input[data-correct="false"] >> nth=0`);
          assert.equal(await feedback.getAttribute('data-correct'), 'false');
          assert.match(await feedback.textContent(), /^Not quite\. \S/);
          await page.check(`fieldset[data-question="${q}"] input[data-correct="true"]`);
          assert.equal(await feedback.getAttribute('data-correct'), 'true');
          assert.match(await feedback.textContent(), /^Correct\. \S/);
        }
        assert.equal(await page.textContent('[data-testid=quiz-score]'), '5 of 5 correct so far (5 answered).');
        // Exactly one right option per question.
        const correct = await page.$$eval('hw-quiz fieldset', (fs) => fs.map((f) => f.querySelectorAll('input[data-correct="true"]').length));
        assert.deepEqual(correct, [1, 1, 1, 1, 1]);
        // Every control the page keeps the state of itself (the address, localStorage) is out of
        // the browser's saved form state, which Chromium serializes into the history entry on
        // each address-bar write: the radios above, the settings (the token labels' inputs
        // exist once their panel is open), the challenge, the training section.
        await page.click('hw-controls summary');
        await page.waitForSelector('#label-0', { state: 'attached' });
        const kept = await page.$$eval('input, select, textarea', (els) => els
          .filter((e) => !['button', 'submit', 'reset', 'hidden'].includes(/** @type {HTMLInputElement} */ (e).type))
          .map((e) => `${e.localName}${e.id ? `#${e.id}` : ''}[${/** @type {HTMLInputElement} */ (e).type}] ${e.getAttribute('autocomplete')}`));
        for (const part of ['input#seed[number]', 'input#bias[checkbox]', 'select#query-token[select-one]', 'input#label-0[text]',
          'input#q1-o0[radio]', 'textarea#challenge-answer[textarea]', 'select#train-task[select-one]', 'input[checkbox]']) {
          assert.ok(kept.some((k) => k.startsWith(`${part} `)), `${part} among ${kept.join(', ')}`);
        }
        assert.deepEqual(kept.filter((k) => !k.endsWith(' off')), []);
      });
    });

    test('a permalink round-trips', async () => {
      let link;
      let tables;
      await openLesson(mode, '', async (page) => {
        await typeInto(page, '#seed', '31337');
        await typeInto(page, '#tokens', '6');
        await typeInto(page, '#d-model', '12');
        await typeInto(page, '#num-heads', '3');
        await page.check('#bias');
        await page.check('#causal');
        await page.click('hw-controls summary');
        await typeInto(page, '#label-2', 'chat & <b>dog</b>');
        await page.selectOption('#query-token', '4');
        await typeInto(page, '#ex1-seed', '99');
        await typeInto(page, '#ex2-d-model', '30');
        await typeInto(page, '#ex2-heads', '7');
        await settle(page);
        link = (await page.url());
        const hash = new URL(link).hash;
        for (const part of ['seed=31337', 'tokens=6', 'd_model=12', 'heads=3', 'bias=1', 'causal=1', 'query=4', 'ex1_seed=99', 'ex2_d_model=30', 'ex2_heads=7', 'label.2=']) {
          assert.ok(hash.includes(part), `${part} in ${hash}`);
        }
        tables = await Promise.all([0, 1, 2].map((hd) => headTable(page, hd)));
        assert.equal(tables[0].length, 6);
        // Causal: token 0 sees only itself.
        assert.deepEqual(tables[0][0], ['1', '0', '0', '0', '0', '0']);
      });
      // A new browser context, as if the link had been pasted elsewhere.
      await openLesson(mode, new URL(link).hash, async (page) => {
        assert.deepEqual(
          await Promise.all(['#seed', '#tokens', '#d-model', '#num-heads', '#ex1-seed', '#ex2-d-model', '#ex2-heads'].map((s) => page.inputValue(s))),
          ['31337', '6', '12', '3', '99', '30', '7'],
        );
        assert.equal(await page.isChecked('#bias'), true);
        assert.equal(await page.isChecked('#causal'), true);
        assert.equal(await page.inputValue('#query-token'), '4');
        assert.equal(await page.getAttribute('hw-head-weights tr[data-token="4"]', 'data-query'), 'true');
        assert.deepEqual(await Promise.all([0, 1, 2].map((hd) => headTable(page, hd))), tables);
        assert.equal(await page.textContent('hw-head-weights table[data-head="0"] thead th[data-col="2"] .hw-tok-label'), 'chat & <b>dog</b>');
        assert.equal(await page.isVisible('[data-testid=hash-notice]'), false);
        // Reading the link and writing it back gives the same link.
        await settle(page);
        assert.equal((await page.url()), link);
      });
    });

    test('in-page links (skip link, "Settings") keep the settings and show no notice', async () => {
      await openLesson(mode, '', async (page) => {
        await typeInto(page, '#seed', '99');
        const before = (await page.url());
        await page.focus('.hw-skip');
        await page.keyboard.press('Enter');
        await settle(page);
        await page.waitForFunction((url) => location.href === url, before);
        assert.equal(await page.inputValue('#seed'), '99');
        assert.equal(await page.isVisible('[data-testid=hash-notice]'), false);
        // A link to a section, opened fresh, shows the defaults without complaint.
        await gotoFresh(page, pageUrl(mode, server, '#settings'));
        await waitReady(page);
        assert.equal(await page.inputValue('#seed'), '7');
        assert.equal(await page.isVisible('[data-testid=hash-notice]'), false);
      });
    });
  });
}
