// Compute: the one way heavy work reaches the WASM module (a big forward, exercises, training).
//
//   const compute = getCompute();          // the page's one Compute (lesson, <mha-*>, embed)
//   await compute.ready;                   // compute.mode: 'worker' | 'main'; compute.reason
//   const run = await compute.run('lessonRun', {seed, tokens, dModel, numHeads}, {key: 'main'});
//   const t = await compute.create('createTrainer', options);   // a remote object
//   await t.call('step', 10); await t.dispose();
//   const hw = await compute.main();       // the main thread's module, for cheap calls
//
// Where a Worker can start, the module runs in one dedicated Worker made from a blob: URL. Its
// source is the module's own text, read from memory (createHeadwise.moduleSource(), see
// cpp/postlink.mjs), plus the small dispatcher below: nothing is fetched, so it works from
// file://, over http, in <iframe sandbox="allow-scripts"> and inside <mha-*> elements. A page's
// Content-Security-Policy must allow it with `worker-src blob:` (the lesson page's does). Where
// the Worker cannot start (a host's CSP forbids blob: workers, or no Worker at all), the work
// runs on the main thread (mode 'main'; `reason` says why) and callers keep each piece small:
// the page refuses sizes that would block for more than about 100 ms (MAIN_BUDGET_MS).
//
// run(method, options, {key, cost}) -> Promise of hw[method](options) (or of a task from
//   compute-tasks.js). Runs execute one at a time, in order. A newer run with the same key
//   supersedes an older one: the older promise rejects with an error named 'AbortError', a
//   queued one never starts, and a running one whose `cost` (estimated milliseconds) is above
//   ABANDON_MS is abandoned by terminating the Worker and starting a fresh one (unless remote
//   objects live in it); a shorter one finishes and its result is dropped. No superseded result
//   is ever delivered.
// cancel(key) supersedes the run with that key without a new one.
// create(factory, options) -> Promise of a remote object made by hw[factory](options): its
//   methods are called as `remote.call(name, ...args)` -> Promise, its fields read as
//   `remote.get(name)` -> Promise, and `remote.dispose()` frees
//   it. In the Worker the object lives there; in 'main' mode it lives on the main thread, and
//   the caller keeps each call small (e.g. k training steps per animation frame).
// Pool: several Computes behind the same API (getCompute() and the training module's are Pools).
//   Sized from navigator.hardwareConcurrency (at most MAX_WORKERS) or pinned by the `workers`
//   setting (pinWorkers). `run` always goes to the first Worker; `create` puts each object on the
//   least-loaded Worker (starting it when first needed), and its calls stay in order there; a
//   Worker other than the first is terminated when its last object is disposed, and dispose()
//   terminates them all; warm() starts every Worker ahead of a burst of create()s. With one Worker, or none (main-thread mode), it is one Compute.
// Results cross from the Worker without copies: each of a result's tensors (the module's
// `result.typed`, flat data + shape; a trainer's attention() as its `typed`) is posted as it is,
// its buffer transferred, and the result is rebuilt in the API's form on this side
// (createHeadwise.result, createHeadwise.nested). Widgets read rows and heads as views
// (`run.typed.headWeights.head(h).row(i)`); a nested field is made only when read. The other way,
// Tensors among a remote object's call arguments (a trainer's setParameters) are transferred to
// the Worker: the caller hands their buffers over.

import { installTasks } from './compute-tasks.js';
import { MAX_WORKERS } from './limits.js';

/** A running computation superseded for longer than this (estimated ms) is abandoned. */
export const ABANDON_MS = 300;
/** The most a computation may block the main thread when no Worker can start (ms). */
export const MAIN_BUDGET_MS = 100;
/** How long the Worker may take to report that its module is ready. */
const START_TIMEOUT_MS = 20000;

/**
 * The error a superseded run rejects with.
 * @param {string} key
 */
function abortError(key) {
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
function coded(code, params, message, field = null) {
  return Object.assign(new Error(message), { code, field, params });
}

/** Why the page computes on its main thread, coded (errors.worker.*). */
const WHY = {
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
function stoppedError(reason) {
  return coded('errors.worker.stopped', { reason }, `the computation stopped: ${reason instanceof Error ? reason.message : String(reason)}`);
}

/** "its Worker was closed". */
const closed = () => stoppedError(coded('errors.worker.closed', {}, 'its Worker was closed'));

/** @param {any} e */
export function isAbort(e) {
  return Boolean(e) && e.name === 'AbortError';
}

// ---- where the module is: the Worker's side (stringified, so each function is self-contained) ----

/**
 * The one dispatcher of compute's messages, on whichever thread holds the module.
 * @param {any} hw  a module instance
 * @param {typeof installTasks} tasksOf
 * @param {boolean} transfers  results are sent to another thread
 * @returns {(m: any) => any}
 */
function dispatcher(hw, tasksOf, transfers) {
  /** @type {Record<string, Function>|null} */
  let tasks = null;
  /** @type {Map<number, any>} */
  const objects = new Map();
  let nextObject = 1;
  return (m) => {
    if (m.type === 'run') {
      if (!tasks) tasks = tasksOf(hw, transfers);
      const fn = tasks[m.method] || (typeof hw[m.method] === 'function' ? hw[m.method] : null);
      if (!fn) throw new Error(`compute.run: "${m.method}" is not a method of the module`);
      return fn(m.options);
    }
    if (m.type === 'create') {
      if (typeof hw[m.factory] !== 'function') throw new Error(`compute.create: "${m.factory}" is not a method of the module`);
      const id = nextObject;
      nextObject += 1;
      objects.set(id, hw[m.factory](m.options));
      return { object: id };
    }
    const obj = objects.get(m.object);
    if (m.type === 'dispose') {
      objects.delete(m.object);
      if (obj && typeof obj.dispose === 'function') obj.dispose();
      return null;
    }
    if (!obj) throw new Error('this object has been disposed');
    if (m.type === 'get') return obj[m.field];
    if (typeof obj[m.method] !== 'function') throw new Error(`"${m.method}" is not a method of this object`);
    return obj[m.method](...m.args);
  };
}

/**
 * A value to post: each API result becomes its fields with its tensors in place of their
 * nested arrays (result.typed), an array result with a tensor as its `typed` becomes
 * {nested: tensor}, and every tensor's buffer is transferred.
 * @param {any} v
 * @param {Transferable[]} transfer
 * @param {any} Tensor  the module's tensor type
 * @returns {any}
 */
function toWire(v, transfer, Tensor) {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
  if (v instanceof Tensor) {
    // A view of a larger buffer (a head of a stack) is sent as a copy of its own numbers.
    const whole = v.data.byteOffset === 0 && v.data.buffer.byteLength === v.data.byteLength;
    const t = whole ? v : v.copy();
    if (!transfer.includes(t.data.buffer)) transfer.push(t.data.buffer);
    return { data: t.data, shape: t.shape };
  }
  if (Array.isArray(v)) {
    const t = /** @type {any} */ (v).typed;
    return t instanceof Tensor ? { nested: toWire(t, transfer, Tensor) } : v.map((x) => toWire(x, transfer, Tensor));
  }
  const typed = Object.prototype.propertyIsEnumerable.call(v, 'typed') ? null : v.typed;
  /** @type {Record<string, any>} */
  const out = {};
  for (const key of Object.keys(v)) {
    out[key] = toWire(typed && typed[key] instanceof Tensor ? typed[key] : v[key], transfer, Tensor);
  }
  return out;
}

/**
 * The Worker's body. Every argument comes in as source text, so that nothing here refers to a
 * name of the bundle (which minification renames).
 * @param {any} scope  the worker's global scope, where the module's source defined createHeadwise
 * @param {typeof installTasks} tasksOf
 * @param {typeof dispatcher} dispatcherOf
 * @param {typeof toWire} wire
 */
function workerMain(scope, tasksOf, dispatcherOf, wire) {
  /** @type {((m: any) => any)|null} */
  let handle = null;
  const ready = Promise.resolve().then(() => scope.createHeadwise()).then((/** @type {any} */ hw) => {
    handle = dispatcherOf(hw, tasksOf, true);
    scope.postMessage({ ready: true, version: hw.version });
  }).catch((/** @type {any} */ e) => {
    scope.postMessage({ ready: false, error: e instanceof Error ? e.message : String(e) });
  });
  scope.onmessage = (/** @type {MessageEvent} */ event) => {
    const m = event.data;
    ready.then(() => {
      try {
        if (!handle) throw new Error('the module did not start in the Worker');
        /** @type {Transferable[]} */
        const transfer = [];
        const value = wire(handle(m), transfer, scope.createHeadwise.Tensor);
        scope.postMessage({ id: m.id, ok: true, value }, transfer);
      } catch (e) {
        // The module's and the tasks' errors keep their code, field and parameters (plain data).
        const c = e && typeof e === 'object' ? e : {};
        scope.postMessage({
          id: m.id, ok: false,
          error: { name: c.name || 'Error', message: e instanceof Error ? e.message : String(e), code: c.code, field: c.field, params: c.params },
        });
      }
    });
  };
}

// ---- the page's side ---------------------------------------------------------------------------

/**
 * A posted value back in the API's form: {data, shape} becomes a Tensor, {nested: tensor} the
 * tensor's nested arrays with it as their `typed`, and an object holding tensors an API result
 * (nested arrays made when read, the tensors as `typed`).
 * @param {any} v
 * @param {any} H  createHeadwise (its Tensor and result)
 * @returns {any}
 */
function fromWire(v, H) {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) return v.map((x) => fromWire(x, H));
  const keys = Object.keys(v);
  if (keys.length === 2 && ArrayBuffer.isView(v.data) && Array.isArray(v.shape)) return new H.Tensor(v.data, v.shape);
  if (keys.length === 1 && keys[0] === 'nested') return H.nested(fromWire(v.nested, H));
  /** @type {Record<string, any>} */
  const out = {};
  let tensors = false;
  for (const key of keys) {
    out[key] = fromWire(v[key], H);
    if (out[key] instanceof H.Tensor) tensors = true;
  }
  return tensors ? H.result(out) : out;
}

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
   * @param {() => any} [options.factory]  createHeadwise (default: the global one, when needed)
   * @param {boolean} [options.worker]      false: never start a Worker
   */
  constructor({ factory, worker = true } = {}) {
    this._factory = factory || (() => /** @type {any} */ (globalThis).createHeadwise);
    this._wantWorker = worker;
    /** @type {'starting'|'worker'|'main'} */
    this.mode = 'starting';
    /** @type {Error|null} why the work runs on the main thread, coded (null in worker mode) */
    this.reason = null;
    /** @type {Promise<any>|null} */
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
    /** Settles once the mode is known. */
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
    this._source = `${source}\n(${workerMain.toString()})(self, ${installTasks.toString()}, ${dispatcher.toString()}, ${toWire.toString()});\n`;
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
   * Run hw[method](options) (or a task of compute-tasks.js).
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
   * @returns {Promise<{call: (method: string, ...args: any[]) => Promise<any>, get: (field: string) => Promise<any>, dispose: () => Promise<void>}>}
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

export { MAX_WORKERS };

/**
 * The pool size a browser gets by default: one Worker per core, at most MAX_WORKERS.
 * @param {number|undefined} cores  navigator.hardwareConcurrency
 */
export function defaultWorkers(cores = typeof navigator === 'undefined' ? 1 : navigator.hardwareConcurrency) {
  return Number.isInteger(cores) && cores > 0 ? Math.min(MAX_WORKERS, cores) : 1;
}

/**
 * A pool size as written (the `workers` setting): a whole number from 1 to MAX_WORKERS. Throws
 * an Error saying what is allowed.
 * @param {unknown} n
 * @returns {number}
 */
export function checkWorkers(n) {
  const v = typeof n === 'string' && /^\s*\d+\s*$/.test(n) ? Number(n) : n;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_WORKERS) {
    const value = JSON.stringify(String(n)).slice(0, 40);
    throw coded('errors.workers.range', { value, min: 1, max: MAX_WORKERS }, `workers must be a whole number from 1 to ${MAX_WORKERS} (got ${value})`, 'workers');
  }
  return v;
}

/** @type {Set<Pool>} every pool made, so that the `workers` setting reaches them all */
const POOLS = new Set();
/** @type {number|null} the size the page pinned (the `workers` setting), or null: automatic */
let pinned = null;

/**
 * The page's `workers` setting (the lesson's #workers=N, an embed's workers attribute or
 * workers=N in its address): every pool's size from now on; '' or null: one per core again.
 * Throws an Error saying what is allowed for any other value.
 * @param {number|string|null} n
 */
export function pinWorkers(n) {
  pinned = n === null || n === '' ? null : checkWorkers(n);
  for (const pool of POOLS) pool.setSize(pinned || defaultWorkers());
}

/**
 * Several Computes, each with its Worker: the same API as one Compute. Lane 0 is the first
 * Compute: it runs every `run` (so keyed runs supersede as they do on one Worker), answers
 * `main()`, and decides the mode; `create` puts each object on the least-loaded lane (objects
 * living or being made there), starting a lane's Worker the first time it is needed, so a page
 * that never makes objects runs one Worker. An object's calls all go to its lane, in order. A lane
 * other than the first is closed (its Worker terminated) as soon as its last object is disposed.
 * With size 1 (or where no Worker starts: everything on lane 0, on the main thread) it is one
 * Compute exactly.
 */
export class Pool {
  /**
   * @param {object} [options]
   * @param {() => any} [options.factory]  createHeadwise
   * @param {boolean} [options.worker]      false: never start a Worker
   * @param {number} [options.size]         the most Workers (default: defaultWorkers())
   */
  constructor({ factory, worker = true, size = pinned || defaultWorkers() } = {}) {
    this._options = { factory, worker };
    this.size = checkWorkers(size);
    /** @type {(Compute|null)[]} */
    this.lanes = [new Compute(this._options)];
    /** @type {number[]} objects living or being made on each lane */
    this._load = [0];
    /** @type {number[]} calls under way on each lane */
    this._busy = [0];
    /** the most lanes that had calls under way at once (a mechanism the tests check) */
    this.peakBusy = 0;
    POOLS.add(this);
  }

  /** @returns {Compute} */
  get first() {
    return /** @type {Compute} */ (this.lanes[0]);
  }

  get ready() { return this.first.ready; }
  get mode() { return this.first.mode; }
  get reason() { return this.first.reason; }
  get restarts() { return this.lanes.reduce((n, c) => n + (c ? c.restarts : 0), 0); }
  get _objects() { return this._load.reduce((a, b) => a + b, 0); }
  /** how many Workers are open now */
  get open() { return this.lanes.filter((c) => c && c._worker).length; }

  /**
   * Pin the pool's size (the `workers` setting); objects already made stay where they are.
   * @param {number|string} n
   */
  setSize(n) {
    this.size = checkWorkers(n);
  }

  start() { return this.first.start(); }
  main() { return this.first.main(); }

  /**
   * Start every Worker of the pool's size now (each module takes a while to start), for a caller
   * about to make several objects: a training section, once its module is here.
   */
  async warm() {
    await this.first.start();
    if (this.first.mode !== 'worker') return;
    for (let k = 1; k < this.size; k += 1) {
      if (!this.lanes[k]) this._lane(k).start();
    }
  }

  /** A new Compute as lane k. @param {number} k */
  _lane(k) {
    const c = new Compute(this._options);
    this.lanes[k] = c;
    this._load[k] = 0;
    this._busy[k] = 0;
    return c;
  }

  /** @type {Compute['run']} */
  run(method, options, opts) { return this.first.run(method, options, opts); }

  /** @param {string} key */
  cancel(key) { this.first.cancel(key); }

  /**
   * The lane for a new object: `lane` when asked for (modulo the size), else the least loaded of
   * the first `size` (the lowest on ties).
   * @param {number} [lane]
   */
  _pick(lane) {
    if (this.first.mode !== 'worker') return 0;
    if (lane !== undefined) return lane % this.size;
    let best = 0;
    for (let k = 1; k < this.size; k += 1) {
      if ((this._load[k] || 0) < this._load[best]) best = k;
    }
    return best;
  }

  /**
   * A remote object made by hw[factory](options), on the least-loaded Worker, or on the Worker
   * `lane` (a caller training several objects at once, one per Worker, keeps them apart).
   * @param {string} factory
   * @param {any} options
   * @param {{lane?: number}} [placement]
   */
  async create(factory, options, { lane } = {}) {
    await this.first.start();
    let k = this._pick(lane);
    if (!this.lanes[k]) this._lane(k);
    let on = /** @type {Compute} */ (this.lanes[k]);
    this._load[k] += 1;
    if (k > 0) {
      await on.start();
      if (on.mode !== 'worker') {
        // Another Worker did not start (lane 0's did): this object goes on lane 0.
        this._load[k] -= 1;
        this._close(k);
        k = 0;
        on = this.first;
        this._load[0] += 1;
      }
    }
    let remote;
    try {
      remote = await on.create(factory, options);
    } catch (e) {
      this._load[k] -= 1;
      this._close(k);
      throw e;
    }
    let disposed = false;
    return {
      lane: k,
      /** @type {(method: string, ...args: any[]) => Promise<any>} */
      call: async (method, ...args) => {
        this._busy[k] += 1;
        this.peakBusy = Math.max(this.peakBusy, this._busy.filter((b) => b > 0).length);
        try {
          return await remote.call(method, ...args);
        } finally {
          this._busy[k] -= 1;
        }
      },
      /** @type {(field: string) => Promise<any>} */
      get: (field) => remote.get(field),
      dispose: async () => {
        if (disposed) return;
        disposed = true;
        try {
          await remote.dispose();
        } finally {
          this._load[k] -= 1;
          this._close(k);
        }
      },
    };
  }

  /** Close lane k (not the first) when nothing lives on it. @param {number} k */
  _close(k) {
    const lane = this.lanes[k];
    if (k === 0 || !lane || this._load[k] > 0) return;
    this.lanes[k] = null;
    lane.dispose();
  }

  /** Terminate every Worker (the page no longer needs any); later calls start afresh. */
  dispose() {
    for (const lane of this.lanes) lane?.dispose();
    this.lanes = [new Compute(this._options)];
    this._load = [0];
    this._busy = [0];
  }
}

/** @type {Pool|null} */
let shared = null;

/**
 * The page's one Compute. A page may ask for no Worker with
 * <html data-hw-compute="main"> (the main-thread path, with its size limit).
 * @returns {Pool}
 */
export function getCompute() {
  if (!shared) {
    const want = typeof document === 'undefined' || document.documentElement.getAttribute('data-hw-compute') !== 'main';
    shared = new Pool({ worker: want });
  }
  return shared;
}

/**
 * Estimated milliseconds of one seedExperiment at (tokens, dModel, numHeads) in WebAssembly on
 * a laptop-class core (the projections, the scores and the per-head products; measured by
 * `npm run bench` at about 13 GFLOP/s for the kernel, plus the draws and copies).
 * @param {number} tokens
 * @param {number} dModel
 * @param {number} numHeads
 */
export function forwardCost(tokens, dModel, numHeads) {
  const flops = 8 * tokens * dModel * dModel + 4 * tokens * tokens * dModel + 6 * numHeads * tokens * tokens;
  const values = 4 * dModel * dModel + 8 * tokens * dModel + 2 * numHeads * tokens * tokens;
  return flops / 13e6 + values / 2e5;
}
