// One WASM module for every embedded widget on a page. headwise-elements.js remembers where it
// was loaded from; headwise-lesson.js (the module without training: the training section loads
// headwise.js itself, when it is needed, see src/train/loader.js) is loaded from the same folder
// (once, with a <script> element, so it works from file:// and under a strict
// Content-Security-Policy) unless the page already defines createHeadwise. Every widget then
// shares one module instance.

import { messageOf } from './errors.js';
import { getCompute } from './compute.js';

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

/** @type {Promise<any>|null} */
let shared = null;

/**
 * Load a classic script (with a <script> element: works from file:// and under a strict CSP).
 * @param {string} url
 * @returns {Promise<void>}
 */
export function loadScript(url) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.dataset.headwiseModule = '';
    script.addEventListener('load', () => resolve());
    script.addEventListener('error', () => reject(new Error(`${url} could not be loaded`)));
    (document.head || document.documentElement).appendChild(script);
  });
}

/**
 * The shared module instance (the same promise for every caller).
 * @param {string} base  folder that holds headwise-lesson.js
 * @returns {Promise<any>}
 */
export function sharedModule(base) {
  if (!shared) {
    shared = (async () => {
      /** @type {any} */
      const g = globalThis;
      if (typeof g.createHeadwise !== 'function') await loadScript(new URL('headwise-lesson.js', base).href);
      if (typeof g.createHeadwise !== 'function') {
        throw new Error('headwise-lesson.js loaded but did not define createHeadwise');
      }
      // The page's one main-thread instance, shared with Compute (web/src/shared/compute.js).
      return getCompute().main();
    })();
    shared.catch((e) => console.error('Headwise: the WASM module failed to load:', messageOf(e)));
  }
  return shared;
}
