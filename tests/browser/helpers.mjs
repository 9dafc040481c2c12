// Shared by the browser tests: the engine of this run (engine.mjs: Chromium, Firefox ESR or
// WebKitGTK), a tiny static server for dist/, and collectors for everything the page must not do
// (console errors, uncaught exceptions, failed requests, requests anywhere but dist/ itself, CSP
// violations). A test file's set-up goes through the names below, each written once: the file's
// browser and server (shareBrowser, trainingPartServers), a page and its closing checks
// (withCleanPage, withPage, withStrictCsp, withEmbed, inContext), viewports and languages (PHONE,
// DESKTOP, LANGS, catalogue, inEachLanguage) and the waits (waitReady, waitLoaded, reachTraining,
// settle, until). They work the same in every engine.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before } from 'node:test';
import {
  ENGINE, INJECT_WATCH, WATCH_PATH, WATCH_SOURCE, engine, injectWatch, launch as launchEngine, scratchDir,
} from './engine.mjs';

export { ENGINE, WATCH_PATH, engine };

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, '..', '..');
export const DIST = join(ROOT, 'dist');

for (const f of ['index.html', 'app.js', 'headwise-lesson.js', 'train.js', 'headwise.js', 'styles.css']) {
  if (!existsSync(join(DIST, f))) {
    throw new Error(`dist/${f} is missing: run \`npm run build:wasm && npm run build:web\` first`);
  }
}

/**
 * The dist/ that file:// pages are opened from. Where the engine's driver cannot report errors
 * (WebKit), a copy of dist/ whose HTML loads the watcher first; elsewhere dist/ itself.
 */
export const FILE_DIST = (() => {
  if (!INJECT_WATCH) return DIST;
  // Removed when this process exits (it is in use until then).
  const { dir: copy } = scratchDir(`headwise-dist-${ENGINE}-`);
  cpSync(DIST, copy, { recursive: true });
  for (const f of readdirSync(copy)) {
    if (f.endsWith('.html')) writeFileSync(join(copy, f), injectWatch(readFileSync(join(copy, f), 'utf8'), WATCH_PATH));
  }
  writeFileSync(join(copy, WATCH_PATH), WATCH_SOURCE);
  return copy;
})();

/** A file:// URL of a page of dist/ (`name` like 'index.html'). */
export const fileUrl = (name) => pathToFileURL(join(FILE_DIST, name)).href;
export const INDEX_FILE_URL = fileUrl('index.html');

/** The policy the built page must run under (the same as index.html's meta tag). */
/**
 * The longest main-thread task a test allows (ms): four times the page's 50 ms goal. A test guards
 * the mechanism (work sliced, a Worker used), whose failure costs hundreds of milliseconds; the goal
 * itself sits at the noise floor of a shared machine, so `npm run bench` measures it and reports it
 * against 50 ms (tests/bench/README.md).
 */
export const GUARD_TASK_MS = 200;
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; worker-src blob:";

// ---- the browser ------------------------------------------------------------------------------

/** This run's engine (HEADWISE_BROWSER), with the adapter's API (engine.mjs). */
export function launch() {
  return launchEngine();
}

// ---- the static server ------------------------------------------------------------------------

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.ts': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

/**
 * Serve a directory (dist/ by default) on 127.0.0.1 at an ephemeral port. Where the engine needs
 * it (WebKit), every HTML page served loads the watcher (engine.mjs) first.
 * @param {{headers?: Record<string,string>, dir?: string|null,
 *   pages?: Record<string, {type: string, body: string|Buffer, headers?: Record<string,string>}>,
 *   delays?: Record<string, number>, failOnce?: string[]}} [options]
 *   headers: extra headers on every response; pages: paths answered from memory; delays: paths
 *   answered that many ms late; failOnce: paths whose first request gets a 503
 * @returns {Promise<{origin: string, url: (path?: string) => string, close: () => Promise<void>, served: string[], failed: string[], hits: {path: string, referer: string}[]}>}
 */
export async function serveDist({ headers = {}, dir = DIST, pages = {}, delays = {}, failOnce = [] } = {}) {
  const toFail = new Set(failOnce);
  const served = [];
  const failed = [];
  /** @type {{path: string, referer: string}[]} */
  const hits = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (INJECT_WATCH && path === `/${WATCH_PATH}`) {
      res.writeHead(200, { 'Content-Type': TYPES['.js'], 'Cache-Control': 'no-store' }).end(WATCH_SOURCE);
      return;
    }
    served.push(path);
    hits.push({ path, referer: req.headers.referer || '' });
    if (delays[path]) await new Promise((resolve) => setTimeout(resolve, delays[path]));
    if (toFail.delete(path)) {
      failed.push(`${path} 503`);
      res.writeHead(503, { 'Content-Type': 'text/plain', ...headers }).end('unavailable');
      return;
    }
    const inject = (type, body) => (INJECT_WATCH && type.startsWith('text/html') ? injectWatch(String(body)) : body);
    const page = pages[path];
    if (page) {
      res.writeHead(200, { 'Content-Type': page.type, 'Cache-Control': 'no-store', ...headers, ...page.headers });
      res.end(inject(page.type, page.body));
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const file = dir ? normalize(join(dir, path === '/' ? 'index.html' : path)) : '';
    if (!dir || (file !== dir && !file.startsWith(dir + sep))) {
      failed.push(`${path} 403`);
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      const type = TYPES[extname(file)] || 'application/octet-stream';
      res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
      res.end(inject(type, body));
    } catch {
      failed.push(`${path} 404`);
      res.writeHead(404, { 'Content-Type': 'text/plain', ...headers }).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (p = '/index.html') => origin + p,
    served,
    failed,
    hits,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

/**
 * The servers a training part's tests use, started before the file's tests and closed after:
 * `csp`, dist/ under the strict Content-Security-Policy header; `host`, a page whose only content
 * is `<iframe sandbox="allow-scripts">` of dist/embed.html?`embedQuery` (served by a third server,
 * another origin).
 * @param {string} embedQuery  e.g. 'widget=induction'
 * @param {string} title  the iframe's title
 * @returns {{csp: Awaited<ReturnType<typeof serveDist>>, host: Awaited<ReturnType<typeof serveDist>>}}
 *   filled in once the file's `before` hooks have run
 */
export function trainingPartServers(embedQuery, title) {
  const servers = /** @type {any} */ ({});
  let embed;
  before(async () => {
    servers.csp = await serveDist({ headers: { 'Content-Security-Policy': STRICT_CSP } });
    embed = await serveDist();
    servers.host = await serveDist({
      dir: null,
      pages: {
        '/host.html': {
          type: 'text/html; charset=utf-8',
          body: `<!doctype html><title>host</title><iframe id="f" sandbox="allow-scripts" width="900" height="1500" title="${title}"
        src="${embed.url(`/embed.html?${embedQuery}`)}"></iframe>`,
        },
      },
    });
  });
  after(async () => {
    for (const s of [servers.csp, embed, servers.host]) await s?.close();
  });
  return servers;
}

// ---- pages and what they must not do ----------------------------------------------------------

/** Records the first sign of trouble of each kind; `assertClean` fails with all of them. */
export class PageLog {
  constructor() {
    this.consoleErrors = [];
    this.pageErrors = [];
    this.failedRequests = [];
    /** Requests cancelled because the test navigated away (e.g. a favicon still loading); not failures. */
    this.abortedRequests = [];
    this.requests = [];
    this.cspViolations = [];
  }

  /**
   * @param {string|null} origin the test server's origin, or null for file:// pages
   */
  outsideRequests(origin) {
    return this.requests.filter((u) => {
      // blob: URLs are made by the page from its own memory (its Worker): no network involved.
      if (u.startsWith('file://') || u.startsWith('about:') || u.startsWith('data:') || u.startsWith('blob:')) return false;
      return !(origin && u.startsWith('http') && new URL(u).origin === origin);
    });
  }

  /**
   * No console errors, no uncaught exceptions, no failed requests, nothing fetched from outside.
   * @param {string|null} origin
   * @param {{allowConsole?: RegExp}} [options]
   */
  assertClean(origin, { allowConsole } = {}) {
    const errors = allowConsole ? this.consoleErrors.filter((m) => !allowConsole.test(m)) : this.consoleErrors;
    assert.deepEqual(errors, [], 'console errors');
    assert.deepEqual(this.pageErrors, [], 'uncaught exceptions');
    assert.deepEqual(this.failedRequests, [], 'failed requests');
    assert.deepEqual(this.outsideRequests(origin), [], 'requests outside file:// and the test server');
    assert.deepEqual(this.cspViolations, [], 'Content-Security-Policy violations');
  }
}

/**
 * A new context and page with every collector attached (reduced motion unless asked otherwise).
 * @param {any} browser from launch()
 * @param {{viewport?: {width: number, height: number}, colorScheme?: 'light'|'dark', reducedMotion?: 'reduce'|'no-preference', bypassCSP?: boolean}} [contextOptions]
 * @returns {Promise<{context: any, page: import('./engine.mjs').Page, log: PageLog}>}
 */
export async function openPage(browser, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  return { context, page, log: page.log };
}

/**
 * `body` with a page of a new context (openPage), which is closed afterwards whatever happens.
 * @template T
 * @param {any} browser
 * @param {(page: import('./engine.mjs').Page, log: PageLog, context: any) => Promise<T>} body
 * @param {object} [contextOptions]  openPage's
 * @returns {Promise<T>}
 */
export async function inContext(browser, body, contextOptions) {
  const { context, page, log } = await openPage(browser, contextOptions);
  try {
    return await body(page, log, context);
  } finally {
    await context.close();
  }
}

/**
 * Scroll to "Your own sentence" (the page's section, or an embed's <mha-sentence>) until `ready`
 * is there: the section loads its model only once it comes near the window.
 * @param {any} where  a page or a frame
 * @param {string} [ready]  a selector
 */
export async function reachSentence(where, ready = 'hw-sentence[data-model][data-words]') {
  const end = Date.now() + 90000;
  for (;;) {
    await where.evaluate(() => document.querySelector('#sentence, mha-sentence')?.scrollIntoView({ behavior: 'instant', block: 'start' }));
    try {
      await where.waitForSelector(ready, { state: 'attached', timeout: 2000 });
      return;
    } catch (e) {
      if (Date.now() > end) throw e;
    }
  }
}

/** Move the page's recorded CSP violations (and, where injected, errors) into the log (call before assertClean). */
export async function collectCsp(page) {
  await page.harvest();
}

/**
 * Poll until fn() returns a truthy value. A call that throws counts as "not yet" (a frame not
 * there yet, a page between documents).
 * @template T
 * @param {() => Promise<T>} fn
 * @param {string} what  for the timeout's message
 * @param {number} [timeout]  ms
 */
export async function until(fn, what, timeout = 60000) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await fn().catch(() => null);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * The page fully drawn: the module loaded and the head tables ready.
 * @param {import('./engine.mjs').Page} page
 */
export async function waitReady(page) {
  await page.waitForSelector('hw-head-weights[data-ready]', { state: 'attached', timeout: 30000 });
  await page.waitForSelector('hw-exercise-torch[data-ready]:not([data-busy])', { state: 'attached', timeout: 30000 });
  await settle(page);
}

/**
 * The page's first load over: every widget started and every section measured (the lesson drops
 * data-hw-loading from <html>).
 * @param {import('./engine.mjs').Page} page
 * @param {number} [timeout]  ms
 */
export function waitLoaded(page, timeout = 60000) {
  return page.waitForFunction(() => !document.documentElement.hasAttribute('data-hw-loading'), undefined, { timeout });
}

/**
 * Scroll to the training section as a reader would (it loads train.js and headwise.js when it
 * comes near) and wait until its Train button works.
 * @param {import('./engine.mjs').Page} page  a page, or a frame's page
 * @param {{section?: string, ready?: string}} [which]  another training section: where it is,
 *   and what shows it can train
 */
export async function reachTraining(page, { section = '#train, mha-train', ready = 'hw-train[data-ready] #train-run:not([disabled])' } = {}) {
  // Scrolled again until it is ready: the lesson above may still be drawing and move the
  // section away from the view (WebKit has no scroll anchoring to keep it in place).
  const end = Date.now() + 60000;
  for (;;) {
    await page.evaluate((s) => document.querySelector(s)?.scrollIntoView({ behavior: 'instant', block: 'start' }), section);
    try {
      await page.waitForSelector(ready, { timeout: 2000 });
      return;
    } catch (e) {
      if (Date.now() > end) throw e;
    }
  }
}

/**
 * Wait until a training section is drawn whole, and so at its full height: its trainers made
 * (TrainSession.prepare, after the Train button is ready; every model's line then gives its
 * parameter count), every model's block built (one per frame) and its untrained heads drawn
 * (data-drawn). Until then it grows, moving whatever is below it.
 * @param {import('./engine.mjs').Locator} train  the hw-train element
 */
export async function waitTrainingDrawn(train, timeout = 60000) {
  const end = Date.now() + timeout;
  for (;;) {
    const drawn = await train.evaluate((/** @type {any} */ el) => {
      const stats = [...el.querySelectorAll('[data-testid="train-stats"]')];
      return Boolean(el.session && el.hasAttribute('data-drawn')) && stats.length === el.session.models.length &&
        // "… · 736 parameters" in any language: a number, then its word (not "…" while unknown).
        stats.every((p) => /\d[^\d…]*$/.test(p.textContent || ''));
    });
    if (drawn) return;
    if (Date.now() > end) throw new Error(`the training section was not drawn whole within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The whole lesson in place before clicking below the training section: that section, and "Your
 * own sentence" after it, load when the reader comes near them and then grow, moving the
 * challenge and the quiz below them; a click aimed at them could land where they were. Loads
 * both, then scrolls back to the top.
 * @param {import('./engine.mjs').Page} page
 */
export async function loadWholeLesson(page) {
  await reachTraining(page);
  await waitTrainingDrawn(page.locator('hw-train').first());
  await reachTraining(page, { section: '#sentence', ready: 'hw-sentence[data-model][data-words]' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
}

/**
 * Two animation frames: the store's scheduled notification has run; the widgets out of view,
 * redrawn after the frame, have drawn; and the address bar holds the settings (the store
 * rewrites it at most every 200 ms, so a write may be pending).
 */
export async function settle(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  // Widgets out of view redraw after the frame, in slices of message tasks, each ending with a
  // 'hw-redraw' measure of what still waits (web/src/shared/ui/element.js). A message posted now
  // arrives after the slice already queued (message tasks keep their order); until the latest
  // measure says nothing waits, wait about a frame and post again (at most 20 s). On a loaded
  // machine the slices can end well after two frames.
  await page.evaluate(() => new Promise((resolve) => {
    const end = Date.now() + 20000;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const measures = performance.getEntriesByName('hw-redraw');
      const last = /** @type {any} */ (measures[measures.length - 1]);
      if (!last || !(last.detail && last.detail.waiting > 0) || Date.now() > end) {
        channel.port1.close();
        resolve(undefined);
      } else {
        setTimeout(() => channel.port2.postMessage(0), 16);
      }
    };
    channel.port2.postMessage(0);
  }));
  await page.waitForFunction(() => {
    const controls = /** @type {any} */ (document.querySelector('hw-controls'));
    return !(controls && controls.store && controls.store._hashTimer);
  }, undefined, { timeout: 10000 });
}

/**
 * Type into a control as a student would: replace its value and fire `input`.
 * @param {import('./engine.mjs').Page} page
 * @param {string} selector
 * @param {string} value
 */
export async function typeInto(page, selector, value) {
  await page.fill(selector, value);
  await settle(page);
}

/** Both ways a student opens the page: straight from disk, and from a web server. */
export const MODES = ['file', 'http'];

/**
 * The page's URL in a mode.
 * @param {'file'|'http'} mode
 * @param {{url: (p?: string) => string}|null} server
 * @param {string} [hash] with the leading "#", or ''
 */
export function pageUrl(mode, server, hash = '') {
  return (mode === 'file' ? INDEX_FILE_URL : server.url('/index.html')) + hash;
}

/** Text of every weight cell of one head's table, row by row. */
export function headTable(page, head) {
  return page.$$eval(`hw-head-weights table.hw-weights[data-head="${head}"] tbody tr`, (rows) => rows.map((tr) => [...tr.querySelectorAll('td[data-col]')].map((td) => td.textContent)));
}

/**
 * Load a URL as a new document even when only its hash differs from the current one.
 * @param {import('./engine.mjs').Page} page
 * @param {string} url
 */
export async function gotoFresh(page, url) {
  await page.goto('about:blank');
  await page.goto(url);
}

/**
 * One browser of this run's engine and one dist/ server (none where `serverOptions` is null)
 * shared by the tests of a file: started before them (after the file's `before` hooks written
 * above the call) and closed after them. `use` receives both once they are up; it may open what
 * the file's tests share (a context, a page) and return a function that closes it, called after
 * the tests, before the browser closes.
 * @param {(browser: any, server: any) => void|(() => Promise<void>)|Promise<void|(() => Promise<void>)>} use
 * @param {{headers?: Record<string, string>, pages?: object, dir?: string|null}|null} [serverOptions]
 */
export function shareBrowser(use, serverOptions) {
  let browser;
  let server;
  let close;
  before(async () => {
    browser = await launch();
    if (serverOptions !== null) server = await serveDist(serverOptions);
    close = await use(browser, server);
  }, { timeout: 180000 });
  after(async () => {
    try {
      await close?.();
    } finally {
      await server?.close();
      await browser?.close();
    }
  });
}

/**
 * A page in a fresh context: adds `initScripts` (run in every document before its own scripts),
 * opens `url` (unless null) and waits for it (`ready`, the lesson drawn by default; null: not at
 * all), runs `body`, then collects the page's policy reports and requires a clean log
 * (PageLog.assertClean): no console errors, uncaught exceptions, failed requests, CSP violations,
 * or requests outside file:// and `origin` (by default the origin of an http `url`; none for a
 * file:// one). The context is closed whatever happens.
 * @param {any} browser
 * @param {string|null} url
 * @param {(page: import('./engine.mjs').Page, log: PageLog) => Promise<void>} body
 * @param {{context?: object, ready?: ((page: import('./engine.mjs').Page) => Promise<void>)|null,
 *   initScripts?: string[], origin?: string|null, allowConsole?: RegExp}} [options]
 *   context: openPage's context options
 */
export function withCleanPage(browser, url, body, { context: contextOptions, ready = waitReady, initScripts = [], origin, allowConsole } = {}) {
  return inContext(browser, async (page, log, context) => {
    for (const source of initScripts) await context.addInitScript(source);
    if (url) {
      await page.goto(url);
      if (ready) await ready(page);
    }
    await body(page, log);
    await collectCsp(page, log);
    log.assertClean(origin !== undefined ? origin : url?.startsWith('http') ? new URL(url).origin : null, { allowConsole });
  }, contextOptions);
}

/**
 * Open the lesson in a fresh context (file:// or over `server`), wait until it is drawn, run
 * `body`, then require a clean log (withCleanPage).
 * @param {any} browser
 * @param {any} server
 * @param {'file'|'http'} mode
 * @param {string} hash
 * @param {(page: import('./engine.mjs').Page) => Promise<void>} body
 * @param {object} [contextOptions]
 */
export function withPage(browser, server, mode, hash, body, contextOptions) {
  return withCleanPage(browser, pageUrl(mode, server, hash), body, { context: contextOptions });
}

/**
 * The lesson of trainingPartServers() under the strict CSP (its `csp` server), in a fresh
 * context; `body` runs as soon as the page is opened (it waits for what it needs), then the log
 * must be clean (withCleanPage).
 * @param {any} browser
 * @param {{csp: {url: (path: string) => string}}} servers
 * @param {string} hash  with the leading "#", or ''
 * @param {(page: import('./engine.mjs').Page, log: PageLog) => Promise<void>} body
 */
export function withStrictCsp(browser, servers, hash, body) {
  return withCleanPage(browser, servers.csp.url(`/index.html${hash}`), body, { ready: null });
}

// ---- viewports and languages --------------------------------------------------------------------

/** A phone's viewport (an iPhone 12 to 14's CSS pixels). */
export const PHONE = { width: 390, height: 844 };
/** A laptop's viewport. */
export const DESKTOP = { width: 1280, height: 900 };

/** The languages the page ships in, one web/i18n/<lang>.json each: English first, then by tag. */
export const LANGS = readdirSync(join(ROOT, 'web', 'i18n')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5))
  .sort((a, b) => (a === 'en' ? -1 : b === 'en' ? 1 : a.localeCompare(b)));

/** A language's catalogue, web/i18n/<lang>.json. @param {string} lang @returns {Record<string, string>} */
export function catalogue(lang) {
  return JSON.parse(readFileSync(join(ROOT, 'web', 'i18n', `${lang}.json`), 'utf8'));
}

/**
 * The lesson from file:// in each language, one after another in `page`: opened afresh at
 * `#lang=<lang>` and `hash`'s settings, drawn (waitReady), then `body` with the language and its
 * catalogue (none for a language that ships none, such as the pseudo-language 'qps-ploc').
 * @param {import('./engine.mjs').Page} page
 * @param {string} hash  settings after the language, e.g. '&heads=4', or ''
 * @param {(lang: string, catalogue: Record<string, string>|null) => Promise<void>} body
 * @param {string[]} [langs]  LANGS unless given
 */
export async function inEachLanguage(page, hash, body, langs = LANGS) {
  for (const lang of langs) {
    await gotoFresh(page, `${INDEX_FILE_URL}#lang=${lang}${hash}`);
    await waitReady(page);
    await body(lang, LANGS.includes(lang) ? catalogue(lang) : null);
  }
}

/**
 * The host page of trainingPartServers(): its sandboxed iframe (embed.html from another origin)
 * once `element` is in it; `body(frame)` then drives the embed. Afterwards the page's policy
 * reports are collected and neither the host nor the frame may have logged an error.
 * @param {any} browser
 * @param {{host: {url: (path: string) => string}}} servers
 * @param {string} element  the embed's element, e.g. 'mha-train'
 * @param {(frame: any) => Promise<void>} body
 */
export function withEmbed(browser, servers, element, body) {
  return inContext(browser, async (page, log) => {
    await page.goto(servers.host.url('/host.html'));
    await page.waitForSelector('#f', { state: 'attached' });
    const frame = page.frame('#f');
    await frame.waitForSelector(element, { state: 'attached', timeout: 30000 });
    await body(frame);
    await collectCsp(page, log);
    assert.deepEqual(log.consoleErrors, []);
    assert.deepEqual(log.pageErrors, []);
  });
}

/**
 * CPU milliseconds of every task the page's main thread ran during `action` (a trace's tdur).
 * Where the engine records no trace, `action` still runs and the result is null.
 * @param {import('./engine.mjs').Page} page
 * @param {() => Promise<void>} action
 * @param {number} [minTasks]  fewer tasks than this in the trace means it missed the renderer
 * @param {{url?: string}} [only]  url: count only the renderers that ran something from under this
 *   address (default: the folder of the page's address before the action). The browser runs
 *   renderers of its own (one ran an 80 ms task in some traces here), whose tasks are not the
 *   page's; and an action that navigates may change the page's renderer.
 * @returns {Promise<number[]|null>}
 */
export async function mainThreadTaskCpu(page, action, minTasks = 20, { url } = {}) {
  if (!engine.supports.tracing) {
    await action();
    return null;
  }
  const address = url || (await page.url()).replace(/[?#].*$/, '').replace(/[^/]*$/, '');
  assert.match(address, /^(https?|file):\/\//, `mainThreadTaskCpu needs the page's address to tell its renderer from the browser's others (the page is at ${await page.url()}); pass {url}`);
  const events = await page.trace(action, { categories: ['toplevel', '__metadata', 'devtools.timeline'] });
  const threads = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const pages = new Set(events.filter((e) => e.args && JSON.stringify(e.args).includes(address)).map((e) => e.pid));
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' &&
    threads.get(`${e.pid}:${e.tid}`) === 'CrRendererMain' && pages.has(e.pid));
  // Some tasks carry no CPU time: those the trace's start or end cut, and more on some machines
  // (5 of 51 in one CI run). A task's wall time bounds its CPU time from above, so it
  // stands in for them: a long task can not hide by missing its CPU time, though on a loaded
  // machine such a task may be reported long when it only waited for a core.
  const cpu = tasks.map((e) => (Number.isFinite(e.tdur) ? e.tdur : e.dur) / 1000).filter(Number.isFinite);
  const measured = tasks.filter((e) => Number.isFinite(e.tdur)).length;
  const stoodIn = tasks.filter((e) => !Number.isFinite(e.tdur) && Number.isFinite(e.dur)).map((e) => e.dur / 1000);
  if (stoodIn.length) console.log(`# trace: ${stoodIn.length} of ${tasks.length} main-thread tasks had no CPU time; their wall times (longest ${Math.max(...stoodIn).toFixed(1)} ms) stand in`);
  assert.ok(cpu.length === tasks.length, `every main-thread task in the trace has a CPU or a wall time (${cpu.length} of ${tasks.length})`);
  assert.ok(measured > minTasks && measured >= 0.75 * tasks.length, `the trace has the renderer's tasks and most of their CPU times (${measured} of ${tasks.length})`);
  return cpu;
}

// ---- layout ------------------------------------------------------------------------------------

/**
 * Runs in the page (page.evaluate(layoutProblems)): every layout problem found, one line each.
 * Shared by layout.test.mjs and i18n.test.mjs, which checks it in every language.
 * Containers meant to scroll are those whose overflow-x is auto or scroll.
 */
export function layoutProblems() {
  const problems = [];
  const describe = (e) => {
    let s = e.localName;
    if (e.id) s += `#${e.id}`;
    else if (e.classList.length) s += `.${[...e.classList].join('.')}`;
    const t = e.getAttribute('data-testid');
    if (t) s += `[data-testid=${t}]`;
    const host = e.getRootNode().host;
    return host ? `${host.localName} › ${s}` : s;
  };
  /** Every element, through open shadow roots. */
  const all = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      all.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(document);
  const parentOf = (e) => e.parentElement || e.getRootNode().host || null;
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  // Visually hidden on purpose (the usual 1 px clip pattern), or the skip link until focused.
  const hiddenOnPurpose = (e) => {
    for (let a = e; a; a = parentOf(a)) {
      const r = a.getBoundingClientRect();
      if (r.width <= 1 && r.height <= 1) return true;
      if (a.matches('.hw-skip, .visually-hidden, .sr-only, [hidden], template, noscript')) return true;
    }
    return false;
  };
  const scrollsX = (e) => /auto|scroll/.test(getComputedStyle(e).overflowX);
  const vw = document.documentElement.clientWidth;

  // 1. The page itself does not scroll sideways.
  const sw = document.documentElement.scrollWidth;
  if (sw > vw + 1) problems.push(`the page is ${sw}px wide in a ${vw}px viewport`);

  // 2. Nothing sticks out of the viewport unless a scrolling container holds it.
  for (const e of all) {
    if (!shown(e) || hiddenOnPurpose(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.right <= vw + 1 && r.left >= -1) continue;
    let held = false;
    for (let a = parentOf(e); a && a !== document.documentElement; a = parentOf(a)) {
      if (scrollsX(a)) { held = true; break; }
    }
    if (!held) problems.push(`${describe(e)} reaches ${Math.round(r.left)}..${Math.round(r.right)}px in a ${vw}px viewport`);
  }

  // 3. No identifier or shape in a table breaks across lines.
  const TOKEN = /\([\d, ]*\d\)|[A-Za-z_][\w.]*_[\w.]*|[A-Za-z_]+\.[\w.]+|\d[\d,]{3,}/g;
  for (const cell of all.filter((e) => e.matches('td, th') && shown(e))) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(TOKEN)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
        if (tops.size > 1) problems.push(`"${m[0]}" breaks across ${tops.size} lines in ${describe(cell)}`);
      }
    }
  }

  // 4. Nothing is cut off: a box that hides overflow is big enough for what it holds, and a
  //    scrolling box shows the start of its content (it is not scrolled past it on load).
  for (const e of all) {
    if (!shown(e) || hiddenOnPurpose(e)) continue;
    const cs = getComputedStyle(e);
    const clipX = /hidden|clip/.test(cs.overflowX);
    const clipY = /hidden|clip/.test(cs.overflowY);
    if (cs.textOverflow === 'ellipsis') continue; // shortened on purpose, with the full text in a title
    if (clipX && e.scrollWidth > e.clientWidth + 1) problems.push(`${describe(e)} cuts off ${e.scrollWidth - e.clientWidth}px of its content sideways`);
    if (clipY && e.scrollHeight > e.clientHeight + 1) problems.push(`${describe(e)} cuts off ${e.scrollHeight - e.clientHeight}px of its content below`);
    if ((scrollsX(e) && e.scrollLeft > 0) || (/auto|scroll/.test(cs.overflowY) && e !== document.scrollingElement && e.scrollTop > 0 && e.localName !== 'html')) {
      problems.push(`${describe(e)} is scrolled to ${e.scrollLeft},${e.scrollTop}: the start of its content is hidden`);
    }
  }
  // 5. A printout is read without scrolling sideways (code snippets may scroll; printouts wrap).
  for (const e of all.filter((x) => x.matches('.hw-printout') && shown(x))) {
    if (e.scrollWidth > e.clientWidth + 1) problems.push(`${describe(e)} must be scrolled ${e.scrollWidth - e.clientWidth}px sideways to be read`);
  }
  // 6. Tables set side by side are read without scrolling sideways: where they do not fit,
  //    they stack (a phone's single column may scroll).
  for (const pair of all.filter((x) => x.matches('.hw-side-by-side') && shown(x))) {
    const boxes = [...pair.children].filter(shown);
    const tops = new Set(boxes.map((b) => Math.round(b.getBoundingClientRect().top)));
    if (boxes.length < 2 || tops.size === boxes.length) continue;  // stacked
    for (const b of boxes) {
      if (b.scrollWidth > b.clientWidth + 1) problems.push(`${describe(b)} sits beside another table but must be scrolled ${b.scrollWidth - b.clientWidth}px sideways`);
    }
  }
  // 7. A table's caption is read whole without scrolling: in a box that scrolls sideways (the
  //    table is wider than its column), its words stay within the box's visible width.
  for (const cap of all.filter((x) => x.matches('caption') && shown(x))) {
    let box = parentOf(cap);
    while (box && box !== document.documentElement && !scrollsX(box)) box = parentOf(box);
    if (!box || box === document.documentElement || hiddenOnPurpose(cap)) continue;
    const range = document.createRange();
    range.selectNodeContents(cap);
    const right = Math.max(...[...range.getClientRects()].map((q) => q.right));
    const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
    if (right > edge + 1) problems.push(`${describe(cap)} "${cap.textContent.slice(0, 32)}…" runs ${Math.round(right - edge)}px past the visible width of its scrolling box`);
  }
  return [...new Set(problems)];
}
