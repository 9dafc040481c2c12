// Where the module is: the one dispatcher of Compute's messages (run, create, call, dispose), on
// whichever thread holds the module, and the Worker's body around it. The Worker's source is the
// module's own text, read from memory (createHeadwise.moduleSource(), see cpp/postlink.mjs), plus
// these functions stringified (workerSource): each must stay self-contained, referring to no name
// of the bundle (which minification renames).

import { installTasks } from './lesson-tasks.js';
import { combineNodes, teamMember } from './team.js';
import { toWire } from './wire.js';

/** @typedef {import('../../../../cpp/api').Headwise} Headwise */


/**
 * The one dispatcher of compute's messages, on whichever thread holds the module. A call's
 * result may be a Promise (a team's steps).
 * @param {Headwise} hw  a module instance
 * @param {typeof installTasks} tasksOf
 * @param {boolean} transfers  results are sent to another thread
 * @param {typeof teamMember} [memberOf]  team.js's, for 'link' (in a Worker)
 * @param {typeof combineNodes} [combine]  team.js's
 * @returns {(m: any) => any}
 */
export function dispatcher(hw, tasksOf, transfers, memberOf, combine) {
  /** @type {Record<string, Function>|null} */
  let tasks = null;
  /** @type {Map<number, any>} */
  const objects = new Map();
  /** @type {Map<number, ReturnType<typeof teamMember>>} the team each object steps with */
  const teams = new Map();
  let nextObject = 1;
  return (m) => {
    if (m.type === 'run') {
      if (!tasks) tasks = tasksOf(hw, transfers);
      /** @type {Record<string, unknown>} */
      const api = /** @type {any} */ (hw);
      const fn = tasks[m.method] || (typeof api[m.method] === 'function' ? /** @type {Function} */ (api[m.method]) : null);
      if (!fn) throw new Error(`compute.run: "${m.method}" is not a method of the module`);
      return fn(m.options);
    }
    if (m.type === 'create') {
      /** @type {Record<string, unknown>} */
      const api = /** @type {any} */ (hw);
      const make = api[m.factory];
      if (typeof make !== 'function') throw new Error(`compute.create: "${m.factory}" is not a method of the module`);
      const id = nextObject;
      nextObject += 1;
      objects.set(id, make(m.options));
      return { object: id };
    }
    const obj = objects.get(m.object);
    if (m.type === 'dispose') {
      objects.delete(m.object);
      teams.get(m.object)?.close();
      teams.delete(m.object);
      if (obj && typeof obj.dispose === 'function') obj.dispose();
      return null;
    }
    if (!obj) throw new Error('this object has been disposed');
    if (m.type === 'get') return obj[m.field];
    if (m.type === 'link') {
      if (!memberOf || !combine) throw new Error('a team needs Workers');
      teams.get(m.object)?.close();
      teams.set(m.object, memberOf(m.setup, combine));
      return null;
    }
    if (m.type === 'team') {
      const team = teams.get(m.object);
      if (!team) throw new Error('this object is in no team');
      return team.steps(obj, m.steps);
    }
    if (typeof obj[m.method] !== 'function') throw new Error(`"${m.method}" is not a method of this object`);
    return obj[m.method](...m.args);
  };
}

/**
 * The Worker's body. Every argument comes in as source text, so that nothing here refers to a
 * name of the bundle (which minification renames).
 * @param {any} scope  the worker's global scope, where the module's source defined createHeadwise
 * @param {typeof installTasks} tasksOf
 * @param {typeof dispatcher} dispatcherOf
 * @param {typeof toWire} wire
 * @param {typeof teamMember} memberOf
 * @param {typeof combineNodes} combine
 */
function workerMain(scope, tasksOf, dispatcherOf, wire, memberOf, combine) {
  /** @type {((m: any) => any)|null} */
  let handle = null;
  const ready = Promise.resolve().then(() => scope.createHeadwise()).then((/** @type {any} */ hw) => {
    handle = dispatcherOf(hw, tasksOf, true, memberOf, combine);
    scope.postMessage({ ready: true, version: hw.version });
  }).catch((/** @type {any} */ e) => {
    scope.postMessage({ ready: false, error: e instanceof Error ? e.message : String(e) });
  });
  scope.onmessage = (/** @type {MessageEvent} */ event) => {
    const m = event.data;
    ready.then(() => {
      if (!handle) throw new Error('the module did not start in the Worker');
      return handle(m);
    }).then((/** @type {any} */ result) => {
      /** @type {Transferable[]} */
      const transfer = [];
      const value = wire(result, transfer, scope.createHeadwise.Tensor);
      scope.postMessage({ id: m.id, ok: true, value }, transfer);
    }).catch((/** @type {any} */ e) => {
      // The module's and the tasks' errors keep their code, field and parameters (plain data).
      const c = /** @type {{name?: string, code?: unknown, field?: unknown, params?: unknown}} */ (e && typeof e === 'object' ? e : {});
      scope.postMessage({
        id: m.id, ok: false,
        error: { name: c.name || 'Error', message: e instanceof Error ? e.message : String(e), code: c.code, field: c.field, params: c.params },
      });
    });
  };
}

/**
 * The Worker's source: the module's text, then the Worker's body started with the dispatcher,
 * the tasks and the wire codec.
 * @param {string} moduleSource  createHeadwise.moduleSource()
 * @returns {string}
 */
export function workerSource(moduleSource) {
  return `${moduleSource}\n(${workerMain.toString()})(self, ${installTasks.toString()}, ${dispatcher.toString()}, ${toWire.toString()}, ${teamMember.toString()}, ${combineNodes.toString()});\n`;
}
