// Training the sentence model on the student's own text (hw.createTextTrainer, cpp/api.d.ts), on
// every Worker of the training module's pool, with the same model whatever their number.
//
//   const run = await OwnTextTraining.open({hw, compute}, {text});   // one replica per Worker
//   run.steps; run.corpus; run.baselines;                             // the trainer's own fields
//   const before = await run.evaluate();                              // the warm-up's heads
//   while (run.stepsDone < run.steps) await run.step();               // one Adam step each
//   const bytes = await run.save();                                   // a .hwtm file
//   await run.dispose();
//
// Data parallelism: every replica is made with the same options, so all start identical. Each
// step's batch is split into `shards` fixed shards (the trainer's), summed along a fixed pairwise
// tree (sum(lo, hi) = shard lo if hi - lo = 1, else sum(lo, mid) + sum(mid, hi), mid = (lo + hi)
// / 2) exactly as the trainer's own step() sums them. The tree is split into one complete
// subtree per lane (laneNodes: the largest node split until there are as many as lanes); each
// lane returns its subtree's sum (shardSum: one gradient per lane and step), this side adds those
// along the tree's upper levels (combineNodes), and every replica takes the root's sum
// (applyGradients). Elementwise IEEE additions in one fixed tree give the same bits whichever
// Worker computed which subtree, so the model is the same on 1 to 8 Workers and on the main
// thread. One lane's subtree is the root: it steps with its own step(), the same sum. The
// replicas' applyGradients are not awaited within a step: the next step's shardSum queues behind
// them on each Worker, so the Workers go on while this side draws the step. Where no Worker
// starts, the one trainer lives on the main thread and steps one step per task (nextSlice
// between).

import { nextSlice } from '../shared/compute/slices.js';
import { PageError } from '../shared/state/errors.js';

/** The most characters of text the page hands to the trainer (about 350,000 English words). */
export const MAX_TEXT_CHARS = 2_000_000;
/** The largest file the page reads (bytes): a UTF-8 file of MAX_TEXT_CHARS characters or fewer. */
export const MAX_FILE_BYTES = 2_000_000;
/** The file name's ending of a downloaded model. */
export const MODEL_EXTENSION = '.hwtm';

/**
 * The text the student gave, checked for the page's own limit (the trainer checks the rest: too
 * few words, too few distinct words, no a–z words, each with its own coded error).
 * @param {string} text
 * @returns {string}
 */
export function checkText(text) {
  if (typeof text !== 'string' || text.trim() === '') throw new PageError('errors.ownText.empty', {}, 'text');
  if (text.length > MAX_TEXT_CHARS) throw new PageError('errors.ownText.tooBig', { count: text.length, max: MAX_TEXT_CHARS }, 'text');
  return text;
}

/**
 * A file the student opened, checked before it is read: at most MAX_FILE_BYTES.
 * @param {{name: string, size: number}} file
 */
export function checkFile(file) {
  if (file.size > MAX_FILE_BYTES) throw new PageError('errors.ownText.fileTooBig', { name: file.name, size: file.size, max: MAX_FILE_BYTES }, 'text');
  return file;
}

/**
 * A model file the student opened, checked before it is read (the module checks its contents).
 * @param {{name: string, size: number}} file
 */
export function checkModelFile(file) {
  if (file.size > MAX_FILE_BYTES * 8) throw new PageError('errors.ownText.modelTooBig', { name: file.name, size: file.size, max: MAX_FILE_BYTES * 8 }, 'weights');
  return file;
}

/** @typedef {[number, number]} ShardNode  shards lo .. hi - 1, a node of the sum's tree */

/**
 * The sum's tree cut into one complete subtree per lane, in shard order: from the root (0 ..
 * shards), the largest node (the first of equals) split into its halves until there are as
 * many nodes as lanes or every node is one shard.
 * @param {number} shards
 * @param {number} lanes
 * @returns {ShardNode[]}
 */
export function laneNodes(shards, lanes) {
  /** @type {ShardNode[]} */
  const nodes = [[0, shards]];
  const want = Math.max(1, Math.min(lanes, shards));
  while (nodes.length < want) {
    let k = 0;
    nodes.forEach(([lo, hi], j) => { if (hi - lo > nodes[k][1] - nodes[k][0]) k = j; });
    const [lo, hi] = nodes[k];
    const mid = Math.floor((lo + hi) / 2);
    nodes.splice(k, 1, [lo, mid], [mid, hi]);
  }
  return nodes;
}

/**
 * The root's sum from the lanes' subtree sums, added along the tree's upper levels: sum(lo, hi)
 * = the lane's own when (lo, hi) is its node, else sum(lo, mid) + sum(mid, hi) elementwise (the
 * losses likewise), as the trainer's step() adds them. The lanes' arrays may be reused.
 * @param {ShardNode[]} nodes  laneNodes' result
 * @param {{loss: number, gradient: Float64Array}[]} parts  each lane's shardSum, in that order
 * @returns {{sum: Float64Array, loss: number}}
 */
export function combineNodes(nodes, parts) {
  const shards = nodes[nodes.length - 1][1];
  /**
   * @param {number} lo
   * @param {number} hi
   * @returns {{loss: number, gradient: Float64Array}}
   */
  const sum = (lo, hi) => {
    const k = nodes.findIndex((n) => n[0] === lo && n[1] === hi);
    if (k >= 0) return parts[k];
    if (hi - lo < 2) throw new Error(`shards ${lo} .. ${hi} are no lane's and no node of two or more`);
    const mid = Math.floor((lo + hi) / 2);
    const left = sum(lo, mid);
    const right = sum(mid, hi);
    const g = left.gradient;
    const r = right.gradient;
    for (let i = 0; i < g.length; i += 1) g[i] += r[i];
    return { loss: left.loss + right.loss, gradient: g };
  };
  const root = sum(0, shards);
  return { sum: root.gradient, loss: root.loss };
}

/** The trainer's fields the page reads once. */
const FIELDS = ['steps', 'stepsDone', 'shards', 'parameterCount', 'corpus', 'baselines'];

/**
 * @typedef {object} Replica
 * @property {(method: string, ...args: any[]) => Promise<any>} call
 * @property {(field: string) => Promise<any>} get
 * @property {() => Promise<void>} dispose
 * @property {number} [lane]
 */

/**
 * A trainer on the main thread (no Worker): its calls as Promises, like a Worker's replica.
 * @param {any} trainer
 * @returns {Replica}
 */
function here(trainer) {
  return {
    call: async (method, ...args) => trainer[method](...args),
    get: async (field) => trainer[field],
    dispose: async () => trainer.dispose(),
  };
}

export class OwnTextTraining {
  /**
   * Make the trainers: one per Worker of the pool (the pool's size), or one on the main thread.
   * @param {{hw: any, compute?: import('../shared/compute/pool.js').Pool}} module  the training module
   * @param {object} options  hw.createTextTrainer's options
   * @param {{workers?: number}} [opts]  how many Workers to use (default: the pool's size)
   * @returns {Promise<OwnTextTraining>}
   */
  static async open({ hw, compute }, options, { workers } = {}) {
    /** @type {Replica[]} */
    let replicas = [];
    let mode = 'main';
    if (compute) {
      await compute.start();
      if (compute.mode === 'worker') mode = 'worker';
    }
    if (mode === 'worker' && compute) {
      const n = Math.max(1, Math.min(workers || compute.size, compute.size));
      if (n > 1) await compute.warm();
      // every Worker makes its replica at once (each reads the whole text)
      const made = await Promise.allSettled(Array.from({ length: n }, (_, k) => compute.create('createTextTrainer', options, { lane: k })));
      for (const m of made) if (m.status === 'fulfilled') replicas.push(m.value);
      const refused = made.find((m) => m.status === 'rejected');
      if (refused) {
        await Promise.all(replicas.map((r) => r.dispose()));
        throw /** @type {PromiseRejectedResult} */ (refused).reason;
      }
    } else {
      replicas = [here(hw.createTextTrainer(options))];
    }
    /** @type {Record<string, any>} */
    const info = {};
    for (const f of FIELDS) info[f] = await replicas[0].get(f);
    return new OwnTextTraining(replicas, mode, info);
  }

  /**
   * @param {Replica[]} replicas
   * @param {string} mode  'worker' | 'main'
   * @param {any} info  the trainer's fields
   */
  constructor(replicas, mode, info) {
    this.replicas = replicas;
    this.mode = mode;
    /** @type {number} */
    this.steps = info.steps;
    /** @type {number} */
    this.stepsDone = info.stepsDone;
    /** @type {number} */
    this.shards = info.shards;
    /** @type {number} */
    this.parameterCount = info.parameterCount;
    this.corpus = info.corpus;
    this.baselines = info.baselines;
    this.nodes = laneNodes(this.shards, replicas.length);
    /** the lanes actually used (no more than the shards) */
    this.used = replicas.slice(0, this.nodes.length);
    /** @type {Promise<unknown>} every replica's last applyGradients */
    this.applied = Promise.resolve();
    this.disposed = false;
  }

  /** How many Workers compute the steps (0: the main thread). */
  get workers() {
    return this.mode === 'worker' ? this.used.length : 0;
  }

  /**
   * One Adam step. On one Worker or the main thread: the trainer's own step() (on the main
   * thread in a task of its own). On several Workers: every lane's subtree sum, combined here,
   * applied everywhere (the replicas' applying goes on after this returns).
   * @returns {Promise<number>} the step's training loss
   */
  async step() {
    if (this.replicas.length === 1) {
      if (this.mode !== 'worker') await nextSlice();
      const loss = await this.replicas[0].call('step', 1);
      this.stepsDone += 1;
      return loss;
    }
    const parts = await Promise.all(this.used.map((r, lane) => r.call('shardSum', this.nodes[lane][0], this.nodes[lane][1])));
    await this.applied;  // the last step's, long done: its error, if any
    const { sum, loss } = combineNodes(this.nodes, parts);
    this.applied = Promise.all(this.replicas.map((r) => r.call('applyGradients', sum, loss)));
    this.applied.catch(() => {});  // handled: awaited by the next call, which rethrows it
    this.stepsDone += 1;
    return loss;
  }

  /** The held-out loss, the baselines and each head's measures (on the first replica). */
  async evaluate() {
    await this.applied;
    return this.replicas[0].call('evaluate');
  }

  /** @returns {Promise<Uint8Array>} the model's .hwtm bytes */
  async save() {
    await this.applied;
    return this.replicas[0].call('save');
  }

  async dispose() {
    if (this.disposed) return;
    this.disposed = true;
    await this.applied.catch(() => {});
    await Promise.all(this.replicas.map((r) => r.dispose()));
  }
}
