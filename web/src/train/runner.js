// Where a trainer runs. The training engine (model-run.js) talks to each trainer only through this
// remote shape, the one the page's Compute (src/shared/compute/compute.js) gives for stateful objects:
//   const remote = await openTrainer(store, options);  // hw.createTrainer(options)
//   await remote.call('step', 10);                      // t.step(10), as a Promise
//   await remote.dispose();
// Where the Compute runs Workers, the trainer lives in one of its pool's (compute.create
// ('createTrainer') puts it on the least-loaded Worker, so models step on several cores at once):
// `remote.mode` is 'worker' and the caller may send chunks of work back to back. Where it runs on
// the main thread, the trainer is made on the main thread's module and called directly
// (`remote.mode` 'main'; the Compute's own queue would spend a timer task per call): the caller
// keeps each call small and yields between slices.

import { PageError } from '../shared/state/errors.js';

/**
 * @typedef {object} Remote
 * @property {'main'|'worker'} mode
 * @property {(method: string, ...args: any[]) => Promise<any>} call
 * @property {() => Promise<void>} dispose
 */

/**
 * @param {{hw: import('../../../cpp/api').Headwise, compute?: import('../shared/compute/pool.js').Pool}} store
 * @param {import('../../../cpp/api').CreateTrainerOptions} options  hw.createTrainer's options
 * @param {number} [lane]  the pool's Worker to put it on (default: the least-loaded)
 * @returns {Promise<Remote>}
 */
export async function openTrainer(store, options, lane) {
  const compute = store.compute;
  if (compute) {
    await compute.start();
    if (compute.mode === 'worker') {
      const remote = await compute.create('createTrainer', options, lane === undefined ? {} : { lane });
      return { mode: 'worker', call: remote.call, dispose: remote.dispose };
    }
  }
  return mainThreadTrainer(store.hw, options);
}

/**
 * A trainer on the main thread.
 * @param {import('../../../cpp/api').Headwise} hw  the main thread's module instance
 * @param {import('../../../cpp/api').CreateTrainerOptions} options
 * @returns {Remote}
 */
export function mainThreadTrainer(hw, options) {
  const trainer = hw.createTrainer(options);
  let disposed = false;
  return {
    mode: 'main',
    call(method, ...args) {
      if (disposed) return Promise.reject(new PageError('errors.train.disposed', { method }));
      try {
        return Promise.resolve(/** @type {Record<string, Function>} */ (/** @type {unknown} */ (trainer))[method](...args));
      } catch (e) {
        return Promise.reject(e);
      }
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      trainer.dispose();
    },
  };
}
