// The browser-engine adapter: every browser test is written once against this file and runs in
// Chromium, Firefox ESR and WebKitGTK (Debian's builds). `HEADWISE_BROWSER` picks the engine of
// this process (chromium | firefox | webkit; default chromium); `node tests/browser/run.mjs`
// runs the suite once per engine listed in `HEADWISE_BROWSERS` (default: all three).
//
//   chromium  playwright-core + /usr/bin/chromium (CDP)
//   firefox   puppeteer-core, browser 'firefox', over WebDriver BiDi (/usr/bin/firefox-esr)
//   webkit    selenium-webdriver + /usr/bin/WebKitWebDriver driving MiniBrowser --automation
//             under Xvfb (started here on a free display; nothing else needed)
//
// API (small on purpose; everything else is plain DOM code run with `evaluate`):
//
//   ENGINE                      'chromium' | 'firefox' | 'webkit'
//   engine.supports.X           what this engine's driver can do; tests skip visibly without it:
//     consoleApi                the driver reports console.error / uncaught errors itself
//                               (otherwise an injected listener collects them)
//     requests                  the driver sees every request, with failures and status codes
//     bypassCSP                 a page can be opened with its CSP switched off
//     downloads                 the browser's own download can be caught (page.download reads
//                               the page's Blob instead where not)
//     longtask                  PerformanceObserver 'longtask' entries exist
//     fileFetch                 fetch() of a file:// URL from a file:// page works
//     minWidth                  the narrowest viewport (px) the engine's window can have
//     tracing                   the browser records a trace of its threads' tasks (page.trace)
//     pdf                       the page prints to PDF (page.raw.pdf, playwright's)
//   engine.skipUnless(feature, why?)   `test(name, engine.skipUnless('downloads'), fn)`: the
//                               node:test options that skip with the reason, or {} to run
//   launch()                    a Browser: newContext(options), close()
//     options: {viewport: {width, height}, colorScheme: 'light'|'dark',
//               reducedMotion: 'reduce'|'no-preference', bypassCSP}
//   Context: newPage(), addInitScript(source), close()
//   Page (and a frame's page from page.frame(iframeSelector)):
//     goto(url), reload(), url(), close()
//     evaluate(fn, arg)         fn runs in the page (arg and result JSON-serialisable);
//                               runs in spite of the page's CSP; may return a promise
//     click(sel) check(sel) hover(sel) focus(sel)   real mouse input at the element's centre,
//                               scrolled to the middle of the view first (instantly);
//                               click(sel, {hold: ms}) keeps the button down that long between
//                               press and release, as a person does (about 100 ms)
//     fill(sel, value) selectOption(sel, value)      set the value and fire input/change (as
//                               playwright's fill does); refused on disabled or read-only fields
//     keyboard.press('Tab' | 'Control+A' | ...), keyboard.type(text)    real key events
//     screenshot({path, fullPage})
//     textContent inputValue getAttribute isVisible isHidden isChecked isDisabled isEnabled
//     $$eval(sel, fn, arg) $eval(sel, fn, arg) $$(sel) (locators) waitForSelector(sel, {state})
//     waitForFunction(fn, arg, {timeout}) waitForTimeout(ms) locator(sel) frame(iframeSel)
//     trace(action, {categories})  the browser's trace events (Chrome trace format) while
//                               `action` runs; only where supports.tracing
//     log                       a PageLog (helpers.mjs) that the engine fills: console errors,
//                               uncaught errors, failed and outside requests, CSP violations
//   Locator: locator(sel) first() nth(i) filter({hasText}) count() and the element methods
//     above, evaluate(fn, arg) (fn gets the element) evaluateAll(fn, arg), waitFor({state})
//   Selectors are CSS, searched through open shadow roots too; `sel >> nth=N` picks the Nth.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ENGINES = ['chromium', 'firefox', 'webkit'];
export const ENGINE = process.env.HEADWISE_BROWSER || 'chromium';
if (!ENGINES.includes(ENGINE)) {
  throw new Error(`HEADWISE_BROWSER is "${ENGINE}": it must be one of ${ENGINES.join(', ')}`);
}

const SUPPORTS = {
  chromium: { consoleApi: true, requests: true, bypassCSP: true, downloads: true, longtask: true, fileFetch: false, minWidth: 0, tracing: true, pdf: true },
  firefox: { consoleApi: true, requests: true, bypassCSP: false, downloads: false, longtask: false, fileFetch: false, minWidth: 0, tracing: false, pdf: false },
  webkit: { consoleApi: false, requests: false, bypassCSP: false, downloads: false, longtask: false, fileFetch: false, minWidth: 0, tracing: false, pdf: false },
};
const WHY = {
  consoleApi: 'its driver has no console or error events',
  requests: 'its driver does not report requests',
  bypassCSP: 'its driver cannot switch a page\'s CSP off',
  downloads: 'its driver cannot catch a download',
  longtask: 'it has no PerformanceObserver \'longtask\' entries',
  fileFetch: 'it refuses fetch() of file:// URLs',
  tracing: 'its driver cannot record a trace of the browser\'s tasks',
  pdf: 'the print test reads Chromium\'s own PDF output (playwright\'s page.pdf, on page.raw)',
};

export const engine = {
  name: ENGINE,
  supports: SUPPORTS[ENGINE],
  /**
   * node:test options that skip a test, visibly and with the reason, where this engine lacks a feature.
   * @param {keyof typeof WHY} feature
   * @param {string} [why]
   */
  skipUnless(feature, why) {
    return this.supports[feature] ? {} : { skip: `${ENGINE}: ${why || WHY[feature]}` };
  },
};

// ---- what every page records (installed before the page's own scripts, in every frame) ---------

/**
 * Records CSP violations in every engine; in an engine whose driver cannot report them, also
 * uncaught errors, unhandled rejections, console.error and resources that failed to load.
 */
export const WATCH_SOURCE = `(() => {
  if (window.__hwWatch) return;
  const w = window.__hwWatch = { csp: [], errors: [], console: [], failed: [] };
  const text = (v) => {
    try {
      if (v instanceof Error) return v.stack && v.stack.includes(v.message) ? String(v.stack) : String(v) + (v.stack ? ' | ' + v.stack : '');
      return typeof v === 'string' ? v : JSON.stringify(v);
    } catch { return String(v); }
  };
  // True from the end of a ResizeObserver callback of this frame that returned until the next
  // task begins: the rendering step that ran it (see the muted notice below). False while a
  // callback's own exception is reported, which follows it at once.
  const RO = window.ResizeObserver;
  if (RO) {
    window.ResizeObserver = class extends RO {
      constructor(cb) {
        super(function (entries, observer) {
          let result;
          try {
            result = cb.call(this, entries, observer);
          } catch (e) {
            w.inObserverStep = false;
            throw e;
          }
          if (!w.inObserverStep) setTimeout(() => { w.inObserverStep = false; }, 0);
          w.inObserverStep = true;
          return result;
        });
      }
    };
  }
  document.addEventListener('securitypolicyviolation', (e) => {
    w.csp.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
  });
  window.addEventListener('error', (e) => {
    // An event of a document being left can no longer be read in Firefox ("Permission denied to
    // access property"): there is nothing to record then, and this listener must not throw.
    try {
      // Informational, and delivered in the next frame; the other engines' drivers do not report it.
      if (/^ResizeObserver loop/.test(e.message || '')) return;
      // WebKit reports that same notice in an opaque-origin (sandboxed) frame as a muted error,
      // "Script error." with no file and no error object, in the rendering step that ran the
      // frame's ResizeObserver callbacks: that one is the notice. (A muted error in any other task
      // is recorded.)
      if (e.message === 'Script error.' && !e.filename && !e.error && w.inObserverStep) return;
      const t = e.target;
      if (t && t !== window && (t.src || t.href)) w.failed.push((t.src || t.href) + ' failed to load');
      else w.errors.push(text(e.error || e.message) + (e.filename ? ' at ' + e.filename + ':' + e.lineno : ''));
    } catch {
      // (see above)
    }
  }, true);
  window.addEventListener('unhandledrejection', (e) => w.errors.push('unhandled rejection: ' + text(e.reason)));
  const original = console.error;
  console.error = function (...args) { w.console.push(args.map(text).join(' ')); return original.apply(this, args); };
})();`;

/** Where the injected copy of WATCH_SOURCE is served from (engines that need it injected). */
export const WATCH_PATH = '__headwise_watch.js';
/** True where the test server and the file:// copy of dist/ must inject the watcher into HTML. */
export const INJECT_WATCH = ENGINE === 'webkit';

/**
 * Put a <script src> for the watcher first in an HTML document's <head>.
 * @param {string} html
 * @param {string} src
 */
export function injectWatch(html, src = `/${WATCH_PATH}`) {
  const tag = `<script src="${src}"></script>`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (m) => `${m}\n${tag}`) : tag + html;
}

// ---- in-page element lookup ---------------------------------------------------------------------

/**
 * Source of a function run in the page: (chain) => Element[]. `chain` is a list of
 * [selector, nth|null, hasText|null] steps, each searched under the previous step's elements
 * (and their open shadow roots).
 */
const RESOLVE = `((chain) => {
  const under = (root, sel) => {
    const out = [...root.querySelectorAll(sel)];
    const walk = (r) => {
      for (const e of r.querySelectorAll('*')) {
        if (e.shadowRoot) { out.push(...e.shadowRoot.querySelectorAll(sel)); walk(e.shadowRoot); }
      }
    };
    walk(root);
    if (root.shadowRoot) { out.push(...root.shadowRoot.querySelectorAll(sel)); walk(root.shadowRoot); }
    return [...new Set(out)];
  };
  let found = [document];
  for (const [sel, nth, hasText] of chain) {
    let next = [];
    for (const root of found) next.push(...under(root, sel));
    next = [...new Set(next)];
    if (hasText != null) next = next.filter((e) => (e.textContent || '').includes(hasText));
    if (nth != null) next = nth < 0 ? next.slice(nth).slice(0, 1) : next.slice(nth, nth + 1);
    found = next;
  }
  return found;
})`;

/** @param {string} sel @returns {[string, number|null, string|null]} */
function step(sel) {
  const m = /^(.*?)\s*>>\s*nth=(-?\d+)\s*$/.exec(sel);
  return m ? [m[1], Number(m[2]), null] : [sel, null, null];
}

/** An expression for `fn(elements, arg)` evaluated in the page. */
function onElements(chain, fn, arg) {
  return `(${fn})(${RESOLVE}(${JSON.stringify(chain)}), ${arg === undefined ? 'undefined' : JSON.stringify(arg)})`;
}

// Element operations, run in the page on the resolved elements.
const OPS = {
  count: (els) => els.length,
  text: (els) => (els[0] ? els[0].textContent : null),
  attr: (els, name) => (els[0] ? els[0].getAttribute(name) : null),
  value: (els) => (els[0] ? els[0].value : null),
  checked: (els) => !!(els[0] && els[0].checked),
  disabled: (els) => !!(els[0] && (els[0].disabled || els[0].closest('fieldset[disabled]'))),
  visible: (els) => {
    const e = els[0];
    if (!e || !e.isConnected) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  },
  focus: (els) => { if (!els[0]) return false; els[0].scrollIntoView({ block: 'center', behavior: 'instant' }); els[0].focus(); return true; },
  fill: (els, value) => {
    const e = els[0];
    if (!e) return 'missing';
    if (e.disabled || e.readOnly) return 'disabled';
    e.scrollIntoView({ block: 'center', behavior: 'instant' });
    e.focus();
    if (e.isContentEditable) e.textContent = value;
    else e.value = value;
    e.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    e.dispatchEvent(new Event('change', { bubbles: true }));
    return 'ok';
  },
  select: (els, value) => {
    const e = els[0];
    if (!e) return 'missing';
    if (e.disabled) return 'disabled';
    if (![...e.options].some((o) => o.value === value)) return 'no option';
    e.value = value;
    e.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    e.dispatchEvent(new Event('change', { bubbles: true }));
    return 'ok';
  },
  // Scroll to the middle of the view, instantly, and say where the centre is and what is there.
  where: (els) => {
    const e = els[0];
    if (!e) return null;
    e.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const r = e.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot && hit.shadowRoot.elementFromPoint(x, y) && hit.shadowRoot.elementFromPoint(x, y) !== hit) hit = hit.shadowRoot.elementFromPoint(x, y);
    const label = e.labels && e.labels[0];
    const ok = !!hit && (hit === e || e.contains(hit) || (label && (label === hit || label.contains(hit))));
    return { x, y, width: r.width, height: r.height, ok, hit: hit ? hit.outerHTML.slice(0, 80) : null };
  },
};

// Catches <a download> clicks on Blob URLs: the Blob is remembered when its URL is made.
const DOWNLOAD_HOOK = `(() => {
  if (window.__hwDownloads) return;
  window.__hwDownloads = [];
  const blobs = new Map();
  const make = URL.createObjectURL;
  URL.createObjectURL = (b) => { const u = make.call(URL, b); blobs.set(u, b); return u; };
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () {
    const blob = blobs.get(this.href);
    if (!this.download || !blob) return click.call(this);
    const name = this.download;
    blob.arrayBuffer().then((buf) => {
      const u = new Uint8Array(buf);
      let s = '';
      for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
      window.__hwDownloads.push({ name, base64: btoa(s) });
    });
  };
})()`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A new directory under the system's temporary one, removed by `remove()` or, at the latest,
 * when this process exits. A Firefox profile grows to 37 MB, and a whole run of the suite
 * starts 140 profiles, configurations and copies of dist/ (run.mjs fails a file that leaves one).
 * @param {string} prefix
 * @returns {{dir: string, remove: () => void}}
 */
export function scratchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => {
    process.off('exit', remove);
    // A browser process killed a moment ago may still write a file or two (a shader cache):
    // removal retries for about ten seconds, then says what it could not remove.
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 12, retryDelay: 150 });
    } catch (e) {
      console.error(`# could not remove ${dir}: ${e.message}`);
    }
  };
  process.on('exit', remove);
  return { dir, remove };
}

/** A timeout that a loaded machine tolerates; scaled by HEADWISE_TIMEOUT_SCALE. */
export const TIMEOUT = 20000 * Number(process.env.HEADWISE_TIMEOUT_SCALE || 1);

// ---- Page, Locator: the same for every engine, over a driver's few primitives --------------------

class Locator {
  /** @param {Page} page @param {Array} chain */
  constructor(page, chain) { this.page = page; this.chain = chain; }
  locator(sel) { return new Locator(this.page, [...this.chain, step(sel)]); }
  nth(i) { const c = this.chain.slice(); const [s, , t] = c[c.length - 1]; c[c.length - 1] = [s, i, t]; return new Locator(this.page, c); }
  first() { return this.nth(0); }
  last() { return this.nth(-1); }
  filter({ hasText }) { const c = this.chain.slice(); const [s, n] = c[c.length - 1]; c[c.length - 1] = [s, n, hasText]; return new Locator(this.page, c); }
  _op(op, arg) { return this.page._eval(onElements(this.chain, OPS[op], arg)); }
  count() { return this._op('count'); }
  textContent() { return this._need().then(() => this._op('text')); }
  getAttribute(name) { return this._need().then(() => this._op('attr', name)); }
  inputValue() { return this._need().then(() => this._op('value')); }
  isVisible() { return this._op('visible'); }
  async isHidden() { return !(await this._op('visible')); }
  isChecked() { return this._need().then(() => this._op('checked')); }
  isDisabled() { return this._need().then(() => this._op('disabled')); }
  async isEnabled() { return !(await this.isDisabled()); }
  evaluate(fn, arg) { return this._need().then(() => this.page._eval(onElements(this.chain, `(els, a) => (${fn})(els[0], a)`, arg))); }
  evaluateAll(fn, arg) { return this.page._eval(onElements(this.chain, fn, arg)); }
  async focus() { await this._need(); await this._op('focus'); }
  async fill(value, { timeout } = {}) {
    await this._need(timeout);
    const r = await this._op('fill', String(value));
    if (r !== 'ok') throw new Error(`fill ${this}: the element is ${r}`);
  }
  async selectOption(value) {
    await this._need();
    const r = await this._op('select', String(value));
    if (r !== 'ok') throw new Error(`selectOption ${this} = ${value}: ${r}`);
  }
  /** Wait until the element is there (or visible, hidden, detached). */
  async waitFor({ state = 'visible', timeout = TIMEOUT } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      const [n, vis] = await this.page._eval(onElements(this.chain, `(els) => [els.length, (${OPS.visible})(els)]`));
      const ok = state === 'attached' ? n > 0 : state === 'detached' ? n === 0 : state === 'hidden' ? !vis : vis;
      if (ok) return;
      if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${this} to be ${state}`);
      await sleep(50);
    }
  }
  async _need(timeout = TIMEOUT) {
    if ((await this.count()) > 0) return;
    await this.waitFor({ state: 'attached', timeout });
  }
  /**
   * The centre of the element in the top page's viewport, scrolled into view first, once it
   * holds still: the same point on two looks 50 ms apart (content above that is still being
   * drawn moves it, and WebKit has no scroll anchoring to keep it in place).
   */
  async _point() {
    const end = Date.now() + TIMEOUT;
    let last = null;
    for (let tries = 0; ; tries += 1) {
      await this._need();
      const w = await this._op('where');
      const usable = w && w.width > 0 && w.height > 0 && (w.ok || tries >= 10);
      if (usable && last && last.x === w.x && last.y === w.y) return this.page._toTop(w);
      if (Date.now() > end) throw new Error(`${this} is not clickable: ${JSON.stringify(w)}`);
      last = usable ? w : null;
      await sleep(usable ? 50 : 100);
    }
  }
  async click({ hold = 0 } = {}) { const p = await this._point(); await this.page._driver.click(p.x, p.y, hold); }
  async hover() { const p = await this._point(); await this.page._driver.move(p.x, p.y); }
  async check() { if (!(await this.isChecked())) await this.click(); assert.ok(await this.isChecked(), `${this} is checked after a click`); }
  async uncheck() { if (await this.isChecked()) await this.click(); }
  toString() { return this.chain.map(([s, n, t]) => s + (n != null ? ` >> nth=${n}` : '') + (t != null ? ` (with "${t}")` : '')).join(' >> '); }
}

export class Page {
  /**
   * @param {object} driver the engine's primitives (see the drivers below)
   * @param {import('./helpers.mjs').PageLog} log
   * @param {string|null} [frameSel] set for a page inside an iframe of the top page
   * @param {Page} [top]
   */
  constructor(driver, log, frameSel = null, top = null) {
    this._driver = driver;
    this.log = log;
    this._frame = frameSel;
    this._top = top || this;
    this.engine = engine;
    this.keyboard = {
      press: (key) => driver.press(key),
      type: (text) => driver.type(text),
    };
    this.mouse = { click: (x, y, hold = 0) => driver.click(x, y, hold), move: (x, y) => driver.move(x, y) };
  }
  /** The underlying driver object (playwright Page, puppeteer Page, selenium WebDriver): engine-specific code only. */
  get raw() { return this._driver.raw; }
  _eval(expr) { return this._driver.eval(expr, this._frame); }
  async _toTop(w) {
    if (!this._frame) return w;
    // The element is in view inside the frame; bring that point into the top page's view too.
    // (The frames tested have no border or padding: their content starts at their edge.)
    const frameBox = (dy) => this._top._eval(`(() => {
      if (${dy}) window.scrollBy({ top: ${dy}, behavior: 'instant' });
      const r = ${RESOLVE}(${JSON.stringify([step(this._frame)])})[0].getBoundingClientRect();
      return { left: r.left, top: r.top, height: innerHeight };
    })()`);
    let box = await frameBox(0);
    const y = box.top + w.y;
    if (y < 0 || y > box.height) box = await frameBox(Math.round(y - box.height / 2));
    return { ...w, x: w.x + box.left, y: w.y + box.top };
  }
  async goto(url) { await this._top.harvest(); await this._driver.goto(url); }
  async reload() { await this._top.harvest(); await this._driver.reload(); }
  async url() { return this._frame ? this._driver.frameUrl(this._frame) : this._driver.url(); }
  evaluate(fn, arg) { return this._eval(`(${fn})(${arg === undefined ? '' : JSON.stringify(arg)})`); }
  /** Run a script's source (e.g. a library) in the page, in spite of its CSP. */
  addScript(source) { return this._eval(`(() => { ${source}\n})()`); }
  locator(sel) { return new Locator(this, [step(sel)]); }
  frame(iframeSel) { return new Page(this._driver, this.log, iframeSel, this._top); }
  async $$(sel) { const n = await this.locator(sel).count(); return Array.from({ length: n }, (_, i) => this.locator(sel).nth(i)); }
  $$eval(sel, fn, arg) { return this.locator(sel).evaluateAll(fn, arg); }
  $eval(sel, fn, arg) { return this.locator(sel).first().evaluate(fn, arg); }
  textContent(sel) { return this.locator(sel).first().textContent(); }
  inputValue(sel) { return this.locator(sel).first().inputValue(); }
  getAttribute(sel, name) { return this.locator(sel).first().getAttribute(name); }
  isVisible(sel) { return this.locator(sel).first().isVisible(); }
  isHidden(sel) { return this.locator(sel).first().isHidden(); }
  isChecked(sel) { return this.locator(sel).first().isChecked(); }
  isDisabled(sel) { return this.locator(sel).first().isDisabled(); }
  isEnabled(sel) { return this.locator(sel).first().isEnabled(); }
  click(sel, options) { return this.locator(sel).first().click(options); }
  hover(sel) { return this.locator(sel).first().hover(); }
  check(sel) { return this.locator(sel).first().check(); }
  focus(sel) { return this.locator(sel).first().focus(); }
  fill(sel, value, options) { return this.locator(sel).first().fill(value, options); }
  selectOption(sel, value) { return this.locator(sel).first().selectOption(value); }
  waitForSelector(sel, options) { return this.locator(sel).first().waitFor(options); }
  waitForTimeout(ms) { return sleep(ms); }
  async waitForFunction(fn, arg, { timeout = TIMEOUT } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      const v = await this.evaluate(fn, arg);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${String(fn).slice(0, 120)}`);
      await sleep(50);
    }
  }
  /**
   * Run `action` (a click, a key) and return the file the page saves as a download. Where the
   * driver can catch downloads (Chromium) this is the browser's own download; elsewhere the Blob
   * behind the page's <a download> click is read in the page instead (the save itself is not
   * exercised there).
   * @param {() => Promise<unknown>} action
   * @returns {Promise<{name: string, bytes: Buffer}>}
   */
  async download(action) {
    if (engine.supports.downloads) {
      const [file] = await Promise.all([this._top._driver.raw.waitForEvent('download'), action()]);
      return { name: file.suggestedFilename(), bytes: await readFile(await file.path()) };
    }
    await this._eval(DOWNLOAD_HOOK);
    await action();
    const end = Date.now() + TIMEOUT;
    for (;;) {
      const got = await this._eval('window.__hwDownloads.shift() || null');
      if (got) return { name: got.name, bytes: Buffer.from(got.base64, 'base64') };
      if (Date.now() > end) throw new Error('no download within the time allowed');
      await sleep(50);
    }
  }
  /**
   * The trace events (Chrome's trace event format) the browser records while `action` runs.
   * @param {() => Promise<unknown>} action
   * @param {{categories?: string[]}} [options]
   * @returns {Promise<object[]>}
   */
  async trace(action, { categories = ['toplevel', '__metadata'] } = {}) {
    if (!engine.supports.tracing || !this._top._driver.trace) throw new Error(`${ENGINE}: ${WHY.tracing}`);
    return this._top._driver.trace(action, categories);
  }
  /** @param {{path?: string, fullPage?: boolean}} [options] @returns {Promise<Buffer>} */
  screenshot(options = {}) { return this._driver.screenshot(options); }
  /** The viewport's size in CSS pixels. */
  viewport() { return this.evaluate(() => ({ width: innerWidth, height: innerHeight })); }
  /** Move what the watcher recorded in every frame into the log (before navigating, and at the end). */
  async harvest() {
    const got = await this._driver.harvest().catch(() => []);
    for (const w of got) {
      this.log.cspViolations.push(...w.csp.map((v) => `${v} (in ${w.url})`));
      if (!engine.supports.consoleApi) {
        this.log.pageErrors.push(...w.errors.map((v) => `${v} (in ${w.url})`));
        this.log.consoleErrors.push(...w.console.map((v) => `${v} (in ${w.url})`));
        this.log.failedRequests.push(...w.failed);
      }
      if (!engine.supports.requests) this.log.requests.push(...w.requests);
    }
  }
  close() { return this._driver.close(); }
}

// ---- keys ----------------------------------------------------------------------------------------

/** 'Control+A' -> ['Control', 'a'] (a letter key in a chord is typed lower-case, as by a person). */
function chord(key) {
  const parts = key.split('+');
  return parts.map((p, i) => (i === parts.length - 1 && p.length === 1 ? p.toLowerCase() : p));
}

// ---- drivers -------------------------------------------------------------------------------------
// Each makes browsers whose newPage(options, log) gives a driver page with: eval(expr, frameSel),
// goto, reload, url, frameUrl, click(x, y, holdMs), move(x, y), press(key), type(text), screenshot,
// harvest() (the watcher's records from every frame), close(), raw.

const HARVEST = `(() => { const w = window.__hwWatch || { csp: [], errors: [], console: [], failed: [] };
  const out = { url: location.href, csp: w.csp.splice(0), errors: w.errors.splice(0), console: w.console.splice(0), failed: w.failed.splice(0),
    requests: performance.getEntriesByType('resource').map((e) => e.name) };
  performance.clearResourceTimings();
  return out; })()`;

// Every engine's language is English: the lesson follows the browser's (navigator.languages), and
// the tests read its English, whatever the machine's locale.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--lang=en-US'];

async function chromiumDriver() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  // Chromium contexts are reused. A fresh one per test cost about 3.4 s of the machine's CPU per
  // lesson load here, against 1.7 s for a new page in a kept context that has one blank page
  // open (its renderer stays up): most of the Chromium run's time. A "context" handed to a test
  // is a kept one that no other test holds; its pages get the test's viewport, colour scheme,
  // reduced motion and init scripts themselves, and when it closes, its pages are closed and
  // every origin they reached (file:// and the loopback servers) has its storage cleared
  // (localStorage, sessionStorage, IndexedDB, cookies, caches), so that the next test starts
  // as in a fresh context. bypassCSP is a context's setting, so it keys the pool.
  /** @type {{bypassCSP: boolean, context: any, blank: any, session: any}[]} */
  const idle = [];
  const keep = async (bypassCSP) => {
    const i = idle.findIndex((k) => k.bypassCSP === bypassCSP);
    if (i >= 0) return idle.splice(i, 1)[0];
    const context = await browser.newContext({ bypassCSP, acceptDownloads: true });
    await context.addInitScript(WATCH_SOURCE);
    const blank = await context.newPage();
    return { bypassCSP, context, blank, session: await context.newCDPSession(blank) };
  };
  return {
    version: browser.version(),
    async newContext(o) {
      const kept = await keep(!!o.bypassCSP);
      const { context } = kept;
      const pages = [];
      const logs = [];
      const inits = [];
      return {
        async addInitScript(src) {
          inits.push(src);
          for (const page of pages) await page.addInitScript(src);
        },
        async close() {
          // Its pages, and any a page opened itself (a link with target=_blank, window.open).
          for (const page of context.pages()) if (page !== kept.blank) await page.close().catch(() => {});
          // The origins its pages reached: file://, and those of the http(s) requests they logged.
          const origins = new Set(['file://']);
          for (const url of logs.flatMap((log) => log.requests)) {
            if (/^https?:/.test(url)) origins.add(new URL(url).origin);
          }
          try {
            for (const origin of origins) await kept.session.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
            idle.push(kept);
          } catch {
            // The kept page is gone (its renderer crashed): this context is not reused.
            await context.close().catch(() => {});
          }
        },
        async newPage(log) {
          const page = await context.newPage();
          pages.push(page);
          logs.push(log);
          await page.setViewportSize(o.viewport);
          await page.emulateMedia({ colorScheme: o.colorScheme, reducedMotion: o.reducedMotion });
          for (const src of inits) await page.addInitScript(src);
          page.on('console', (m) => { if (m.type() === 'error') log.consoleErrors.push(m.text()); });
          page.on('pageerror', (e) => log.pageErrors.push(String(e && e.stack ? e.stack : e)));
          page.on('requestfailed', (r) => {
            const why = r.failure()?.errorText;
            (why === 'net::ERR_ABORTED' ? log.abortedRequests : log.failedRequests).push(`${r.url()} ${why}`);
          });
          page.on('response', (r) => { if (r.status() >= 400) log.failedRequests.push(`${r.url()} HTTP ${r.status()}`); });
          page.on('request', (r) => log.requests.push(r.url()));
          const frameOf = async (sel) => {
            const f = await (await page.$(sel))?.contentFrame();
            if (!f) throw new Error(`no frame at ${sel}`);
            return f;
          };
          return {
            raw: page,
            eval: async (expr, frameSel) => (frameSel ? (await frameOf(frameSel)).evaluate(expr) : page.evaluate(expr)),
            goto: (url) => page.goto(url),
            reload: () => page.reload(),
            url: () => page.url(),
            frameUrl: async (sel) => (await frameOf(sel)).url(),
            click: (x, y, hold = 0) => page.mouse.click(x, y, { delay: hold }),
            move: (x, y) => page.mouse.move(x, y),
            press: (key) => page.keyboard.press(key),
            type: (text) => page.keyboard.type(text),
            screenshot: (opts) => page.screenshot(opts),
            async trace(action, categories) {
              await browser.startTracing(page, { categories });
              let buf;
              try {
                await action();
              } finally {
                buf = await browser.stopTracing();
              }
              const trace = JSON.parse(buf.toString());
              return trace.traceEvents || trace;
            },
            harvest: () => Promise.all(page.frames().map((f) => f.evaluate(HARVEST).catch(() => null))).then((a) => a.filter(Boolean)),
            close: () => page.close(),
          };
        },
      };
    },
    close: () => browser.close(),
  };
}

const FIREFOX_KEYS = { Space: ' ' };

/** Firefox ESR over WebDriver BiDi. Colour scheme and reduced motion are preferences, set at launch. */
async function firefoxDriver({ colorScheme, reducedMotion }) {
  const { default: puppeteer } = await import('puppeteer-core');
  const { dir: profile, remove: removeProfile } = scratchDir('headwise-firefox-');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.FIREFOX || '/usr/bin/firefox-esr',
    headless: true,
    userDataDir: profile,
    protocolTimeout: 180000,
    extraPrefsFirefox: {
      // 0 dark, 1 light: what prefers-color-scheme reports to pages.
      'layout.css.prefers-color-scheme.content-override': colorScheme === 'dark' ? 0 : 1,
      'ui.prefersReducedMotion': reducedMotion === 'no-preference' ? 0 : 1,
      'browser.download.useDownloadDir': true,
      'browser.download.dir': profile,
      'browser.download.folderList': 2,
      'intl.accept_languages': 'en-US, en',
      'intl.locale.requested': 'en-US',
    },
    env: { ...process.env, MOZ_HEADLESS: '1', MOZ_CRASHREPORTER_DISABLE: '1' },
  });
  return {
    version: await browser.version(),
    async newContext(o) {
      const context = await browser.createBrowserContext();
      const inits = [WATCH_SOURCE];
      const open = [];
      return {
        async addInitScript(src) {
          inits.push(src);
          for (const page of open) await page.evaluateOnNewDocument(src);
        },
        close: () => context.close(),
        async newPage(log) {
          const page = await context.newPage();
          open.push(page);
          page.setDefaultTimeout(TIMEOUT);
          await page.setViewport(o.viewport);
          for (const src of inits) await page.evaluateOnNewDocument(src);
          page.on('console', (m) => { if (m.type() === 'error') log.consoleErrors.push(m.text()); });
          page.on('pageerror', (e) => {
            const text = String(e && e.stack ? e.stack : e);
            // Firefox reports a blocked load as a page error; other engines put it on the console.
            (/Content.Security.Policy/i.test(text) ? log.consoleErrors : log.pageErrors).push(text);
          });
          page.on('requestfailed', (r) => {
            const why = r.failure()?.errorText || 'failed';
            (/ABORT/i.test(why) ? log.abortedRequests : log.failedRequests).push(`${r.url()} ${why}`);
          });
          page.on('response', (r) => { if (r.status() >= 400) log.failedRequests.push(`${r.url()} HTTP ${r.status()}`); });
          page.on('request', (r) => log.requests.push(r.url()));
          const frameOf = async (sel) => {
            const f = await (await page.$(sel))?.contentFrame();
            if (!f) throw new Error(`no frame at ${sel}`);
            return f;
          };
          const press = async (key) => {
            const keys = chord(key).map((k) => FIREFOX_KEYS[k] || k);
            for (const k of keys.slice(0, -1)) await page.keyboard.down(k);
            await page.keyboard.press(keys[keys.length - 1]);
            for (const k of keys.slice(0, -1).reverse()) await page.keyboard.up(k);
          };
          return {
            raw: page,
            eval: async (expr, frameSel) => (frameSel ? (await frameOf(frameSel)).evaluate(expr) : page.evaluate(expr)),
            goto: (url) => page.goto(url, { waitUntil: 'load' }),
            reload: () => page.reload({ waitUntil: 'load' }),
            url: () => page.url(),
            frameUrl: async (sel) => (await frameOf(sel)).url(),
            click: (x, y, hold = 0) => page.mouse.click(x, y, { delay: hold }),
            move: (x, y) => page.mouse.move(x, y),
            press,
            type: (text) => page.keyboard.type(text),
            screenshot: (opts) => page.screenshot(opts),
            harvest: () => Promise.all(page.frames().map((f) => f.evaluate(HARVEST).catch(() => null))).then((a) => a.filter(Boolean)),
            close: () => page.close(),
          };
        },
      };
    },
    async close() {
      try {
        await browser.close();
      } finally {
        removeProfile();
      }
    },
  };
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/**
 * Xvfb on the first free display from :90, shared by every WebKit session of this process. The
 * screen is small so that its pointer (at the centre) lies inside even a 360 px window: with no
 * window manager, that is what gives the window keyboard focus, without which WebKit does not
 * match :focus. Windows may be larger than the screen; WebKit draws them whole.
 */
let xvfb = null;
async function startXvfb() {
  if (xvfb) return xvfb;
  for (let n = 90 + (process.pid % 50); n < 200; n += 1) {
    if (existsSync(`/tmp/.X${n}-lock`) || existsSync(`/tmp/.X11-unix/X${n}`)) continue;
    const child = spawn('Xvfb', [`:${n}`, '-screen', '0', '640x480x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    const up = await new Promise((resolve) => {
      const t = setInterval(() => { if (existsSync(`/tmp/.X11-unix/X${n}`)) { clearInterval(t); resolve(true); } }, 50);
      child.once('exit', () => { clearInterval(t); resolve(false); });
    });
    if (up) {
      xvfb = { display: `:${n}`, child };
      child.unref();
      process.once('exit', () => child.kill());
      return xvfb;
    }
  }
  throw new Error('no free X display for Xvfb between :90 and :199');
}

/**
 * Every process descended from `pid` (from /proc), deepest first.
 * @param {number} pid
 * @returns {number[]}
 */
function descendants(pid) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The fields after the command's closing parenthesis: state, ppid, …
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // a process that ended meanwhile
    }
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) || []) {
      walk(c);
      out.push(c);
    }
  };
  walk(pid);
  return out;
}

/**
 * The processes whose environment names `config` as XDG_CONFIG_HOME.
 * @param {string} config
 * @returns {number[]}
 */
function usingConfig(config) {
  const out = [];
  const want = `XDG_CONFIG_HOME=${config}\0`;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(want)) out.push(Number(name));
    } catch {
      // a process that ended meanwhile, or one that is not ours to read
    }
  }
  return out;
}

/**
 * End WebKitWebDriver and everything it started. Killing the driver alone leaves MiniBrowser
 * (and its web and network processes) running, holding the driver's stderr open: the test
 * file's process then never exits (seen in a local CI run, after a web process crashed).
 * Processes left over from a crash (a web process whose parent died, adopted by init) are found
 * by the configuration directory in their environment, which only this browser's processes have.
 * @param {import('node:child_process').ChildProcess} wd
 * @param {string} config  the browser's XDG_CONFIG_HOME
 * @returns {number[]} the processes killed
 */
function killDriverTree(wd, config) {
  const pids = [...new Set([...(wd.pid ? [...descendants(wd.pid), wd.pid] : []), ...usingConfig(config)])];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  wd.stderr?.destroy();
  return pids;
}

/**
 * Wait until none of `pids` runs any more (gone, or a zombie left to be reaped), for at most
 * `ms`: a process killed a moment ago may still write a file or two before it ends.
 * @param {number[]} pids
 * @param {number} ms
 */
async function ended(pids, ms) {
  const running = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2] !== 'Z';
    } catch {
      return false;
    }
  };
  for (const end = Date.now() + ms; pids.some(running) && Date.now() < end;) await sleep(50);
}

/**
 * `promise`, or a rejection after `ms` milliseconds.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const MINIBROWSER = process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/**
 * WebKitGTK: WebKitWebDriver + MiniBrowser --automation under Xvfb. One window per browser:
 * a "context" reuses it (storage is cleared when the context closes). Dark mode is MiniBrowser's
 * --dark-mode; reduced motion is GTK's gtk-enable-animations=false (WebKitGTK reports it as
 * prefers-reduced-motion: reduce).
 */
async function webkitDriver({ colorScheme, reducedMotion }) {
  const { Builder, Key, Origin } = await import('selenium-webdriver');
  const { display } = await startXvfb();
  const { dir: config, remove: removeConfig } = scratchDir('headwise-webkit-');
  mkdirSync(join(config, 'gtk-3.0'));
  writeFileSync(join(config, 'gtk-3.0', 'settings.ini'),
    `[Settings]\ngtk-enable-animations=${reducedMotion === 'no-preference' ? 'true' : 'false'}\n`);
  // MiniBrowser's toolbar would keep its window at least 447 px wide: shrink the toolbar (its GTK
  // widgets only; pages are not styled by GTK) so that phone widths such as 360 px fit.
  writeFileSync(join(config, 'gtk-3.0', 'gtk.css'), 'headerbar, headerbar *, toolbar, toolbar *, entry, button, .titlebar, .titlebar * '
    + '{ font-size: 1px; padding: 0; margin: 0; min-width: 0; min-height: 0; border-width: 0; }\n');
  const port = await freePort();
  const wd = spawn('/usr/bin/WebKitWebDriver', [`--port=${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env, DISPLAY: display, XDG_CONFIG_HOME: config, XDG_CACHE_HOME: join(config, 'cache'), XDG_DATA_HOME: join(config, 'data'),
      LANGUAGE: 'en_US:en', LANG: 'en_US.UTF-8',
    },
  });
  let wdErr = '';
  wd.stderr.on('data', (d) => { wdErr = (wdErr + d).slice(-4000); });
  process.once('exit', () => {
    killDriverTree(wd, config);
    removeConfig();
  });
  // Why this browser can no longer be used (the driver died, or it lost its session), if so:
  // launch() then starts a new one for the next context instead of failing every test after.
  let lost = null;
  let closing = false;
  const loseWith = (why) => {
    if (lost || closing) return;
    lost = why;
    console.log(`# webkit: ${why}; a new WebKitWebDriver and MiniBrowser are started for the next test.${wdErr.trim() ? ` The driver's last output: ${wdErr.trim().slice(-600).replace(/\s+/g, ' ')}` : ''}`);
  };
  wd.once('exit', (code, signal) => loseWith(`WebKitWebDriver exited (${signal || `code ${code}`})`));
  const args = ['--automation'];
  if (colorScheme === 'dark') args.push('--dark-mode');
  let driver;
  for (let i = 0; ; i += 1) {
    try {
      driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
        browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args },
      }).build();
      break;
    } catch (e) {
      if (i >= 40) throw new Error(`WebKitWebDriver did not start a session: ${e.message}\n${wdErr}`);
      await sleep(250);
    }
  }
  await driver.manage().setTimeouts({ script: 120000, pageLoad: 120000, implicit: 0 });
  const caps = await driver.getCapabilities();
  const KEYS = {
    Enter: Key.ENTER, Tab: Key.TAB, Space: ' ', ArrowUp: Key.ARROW_UP, ArrowDown: Key.ARROW_DOWN, ArrowLeft: Key.ARROW_LEFT,
    ArrowRight: Key.ARROW_RIGHT, End: Key.END, Home: Key.HOME, Delete: Key.DELETE, Backspace: Key.BACK_SPACE, Escape: Key.ESCAPE,
    Control: Key.CONTROL, Shift: Key.SHIFT, Alt: Key.ALT, Meta: Key.META, PageDown: Key.PAGE_DOWN, PageUp: Key.PAGE_UP,
  };
  let current = null; // the frame selenium is switched into
  const inFrame = async (sel, fn) => {
    const { By } = await import('selenium-webdriver');
    if (!sel) return fn();
    const el = await driver.executeScript(`return ${RESOLVE}(arguments[0])[0] || null`, [step(sel)]);
    if (!el) throw new Error(`no frame at ${sel}`);
    void By;
    await driver.switchTo().frame(el);
    current = sel;
    try { return await fn(); } finally { await driver.switchTo().defaultContent(); current = null; }
  };
  void current;
  const run = async (expr) => {
    const r = await driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${expr})).then((v) => done({ v: v === undefined ? null : v, u: v === undefined }), (e) => done({ e: String(e && e.stack || e) }));`);
    if (r && r.e) throw new Error(`in the page: ${r.e}`);
    return r && r.u ? undefined : r && r.v;
  };
  /**
   * Why MiniBrowser is of no more use, if this error says so: its session lost, or every script
   * answered with "Could not parse script result" (seen once in CI from the first test of a
   * --dark-mode instance on; the same tests passed in a new one).
   * @param {any} e
   * @returns {string|null}
   */
  const gone = (e) => {
    if (e && e.name === 'NoSuchSessionError') return 'MiniBrowser lost its WebDriver session';
    if (e && /Could not parse script result/.test(String(e.message))) return 'MiniBrowser lost its WebDriver session (its scripts\' results could no longer be read)';
    return null;
  };
  let chrome = null; // window size minus viewport size
  const setViewport = async ({ width, height }, { refocus = false } = {}) => {
    if (!chrome) {
      await driver.manage().window().setRect({ width: 1000, height: 800 });
      const inner = await driver.executeScript('return [innerWidth, innerHeight]');
      chrome = { w: 1000 - inner[0], h: 800 - inner[1] };
    }
    await driver.manage().window().setRect({ x: 0, y: 0, width: width + chrome.w, height: height + chrome.h });
    // Under Xvfb (no window manager) a narrow resize can leave the window without the keyboard
    // focus for good: keys still arrive, but :focus-visible and focus styles stop matching. A
    // new window has the focus; it replaces the old one (only for a new context, whose page is
    // still blank).
    if (refocus && !(await driver.executeScript('return document.hasFocus()'))) {
      const old = await driver.getWindowHandle();
      await driver.switchTo().newWindow('window');
      const fresh = await driver.getWindowHandle();
      await driver.switchTo().window(old);
      await driver.close();
      await driver.switchTo().window(fresh);
      await driver.manage().window().setRect({ x: 0, y: 0, width: width + chrome.w, height: height + chrome.h });
    }
  };
  let busy = false; // one context at a time: the window is shared
  return {
    version: caps.get('browserVersion'),
    lost: () => lost,
    async newContext(o) {
      if (busy) throw new Error('webkit: one context at a time (MiniBrowser has one window); close the other first');
      busy = true;
      try {
        await setViewport(o.viewport, { refocus: true });
      } catch (e) {
        busy = false;
        if (gone(e)) loseWith(gone(e));
        throw e;
      }
      const inits = [];
      return {
        addInitScript: (src) => { inits.push(src); },
        async close() {
          try {
            await driver.executeScript('try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}');
            await driver.get('about:blank');
          } catch (e) {
            if (gone(e)) loseWith(gone(e));
            throw e;
          } finally { busy = false; }
        },
        async newPage() {
          const after = async () => { for (const src of inits) await run(`(() => { ${src}\n})()`); };
          return {
            raw: driver,
            eval: (expr, frameSel) => inFrame(frameSel, () => run(expr)),
            goto: async (url) => { await driver.get(url); await after(); },
            reload: async () => { await driver.navigate().refresh(); await after(); },
            url: () => driver.getCurrentUrl(),
            frameUrl: (sel) => inFrame(sel, () => driver.executeScript('return location.href')),
            click: (x, y, hold = 0) => {
              const a = driver.actions({ async: true }).move({ x: Math.round(x), y: Math.round(y), origin: Origin.VIEWPORT });
              return (hold ? a.press().pause(hold).release() : a.click()).perform();
            },
            move: (x, y) => driver.actions({ async: true }).move({ x: Math.round(x), y: Math.round(y), origin: Origin.VIEWPORT }).perform(),
            async press(key) {
              const keys = chord(key).map((k) => KEYS[k] || k);
              let a = driver.actions({ async: true });
              for (const k of keys.slice(0, -1)) a = a.keyDown(k);
              a = a.keyDown(keys[keys.length - 1]).keyUp(keys[keys.length - 1]);
              for (const k of keys.slice(0, -1).reverse()) a = a.keyUp(k);
              await a.perform();
            },
            type: (text) => driver.actions({ async: true }).sendKeys(text).perform(),
            async screenshot({ path, fullPage } = {}) {
              let png;
              if (fullPage) {
                // WebKitWebDriver captures the viewport only: make the viewport as tall as the page.
                const [w, h, page] = await driver.executeScript('return [innerWidth, innerHeight, document.documentElement.scrollHeight]');
                await setViewport({ width: w, height: Math.min(page, 16000) });
                try {
                  png = Buffer.from(await driver.takeScreenshot(), 'base64');
                } finally {
                  await setViewport({ width: w, height: h });
                }
              } else {
                png = Buffer.from(await driver.takeScreenshot(), 'base64');
              }
              if (path) writeFileSync(path, png);
              return png;
            },
            async harvest() {
              const out = [await driver.executeScript(`return ${HARVEST}`)];
              const n = await driver.executeScript('return window.frames.length');
              for (let i = 0; i < n; i += 1) {
                try {
                  await driver.switchTo().frame(i);
                  out.push(await driver.executeScript(`return ${HARVEST}`));
                } catch { /* a frame that went away */ } finally { await driver.switchTo().defaultContent(); }
              }
              return out;
            },
            close: async () => {},
          };
        },
      };
    },
    async close() {
      closing = true;
      try {
        if (!lost) await within(driver.quit(), 20000, 'WebKitWebDriver\'s quit');
      } finally {
        await ended(killDriverTree(wd, config), 5000);
        removeConfig();
      }
    },
  };
}

const DRIVERS = { chromium: chromiumDriver, firefox: firefoxDriver, webkit: webkitDriver };

/**
 * This engine's browser. Chromium takes every option per context; Firefox and WebKit fix the
 * colour scheme and reduced motion at launch, so one instance per combination is started when
 * first asked for and kept until close().
 */
export async function launch() {
  const pool = new Map();
  const started = Date.now();
  const get = async (o) => {
    const key = ENGINE === 'chromium' ? 'all' : `${o.colorScheme}/${o.reducedMotion}`;
    if (pool.has(key)) {
      const b = await pool.get(key);
      if (!(b.lost && b.lost())) return b;
      pool.delete(key);
      await b.close().catch(() => {});
    }
    pool.set(key, DRIVERS[ENGINE]({ colorScheme: o.colorScheme, reducedMotion: o.reducedMotion }));
    return pool.get(key);
  };
  const { PageLog } = await import('./helpers.mjs');
  const browser = {
    engine,
    /** @param {{viewport?: {width: number, height: number}, colorScheme?: 'light'|'dark', reducedMotion?: 'reduce'|'no-preference', bypassCSP?: boolean}} [options] */
    async newContext(options = {}) {
      const o = { viewport: { width: 1280, height: 900 }, colorScheme: 'light', reducedMotion: 'reduce', ...options };
      const context = await (await get(o)).newContext(o);
      const pages = [];
      return {
        addInitScript: (src) => context.addInitScript(src),
        async newPage() {
          const log = new PageLog();
          const page = new Page(await context.newPage(log), log);
          pages.push(page);
          return page;
        },
        async close() {
          for (const p of pages) await p.harvest();
          await context.close();
        },
      };
    },
    async version() { return (await get({ colorScheme: 'light', reducedMotion: 'reduce' })).version; },
    async close() {
      for (const b of pool.values()) await (await b).close().catch(() => {});
      pool.clear();
    },
    started,
  };
  // Start the default instance now, so a failure to launch shows up in before().
  await get({ colorScheme: 'light', reducedMotion: 'reduce' });
  return browser;
}
