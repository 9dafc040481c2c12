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
//   methods are called as `remote.call(name, ...args)` -> Promise, and `remote.dispose()` frees
//   it. In the Worker the object lives there; in 'main' mode it lives on the main thread, and
//   the caller keeps each call small (e.g. k training steps per animation frame).
// Results cross from the Worker without copies: matrices travel as transferred Float64Arrays
// (the module's `result.typed`), and the nested arrays (`run.headWeights[h][i][j]`) are made on
// the main thread only for the heads and rows that are read.

import { installTasks } from './compute-tasks.js';

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
  return (e instanceof Error ? e.message : String(e)).replace(/\.$/, '');
}

/** @param {any} e */
export function isAbort(e) {
  return Boolean(e) && e.name === 'AbortError';
}

// ---- what the Worker runs (stringified: self-contained) -----------------------------------------

/**
 * The Worker's dispatcher. Both arguments come in as source text, so that nothing here refers
 * to a name of the bundle (which minification renames).
 * @param {any} scope  the worker's global scope, where the module's source defined createHeadwise
 * @param {typeof installTasks} tasksOf
 */
function workerMain(scope, tasksOf) {
  const VECTORS = ['bq', 'bk', 'bv', 'bo', 'inProjBias', 'outProjBias'];
  /** @type {any} */
  let hw = null;
  /** @type {Record<string, Function>} */
  let tasks = {};
  /** @type {Map<number, any>} */
  const objects = new Map();
  /** Results to send: API results become {typed matrices + plain fields}, buffers transferred. */
  const pack = (/** @type {any} */ v, /** @type {Transferable[]} */ transfer) => {
    if (v === null || typeof v !== 'object') return v;
    if (ArrayBuffer.isView(v)) return v;
    if (Array.isArray(v)) return v.map((x) => pack(x, transfer));
    /** @type {Record<string, any>} */
    const out = {};
    const typed = v.typed;
    /** @type {Record<string, any>|null} */
    let t = null;
    if (typed && typeof typed === 'object' && !Object.prototype.propertyIsEnumerable.call(v, 'typed')) {
      t = {};
      for (const [name, m] of Object.entries(typed)) {
        let data = m.data;
        if (data.byteOffset !== 0 || data.buffer.byteLength !== data.byteLength) data = data.slice();
        if (!transfer.includes(data.buffer)) transfer.push(data.buffer);
        t[name] = { data, rows: m.rows, cols: m.cols, depth: m.depth, kind: m.depth ? 'stack' : VECTORS.includes(name) ? 'vector' : 'matrix' };
      }
    }
    for (const key of Object.keys(v)) {
      if (t && key in t) continue;  // read from the typed form on the other side
      out[key] = pack(v[key], transfer);
    }
    if (t) out.__typed = t;
    return out;
  };
  const reply = (/** @type {number} */ id, /** @type {any} */ value) => {
    /** @type {Transferable[]} */
    const transfer = [];
    const packed = pack(value, transfer);
    scope.postMessage({ id, ok: true, value: packed }, transfer);
  };
  const fail = (/** @type {number} */ id, /** @type {any} */ e) => {
    scope.postMessage({ id, ok: false, error: { name: (e && e.name) || 'Error', message: e instanceof Error ? e.message : String(e) } });
  };
  const ready = Promise.resolve().then(() => scope.createHeadwise()).then((/** @type {any} */ m) => {
    hw = m;
    tasks = tasksOf(hw, true);
    scope.postMessage({ ready: true, version: hw.version });
  }).catch((/** @type {any} */ e) => {
    hw = null;
    scope.postMessage({ ready: false, error: e instanceof Error ? e.message : String(e) });
  });
  let nextObject = 1;
  scope.onmessage = (/** @type {MessageEvent} */ event) => {
    const m = event.data;
    ready.then(() => {
      try {
        if (!hw) throw new Error('the module did not start in the Worker');
        if (m.type === 'run') {
          const fn = tasks[m.method] || (typeof hw[m.method] === 'function' ? hw[m.method] : null);
          if (!fn) throw new Error(`compute.run: "${m.method}" is not a method of the module`);
          reply(m.id, fn(m.options));
        } else if (m.type === 'create') {
          if (typeof hw[m.factory] !== 'function') throw new Error(`compute.create: "${m.factory}" is not a method of the module`);
          const id = nextObject;
          nextObject += 1;
          objects.set(id, hw[m.factory](m.options));
          reply(m.id, { object: id });
        } else if (m.type === 'call') {
          const obj = objects.get(m.object);
          if (!obj) throw new Error('this object has been disposed');
          if (typeof obj[m.method] !== 'function') throw new Error(`"${m.method}" is not a method of this object`);
          reply(m.id, obj[m.method](...m.args));
        } else if (m.type === 'dispose') {
          const obj = objects.get(m.object);
          objects.delete(m.object);
          if (obj && typeof obj.dispose === 'function') obj.dispose();
          reply(m.id, null);
        }
      } catch (e) {
        fail(m.id, e);
      }
    });
  };
}

// ---- the main thread's side ------------------------------------------------------------------

/**
 * Nested arrays on demand: a matrix is an array whose rows are made when first read.
 * @param {Float64Array} data
 * @param {number} offset
 * @param {number} rows
 * @param {number} cols
 */
function lazyRows(data, offset, rows, cols) {
  const out = new Array(rows);
  // Where the rows come from, for code that can read the flat data directly (the heatmaps).
  Object.defineProperty(out, 'typed', { value: { data, offset, rows, cols }, enumerable: false });
  for (let i = 0; i < rows; i += 1) {
    Object.defineProperty(out, i, {
      enumerable: true, configurable: true,
      get() {
        const row = Array.from(data.subarray(offset + i * cols, offset + (i + 1) * cols));
        Object.defineProperty(out, i, { value: row, enumerable: true, configurable: true, writable: true });
        return row;
      },
    });
  }
  return out;
}

/** @param {any} m {data, rows, cols, depth?, kind} */
function nestedOf(m) {
  if (m.kind === 'vector') return Array.from(m.data);
  if (m.kind === 'matrix') return lazyRows(m.data, 0, m.rows, m.cols);
  const out = new Array(m.depth);
  const size = m.rows * m.cols;
  for (let h = 0; h < m.depth; h += 1) {
    Object.defineProperty(out, h, {
      enumerable: true, configurable: true,
      get() {
        const head = lazyRows(m.data, h * size, m.rows, m.cols);
        Object.defineProperty(out, h, { value: head, enumerable: true, configurable: true, writable: true });
        return head;
      },
    });
  }
  return out;
}

/** The Worker's packed results back into the API's shape (lazy nested arrays + `typed`). */
function unpack(/** @type {any} */ v) {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) return v.map(unpack);
  /** @type {Record<string, any>} */
  const out = {};
  for (const key of Object.keys(v)) {
    if (key !== '__typed') out[key] = unpack(v[key]);
  }
  if (v.__typed) {
    /** @type {Record<string, any>} */
    const typed = {};
    for (const [name, m] of Object.entries(v.__typed)) {
      typed[name] = m.kind === 'stack' ? { data: m.data, depth: m.depth, rows: m.rows, cols: m.cols } : { data: m.data, rows: m.rows, cols: m.cols };
      let value = null;
      Object.defineProperty(out, name, {
        enumerable: true, configurable: true,
        get() {
          if (value === null) value = nestedOf(m);
          return value;
        },
        set(x) { value = x; },
      });
    }
    Object.defineProperty(out, 'typed', { value: typed, enumerable: false, configurable: true });
  }
  return out;
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
    /** @type {string} why the work runs on the main thread (empty in worker mode) */
    this.reason = '';
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
    /** @type {Record<string, Function>|null} */
    this._tasks = null;
    /** Settles once the mode is known. */
    this.ready = new Promise((resolve) => { this._settle = resolve; });
    this._started = false;
    /** How many times the Worker was replaced (after abandoning a long computation). */
    this.restarts = 0;
  }

  /**
   * The main thread's module instance (one per page), for cheap calls. Made in a task of its own
   * (a timer's, not a microtask's): the module's script decodes its embedded binary and starts
   * inflating it as it is made, 10 to 15 ms that would otherwise lengthen the task of whoever
   * asked first, app.js's evaluation on the lesson page.
   */
  main() {
    if (!this._main) {
      this._main = new Promise((resolve) => { setTimeout(resolve, 0); }).then(() => {
        const f = this._factory();
        if (typeof f !== 'function') throw new Error('headwise.js did not load (createHeadwise is missing)');
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
      this._useMain('the page asked for no Worker');
    } else if (typeof Worker !== 'function' || typeof Blob !== 'function' || typeof URL.createObjectURL !== 'function') {
      this._useMain('this browser cannot start a Worker here');
    } else {
      // In a task of its own: making the Worker's source and starting it takes a while.
      setTimeout(() => this._startWorker(), 0);
    }
    return this.ready;
  }

  _startWorker() {
    let source = null;
    try {
      const f = this._factory();
      source = f && typeof f.moduleSource === 'function' ? f.moduleSource() : null;
    } catch {
      source = null;
    }
    if (!source) {
      this._useMain('the module\'s source is not available for a Worker (headwise.js was not post-linked)');
      return;
    }
    const text = `${source}\n(${workerMain.toString()})(self, ${installTasks.toString()});\n`;
    let url = '';
    /** @type {Worker} */
    let worker;
    try {
      url = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
      worker = new Worker(url);
    } catch (e) {
      if (url) URL.revokeObjectURL(url);
      this._useMain(`a Worker could not be started (${quoted(e)}), and the page's Content-Security-Policy must allow worker-src blob: for one`);
      return;
    }
    const timer = setTimeout(() => fallback('the Worker did not start in time'), START_TIMEOUT_MS);
    const fallback = (/** @type {string} */ why) => {
      clearTimeout(timer);
      worker.terminate();
      URL.revokeObjectURL(url);
      if (this.mode === 'starting') this._useMain(why);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      fallback('a Worker could not be started here (a Content-Security-Policy without worker-src blob: forbids it)');
    };
    worker.onmessage = (event) => {
      const m = event.data;
      if (!m || !('ready' in m)) return;
      clearTimeout(timer);
      if (!m.ready) {
        fallback(`the module did not start in the Worker (${quoted(m.error)})`);
        return;
      }
      URL.revokeObjectURL(url);
      worker.onmessage = (e) => this._onMessage(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        this._crashed(e.message || 'the Worker stopped');
      };
      this._worker = worker;
      this._source = text;
      if (this.mode === 'starting') {
        this.mode = 'worker';
        this._settle();
      }
      this._pump();
    };
  }

  /** @param {string} reason */
  _useMain(reason) {
    this.mode = 'main';
    this.reason = reason;
    this._worker = null;
    this._settle();
    this._pump();
  }

  /** A Worker that died: its jobs fail, and the next ones start a new Worker. */
  _crashed(/** @type {string} */ why) {
    const job = this._running;
    this._running = null;
    this._worker?.terminate();
    this._worker = null;
    this._objects = 0;
    if (job) job.reject(new Error(`the computation stopped: ${why}`));
    this._restart();
  }

  /** A fresh Worker from the same source (after abandoning a long computation). */
  _restart() {
    if (!this._source) return;
    this.restarts += 1;
    const url = URL.createObjectURL(new Blob([this._source], { type: 'text/javascript' }));
    const worker = new Worker(url);
    worker.onmessage = (event) => {
      const m = event.data;
      if (!m || !('ready' in m)) return;
      URL.revokeObjectURL(url);
      if (!m.ready) {
        this._useMain(`the module did not restart in the Worker (${quoted(m.error)})`);
        return;
      }
      worker.onmessage = (e) => this._onMessage(e.data);
      this._worker = worker;
      this._pump();
    };
    worker.onerror = (e) => {
      e.preventDefault();
      this._useMain('the Worker could not be restarted');
    };
  }

  /** @param {any} m */
  _onMessage(m) {
    const job = this._running;
    if (!job || m.id !== job.id) return;
    this._running = null;
    if (m.ok) job.resolve(unpack(m.value));
    else {
      const e = new Error(m.error.message);
      e.name = m.error.name === 'Error' ? 'Error' : m.error.name;
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
   * @returns {Promise<{call: (method: string, ...args: any[]) => Promise<any>, dispose: () => Promise<void>}>}
   */
  async create(factory, options) {
    const { object } = await this._enqueue({ type: 'create', factory, options }, null, 0);
    this._objects += 1;
    let disposed = false;
    return {
      call: (method, ...args) => (disposed
        ? Promise.reject(new Error('this object has been disposed'))
        : this._enqueue({ type: 'call', object, method, args }, null, 0)),
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
   */
  _enqueue(message, key, cost) {
    this.start();
    return new Promise((resolve, reject) => {
      if (key) this._supersede(key);
      const id = this._nextId;
      this._nextId += 1;
      this._queue.push({ id, message: { ...message, id }, key, cost, resolve, reject });
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
      this._worker.postMessage(job.message);
      return;
    }
    // Main thread: one job per task, so that newer runs can supersede queued ones meanwhile.
    const job = /** @type {Job} */ (this._queue.shift());
    this._running = job;
    setTimeout(() => {
      this.main().then((hw) => {
        if (this._running !== job || job.cancelled) return;
        try {
          job.resolve(this._runHere(hw, job.message));
        } catch (e) {
          job.reject(e);
        }
      }, (e) => job.reject(e)).finally(() => {
        if (this._running === job) this._running = null;
        this._pump();
      });
    }, 0);
  }

  /** @type {Map<number, any>} */
  get _local() {
    if (!this.__local) this.__local = new Map();
    return this.__local;
  }

  /**
   * @param {any} hw
   * @param {any} m
   */
  _runHere(hw, m) {
    if (m.type === 'run') {
      if (!this._tasks) this._tasks = installTasks(hw);
      const fn = this._tasks[m.method] || (typeof hw[m.method] === 'function' ? hw[m.method] : null);
      if (!fn) throw new Error(`compute.run: "${m.method}" is not a method of the module`);
      return fn(m.options);
    }
    if (m.type === 'create') {
      if (typeof hw[m.factory] !== 'function') throw new Error(`compute.create: "${m.factory}" is not a method of the module`);
      this._local.set(m.id, hw[m.factory](m.options));
      return { object: m.id };
    }
    const obj = this._local.get(m.object);
    if (m.type === 'dispose') {
      this._local.delete(m.object);
      if (obj && typeof obj.dispose === 'function') obj.dispose();
      return null;
    }
    if (!obj) throw new Error('this object has been disposed');
    if (typeof obj[m.method] !== 'function') throw new Error(`"${m.method}" is not a method of this object`);
    return obj[m.method](...m.args);
  }
}

/** @type {Compute|null} */
let shared = null;

/**
 * The page's one Compute. A page may ask for no Worker with
 * <html data-hw-compute="main"> (the main-thread path, with its size limit).
 * @returns {Compute}
 */
export function getCompute() {
  if (!shared) {
    const want = typeof document === 'undefined' || document.documentElement.getAttribute('data-hw-compute') !== 'main';
    shared = new Compute({ worker: want });
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
