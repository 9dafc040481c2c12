// "Each head as two matrices" (<hw-head-circuits>, in the parameters section and as
// <mha-circuits>): for the settings' weights, every head's W_QK and W_OV drawn, each with the rank
// the module counts, and the check sum_h W_OV^h = Wv Wo with the module's max |difference|, all
// as dist/headwise.js computes them here in Node (hw.seedExperiment, hw.headCircuits); the panel
// follows the settings; too large a d_model gets a message instead of maps. From file://, under
// the strict CSP (http header) and in <iframe sandbox="allow-scripts"> (embed.html?widget=circuits).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  DIST, PHONE, inEachLanguage, layoutProblems, shareBrowser, trainingPartServers, waitReady, withCleanPage, withEmbed, withPage,
  withStrictCsp,
} from './helpers.mjs';

const createHeadwise = createRequire(import.meta.url)(join(DIST, 'headwise.js'));
const hw = await createHeadwise();
const TIMEOUT = 180000;

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });
const servers = trainingPartServers('widget=circuits&seed=7&tokens=5&dModel=8&heads=2', 'Each head as two matrices');

/** The module's circuits for the settings. @param {{seed: number, tokens: number, dModel: number, numHeads: number, bias?: boolean}} o */
function expected(o) {
  const L = hw.seedExperiment({ seed: o.seed, tokens: o.tokens, dModel: o.dModel, numHeads: o.numHeads, bias: Boolean(o.bias) });
  return hw.headCircuits({ wq: L.wq, wk: L.wk, wv: L.wv, wo: L.wo, numHeads: o.numHeads });
}

/**
 * Wait until the panel shows `heads` heads at d_model `d`, and read it.
 * @param {any} where
 * @param {number} d
 * @param {number} heads
 */
async function readPanel(where, d, heads) {
  await where.waitForFunction(([d, heads]) => {
    const el = /** @type {HTMLElement|null} */ ((document.querySelector('mha-circuits')?.shadowRoot || document).querySelector('hw-head-circuits'));
    return el && el.dataset.dModel === String(d) && el.dataset.heads === String(heads) && el.querySelectorAll('[data-testid="circuit-head"]').length === heads;
  }, [d, heads], { timeout: 60000 });
  return where.$eval('hw-head-circuits', (el) => ({
    error: /** @type {HTMLElement} */ (el.querySelector('[data-testid="circuits-check"]')).dataset.error,
    check: el.querySelector('[data-testid="circuits-check"]')?.textContent || '',
    heads: [...el.querySelectorAll('[data-testid="circuit-head"]')].map((s) => ({
      head: Number(s.getAttribute('data-head')),
      ranks: [...s.querySelectorAll('figure')].map((f) => [f.getAttribute('data-which'), Number(f.getAttribute('data-rank'))]),
      drawn: [...s.querySelectorAll('canvas')].map((c) => [/** @type {HTMLCanvasElement} */ (c).width, /** @type {HTMLCanvasElement} */ (c).height]),
    })),
  }));
}

/**
 * The panel shows the module's ranks and check for these settings.
 * @param {any} shown  readPanel's
 * @param {{seed: number, tokens: number, dModel: number, numHeads: number, bias?: boolean}} o
 */
function checkPanel(shown, o) {
  const c = expected(o);
  assert.equal(shown.error, String(c.ovSumError), 'the max |difference| is the module\'s');
  assert.ok(c.ovSumError < 1e-12, `only rounding: ${c.ovSumError}`);
  assert.ok(shown.check.includes(c.ovSumError.toExponential(1)), shown.check);
  assert.deepEqual(shown.heads.map((s) => s.head), [...Array(o.numHeads).keys()]);
  for (const s of shown.heads) {
    assert.deepEqual(s.ranks, [['qk', c.qkRank[s.head]], ['ov', c.ovRank[s.head]]], `head ${s.head}'s ranks`);
    assert.deepEqual(s.ranks.map(([, r]) => r), [o.dModel / o.numHeads, o.dModel / o.numHeads], 'rank d_head');
    assert.deepEqual(s.drawn, [[o.dModel, o.dModel], [o.dModel, o.dModel]], 'two d_model x d_model maps');
  }
}

/** The lesson's defaults, then other settings through the panel's fields. @param {any} page */
async function exercise(page) {
  checkPanel(await readPanel(page, 8, 2), { seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
  await page.fill('#d-model', '16');
  await page.fill('#num-heads', '4');
  await page.fill('#seed', '42');
  checkPanel(await readPanel(page, 16, 4), { seed: 42, tokens: 5, dModel: 16, numHeads: 4 });
}

describe('Each head as two matrices', () => {
  test('from file://: the lesson\'s heads, their ranks and the sum check follow the settings', { timeout: TIMEOUT }, async () => {
    await withPage(browser, server, 'file', '', async (page) => {
      await exercise(page);
      // Too large to draw: a message, no maps.
      await page.fill('#d-model', '128');
      await page.waitForFunction(() => /** @type {HTMLElement} */ (document.querySelector('hw-head-circuits')).dataset.dModel === '128', undefined, { timeout: 60000 });
      assert.equal(await page.locator('hw-head-circuits [data-testid="circuit-head"]').count(), 0);
      assert.match(await page.textContent('hw-head-circuits [data-testid="circuits-check"]'), /d_model 64/);
    });
  });

  test('at 390 px in English, Spanish and Chinese: in its language, nothing sideways or cut off', { timeout: TIMEOUT }, async () => {
    await withCleanPage(browser, null, async (page) => {
      await inEachLanguage(page, '&heads=4&d_model=16', async (lang, catalogue) => {
        checkPanel(await readPanel(page, 16, 4), { seed: 7, tokens: 5, dModel: 16, numHeads: 4 });
        assert.equal(await page.textContent('#circuits-title'), catalogue['circuits.title'], `${lang}: the title`);
        assert.deepEqual(await page.evaluate(layoutProblems), [], `${lang}: layout at 390 px`);
      });
    }, { context: { viewport: PHONE } });
  });

  test('under the strict CSP (http header)', { timeout: TIMEOUT }, async () => {
    await withStrictCsp(browser, servers, '', async (page) => {
      await waitReady(page);
      await exercise(page);
    });
  });

  test('inside <iframe sandbox="allow-scripts"> (embed.html?widget=circuits)', { timeout: TIMEOUT }, async () => {
    await withEmbed(browser, servers, 'mha-circuits', async (frame) => {
      checkPanel(await readPanel(frame, 8, 2), { seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
    });
  });
});
