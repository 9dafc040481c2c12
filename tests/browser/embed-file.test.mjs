// embed.html opened from disk (file://), as an instructor tries an iframe recipe on a local page
// before uploading: the widget draws and answers, in every engine, under the page's own two
// policies (the second names the scheme file: there, since Chromium takes no file:// URL as a
// source), with nothing logged, refused or fetched from elsewhere; its workers= address setting.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileUrl, shareBrowser, withCleanPage, inContext } from './helpers.mjs';

let browser;
shareBrowser((b) => { browser = b; }, { dir: null });

describe('embed.html from file://', () => {
  test('the quiz draws, takes an answer, and the folder-limiting policy is in force', { timeout: 120000 }, async () => {
    await withCleanPage(browser, null, async (page) => {
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
    });
  });

  test('workers= in its address pins the page\'s pools; a count outside 1 to 8 is said, and one per core is used', { timeout: 120000 }, async () => {
    await inContext(browser, async (page) => {
      await page.goto(`${fileUrl('embed.html')}?widget=quiz&workers=3`);
      await page.waitForFunction(() => Boolean(document.querySelector('mha-quiz')?.hwStore), null, { timeout: 60000 });
      assert.equal(await page.evaluate(() => document.querySelector('mha-quiz').getAttribute('workers')), '3');
      assert.equal(await page.evaluate(() => document.querySelector('mha-quiz').hwStore.compute.size), 3);
      await page.goto(`${fileUrl('embed.html')}?widget=quiz&workers=9`);
      const problem = await page.waitForFunction(() => document.querySelector('mha-quiz')?.shadowRoot?.querySelector('[data-testid="embed-problems"]:not([hidden])')?.textContent, null, { timeout: 60000 });
      assert.match(problem, /workers: "9" is not a whole number from 1 to 8; the page uses one Worker per core\./);
      const r = await page.evaluate(() => ({ size: document.querySelector('mha-quiz').hwStore.compute.size, cores: navigator.hardwareConcurrency }));
      assert.equal(r.size, Math.min(8, r.cores));
    });
  });
});
