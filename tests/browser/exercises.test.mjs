// The hands-on part of the page, over file:// and http://: the three exercises with the
// student's own inputs, the independent challenge's reveal, and the quiz's answer reveals.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MODES, loadWholeLesson, shareBrowser, typeInto, waitReady, withPage,
} from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

/** The lesson in a fresh context, with a clean log required afterwards. */
const openLesson = (mode, hash, body) => withPage(browser, server, mode, hash, body);

/** Exercise 1's rows table for a head count: one array of cell texts per head. */
function ex1Rows(page, heads) {
  return page.$$eval(`[data-testid=ex1-rows][data-heads="${heads}"] tbody tr`, (rs) => rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
}

function ex1Pairs(page, heads) {
  return page.$$eval(`[data-testid=ex1-pair][data-heads="${heads}"]`, (ps) => ps.map((p) => `${p.dataset.a}-${p.dataset.b}:${p.dataset.allclose}`));
}

/** Exercise 2's table: [num_heads, d_head, total] per row. */
function ex2Rows(page) {
  return page.$$eval('[data-testid=ex2-row]', (rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
}

for (const mode of MODES) {
  describe(`exercises over ${mode}://`, () => {
    test('exercise 1: the student\'s seed, pairwise verdicts for 2 and 4 heads', async () => {
      await openLesson(mode, '', async (page) => {
        // With the lesson's seed, exercise 1's 2-head rows are the lesson's rows.
        await typeInto(page, '#ex1-seed', '7');
        assert.deepEqual(await ex1Rows(page, 2), [['0', '0', '0.424', '0.576', '0'], ['0', '0', '0', '0', '1']]);
        // The student's own seed.
        await typeInto(page, '#ex1-seed', '123456');
        const two = await ex1Rows(page, 2);
        const four = await ex1Rows(page, 4);
        assert.equal(two.length, 2);
        assert.equal(four.length, 4);
        assert.notDeepEqual(two, [['0', '0', '0.424', '0.576', '0'], ['0', '0', '0', '0', '1']]);
        for (const row of [...two, ...four]) {
          assert.equal(row.length, 5);
          const sum = row.map(Number).reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(sum - 1) <= 0.003, `row sums to ${sum}`);
        }
        assert.deepEqual(await ex1Pairs(page, 2), ['0-1:false']);
        assert.deepEqual(await ex1Pairs(page, 4), ['0-1', '0-2', '0-3', '1-2', '1-3', '2-3'].map((p) => `${p}:false`));
        const verdicts = await page.$$eval('[data-testid=ex1-verdict]', (vs) => vs.map((v) => [v.dataset.heads, v.dataset.same, v.textContent]));
        assert.deepEqual(verdicts.map((v) => v.slice(0, 2)), [['2', 'false'], ['4', 'false']]);
        assert.match(verdicts[0][2], /^All different\. 1 of 1 pair differ/);
        assert.match(verdicts[1][2], /^All different\. 6 of 6 pairs differ/);
        assert.ok(await page.isHidden('[data-error-for="ex1-seed"]'));
        // The heading gives d_head from the main settings' d_model (8).
        assert.deepEqual(await page.$$eval('hw-exercise-seeds h4', (hs) => hs.map((x) => x.textContent)), ['2 heads (d_head = 4)', '4 heads (d_head = 2)']);
        // A seed the module refuses: its message beside the seed field, and recovery.
        await typeInto(page, '#ex1-seed', '-1');
        assert.ok(await page.isVisible('[data-error-for="ex1-seed"]'));
        assert.match(await page.textContent('[data-error-for="ex1-seed"]'), /seed/);
        assert.equal(await page.getAttribute('#ex1-seed', 'aria-invalid'), 'true');
        await typeInto(page, '#ex1-seed', '123456');
        assert.ok(await page.isHidden('[data-error-for="ex1-seed"]'));
        assert.deepEqual(await ex1Rows(page, 2), two);
      });
    });

    test('exercise 2: every dividing head count has the same total; a non-divisor gets the module\'s error', async () => {
      await openLesson(mode, '', async (page) => {
        // The default d_model 12: 1, 2, 3, 4, 6, 12 heads, all 4·12² = 576 parameters without bias.
        assert.deepEqual(await ex2Rows(page), [1, 2, 3, 4, 6, 12].map((hd) => [String(hd), String(12 / hd), '576']));
        // The student's own d_model.
        await typeInto(page, '#ex2-d-model', '24');
        assert.deepEqual(await ex2Rows(page), [1, 2, 3, 4, 6, 8, 12, 24].map((hd) => [String(hd), String(24 / hd), '2,304']));
        assert.equal(await page.getAttribute('[data-testid=ex2-verdict]', 'data-equal'), 'true');
        assert.match(await page.textContent('[data-testid=ex2-verdict]'), /Never changes\. 8 head counts divide d_model = 24; every one gives 2,304 parameters \(without bias\)/);
        // A head count that does not divide it: refused, with the module's own message.
        await typeInto(page, '#ex2-heads', '5');
        assert.equal(await page.getAttribute('[data-testid=ex2-try]', 'data-accepted'), 'false');
        assert.ok(await page.isVisible('[data-error-for="ex2-heads"]'));
        assert.match(await page.textContent('[data-error-for="ex2-heads"]'), /embed_dim \(24\) must be divisible by num_heads \(5\)/);
        assert.equal(await page.getAttribute('#ex2-heads', 'aria-invalid'), 'true');
        // One that does divide it is accepted with the same total.
        await typeInto(page, '#ex2-heads', '6');
        assert.equal(await page.getAttribute('[data-testid=ex2-try]', 'data-accepted'), 'true');
        assert.match(await page.textContent('[data-testid=ex2-try]'), /Accepted: 6 heads at d_model = 24 has 2,304 parameters/);
        assert.ok(await page.isHidden('[data-error-for="ex2-heads"]'));
        // Bias adds 4·d_model for every head count alike (from the main settings' checkbox).
        await page.check('#bias');
        await page.waitForFunction(() => document.querySelector('[data-testid=ex2-row] td:last-child')?.textContent === '2,400');
        assert.deepEqual((await ex2Rows(page)).map((r) => r[2]), Array(8).fill('2,400'));
        // A prime d_model lists 1 and itself.
        await typeInto(page, '#ex2-d-model', '13');
        assert.deepEqual((await ex2Rows(page)).map((r) => r[0]), ['1', '13']);
        // A d_model the module refuses: its message beside the d_model field, no table.
        await typeInto(page, '#ex2-d-model', '0');
        assert.ok(await page.isVisible('[data-error-for="ex2-d-model"]'));
        assert.match(await page.textContent('[data-error-for="ex2-d-model"]'), /embed_dim/);
        assert.equal((await ex2Rows(page)).length, 0);
        await typeInto(page, '#ex2-d-model', '8');
        assert.ok(await page.isHidden('[data-error-for="ex2-d-model"]'));
        assert.deepEqual((await ex2Rows(page)).map((r) => r[0]), ['1', '2', '4', '8']);
      });
    });

    test('exercise 3: PyTorch layout matches to < 1e-12, per-head weights (1, num_heads, n, n)', async () => {
      await openLesson(mode, '', async (page) => {
        const check = async (shape) => {
          const maxdiff = Number(await page.textContent('[data-testid=ex3-maxdiff]'));
          assert.ok(Number.isFinite(maxdiff) && maxdiff >= 0 && maxdiff < 1e-12, `max |difference| ${maxdiff}`);
          const wdiff = Number(await page.textContent('[data-testid=ex3-weights-maxdiff]'));
          assert.ok(Number.isFinite(wdiff) && wdiff < 1e-12, `weights max |difference| ${wdiff}`);
          assert.equal(await page.getAttribute('[data-testid=ex3-verdict]', 'data-allclose'), 'true');
          assert.match(await page.textContent('[data-testid=ex3-verdict]'), /^They match\./);
          assert.equal(await page.textContent('[data-testid=ex3-shape]'), shape);
        };
        await check('(1, 2, 5, 5)');
        // PyTorch's per-head rows for the lesson's query token are the lesson's rows.
        const rows = await page.$$eval('[data-testid=ex3-rows] tbody tr', (rs) => rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
        assert.deepEqual(rows, [['0', '0', '0.424', '0.576', '0'], ['0', '0', '0', '0', '1']]);
        assert.match(await page.textContent('hw-exercise-torch'), /in_proj_weight has shape \(24, 8\)/);
        await typeInto(page, '#num-heads', '4');
        await page.waitForSelector('hw-exercise-torch:not([data-busy])');
        await check('(1, 4, 5, 5)');
        assert.match(await page.textContent('[data-testid=ex3-divergence]'), /every pair differs/);
        // The rows' corner names the query token and, however narrow its column (here its
        // narrowest: 1px asks for the min-content width), breaks after "h," only, never inside
        // "w[0, h," or "q, :]".
        const corner = () => page.$eval('[data-testid=ex3-rows] thead th', (th) => {
          th.style.width = '1px';
          const lines = [...th.querySelectorAll('.hw-corner-part')].map((part) => part.getClientRects().length);
          th.style.width = '';
          return { text: th.textContent.replace(/\s+/g, ' '), lines };
        });
        assert.deepEqual(await corner(), { text: 'w[0, h, 0, :]', lines: [1, 1] });
        await page.selectOption('#query-token', '3');
        await page.waitForFunction(() => /query token 3$/.test(document.querySelector('[data-testid=ex3-rows] caption')?.textContent || ''));
        assert.deepEqual(await corner(), { text: 'w[0, h, 3, :]', lines: [1, 1] });
        await page.selectOption('#query-token', '0');
        await typeInto(page, '#tokens', '7');
        await page.check('#bias');
        await page.waitForFunction(() => document.querySelector('[data-testid=ex3-shape]')?.textContent === '(1, 4, 7, 7)');
        await check('(1, 4, 7, 7)');
        await typeInto(page, '#d-model', '16');
        await typeInto(page, '#num-heads', '8');
        await page.waitForFunction(() => document.querySelector('[data-testid=ex3-shape]')?.textContent === '(1, 8, 7, 7)');
        await check('(1, 8, 7, 7)');
      });
    });

    test('the independent challenge reveals its discussion', async () => {
      await openLesson(mode, '', async (page) => {
        await loadWholeLesson(page);
        const button = page.locator('#challenge-reveal');
        const discussion = page.locator('[data-testid=challenge-discussion]');
        assert.ok(await discussion.isHidden());
        assert.equal(await button.getAttribute('aria-expanded'), 'false');
        assert.equal(await button.textContent(), 'Reveal the discussion without answering');
        await page.fill('#challenge-answer', 'One softmax has to serve every relationship at once.');
        assert.equal(await button.textContent(), 'Compare with the discussion');
        await button.click();
        assert.ok(await discussion.isVisible());
        assert.equal(await button.getAttribute('aria-expanded'), 'true');
        assert.equal(await button.textContent(), 'Hide the discussion');
        assert.match(await discussion.textContent(), /The same number of parameters does not mean the same capability/);
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'challenge-discussion');
        await button.click();
        assert.ok(await discussion.isHidden());
        assert.equal(await button.getAttribute('aria-expanded'), 'false');
        // The draft stays in this browser across a reload.
        await page.reload();
        await waitReady(page);
        assert.equal(await page.inputValue('#challenge-answer'), 'One softmax has to serve every relationship at once.');
      });
    });

    test('every quiz answer can be revealed and hidden again', async () => {
      await openLesson(mode, '', async (page) => {
        await loadWholeLesson(page);
        const buttons = page.locator('hw-quiz button[aria-controls]');
        assert.equal(await buttons.count(), 5);
        for (let q = 1; q <= 5; q += 1) {
          const answer = page.locator(`[data-testid=quiz-answer][data-question="${q}"]`);
          const button = buttons.nth(q - 1);
          assert.ok(await answer.isHidden());
          assert.equal(await button.getAttribute('aria-controls'), await answer.getAttribute('id'));
          await button.click();
          assert.ok(await answer.isVisible());
          assert.equal(await button.getAttribute('aria-expanded'), 'true');
          assert.equal(await button.textContent(), 'Hide the answer');
          assert.match(await answer.textContent(), /^Answer\. \w.{20,}/);
        }
        assert.match(await page.textContent('[data-testid=quiz-answer][data-question="2"]'), /Identical: 256 for both/);
        assert.match(await page.textContent('[data-testid=quiz-answer][data-question="3"]'), /\(0\.424, 0\.576\) while head 1 gave 100% of its weight to token 4/);
        await buttons.nth(0).click();
        assert.ok(await page.isHidden('[data-testid=quiz-answer][data-question="1"]'));
        assert.equal(await buttons.nth(0).getAttribute('aria-expanded'), 'false');
        // Revealing is not answering.
        assert.match(await page.textContent('[data-testid=quiz-score]'), /^5 questions\./);
      });
    });
  });
}
