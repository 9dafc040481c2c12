// Motion: the page scrolls smoothly only for a reader who has not asked for reduced motion
// (prefers-reduced-motion), in the lesson and inside the web components; and with smooth
// scrolling on, everything a student clicks far down the page still works (the adapter scrolls
// instantly before clicking, so no test depends on how an engine animates a scroll).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadWholeLesson, settle, shareBrowser, withCleanPage, waitLoaded } from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; }, {
  pages: {
    '/host.html': {
      type: 'text/html; charset=utf-8',
      body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><script src="/headwise-elements.js" defer></script></head><body><mha-quiz id="q"></mha-quiz></body></html>',
    },
  },
});

describe('prefers-reduced-motion', () => {
  for (const [reducedMotion, expected] of [['reduce', 'auto'], ['no-preference', 'smooth']]) {
    test(`${reducedMotion}: scroll-behavior is ${expected} on the page and in the components`, async () => {
      await withCleanPage(browser, server.url('/index.html'), async (page) => {
        // Smooth only once the first load is complete (until then a link's target is scrolled to
        // at once); the load starts its widgets and measures its sections one per task.
        await waitLoaded(page);
        assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior), expected);
        await page.goto(server.url('/host.html'));
        await page.locator('#q').locator('hw-quiz[data-ready]').waitFor({ state: 'attached' });
        // Inside the shadow root, page.css's html rule (scroll-behavior) applies to :host.
        assert.equal(await page.evaluate(() => getComputedStyle(/** @type {Element} */ (document.getElementById('q'))).scrollBehavior), expected);
      }, { context: { reducedMotion } });
    });
  }
});

describe('with smooth scrolling on', () => {
  test('controls far down the page, and the in-page links, work', async () => {
    await withCleanPage(browser, server.url('/index.html'), async (page) => {
      // (Smooth once the first load is complete: until then a link's target is scrolled to at once.)
      await waitLoaded(page);
      assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior), 'smooth');
      await loadWholeLesson(page);
      // The quiz is at the end of the page; the settings at its top.
      await page.check('fieldset[data-question="5"] input[data-correct="true"]');
      assert.match(await page.textContent('[data-testid=quiz-feedback][data-question="5"]'), /^Correct\./);
      await page.click('#challenge-reveal');
      assert.ok(await page.isVisible('[data-testid=challenge-discussion]'));
      await page.click('hw-controls summary');
      await page.fill('#label-0', 'cat');
      await settle(page);
      assert.equal(await page.textContent('hw-head-weights table[data-head="0"] thead th[data-col="0"] .hw-tok-label'), 'cat');
      // The floating "Settings" link (narrow screens) brings the settings into view (smoothly, so wait for it).
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
      await page.click('.hw-to-settings');
      await page.waitForFunction(() => {
        const r = /** @type {HTMLElement} */ (document.getElementById('settings')).getBoundingClientRect();
        return r.top >= -1 && r.top < innerHeight / 2;
      });
      assert.equal(await page.inputValue('#label-0'), 'cat');
    }, { context: { reducedMotion: 'no-preference', viewport: { width: 360, height: 740 } } });
  });
});
