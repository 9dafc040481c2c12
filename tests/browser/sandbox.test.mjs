// The iframe embed exactly as web/EMBEDDING.md gives it for Canvas, Moodle and Open edX: a course page
// on one loopback origin, under a strict Content-Security-Policy of its own, embeds embed.html
// from another origin in <iframe sandbox="allow-scripts">. The frame's origin is then opaque;
// in every engine the widget must still load, show the module's numbers, post its height, and
// log no CSP violation, while its own policy still refuses scripts and images from elsewhere. A
// second frame asks for Chinese: its language's file comes from the frame's folder too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serveDist, shareBrowser } from './helpers.mjs';
import { t } from '../../web/src/shared/i18n/i18n.js';

const QUERY = 'widget=heads&seed=7&tokens=5&dModel=8&heads=2&id=sandboxed';

const HOST_JS = `
window.heights = [];
window.addEventListener('message', (e) => {
  if (e.data && e.data.type === 'headwise:height' && e.data.id === 'sandboxed') window.heights.push(e.data.height);
});`;

let hosted;
let host;
let other;
let page;

before(async () => {
  hosted = await serveDist();
  other = await serveDist({ dir: null, pages: { '/x.js': { type: 'text/javascript', body: 'window.foreign = true;' } } });
  const hostPolicy = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; frame-src ${hosted.origin}; base-uri 'none'`;
  host = await serveDist({
    dir: null,
    pages: {
      '/course.html': {
        type: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': hostPolicy },
        body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Week 8</title><script src="/course.js"></script></head>
<body><h1>Week 8: multi-head attention</h1>
<iframe id="frame" sandbox="allow-scripts" title="Head tables" src="${hosted.origin}/embed.html?${QUERY}" width="760" height="200"></iframe>
<iframe id="zh" sandbox="allow-scripts" title="Quiz" src="${hosted.origin}/embed.html?widget=quiz&lang=zh-CN&id=zh" width="760" height="400"></iframe>
</body></html>`,
      },
      '/course.js': { type: 'text/javascript', body: HOST_JS },
    },
  });
});
shareBrowser(async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  page = await context.newPage();
  await page.goto(host.url('/course.html'));
  return () => context.close();
}, null);
after(async () => {
  for (const s of [hosted, host, other]) await s?.close();
});

test('the sandboxed cross-origin frame shows the module\'s numbers', async () => {
  const frame = page.frame('#frame');
  const cell = (h, r, c) => frame.locator(`table[data-head="${h}"] td[data-row="${r}"][data-col="${c}"]`).textContent();
  await frame.locator('hw-head-weights[data-ready]').waitFor({ state: 'attached', timeout: 30000 });
  assert.equal(await cell(0, 0, 2), '0.424');
  assert.equal(await cell(0, 0, 3), '0.576');
  assert.equal(await cell(1, 0, 4), '1');
  // Its styles arrived too: the embed page's body margin and the tables' shading.
  assert.equal(await frame.evaluate(() => getComputedStyle(document.body).marginTop), '0px');
  assert.notEqual(await frame.locator('table[data-head="0"] td[data-row="0"][data-col="3"]').evaluate((td) => getComputedStyle(td).backgroundColor), 'rgba(0, 0, 0, 0)');
  // The frame's origin is opaque, as the sandbox makes it.
  assert.equal(await frame.evaluate(() => window.origin), 'null');
});

test('it posts its content height to the course page', async () => {
  const height = await page.waitForFunction(() => {
    const hs = /** @type {any} */ (window).heights;
    return hs.length ? hs[hs.length - 1] : 0;
  });
  const inner = await page.frame('#frame').evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  assert.ok(height > 300, `height ${height}`);
  assert.ok(Math.abs(inner - height) <= 1, `content ${inner}px, posted ${height}px`);
});

test('a quiz in Chinese (lang=zh-CN): its language\'s file, i18n/zh-CN.js, loads from the frame\'s folder under its policy', async () => {
  const frame = page.frame('#zh');
  await frame.locator('hw-quiz[data-ready]').waitFor({ state: 'attached', timeout: 30000 });
  const shown = await frame.evaluate(() => {
    const quiz = /** @type {Element} */ (document.querySelector('mha-quiz'));
    const root = /** @type {ShadowRoot} */ (quiz.shadowRoot);
    return { page: document.documentElement.lang, frame: root.querySelector('.mha-frame').getAttribute('lang'), title: document.title, button: root.querySelector('hw-quiz button[aria-controls]').textContent };
  });
  assert.deepEqual(shown, { page: 'zh-CN', frame: 'zh-CN', title: t('embed.title', {}, 'zh-CN'), button: t('quiz.show', {}, 'zh-CN') });
  assert.notEqual(shown.button, t('quiz.show', {}, 'en'));
  assert.equal(hosted.served.filter((p) => p === '/i18n/zh-CN.js').length, 1, `requested once: ${hosted.served.join(', ')}`);
});

test('no CSP violation, console error or uncaught error in the course page or the frame', async () => {
  await page.harvest();
  assert.deepEqual(page.log.cspViolations, []);
  assert.deepEqual(page.log.consoleErrors, []);
  assert.deepEqual(page.log.pageErrors, []);
});

test('the frame\'s own policy still refuses scripts and images from elsewhere, and inline scripts', async () => {
  const frame = page.frame('#frame');
  const result = await frame.evaluate(async (origin) => {
    const load = (el) => new Promise((resolve) => {
      el.onload = () => resolve('loaded');
      el.onerror = () => resolve('refused');
      setTimeout(() => resolve('no answer'), 3000);
      document.body.appendChild(el);
    });
    const script = document.createElement('script');
    script.src = `${origin}/x.js`;
    const img = document.createElement('img');
    img.src = `${origin}/x.png`;
    img.alt = '';
    const inline = document.createElement('script');
    inline.textContent = 'window.inlineRan = true;';
    document.body.appendChild(inline);
    const out = { script: await load(script), img: await load(img), foreign: !!(/** @type {any} */ (window).foreign), inline: !!(/** @type {any} */ (window).inlineRan) };
    await new Promise((r) => setTimeout(r, 100));
    return out;
  }, other.origin);
  // Refused loads fire 'error' in Chromium and Firefox; WebKit fires neither 'load' nor 'error'.
  assert.notEqual(result.script, 'loaded');
  assert.notEqual(result.img, 'loaded');
  assert.deepEqual({ foreign: result.foreign, inline: result.inline }, { foreign: false, inline: false });
  await page.harvest();
  const directives = page.log.cspViolations.map((v) => v.split(' ')[0]).sort();
  assert.ok(directives.some((d) => d.startsWith('script-src')), directives.join());
  assert.ok(directives.some((d) => d.startsWith('img-src')), directives.join());
  assert.deepEqual(other.served, [], 'nothing reached the other origin');
});
