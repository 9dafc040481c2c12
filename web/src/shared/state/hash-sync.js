// The store's URL-hash sync: the settings read from the address bar, and written back into it
// at most once per HASH_WRITE_MS (the hash's codec is settings.js's).

import { defaults, langOf, parseHash, toHash } from './settings.js';
import { PageError, errorOf } from './errors.js';
import { pinWorkers } from '../compute/pool.js';

/** @typedef {import('./store.js').Store} Store */

/** The address bar's hash is rewritten at most this often (ms): 5 a second, well inside every engine's limit. */
export const HASH_WRITE_MS = 200;

/** Methods of Store (store.js installs them). */
export const hashSync = {
  /**
   * The URL hash into the state (the lesson page's link).
   * @this {Store}
   */
  readHash() {
    // An in-page link such as the skip link's #settings is navigation, not a permalink: the
    // settings stay as they are (notify() then writes them back into the hash).
    // Stryker disable next-line Regex: location.hash is empty or starts with its one '#'
    this._knownHash = window.location.hash;
    const fragment = window.location.hash.replace(/^#/, '');
    if (/^[A-Za-z][\w-]*$/.test(fragment) && document.getElementById(fragment)) return;
    try {
      this.state = parseHash(window.location.hash);
      this.notice = null;
    } catch (e) {
      // The defaults, in the language the link asks for if it asks for one plainly: a student
      // whose link is mistyped reads why in their own language.
      this.state = { ...defaults(), lang: langOf(window.location.hash) };
      this.notice = /** @type {import('./errors.js').ErrorInfo} */ (errorOf(new PageError('errors.hash.notice', { reason: errorOf(e) })));
    }
    this.inputErrors = {};
    this.lastChanged = null;
    // The link's `workers` pins the page's pools (a link without one leaves an element's pin).
    if (this.state.workers !== null || this._pinnedWorkers) {
      pinWorkers(this.state.workers);
      this._pinnedWorkers = this.state.workers !== null;
    }
  },

  /**
   * Put the settings into the address bar, at most once per HASH_WRITE_MS and always from a
   * timer of its own (browsers limit how often a page may change its history entry, and the new
   * numbers need not wait for the address bar); the newest settings are written when it fires.
   * @this {Store}
   */
  writeHash() {
    if (!this.syncHash || this._hashTimer) return;
    const wait = this._hashWrittenAt + HASH_WRITE_MS - performance.now();
    this._hashTimer = setTimeout(() => {
      this._hashTimer = 0;
      this.writeHashNow();
    }, Math.max(0, wait));
  },

  /**
   * The write itself (writeHash's timer).
   * @this {Store}
   */
  writeHashNow() {
    const now = performance.now();
    const next = `#${toHash(this.state)}`;
    if (window.location.hash === next) return;
    // The address changed since the store last read or wrote it (a link followed, the address
    // bar edited) and its hashchange has not been handled yet: that navigation wins. Writing
    // the older settings now would undo it, and its hashchange would then be taken for the
    // store's own write and dropped.
    if (this._knownHash !== null && window.location.hash !== this._knownHash) return;
    this._hashWrittenAt = now;
    this._knownHash = next;
    this._writtenHash = next;
    this._writingHash = true;
    try {
      // Stryker disable next-line StringLiteral: browsers ignore replaceState's title
      history.replaceState(null, '', next);
    } catch {
      window.location.replace(next);
    }
    // hashchange (if any) fires asynchronously.
    setTimeout(() => { this._writingHash = false; }, 0);
  },
};
