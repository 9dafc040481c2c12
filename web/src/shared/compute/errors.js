// The errors Compute raises, coded as the page's errors are (src/shared/state/errors.js) but made
// here without the catalogues (Compute is also bundled on its own): a superseded run's AbortError,
// why the work runs on the main thread (errors.worker.*), and a computation that stopped.

/**
 * The error a superseded run rejects with.
 * @param {string} key
 */
export function abortError(key) {
  const message = `superseded by a newer computation (${key})`;
  if (typeof DOMException === 'function') return new DOMException(message, 'AbortError');
  const e = new Error(message);
  e.name = 'AbortError';
  return e;
}

/**
 * Another party's message (a browser's exception, the module's start-up error) as it goes in
 * parentheses inside the page's own sentence: without its closing full stop (WebKit's Worker
 * constructor says "The operation is insecure.").
 * @param {any} e  an Error, or a message
 * @returns {string}
 */
export function quoted(e) {
  const m = e instanceof Error ? e.message : String(e);
  return m.endsWith('.') ? m.slice(0, -1) : m;
}

/**
 * One of the page's coded errors (src/shared/state/errors.js), made here without the catalogues
 * (this file is also bundled on its own): its code, its catalogue key, by which the page writes
 * it in each language; its parameters; and its English message, for consoles only.
 * @param {string} code
 * @param {Record<string, unknown>} params
 * @param {string} message
 * @param {string|null} [field]
 * @returns {Error & {code: string, field: string|null, params: Record<string, unknown>}}
 */
export function coded(code, params, message, field = null) {
  return Object.assign(new Error(message), { code, field, params });
}

/** Why the page computes on its main thread, coded (errors.worker.*). */
export const WHY = {
  notAsked: () => coded('errors.worker.notAsked', {}, 'the page asked for no Worker'),
  cannot: () => coded('errors.worker.cannot', {}, 'this browser cannot start a Worker here'),
  noSource: () => coded('errors.worker.noSource', {}, 'the module\'s source is not available for a Worker (headwise.js was not post-linked)'),
  failed: (/** @type {string} */ error) => coded('errors.worker.failed', { error }, `a Worker could not be started (${error}), and the page's Content-Security-Policy must allow worker-src blob: for one`),
  timeout: () => coded('errors.worker.timeout', {}, 'the Worker did not start in time'),
  csp: () => coded('errors.worker.csp', {}, 'a Worker could not be started here (a Content-Security-Policy without worker-src blob: forbids it)'),
  moduleFailed: (/** @type {string} */ error) => coded('errors.worker.moduleFailed', { error }, `the module did not start in the Worker (${error})`),
  moduleRestart: (/** @type {string} */ error) => coded('errors.worker.moduleRestart', { error }, `the module did not restart in the Worker (${error})`),
  restart: () => coded('errors.worker.restart', {}, 'the Worker could not be restarted'),
};

/**
 * "the computation stopped: …" (its reason a coded error or a browser's message).
 * @param {unknown} reason
 */
export function stoppedError(reason) {
  return coded('errors.worker.stopped', { reason }, `the computation stopped: ${reason instanceof Error ? reason.message : String(reason)}`);
}

/** "its Worker was closed". */
export const closed = () => stoppedError(coded('errors.worker.closed', {}, 'its Worker was closed'));

/** @param {any} e */
export function isAbort(e) {
  return Boolean(e) && e.name === 'AbortError';
}
