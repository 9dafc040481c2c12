// Shared by the browser tests: Debian's Chromium through playwright-core, a tiny static server
// for dist/, and collectors for everything the page must not do (console errors, uncaught
// exceptions, failed requests, requests anywhere but dist/ itself, CSP violations).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, '..', '..');
export const DIST = join(ROOT, 'dist');
export const INDEX_FILE_URL = pathToFileURL(join(DIST, 'index.html')).href;

/** The policy the built page must run under (the same as index.html's meta tag). */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; worker-src blob:";

for (const f of ['index.html', 'app.js', 'headwise.js', 'styles.css']) {
  if (!existsSync(join(DIST, f))) {
    throw new Error(`dist/${f} is missing: run \`npm run build:wasm && npm run build:web\` first`);
  }
}

// ---- the browser ------------------------------------------------------------------------------

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
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
};

/**
 * Serve dist/ on 127.0.0.1 at an ephemeral port.
 * @param {{headers?: Record<string,string>}} [options] extra headers on every response
 * @returns {Promise<{origin: string, url: (path?: string) => string, close: () => Promise<void>, served: string[]}>}
 */
export async function serveDist({ headers = {} } = {}) {
  const served = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    served.push(path);
    const file = normalize(join(DIST, path === '/' ? 'index.html' : path));
    if (file !== DIST && !file.startsWith(DIST + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
        'Cache-Control': 'no-store',
        ...headers,
      });
      res.end(body);
    } catch {
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
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
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
      if (u.startsWith('file://') || u.startsWith('blob:')) return false;
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

// Installed before any page script: every CSP violation is recorded on the window.
const CSP_LISTENER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
  });
`;

/**
 * A new context and page with every collector attached.
 * @param {import('playwright-core').Browser} browser
 * @param {import('playwright-core').BrowserContextOptions} [contextOptions]
 */
export async function openPage(browser, contextOptions = {}) {
  // Reduced motion turns off the page's smooth scrolling, so clicks and focus land where measured.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce', ...contextOptions });
  const page = await context.newPage();
  const log = new PageLog();
  page.on('console', (m) => {
    if (m.type() === 'error') log.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => log.pageErrors.push(String(e && e.stack ? e.stack : e)));
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText;
    (why === 'net::ERR_ABORTED' ? log.abortedRequests : log.failedRequests).push(`${r.url()} ${why}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) log.failedRequests.push(`${r.url()} HTTP ${r.status()}`);
  });
  page.on('request', (r) => log.requests.push(r.url()));
  await page.addInitScript(CSP_LISTENER);
  return { context, page, log };
}

/** Copy the page's recorded CSP violations into the log (call before assertClean). */
export async function collectCsp(page, log) {
  const v = await page.evaluate(() => window.__cspViolations || []);
  log.cspViolations.push(...v);
}

/**
 * The page fully drawn: the module loaded and the head tables ready.
 * @param {import('playwright-core').Page} page
 */
export async function waitReady(page) {
  await page.waitForSelector('hw-head-weights[data-ready]', { state: 'attached', timeout: 20000 });
  await page.waitForSelector('hw-exercise-torch[data-ready]:not([data-busy])', { state: 'attached', timeout: 20000 });
  await settle(page);
}

/** Two animation frames: the store's scheduled notification has run. */
export function settle(page) {
  return page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}

/**
 * Type into a control as a student would: replace its value and fire `input`.
 * @param {import('playwright-core').Page} page
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

/** The page's Store, through the public `store` property every Headwise element has. */
export function storeHandle(page) {
  return page.evaluateHandle(() => /** @type {any} */ (document.querySelector('hw-controls')).store);
}

/**
 * Load a URL as a new document even when only its hash differs from the current one.
 * @param {import('playwright-core').Page} page
 * @param {string} url
 */
export async function gotoFresh(page, url) {
  await page.goto('about:blank');
  await page.goto(url);
}

/**
 * One browser and one dist/ server shared by the tests of a file: started before them and
 * closed after them. `use` receives both once they are up.
 * @param {(browser: import('playwright-core').Browser, server: any) => void} use
 * @param {{headers?: Record<string, string>}} [serverOptions]
 */
export function shareBrowser(use, serverOptions) {
  let browser;
  let server;
  before(async () => {
    browser = await launch();
    server = await serveDist(serverOptions);
    use(browser, server);
  });
  after(async () => {
    await server?.close();
    await browser?.close();
  });
}

/**
 * Open the lesson in a fresh context (file:// or over `server`), run `body`, then require a
 * clean log: no console errors, failed or outside requests, or CSP violations.
 * @param {import('playwright-core').Browser} browser
 * @param {any} server
 * @param {'file'|'http'} mode
 * @param {string} hash
 * @param {(page: import('playwright-core').Page) => Promise<void>} body
 * @param {object} [contextOptions]
 */
export async function withPage(browser, server, mode, hash, body, contextOptions) {
  const { context, page, log } = await openPage(browser, contextOptions);
  try {
    await page.goto(pageUrl(mode, server, hash));
    await waitReady(page);
    await body(page);
    await collectCsp(page, log);
    log.assertClean(mode === 'http' ? server.origin : null);
  } finally {
    await context.close();
  }
}
