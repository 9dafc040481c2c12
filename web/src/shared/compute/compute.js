// Compute: the one way heavy work reaches the WASM module (a big forward, exercises, training).
//
//   const compute = getCompute();          // the page's one Pool of Computes (pool.js)
//   await compute.ready;                   // compute.mode: 'worker' | 'main'; compute.reason
//   const run = await compute.run('lessonRun', {seed, tokens, dModel, numHeads}, {key: 'main'});
//   const t = await compute.create('createTrainer', options);   // a remote object
//   await t.call('step', 10); await t.dispose();
//   const hw = await compute.main();       // the main thread's module, for cheap calls
//
// Where a Worker can start, the module runs in one dedicated Worker made from a blob: URL. Its
// source is the module's own text, read from memory (createHeadwise.moduleSource(), see
// cpp/postlink.mjs), plus the small dispatcher (dispatcher.js): nothing is fetched, so it works from
// file://, over http, in <iframe sandbox="allow-scripts"> and inside <mha-*> elements. A page's
// Content-Security-Policy must allow it with `worker-src blob:` (the lesson page's does). Where
// the Worker cannot start (a host's CSP forbids blob: workers, or no Worker at all), the work
// runs on the main thread (mode 'main'; `reason` says why) and callers keep each piece small:
// the page refuses sizes that would block for more than about 100 ms (cost.js's MAIN_BUDGET_MS).
//
// run(method, options, {key, cost}) -> Promise of hw[method](options) (or of a task from
//   lesson-tasks.js). Runs execute one at a time, in order. A newer run with the same key
//   supersedes an older one: the older promise rejects with an error named 'AbortError', a
//   queued one never starts, and a running one whose `cost` (estimated milliseconds) is above
//   ABANDON_MS is abandoned by terminating the Worker and starting a fresh one (unless remote
//   objects live in it); a shorter one finishes and its result is dropped. No superseded result
//   is ever delivered.
// cancel(key) supersedes the run with that key without a new one.
// create(factory, options) -> Promise of a remote object made by hw[factory](options): its
//   methods are called as `remote.call(name, ...args)` -> Promise, its fields read as
//   `remote.get(name)` -> Promise, and `remote.dispose()` frees
//   it; objects in several Workers may form a team (team.js: `remote.link(setup, ports)`, then
//   `remote.steps(k)`). In the Worker the object lives there; in 'main' mode it lives on the main thread, and
//   the caller keeps each call small (e.g. k training steps per animation frame).
//
// The other parts of the mechanism have files of their own in this folder: pool.js (several
// Computes, one per Worker, and the page's getCompute()), dispatcher.js (the module's side: the
// dispatcher and the Worker's body), wire.js (results and arguments posted as tensors, buffers
// transferred), errors.js (the AbortError and the coded reasons), cost.js (estimated ms and the
// main thread's budget).

import { WHY, abortError, closed, coded, quoted, stoppedError } from './errors.js';
import { dispatcher, workerSource } from './dispatcher.js';
import { fromWire, toWire } from './wire.js';
import { installTasks } from './lesson-tasks.js';

/** @typedef {import('../../../../cpp/api').Headwise} Headwise */
/** @typedef {typeof import('../../../../cpp/api')} CreateHeadwise  the module's factory, with its Tensor */

/** A running computation superseded for longer than this (estimated ms) is abandoned. */
export const ABANDON_MS = 300;
/** How long the Worker may take to report that its module is ready. */
const START_TIMEOUT_MS = 20000;

/**
 * A remote object (create): its methods called, its fields read, and, in a Worker, a member of a
 * team of such objects in other Workers (team.js): link(setup, ports) joins it, steps(k) steps
 * the team k times and gives the k losses.
 * @typedef {object} Remote
 * @property {(method: string, ...args: any[]) => Promise<any>} call
 * @property {(field: string) => Promise<any>} get
 * @property {(setup: import('./team.js').TeamSetup, transfer: Transferable[]) => Promise<null>} link
 * @property {(k: number) => Promise<Float64Array>} steps
 * @property {() => Promise<void>} dispose
 */

/**
 * @typedef {object} Job
 * @property {number} id
 * @property {any} message
 * @property {string|null} key
 * @property {number} cost
 * @property {(v: any) => void} resolve
 * @property {(e: any) => void} reject
 * @property {boolean} [cancelled]
 * @property {Transferable[]} [transfer]  buffers the message hands over to the Worker
 */

export class Compute {
  /**
   * @param {object} [options]
   * @param {() => CreateHeadwise} [options.factory]  createHeadwise (default: the global one, when needed)
   * @param {boolean} [options.worker]      false: never start a Worker
   */
  constructor({ factory, worker = true } = {}) {
    this._factory = factory || (() => /** @type {any} */ (globalThis).createHeadwise);
    this._wantWorker = worker;
    /** @type {'starting'|'worker'|'main'} */
    this.mode = 'starting';
    /** @type {Error|null} why the work runs on the main thread, coded (null in worker mode) */
    this.reason = null;
    /** @type {Promise<Headwise>|null} */
    this._main = null;
    /** @type {Worker|null} */
    this._worker = null;
    /** @type {Job[]} */
    this._queue = [];
    /** @type {Job|null} */
    this._running = null;
    this._nextId = 1;
    this._objects = 0;
    /** @type {((m: any) => any)|null} the dispatcher on the main thread ('main' mode) */
    this._here = null;
    /** @type {string|null} the Worker's source, kept for restarts */
    this._source = null;
    /** @type {() => void} */
    this._settle = () => {};
    /** @type {Promise<void>} Settles once the mode is known. */
    this.ready = new Promise((resolve) => { this._settle = resolve; });
    this._started = false;
    this._disposed = false;
    /** How many times the Worker was replaced (after abandoning a long computation). */
    this.restarts = 0;
  }

  /**
   * The main thread's module instance (one per page), for cheap calls. Made in a task of its own
   * (a timer's), so that decoding its embedded binary does not lengthen the task that asked.
   */
  main() {
    if (!this._main) {
      this._main = new Promise((resolve) => { setTimeout(resolve, 0); }).then(() => {
        const f = this._factory();
        if (typeof f !== 'function') throw coded('errors.load.missing', {}, 'headwise.js did not load (createHeadwise is missing)');
        return f();
      });
    }
    return this._main;
  }

  /** Start the Worker (once); falls back to the main thread when it cannot start. */
  start() {
    if (this._started) return this.ready;
    this._started = true;
    if (!this._wantWorker) {
      this._useMain(WHY.notAsked());
    } else if (typeof Worker !== 'function' || typeof Blob !== 'function' || typeof URL.createObjectURL !== 'function') {
      this._useMain(WHY.cannot());
    } else {
      // In a task of its own: making the Worker's source and starting it takes a while.
      setTimeout(() => this._startWorker(), 0);
    }
    return this.ready;
  }

  _startWorker() {
    if (this._disposed) return;
    let source = null;
    try {
      const f = this._factory();
      source = f && typeof f.moduleSource === 'function' ? f.moduleSource() : null;
    } catch {
      source = null;
    }
    if (!source) {
      this._useMain(WHY.noSource());
      return;
    }
    this._source = workerSource(source);
    this._spawn(false);
  }

  /**
   * Start a Worker from this._source; once its module reports ready, it takes the queue. The
   * first start falls back to the main thread when it fails; a restart says it could not.
   * @param {boolean} restart
   */
  _spawn(restart) {
    let url = '';
    /** @type {Worker} */
    let worker;
    try {
      url = URL.createObjectURL(new Blob([/** @type {string} */ (this._source)], { type: 'text/javascript' }));
      worker = new Worker(url);
    } catch (e) {
      if (url) URL.revokeObjectURL(url);
      this._useMain(restart ? WHY.restart() : WHY.failed(quoted(e)));
      return;
    }
    const fallback = (/** @type {Error} */ why) => {
      clearTimeout(timer);
      worker.terminate();
      URL.revokeObjectURL(url);
      if (restart || this.mode === 'starting') this._useMain(why);
    };
    const timer = setTimeout(() => fallback(restart ? WHY.restart() : WHY.timeout()), START_TIMEOUT_MS);
    worker.onerror = (event) => {
      event.preventDefault();
      fallback(restart ? WHY.restart() : WHY.csp());
    };
    worker.onmessage = (event) => {
      const m = event.data;
      if (!m || !('ready' in m)) return;
      if (!m.ready) {
        fallback(restart ? WHY.moduleRestart(quoted(m.error)) : WHY.moduleFailed(quoted(m.error)));
        return;
      }
      clearTimeout(timer);
      URL.revokeObjectURL(url);
      if (this._disposed) {
        worker.terminate();
        return;
      }
      worker.onmessage = (e) => this._onMessage(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        this._crashed(e.message || coded('errors.worker.died', {}, 'the Worker stopped'));
      };
      this._worker = worker;
      if (this.mode === 'starting') {
        this.mode = 'worker';
        this._settle();
      }
      this._pump();
    };
  }

  /**
   * Stop for good: the Worker is terminated, and every queued or running job rejects. Used when the
   * page no longer needs this Compute (a Pool retiring an idle Worker, the page's dispose()).
   */
  dispose() {
    this._disposed = true;
    this._source = null;  // no restart
    this._worker?.terminate();
    this._worker = null;
    const jobs = [...(this._running ? [this._running] : []), ...this._queue];
    this._running = null;
    this._queue = [];
    for (const job of jobs) job.reject(closed());
  }

  /** @param {Error} reason  why, coded (the page's budget quotes it) */
  _useMain(reason) {
    this.mode = 'main';
    this.reason = reason;
    this._worker = null;
    this._settle();
    this._pump();
  }

  /** A Worker that died: its jobs fail, and the next ones start a new Worker. */
  _crashed(/** @type {string|Error} */ why) {
    const job = this._running;
    this._running = null;
    this._worker?.terminate();
    this._worker = null;
    this._objects = 0;
    if (job) job.reject(stoppedError(why));
    this._restart();
  }

  /** A fresh Worker from the same source (after abandoning a long computation). */
  _restart() {
    if (!this._source) return;
    this.restarts += 1;
    this._spawn(true);
  }

  /** @param {any} m */
  _onMessage(m) {
    const job = this._running;
    if (!job || m.id !== job.id) return;
    this._running = null;
    if (m.ok) job.resolve(fromWire(m.value, this._factory()));
    else {
      const e = /** @type {any} */ (new Error(m.error.message));
      e.name = m.error.name === 'Error' ? 'Error' : m.error.name;
      if (typeof m.error.code === 'string') Object.assign(e, { code: m.error.code, field: m.error.field ?? null, params: m.error.params || {} });
      job.reject(e);
    }
    this._pump();
  }

  /**
   * Run hw[method](options) (or a task of lesson-tasks.js).
   * @param {string} method
   * @param {any} options
   * @param {{key?: string, cost?: number}} [opts]  key: a newer run with this key supersedes
   *   this one; cost: estimated milliseconds (decides whether a superseded run is abandoned)
   * @returns {Promise<any>}
   */
  run(method, options, { key, cost = 0 } = {}) {
    return this._enqueue({ type: 'run', method, options }, key || null, cost);
  }

  /**
   * Supersede any run with this key without starting a new one (its promise rejects with an
   * AbortError, as when a newer run supersedes it).
   * @param {string} key
   */
  cancel(key) {
    this._supersede(key);
  }

  /**
   * A remote object made by hw[factory](options).
   * @param {string} factory
   * @param {any} options
   * @returns {Promise<Remote>}
   */
  async create(factory, options) {
    const { object } = await this._enqueue({ type: 'create', factory, options }, null, 0);
    this._objects += 1;
    let disposed = false;
    return {
      call: (method, ...args) => {
        if (disposed) return Promise.reject(new Error('this object has been disposed'));
        /** @type {Transferable[]} */
        const transfer = [];
        const wired = this.mode === 'worker' ? toWire(args, transfer, this._factory().Tensor) : args;
        return this._enqueue({ type: 'call', object, method, args: wired }, null, 0, transfer);
      },
      get: (/** @type {string} */ field) => {
        if (disposed) return Promise.reject(new Error('this object has been disposed'));
        return this._enqueue({ type: 'get', object, field }, null, 0);
      },
      link: (/** @type {any} */ setup, /** @type {Transferable[]} */ transfer) => {
        if (disposed) return Promise.reject(new Error('this object has been disposed'));
        if (this.mode !== 'worker') return Promise.reject(new Error('a team needs Workers'));
        return this._enqueue({ type: 'link', object, setup }, null, 0, transfer);
      },
      steps: (/** @type {number} */ k) => {
        if (disposed) return Promise.reject(new Error('this object has been disposed'));
        return this._enqueue({ type: 'team', object, steps: k }, null, 0);
      },
      dispose: async () => {
        if (disposed) return;
        disposed = true;
        this._objects -= 1;
        await this._enqueue({ type: 'dispose', object }, null, 0);
      },
    };
  }

  /**
   * @param {any} message
   * @param {string|null} key
   * @param {number} cost
   * @param {Transferable[]} [transfer]
   */
  _enqueue(message, key, cost, transfer = []) {
    this.start();
    return new Promise((resolve, reject) => {
      if (this._disposed) {
        reject(closed());
        return;
      }
      if (key) this._supersede(key);
      const id = this._nextId;
      this._nextId += 1;
      this._queue.push({ id, message: { ...message, id }, key, cost, resolve, reject, transfer });
      this._pump();
    });
  }

  /** @param {string} key */
  _supersede(key) {
    this._queue = this._queue.filter((job) => {
      if (job.key !== key) return true;
      job.reject(abortError(key));
      return false;
    });
    const job = this._running;
    if (job && job.key === key) {
      job.cancelled = true;
      job.reject(abortError(key));
      job.resolve = () => {};
      job.reject = () => {};
      if (this.mode === 'worker' && job.cost > ABANDON_MS && this._objects === 0 && this._worker) {
        // Too long to wait for: a fresh Worker is quicker than the rest of this computation.
        this._worker.terminate();
        this._worker = null;
        this._running = null;
        this._restart();
      }
    }
  }

  _pump() {
    if (this._running || this.mode === 'starting' || this._queue.length === 0) return;
    if (this.mode === 'worker') {
      if (!this._worker) return;  // restarting
      const job = /** @type {Job} */ (this._queue.shift());
      this._running = job;
      this._worker.postMessage(job.message, job.transfer || []);
      return;
    }
    // Main thread: one job per task, so that newer runs can supersede queued ones meanwhile.
    const job = /** @type {Job} */ (this._queue.shift());
    this._running = job;
    setTimeout(() => {
      this.main().then((hw) => {
        if (this._running !== job || job.cancelled) return;
        try {
          if (!this._here) this._here = dispatcher(hw, installTasks, false);
          job.resolve(this._here(job.message));
        } catch (e) {
          job.reject(e);
        }
      }, (e) => job.reject(e)).finally(() => {
        if (this._running === job) this._running = null;
        this._pump();
      });
    }, 0);
  }
}
