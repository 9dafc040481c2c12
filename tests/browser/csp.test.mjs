// The built page under a strict Content-Security-Policy sent as an HTTP header:
//   default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'
// (no eval, no new Function, no inline scripts or styles). Every violation is recorded by a
// securitypolicyviolation listener installed before the page's own scripts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  STRICT_CSP, collectCsp, headTable, loadWholeLesson, settle, shareBrowser, typeInto, waitReady, withCleanPage, inContext,
} from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; }, { headers: { 'Content-Security-Policy': STRICT_CSP } });

/** Walk through every part of the page that draws something. */
async function exercisePage(page) {
  await loadWholeLesson(page);
  await typeInto(page, '#num-heads', '4');
  await typeInto(page, '#d-model', '10'); // error path
  await typeInto(page, '#d-model', '8');
  await page.check('#bias');
  await page.check('#causal');
  await page.click('hw-controls summary');
  await typeInto(page, '#label-1', 'label');
  await page.selectOption('#query-token', '3');
  await page.click('hw-head-weights tr[data-token="1"] th');
  await typeInto(page, '#ex1-seed', '5');
  await typeInto(page, '#ex2-d-model', '30');
  await page.check('fieldset[data-question="1"] input[data-correct="true"]');
  await page.click('hw-quiz button[aria-controls] >> nth=0');
  await page.click('#challenge-reveal');
  await page.click('hw-python button.hw-copy >> nth=0');
  // Heatmaps (canvas) above 16 tokens, and the head pager above 16 heads.
  await typeInto(page, '#tokens', '20');
  await typeInto(page, '#d-model', '64');
  await typeInto(page, '#num-heads', '32');
  await page.waitForSelector('hw-head-weights canvas.hw-heatmap');
  await page.focus('hw-head-weights canvas.hw-heatmap >> nth=0');
  await page.keyboard.press('ArrowRight');
  await page.click('hw-head-weights .hw-pager button >> nth=1');
  await page.waitForSelector('hw-exercise-torch:not([data-busy])');
  await settle(page);
}

describe('strict Content-Security-Policy (HTTP header)', () => {
  for (const colorScheme of ['light', 'dark']) {
    test(`the page works with zero violations (${colorScheme})`, async () => {
      await withCleanPage(browser, null, async (page) => {
        assert.equal((await fetch(server.url('/index.html'))).headers.get('content-security-policy'), STRICT_CSP);
        await page.goto(server.url('/index.html'));
        await waitReady(page);
        // The lesson's numbers render.
        assert.deepEqual((await headTable(page, 0))[0], ['0', '0', '0.424', '0.576', '0']);
        assert.deepEqual((await headTable(page, 1))[0], ['0', '0', '0', '0', '1']);
        const facts = await page.$$eval('hw-fact', (els) => els.map((e) => e.textContent));
        assert.deepEqual(facts.slice(0, 3), ['0.424', '0.576', '1']);
        // Cell colours arrive through element.style (CSSOM), which the policy allows.
        const bg = await page.$eval('hw-head-weights td[data-row="0"][data-col="3"]', (td) => getComputedStyle(td).backgroundColor);
        assert.notEqual(bg, 'rgba(0, 0, 0, 0)');
        await exercisePage(page);
        assert.equal((await page.$$('hw-head-weights canvas.hw-heatmap')).length, 16);
      }, { context: { colorScheme }, origin: server.origin });
    });
  }

  test('the policy is enforced and violations would be seen', async () => {
    await inContext(browser, async (page, log) => {
      await page.goto(server.url('/index.html'));
      await waitReady(page);
      // An inline script and an inline style attribute, as a careless change would add them.
      const ran = await page.evaluate(async () => {
        window.__inline = false;
        const s = document.createElement('script');
        s.textContent = 'window.__inline = true;';
        document.body.appendChild(s);
        const d = document.createElement('div');
        d.setAttribute('style', 'color: red');
        document.body.appendChild(d);
        await new Promise((r) => setTimeout(r, 50));
        return { inline: window.__inline, styled: getComputedStyle(d).color === 'rgb(255, 0, 0)' };
      });
      assert.deepEqual(ran, { inline: false, styled: false });
      await collectCsp(page, log);
      const directives = log.cspViolations.map((v) => v.split(' ')[0]).sort();
      assert.ok(directives.includes('script-src-elem'), directives.join());
      assert.ok(directives.includes('style-src-attr'), directives.join());
      log.cspViolations.length = 0;
      log.consoleErrors.length = 0; // the browser reports each blocked item on the console
      log.assertClean(server.origin);
    });
  });
});
