// A long session: 10,000 recomputes in the page (3,000 in Firefox and WebKit: a leak grows in
// every thousand alike, and CI's time is short), driven through the real controls (input events
// on #seed and #num-heads; one in ten is refused by the module, so its error path runs too).
// Each is followed by the store's notify(), so every element redraws each time
// rather than once per animation frame. The WASM heap and the DOM node count stay flat, the
// address bar is rewritten at most every 200 ms however fast the changes come (engines refuse
// or drop frequent history changes; WebKit then undid the next change), and a change made
// afterwards is drawn and reaches the address bar.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENGINE, headTable, settle, shareBrowser, withCleanPage } from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

const TOTAL = ENGINE === 'chromium' ? 10000 : 3000;
const CHUNK = 1000;
/** Changes one per frame in the last test: enough to pass the page's cap of 100 measures. */
const FRAMES = ENGINE === 'chromium' ? 300 : 150;

/**
 * Runs in the page: `count` recomputes starting at step `from`, then back to the lesson's
 * settings; returns the module's heap stats and the DOM node count there.
 */
function recompute({ from, count }) {
  const store = /** @type {any} */ (document.querySelector('hw-controls')).store;
  /** @param {string} id @param {string|number} value */
  const set = (id, value) => {
    const input = /** @type {HTMLInputElement} */ (document.getElementById(id));
    input.value = String(value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  let errors = 0;
  const w = /** @type {any} */ (window);
  if (!w.__hashWrites) {
    w.__hashWrites = 0;
    const replace = history.replaceState.bind(history);
    history.replaceState = (...args) => { w.__hashWrites += 1; return replace(...args); };
  }
  const writesBefore = w.__hashWrites;
  const started = performance.now();
  for (let step = from; step < from + count; step += 1) {
    set('seed', 100000 + step);
    // Mostly 2 heads; 4 heads now and then; 3 heads (refused: 8 is not divisible by 3) once in ten.
    set('num-heads', step % 10 === 9 ? 3 : step % 10 === 4 ? 4 : 2);
    store.notify();
    if (store.experiment().error) errors += 1;
  }
  set('seed', 7); set('num-heads', 2);
  store.notify();
  return {
    errors,
    hashWrites: w.__hashWrites - writesBefore,
    ms: performance.now() - started,
    heap: store.hw.heapStats(),
    nodes: document.getElementsByTagName('*').length,
    shownHeads: document.querySelectorAll('hw-head-weights table.hw-weights[data-head]').length,
  };
}

test(`${TOTAL.toLocaleString('en')} recomputes: WASM heap and DOM node count flat, no console errors`, { timeout: 900000 }, async (t) => {
  await withCleanPage(browser, server.url('/index.html'), async (page) => {
    // Warm-up: every shape and the error path once, so later growth would be a leak.
    const warm = await page.evaluate(recompute, { from: 0, count: 200 });
    assert.equal(warm.errors, 20);
    const samples = [];
    let errors = 0;
    for (let from = 200; from < 200 + TOTAL; from += CHUNK) {
      const s = await page.evaluate(recompute, { from, count: CHUNK });
      errors += s.errors;
      samples.push(s);
    }
    assert.equal(errors, TOTAL / 10, 'one recompute in ten is refused by the module');
    for (const [i, s] of samples.entries()) {
      const at = `after ${(i + 1) * CHUNK} recomputes`;
      assert.equal(s.heap.heapBytes, warm.heap.heapBytes, `WASM memory size ${at}`);
      assert.equal(s.heap.usedBytes, warm.heap.usedBytes, `WASM bytes in use ${at}`);
      assert.equal(s.nodes, warm.nodes, `DOM node count ${at}`);
      assert.equal(s.shownHeads, 2);
      // At most one rewrite per 200 ms (the store's HASH_WRITE_MS), however many changes.
      const allowed = 1 + Math.floor(s.ms / 200);
      assert.ok(s.hashWrites <= allowed, `the address bar rewritten ${s.hashWrites} times in ${Math.round(s.ms)} ms of ${CHUNK} changes (at most ${allowed}) ${at}`);
    }
    // The page still shows the lesson's numbers and still responds to a frame-paced change.
    await settle(page);
    assert.deepEqual((await headTable(page, 0))[0], ['0', '0', '0.424', '0.576', '0']);
    assert.deepEqual((await headTable(page, 1))[0], ['0', '0', '0', '0', '1']);
    await t.test('then a change of num_heads is still drawn, and the address bar follows', async () => {
      await page.fill('#num-heads', '4');
      await settle(page);
      // The new setting may be computed off the main thread: wait for its tables, then count.
      await page.waitForFunction(() => document.querySelectorAll('hw-head-weights table.hw-weights[data-head]').length >= 4, undefined, { timeout: 60000 });
      assert.equal((await page.$$('hw-head-weights table.hw-weights[data-head]')).length, 4);
      await page.waitForFunction(() => /[#&]heads=4(&|$)/.test(window.location.hash), undefined, { timeout: 10000 });
      assert.equal(await page.inputValue('#num-heads'), '4');
    });
    await t.test(`${FRAMES} changes one per frame: the page keeps at most 100 of its redraw measures`, async () => {
      // With the reader at the top, every change leaves widgets out of view to redraw after the
      // frame, in slices that each make a 'hw-redraw' User Timing measure.
      await page.evaluate(() => window.scrollTo(0, 0));
      const counts = await page.evaluate(async (frames) => {
        const seed = /** @type {HTMLInputElement} */ (document.getElementById('seed'));
        const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))));
        let most = 0;
        let made = 0;
        new PerformanceObserver((list) => { made += list.getEntriesByName('hw-redraw').length; }).observe({ type: 'measure' });
        for (let i = 0; i < frames; i += 1) {
          seed.value = String(500 + i);
          seed.dispatchEvent(new Event('input', { bubbles: true }));
          await frame();
          most = Math.max(most, performance.getEntriesByName('hw-redraw').length);
        }
        await frame();
        return { most, made };
      }, FRAMES);
      assert.ok(counts.made >= FRAMES, `the page made ${counts.made} redraw measures in ${FRAMES} changes`);
      assert.ok(counts.most <= 100, `the page's timeline held ${counts.most} redraw measures at once`);
    });
  });
});
