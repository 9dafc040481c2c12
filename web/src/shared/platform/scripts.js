// Classic scripts loaded beside the bundle that needs them: the WASM module
// (src/shared/platform/lesson-module.js), the training section (src/train/loader.js), a language's
// catalogue (src/shared/i18n/i18n.js, dist/i18n/<tag>.js). A <script> element, so that it works from
// file:// and under a strict Content-Security-Policy that allows the page's own scripts.

/**
 * The folder this bundle was loaded from (captured while the script runs: currentScript is
 * only set then). Falls back to a <script> whose name looks like ours, then to the page.
 * @param {string} name  the bundle's file name, e.g. "headwise-elements.js"
 * @returns {string}
 */
export function scriptBase(name) {
  const current = /** @type {HTMLScriptElement|null} */ (document.currentScript);
  let src = current && current.src ? current.src : '';
  if (!src) {
    const found = Array.from(document.querySelectorAll('script[src]'))
      .map((s) => /** @type {HTMLScriptElement} */ (s).src)
      .find((s) => new URL(s, document.baseURI).pathname.endsWith(`/${name}`));
    src = found || document.baseURI;
  }
  return new URL('.', src).href;
}

/** How long a load stopped while the page began to leave waits before it is tried again, if the
 * page is still here (the leave was cancelled, or was a download). */
const LEAVE_RETRY_MS = 3000;

/** Script loads in flight, and whether the page has begun to leave since the first of them. */
let inFlight = 0;
let leaving = false;
const onBeforeUnload = () => { leaving = true; };

/**
 * Count a load in or out. The beforeunload listener is only there while a load is in flight:
 * some engines keep a page with one out of the back/forward cache. With no load left, a leave
 * seen meanwhile that did not happen is forgotten, so that it cannot hold a later failure.
 * @param {1|-1} delta
 */
function track(delta) {
  inFlight += delta;
  if (delta > 0 && inFlight === 1) window.addEventListener('beforeunload', onBeforeUnload);
  if (inFlight === 0) {
    window.removeEventListener('beforeunload', onBeforeUnload);
    leaving = false;
  }
}

/** Resolves when the page is back from the back/forward cache, or is still here after a while. */
function whenStaying() {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('pageshow', done);
      leaving = false;
      resolve(undefined);
    };
    const timer = setTimeout(done, LEAVE_RETRY_MS);
    window.addEventListener('pageshow', done);
  });
}

/**
 * Load a classic script (with a <script> element: works from file:// and under a strict CSP).
 *
 * Firefox stops a page's loads as soon as the reader starts to leave it (after beforeunload,
 * before pagehide) and fires their error events, although nothing failed. Such an error is not
 * reported: if the page goes, nothing is left to tell; if it stays (the leave was cancelled, or the
 * page came back from the back/forward cache) the script is loaded once more.
 * @param {string} url
 * @param {{data?: string, onLoad?: () => any}} [options]  data: the data- attribute that marks the
 *   element (camelCase, default headwiseModule); onLoad: called in the load event's own task (before
 *   any other script runs), its result the promise's
 * @returns {Promise<any>}
 */
export function loadScript(url, { data = 'headwiseModule', onLoad } = {}) {
  const attempt = (/** @type {boolean} */ retried) => new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.dataset[data] = '';
    track(1);
    script.addEventListener('load', () => {
      track(-1);
      try {
        resolve(onLoad ? onLoad() : undefined);
      } catch (e) {
        reject(e);
      }
    });
    script.addEventListener('error', () => {
      const left = leaving;
      track(-1);
      script.remove();
      if (left && !retried) whenStaying().then(() => attempt(true)).then(resolve, reject);
      // Coded as src/shared/state/errors.js's PageError (load.failed), which this file, loaded by
      // the catalogues' own loader, does not import.
      else reject(Object.assign(new Error(`${url} could not be loaded`), { code: 'errors.load.failed', field: null, params: { url } }));
    });
    (document.head || document.documentElement).appendChild(script);
  });
  return attempt(false);
}
