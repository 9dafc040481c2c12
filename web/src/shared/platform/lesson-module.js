// One WASM module for every embedded widget on a page. headwise-elements.js remembers where it
// was loaded from; headwise-lesson.js (the module without training: the training section loads
// headwise.js itself, when it is needed, see src/train/loader.js) is loaded from the same folder
// (once, with a <script> element, so it works from file:// and under a strict
// Content-Security-Policy) unless the page already defines createHeadwise. Every widget then
// shares one module instance.

import { PageError, messageOf } from '../state/errors.js';
import { getCompute } from '../compute/pool.js';
import { loadScript } from './scripts.js';

/** @typedef {import('../../../../cpp/api').Headwise} Headwise */

/** @type {Promise<Headwise>|null} */
let shared = null;

/**
 * The shared module instance (the same promise for every caller).
 * @param {string} base  folder that holds headwise-lesson.js
 * @returns {Promise<Headwise>}
 */
export function sharedModule(base) {
  if (!shared) {
    shared = (async () => {
      /** @type {any} */
      const g = globalThis;
      if (typeof g.createHeadwise !== 'function') await loadScript(new URL('headwise-lesson.js', base).href);
      if (typeof g.createHeadwise !== 'function') {
        throw new PageError('errors.load.noFactory', { file: 'headwise-lesson.js' });
      }
      // The page's one main-thread instance, shared with the page's Pool (web/src/shared/compute/pool.js).
      return getCompute().main();
    })();
    shared.catch((e) => console.error('Headwise: the WASM module failed to load:', messageOf(e)));
  }
  return shared;
}
