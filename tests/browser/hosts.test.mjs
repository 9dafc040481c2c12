// Real course sites. The README's own fenced blocks (the ones with a `title="…"`) are copied into
// a small MkDocs site (Material, and MkDocs' default theme) and a small Sphinx site (Read the Docs
// theme), each with a page in a subfolder, built with Debian's /usr/bin/mkdocs and
// /usr/bin/sphinx-build into build/hosts/, and served on loopback; a plain page on a second
// origin takes the README's plain-HTML and LMS snippets. In the browser, at 1280 and 390 px, every
// widget and iframe must show the module's numbers, frames must take their content's height
// without collapsing on the way, the quiz must report answers, the widgets' body text must be the
// size of the paragraph beside it, tables must not break an identifier, and nothing may log an
// error or fetch anything from outside. The gallery's suggested heights and the README's LMS
// heights are checked against the rendered widgets.
//
// HEADWISE_SCREENSHOTS=1 also saves a full-page screenshot of every host page and width under
// build/hosts/screenshots/ (Material is shot with a light and with a dark system setting).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { DIST, ROOT, launch } from './helpers.mjs';

const run = promisify(execFile);
const OUT = join(ROOT, 'build', 'hosts');
const SHOTS = process.env.HEADWISE_SCREENSHOTS === '1' ? join(OUT, 'screenshots') : null;
const MKDOCS = '/usr/bin/mkdocs';
const SPHINX = '/usr/bin/sphinx-build';

const hw = await createRequire(import.meta.url)(join(DIST, 'headwise.js'))();

// ---- the README's blocks ----------------------------------------------------------------------

const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
const guide = readme.slice(readme.indexOf('## Embed in your course'), readme.indexOf('\n## ', readme.indexOf('## Embed in your course') + 5));

/** Every fenced block of the embedding guide that has a title, in order: [{title, lang, text}]. */
const BLOCKS = [...guide.matchAll(/^(`{3,})(\w*) title="([^"]+)"\n([\s\S]*?)^\1$/gm)].map((m) => ({ lang: m[2], title: m[3], text: m[4] }));

/**
 * The README's block with this title (the nth, if several have it).
 * @param {string} title
 * @param {number} [nth]
 */
function block(title, nth = 0) {
  const found = BLOCKS.filter((b) => b.title === title);
  assert.ok(found[nth], `README "Embed in your course" has no block titled "${title}" (#${nth + 1}); titles: ${BLOCKS.map((b) => b.title).join(', ')}`);
  return found[nth].text;
}

/**
 * Where a README copy step (`cp -r dist <dest>`) puts dist/.
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

/** @param {string} docsPath  a README block title such as "docs/week8/attention.md" */
const inDocs = (docsPath) => docsPath.replace(/^docs\//, '');

/**
 * An MkDocs site from the README's blocks.
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
  await run(MKDOCS, ['build', '--quiet', '--strict', '-f', join(dir, 'mkdocs.yml'), '-d', join(dir, 'site')], { cwd: dir });
  return join(dir, 'site');
}

/** The Sphinx site from the README's blocks. */
async function buildSphinx() {
  const dir = join(OUT, 'rtd');
  await rm(dir, { recursive: true, force: true });
  await writeAll(join(dir, 'src'), {
    'conf.py': `project = "Week 8"\n${block('conf.py')}`,
    'index.rst': block('index.rst'),
    'week8/attention.rst': block('week8/attention.rst'),
  });
  await cp(DIST, join(dir, 'src', copyDest(1)), { recursive: true });
  await run(SPHINX, ['-q', '-W', '-b', 'html', join(dir, 'src'), join(dir, 'html')], { cwd: dir });
  return join(dir, 'html');
}

/**
 * The plain page on the second origin: the README's plain-HTML and LMS snippets, pointed at the
 * hosted dist/, between two paragraphs.
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

// ---- serving ----------------------------------------------------------------------------------

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.json': 'application/json', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf',
};

/**
 * A static server on 127.0.0.1: `/<prefix>/…` from each root; `pages` from memory.
 * @param {Record<string, string>} roots  prefix → folder
 * @param {Record<string, string>} [pages] path → html
 */
async function serve(roots, pages = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (pages[path]) {
      res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-store' }).end(pages[path]);
      return;
    }
    const prefix = path.split('/')[1];
    const dir = roots[prefix];
    let file = dir ? normalize(join(dir, path.slice(prefix.length + 1))) : '';
    if (!dir || (file !== dir && !file.startsWith(dir + sep))) {
      res.writeHead(404).end();
      return;
    }
    if (path.endsWith('/')) file = join(file, 'index.html');
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}

// ---- in the page ------------------------------------------------------------------------------

// Runs first in the page: what the course site would hear, and every height its frames take.
const RECORDER = `
window.__hw = { quiz: [], heights: [], frameHeights: {} };
document.addEventListener('headwise-quiz', (e) => window.__hw.quiz.push({ target: e.target.id || e.target.localName, detail: e.detail }));
window.addEventListener('message', (e) => {
  if (!e.data || e.data.type !== 'headwise:height') return;
  const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === e.source);
  window.__hw.heights.push({ ...e.data, src: frame ? frame.src : null });
});
document.addEventListener('DOMContentLoaded', () => {
  const ro = new ResizeObserver((entries) => {
    for (const entry of entries) (window.__hw.frameHeights[new URL(entry.target.src).search] ||= []).push(Math.round(entry.target.getBoundingClientRect().height));
  });
  document.querySelectorAll('iframe').forEach((f) => ro.observe(f));
});`;

/**
 * Poll until fn() returns a truthy value.
 * @template T
 * @param {() => Promise<T>} fn
 * @param {string} what
 */
async function until(fn, what, timeout = 30000) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every widget of a page or frame drawn (or showing why it could not be). */
function widgetsDrawn(frame) {
  return frame.evaluate(() => document.readyState === 'complete' && [...document.querySelectorAll('body *')].filter((e) => e.localName.startsWith('mha-')).every((el) => {
    const widgets = [...(el.shadowRoot ? el.shadowRoot.querySelectorAll('.hw-widget:not(hw-status)') : [])];
    const frameEl = el.shadowRoot && el.shadowRoot.querySelector('.mha-frame');
    return frameEl && !frameEl.hidden && widgets.length > 0 && widgets.every((w) => w.hasAttribute('data-ready') && !w.hasAttribute('data-busy'));
  }));
}

/**
 * Measurements of every <mha-*> element in a frame: font sizes (the element's, its frame's body
 * text, the paragraph before it in the host page), identifiers broken across lines, overflow.
 */
function measure(frame) {
  return frame.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.localName.startsWith('mha-')).map((el) => {
    const root = /** @type {ShadowRoot} */ (el.shadowRoot);
    const body = root.querySelector('.mha-frame');
    const para = root.querySelector('.hw-widget p:not([class]), .hw-why p, legend, .hw-verdict');
    // The host page's paragraph nearest before the element.
    let p = el.previousElementSibling;
    let up = el;
    while (!p || p.localName !== 'p') {
      if (p) p = p.previousElementSibling;
      else { up = up.parentElement; if (!up || up === document.body) break; p = up.previousElementSibling; }
    }
    const broken = [...root.querySelectorAll('td code, th code, td.hw-mono, th.hw-mono')]
      .filter((c) => c.getClientRects().length > 1 || c.getBoundingClientRect().height > 2.2 * parseFloat(getComputedStyle(c).lineHeight || '20'))
      .map((c) => c.textContent);
    const px = (e) => (e ? parseFloat(getComputedStyle(e).fontSize) : null);
    return {
      tag: el.localName,
      id: el.id,
      host: p && p.localName === 'p' ? px(p) : null,
      body: px(body),
      text: px(para),
      broken,
      overflow: Math.round(el.scrollWidth - el.clientWidth),
      background: getComputedStyle(body).backgroundColor !== 'rgba(0, 0, 0, 0)' ? getComputedStyle(body).backgroundColor : getComputedStyle(el).backgroundColor,
    };
  }));
}

/** The text of one head table's value cells (data-value: full precision). */
function headValues(frame, head) {
  return frame.evaluate((h) => {
    const el = document.querySelector('mha-heads');
    const out = [];
    for (const td of el.shadowRoot.querySelectorAll(`table.hw-weights[data-head="${h}"] td[data-row]`)) {
      (out[Number(td.dataset.row)] ||= [])[Number(td.dataset.col)] = Number(td.dataset.value);
    }
    return out;
  }, head);
}

/** Relative luminance of an "rgb(r, g, b)" colour. */
function luminance(rgb) {
  const [r, g, b] = rgb.match(/[\d.]+/g).slice(0, 3).map(Number).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// ---- the run ----------------------------------------------------------------------------------

let browser;
let sites;
let other;
const built = {};
/** Font sizes measured, for the report: host → rows. */
const report = [];

before(async () => {
  for (const tool of [MKDOCS, SPHINX]) assert.ok(existsSync(tool), `${tool} is missing: run \`npm run setup\` (Debian's mkdocs, mkdocs-material, python3-sphinx, python3-sphinx-rtd-theme)`);
  await mkdir(OUT, { recursive: true });
  const [material, mkdocs, rtd] = await Promise.all([
    buildMkdocs('material', `${block('mkdocs.yml (Material)')}`),
    // The default theme loads highlight.js from a CDN unless told not to; these pages need none.
    buildMkdocs('mkdocs', 'theme:\n  name: mkdocs\n  highlightjs: false\n'),
    buildSphinx(),
  ]);
  Object.assign(built, { material, mkdocs, rtd });
  sites = await serve({ material, mkdocs, rtd, dist: DIST });
  other = await serve({}, { '/week8.html': plainPage(`${sites.origin}/dist/`), '/blank.html': '<!doctype html><title>blank</title>' });
  browser = await launch();
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
}, { timeout: 180000 });

after(async () => {
  await browser?.close();
  await sites?.close();
  await other?.close();
  if (report.length) {
    await writeFile(join(OUT, 'fonts.json'), JSON.stringify(report, null, 1));
    console.log(report.map((r) => `${r.host.padEnd(22)} ${String(r.width).padStart(4)} px  ${r.tag.padEnd(20)} host p ${r.hostPx} px, widget body ${r.bodyPx} px, widget text ${r.textPx} px`).join('\n'));
  }
});

/**
 * Open a page with every collector attached.
 * @param {{width: number, dark?: boolean}} options
 */
async function open(url, { width, dark = false }) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: dark ? 'dark' : 'light', reducedMotion: 'reduce' });
  await context.addInitScript(RECORDER);
  const page = await context.newPage();
  const problems = [];
  const warnings = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()} (${m.location().url})`);
    if (m.type() === 'warning') warnings.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(sites.origin) && !u.startsWith(other.origin) && !u.startsWith('data:') && !u.startsWith('blob:') && !u.startsWith('about:')) problems.push(`outside request: ${u}`);
  });
  await page.goto(url);
  return { context, page, problems, warnings };
}

/** Wait until every frame's widgets are drawn and every data-headwise frame has its content height. */
async function settled(page) {
  await until(async () => {
    for (const f of page.frames()) if (!(await widgetsDrawn(f).catch(() => false))) return false;
    return true;
  }, 'every widget drawn');
  await until(() => page.evaluate(() => [...document.querySelectorAll('iframe[data-headwise]')].every((f) => {
    const got = window.__hw.heights.filter((m) => m.src === f.src);
    return got.length > 0 && Math.abs(f.getBoundingClientRect().height - got[got.length - 1].height) < 1;
  })), 'every frame at its content height');
}

const PAGES = {
  material: [['', 'index'], ['week8/attention/', 'attention']],
  mkdocs: [['', 'index'], ['week8/attention/', 'attention']],
  rtd: [['index.html', 'index'], ['week8/attention.html', 'attention']],
};

const HOSTS = [
  { name: 'MkDocs 1.4.2 + Material 8.2.5', site: 'material', dark: false },
  { name: 'MkDocs 1.4.2 + Material 8.2.5, dark OS', site: 'material', dark: true },
  { name: 'MkDocs 1.4.2 default theme', site: 'mkdocs', dark: false },
  { name: 'Sphinx 5.3 + RTD 1.2', site: 'rtd', dark: false },
];

for (const host of HOSTS) {
  for (const width of [1280, 390]) {
    describe(`${host.name} at ${width} px`, () => {
      for (const [path, label] of PAGES[host.site]) {
        test(`${label} page: numbers, heights, quiz, text size, tables, no errors`, { timeout: 120000 }, async () => {
          const { context, page, problems } = await open(`${sites.origin}/${host.site}/${path}`, { width, dark: host.dark });
          try {
            await settled(page);
            const frames = page.frames().filter((f) => f !== page.mainFrame());
            const params = frames.find((f) => f.url().includes('widget=params'));
            const ex2 = frames.find((f) => f.url().includes('widget=ex2'));
            if (label === 'index') {
              assert.ok(params, 'the index page has the parameter-table iframe');
              const totals = await params.evaluate(() => [...document.querySelector('mha-params').shadowRoot.querySelectorAll('[data-testid="param-total"]')].map((e) => e.textContent));
              const expected = [1, 2, 4, 8].map((h) => String(hw.parameterCount({ embedDim: 8, numHeads: h, bias: false }).total));
              assert.deepEqual(totals, expected);
            } else {
              // The element: the module's numbers, the locked control shown and marked.
              const expected = hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });
              assert.deepEqual(await headValues(page.mainFrame(), 0), expected.headWeights[0]);
              assert.deepEqual(await headValues(page.mainFrame(), 1), expected.headWeights[1]);
              const heads = page.locator('mha-heads #num-heads');
              assert.equal(await heads.isVisible(), true, 'the locked head count is shown');
              assert.equal(await heads.isDisabled(), true, 'the locked head count is disabled');
              assert.match(await page.locator('mha-heads').evaluate((el) => getComputedStyle(el.shadowRoot.querySelector('label[for="num-heads"]'), '::after').content), /\(fixed\)/);
              assert.equal(await page.locator('mha-heads #tokens').isVisible(), false, 'a control not listed is hidden');
              // The iframe: exercise 2's totals for every divisor of 12, and 5 heads refused.
              assert.ok(ex2, 'the attention page has the exercise-2 iframe');
              const rows = await ex2.evaluate(() => [...document.querySelector('mha-exercise-dmodel').shadowRoot.querySelectorAll('[data-testid="ex2-row"]')].map((r) => r.textContent));
              assert.equal(rows.length, 6, `one row per divisor of 12: ${rows.join(' | ')}`);
              assert.ok(rows.every((r) => r.includes(String(hw.parameterCount({ embedDim: 12, numHeads: 1, bias: false }).total))));
              // The quiz: an answer becomes an event the course page hears.
              await page.locator('mha-quiz #q3-o2').evaluate((e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
              await page.locator('mha-quiz #q3-o2').check();
              const got = await until(() => page.evaluate(() => window.__hw.quiz[0]), 'a headwise-quiz event');
              assert.equal(got.target, 'week8-quiz');
              assert.deepEqual([got.detail.question, got.detail.answer, got.detail.correct, got.detail.score], [3, 2, true, 1]);
            }
            // Frames: their content height, reached without passing through 0.
            const frameHeights = await page.evaluate(() => window.__hw.frameHeights);
            for (const [src, hs] of Object.entries(frameHeights)) {
              if (!src.startsWith('?')) continue;
              const first = hs[0];
              const last = hs[hs.length - 1];
              assert.ok(Math.min(...hs) >= Math.min(first, last) - 1, `frame ${src} went through ${Math.min(...hs)} px on its way from ${first} to ${last} px`);
            }
            // Text size, identifiers, overflow, in the page and in each frame.
            const rows = [];
            for (const f of page.frames()) {
              for (const m of await measure(f)) {
                const inFrame = f !== page.mainFrame();
                rows.push({ ...m, inFrame });
                assert.deepEqual(m.broken, [], `${m.tag}: identifiers or shapes broken across lines`);
                assert.ok(m.overflow <= 1, `${m.tag} overflows its box by ${m.overflow} px`);
                if (!inFrame) {
                  assert.ok(m.host, `${m.tag} has a host paragraph before it`);
                  assert.ok(Math.abs(m.body - m.host) <= 1, `${m.tag}: body text ${m.body} px beside the host's ${m.host} px`);
                  assert.ok(Math.abs(m.text - m.host) <= 1, `${m.tag}: paragraph text ${m.text} px beside the host's ${m.host} px`);
                  // No theme attribute: the widget follows the system, light or dark.
                  assert.equal(luminance(m.background) < 0.2, host.dark, `${m.tag} background ${m.background} with a ${host.dark ? 'dark' : 'light'} system`);
                  report.push({ host: host.name, width, tag: m.tag, hostPx: m.host, bodyPx: m.body, textPx: m.text });
                }
              }
            }
            if (host.dark && label === 'attention') {
              // theme="light": a light widget on a light site, whatever the system says.
              const bg = await page.locator('mha-heads').evaluate(async (el) => {
                el.setAttribute('theme', 'light');
                await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
                const cell = el.shadowRoot.querySelector('td[data-row="0"][data-col="0"]');
                return [getComputedStyle(el).backgroundColor, getComputedStyle(cell).backgroundColor];
              });
              assert.ok(luminance(bg[0]) > 0.8, `theme="light" background ${bg[0]}`);
              assert.ok(luminance(bg[1]) > 0.3, `theme="light" heat-map cell ${bg[1]} is drawn with the light ramp`);
            }
            if (SHOTS) await page.screenshot({ path: join(SHOTS, `${host.site}${host.dark ? '-dark' : ''}-${label}-${width}.png`), fullPage: true });
            assert.deepEqual(problems, []);
          } finally {
            await context.close();
          }
        });
      }
    });
  }
}

describe('a plain page on another origin, with the README\'s plain-HTML and LMS snippets', () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: locks shown, unknown attributes named, text size, frames that never collapse`, { timeout: 120000 }, async () => {
      const { context, page, problems, warnings } = await open(`${other.origin}/week8.html`, { width });
      try {
        await settled(page);
        // The README's example: controls="seed,tokens,query" locked="dModel,heads".
        for (const id of ['#d-model', '#num-heads']) {
          const input = page.locator(`mha-heads ${id}`);
          assert.equal(await input.isVisible(), true, `${id} is locked, so it is shown`);
          assert.equal(await input.isDisabled(), true, `${id} is locked`);
        }
        assert.equal(await page.locator('mha-heads #seed').isEnabled(), true);
        // A misspelled attribute: a warning that names it and the accepted ones.
        await page.evaluate(() => {
          const el = document.createElement('mha-params');
          el.setAttribute('d-model', '8');
          el.setAttribute('lokced', 'dModel');
          document.body.appendChild(el);
        });
        const warning = await until(async () => warnings.find((w) => w.includes('"lokced"')), 'a warning about "lokced"');
        assert.match(warning, /<mha-params>.*"lokced".*ignored.*locked, lock, exports, theme/);
        // `lock` works on elements as it does in the query.
        const locked = await page.evaluate(async () => {
          const el = document.createElement('mha-params');
          el.setAttribute('lock', 'dModel');
          document.body.appendChild(el);
          await new Promise((r) => setTimeout(r, 50));
          return el.shadowRoot.getElementById('d-model').disabled;
        });
        assert.equal(locked, true);
        // The iframe takes theme= and locked= (as well as lock=) in its query.
        const src = `${sites.origin}/dist/embed.html?widget=params&dModel=8&locked=dModel&theme=dark`;
        await page.evaluate((s) => {
          const f = document.createElement('iframe');
          f.src = s;
          f.setAttribute('sandbox', 'allow-scripts');
          document.body.appendChild(f);
        }, src);
        const themed = await until(async () => page.frames().find((f) => f.url() === src), 'the themed frame');
        await until(() => widgetsDrawn(themed).catch(() => false), 'the themed frame drawn');
        const [bg, disabled] = await themed.evaluate(() => {
          const el = document.querySelector('mha-params');
          return [getComputedStyle(el).backgroundColor, el.shadowRoot.getElementById('d-model').disabled];
        });
        assert.ok(luminance(bg) < 0.05, `theme=dark in a light system: background ${bg}`);
        assert.equal(disabled, true, 'locked= in the query locks the control');
        for (const m of await measure(page.mainFrame())) {
          if (!m.host) continue;
          assert.deepEqual(m.broken, [], `${m.tag}: identifiers broken across lines`);
          assert.ok(Math.abs(m.body - m.host) <= 1, `${m.tag}: body text ${m.body} px beside the host's ${m.host} px`);
          report.push({ host: 'plain page', width, tag: m.tag, hostPx: m.host, bodyPx: m.body, textPx: m.text });
        }
        // The LMS quiz frame has no helper to size it: its height must fit at 480 px and wider.
        const heights = await page.evaluate(() => window.__hw.frameHeights);
        for (const [src, hs] of Object.entries(heights)) {
          if (!src.startsWith('?')) continue;
          assert.ok(Math.min(...hs) >= Math.min(hs[0], hs[hs.length - 1]) - 1, `frame ${src}: ${hs.join(' → ')}`);
        }
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});

describe('suggested heights', () => {
  /**
   * The height a widget's embed.html reports at a width.
   * @param {string} src
   * @param {number} width
   */
  async function contentHeight(src, width) {
    const context = await browser.newContext({ viewport: { width: width + 40, height: 900 } });
    await context.addInitScript(RECORDER);
    const page = await context.newPage();
    try {
      await page.goto(`${other.origin}/blank.html`);
      await page.evaluate(({ s, w }) => {
        const f = document.createElement('iframe');
        f.src = s;
        f.setAttribute('sandbox', 'allow-scripts');
        f.style.cssText = `width:${w}px;height:300px;border:0`;
        document.body.appendChild(f);
      }, { s: src, w: width });
      const frame = await until(async () => page.frames().find((f) => f.url() === src), 'the frame');
      await until(() => frame.evaluate(() => document.querySelector('[data-testid="embed"] > *') !== null).catch(() => false), 'the widget placed', 60000);
      await until(() => widgetsDrawn(frame).catch(() => false), 'the widget drawn', 60000);
      await new Promise((r) => setTimeout(r, 300));
      return await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    } finally {
      await context.close();
    }
  }

  test('the gallery\'s iframe heights fit each widget at 720 px, with a margin', { timeout: 300000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${sites.origin}/dist/gallery.html`);
    const snippets = await page.locator('[data-testid^="snippet-iframe-"]').evaluateAll((els) => els.map((e) => e.textContent));
    await context.close();
    const rows = [];
    const wrong = [];
    for (const text of snippets) {
      const src = /src="([^"]+)"/.exec(text)[1];
      const suggested = Number(/height="(\d+)"/.exec(text)[1]);
      const needed = await contentHeight(src, 720);
      const widget = new URL(src).searchParams.get('widget');
      rows.push(`${widget}: suggested ${suggested}, needed ${needed}`);
      if (suggested < needed + 20) wrong.push(`${widget}: suggested ${suggested} px, the content needs ${needed} px at 720 px (and a margin)`);
      if (suggested > needed * 1.2 + 100) wrong.push(`${widget}: suggested ${suggested} px, far more than the ${needed} px needed at 720 px`);
    }
    console.log(`gallery heights at 720 px: ${rows.join('; ')}`);
    assert.deepEqual(wrong, []);
  });

  test('the README\'s LMS frames fit at 480 px', { timeout: 120000 }, async () => {
    const text = block('LMS');
    const src = /src="([^"]+)"/.exec(text)[1].replace('https://example.org/headwise/', `${sites.origin}/dist/`);
    const suggested = Number(/height="(\d+)"/.exec(text)[1]);
    const needed = await contentHeight(src, 480);
    console.log(`README LMS frame at 480 px: height ${suggested}, needed ${needed}`);
    assert.ok(suggested >= needed, `the README's LMS frame is ${suggested} px high, the content needs ${needed} px at 480 px`);
  });
});
