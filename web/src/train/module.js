// The training section's own module: dist/headwise.js (the full API), loaded from the folder
// train.js came from, with a Compute of its own. Its trainers live in their own Worker, made from
// headwise.js's source (createHeadwise.moduleSource()), so training never queues behind the
// lesson's computations (which run in the lesson module's Worker) nor they behind it. Where no
// Worker may start (a host's CSP without `worker-src blob:`), the trainers run on the main thread
// in slices (session.js, runner.js).
//
// The page's global createHeadwise stays the lesson module's: headwise.js is loaded with a
// <script> element (file:// and strict CSPs allow nothing else), which sets the global as it runs;
// its load event, which fires in the same task, takes the new factory and puts the old one back.
//
//   const {hw, compute} = await trainingModule();   // hw: the main thread's instance
//   trainingModuleNow();                            // the same, or null until it has loaded

import { Compute } from '../shared/compute.js';
import { loadScript, scriptBase } from '../shared/module-loader.js';

/** Where train.js was loaded from (read while it runs: currentScript is only set then; Node, where
 * tests import the section's pure parts, has no document). */
const BASE = typeof document === 'undefined' ? '' : scriptBase('train.js');

/** @typedef {{hw: any, compute: Compute}} TrainingModule */

/** @type {Promise<TrainingModule>|null} */
let loading = null;
/** @type {TrainingModule|null} */
let loaded = null;

/**
 * headwise.js's factory, without replacing the page's createHeadwise.
 * @param {string} url
 * @returns {Promise<any>}
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
        if (typeof factory !== 'function') throw new Error(`${url} loaded but did not define createHeadwise`);
      }
      // <html data-hw-compute="main"> asks for no Worker, as for the lesson (shared/compute.js).
      const worker = document.documentElement.getAttribute('data-hw-compute') !== 'main';
      const compute = new Compute({ factory: () => factory, worker });
      const hw = await compute.main();
      if (factory.training === false || typeof hw.createTrainer !== 'function') {
        throw new Error('the module loaded for training has no training API (it is headwise-lesson.js, not headwise.js)');
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
