// The training section's own module: dist/headwise.js (the full API), loaded from the folder
// train.js came from, with a Compute of its own. Its trainers live in their own Worker, made from
// headwise.js's source (createHeadwise.moduleSource()), so training never queues behind the
// lesson's computations (which run in the lesson module's Worker) nor they behind it. Where no
// Worker may start (a host's CSP without `worker-src blob:`), the trainers run on the main thread
// in slices (model-run.js, runner.js).
//
// The page's global createHeadwise stays the lesson module's: headwise.js is loaded with a
// <script> element (file:// and strict CSPs allow nothing else), which sets the global as it runs;
// its load event, which fires in the same task, takes the new factory and puts the old one back.
//
//   const {hw, compute} = await trainingModule();   // hw: the main thread's instance
//   trainingModuleNow();                            // the same, or null until it has loaded
//   const sessionFor = perStore((training) => new TrainSession(training));  // one per store

import { Pool } from '../shared/compute/pool.js';
import { loadScript, scriptBase } from '../shared/platform/scripts.js';
import { PageError } from '../shared/state/errors.js';

/** Where train.js was loaded from (read while it runs: currentScript is only set then; Node, where
 * tests import the section's pure parts, has no document). */
const BASE = typeof document === 'undefined' ? '' : scriptBase('train.js');

/** @typedef {{hw: import('../../../cpp/api').Headwise, compute: Pool}} TrainingModule */

/** @type {Promise<TrainingModule>|null} */
let loading = null;
/** @type {TrainingModule|null} */
let loaded = null;

/**
 * headwise.js's factory, without replacing the page's createHeadwise.
 * @param {string} url
 * @returns {Promise<typeof import('../../../cpp/api')>}
 */
function loadFullModule(url) {
  /** @type {any} */
  const g = globalThis;
  const before = g.createHeadwise;
  return loadScript(url, {
    data: 'headwiseTraining',
    onLoad: () => {
      const full = g.createHeadwise;
      g.createHeadwise = before;
      return full;
    },
  });
}

/**
 * The full module and its Compute (loaded once; the same promise for every caller).
 * @returns {Promise<TrainingModule>}
 */
export function trainingModule() {
  if (!loading) {
    loading = (async () => {
      /** @type {any} */
      const g = globalThis;
      // A page that loaded headwise.js itself already has the training API.
      let factory = typeof g.createHeadwise === 'function' && g.createHeadwise.training === true ? g.createHeadwise : null;
      if (!factory) {
        const url = new URL('headwise.js', BASE).href;
        factory = await loadFullModule(url);
        if (typeof factory !== 'function') throw new PageError('errors.load.noFactory', { file: url });
      }
      // <html data-hw-compute="main"> asks for no Worker, as for the lesson (shared/compute/pool.js).
      const worker = document.documentElement.getAttribute('data-hw-compute') !== 'main';
      const compute = new Pool({ factory: () => factory, worker });
      const hw = await compute.main();
      if (factory.training === false || typeof hw.createTrainer !== 'function') {
        throw new PageError('errors.load.noTraining');
      }
      loaded = { hw, compute };
      return loaded;
    })();
    loading.catch((e) => console.error('Headwise: the training module failed to load:', e instanceof Error ? e.message : String(e)));
  }
  return loading;
}

/** @returns {TrainingModule|null} the loaded module, or null until it has loaded */
export function trainingModuleNow() {
  return loaded;
}

/**
 * One object of a kind per store (the page's, or one embed's), made from the training module
 * once it has loaded: a store's training session, its grid.
 * @template T
 * @param {(training: TrainingModule) => T} make
 * @returns {(store: {hw: unknown}) => T|null}  null until the store's module and the training
 *   module have loaded
 */
export function perStore(make) {
  /** @type {WeakMap<object, T>} */
  const made = new WeakMap();
  return (store) => {
    const training = trainingModuleNow();
    if (!store.hw || !training) return null;
    let s = made.get(store);
    if (!s) {
      s = make(training);
      made.set(store, s);
    }
    return s;
  };
}

/**
 * Until the training module has loaded: the element says so, starts the load, and refreshes when
 * it settles (or shows why it failed).
 * @param {{setStatus: (text: string, isError?: boolean) => void, refresh: () => void, t: (key: string, params?: Record<string, unknown>) => string, say: (error: unknown) => string}} el
 */
export function awaitTrainingModule(el) {
  el.setStatus(el.t('status.trainLoading'));
  trainingModule().then(() => el.refresh(), (e) => {
    el.setStatus(el.t('status.trainFailed', { reason: el.say(e) }), true);
  });
}
