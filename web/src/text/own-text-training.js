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
// step's batch is split into `shards` fixed shards (the trainer's); shard s is computed by lane
// s mod lanes (laneShards), every lane returns its shards' gradients (shardGradients), this side
// sums them in shard order exactly as the trainer's own step() does (sumShards: a copy of shard
// 0, then shard 1, 2, … added elementwise), and every replica takes the same summed gradient
// (applyGradients). Elementwise IEEE additions in one fixed order give the same bits whichever
// Worker computed which shard, so the model is the same on 1 to 8 Workers and on the main thread.
// Where no Worker starts, the one trainer lives on the main thread and steps one step per task
// (nextSlice between), its own step() being that same sum.

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

/**
 * Which shards each lane computes: shard s on lane s mod lanes (every lane gets at least one
 * when there are at most as many lanes as shards; extra lanes get none and are not used).
 * @param {number} shards
 * @param {number} lanes
 * @returns {number[][]}
 */
export function laneShards(shards, lanes) {
  const n = Math.max(1, Math.min(lanes, shards));
  /** @type {number[][]} */
  const out = Array.from({ length: n }, () => /** @type {number[]} */ ([]));
  for (let s = 0; s < shards; s += 1) out[s % n].push(s);
  return out;
}

/**
 * The batch's gradient and loss from every lane's shards, summed in shard order: g = a copy of
 * shard 0's, then g[i] += shard s's for s = 1 … shards-1 (the same for the losses), as the
 * trainer's step() sums them.
 * @param {number[][]} assignment  laneShards' result
 * @param {{losses: ArrayLike<number>, gradients: Float64Array}[]} parts  each lane's shardGradients
 * @param {number} parameterCount
 * @returns {{sum: Float64Array, loss: number}}
 */
export function sumShards(assignment, parts, parameterCount) {
  /** @type {{loss: number, gradient: Float64Array}[]} */
  const byShard = [];
  assignment.forEach((shards, lane) => {
    const part = parts[lane];
    shards.forEach((s, j) => {
      byShard[s] = { loss: part.losses[j], gradient: part.gradients.subarray(j * parameterCount, (j + 1) * parameterCount) };
    });
  });
  const sum = new Float64Array(byShard[0].gradient);
  let loss = byShard[0].loss;
  for (let s = 1; s < byShard.length; s += 1) {
    const g = byShard[s].gradient;
    for (let i = 0; i < parameterCount; i += 1) sum[i] += g[i];
    loss += byShard[s].loss;
  }
  return { sum, loss };
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
      try {
        for (let k = 0; k < n; k += 1) replicas.push(await compute.create('createTextTrainer', options, { lane: k }));
      } catch (e) {
        await Promise.all(replicas.map((r) => r.dispose()));
        throw e;
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
    this.assignment = laneShards(this.shards, replicas.length);
    /** the lanes actually used (no more than the shards) */
    this.used = replicas.slice(0, this.assignment.length);
    this.disposed = false;
  }

  /** How many Workers compute the steps (0: the main thread). */
  get workers() {
    return this.mode === 'worker' ? this.used.length : 0;
  }

  /**
   * One Adam step. On Workers: every lane's shards, summed here, applied everywhere. On the main
   * thread: the trainer's own step(), in a task of its own.
   * @returns {Promise<number>} the step's training loss
   */
  async step() {
    if (this.mode !== 'worker') {
      await nextSlice();
      const loss = await this.replicas[0].call('step', 1);
      this.stepsDone += 1;
      return loss;
    }
    const parts = await Promise.all(this.used.map((r, lane) => r.call('shardGradients', this.assignment[lane])));
    const { sum, loss } = sumShards(this.assignment, parts, this.parameterCount);
    await Promise.all(this.replicas.map((r) => r.call('applyGradients', sum, loss)));
    this.stepsDone += 1;
    return loss;
  }

  /** The held-out loss, the baselines and each head's measures (on the first replica). */
  evaluate() {
    return this.replicas[0].call('evaluate');
  }

  /** @returns {Promise<Uint8Array>} the model's .hwtm bytes */
  save() {
    return this.replicas[0].call('save');
  }

  async dispose() {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.all(this.replicas.map((r) => r.dispose()));
  }
}
