// The multi-head attention forward, timed side by side in one run: each implementation is a
// worker (a process, or a page in Chromium) that answers one line with one JSON line
// (bench_native.cpp, bench_wasm_node.mjs, bench_python.py, bench.html), and the timing
// interleaves them.
import {spawn} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {createInterface} from 'node:readline';

import {benchDir, fmtMs, launchChromium, log, median, outDir, root} from './common.mjs';
import {scalingSvg, table} from './report.mjs';

const SAMPLES_PER_ROUND = 3;
const TARGET_SAMPLE_MS = 3;  // forwards are batched until one sample takes at least this long
const SCALING_TOKENS = [16, 32, 64, 128, 256, 512, 1024];
const PYTHON = '/usr/bin/python3';

/** projections + scores + weights @ v */
export const flops = (n, d) => 8 * n * d * d + 4 * n * n * d;

/**
 * The environment of every benchmarked process. glibc keeps the memory it frees instead of
 * returning big blocks to the operating system at once: otherwise each forward pays a page fault
 * per fresh page of its results. glibcDefaults: measure without it.
 */
export const mallocEnv = (glibcDefaults) => (glibcDefaults ? {} : {
  GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824'
});

/** How the forward is timed, as results.json records it. */
export const method = (rounds, env) => ({
  rounds,
  samplesPerRound: SAMPLES_PER_ROUND,
  targetSampleMs: TARGET_SAMPLE_MS,
  statistic: 'median of all samples; a sample is the mean of a batch of forwards',
  flops: '8 n d^2 + 4 n^2 d (projections, q k^T, weights v)',
  environment: env
});

// ---- workers: one line in, one JSON line out ----------------------------------------------------

class ProcessWorker {
  constructor(name, cmd, args, env) {
    this.name = name;
    this.proc = spawn(cmd, args, {cwd: root, env, stdio: ['pipe', 'pipe', 'inherit']});
    this.pending = [];
    this.exited = null;
    createInterface({input: this.proc.stdout}).on('line', (line) => {
      const p = this.pending.shift();
      if (!p) return;
      try {
        p.resolve(JSON.parse(line));
      } catch {
        p.reject(new Error(`${name}: not JSON: ${line.slice(0, 200)}`));
      }
    });
    this.proc.on('exit', (code) => {
      this.exited = code;
      for (const p of this.pending.splice(0)) p.reject(new Error(`${name} exited (${code})`));
    });
    this.proc.on('error', (e) => {
      for (const p of this.pending.splice(0)) p.reject(e);
    });
  }

  request(line) {
    if (this.exited !== null) return Promise.reject(new Error(`${this.name} exited`));
    return new Promise((resolve, reject) => {
      this.pending.push({resolve, reject});
      this.proc.stdin.write(line + '\n');
    });
  }

  close() {
    if (this.exited === null && !this.closed) this.proc.stdin.end('quit\n');
    this.closed = true;
  }
}

class ChromiumWorker {
  constructor(page) {
    this.name = 'wasm-chromium';
    this.page = page;
  }

  async request(line) {
    const [op, ...a] = line.split(' ');
    if (op === 'info') return this.page.evaluate(() => window.bench.info());
    return this.page.evaluate(([n, d, h, s, b, mode]) => {
      try {
        return window.bench.time(n, d, h, s, b, mode);
      } catch (e) {
        return {error: String(e && e.message || e)};
      }
    }, [...a.slice(0, 5).map(Number), a[5]]);
  }

  close() {}
}

/**
 * Implementations: {key, label, worker, mode}; the WASM workers serve two modes each (core: the
 * forward on inputs in the WASM heap; api: hw.multiHeadAttention on nested arrays). `only` lists
 * the keys to start (null: all); one that does not start leaves its columns empty. browser:
 * Chromium for wasm-chromium, or null.
 */
async function startWorkers({baseUrl, browser, only, env}) {
  const impls = [];
  const infos = {};
  const want = (key) => !only || only.includes(key);
  const tryStart = async (key, start) => {
    if (!want(key)) return null;
    try {
      const w = await start();
      const info = await w.request('info');
      if (info.error) throw new Error(info.error);
      infos[key] = info;
      return w;
    } catch (e) {
      log(`note: ${key} is not available (${e.message}); its columns are left empty.`);
      return null;
    }
  };
  const withEnv = {...process.env, ...env};
  for (const [key, label, dir] of [
           ['native', 'native', 'bench-native'],
           ['native-baseline', 'native baseline', 'bench-baseline']]) {
    const w = await tryStart(
        key,
        () => new ProcessWorker(key, join(root, 'build', dir, 'bench_native'), ['--serve'], withEnv));
    if (w) impls.push({key, label, worker: w});
  }
  const wasmNode = await tryStart(
      'wasm-node',
      () => new ProcessWorker(
          'wasm-node', process.execPath, [join(benchDir, 'bench_wasm_node.mjs')], withEnv));
  if (wasmNode) {
    impls.push({key: 'wasm-node', label: 'WASM Node (core)', worker: wasmNode, mode: 'core'});
    impls.push({key: 'wasm-node-api', label: 'WASM Node (API)', worker: wasmNode, mode: 'api'});
  }
  if (browser && want('wasm-chromium')) {
    const chromium = await tryStart('wasm-chromium', async () => {
      const page = await browser.newPage();
      page.on('pageerror', (e) => log(`chromium page error: ${e.message}`));
      await page.goto(`${baseUrl}/tests/bench/bench.html`);
      await page.evaluate(async () => {
        window.bench = await window.HeadwiseBench.setup(window.createHeadwise);
      });
      return new ChromiumWorker(page);
    });
    if (chromium) {
      infos['wasm-chromium'].crossOriginIsolated =
          await chromium.page.evaluate(() => self.crossOriginIsolated);
      impls.push(
          {key: 'wasm-chromium', label: 'WASM Chromium (core)', worker: chromium, mode: 'core'});
      impls.push(
          {key: 'wasm-chromium-api', label: 'WASM Chromium (API)', worker: chromium, mode: 'api'});
    }
  }
  // Python: OpenBLAS on one thread, and without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, so that it
  // picks its kernels for this CPU itself (reported in info).
  const pyEnv = {...withEnv, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1'};
  delete pyEnv.OPENBLAS_CORETYPE;
  delete pyEnv.OPENBLAS_L2_SIZE;
  for (const [key, label] of [['numpy', 'NumPy'], ['pytorch', 'PyTorch']]) {
    const w = await tryStart(
        key,
        () => new ProcessWorker(
            key, PYTHON,
            [join(benchDir, 'bench_python.py'), key === 'pytorch' ? 'torch' : 'numpy', '--serve'],
            pyEnv));
    if (w) impls.push({key, label, worker: w});
  }
  return {impls, infos};
}

// ---- timing -------------------------------------------------------------------------------------

async function sample(impl, n, d, h, samples, batch) {
  const mode = impl.mode ? ` ${impl.mode}` : '';
  const r = await impl.worker.request(`time ${n} ${d} ${h} ${samples} ${batch}${mode}`);
  if (r.error) throw new Error(`${impl.key} at (${n}, ${d}, ${h}): ${r.error}`);
  return r;
}

// Interleaved: warm-up and batch size per implementation, then rounds over all
// implementations (a different one first each round), SAMPLES_PER_ROUND samples each.
async function timeSize(impls, n, d, h, rounds) {
  const state = new Map();
  for (const impl of impls) {
    try {
      await sample(impl, n, d, h, 1, 1);
      const est = median((await sample(impl, n, d, h, 3, 1)).times_ms);
      const batch = Math.max(1, Math.min(5000, Math.ceil(TARGET_SAMPLE_MS / Math.max(est, 1e-4))));
      state.set(impl.key, {batch, times: [], check: null});
    } catch (e) {
      log(`note: ${e.message}`);
    }
  }
  const live = impls.filter((i) => state.has(i.key));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < live.length; k++) {
      const impl = live[(k + r) % live.length];
      const s = state.get(impl.key);
      const res = await sample(impl, n, d, h, SAMPLES_PER_ROUND, s.batch);
      s.times.push(...res.times_ms);
      s.check = res.check;
    }
  }
  const out = {};
  for (const impl of live) {
    const s = state.get(impl.key);
    const ms = median(s.times);
    out[impl.key] = {
      median_ms: ms,
      min_ms: Math.min(...s.times),
      samples: s.times.length,
      batch: s.batch,
      gflops: flops(n, d) / (ms * 1e6),
      check: s.check
    };
  }
  return out;
}

// Every implementation computes the same forward: its check numbers must agree.
function crossCheck(result) {
  const ref = result.native || Object.values(result)[0];
  const bad = [];
  for (const [key, r] of Object.entries(result)) {
    for (const [f, v] of Object.entries(ref.check)) {
      const w = r.check[f];
      if (!(Math.abs(w - v) <= 1e-9 * Math.max(1, Math.abs(v))))
        bad.push(`${key}.${f}: ${w} vs ${v}`);
    }
  }
  return bad;
}

function ratios(r) {
  const q = (a, b) => (r[a] && r[b] ? r[a].median_ms / r[b].median_ms : null);
  return {
    wasmNodeOverBaseline: q('wasm-node', 'native-baseline'),
    wasmChromiumOverBaseline: q('wasm-chromium', 'native-baseline'),
    nativeOverPytorch: q('native', 'pytorch'),
    nativeOverNumpy: q('native', 'numpy'),
  };
}

// Time against tokens at d_model 768, 12 heads, for native and WASM: res.scaling and its plot.
async function scaling(res, impls, rounds) {
  log(`\nscaling: tokens ${SCALING_TOKENS.join(', ')} at d_model 768, 12 heads ...`);
  const keys = ['native', 'native-baseline', 'wasm-node', 'wasm-chromium'];
  const sc = impls.filter((i) => keys.includes(i.key));
  res.scaling = {dModel: 768, heads: 12, tokens: SCALING_TOKENS, series: {}};
  for (const i of sc) res.scaling.series[i.key] = [];
  for (const n of SCALING_TOKENS) {
    const r = await timeSize(sc, n, 768, 12, rounds);
    for (const i of sc)
      if (r[i.key]) res.scaling.series[i.key].push({tokens: n, ms: r[i.key].median_ms});
    log(`  ${String(n).padStart(5)}: ${
        sc.map((i) => `${i.key} ${fmtMs(r[i.key]?.median_ms)} ms`).join(', ')}`);
  }
  writeFileSync(join(outDir, 'scaling.svg'), scalingSvg(res.scaling));
}

/**
 * The forward section: res.implementations, res.sizes (each size's timings, ratios and cross-check)
 * and, with withScaling, res.scaling. chromium: playwright's, for wasm-chromium (or null).
 */
export async function forwardSection(res, {baseUrl, chromium, only, env, sizes, rounds, quick,
                                           withScaling}) {
  const browser = chromium && (!only || only.includes('wasm-chromium')) ?
      await launchChromium(chromium, {env: {...process.env, ...env}}) : null;
  const {impls, infos} = await startWorkers({baseUrl, browser, only, env});
  try {
    res.implementations = infos;
    log('\nImplementations:');
    for (const [k, v] of Object.entries(infos)) log(`  ${k}: ${JSON.stringify(v)}`);
    res.sizes = [];
    for (const [n, d, h] of sizes) {
      log(`\ntiming (${n}, ${d}, ${h}) ...`);
      const r = await timeSize(impls, n, d, h, rounds);
      const row = {size: [n, d, h], flops: flops(n, d), impls: r, ratios: ratios(r),
                   mismatches: crossCheck(r)};
      if (row.mismatches.length) log(`WARNING: results differ: ${row.mismatches.join('; ')}`);
      res.sizes.push(row);
    }
    log('\nMedian ms per forward (float64, one thread; ratios use the WASM core timings):');
    log(table(res.sizes));
    if (withScaling) await scaling(res, impls, quick ? 2 : 3);
  } finally {
    for (const i of impls) i.worker.close();
    if (browser) await browser.close();
  }
}
