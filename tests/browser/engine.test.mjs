// The engine adapter itself (engine.mjs), in whichever engine this run uses: the log catches
// every kind of trouble a page can make (so a clean log means something), clicks and keys reach
// the page as real input, and media features reach CSS.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE, ROOT, engine, openPage, serveDist, shareBrowser, withCleanPage, inContext } from './helpers.mjs';

let browser;
let server;

const TROUBLE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'; style-src 'self'">
<title>trouble</title>
<script src="/trouble.js"></script>
<script src="/missing.js"></script>
</head><body><p id="p">text</p></body></html>`;

const TROUBLE_JS = `
console.error('a console error');
setTimeout(() => { throw new Error('an uncaught error'); });
Promise.reject(new Error('a rejected promise'));
addEventListener('DOMContentLoaded', () => {
  const s = document.createElement('script');
  s.textContent = 'window.inlineRan = true;';
  document.head.appendChild(s);
});`;

const INPUT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>input</title><script src="/input.js"></script>
<link rel="stylesheet" href="/input.css"></head>
<body><button id="b">press</button><input id="t" aria-label="t"><select id="s" aria-label="s"><option>a</option><option>b</option></select>
<div id="far"></div><button id="low">low</button></body></html>`;

const INPUT_JS = `
window.seen = [];
addEventListener('DOMContentLoaded', () => {
  for (const id of ['b', 'low']) document.getElementById(id).addEventListener('click', (e) => seen.push(id + ':' + e.isTrusted));
  const b = document.getElementById('b');
  window.held = [];
  b.addEventListener('mousedown', (e) => { held.push(e.timeStamp); });
  b.addEventListener('mouseup', (e) => { held.push(e.timeStamp); });
  document.getElementById('t').addEventListener('keydown', (e) => seen.push('key:' + e.key + ':' + e.isTrusted));
  document.getElementById('s').addEventListener('change', () => seen.push('select:' + document.getElementById('s').value));
});`;

const INPUT_CSS = `
#far { height: 3000px; }
html { scroll-behavior: smooth; }
@media (prefers-color-scheme: dark) { body { background: rgb(0, 0, 0); } }
@media (prefers-reduced-motion: reduce) { html { scroll-behavior: auto; } }`;

shareBrowser((b, s) => { browser = b; server = s; }, {
  dir: null,
  pages: {
    '/trouble.html': { type: 'text/html; charset=utf-8', body: TROUBLE },
    '/trouble.js': { type: 'text/javascript', body: TROUBLE_JS },
    '/input.html': { type: 'text/html; charset=utf-8', body: INPUT },
    '/input.js': { type: 'text/javascript', body: INPUT_JS },
    '/input.css': { type: 'text/css', body: INPUT_CSS },
  },
});

describe(`the ${ENGINE} adapter`, () => {
  test('the browser table of tests/README.md names the version of this engine that the tests run', async () => {
    const doc = readFileSync(join(ROOT, 'tests', 'README.md'), 'utf8');
    const start = doc.indexOf('\n## Browsers');
    assert.ok(start >= 0, 'tests/README.md has a "## Browsers" section');
    const section = doc.slice(start, doc.indexOf('\n### ', start));
    const name = { chromium: 'Chromium', firefox: 'Firefox ESR', webkit: 'WebKitGTK' }[ENGINE];
    const row = section.split('\n').find((l) => l.startsWith(`| ${name} |`));
    assert.ok(row, `a row for ${name} in the browser table of tests/README.md`);
    const documented = /^\| [^|]+ \| (\d+(?:\.\d+)?)/.exec(row)?.[1];
    const running = String(await browser.version());
    // Chromium and Firefox by major version; WebKitGTK by major.minor (2.50).
    const ours = ENGINE === 'webkit' ? /\d+\.\d+/.exec(running)?.[0] : /\d+/.exec(running)?.[0];
    assert.equal(documented, ours, `tests/README.md says ${name} ${documented}; the tests run ${running}`);
  });

  test('the log records console errors, uncaught errors, rejections, failed loads and CSP violations', async () => {
    await inContext(browser, async (page, log) => {
      await page.goto(server.url('/trouble.html'));
      await page.waitForFunction(() => document.readyState === 'complete');
      await page.waitForTimeout(300);
      await page.harvest();
      const all = (list) => list.join('\n');
      assert.match(all(log.consoleErrors), /a console error/, 'console.error');
      assert.match(all(log.pageErrors), /an uncaught error/, 'uncaught error');
      assert.match(all([...log.pageErrors, ...log.consoleErrors]), /a rejected promise/, 'unhandled rejection');
      assert.match(all(log.failedRequests), /missing\.js/, 'failed load');
      assert.match(all(log.cspViolations), /script-src/, 'CSP violation');
      assert.equal(await page.evaluate(() => /** @type {any} */ (window).inlineRan), undefined, 'the inline script was blocked');
      assert.throws(() => log.assertClean(server.origin));
      if (engine.supports.requests) assert.ok(log.requests.some((u) => u.endsWith('/trouble.js')), 'requests are seen');
    });
  });

  test('requests to another origin are reported as outside', async () => {
    const other = await serveDist({ dir: null, pages: { '/x.js': { type: 'text/javascript', body: 'window.x = 1;' } } });
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(server.url('/input.html'));
      await page.evaluate((src) => new Promise((r) => { const s = document.createElement('script'); s.src = src; s.onload = r; document.head.appendChild(s); }), `${other.origin}/x.js`);
      await page.harvest();
      assert.deepEqual(log.outsideRequests(server.origin), [`${other.origin}/x.js`]);
    } finally {
      await context.close();
      await other.close();
    }
  });

  test('clicks (also held), keys and select reach the page as trusted input, off-screen elements included', async () => {
    await withCleanPage(browser, server.url('/input.html'), async (page) => {
      assert.deepEqual(await page.viewport(), { width: 800, height: 600 });
      await page.click('#b');
      await page.click('#low'); // 3000 px below
      await page.focus('#t');
      await page.keyboard.type('ab');
      await page.keyboard.press('Enter');
      await page.selectOption('#s', 'b');
      assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).seen),
        ['b:true', 'low:true', 'key:a:true', 'key:b:true', 'key:Enter:true', 'select:b']);
      assert.equal(await page.inputValue('#t'), 'ab');
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      assert.equal(await page.inputValue('#t'), '');
      // A click held as a person holds it: the button stays down about that long.
      await page.evaluate(() => { /** @type {any} */ (window).seen = []; /** @type {any} */ (window).held = []; });
      await page.click('#b', { hold: 150 });
      assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).seen), ['b:true']);
      const [down, up] = await page.evaluate(() => /** @type {any} */ (window).held);
      assert.ok(up - down >= 140 && up - down < 1000, `the button was held ${up - down} ms for { hold: 150 }`);
    }, { context: { viewport: { width: 800, height: 600 } }, ready: null });
  });

  for (const [colorScheme, reducedMotion] of [['dark', 'no-preference'], ['light', 'reduce']]) {
    test(`prefers-color-scheme: ${colorScheme} and prefers-reduced-motion: ${reducedMotion} reach CSS`, async () => {
      await inContext(browser, async (page) => {
        await page.goto(server.url('/input.html'));
        const got = await page.evaluate(() => ({
          dark: matchMedia('(prefers-color-scheme: dark)').matches,
          reduce: matchMedia('(prefers-reduced-motion: reduce)').matches,
          background: getComputedStyle(document.body).backgroundColor,
          scroll: getComputedStyle(document.documentElement).scrollBehavior,
        }));
        assert.deepEqual(got, {
          dark: colorScheme === 'dark',
          reduce: reducedMotion === 'reduce',
          background: colorScheme === 'dark' ? 'rgb(0, 0, 0)' : 'rgba(0, 0, 0, 0)',
          scroll: reducedMotion === 'reduce' ? 'auto' : 'smooth',
        });
      }, { colorScheme, reducedMotion });
    });
  }
});
