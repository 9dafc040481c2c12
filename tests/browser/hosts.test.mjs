// Real course sites. The embedding guide's own fenced blocks (web/EMBEDDING.md, the ones with a
// `title="…"`) are copied into a small MkDocs site (Material, and MkDocs' default theme), a
// small Sphinx site (Read the Docs theme) and a small Hugo site (the guide's shortcodes, in a
// bare theme), each with a page in a subfolder, built with Debian's /usr/bin/mkdocs,
// /usr/bin/sphinx-build and /usr/bin/hugo into build/hosts/<engine>/, and served on loopback; a plain page on a second
// origin takes the guide's plain-HTML and LMS snippets. In the browser, at 1280 and 390 px (with a
// dark system setting, Material at 390 px), every
// widget and iframe must show the module's numbers, frames must take their content's height
// without collapsing on the way, the quiz must report answers, the widgets' body text must be the
// size of the paragraph beside it, tables must not break an identifier, and nothing may log an
// error or fetch anything from outside. The gallery's suggested heights and the guide's LMS
// heights are checked against the rendered widgets. A quiz in Spanish on the plain page takes its
// language's file from i18n/ beside headwise-elements.js, on the origin that hosts dist/.
//
// Written against the engine adapter (engine.mjs): HEADWISE_BROWSER picks Chromium, Firefox ESR
// or WebKitGTK. Each site is built once per run; one browser serves every page.
// HEADWISE_SCREENSHOTS=1 also saves a full-page screenshot of every host page and width under
// build/hosts/<engine>/screenshots/ (Material is shot with a light and with a dark system setting).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DIST, ENGINE, ROOT, serveDist, shareBrowser, until } from './helpers.mjs';
import { t } from '../../web/src/shared/i18n/i18n.js';

const run = promisify(execFile);
/** One folder per engine: run.mjs may run two engines' files at once. */
const OUT = join(ROOT, 'build', 'hosts', ENGINE);
/** Everything the site server serves: material/, mkdocs/, rtd/, hugo/ (the built sites) and dist/. */
const WWW = join(OUT, 'www');
const SHOTS = process.env.HEADWISE_SCREENSHOTS === '1' ? join(OUT, 'screenshots') : null;
const MKDOCS = '/usr/bin/mkdocs';
const SPHINX = '/usr/bin/sphinx-build';
const HUGO = '/usr/bin/hugo';

const hw = await createRequire(import.meta.url)(join(DIST, 'headwise.js'))();

// ---- the guide's blocks -----------------------------------------------------------------------

const GUIDE = 'web/EMBEDDING.md';
const guide = await readFile(join(ROOT, GUIDE), 'utf8');

/** Every fenced block of the embedding guide that has a title, in order: [{title, lang, text}]. */
const BLOCKS = [...guide.matchAll(/^(`{3,})(\w*) title="([^"]+)"\n([\s\S]*?)^\1$/gm)].map((m) => ({ lang: m[2], title: m[3], text: m[4] }));

/**
 * The guide's block with this title (the nth, if several have it).
 * @param {string} title
 * @param {number} [nth]
 */
function block(title, nth = 0) {
  const found = BLOCKS.filter((b) => b.title === title);
  assert.ok(found[nth], `${GUIDE} has no block titled "${title}" (#${nth + 1}); titles: ${BLOCKS.map((b) => b.title).join(', ')}`);
  return found[nth].text;
}

/**
 * Where a copy step of the guide (`cp -r dist <dest>`) puts dist/.
 * @param {number} nth
 */
function copyDest(nth) {
  const m = /^cp -r dist (\S+)$/m.exec(block('copy', nth));
  assert.ok(m, 'the copy block says `cp -r dist <folder>`');
  return m[1];
}

// ---- building the sites -----------------------------------------------------------------------

/**
 * Write files (path → text) under dir.
 * @param {string} dir
 * @param {Record<string, string>} files
 */
async function writeAll(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** @param {string} docsPath  a guide block title such as "docs/week8/attention.md" */
const inDocs = (docsPath) => docsPath.replace(/^docs\//, '');

/**
 * An MkDocs site from the guide's blocks.
 * @param {string} name
 * @param {string} theme  the theme part of mkdocs.yml
 */
async function buildMkdocs(name, theme) {
  const dir = join(OUT, name);
  await rm(dir, { recursive: true, force: true });
  await writeAll(dir, {
    'mkdocs.yml': `site_name: Week 8\n${theme}${block('mkdocs.yml')}`,
    [`docs/${inDocs('docs/index.md')}`]: block('docs/index.md'),
    [`docs/${inDocs('docs/week8/attention.md')}`]: block('docs/week8/attention.md'),
  });
  await cp(DIST, join(dir, copyDest(0)), { recursive: true });
  await run(MKDOCS, ['build', '--quiet', '--strict', '-f', join(dir, 'mkdocs.yml'), '-d', join(WWW, name)], { cwd: dir });
}

/** The Sphinx site from the guide's blocks. */
async function buildSphinx() {
  const dir = join(OUT, 'rtd');
  await rm(dir, { recursive: true, force: true });
  await writeAll(join(dir, 'src'), {
    'conf.py': `project = "Week 8"\n${block('conf.py')}`,
    'index.rst': block('index.rst'),
    'week8/attention.rst': block('week8/attention.rst'),
  });
  await cp(DIST, join(dir, 'src', copyDest(1)), { recursive: true });
  await run(SPHINX, ['-q', '-W', '-b', 'html', join(dir, 'src'), join(WWW, 'rtd')], { cwd: dir });
}

/** A bare Hugo theme: each page's content in a plain document (any theme takes the shortcodes). */
const HUGO_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{ .Title }}</title></head>
<body><main>{{ .Content }}</main></body>
</html>
`;

/** The Hugo site from the guide's blocks, published under /hugo/. */
async function buildHugo() {
  const dir = join(OUT, 'hugo');
  await rm(dir, { recursive: true, force: true });
  await writeAll(dir, {
    'hugo.toml': 'title = "Week 8"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap", "404"]\n',
    'layouts/_default/single.html': HUGO_PAGE,
    'layouts/_default/list.html': HUGO_PAGE,
    'layouts/shortcodes/mha.html': block('layouts/shortcodes/mha.html'),
    'layouts/shortcodes/headwise-frame.html': block('layouts/shortcodes/headwise-frame.html'),
    'content/_index.md': block('content/_index.md'),
    'content/week8/attention.md': block('content/week8/attention.md'),
  });
  await cp(DIST, join(dir, copyDest(2)), { recursive: true });
  // Hugo keeps a cache, by default in the temporary directory; here it stays beside the site.
  await run(HUGO, ['--quiet', '--panicOnWarning', '--baseURL', 'http://127.0.0.1/hugo/', '--cacheDir', join(dir, '.hugo-cache'), '-s', dir, '-d', join(WWW, 'hugo')], { cwd: dir });
}

// ---- serving ----------------------------------------------------------------------------------

/**
 * The plain page on the second origin: the guide's plain-HTML and LMS snippets, pointed at the
 * hosted dist/, between paragraphs.
 * @param {string} hosted  the first origin's dist/ folder, ending in /
 */
function plainPage(hosted) {
  const at = (text) => text.replaceAll('https://example.org/headwise/', hosted);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Week 8</title></head>
<body>
<h1>Week 8</h1>
<p>A paragraph of the course page.</p>
${at(block('plain HTML: web components'))}
<p>Another paragraph of the course page.</p>
${at(block('plain HTML: iframe'))}
<p>The quiz, as an LMS page would show it:</p>
${at(block('LMS'))}
<p id="below">The text below the frames.</p>
</body>
</html>`;
}

// ---- in the page (each function runs in the page or a frame: nothing from outside) -------------

// Runs first in every page and frame: what the course site hears, and every height its frames take.
const RECORDER = `(() => {
  if (window.__hw) return;
  const hw = window.__hw = { quiz: [], warnings: [], frameHeights: {} };
  document.addEventListener('headwise-quiz', (e) => hw.quiz.push({ target: e.target.id || e.target.localName, detail: e.detail }));
  const warn = console.warn;
  console.warn = function (...args) { hw.warnings.push(args.map(String).join(' ')); return warn.apply(this, args); };
  const watch = () => {
    const ro = new ResizeObserver((entries) => {
      for (const entry of entries) (hw.frameHeights[new URL(entry.target.src).search] ||= []).push(Math.round(entry.target.getBoundingClientRect().height));
    });
    document.querySelectorAll('iframe').forEach((f) => ro.observe(f));
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();`;

/** In the page: every <mha-*> element drawn (module loaded, stylesheet applied, widgets ready). */
function allDrawn() {
  const els = [...document.querySelectorAll('body *')].filter((e) => e.localName.startsWith('mha-'));
  return document.readyState === 'complete' && els.every((el) => {
    const root = el.shadowRoot;
    const frame = root && root.querySelector('.mha-frame');
    const widgets = root ? [...root.querySelectorAll('.hw-widget:not(hw-status)')] : [];
    // The training section builds its models' blocks one per frame after it is ready (data-drawn);
    // the sentence's maps come once its model has loaded (data-model).
    return frame && !frame.hidden && widgets.length > 0 && widgets.every((w) => w.hasAttribute('data-ready') && !w.hasAttribute('data-busy') &&
      (w.localName !== 'hw-train' || w.hasAttribute('data-drawn')) && (w.localName !== 'hw-sentence' || w.hasAttribute('data-model')));
  }) && (document.getElementById('embed') ? els.length > 0 : true);
}

/** In the page: the content's height, as the embed page reports it. */
function contentHeightHere() {
  return Math.ceil(document.documentElement.getBoundingClientRect().height);
}

/**
 * In the page: for every <mha-*> element, its body text size, a paragraph's, the host page's
 * paragraph before it, identifiers or shapes broken across lines, overflow, background.
 */
function measureHere() {
  return [...document.querySelectorAll('body *')].filter((e) => e.localName.startsWith('mha-')).map((el) => {
    const root = /** @type {ShadowRoot} */ (el.shadowRoot);
    const body = root.querySelector('.mha-frame');
    const para = root.querySelector('.hw-widget p:not([class]), .hw-why p, legend, .hw-verdict');
    // The host page's paragraph nearest before the element (markdown may wrap it in a <p>).
    let p = el.previousElementSibling;
    let up = el;
    while (!p || p.localName !== 'p') {
      if (p) p = p.previousElementSibling;
      else {
        up = up.parentElement;
        if (!up || up === document.body) break;
        p = up.previousElementSibling;
      }
    }
    const broken = [...root.querySelectorAll('td code, th code, td.hw-mono, th.hw-mono')]
      .filter((c) => c.getClientRects().length > 1 || c.getBoundingClientRect().height > 2.2 * (parseFloat(getComputedStyle(c).lineHeight) || 20))
      .map((c) => c.textContent);
    const px = (e) => (e ? parseFloat(getComputedStyle(e).fontSize) : null);
    return {
      tag: el.localName,
      host: p && p.localName === 'p' ? px(p) : null,
      body: px(body),
      text: px(para),
      broken,
      overflow: Math.round(el.scrollWidth - el.clientWidth),
      background: getComputedStyle(el).backgroundColor,
    };
  });
}

/** In the page: one head table's weights (data-value: full precision). */
function headValuesHere(head) {
  const out = [];
  for (const td of document.querySelector('mha-heads').shadowRoot.querySelectorAll(`table.hw-weights[data-head="${head}"] td[data-row]`)) {
    (out[Number(td.dataset.row)] ||= [])[Number(td.dataset.col)] = Number(td.dataset.value);
  }
  return out;
}

/** In the page: the iframes, by a selector each (their src attribute). */
function framesHere() {
  return [...document.querySelectorAll('iframe')].map((f) => ({ sel: `iframe[src="${f.getAttribute('src')}"]`, headwise: f.hasAttribute('data-headwise'), search: new URL(f.src).search }));
}

// ---- in node ----------------------------------------------------------------------------------

/** Relative luminance of an "rgb(r, g, b)" colour. */
function luminance(rgb) {
  const [r, g, b] = rgb.match(/[\d.]+/g).slice(0, 3).map(Number).map((c) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

let browser;
let sites;
let other;
/** Font sizes measured, for the report. */
const report = [];

before(async () => {
  for (const tool of [MKDOCS, SPHINX, HUGO]) assert.ok(existsSync(tool), `${tool} is missing: run \`npm run setup\` (Debian's mkdocs, mkdocs-material, python3-sphinx, python3-sphinx-rtd-theme, hugo)`);
  await rm(WWW, { recursive: true, force: true });
  await mkdir(WWW, { recursive: true });
  await Promise.all([
    buildMkdocs('material', block('mkdocs.yml (Material)')),
    // The default theme loads highlight.js from a CDN unless told not to; these pages need none.
    buildMkdocs('mkdocs', 'theme:\n  name: mkdocs\n  highlightjs: false\n'),
    buildSphinx(),
    buildHugo(),
    cp(DIST, join(WWW, 'dist'), { recursive: true }),
  ]);
  sites = await serveDist({ dir: WWW });
  other = await serveDist({
    dir: null,
    pages: {
      '/week8.html': { type: 'text/html; charset=utf-8', body: plainPage(`${sites.origin}/dist/`) },
      '/blank.html': { type: 'text/html; charset=utf-8', body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body></body></html>' },
    },
  });
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
}, { timeout: 300000 });
shareBrowser((b) => { browser = b; }, null);

after(async () => {
  await sites?.close();
  await other?.close();
  if (report.length) {
    await writeFile(join(OUT, `fonts-${ENGINE}.json`), JSON.stringify(report, null, 1));
    console.log(report.map((r) => `${ENGINE} ${r.host} at ${r.width} px: ${r.tag} body ${r.bodyPx} px, paragraph ${r.textPx} px, host paragraph ${r.hostPx} px`).join('\n'));
  }
});

/**
 * Open a page with the recorder; `done` collects what went wrong.
 * @param {string} url
 * @param {{width: number, dark?: boolean}} options
 */
async function open(url, { width, dark = false }) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: dark ? 'dark' : 'light', reducedMotion: 'reduce' });
  await context.addInitScript(RECORDER);
  const page = await context.newPage();
  await page.goto(url);
  await page.evaluate(RECORDER_FN);
  /** Every error, failed or outside request and CSP violation the page and its frames had. */
  const problems = async () => {
    await page.harvest();
    const log = page.log;
    const outside = log.requests.filter((u) => !/^(data|blob|about):/.test(u) && !u.startsWith(sites.origin) && !u.startsWith(other.origin));
    return [...log.consoleErrors, ...log.pageErrors, ...log.failedRequests, ...log.cspViolations, ...outside.map((u) => `outside request: ${u}`)];
  };
  return { context, page, problems };
}

/** The recorder as a function, for engines that run init scripts only after the page loaded. */
const RECORDER_FN = new Function(RECORDER);

/**
 * Wait until every widget (in the page and in its frames) is drawn and every data-headwise frame
 * is as tall as its content.
 * @param {any} page
 */
async function settled(page) {
  const frames = await page.evaluate(framesHere);
  await until(() => page.evaluate(allDrawn), 'the page\'s widgets drawn');
  for (const f of frames) await until(() => page.frame(f.sel).evaluate(allDrawn), `the widget in ${f.sel} drawn`);
  for (const f of frames.filter((x) => x.headwise)) {
    await until(async () => {
      const inner = await page.frame(f.sel).evaluate(contentHeightHere);
      const outer = await page.evaluate((sel) => document.querySelector(sel).getBoundingClientRect().height, f.sel);
      return inner > 100 && Math.abs(inner - outer) <= 1;
    }, `${f.sel} at its content's height`);
  }
  return frames;
}

const HOSTS = [
  { name: 'MkDocs 1.4.2 + Material 8.2.5', site: 'material', dark: false, pages: [['index.html', 'index'], ['week8/attention/index.html', 'attention']] },
  // With a dark system setting, at the phone's width only: the widgets' colours are what it
  // changes (dark mode changes colours only: tests/js/dark-css.test.mjs), and they are checked
  // there; the light runs check the geometry at both widths.
  { name: 'MkDocs 1.4.2 + Material 8.2.5, dark system', site: 'material', dark: true, widths: [390], pages: [['index.html', 'index'], ['week8/attention/index.html', 'attention']] },
  { name: 'MkDocs 1.4.2, default theme', site: 'mkdocs', dark: false, pages: [['index.html', 'index'], ['week8/attention/index.html', 'attention']] },
  { name: 'Sphinx 5.3 + Read the Docs 1.2', site: 'rtd', dark: false, pages: [['index.html', 'index'], ['week8/attention.html', 'attention']] },
  // At the phone's width only: the desktop width's geometry is the same recipe's as the others'.
  { name: 'Hugo 0.111', site: 'hugo', dark: false, widths: [390], pages: [['index.html', 'index'], ['week8/attention/index.html', 'attention']] },
];

for (const host of HOSTS) {
  for (const width of host.widths || [1280, 390]) {
    describe(`${host.name} at ${width} px`, () => {
      for (const [path, label] of host.pages) {
        test(`${label} page: numbers, locks, frame heights, quiz, text size, tables, no errors`, { timeout: 180000 }, async () => {
          const { context, page, problems } = await open(`${sites.origin}/${host.site}/${path}`, { width, dark: host.dark });
          try {
            const frames = await settled(page);
            const params = frames.find((f) => f.sel.includes('widget=params'));
            const ex2 = frames.find((f) => f.sel.includes('widget=ex2'));
            if (label === 'index') {
              assert.ok(params, 'the index page has the parameter-table iframe');
              const totals = await page.frame(params.sel).evaluate(() => [...document.querySelector('mha-params').shadowRoot.querySelectorAll('[data-testid="param-total"]')].map((e) => e.textContent));
              assert.deepEqual(totals, [1, 2, 4, 8].map((h) => String(hw.parameterCount({ embedDim: 8, numHeads: h, bias: false }).total)));
            } else {
              // The element: the module's numbers; the locked head count shown, disabled, marked.
              const expected = hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
              assert.deepEqual(await page.evaluate(headValuesHere, 0), expected.headWeights[0]);
              assert.deepEqual(await page.evaluate(headValuesHere, 1), expected.headWeights[1]);
              assert.equal(await page.locator('mha-heads').locator('#num-heads').isVisible(), true, 'the locked head count is shown');
              assert.equal(await page.locator('mha-heads').locator('#num-heads').isDisabled(), true, 'the locked head count is disabled');
              assert.match(await page.evaluate(() => getComputedStyle(document.querySelector('mha-heads').shadowRoot.querySelector('label[for="num-heads"]'), '::after').content), /\(fixed\)/);
              assert.equal(await page.locator('mha-heads').locator('#tokens').isVisible(), false, 'a control not listed is hidden');
              // The iframe: exercise 2's rows, one per divisor of 12, each with the same total.
              assert.ok(ex2, 'the attention page has the exercise-2 iframe');
              const rows = await page.frame(ex2.sel).evaluate(() => [...document.querySelector('mha-exercise-dmodel').shadowRoot.querySelectorAll('[data-testid="ex2-row"]')].map((r) => r.textContent));
              assert.equal(rows.length, 6, `one row per divisor of 12: ${rows.join(' | ')}`);
              const total = String(hw.parameterCount({ embedDim: 12, numHeads: 1, bias: false }).total);
              assert.ok(rows.every((r) => r.endsWith(total)), `every row ends with ${total}: ${rows.join(' | ')}`);
              // The quiz: an answer becomes an event the course page hears.
              await page.locator('mha-quiz').locator('#q3-o2').check();
              const got = await until(() => page.evaluate(() => window.__hw.quiz[0]), 'a headwise-quiz event');
              assert.equal(got.target, 'week8-quiz');
              assert.deepEqual([got.detail.question, got.detail.answer, got.detail.correct, got.detail.score], [3, 2, true, 1]);
            }
            // Frames reach their content's height without going through 0 on the way.
            const heights = await page.evaluate(() => window.__hw.frameHeights);
            for (const [search, hs] of Object.entries(heights)) {
              assert.ok(Math.min(...hs) >= Math.min(hs[0], hs[hs.length - 1]) - 1, `frame ${search}: ${hs.join(' → ')} px`);
            }
            // Text size, identifiers, overflow and colours, in the page and in each frame.
            const all = [...(await page.evaluate(measureHere)).map((m) => ({ ...m, inFrame: false }))];
            for (const f of frames) all.push(...(await page.frame(f.sel).evaluate(measureHere)).map((m) => ({ ...m, inFrame: true })));
            for (const m of all) {
              assert.deepEqual(m.broken, [], `${m.tag}: identifiers or shapes broken across lines`);
              assert.ok(m.overflow <= 1, `${m.tag} is wider than its box by ${m.overflow} px`);
              if (m.inFrame) continue;
              assert.ok(m.host, `${m.tag} has a host paragraph before it`);
              assert.ok(Math.abs(m.body - m.host) <= 1, `${m.tag}: body text ${m.body} px beside the host's ${m.host} px`);
              assert.ok(Math.abs(m.text - m.host) <= 1, `${m.tag}: paragraph text ${m.text} px beside the host's ${m.host} px`);
              // No theme attribute: the widget follows the system, light or dark.
              assert.equal(luminance(m.background) < 0.2, host.dark, `${m.tag}: background ${m.background} with a ${host.dark ? 'dark' : 'light'} system`);
              report.push({ host: host.name, width, tag: m.tag, hostPx: m.host, bodyPx: m.body, textPx: m.text });
            }
            if (host.dark && label === 'attention') {
              // theme="light": a light widget on a light site, whatever the system says.
              await page.evaluate(() => document.querySelector('mha-heads').setAttribute('theme', 'light'));
              const colours = () => page.evaluate(() => {
                const el = document.querySelector('mha-heads');
                const td = el.shadowRoot.querySelector('td[data-row="0"][data-col="0"]');
                return [getComputedStyle(el).backgroundColor, getComputedStyle(td).backgroundColor];
              });
              // The heat map is redrawn on the store's next frame.
              await until(async () => luminance((await colours())[1]) > 0.3, 'the heat map redrawn light', 10000).catch(() => {});
              const [bg, cell] = await colours();
              assert.ok(luminance(bg) > 0.8, `theme="light": background ${bg}`);
              assert.ok(luminance(cell) > 0.3, `theme="light": a zero weight's cell ${cell} is drawn with the light ramp`);
            }
            if (SHOTS) await page.screenshot({ path: join(SHOTS, `${host.site}${host.dark ? '-dark' : ''}-${label}-${width}.png`), fullPage: true });
            assert.deepEqual(await problems(), []);
          } finally {
            await context.close();
          }
        });
      }
    });
  }
}

describe('a plain page on another origin, with the guide\'s plain-HTML and LMS snippets', () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: locks shown, lock and locked, unknown attributes named, theme=, text size`, { timeout: 180000 }, async () => {
      const { context, page, problems } = await open(`${other.origin}/week8.html`, { width });
      try {
        await settled(page);
        // The guide's example: controls="seed,tokens,query" locked="dModel,heads".
        for (const id of ['#d-model', '#num-heads']) {
          assert.equal(await page.locator('mha-heads').locator(id).isVisible(), true, `${id} is locked, so it is shown`);
          assert.equal(await page.locator('mha-heads').locator(id).isDisabled(), true, `${id} is locked`);
        }
        assert.equal(await page.locator('mha-heads').locator('#seed').isEnabled(), true);
        for (const m of await page.evaluate(measureHere)) {
          assert.deepEqual(m.broken, [], `${m.tag}: identifiers broken across lines`);
          assert.ok(Math.abs(m.body - m.host) <= 1, `${m.tag}: body text ${m.body} px beside the host's ${m.host} px`);
          report.push({ host: 'plain page', width, tag: m.tag, hostPx: m.host, bodyPx: m.body, textPx: m.text });
        }
        // Larger text around a widget: the widget's text follows it, not the root.
        const [around, inside] = await page.evaluate(async () => {
          const box = document.createElement('div');
          box.style.fontSize = '21px';
          const el = document.createElement('mha-params');
          box.appendChild(el);
          document.body.appendChild(box);
          for (let i = 0; i < 100 && !(el.shadowRoot && el.shadowRoot.querySelector('.hw-why p')); i += 1) await new Promise((r) => setTimeout(r, 100));
          return [21, parseFloat(getComputedStyle(el.shadowRoot.querySelector('.hw-why p')).fontSize)];
        });
        assert.ok(Math.abs(inside - around) <= 1, `inside 21 px text, the widget's paragraphs are ${inside} px`);
        // A misspelled attribute: a warning that names it and the accepted ones. `lock` works as `locked`.
        const locked = await page.evaluate(async () => {
          const typo = document.createElement('mha-params');
          typo.setAttribute('lokced', 'dModel');
          document.body.appendChild(typo);
          const el = document.createElement('mha-params');
          el.setAttribute('lock', 'dModel');
          document.body.appendChild(el);
          await new Promise((r) => setTimeout(r, 100));
          return el.shadowRoot.getElementById('d-model').disabled;
        });
        assert.equal(locked, true, 'lock="dModel" locks the control');
        if (width === 1280) {
          // A quiz in Spanish on this page of another origin: its language's file comes from
          // i18n/ beside headwise-elements.js, on the origin that hosts dist/.
          const es = await page.evaluate(async () => {
            const el = document.createElement('mha-quiz');
            el.setAttribute('lang', 'es');
            document.body.appendChild(el);
            for (let i = 0; i < 200 && !(el.shadowRoot && el.shadowRoot.querySelector('hw-quiz[data-ready]')); i += 1) await new Promise((r) => setTimeout(r, 100));
            const button = el.shadowRoot && el.shadowRoot.querySelector('hw-quiz button[aria-controls]');
            return { button: button && button.textContent, files: [...document.querySelectorAll('script[data-headwise-language]')].map((e) => /** @type {HTMLScriptElement} */ (e).src) };
          });
          assert.deepEqual(es, { button: t('quiz.show', {}, 'es'), files: [`${sites.origin}/dist/i18n/es.js`] });
        }
        const warning = await until(() => page.evaluate(() => window.__hw.warnings.find((w) => w.includes('"lokced"'))), 'a warning about "lokced"');
        assert.match(warning, /<mha-params>: "lokced" is not an attribute .* ignored\. It reads: .*locked, lock, exports, theme/);
        // The iframe takes theme= and locked= (as well as lock=) in its query.
        await page.evaluate((src) => {
          const f = document.createElement('iframe');
          f.id = 'themed';
          f.src = src;
          f.setAttribute('sandbox', 'allow-scripts');
          document.body.appendChild(f);
        }, `${sites.origin}/dist/embed.html?widget=params&dModel=8&locked=dModel&theme=dark`);
        const themed = page.frame('#themed');
        await until(() => themed.evaluate(() => document.querySelector('mha-params') !== null && document.readyState === 'complete'), 'the themed frame');
        await until(() => themed.evaluate(allDrawn), 'the themed frame drawn');
        const [bg, disabled] = await themed.evaluate(() => {
          const el = document.querySelector('mha-params');
          return [getComputedStyle(el).backgroundColor, el.shadowRoot.getElementById('d-model').disabled];
        });
        assert.ok(luminance(bg) < 0.05, `theme=dark with a light system: background ${bg}`);
        assert.equal(disabled, true, 'locked= in the query locks the control');
        const heights = await page.evaluate(() => window.__hw.frameHeights);
        for (const [search, hs] of Object.entries(heights)) {
          assert.ok(Math.min(...hs) >= Math.min(hs[0], hs[hs.length - 1]) - 1, `frame ${search}: ${hs.join(' → ')} px`);
        }
        assert.deepEqual(await problems(), []);
      } finally {
        await context.close();
      }
    });
  }
});

describe('suggested heights', () => {
  /**
   * The height of a widget's embed.html at a width, as the page measures it for its messages.
   * @param {string} src
   * @param {number} width
   */
  async function contentHeight(src, width) {
    const context = await browser.newContext({ viewport: { width: width + 40, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${other.origin}/blank.html`);
      await page.evaluate(({ s, w }) => {
        const f = document.createElement('iframe');
        f.id = 'probe';
        f.src = s;
        f.setAttribute('sandbox', 'allow-scripts');
        f.style.width = `${w}px`;
        f.style.height = '300px';
        f.style.border = '0';
        document.body.appendChild(f);
      }, { s: src, w: width });
      const frame = page.frame('#probe');
      await until(() => frame.evaluate(() => document.querySelector('[data-testid="embed"] > *') !== null), 'the widget placed');
      await until(() => frame.evaluate(allDrawn), 'the widget drawn', 120000);
      await new Promise((r) => setTimeout(r, 300));
      return await frame.evaluate(contentHeightHere);
    } finally {
      await context.close();
    }
  }

  test('the gallery\'s iframe heights fit each widget at 720 px, with a margin', { timeout: 600000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${sites.origin}/dist/gallery.html`);
    const snippets = await page.locator('[data-testid^="snippet-iframe-"]').evaluateAll((els) => els.map((e) => e.textContent));
    await context.close();
    assert.equal(snippets.length, 13);  // every widget of the gallery, the three training widgets, the sentence and the circuits included
    const rows = [];
    const wrong = [];
    for (const text of snippets) {
      const src = /src="([^"]+)"/.exec(text)[1];
      const suggested = Number(/height="(\d+)"/.exec(text)[1]);
      const needed = await contentHeight(src, 720);
      const widget = new URL(src).searchParams.get('widget');
      rows.push(`${widget} ${suggested}/${needed}`);
      if (suggested < needed + 20) wrong.push(`${widget}: suggested ${suggested} px, the content needs ${needed} px at 720 px (and a margin)`);
      // Engines lay a widget out differently (up to a quarter taller in one than another).
      if (suggested > needed * 1.4 + 100) wrong.push(`${widget}: suggested ${suggested} px, far more than the ${needed} px needed at 720 px`);
    }
    console.log(`${ENGINE}: gallery heights (suggested/needed at 720 px): ${rows.join(', ')}`);
    assert.deepEqual(wrong, []);
  });

  test('the guide\'s LMS frame fits at 480 px', { timeout: 300000 }, async () => {
    const text = block('LMS');
    const src = /src="([^"]+)"/.exec(text)[1].replace('https://example.org/headwise/', `${sites.origin}/dist/`);
    const suggested = Number(/height="(\d+)"/.exec(text)[1]);
    const needed = await contentHeight(src, 480);
    console.log(`${ENGINE}: the guide's LMS frame at 480 px: height ${suggested}, needed ${needed}`);
    assert.ok(suggested >= needed, `the guide's LMS frame is ${suggested} px high, the content needs ${needed} px at 480 px`);
  });
});
