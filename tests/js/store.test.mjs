// The page's store (web/src/shared/state/store.js) without a browser: its URL-hash format, its state
// changes and notifications, and the lesson's computations it runs through the real module
// (dist/headwise.js). Heavy computations go through a Compute; here either the page's own
// Compute without a Worker (mode 'main', everything on this thread) or a scripted one that
// settles each run when the test says so. The hash sync reads a small window stand-in.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LESSON, createHeadwise } from './helpers.mjs';
import { Compute } from '../../web/src/shared/compute/compute.js';
import { MAIN_BUDGET_MS, forwardCost } from '../../web/src/shared/compute/cost.js';
import { quoted } from '../../web/src/shared/compute/errors.js';
import { BUSY_AFTER_MS, EX1_HEAD_COUNTS, HASH_WRITE_MS, SYNC_MS, Store } from '../../web/src/shared/state/store.js';
import {
  DEFAULTS, LESSON as STORE_LESSON, defaultLabel, labelOf, langOf, parseHash, toHash,
} from '../../web/src/shared/state/settings.js';
import { t } from '../../web/src/shared/i18n/i18n.js';

const hw = await createHeadwise();
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
/** A computation's label as the page shows it in English (the store keeps a catalogue key). */
const said = (label) => (label ? t(label.key, label.params) : label);
/** busy()'s answer with its label said in English. */
const busyIn = (store, names) => {
  const b = store.busy(names);
  return { ...b, label: said(b.label) };
};

// A Compute whose runs settle when the test resolves them; records every call.
function scriptedCompute(mode = 'worker') {
  const c = {
    mode,
    reason: mode === 'main' ? 'no Worker in this test' : '',
    runs: [],
    cancelled: [],
    started: 0,
    main: async () => hw,
    start() {
      c.started += 1;
      return Promise.resolve();
    },
    run(method, options, { key, cost }) {
      return new Promise((resolve, reject) => {
        c.runs.push({ method, options, key, cost, resolve, reject });
      });
    },
    cancel(key) {
      c.cancelled.push(key);
    },
  };
  return c;
}

async function storeWith(compute, state = {}) {
  const store = new Store({ syncHash: false, state, compute });
  await store.loadModule();
  return store;
}

function changes(store) {
  const seen = { count: 0, deferred: [] };
  store.addEventListener('change', () => {
    seen.count += 1;
    seen.deferred.push(store.deferRender);
  });
  return seen;
}

const message = (call) => {
  try {
    call();
  } catch (e) {
    assert.ok(e instanceof Error);
    return e.message;
  }
  assert.fail('no error thrown');
};

// First in this file: no other store has a timer running yet, so every setTimeout is this
// store's.
test('the busy timer is due when the earliest pending computation reaches BUSY_AFTER_MS', async () => {
  const performanceDescriptor = Object.getOwnPropertyDescriptor(globalThis, 'performance');
  const realSetTimeout = globalThis.setTimeout;
  const wait = (ms) => new Promise((resolve) => { realSetTimeout(resolve, ms); });
  const delays = [];
  let now = 1000;
  Object.defineProperty(globalThis, 'performance', { value: { now: () => now }, configurable: true, writable: true });
  globalThis.setTimeout = (f, ms, ...rest) => {
    delays.push(ms);
    return realSetTimeout(f, ms, ...rest);
  };
  try {
    const store = await storeWith(scriptedCompute(), { tokens: 128, dModel: 256, numHeads: 4 });
    const seen = changes(store);
    store.computed('a', 'a1', 10, 'lessonRun', {}, 'first');  // due to show at 1150
    now = 1050;
    store.computed('b', 'b1', 10, 'lessonRun', {}, 'second');  // due at 1200
    assert.deepEqual(delays, [BUSY_AFTER_MS + 5], 'one timer, for the first, 5 ms after it is due');
    now = 1100;  // the timer finds nothing old enough and waits for the earlier of the two
    await wait(BUSY_AFTER_MS + 60);
    assert.equal(seen.count, 0);
    assert.deepEqual(delays.slice(0, 2), [155, 55]);
    assert.ok(delays.slice(2).every((ms) => ms === 55), String(delays));
    now = 1150;  // exactly BUSY_AFTER_MS after the first
    await wait(120);
    assert.equal(seen.count, 1);
    assert.deepEqual([store._slots.a.shown, store._slots.b.shown], [true, false]);
    // Then it waits for the second (again, each time it finds the clock unchanged).
    assert.deepEqual(delays.slice(0, 3), [155, 55, 55]);
    assert.ok(delays.slice(3).every((ms) => ms === 55), String(delays));
    now = 1200;
    await wait(120);
    assert.equal(seen.count, 2);
    assert.equal(store._slots.b.shown, true);
    const scheduled = delays.length;
    await wait(120);
    assert.equal(delays.length, scheduled, 'nothing left to wait for');
    assert.equal(store._busyTimer, 0);
  } finally {
    globalThis.setTimeout = realSetTimeout;
    Object.defineProperty(globalThis, 'performance', performanceDescriptor);
  }
});


// ---- the URL hash ---------------------------------------------------------------------------

test('an empty hash is the defaults; the defaults are the lesson run', () => {
  for (const hash of ['', '#']) {
    const s = parseHash(hash);
    assert.deepEqual(s, { ...DEFAULTS, labels: [] });
    assert.notEqual(s.labels, DEFAULTS.labels, 'a fresh labels array');
  }
  assert.deepEqual({ seed: DEFAULTS.seed, tokens: DEFAULTS.tokens, dModel: DEFAULTS.dModel, numHeads: DEFAULTS.numHeads },
    LESSON);
  assert.deepEqual(STORE_LESSON, { ...LESSON, bias: false, causal: false });
  assert.ok(Object.isFrozen(DEFAULTS) && Object.isFrozen(STORE_LESSON));
  assert.deepEqual(DEFAULTS.labels, [], 'every token has its default label');
  // The default training task is the module's first (its default) task.
  assert.equal(DEFAULTS.trainTask, hw.trainingTasks()[0].name);
  assert.equal(SYNC_MS, 4);
  assert.equal(BUSY_AFTER_MS, 150);
  assert.deepEqual(EX1_HEAD_COUNTS, [2, 4]);
});

test('parseHash reads every setting by its key, numbers and booleans and names', () => {
  const s = parseHash('#seed=3&tokens=6&d_model=12&heads=3&ex1_seed=9&ex2_d_model=16&ex2_heads=4' +
    '&train_seed=5&bias=1&causal=true&train_task=previous-and-two-back&query=2&label.1=cat&label.3=%20x%20&lang=zh-Hans-CN&workers=2');
  const labels = [];
  labels[1] = 'cat';
  labels[3] = ' x ';
  assert.deepEqual(s, {
    seed: 3, tokens: 6, labels, dModel: 12, numHeads: 3,
    bias: true, causal: true, query: 2, ex1Seed: 9, ex2DModel: 16, ex2Heads: 4, trainSeed: 5,
    trainTask: 'previous-and-two-back', headsSeed: 1, headsRelations: 'previous,first,two-back', inductionSeed: 1, lang: 'zh-Hans-CN', workers: 2,
  });
  assert.equal(parseHash('').workers, null, 'no workers: one per core');
  assert.equal(parseHash('bias=0&causal=false').bias, false);
  assert.equal(parseHash('bias=0&causal=false').causal, false);
  assert.equal(parseHash('bias=true').bias, true);
  assert.equal(parseHash('causal=1').causal, true);
  // Values are trimmed (labels are not); well-formed numbers are kept even where the module
  // will refuse them.
  assert.equal(parseHash('seed=%2042%20').seed, 42);
  assert.equal(parseHash('heads=-3').numHeads, -3);
  assert.equal(parseHash('tokens=2.5').tokens, 2.5);
  assert.equal(parseHash('train_task=%20abc%20').trainTask, 'abc');
  assert.equal(parseHash('query=00042').query, 42);
  assert.equal(parseHash('label.4095=z').labels[4095], 'z');
  // Only a leading '#' is the hash's own; any other is part of a value.
  assert.equal(parseHash('#label.0=a#b').labels[0], 'a#b');
  assert.equal(parseHash('label.0=a#b').labels[0], 'a#b');
});

test('parseHash refuses a malformed hash with a reason', () => {
  const why = (hash) => message(() => parseHash(hash));
  assert.equal(why('seed=1&seed=2'), '"seed" appears twice');
  assert.equal(why('seed='), '"seed" is not a number');
  // The pool's size is the page's to judge (compute.js's Pool): a whole number from 1 to 8.
  for (const bad of ['0', '9', '1.5', '-2']) assert.equal(why(`workers=${bad}`), '"workers" must be a whole number from 1 to 8');
  assert.equal(why('seed=%20'), '"seed" is not a number');
  assert.equal(why('tokens=abc'), '"tokens" is not a number');
  assert.equal(why('d_model=Infinity'), '"d_model" is not a number');
  assert.equal(why('bias=yes'), '"bias" must be 0 or 1');
  assert.equal(why('causal=2'), '"causal" must be 0 or 1');
  assert.equal(why('train_task=Previous'), '"train_task" must be a name such as previous-and-first');
  assert.equal(why('train_task='), '"train_task" must be a name such as previous-and-first');
  assert.equal(why(`train_task=${'a'.repeat(65)}`), '"train_task" must be a name such as previous-and-first');
  assert.equal(parseHash(`train_task=${'a'.repeat(64)}`).trainTask, 'a'.repeat(64));
  const list = '"heads_relations" must be relation names separated by commas, such as previous,first,two-back';
  assert.equal(why('heads_relations=previous,,first'), list);
  assert.equal(why('heads_relations=Previous'), list);
  assert.equal(why('heads_relations=a,b,c,d,e,f,g'), list);
  assert.equal(parseHash('heads_relations=first,three-back&heads_seed=4').headsRelations, 'first,three-back');
  assert.equal(parseHash('heads_seed=4').headsSeed, 4);
  assert.equal(why('query=-1'), '"query" must be a token index');
  assert.equal(why('query=1.5'), '"query" must be a token index');
  assert.equal(why('query=123456'), '"query" must be a token index');
  assert.equal(why('query=x1'), '"query" must be a token index');
  assert.equal(why('query=1x'), '"query" must be a token index');
  assert.equal(why('label.4096=z'), '"label.4096" is out of range');
  assert.equal(why('label.x=z'), '"label.x" is not a setting this page knows');
  assert.equal(why('xlabel.1=z'), '"xlabel.1" is not a setting this page knows');
  assert.equal(why('label.1x=z'), '"label.1x" is not a setting this page knows');
  assert.equal(why('label.123456=z'), '"label.123456" is not a setting this page knows');
  assert.equal(why(`${'k'.repeat(50)}=1`), `"${'k'.repeat(40)}" is not a setting this page knows`);
  assert.equal(why('%zz=1'), '"%zz" is not a setting this page knows', 'a malformed escape is kept as it is');
  assert.equal(why('seed=%E0%A4%A'), '"seed" is not a number');
  // The language: a BCP 47 tag, whether or not the page has a catalogue for it (it says so).
  assert.equal(parseHash('lang=fr').lang, 'fr');
  for (const bad of ['lang=', 'lang=e', 'lang=es_MX', 'lang=%3Cscript%3E', `lang=${'a'.repeat(36)}`, 'lang=es-', 'lang=123']) {
    assert.equal(why(bad), '"lang" must be a language tag such as es or zh-CN', bad);
  }
});

test('parseHash takes a hash of 65536 characters and refuses a longer one', () => {
  const fill = (length) => `label.0=${'a'.repeat(length - 8)}`;
  assert.equal(fill(65536).length, 65536);
  assert.equal(parseHash(`#${fill(65536)}`).labels[0].length, 65528);
  assert.equal(message(() => parseHash(`#${fill(65537)}`)),
    'the link is too long (65537 characters after the #; at most 65536)');
});

test('toHash writes every readable setting; parseHash reads it back', () => {
  const state = { ...DEFAULTS, labels: [], seed: 11, tokens: 4, bias: true, query: 3, trainTask: 'previous-and-two-back' };
  state.labels[2] = 'dog';
  state.labels[3] = 't3';  // the default label: left out
  const hash = toHash(state);
  assert.equal(hash, 'seed=11&tokens=4&d_model=8&heads=2&ex1_seed=2024&ex2_d_model=12&ex2_heads=5&train_seed=1' +
    '&heads_seed=1&induction_seed=1&bias=1&causal=0&train_task=previous-and-two-back&heads_relations=previous%2Cfirst%2Ctwo-back&query=3&label.2=dog');
  const back = parseHash(hash);
  const labels = [];
  labels[2] = 'dog';
  assert.deepEqual(back, { ...state, labels });
  // The language of a link whose other settings cannot be read: its one lang, if it is a tag.
  assert.equal(langOf('#seed=abc&lang=es'), 'es');
  assert.equal(langOf('lang=zh-CN&%%%'), 'zh-CN');
  assert.equal(langOf('#seed=abc'), '');
  assert.equal(langOf('#lang=es&lang=fr'), '', 'given twice: none');
  assert.equal(langOf('#lang=<b>'), '');
  assert.equal(langOf(`#lang=es&${'x'.repeat(70000)}`), '', 'a link too long is not read at all');
  // A chosen language is kept, last; none chosen, none written (the link follows its reader's browser).
  assert.equal(toHash({ ...state, lang: 'es' }), `${hash}&lang=es`);
  assert.equal(parseHash(`${hash}&lang=es`).lang, 'es');
  // Empty or unreadable fields are left out, so they come back as the defaults.
  const empty = toHash({ ...DEFAULTS, labels: [null, undefined, 'a&b'], seed: null, tokens: NaN, dModel: Infinity,
    numHeads: '2', trainTask: '' });
  assert.equal(empty, 'ex1_seed=2024&ex2_d_model=12&ex2_heads=5&train_seed=1&heads_seed=1&induction_seed=1&bias=0&causal=0' +
    '&heads_relations=previous%2Cfirst%2Ctwo-back&query=0&label.2=a%26b');
  assert.equal(toHash({ ...DEFAULTS, labels: [], trainTask: 7 }).includes('train_task'), false);
  assert.equal(parseHash(empty).labels[2], 'a&b');
});

test('labels default to t<i>; null and missing labels read as the default', () => {
  assert.equal(defaultLabel(0), 't0');
  assert.equal(defaultLabel(12), 't12');
  const state = { labels: ['a', null, undefined, ''] };
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => labelOf(state, i)), ['a', 't1', 't2', '', 't4']);
});

// ---- state and notifications ----------------------------------------------------------------

test('a store starts from the defaults and the given state, with its own id', () => {
  const compute = scriptedCompute();
  const a = new Store({ syncHash: false, compute });
  const b = new Store({ syncHash: false, compute, state: { seed: 3, labels: ['x'] } });
  assert.deepEqual(a.state, { ...DEFAULTS, labels: [] });
  assert.deepEqual(b.state, { ...DEFAULTS, seed: 3, labels: ['x'] });
  assert.match(a.id, /^store\d+$/);
  assert.equal(Number(b.id.slice(5)), Number(a.id.slice(5)) + 1);
  assert.equal(a.compute, compute);
  assert.equal(a.hw, null);
  assert.equal(a.version, 0);
  assert.equal(a.syncHash, false);
  assert.equal(new Store({ compute }).syncHash, true);
  assert.deepEqual(a.inputErrors, {});
  assert.equal(a.deferRender, false);
});

test('set() changes the state at once and notifies once per burst', async () => {
  const store = new Store({ syncHash: false, compute: scriptedCompute() });
  const seen = changes(store);
  store.set({ seed: 1 });
  store.set({ tokens: 6 }, 'tokens');
  store.set({ dModel: 12 });
  assert.deepEqual([store.state.seed, store.state.tokens, store.state.dModel], [1, 6, 12]);
  assert.equal(store.lastChanged, 'tokens', 'a change without a source keeps the last one');
  assert.equal(seen.count, 0, 'not yet notified');
  await sleep(5);
  assert.equal(seen.count, 1);
  assert.equal(store.version, 1);
  store.set({ seed: 2 }, 'seed');
  await sleep(5);
  assert.equal(seen.count, 2);
  assert.equal(store.lastChanged, 'seed');
  store.notify();
  assert.equal(seen.count, 3, 'notify() is immediate');
  assert.equal(store.version, 3);
});

test('schedule() uses requestAnimationFrame where there is one', async () => {
  const frames = [];
  globalThis.requestAnimationFrame = (f) => {
    frames.push(f);
    return frames.length;
  };
  try {
    const store = new Store({ syncHash: false, compute: scriptedCompute() });
    const seen = changes(store);
    store.set({ seed: 1 });
    store.set({ seed: 2 });
    assert.equal(frames.length, 1);
    await sleep(5);
    assert.equal(seen.count, 0, 'waits for the frame');
    frames[0]();
    assert.equal(seen.count, 1);
    store.set({ seed: 3 });
    assert.equal(frames.length, 2, 'a new frame after the last one ran');
  } finally {
    delete globalThis.requestAnimationFrame;
  }
});

test('a notice about the hash stays until the student changes something', () => {
  const store = new Store({ syncHash: false, compute: scriptedCompute() });
  store.notice = 'could not read';
  store.notify();
  assert.equal(store.notice, 'could not read');
  store.lastChanged = 'seed';
  store.notify();
  assert.equal(store.notice, null);
});

test('input errors are recorded by control and cleared with null', () => {
  const store = new Store({ syncHash: false, compute: scriptedCompute() });
  store.setInputError('seed', 'Seed is required');
  store.setInputError('tokens', 'Tokens is required');
  store.setInputError('seed', null);
  assert.deepEqual(store.inputErrors, { tokens: 'Tokens is required' });
  store.setInputError('tokens', '');
  assert.deepEqual(store.inputErrors, {});
});

test('memo() computes once per key, remembers errors, keeps at most 200 keys', () => {
  const store = new Store({ syncHash: false, compute: scriptedCompute() });
  let calls = 0;
  const value = () => {
    calls += 1;
    return { n: calls };
  };
  const first = store.memo('a', value);
  assert.equal(store.memo('a', value), first);
  assert.equal(calls, 1);
  const boom = new Error('boom');
  let thrown = 0;
  const fail = () => {
    thrown += 1;
    throw boom;
  };
  assert.throws(() => store.memo('b', fail), (e) => e === boom);
  assert.throws(() => store.memo('b', fail), (e) => e === boom);
  assert.equal(thrown, 1, 'the error is remembered');
  for (let i = 0; i < 199; i += 1) store.memo(`k${i}`, () => i);
  assert.equal(store._memo.size, 200, 'a, b and 198 more; k198 pushed out a');
  assert.equal(store._memo.has('a'), false);
  assert.equal(store._memo.has('b'), true);
  assert.equal(store.memo('k0', () => -1), 0);
  store.memo('a', value);
  assert.equal(calls, 2, 'a was forgotten and computed again');
});

// ---- the lesson's computations ---------------------------------------------------------------

test('before the module loads, the experiment has nothing to show', () => {
  const store = new Store({ syncHash: false, compute: scriptedCompute() });
  assert.deepEqual(store.experiment(), { result: null, error: null, errorFor: null, lastGood: null });
  store.setInputError('seed', 'Seed is required');
  assert.deepEqual(store.experiment(), { result: null, error: null, errorFor: null, lastGood: null });
});

test('a module that does not load leaves its message in loadError', async () => {
  const compute = { ...scriptedCompute(), main: async () => { throw new Error('no WebAssembly here'); } };
  const store = new Store({ syncHash: false, compute });
  const logged = [];
  const original = console.error;
  console.error = (...args) => logged.push(args);
  try {
    await store.loadModule();
  } finally {
    console.error = original;
  }
  assert.equal(store.loadError, 'no WebAssembly here');
  assert.equal(store.hw, null);
  assert.equal(logged.length, 1);
  assert.equal(logged[0][0], 'Headwise: the WASM module failed to load:');
  assert.equal(logged[0][1].message, 'no WebAssembly here');
});

test('the lesson-size experiment runs at once on this thread and is the module\'s seedExperiment', async () => {
  const compute = scriptedCompute();
  const store = await storeWith(compute);
  assert.equal(store.hw, hw);
  const ex = store.experiment();
  assert.equal(compute.runs.length, 0, 'not sent to the Compute');
  assert.deepEqual(compute.cancelled, [`${store.id}:experiment`], 'an older slow run is no longer wanted');
  assert.equal(ex.error, null);
  assert.equal(ex.errorFor, null);
  assert.equal(ex.lastGood, ex.result);
  const direct = hw.seedExperiment({ ...LESSON, bias: false, causal: false });
  assert.deepEqual(ex.result.headWeights, direct.headWeights);
  assert.deepEqual(ex.result.output, direct.output);
  assert.deepEqual(ex.result.pairs, hw.compareHeads({ headWeights: direct.headWeights }));
  // The same state: the same result object, no new computation.
  assert.equal(store.experiment().result, ex.result);
  assert.equal(compute.cancelled.length, 1);
  // An input problem hides the result and keeps the last good one.
  store.setInputError('d-model', 'd_model is required');
  assert.deepEqual(store.experiment(), { result: null, error: 'd_model is required', errorFor: 'd-model', lastGood: ex.result });
  store.setInputError('d-model', null);
  store.setInputError('num-heads', 'Heads is required');
  assert.deepEqual(store.experiment(), { result: null, error: 'Heads is required', errorFor: 'num-heads', lastGood: ex.result });
  store.setInputError('tokens', 'Tokens is required');
  assert.equal(store.experiment().errorFor, 'tokens', 'the first missing field in the order of the controls');
});

test('a module error belongs to the control it names, or the one just changed', async () => {
  const store = await storeWith(scriptedCompute(), { numHeads: 3 });
  const good = store._lastGood;
  const ex = store.experiment();
  const expected = message(() => hw.seedExperiment({ ...LESSON, numHeads: 3, bias: false, causal: false }));
  assert.equal(ex.error.message, expected);
  assert.deepEqual([ex.error.code, ex.error.field], ['divisible', 'dModel']);
  assert.match(expected, /d_model \(8\) must be divisible by num_heads \(3\)/);
  assert.equal(ex.errorFor, 'num-heads');
  assert.equal(ex.result, null);
  assert.equal(ex.lastGood, good);
  assert.deepEqual(store.errors(), { 'num-heads': ex.error });
  // The error concerns d_model too: the control the student just changed wins.
  const other = await storeWith(scriptedCompute(), { numHeads: 3 });
  other.lastChanged = 'd-model';
  assert.equal(other.experiment().errorFor, 'd-model');
  // Placed once, when the error arrives: a later change elsewhere does not move it.
  other.lastChanged = 'num-heads';
  assert.equal(other.experiment().errorFor, 'd-model');
  // An input problem of the same control is not overwritten by the module's message.
  store.setInputError('num-heads', 'Heads is required');
  assert.deepEqual(store.errors(), { 'num-heads': 'Heads is required' });
  store.setInputError('num-heads', null);
  store.setInputError('ex1-seed', 'Seed is required');
  assert.deepEqual(store.errors(), { 'num-heads': ex.error, 'ex1-seed': 'Seed is required' });
});

test('the last good result stays while a bad setting is shown', async () => {
  const store = await storeWith(scriptedCompute());
  const good = store.experiment().result;
  store.set({ numHeads: 3 });
  const bad = store.experiment();
  assert.equal(bad.result, null);
  assert.equal(bad.lastGood, good);
  store.set({ numHeads: 4 });
  const next = store.experiment();
  assert.equal(next.result.headWeights.length, 4);
  assert.equal(next.lastGood, next.result);
});

test('a computation estimated at SYNC_MS runs at once; above it, through the Compute', async () => {
  const compute = scriptedCompute();
  const store = await storeWith(compute);
  const options = { ...LESSON, bias: false, causal: false };
  const now = store.computed('a', 'k1', SYNC_MS, 'lessonRun', options, 'a');
  assert.equal(now.pending, false);
  assert.deepEqual(now.result.value.output, hw.seedExperiment(options).output);
  const later = store.computed('b', 'k1', SYNC_MS + 1e-9, 'lessonRun', options, 'b');
  assert.equal(later.pending, true);
  await sleep(0);
  assert.equal(compute.runs.length, 1);
  assert.equal(compute.runs[0].cost, SYNC_MS + 1e-9);
});

test('the cross-check reuses the main run where the module lives instead of drawing it again', async () => {
  let draws = 0;
  const counted = Object.create(hw);
  Object.defineProperty(counted, 'seedExperiment', {
    value: (o) => {
      draws += 1;
      return hw.seedExperiment(o);
    },
  });
  const compute = { ...scriptedCompute(), main: async () => counted };
  const store = await storeWith(compute);
  store.experiment();
  assert.equal(draws, 1);
  assert.equal(store.crossCheck().state, 'done');
  assert.equal(draws, 1, 'one set of tasks per store, which keeps the last run');
  store.set({ seed: 8 });
  store.crossCheck();
  assert.equal(draws, 2);
});

// Settings whose forward is estimated above SYNC_MS (about 10 ms) but whose whole change stays
// inside the main thread's budget.
const MID = { tokens: 128, dModel: 256, numHeads: 4 };

/**
 * Runs `body` with performance.now() standing still, so the busy timer never finds a run old
 * enough to show: the test counts only the notifications it causes, however slow the machine.
 */
async function clockStopped(body) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'performance');
  const at = performance.now();
  Object.defineProperty(globalThis, 'performance', { value: { now: () => at }, configurable: true, writable: true });
  try {
    await body();
  } finally {
    Object.defineProperty(globalThis, 'performance', descriptor);
  }
}

test('a bigger experiment goes through the Compute, pending until it settles', () => clockStopped(async () => {
  const cost = forwardCost(MID.tokens, MID.dModel, MID.numHeads);
  assert.ok(cost > SYNC_MS);
  const compute = scriptedCompute();
  const store = await storeWith(compute, MID);
  const seen = changes(store);
  const before = store.experiment();
  assert.deepEqual(before, { result: null, error: null, errorFor: null, lastGood: null, pending: true });
  await sleep(0);
  assert.equal(compute.runs.length, 1);
  const run = compute.runs[0];
  assert.equal(run.method, 'lessonRun');
  assert.equal(run.key, `${store.id}:experiment`);
  assert.equal(run.cost, cost);
  assert.deepEqual(run.options, { seed: 7, tokens: 128, dModel: 256, numHeads: 4, bias: false, causal: false });
  assert.equal(compute.cancelled.length, 0);
  assert.equal(store.experiment().pending, true, 'asking again starts nothing new');
  await sleep(0);
  assert.equal(compute.runs.length, 1);
  const value = { headWeights: [[[1]]] };
  const base = seen.count;
  run.resolve(value);
  await sleep(0);
  assert.equal(seen.count, base + 1, 'the result arrived: listeners are told');
  assert.equal(seen.deferred.at(-1), true, 'while they are told, rendering may be deferred');
  assert.equal(store.deferRender, false);
  const after = store.experiment();
  assert.equal(after.result, value);
  assert.equal(after.lastGood, value);
  assert.equal(after.pending, undefined);
}));

test('a superseded run delivers nothing; a failed one is an error, an aborted one is not', () => clockStopped(async () => {
  const compute = scriptedCompute();
  const store = await storeWith(compute, MID);
  const seen = changes(store);
  store.experiment();
  await sleep(0);
  store.set({ seed: 8 });
  store.experiment();
  await sleep(5);
  assert.equal(compute.runs.length, 2);
  const base = seen.count;
  compute.runs[0].resolve({ old: true });
  await sleep(0);
  assert.equal(seen.count, base, 'the old result is dropped');
  assert.equal(store.experiment().pending, true);
  const abort = new Error('superseded');
  abort.name = 'AbortError';
  compute.runs[1].reject(abort);
  await sleep(0);
  assert.equal(store.experiment().pending, true, 'an abort settles nothing');
  store.set({ seed: 9 });
  store.experiment();
  await sleep(5);
  seen.count = 0;
  compute.runs[2].reject(Object.assign(new Error('seedExperiment: tokens (128) is too many'), { code: 'atMost', field: 'tokens', params: { value: 128, max: 64 } }));
  await sleep(0);
  assert.equal(seen.count, 1);
  const ex = store.experiment();
  assert.equal(ex.error.message, 'seedExperiment: tokens (128) is too many');
  assert.equal(ex.errorFor, 'tokens');
}));

test('on the main thread, work above the budget is refused with the reason', async () => {
  const compute = scriptedCompute('main');
  const store = await storeWith(compute, { tokens: 512, dModel: 768, numHeads: 12 });
  const cost = store.changeCost();
  const { tokens: n, dModel: d, numHeads: h } = store.state;
  assert.equal(cost, 2.3 * forwardCost(n, d, h) + (forwardCost(n, d, 2) + forwardCost(n, d, 4)));
  assert.ok(cost > MAIN_BUDGET_MS);
  const why = store.mainBudget(cost, { tokens: 'T', dModel: 'D' });
  // Over a thousand milliseconds: written with a thousands separator, as the page's other counts.
  const ms = Math.round(cost);
  assert.ok(ms >= 1000 && ms < 1e6, `a cost of ${ms} ms`);
  const written = `${Math.floor(ms / 1000)},${String(ms % 1000).padStart(3, '0')}`;
  assert.equal(why.message, `This page computes on the main thread: no Worker in this test. So a change may take at most about ${MAIN_BUDGET_MS} ms, and T tokens at d_model D would take about ${written} ms with the exercises. Choose fewer tokens or a smaller d_model.`);
  assert.deepEqual([why.code, why.field, why.params.fields], ['errors.budget', 'tokens', ['tokens', 'dModel']]);
  assert.equal(store.mainBudget(MAIN_BUDGET_MS, { tokens: 1, dModel: 1 }), null, 'exactly the budget is allowed');
  assert.notEqual(store.mainBudget(MAIN_BUDGET_MS + 0.5, { tokens: 1, dModel: 1 }), null);
  assert.equal(store.mainBudget(NaN, { tokens: 1, dModel: 1 }), null, 'only a cost known to be above is refused');
  assert.equal(new Store({ syncHash: false, compute: scriptedCompute('worker') }).mainBudget(cost, { tokens: 1, dModel: 1 }), null,
    'a Worker takes any size');
  store.experiment();
  await sleep(5);
  assert.equal(compute.runs.length, 0, 'never started');
  const ex = store.experiment();
  assert.match(ex.error.message, /^This page computes on the main thread: .* 512 tokens at d_model 768 would take about/);
  assert.equal(ex.errorFor, 'tokens', 'nothing was changed: the tokens field');
  for (const control of ['seed', 'tokens', 'd-model', 'num-heads']) {
    const changed = await storeWith(scriptedCompute('main'), { tokens: 512, dModel: 768, numHeads: 12 });
    changed.lastChanged = control;
    changed.experiment();
    await sleep(5);
    assert.equal(changed.experiment().errorFor, control, `the refusal belongs to the ${control} just changed`);
  }
  const label = await storeWith(scriptedCompute('main'), { tokens: 512, dModel: 768, numHeads: 12 });
  label.lastChanged = 'label-1';
  label.experiment();
  await sleep(5);
  assert.equal(label.experiment().errorFor, 'tokens', 'a change elsewhere does not take the error');
});

test('exercise 1 runs the student\'s seed at 2 and 4 heads once the main experiment has run', async () => {
  const store = await storeWith(scriptedCompute(), { ex1Seed: 5 });
  const ex1 = store.seeds();
  assert.equal(ex1.state, 'done');
  assert.deepEqual(ex1.blocks.map((b) => b.numHeads), EX1_HEAD_COUNTS);
  for (const block of ex1.blocks) {
    const run = hw.seedExperiment({ seed: 5, tokens: 5, dModel: 8, numHeads: block.numHeads, bias: false, causal: false });
    assert.deepEqual(block.weights, run.headWeights);
    assert.equal(block.dHead, run.dHead);
    assert.deepEqual(block.pairs, hw.compareHeads({ headWeights: run.headWeights }));
  }
  store.setInputError('ex1-seed', 'Seed is required');
  assert.deepEqual(store.seeds(), { state: 'missing' });
  store.setInputError('ex1-seed', null);
  store.setInputError('d-model', 'required');
  assert.deepEqual(store.seeds(), { state: 'missing' });
  store.setInputError('d-model', null);
  store.setInputError('tokens', 'required');
  assert.deepEqual(store.seeds(), { state: 'missing' });
  store.setInputError('tokens', null);
  // A head count the main run refuses alone says nothing against exercise 1, and neither does
  // a seed; a message that names d_model too (3 heads do not divide 8) does.
  store.set({ numHeads: 0 });
  assert.deepEqual(store.experiment().error && store.experiment().errorFor, 'num-heads');
  assert.equal(store.seeds().state, 'done');
  store.set({ numHeads: 2, seed: -1 });
  assert.equal(store.experiment().errorFor, 'seed');
  assert.equal(store.seeds().state, 'done');
  store.set({ seed: 7, numHeads: 3 });
  assert.equal(store.seeds().state, 'blocked');
  // A d_model it refuses blocks exercise 1, which keeps its last blocks.
  store.set({ dModel: 0, numHeads: 1 });
  const blocked = store.seeds();
  assert.equal(blocked.state, 'blocked');
  assert.equal(blocked.error.field, 'dModel');
  assert.equal(blocked.lastGood, ex1.blocks);
  // exercise 1's own error: 4 heads do not divide d_model 6, 2 do.
  store.set({ dModel: 6, numHeads: 2 });
  const six = store.seeds();
  assert.equal(six.state, 'done');
  assert.equal(six.blocks[0].error, undefined);
  assert.match(six.blocks[1].error.message, /d_model \(6\) must be divisible by num_heads \(4\)/);
  assert.equal(six.blocks[1].error.code, 'divisible');
});

test('exercise 1 waits for a pending main experiment and reports its own failures', async () => {
  const compute = scriptedCompute();
  const store = await storeWith(compute, MID);
  assert.deepEqual(store.seeds(), { state: 'waiting', lastGood: null });
  await sleep(0);
  compute.runs[0].resolve({ headWeights: [] });
  await sleep(0);
  const pending = store.seeds();
  assert.deepEqual(pending, { state: 'pending', lastGood: null });
  assert.equal(said(store._slots.ex1.label), 'exercise 1 at 128 × 256');
  await sleep(0);
  const run = compute.runs[1];
  assert.equal(run.method, 'seedsRun');
  assert.equal(run.key, `${store.id}:ex1`);
  assert.deepEqual(run.options, { seed: 2024, tokens: 128, dModel: 256, headCounts: [2, 4], bias: false, causal: false });
  assert.equal(run.cost, forwardCost(128, 256, 2) + forwardCost(128, 256, 4));
  run.reject(new Error('no memory'));
  await sleep(0);
  assert.deepEqual(store.seeds(), { state: 'error', error: 'no memory', lastGood: null });
  // A main experiment that failed for no control at all blocks it, with an empty message kept.
  const failed = await storeWith(scriptedCompute(), MID);
  failed.experiment();
  await sleep(0);
  failed.compute.runs[0].resolve(null);
  await sleep(0);
  assert.deepEqual(failed.seeds(), { state: 'blocked', error: '', lastGood: null });
});

test('another party\'s message goes into the page\'s sentence without its full stop', () => {
  assert.equal(quoted(new Error('The operation is insecure.')), 'The operation is insecure');
  assert.equal(quoted('wasm validation error: at offset 12'), 'wasm validation error: at offset 12');
  assert.equal(quoted(new TypeError('a. b.')), 'a. b', 'only the last full stop');
  assert.equal(quoted(new Error('')), '');
});

test('exercise 1 is refused too when the work has fallen back to the main thread meanwhile', async () => {
  const compute = scriptedCompute('worker');
  const store = await storeWith(compute, { tokens: 512, dModel: 768, numHeads: 12 });
  store.experiment();
  await sleep(0);
  compute.runs[0].resolve({ headWeights: [] });
  await sleep(0);
  compute.mode = 'main';  // e.g. the Worker crashed
  assert.equal(store.seeds().state, 'pending');
  await sleep(5);
  assert.equal(compute.runs.length, 1, 'never started');
  const ex1 = store.seeds();
  assert.equal(ex1.state, 'error');
  assert.match(ex1.error.message, /^This page computes on the main thread: .* 512 tokens at d_model 768 would take about/);
});

test('errors() is empty when nothing is wrong, and an empty message is no error', async () => {
  const store = await storeWith(scriptedCompute());
  assert.ok(store.experiment().result);
  assert.deepEqual(store.errors(), {});
  const compute = scriptedCompute();
  const mid = await storeWith(compute, MID);
  mid.experiment();
  await sleep(0);
  compute.runs[0].reject(new Error(''));
  await sleep(0);
  assert.equal(mid.experiment().error, '');
  assert.deepEqual(mid.errors(), {});
});

test('exercise 3 cross-checks the main run against the module\'s PyTorch path', async () => {
  const compute = scriptedCompute();
  const store = await storeWith(compute, { numHeads: 4, bias: true, causal: true });
  const cc = store.crossCheck();
  assert.equal(cc.state, 'done');
  assert.equal(cc.run, store.experiment().result);
  assert.ok(cc.value.outputClose && cc.value.weightsClose);
  assert.ok(cc.value.outputDiff < 1e-12);
  assert.equal(cc.value.torch.attnWeights.length, 4);
  store.setInputError('seed', 'Seed is required');
  assert.deepEqual(store.crossCheck(), { state: 'none' });
  // Pending main run: pending; then its own run through the Compute.
  const slow = await storeWith(scriptedCompute(), MID);
  assert.deepEqual(slow.crossCheck(), { state: 'pending' });
  await sleep(0);
  const main = { seed: 7, tokens: 128, dModel: 256, numHeads: 4, bias: false, causal: false };
  slow.compute.runs[0].resolve(main);
  await sleep(0);
  assert.deepEqual(slow.crossCheck(), { state: 'pending', run: main });
  assert.equal(said(slow._slots.ex3.label), 'the PyTorch cross-check at 128 × 256');
  await sleep(0);
  const run = slow.compute.runs[1];
  assert.equal(run.method, 'crossCheck');
  assert.equal(run.key, `${slow.id}:ex3`);
  assert.equal(run.cost, 1.3 * forwardCost(128, 256, 4));
  run.reject(new Error('torch path failed'));
  await sleep(0);
  assert.deepEqual(slow.crossCheck(), { state: 'error', error: 'torch path failed', run: main });
});

test('busy() names a computation once it has been pending for BUSY_AFTER_MS', async () => {
  const compute = scriptedCompute();
  const store = await storeWith(compute, MID);
  const seen = changes(store);
  assert.deepEqual(store.busy(['experiment']), { pending: false, label: null });
  store.experiment();
  assert.deepEqual(store.busy(['ex1', 'experiment']), { pending: true, label: null });
  await sleep(BUSY_AFTER_MS + 60);
  assert.deepEqual(busyIn(store, ['ex1', 'experiment']), { pending: true, label: '128 × 256, 4 heads' });
  assert.equal(seen.count, 1, 'listeners are told once it is old enough to show');
  assert.equal(store._slots.experiment.shown, true);
  await sleep(BUSY_AFTER_MS + 60);
  assert.equal(seen.count, 1, 'and only once');
  assert.equal(store._busyTimer, 0);
  await sleep(0);
  compute.runs[0].resolve({});
  await sleep(0);
  assert.deepEqual(store.busy(['experiment']), { pending: false, label: null });
  const one = await storeWith(scriptedCompute(), { ...MID, numHeads: 1, tokens: 256 });
  one.experiment();
  assert.equal(said(one._slots.experiment.label), '256 × 256, 1 head');
});

test('a newer run that is not yet old enough keeps the busy timer going', async () => {
  // The store's clock (performance.now) is set by the test; its timers are real ones.
  const original = Object.getOwnPropertyDescriptor(globalThis, 'performance');
  let now = 1000;
  Object.defineProperty(globalThis, 'performance', { value: { now: () => now }, configurable: true, writable: true });
  try {
    const compute = scriptedCompute();
    const store = await storeWith(compute, MID);
    const seen = changes(store);
    store.experiment();  // due to show at 1150
    now = 1075;
    store.set({ seed: 8 });
    store.experiment();  // the newer run: due at 1225
    await sleep(5);
    const notified = seen.count;  // the set()'s own notification
    now = 1160;  // past the first run's due time, not the newer one's
    await sleep(BUSY_AFTER_MS + 100);
    assert.equal(seen.count, notified, 'the first run was superseded before it was shown');
    assert.equal(store._slots.experiment.shown, false);
    assert.notEqual(store._busyTimer, 0, 'waiting for the newer run');
    now = 1230;
    await sleep(BUSY_AFTER_MS);
    assert.equal(seen.count, notified + 1);
    assert.equal(store._slots.experiment.shown, true);
    assert.deepEqual(busyIn(store, ['experiment']), { pending: true, label: '128 × 256, 4 heads' });
    now = 1224;
    assert.deepEqual(store.busy(['experiment']), { pending: true, label: null }, 'not before BUSY_AFTER_MS');
    now = 1225;
    assert.equal(said(store.busy(['experiment']).label), '128 × 256, 4 heads', 'from BUSY_AFTER_MS on');
  } finally {
    Object.defineProperty(globalThis, 'performance', original);
  }
});

test('with the page\'s own Compute and no Worker, a mid-size run computes on this thread', async () => {
  const compute = new Compute({ factory: () => createHeadwise, worker: false });
  const store = new Store({ syncHash: false, compute, state: MID });
  await store.loadModule();
  const done = new Promise((resolve) => store.addEventListener('change', resolve, { once: true }));
  assert.equal(store.experiment().pending, true);
  await done;
  assert.equal(compute.mode, 'main');
  const ex = store.experiment();
  const direct = hw.seedExperiment({ ...MID, seed: 7 });
  assert.deepEqual(ex.result.headWeights[3][127], direct.headWeights[3][127]);
  assert.equal(ex.result.pairs.length, 6);
});

// ---- the URL hash in a page -----------------------------------------------------------------

function fakeWindow(hash, ids = []) {
  const listeners = {};
  const win = {
    location: {
      hash,
      replaced: [],
      replace(next) {
        win.location.replaced.push(next);
        win.location.hash = next;
      },
    },
    addEventListener(type, f) {
      (listeners[type] ||= []).push(f);
    },
    fire(type) {
      for (const f of listeners[type] || []) f();
    },
  };
  const replaced = [];
  globalThis.window = win;
  globalThis.document = { getElementById: (id) => (ids.includes(id) ? {} : null) };
  globalThis.history = {
    replaceState(state, title, next) {
      replaced.push(next);
      win.location.hash = next;
    },
  };
  return { win, replaced };
}

function restoreGlobals() {
  delete globalThis.window;
  delete globalThis.document;
  delete globalThis.history;
}

test('a store synced with the hash reads it, writes it back and follows hashchange', async () => {
  const { win, replaced } = fakeWindow('#seed=3&heads=4');
  try {
    const store = new Store({ compute: scriptedCompute() });
    const seen = changes(store);
    const init = store.init();
    // A link followed before the store first wrote the hash is read.
    win.location.hash = '#seed=3&heads=4&tokens=6';
    win.fire('hashchange');
    assert.equal(store.state.tokens, 6);
    assert.equal(store.init(), init, 'once');
    assert.equal(store.state.seed, 3);
    assert.equal(store.state.numHeads, 4);
    assert.equal(seen.count, 1);
    await init;
    assert.equal(seen.count, 2);
    // Never in the change's own task: from a timer of its own.
    assert.equal(replaced.length, 0, 'written in the notification\'s task');
    assert.ok(store._hashTimer, 'no write pending');
    await sleep(0);
    assert.equal(replaced.length, 1);
    assert.equal(replaced[0], `#${toHash(store.state)}`);
    store.notify();
    await sleep(HASH_WRITE_MS + 20);
    assert.equal(replaced.length, 1, 'an unchanged hash is not written again');
    store.state = { ...store.state, seed: 4 };
    store.notify();
    store.notify();
    assert.equal(replaced.length, 1, 'written in the notification\'s task');
    await sleep(0);
    assert.equal(replaced.length, 2, 'one write for two notifications');
    // While the store writes the hash, its own hashchange is not read back.
    store.set({ seed: 5 }, 'seed');
    await sleep(5);
    // Within HASH_WRITE_MS of the last write: the newest settings are written when it is up.
    assert.notEqual(win.location.hash, `#${toHash(store.state)}`);
    await sleep(HASH_WRITE_MS + 20);
    assert.equal(win.location.hash, `#${toHash(store.state)}`);
    // A burst of changes: at most one write at once, and one more (the last settings) later.
    await sleep(HASH_WRITE_MS + 20);
    const writes = replaced.length;
    for (let seed = 100; seed < 150; seed += 1) {
      store.state = { ...store.state, seed };
      store.notify();
    }
    assert.ok(replaced.length <= writes + 1, `${replaced.length - writes} writes in a burst of 50 changes`);
    await sleep(HASH_WRITE_MS + 20);
    assert.equal(win.location.hash, `#${toHash(store.state)}`);
    assert.ok(replaced.length <= writes + 2);
    store.state = { ...store.state, seed: 5 };
    store.notify();
    await sleep(HASH_WRITE_MS + 20);
    await sleep(0);  // after the timer the write set, however late the notification ran
    assert.equal(store._writingHash, false);
    // The browser's hashchange for the store's own write comes later; it is not read back (which
    // would forget the input problems and what was changed last).
    store.setInputError('seed', 'Seed is required');
    store.state = { ...store.state, seed: 6 };
    const before = seen.count;
    store.notify();
    win.fire('hashchange');
    assert.equal(seen.count, before + 1);
    assert.deepEqual(store.inputErrors, { seed: 'Seed is required' });
    assert.equal(store.lastChanged, 'seed');
    await sleep(0);
    store.setInputError('seed', null);
    store._writingHash = true;
    win.location.hash = '#seed=9';
    win.fire('hashchange');
    assert.equal(store.state.seed, 6);
    store._writingHash = false;
    // A link from elsewhere: read, with earlier input problems forgotten.
    store.setInputError('tokens', 'Tokens is required');
    store.lastChanged = 'tokens';
    const count = seen.count;
    win.fire('hashchange');
    assert.equal(store.state.seed, 9);
    assert.equal(store.state.numHeads, 2);
    assert.deepEqual(store.inputErrors, {});
    assert.equal(store.lastChanged, null);
    assert.equal(seen.count, count + 1);
    await sleep(HASH_WRITE_MS + 20);  // no write left pending when the globals go
  } finally {
    restoreGlobals();
  }
});

test('a link followed while a write of the hash waits is not undone by that write', async () => {
  const { win, replaced } = fakeWindow('#seed=3');
  try {
    const store = new Store({ compute: scriptedCompute() });
    await store.init();
    store.set({ seed: 4 }, 'seed');
    await sleep(HASH_WRITE_MS + 20);
    assert.equal(win.location.hash, `#${toHash(store.state)}`);
    // A change within HASH_WRITE_MS of that write: its write waits for the time to be up.
    store.state = { ...store.state, seed: 5 };
    store.notify();
    const writes = replaced.length;
    // Meanwhile the student follows a permalink; its hashchange has not been handled when the
    // waiting write's time is up.
    win.location.hash = '#seed=42&tokens=7';
    await sleep(HASH_WRITE_MS + 20);
    assert.equal(win.location.hash, '#seed=42&tokens=7', 'the older settings were written over the link');
    assert.equal(replaced.length, writes);
    win.fire('hashchange');
    assert.equal(store.state.seed, 42);
    assert.equal(store.state.tokens, 7);
    // And the store writes the hash again from there.
    await sleep(HASH_WRITE_MS + 20);
    store.set({ seed: 43 }, 'seed');
    await sleep(HASH_WRITE_MS + 20);
    assert.equal(win.location.hash, `#${toHash(store.state)}`);
    assert.equal(store.state.seed, 43);
  } finally {
    restoreGlobals();
  }
});

test('an unreadable hash gives the defaults and a notice; an in-page link changes nothing', () => {
  const { win } = fakeWindow('#heads=two', ['settings']);
  try {
    const store = new Store({ compute: scriptedCompute(), state: { seed: 4 } });
    store.readHash();
    assert.deepEqual(store.state, { ...DEFAULTS, labels: [] });
    assert.equal(store.notice.message, 'This link\'s settings could not be read ("heads" is not a number), so the page shows the lesson\'s defaults instead.');
    assert.equal(store.notice.params.reason.code, 'errors.hash.notNumber');
    win.location.hash = '#seed=12';
    store.readHash();
    assert.equal(store.notice, null);
    assert.equal(store.state.seed, 12);
    win.location.hash = '#settings';
    store.readHash();
    assert.equal(store.state.seed, 12, 'the skip link is navigation');
    win.location.hash = '#elsewhere';
    store.readHash();
    assert.notEqual(store.notice, null, 'a fragment that is no element is read as settings');
    // Only a whole fragment that is an element's id, starting with a letter, is navigation.
    for (const [hash, id] of [['#1a', '1a'], ['#seed=3', 'seed=3'], ['#a#b', 'ab']]) {
      fakeWindow(hash, [id]);
      const other = new Store({ compute: scriptedCompute(), state: { seed: 4 } });
      other.readHash();
      assert.notEqual(other.state.seed, 4, `${hash} is read as settings`);
    }
  } finally {
    restoreGlobals();
  }
});

test('the hash falls back to location.replace where history cannot replace it; unsynced stores leave it', () => {
  const { win } = fakeWindow('');
  try {
    globalThis.history = { replaceState() { throw new Error('SecurityError'); } };
    const store = new Store({ compute: scriptedCompute() });
    store.writeHashNow();
    assert.deepEqual(win.location.replaced, [`#${toHash(store.state)}`]);
    const quiet = new Store({ syncHash: false, compute: scriptedCompute() });
    win.location.hash = '';
    quiet.notify();
    quiet.init();
    assert.equal(win.location.hash, '');
    assert.equal(win.location.replaced.length, 1);
  } finally {
    restoreGlobals();
  }
});

test('getStore() makes the page\'s one store, hash sync unless the page says data-hw-no-hash', async () => {
  const idle = [];
  fakeWindow('#seed=4');
  globalThis.document.documentElement = {
    hasAttribute: (name) => name === 'data-hw-no-hash',
    getAttribute: () => null,
  };
  globalThis.createHeadwise = createHeadwise;
  globalThis.requestIdleCallback = (f, options) => idle.push({ f, options });
  try {
    const { getStore } = await import('../../web/src/shared/state/store.js');
    const store = getStore();
    assert.equal(getStore(), store);
    assert.equal(store.syncHash, false);
    assert.equal(store.state.seed, 7, 'the hash is not read');
    await store.init();
    assert.notEqual(store.hw, null);
    assert.equal(idle.length, 1, 'the Worker is started once the page is idle');
    assert.deepEqual(idle[0].options, { timeout: 3000 });
    assert.equal(store.compute.mode, 'starting');
    idle[0].f();
    await store.compute.ready;
    assert.equal(store.compute.mode, 'main');
    assert.equal(store.compute.reason.message, 'this browser cannot start a Worker here');
    assert.equal(store.compute.reason.code, 'errors.worker.cannot');
  } finally {
    restoreGlobals();
    delete globalThis.createHeadwise;
    delete globalThis.requestIdleCallback;
  }
});
