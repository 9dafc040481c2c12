// Nothing a student types or puts in the URL becomes HTML. Script payloads go in through the
// token labels, the challenge's answer box and the URL hash; each would call the `pwn` binding or
// set window.__pwned if it ran. Where the engine can (Chromium), the pages here are opened with
// bypassCSP, so the page's own Content-Security-Policy cannot be what stops them: only text-only
// rendering does. Elsewhere the policy stays on, and the DOM checks (no payload markup, only the
// page's own scripts) are what prove it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MODES, WATCH_PATH, gotoFresh, pageUrl, settle, shareBrowser, typeInto, waitReady, withCleanPage } from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1;pwn(\'img\')">',
  '"><svg onload="window.__pwned=1;pwn(\'svg\')">',
  'javascript:window.__pwned=1;pwn(\'js\')',
  '</script><script>window.__pwned=1;pwn(\'script\')</script>',
  '\'><iframe srcdoc="<script>parent.pwn(\'iframe\')</script>"></iframe>',
  '<a id="pwnlink" href="javascript:pwn(\'a\')">x</a>',
  '${pwn(\'template\')}{{constructor.constructor("pwn(\'ng\')")()}}',
];

/**
 * The lesson with its CSP bypassed where the engine can, and a `pwn` function recording calls;
 * `body`, then a clean log (withCleanPage).
 */
function withUnprotected(mode, hash, body) {
  const pwn = 'window.__pwnCalls = []; window.pwn = (what) => window.__pwnCalls.push(String(what));';
  return withCleanPage(browser, pageUrl(mode, server, hash), body, { context: { bypassCSP: true }, initScripts: [pwn] });
}

/** Nothing ran and no markup from a payload reached the DOM. */
async function assertNothingRan(page) {
  await page.waitForTimeout(100); // give any injected onerror/onload its chance
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__pwnCalls), [], 'pwn was called');
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__pwned), undefined);
  const injected = await page.evaluate(() => [
    ...document.querySelectorAll('[onerror], [onload], iframe, script:not([src]), img[src="x"], #pwnlink, [href^="javascript:"], [src^="javascript:"]'),
  ].map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(injected, []);
  // Every script element is one of the page's own two (besides the test's watcher, where injected),
  // one of the training section's two, which app.js adds when the section comes near, or the text
  // model's weights (models/sotu.hwtm.js), which "Your own sentence" adds when it comes near.
  const scripts = (await page.$$eval('script', (ss) => ss.map((s) => s.getAttribute('src')))).filter((src) => !src?.endsWith(WATCH_PATH));
  assert.deepEqual(scripts.slice(0, 2), ['headwise-lesson.js', 'app.js']);
  for (const src of scripts.slice(2)) assert.ok(/\/((train|headwise)\.js|models\/sotu\.hwtm\.js)$/.test(String(src)), `unexpected script ${src}`);
}

/** The label of token i as shown in head 0's column header, its title, and the query menu. */
function shownLabel(page, i) {
  return page.evaluate((k) => {
    const span = document.querySelector(`hw-head-weights table[data-head="0"] thead th[data-col="${k}"] .hw-tok-label`);
    const option = document.querySelector(`#query-token option[value="${k}"]`);
    const ex1 = document.querySelectorAll('[data-testid=ex1-rows] thead th .hw-tok-label')[k];
    return { header: span?.textContent, title: span?.getAttribute('title'), option: option?.textContent, ex1: ex1?.textContent };
  }, i);
}

for (const mode of MODES) {
  describe(`no script injection over ${mode}://`, () => {
    test('payloads typed as token labels are shown literally and never run', async () => {
      await withUnprotected(mode, '#tokens=7', async (page) => {
        await page.click('hw-controls summary');
        for (let i = 0; i < PAYLOADS.length; i += 1) await typeInto(page, `#label-${i}`, PAYLOADS[i]);
        for (let i = 0; i < PAYLOADS.length; i += 1) {
          assert.deepEqual(await shownLabel(page, i), { header: PAYLOADS[i], title: PAYLOADS[i], option: `${i} · ${PAYLOADS[i]}`, ex1: PAYLOADS[i] });
        }
        // Hovering and clicking the labelled headers (title tooltips, query selection) too.
        await page.hover('hw-head-weights table[data-head="0"] thead th[data-col="0"]');
        await page.click('hw-head-weights table[data-head="1"] tr[data-token="3"] th');
        await settle(page);
        assert.equal(await page.inputValue('#query-token'), '3');
        // The challenge's answer box, saved and restored from storage.
        await page.fill('#challenge-answer', PAYLOADS.join('\n'));
        await assertNothingRan(page);
        // The permalink carries the labels; opening it shows them literally again.
        await settle(page);
        const link = (await page.url());
        await gotoFresh(page, link);
        await waitReady(page);
        for (let i = 0; i < PAYLOADS.length; i += 1) assert.equal((await shownLabel(page, i)).header, PAYLOADS[i]);
        assert.equal(await page.inputValue('#challenge-answer'), PAYLOADS.join('\n'));
        await assertNothingRan(page);
      });
    });

    test('payloads in the URL hash are shown literally or refused, and never run', async () => {
      const cases = [
        // [hash, what the page must show]
        ...PAYLOADS.map((p) => [`#label.1=${encodeURIComponent(p)}`, { label: p }]),
        [`#label.1=${PAYLOADS[0]}`, { label: PAYLOADS[0] }], // unencoded, as typed into the address bar
        [`#${encodeURIComponent(PAYLOADS[0])}=1`, { notice: /is not a setting this page knows/ }],
        [`#seed=${encodeURIComponent(PAYLOADS[1])}`, { notice: /"seed" is not a number/ }],
        ['#javascript:pwn(\'hash\')', { notice: /is not a setting this page knows/ }],
        [`#query=${encodeURIComponent(PAYLOADS[3])}`, { notice: /"query" must be a token index/ }],
      ];
      await withUnprotected(mode, '', async (page) => {
        for (const [hash, expect] of cases) {
          await gotoFresh(page, pageUrl(mode, server, hash));
          await waitReady(page);
          if (expect.label) {
            assert.equal((await shownLabel(page, 1)).header, expect.label, hash);
            assert.equal(await page.isVisible('[data-testid=hash-notice]'), false, hash);
          } else {
            const notice = await page.textContent('[data-testid=hash-notice]');
            assert.match(notice, expect.notice, hash);
            assert.equal(await page.inputValue('#seed'), '7', hash); // the defaults
          }
          await assertNothingRan(page);
        }
      });
    });
  });
}
