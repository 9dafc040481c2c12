// The lesson page on a host whose Content-Security-Policy forbids workers (no worker-src blob:):
// it still works, computing on the main thread, and refuses with a message saying why any
// setting that would block the page for more than about 100 ms (the exercises included).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shareBrowser, collectCsp, waitReady, settle, headTable, inContext } from './helpers.mjs';

/** The page's own policy without worker-src: blob: workers fall under script-src 'self'. */
const NO_WORKER_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; }, { headers: { 'Content-Security-Policy': NO_WORKER_CSP } });

describe('a host CSP that forbids workers', () => {
  test('the page computes on the main thread, says why, and refuses what would block it', { timeout: 240000 }, async () => {
    await inContext(browser, async (page, log) => {
      await page.goto(server.url('/index.html#seed=7&tokens=5&d_model=8&heads=2'));
      await waitReady(page);
      // The lesson's own numbers: head 0, query 0 puts 0.424 and 0.576 on tokens 2 and 3.
      assert.deepEqual((await headTable(page, 0))[0].slice(2, 4), ['0.424', '0.576']);
      // The store is read in the page each time (the adapter passes JSON, not handles).
      await page.waitForFunction(() => /** @type {any} */ (document.querySelector('hw-controls')).store.compute.mode !== 'starting', undefined, { timeout: 60000 });
      const { mode, reason, code } = await page.evaluate(() => {
        const s = /** @type {any} */ (document.querySelector('hw-controls')).store;
        return { mode: s.compute.mode, reason: s.compute.reason.message, code: s.compute.reason.code };
      });
      assert.equal(mode, 'main');
      assert.match(reason, /worker-src blob:/);
      assert.ok(['errors.worker.csp', 'errors.worker.failed'].includes(code), code);

      // A moderate setting computes (on the main thread, within the budget).
      await page.evaluate(() => { window.location.hash = '#seed=7&tokens=64&d_model=256&heads=4'; });
      await page.waitForFunction(() => {
        const dims = document.querySelector('hw-head-weights .hw-head-dims');
        return dims && dims.textContent.includes('64×64, d_head = 64') &&
          document.querySelectorAll('hw-exercise-seeds [data-testid="ex1-verdict"]').length === 2 &&
          !document.querySelector('[aria-busy="true"]');
      }, null, { timeout: 120000 });

      // BERT-base at 128 tokens would block for far longer than 100 ms: refused, with the reason.
      await page.evaluate(() => { window.location.hash = '#seed=7&tokens=128&d_model=768&heads=12'; });
      const message = await page.waitForFunction(() => [...document.querySelectorAll('hw-controls .hw-error')]
        .map((e) => e.textContent).find((t) => /main thread/.test(t)), null, { timeout: 60000 });
      assert.match(message, /^This page computes on the main thread: a Worker could not be started .*worker-src blob:.*\. So a change may take at most about 100 ms, and 128 tokens at d_model 768 would take about \d{1,3}(?:,\d{3})* ms with the exercises\. Choose fewer tokens or a smaller d_model\.$/);
      // One sentence: a browser's own message (WebKit's "The operation is insecure.") keeps no full stop inside the parentheses.
      assert.doesNotMatch(message, /\.\)/);
      await page.waitForSelector('[data-testid="ex1-blocked"]');
      assert.equal(await page.locator('hw-head-weights[data-stale]').count(), 1, 'the last result stays, marked as such');

      // And back to the lesson: everything follows.
      await page.evaluate(() => { window.location.hash = '#seed=7&tokens=5&d_model=8&heads=2'; });
      await settle(page);
      await page.waitForFunction(() => document.querySelectorAll('hw-head-weights table.hw-weights').length === 2);

      // Nothing went wrong but the refused Worker itself.
      await collectCsp(page, log);
      assert.ok(log.cspViolations.length >= 1 && log.cspViolations.every((v) => /^worker-src blob /.test(v)), log.cspViolations.join('\n'));
      assert.deepEqual(log.pageErrors, []);
      // The refused Worker's own message, in Chromium's words and in Firefox's (WebKit reports it as
      // a violation only).
      const refusedWorker = [
        /^Creating a worker from 'blob:[^']*' violates the following Content Security Policy directive/,
        /^(Error: )?Content-Security-Policy: The page’s settings blocked a worker script \(worker-src\) at blob:\S+ from being executed because it violates the following directive: “script-src 'self' 'wasm-unsafe-eval'”$/,
      ];
      assert.deepEqual(log.consoleErrors.filter((m) => !refusedWorker.some((r) => r.test(m))), []);
    });
  });
});
