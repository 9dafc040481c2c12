// web/src/shared/compute/ (compute.js and pool.js), the one mechanism for heavy work, on its own: bundled here from the
// source with a stand-in module (a few stateless and stateful methods whose behaviour the tests
// can see), in a page served over http. Latest wins (AbortError, queued runs never start, a
// long superseded run is abandoned by restarting the Worker), create()/call()/dispose(), errors
// crossing intact, and the same API on the main thread when no Worker may start.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT, serveDist, shareBrowser } from './helpers.mjs';
import { after, before } from 'node:test';

// The stand-in module: what the Worker evaluates (as createHeadwise.moduleSource() would give).
const FAKE_MODULE = `var createHeadwise = function () {
  var started = 0;
  return Promise.resolve({
    version: 'stand-in',
    // Busy for o.ms milliseconds (a long computation), then says so.
    spin: function (o) { var t = Date.now(); while (Date.now() - t < o.ms) {} return { ms: o.ms }; },
    // Counts its calls: how many runs really started in this module instance.
    bump: function () { started += 1; return started; },
    started: function () { return started; },
    fail: function () { throw new Error('fail: the stand-in refuses, as asked'); },
    // A matrix result in the module's shape: nested (enumerable) and its Tensor in typed (not).
    matrix: function (o) {
      var data = new Float64Array(o.rows * o.cols);
      for (var k = 0; k < data.length; k++) data[k] = k;
      var out = { rows: o.rows };
      Object.defineProperty(out, 'typed', { value: { m: new Tensor(data, [o.rows, o.cols]) } });
      Object.defineProperty(out, 'm', { enumerable: true, get: function () { throw new Error('the nested form was built in the Worker'); } });
      return out;
    },
    // A stateful object, as createTrainer will be.
    createCounter: function (o) {
      var n = o.start;
      return {
        add: function (k) { n += k; return n; },
        value: function () { return n; },
        // Busy for ms milliseconds: when it began and ended, by this thread's clock.
        spin: function (ms) { var t = Date.now(); while (Date.now() - t < ms) {} return [t, Date.now()]; },
        // An array result with its tensor as typed (not enumerable), as a trainer's attention().
        stack: function () { return createHeadwise.nested(new Tensor(new Float64Array([1, 2, 3, 4]), [1, 2, 2])); },
        // What a tensor among the arguments is where the object lives (a trainer's setParameters).
        take: function (p) { return { f64: p.w.data instanceof Float64Array, numbers: Array.from(p.w.data), shape: p.w.shape }; },
        dispose: function () { n = NaN; }
      };
    }
  });
};
// The module's tensor type and result builder, as far as compute.js uses them.
function Tensor(data, shape) { this.data = data; this.shape = shape; }
Tensor.prototype.copy = function () { return new Tensor(this.data.slice(), this.shape.slice()); };
createHeadwise.Tensor = Tensor;
createHeadwise.nested = function (t) {
  var out = [];
  var size = t.shape[1] * t.shape[2];
  for (var h = 0; h < t.shape[0]; h++) {
    var m = [];
    for (var i = 0; i < t.shape[1]; i++) m.push(Array.from(t.data.subarray(h * size + i * t.shape[2], h * size + (i + 1) * t.shape[2])));
    out.push(m);
  }
  Object.defineProperty(out, 'typed', { value: t });
  return out;
};
createHeadwise.result = function (fields) {
  var out = {};
  var typed = {};
  Object.defineProperty(out, 'typed', { value: typed });
  Object.keys(fields).forEach(function (f) {
    var v = fields[f];
    if (!(v instanceof Tensor)) { out[f] = v; return; }
    typed[f] = v;
    Object.defineProperty(out, f, { enumerable: true, get: function () {
      var rows = [];
      for (var i = 0; i < v.shape[0]; i++) rows.push(Array.from(v.data.subarray(i * v.shape[1], (i + 1) * v.shape[1])));
      return rows;
    } });
  });
  return out;
};`;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>compute</title></head>
<body><script src="/stand-in.js"></script><script src="/compute.js"></script></body></html>`;

let server;
let browser;

before(async () => {
  const out = await build({
    stdin: {
      contents: "export { Compute } from './compute.js';\nexport { Pool } from './pool.js';\n",
      resolveDir: join(ROOT, 'web', 'src', 'shared', 'compute'),
    },
    bundle: true, format: 'iife', globalName: 'HeadwiseCompute', write: false, minify: true, target: ['es2020'],
  });
  const standIn = `${FAKE_MODULE}\ncreateHeadwise.moduleSource = function () { return ${JSON.stringify(FAKE_MODULE)}; };`;
  const html = { type: 'text/html; charset=utf-8', body: PAGE };
  server = await serveDist({
    dir: null,
    pages: {
      '/': html,
      '/nocsp.html': html,
      // A host that forbids workers: no worker-src, so script-src ('self') applies to blob: workers.
      '/csp.html': { ...html, headers: { 'Content-Security-Policy': "default-src 'self'; script-src 'self'" } },
      '/compute.js': { type: 'text/javascript', body: out.outputFiles[0].text },
      '/stand-in.js': { type: 'text/javascript', body: standIn },
    },
  });
});
shareBrowser((b) => { browser = b; }, null);
after(() => server?.close());

/**
 * A fresh page with a Compute on the stand-in module: window.compute. `errors()` gives the page's
 * uncaught errors so far (as the engine reports them, or as the injected watcher saw them).
 */
async function open(path = '/', options = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url(path));
  await page.evaluate((o) => { window.compute = new HeadwiseCompute.Compute(o); window.compute.start(); }, options);
  const errors = async () => { await page.harvest(); return page.log.pageErrors; };
  return { context, page, errors };
}

describe('Compute and Pool (web/src/shared/compute/)', () => {
  for (const worker of [true, false]) {
    const where = worker ? 'in the Worker' : 'on the main thread';
    test(`runs module methods ${where}; errors cross with their message; a newer run supersedes a queued one`, async () => {
      const { context, page, errors } = await open('/', { worker });
      try {
        const r = await page.evaluate(async () => {
          const c = window.compute;
          await c.ready;
          const out = { mode: c.mode, reason: c.reason && c.reason.message };
          out.spin = await c.run('spin', { ms: 1 });
          out.fail = await c.run('fail', {}).then(() => 'resolved', (e) => `${e.name}: ${e.message}`);
          out.unknown = await c.run('nope', {}).then(() => 'resolved', (e) => e.message);
          // A long run, then two runs with one key: the first of them is superseded while queued.
          const long = c.run('spin', { ms: 300 }, { key: 'long' });
          const first = c.run('bump', {}, { key: 'k' }).then(() => 'resolved', (e) => e.name);
          const second = c.run('bump', {}, { key: 'k' });
          out.long = await long;
          out.first = await first;
          out.second = await second;
          out.started = await c.run('started', {});
          return out;
        });
        assert.equal(r.mode, worker ? 'worker' : 'main');
        if (!worker) assert.match(r.reason, /asked for no Worker/);
        assert.deepEqual(r.spin, { ms: 1 });
        assert.equal(r.fail, 'Error: fail: the stand-in refuses, as asked');
        assert.equal(r.unknown, 'compute.run: "nope" is not a method of the module');
        assert.deepEqual(r.long, { ms: 300 });
        assert.equal(r.first, 'AbortError');
        assert.equal(r.second, 1, 'the superseded run never started');
        assert.equal(r.started, 1);
        assert.deepEqual(await errors(), []);
      } finally {
        await context.close();
      }
    });

    test(`create(): a stateful object lives ${where}, called in order, disposed`, async () => {
      const { context, page, errors } = await open('/', { worker });
      try {
        const r = await page.evaluate(async () => {
          const c = window.compute;
          const counter = await c.create('createCounter', { start: 10 });
          const other = await c.create('createCounter', { start: 0 });
          const adds = await Promise.all([counter.call('add', 1), counter.call('add', 2), other.call('add', 5)]);
          const value = await counter.call('value');
          await counter.dispose();
          const afterDispose = await counter.call('value').then(() => 'resolved', (e) => e.message);
          const missing = await other.call('nope').then(() => 'resolved', (e) => e.message);
          const badFactory = await c.create('nope', {}).then(() => 'resolved', (e) => e.message);
          return { adds, value, afterDispose, missing, badFactory, otherValue: await other.call('value') };
        });
        assert.deepEqual(r.adds, [11, 13, 5]);
        assert.equal(r.value, 13);
        assert.equal(r.afterDispose, 'this object has been disposed');
        assert.equal(r.missing, '"nope" is not a method of this object');
        assert.equal(r.badFactory, 'compute.create: "nope" is not a method of the module');
        assert.equal(r.otherValue, 5);
        assert.deepEqual(await errors(), []);
      } finally {
        await context.close();
      }
    });
  }

  test('a long run that is superseded is abandoned: the Worker restarts and the newer run answers', async () => {
    const { context, page, errors } = await open();
    try {
      const r = await page.evaluate(async () => {
        const c = window.compute;
        await c.ready;
        const old = c.run('spin', { ms: 60000 }, { key: 'main', cost: 60000 }).then(() => 'resolved', (e) => e.name);
        await new Promise((res) => setTimeout(res, 200));  // it is running now
        const newer = await c.run('spin', { ms: 1 }, { key: 'main', cost: 1 });
        return { old: await old, newer, restarts: c.restarts, mode: c.mode };
      });
      // Had the Worker not been restarted, the newer run would wait a minute (the test's timeout).
      assert.deepEqual(r, { old: 'AbortError', newer: { ms: 1 }, restarts: 1, mode: 'worker' });
      assert.deepEqual(await errors(), []);
    } finally {
      await context.close();
    }
  });

  test('tensors cross as transferred typed arrays; the nested form is made only when read', async () => {
    const { context, page } = await open();
    try {
      const r = await page.evaluate(async () => {
        const m = await window.compute.run('matrix', { rows: 3, cols: 4 });
        return { rows: m.rows, typed: Array.from(m.typed.m.data), isF64: m.typed.m.data instanceof Float64Array, row2: m.m[2], keys: Object.keys(m) };
      });
      assert.deepEqual(r, { rows: 3, typed: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], isF64: true, row2: [8, 9, 10, 11], keys: ['rows', 'm'] });
    } finally {
      await context.close();
    }
  });

  test('a remote object\'s array result keeps its tensor; tensors among its arguments are transferred to the Worker', async () => {
    const { context, page, errors } = await open();
    try {
      const r = await page.evaluate(async () => {
        const counter = await window.compute.create('createCounter', { start: 0 });
        const s = await counter.call('stack');
        const w = new createHeadwise.Tensor(new Float64Array([1, 2, 3]), [3]);
        const took = await counter.call('take', { w });
        return {
          mode: window.compute.mode, nested: s, isArray: Array.isArray(s), keys: Object.keys(s),
          tensor: s.typed instanceof createHeadwise.Tensor, numbers: Array.from(s.typed.data), shape: s.typed.shape,
          took, handedOver: w.data.byteLength,
        };
      });
      assert.deepEqual(r, {
        mode: 'worker', nested: [[[1, 2], [3, 4]]], isArray: true, keys: ['0'], tensor: true, numbers: [1, 2, 3, 4], shape: [1, 2, 2],
        took: { f64: true, numbers: [1, 2, 3], shape: [3] }, handedOver: 0,
      });
      assert.deepEqual(await errors(), []);
    } finally {
      await context.close();
    }
  });

  test('a Pool of two: objects on the least-loaded Worker, two Workers busy at once, idle ones terminated', async () => {
    const { context, page, errors } = await open();
    try {
      const r = await page.evaluate(async () => {
        const p = new HeadwiseCompute.Pool({ size: 2 });
        const a = await p.create('createCounter', { start: 0 });
        const b = await p.create('createCounter', { start: 100 });
        const c = await p.create('createCounter', { start: 200 });
        const open = p.open;
        // Each object's calls in order on its Worker, the two Workers at once.
        const [sa, sb, adds] = await Promise.all([a.call('spin', 300), b.call('spin', 300), Promise.all([c.call('add', 1), c.call('add', 2)])]);
        const overlap = sa[0] < sb[1] && sb[0] < sa[1];
        const long = p.run('spin', { ms: 200 });  // ahead of the keyed runs on the first Worker
        const superseded = p.run('bump', {}, { key: 'k' }).then(() => 'resolved', (e) => e.name);
        const newer = await p.run('bump', {}, { key: 'k' });
        await long;
        await b.dispose();
        const afterB = p.open;
        p.dispose();
        return { lanes: [a.lane, b.lane, c.lane], open, overlap, peak: p.peakBusy, adds, superseded: await superseded, newer, afterB, afterAll: p.open, mode: p.mode };
      });
      assert.deepEqual(r.lanes, [0, 1, 0]);
      assert.equal(r.open, 2);
      assert.equal(r.overlap, true, 'the two Workers spun at the same time');
      assert.equal(r.peak, 2);
      assert.deepEqual(r.adds, [201, 203]);
      assert.equal(r.superseded, 'AbortError');
      assert.equal(r.newer, 1);
      assert.equal(r.afterB, 1, 'the second Worker closed with its last object');
      assert.equal(r.afterAll, 0);
      assert.deepEqual(await errors(), []);
    } finally {
      await context.close();
    }
  });

  test('a Pool under a CSP that forbids blob: workers: everything on the main thread, as one Compute', async () => {
    const { context, page } = await open('/csp.html');
    try {
      const r = await page.evaluate(async () => {
        const p = new HeadwiseCompute.Pool({ size: 4 });
        const a = await p.create('createCounter', { start: 1 });
        const b = await p.create('createCounter', { start: 5 });
        return { mode: p.mode, reason: p.reason && p.reason.message, lanes: [a.lane, b.lane], sums: [await a.call('add', 1), await b.call('add', 1)], open: p.open };
      });
      assert.equal(r.mode, 'main');
      assert.match(r.reason, /worker-src blob:/);
      assert.deepEqual(r.lanes, [0, 0]);
      assert.deepEqual(r.sums, [2, 6]);
      assert.equal(r.open, 0);
    } finally {
      await context.close();
    }
  });

  test('under a CSP that forbids blob: workers it falls back to the main thread and says why', async () => {
    const { context, page } = await open('/csp.html');
    try {
      const r = await page.evaluate(async () => {
        const c = window.compute;
        await c.ready;
        return { mode: c.mode, reason: c.reason && c.reason.message, counter: await (await c.create('createCounter', { start: 1 })).call('add', 1) };
      });
      assert.equal(r.mode, 'main');
      assert.match(r.reason, /worker-src blob:/);
      assert.equal(r.counter, 2);
    } finally {
      await context.close();
    }
  });
});
