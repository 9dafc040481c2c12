// The lesson page's first load carries no training code: index.html loads headwise-lesson.js and
// app.js only, and the training section (train.js, train.css) and the full module (headwise.js) are loaded
// when the reader scrolls near the section; it then trains to its verdict, its trainers living in
// a Worker of their own (none in the lesson's). If the full module cannot be loaded, the section
// says so and the lesson keeps working.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DIST, ENGINE, WATCH_PATH, shareBrowser, serveDist, waitReady, reachTraining, withPage, headTable, withCleanPage, inContext,
} from './helpers.mjs';

/** Generous: the machine may be shared; the bench measures the real time to the verdict. */
const TRAIN_TIMEOUT = 180000;
const TEST_TIMEOUT = 600000;
const TRAINING_FILES = ['/train.js', '/train.css', '/headwise.js'];

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

/** dist/ without headwise.js: the training module cannot load. */
let brokenDir;
let brokenServer;
before(async () => {
  brokenDir = mkdtempSync(join(tmpdir(), `headwise-no-full-${ENGINE}-`));
  cpSync(DIST, brokenDir, { recursive: true, filter: (src) => !src.endsWith(`${join('dist', 'headwise.js')}`) });
  brokenServer = await serveDist({ dir: brokenDir });
});
after(async () => {
  await brokenServer?.close();
  if (brokenDir) rmSync(brokenDir, { recursive: true, force: true });
});

/** The page's script elements, by file name (the test's own watcher left out). */
function scripts(page) {
  return page.evaluate(() => [...document.querySelectorAll('script[src]')].map((s) => new URL(/** @type {HTMLScriptElement} */ (s).src).pathname.split('/').pop()))
    .then((names) => names.filter((n) => n !== WATCH_PATH));
}

/** How far the training section is below the top of the first screen (px). */
function trainingDistance(page) {
  return page.evaluate(() => document.querySelector('#train').getBoundingClientRect().top - innerHeight);
}

/** The 2-head model's verdict line: "2 heads: head h follows the …". */
async function verdictOf(page) {
  await page.click('#train-run');
  await page.waitForSelector('hw-train[data-done]', { state: 'attached', timeout: TRAIN_TIMEOUT });
  return page.textContent('[data-testid="train-verdict"]');
}

describe('the training section loads on demand', () => {
  test('over http: the first load fetches neither train.js nor headwise.js; scrolling to the section does, once, and it trains to the verdict', { timeout: TEST_TIMEOUT }, async () => {
    await withCleanPage(browser, null, async (page) => {
      const from = server.served.length;
      await page.goto(server.url('/index.html'));
      await waitReady(page);
      // The lesson's first tables are drawn, and nothing of training has been asked for.
      assert.deepEqual(await headTable(page, 0).then((rows) => rows[0].slice(2, 4)), ['0.424', '0.576']);
      assert.ok(await trainingDistance(page) > 0, 'the section starts below the first screen');
      await page.waitForTimeout(500);
      const first = server.served.slice(from);
      assert.ok(first.includes('/headwise-lesson.js') && first.includes('/app.js'), first.join(' '));
      for (const f of TRAINING_FILES) assert.ok(!first.includes(f), `${f} was fetched at first load: ${first.join(' ')}`);
      assert.deepEqual(await scripts(page), ['headwise-lesson.js', 'app.js']);
      assert.equal(await page.evaluate(() => Boolean(customElements.get('hw-train'))), false);
      // The page's createHeadwise is the lesson-only module's.
      assert.equal(await page.evaluate(() => /** @type {any} */ (window).createHeadwise.training), false);

      await reachTraining(page);
      const later = server.served.slice(from);
      for (const f of TRAINING_FILES) assert.equal(later.filter((p) => p === f).length, 1, `${f} fetched once: ${later.join(' ')}`);
      assert.deepEqual((await scripts(page)).sort(), ['app.js', 'headwise-lesson.js', 'headwise.js', 'train.js']);
      // Loading the full module left the page's factory as it was.
      assert.equal(await page.evaluate(() => /** @type {any} */ (window).createHeadwise.training), false);

      const verdict = await verdictOf(page);
      assert.match(verdict, /2 heads: head \d follows the (token )?previous token: 0\.9\d; head \d follows the (token )?first token: 1\.00/);
      // The trainers are not in the lesson's Compute: it holds no remote objects.
      assert.equal(await page.evaluate(() => /** @type {any} */ (document.querySelector('hw-controls')).store.compute._objects), 0);
      // The lesson still recomputes.
      await page.evaluate(() => { window.location.hash = '#seed=8&tokens=5&d_model=8&heads=2&bias=0&causal=0&query=0'; });
      await page.waitForFunction(() => document.querySelector('hw-head-weights table[data-head="0"] tr[data-token="0"] td[data-col="2"]')?.textContent !== '0.424');
    }, { origin: server.origin });
  });

  test('from file://: only the lesson module and app.js at first; the section loads near the viewport', { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'file', '', async (page) => {
      await page.waitForTimeout(500);
      assert.deepEqual(await scripts(page), ['headwise-lesson.js', 'app.js']);
      await reachTraining(page);
      assert.deepEqual((await scripts(page)).sort(), ['app.js', 'headwise-lesson.js', 'headwise.js', 'train.js']);
      assert.match(await page.textContent('[data-testid="train-counter"]'), /^step 0 of \d+/);
      await page.click('#train-step');
      await page.waitForFunction(() => document.querySelector('[data-testid="train-counter"]')?.dataset.step === '1', undefined, { timeout: 60000 });
    });
  });

  test('when headwise.js cannot be loaded, the section says so and the lesson keeps working', { timeout: TEST_TIMEOUT }, async () => {
    await inContext(browser, async (page) => {
      await page.goto(brokenServer.url('/index.html'));
      await waitReady(page);
      await page.evaluate(() => document.querySelector('#train').scrollIntoView({ behavior: 'instant', block: 'start' }));
      await page.waitForSelector('hw-train .hw-widget-status.hw-error', { timeout: 60000 });
      assert.match(await page.textContent('hw-train .hw-widget-status.hw-error'), /^The training module could not be loaded: .*headwise\.js could not be loaded$/);
      assert.deepEqual(await headTable(page, 0).then((rows) => rows[0].slice(2, 4)), ['0.424', '0.576']);
      assert.ok(brokenServer.failed.includes('/headwise.js 404'), brokenServer.failed.join(' '));
    });
  });
});

describe('a reader who leaves while the section loads', () => {
  /** train.js answered late (and, on `slowFailing`, its first request refused after the wait). */
  let slow;
  let slowFailing;
  before(async () => {
    slow = await serveDist({ delays: { '/train.js': 3000 } });
    slowFailing = await serveDist({ delays: { '/train.js': 1500 }, failOnce: ['/train.js'] });
  });
  after(async () => {
    await slow?.close();
    await slowFailing?.close();
  });

  /** Scroll to the section and wait until the server has been asked for train.js. */
  async function startLoading(page, srv) {
    await page.goto(srv.url('/index.html'));
    await waitReady(page);
    await page.evaluate(() => document.querySelector('#train').scrollIntoView({ behavior: 'instant', block: 'start' }));
    const end = Date.now() + 30000;
    while (!srv.served.includes('/train.js')) {
      assert.ok(Date.now() < end, 'train.js was never asked for');
      await page.waitForTimeout(50);
    }
  }

  // Firefox stops a page's loads when a navigation starts, and fires their error events.
  test('navigating away reports no error', { timeout: TEST_TIMEOUT }, async () => {
    await inContext(browser, async (page, log) => {
      await startLoading(page, slow);
      await page.goto('about:blank');
      await page.waitForTimeout(1000);
      assert.deepEqual(log.consoleErrors, [], 'console errors');
      assert.deepEqual(log.pageErrors, [], 'uncaught exceptions');
    });
  });

  test('a load that failed after the reader began to leave, and who stayed, is tried again', { timeout: TEST_TIMEOUT }, async () => {
    await inContext(browser, async (page, log) => {
      await startLoading(page, slowFailing);
      // A leave that did not happen (cancelled, or a download): beforeunload without pagehide.
      await page.evaluate(() => window.dispatchEvent(new Event('beforeunload')));
      await page.waitForSelector('hw-train [data-testid="train-loading"]', { state: 'attached' });
      await reachTraining(page);
      assert.deepEqual(slowFailing.served.filter((p) => p === '/train.js'), ['/train.js', '/train.js']);
      assert.deepEqual(slowFailing.failed, ['/train.js 503']);
      assert.deepEqual(await scripts(page).then((names) => names.filter((n) => n === 'train.js')), ['train.js'], 'the failed element is gone');
      // Chromium itself logs the refused request; the page logs nothing.
      assert.deepEqual(log.consoleErrors.filter((m) => !/^Failed to load resource: .* 503/.test(m)), [], 'console errors');
    });
  });

  test('a load that fails with the reader staying is reported at once', { timeout: TEST_TIMEOUT }, async () => {
    await inContext(browser, async (page) => {
      const failing = await serveDist({ failOnce: ['/train.js'] });
      try {
        await startLoading(page, failing);
        await page.waitForSelector('hw-train .hw-widget-status.hw-error', { timeout: 60000 });
        assert.match(await page.textContent('hw-train .hw-widget-status.hw-error'), /^The training module could not be loaded: .*train\.js could not be loaded$/);
        assert.deepEqual(failing.served.filter((p) => p === '/train.js'), ['/train.js']);
      } finally {
        await failing.close();
      }
    });
  });
});
