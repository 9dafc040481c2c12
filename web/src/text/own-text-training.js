// Training the sentence model on the student's own text (hw.createTextTrainer, cpp/api.d.ts), on
// every Worker of the training module's pool, with the same model whatever their number.
//
//   const run = await OwnTextTraining.open({hw, compute}, {text});   // one replica per Worker
//   run.steps; run.corpus; run.baselines;                             // the trainer's own fields
//   const before = await run.evaluate();                              // the warm-up's heads
//   while (run.stepsDone < run.steps) losses.push(...await run.advance(4));  // Adam steps
//   const bytes = await run.save();                                   // a .hwtm file
//   await run.dispose();
//
// Data parallelism: every replica is made with the same options, so all start identical. Each
// step's batch is split into `shards` fixed shards (the trainer's), summed along a fixed pairwise
// tree (sum(lo, hi) = shard lo if hi - lo = 1, else sum(lo, mid) + sum(mid, hi), mid = (lo + hi)
// / 2) exactly as the trainer's own step() sums them. The tree is split into one complete
// subtree per lane (laneNodes: the largest node split until there are as many as lanes). The
// replicas form a team (shared/compute/team.js): each sums its own subtree, sends that sum to the
// others over channels of their own, adds the lanes' sums along the tree's upper levels
// (combineNodes) and applies the root's sum; this side only starts k steps at a time and reads the
// losses. Elementwise IEEE additions in one fixed tree give the same bits whichever Worker
// computed which subtree, so the model is the same on 1 to 8 Workers and on the main thread. One
// lane's subtree is the root: it steps with its own step(), the same sum. Where no Worker starts,
// the one trainer lives on the main thread and steps one step per task (nextSlice between).

import { nextSlice } from '../shared/compute/slices.js';
import { teamPorts } from '../shared/compute/team.js';
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

/** @typedef {import('../shared/compute/team.js').ShardNode} ShardNode */

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

/** The trainer's fields the page reads once. */
const FIELDS = ['steps', 'stepsDone', 'shards', 'parameterCount', 'corpus', 'baselines'];

/**
 * @typedef {object} Replica
 * @property {(method: string, ...args: any[]) => Promise<any>} call
 * @property {(field: string) => Promise<any>} get
 * @property {() => Promise<void>} dispose
 * @property {(setup: import('../shared/compute/team.js').TeamSetup, transfer: Transferable[]) => Promise<any>} [link]  a Worker's (compute.js Remote)
 * @property {(k: number) => Promise<Float64Array>} [steps]  a Worker's: k steps of its team
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
   * Make the trainers: one per Worker of the pool (the pool's size, at most one per shard), or one
   * on the main thread; several form a team.
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
    const run = new OwnTextTraining(replicas, mode, info);
    try {
      await run.link();
    } catch (e) {
      await run.dispose();
      throw e;
    }
    return run;
  }

  /**
   * @param {Replica[]} replicas
   * @param {string} mode  'worker' | 'main'
   * @param {any} info  the trainer's fields
   */
  constructor(replicas, mode, info) {
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
    /** every replica made (more than the shards only if the pool has more Workers: freed by link) */
    this.replicas = replicas;
    /** the team: one replica per node */
    this.used = replicas.slice(0, this.nodes.length);
    /** @type {MessagePort[]} this side's end of each member's control channel (team.js) */
    this.controls = [];
    this.disposed = false;
  }

  /** How many Workers compute the steps (0: the main thread). */
  get workers() {
    return this.mode === 'worker' ? this.used.length : 0;
  }

  /**
   * With several replicas: free those beyond one per shard, then join the others in a team, a
   * channel between every two members and one from this side to each (team.js).
   */
  async link() {
    const extra = this.replicas.slice(this.used.length);
    this.replicas = this.used;
    await Promise.all(extra.map((r) => r.dispose()));
    const n = this.used.length;
    if (n < 2) return;
    const peers = teamPorts(n);
    await Promise.all(this.used.map((r, lane) => {
      const c = new MessageChannel();
      this.controls.push(c.port1);
      const ports = /** @type {MessagePort[]} */ (peers[lane].filter(Boolean));
      if (!r.link) throw new Error('a team needs replicas that link');
      return r.link({ lane, nodes: this.nodes, peers: peers[lane], control: c.port2 }, [...ports, c.port2]);
    }));
  }

  /**
   * k Adam steps (fewer if the run ends sooner). On one Worker or the main thread: the trainer's
   * own step(), once per step (on the main thread, each in a task of its own). On several Workers:
   * the team's k steps, every member at once; if one fails, the others are stopped.
   * @param {number} k
   * @returns {Promise<number[]>} each step's training loss
   */
  async advance(k) {
    const count = Math.max(0, Math.min(k, this.steps - this.stepsDone));
    /** @type {number[]} */
    const losses = [];
    if (this.used.length === 1) {
      for (let s = 0; s < count; s += 1) {
        if (this.mode !== 'worker') await nextSlice();
        losses.push(await this.used[0].call('step', 1));
        this.stepsDone += 1;
      }
      return losses;
    }
    if (count === 0) return losses;
    const all = this.used.map((r) => /** @type {NonNullable<Replica['steps']>} */ (r.steps)(count));
    try {
      const got = await Promise.all(all);
      this.stepsDone += count;
      return [...got[0]];
    } catch (e) {
      // A member that failed (or whose Worker stopped) leaves the others waiting for its sums.
      for (const port of this.controls) port.postMessage(`the team stopped: ${e instanceof Error ? e.message : String(e)}`);
      await Promise.allSettled(all);
      throw e;
    }
  }

  /** The held-out loss, the baselines and each head's measures (on the first replica). */
  async evaluate() {
    return this.replicas[0].call('evaluate');
  }

  /** @returns {Promise<Uint8Array>} the model's .hwtm bytes */
  async save() {
    return this.replicas[0].call('save');
  }

  async dispose() {
    if (this.disposed) return;
    this.disposed = true;
    for (const port of this.controls) port.close();
    await Promise.all(this.replicas.map((r) => r.dispose()));
  }
}
