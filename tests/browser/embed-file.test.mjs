// embed.html opened from disk (file://), as an instructor tries an iframe recipe on a local page
// before uploading: the widget draws and answers, in every engine, under the page's own two
// policies (the second names the scheme file: there, since Chromium takes no file:// URL as a
// source), with nothing logged, refused or fetched from elsewhere.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { collectCsp, fileUrl, openPage, shareBrowser } from './helpers.mjs';

let browser;
shareBrowser((b) => { browser = b; }, { dir: null });

describe('embed.html from file://', () => {
  test('the quiz draws, takes an answer, and the folder-limiting policy is in force', { timeout: 120000 }, async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(`${fileUrl('embed.html')}?widget=quiz&id=local`);
      await page.waitForFunction(() => {
        const quiz = document.querySelector('mha-quiz');
        return quiz && quiz.shadowRoot && quiz.shadowRoot.querySelectorAll('hw-quiz fieldset').length === 5;
      }, null, { timeout: 60000 });
      const policies = await page.evaluate(() => [...document.querySelectorAll('meta[http-equiv="Content-Security-Policy"]')].map((m) => m.getAttribute('content')));
      assert.equal(policies.length, 2, 'both policies are on the page');
      assert.match(policies[1], /^default-src file:; script-src file: 'wasm-unsafe-eval'; style-src file:;/);
      await page.locator('mha-quiz').locator('#q3-o2').check();
      const feedback = await page.waitForFunction(() => document.querySelector('mha-quiz').shadowRoot.querySelector('[data-testid="quiz-feedback"][data-question="3"]').textContent, null, { timeout: 10000 });
      assert.ok(feedback.length > 0, 'the answer is marked');
      await collectCsp(page, log);
      log.assertClean(null);
    } finally {
      await context.close();
    }
  });
});
