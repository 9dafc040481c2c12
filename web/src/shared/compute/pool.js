// Pool: several Computes behind the same API (getCompute() and the training module's are Pools).
// Sized from navigator.hardwareConcurrency (at most MAX_WORKERS) or pinned by the `workers`
// setting (pinWorkers). `run` always goes to the first Worker; `create` puts each object on the
// least-loaded Worker (starting it when first needed), and its calls stay in order there; a
// Worker other than the first is terminated when its last object is disposed, and dispose()
// terminates them all; warm() starts every Worker ahead of a burst of create()s. With one
// Worker, or none (main-thread mode), it is one Compute.

import { Compute } from './compute.js';
import { coded } from './errors.js';
import { MAX_WORKERS } from './limits.js';

/** @typedef {typeof import('../../../../cpp/api')} CreateHeadwise  the module's factory, with its Tensor */

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
   * @param {() => CreateHeadwise} [options.factory]  createHeadwise
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
    /**
     * Work on this lane, counted as busy while it runs (peakBusy).
     * @template T
     * @param {() => Promise<T>} work
     * @returns {Promise<T>}
     */
    const busy = async (work) => {
      this._busy[k] += 1;
      this.peakBusy = Math.max(this.peakBusy, this._busy.filter((b) => b > 0).length);
      try {
        return await work();
      } finally {
        this._busy[k] -= 1;
      }
    };
    return {
      lane: k,
      /** @type {(method: string, ...args: any[]) => Promise<any>} */
      call: (method, ...args) => busy(() => remote.call(method, ...args)),
      /** @type {(field: string) => Promise<any>} */
      get: (field) => remote.get(field),
      /** @type {import('./compute.js').Remote['link']} */
      link: (setup, transfer) => remote.link(setup, transfer),
      /** @type {(count: number) => Promise<Float64Array>} */
      steps: (count) => busy(() => remote.steps(count)),
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
