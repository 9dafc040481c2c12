// Where a trainer runs. The training section talks to each trainer only through this remote
// shape, the same as the page's compute mechanism offers:
//   const remote = await openTrainer(hw, options);   // hw.createTrainer(options)
//   await remote.call('step', 10);                    // t.step(10), as a Promise
//   await remote.dispose();
// `remote.mode` is 'main' (calls run synchronously on the main thread: the caller keeps each
// call small and yields between frames) or 'worker' (calls run elsewhere; the caller may ask
// for bigger chunks and need not yield).

/**
 * @typedef {object} Remote
 * @property {'main'|'worker'} mode
 * @property {(method: string, ...args: any[]) => Promise<any>} call
 * @property {() => Promise<void>} dispose
 */

/**
 * A trainer on the main thread.
 * @param {any} hw  the module instance
 * @param {object} options  hw.createTrainer's options
 * @returns {Promise<Remote>}
 */
export async function openTrainer(hw, options) {
  const trainer = hw.createTrainer(options);
  let disposed = false;
  return {
    mode: 'main',
    call(method, ...args) {
      if (disposed) return Promise.reject(new Error(`the trainer was disposed before ${method}()`));
      try {
        return Promise.resolve(trainer[method](...args));
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
