// Data-parallel training where the Workers talk to each other: a team of replicas (one trainer per
// Worker, all made with the same options, so all start identical) that step together without the
// page's thread in between. Each step, every member sums the gradients of its own subtree of the
// shards' tree (the trainer's shardSum), sends that sum to every other member over a
// MessageChannel of their own, adds the members' sums along the tree's upper levels in one fixed
// order (combineNodes), and applies the root's sum (applyGradients). Every member adds the same
// numbers in the same order, so every replica stays the same, bit for bit, and the model is the
// one a single trainer's step() makes (web/src/text/own-text-training.js says why).
//
// The page's thread only starts k steps at a time (a member's steps(k), one call per Worker) and
// reads their losses: no gradient passes through it, and no step waits for it.
//
// teamMember and combineNodes run inside the Worker: dispatcher.js's workerSource sends their
// source text, so each refers to no name outside itself but its arguments.

/** @typedef {[number, number]} ShardNode  shards lo .. hi - 1, a node of the sum's tree */

/**
 * The root's sum from the lanes' subtree sums, added along the tree's upper levels: sum(lo, hi)
 * = the lane's own when (lo, hi) is its node, else sum(lo, mid) + sum(mid, hi) elementwise (the
 * losses likewise), as the trainer's step() adds them. The lanes' arrays may be reused.
 * @param {ShardNode[]} nodes  the lanes' nodes, in shard order (own-text-training.js laneNodes)
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

/**
 * A MessageChannel between every two of n members: peers[i][j] is member i's port to member j
 * (null where i = j), each to be transferred to its member.
 * @param {number} n
 * @returns {(MessagePort|null)[][]}
 */
export function teamPorts(n) {
  /** @type {(MessagePort|null)[][]} */
  const peers = Array.from({ length: n }, () => Array(n).fill(null));
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      const c = new MessageChannel();
      peers[i][j] = c.port1;
      peers[j][i] = c.port2;
    }
  }
  return peers;
}

/**
 * @typedef {object} TeamSetup
 * @property {number} lane  this member's index
 * @property {ShardNode[]} nodes  every member's node, by lane
 * @property {(MessagePort|null)[]} peers  a port to each other member, by lane (null: this one)
 * @property {MessagePort} control  from the page: 'abort' ends the steps under way
 */

/**
 * One member of a team, in its Worker.
 * @param {TeamSetup} setup
 * @param {typeof combineNodes} combine
 * @returns {{steps: (trainer: any, k: number) => Promise<Float64Array>, close: () => void}}
 */
export function teamMember(setup, combine) {
  const { lane, nodes, peers, control } = setup;
  /** @type {any[][]} what each peer sent that no step has read yet */
  const inbox = peers.map(() => /** @type {any[]} */ ([]));
  /** @type {(((m: any) => void)|null)[]} a step waiting for that peer */
  const waiting = peers.map(() => /** @type {((m: any) => void)|null} */ (null));
  /** @type {string|null} why the team stopped (a member failed, or the page aborted) */
  let stopped = null;
  /** @param {number} p @param {any} m */
  const deliver = (p, m) => {
    const w = waiting[p];
    if (w) {
      waiting[p] = null;
      w(m);
    } else inbox[p].push(m);
  };
  /** @param {string} why */
  const stop = (why) => {
    if (stopped === null) stopped = why;
    peers.forEach((_, p) => deliver(p, { error: why }));
  };
  peers.forEach((port, p) => {
    if (port) port.onmessage = (e) => deliver(p, e.data);
  });
  control.onmessage = (e) => stop(String(e.data));
  /** @param {number} p @returns {Promise<any>} */
  const next = (p) => (inbox[p].length ? Promise.resolve(inbox[p].shift()) : new Promise((ok) => { waiting[p] = ok; }));
  return {
    async steps(trainer, k) {
      const losses = new Float64Array(k);
      for (let s = 0; s < k; s += 1) {
        if (stopped !== null) throw new Error(stopped);
        /** @type {{loss: number, gradient: Float64Array}[]} */
        const parts = [];
        try {
          parts[lane] = trainer.shardSum(nodes[lane][0], nodes[lane][1]);
        } catch (e) {
          // The others would wait for this sum for ever: tell them, and stop here too.
          const why = `another Worker of the team failed: ${e instanceof Error ? e.message : String(e)}`;
          if (stopped === null) stopped = why;
          peers.forEach((port) => port?.postMessage({ error: why }));
          throw e;
        }
        peers.forEach((port) => {
          if (!port) return;
          const copy = parts[lane].gradient.slice();
          port.postMessage({ loss: parts[lane].loss, gradient: copy }, [copy.buffer]);
        });
        for (let p = 0; p < peers.length; p += 1) {
          if (!peers[p]) continue;
          const m = await next(p);
          if (m.error) {
            stop(m.error);
            throw new Error(m.error);
          }
          parts[p] = m;
        }
        const { sum, loss } = combine(nodes, parts);
        trainer.applyGradients(sum, loss);
        losses[s] = loss;
      }
      return losses;
    },
    close() {
      peers.forEach((port) => port?.close());
      control.close();
    },
  };
}
