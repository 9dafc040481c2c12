// The "how many heads does a task need?" experiment's trainer, measured (part of `npm run bench`;
// also `node tests/bench/train_heads.mjs [--rounds=5] [--steps=100] [--json]`):
//
// 1. Training steps per second of the experiment's default task (headsNeededDefaults(): its
//    relations, d_model, batch, ...) with 1, 2, 4 and 8 heads, one Adam step each on a batch of
//    the same size, one thread, in one run:
//      native      build/native/train_bench (float64)
//      wasm-node   dist/headwise.js in Node, trainer.step(k) (float64)
//      tfjs-wasm   the same model in TensorFlow.js (tests/bench/train_tfjs.mjs), float32, on
//                  @tensorflow/tfjs-backend-wasm (XNNPACK, SIMD, one thread)
//      tfjs-cpu    the same on @tensorflow/tfjs-backend-cpu (plain JS)
//      pytorch     the fixtures' reference model, eager, float64, torch.set_num_threads(1)
//    The WASM trainer and PyTorch draw each step's batch themselves (NumPy's randint); tfjs gets
//    batches of the same size and rule drawn beforehand, outside the timing. Before timing, the
//    tfjs model's loss on one batch is checked against the WASM trainer's (float32 against
//    float64: within 1e-5 relative). Figures are medians of `rounds` samples of `steps` steps
//    after 20 warm-up steps, in CPU time of the process (the machine may be shared).
// 2. Memory: the full grid (D = 1 .. 4 relations x every head count) alive at once in one WASM
//    module, each model stepped, evaluated with every head switched off and asked for attention,
//    then disposed; ten grids in a row. Reports the peak of malloc's bytes in use, the WASM
//    memory's size, and both after each grid (tests/js/train-grid-heap.test.mjs asserts the same).
import {commandLine, headwise, isMain, median, runMain} from './common.mjs';
import {
  cpuMs, medians, nativeTrainBench, pytorchTrainBench, timeTrainers, trainSettings
} from './train.mjs';
import {sourceOf} from '../../web/src/shared/i18n/relations.js';
import {tfjsModel, useBackend} from './train_tfjs.mjs';


// `count` batches of (B, n) uniform tokens (a fixed LCG) and their targets (B * n * R).
function batches(config, count, seed = 1) {
  const {batchSize: B, seqLen: n, vocab: V, relations} = config;
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
  return Array.from({length: count}, () => {
    const tokens = new Int32Array(B * n).map(() => next() % V);
    const targets = new Int32Array(B * n * relations.length);
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < n; i++) {
        relations.forEach((r, k) => {
          const src = sourceOf(r, i, n);
          targets[(b * n + i) * relations.length + k] = src >= 0 ? tokens[b * n + src] : -1;
        });
      }
    }
    return {tokens, targets, B};
  });
}

// tokens and targets as the WASM trainer's gradients() takes them.
function nested({tokens, targets, B}, n, R) {
  return {
    tokens: Array.from({length: B}, (_, b) => Array.from(tokens.subarray(b * n, (b + 1) * n))),
    targets: Array.from({length: B}, (_, b) => Array.from({length: n}, (_, i) =>
      Array.from(targets.subarray((b * n + i) * R, (b * n + i + 1) * R))))
  };
}

async function timeTfjs(hw, d, heads, steps, rounds, backend, log) {
  const tf = await useBackend(backend);
  const out = {};
  const check = {};
  if (backend === 'wasm') {
    const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
    const threads = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
    log(`  tfjs-wasm: SIMD ${simd ? 'on' : 'off'}, threads ${threads ? 'supported, count set to 1' : 'off'}`);
  }
  for (const h of heads) {
    const t = hw.createTrainer({relations: d.relations, numHeads: h, dModel: d.dModel, seed: 0});
    const config = t.config;
    const model = tfjsModel(tf, config, t.parameters());
    const pool = batches(config, 32);
    // Step 0: the same loss as the core's on the same weights and batch, to float32's precision.
    const core = t.gradients(nested(pool[0], config.seqLen, config.numRelations)).loss;
    const mine = model.loss(pool[0].tokens, pool[0].targets, pool[0].B);
    const rel = Math.abs(mine - core) / Math.abs(core);
    check[h] = {core, tfjs: mine, relativeDifference: rel};
    if (!(rel <= 1e-5)) {
      throw new Error(`tfjs-${backend}, ${h} heads: step-0 loss ${mine} but the core's is ${core}`);
    }
    t.dispose();
    for (let i = 0; i < 20; i++) model.step(pool[i].tokens, pool[i].targets, pool[i].B);
    let k = 20;
    const ms = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = cpuMs();
      for (let i = 0; i < steps; i++, k = (k + 1) % 32) {
        model.step(pool[k].tokens, pool[k].targets, pool[k].B);
      }
      ms.push((cpuMs() - t0) / steps);
    }
    model.dispose();
    out[h] = ms;
    log(`  tfjs-${backend}, ${h} head${h > 1 ? 's' : ''}: ${(1000 / median(ms)).toFixed(0)} steps/s ` +
      `(step-0 loss ${mine.toFixed(6)} vs the core's ${core.toFixed(6)})`);
  }
  return {ms: out, check, tensorsLeft: tf.memory().numTensors};
}

// The full grid alive at once, `grids` times in a row: malloc's bytes in use and the WASM
// memory. With everyHead, each model is also evaluated with each head switched off (as the
// page's cell does); without, once.
export function gridMemory(hw, {grids = 10, steps = 2, everyHead = true} = {}) {
  const d = hw.headsNeededDefaults();
  const stats = () => hw.heapStats();
  const before = stats();
  const rows = [];
  for (let g = 0; g < grids; g++) {
    let peak = 0;
    const live = [];
    for (let D = 1; D <= d.gridRelations.length; D++) {
      for (const h of d.headCounts) {
        const t = hw.createTrainer({relations: d.gridRelations.slice(0, D), numHeads: h,
          dModel: d.dModel, seed: g});
        t.step(steps);
        t.evaluate();
        for (let off = 0; everyHead && off < h; off++) t.evaluate({ablate: [off]});
        t.attention({tokens: Array.from({length: d.seqLen}, (_, i) => i % d.vocab)});
        live.push(t);
        peak = Math.max(peak, stats().usedBytes);
      }
    }
    live.forEach((t) => t.dispose());
    const after = stats();
    rows.push({peakUsedBytes: peak, heapBytes: after.heapBytes, usedBytesAfter: after.usedBytes});
  }
  return {before, grids: rows, models: d.gridRelations.length * d.headCounts.length};
}

export async function headsBench({rounds = 5, steps = 100, log = console.log} = {}) {
  const hw = await headwise();
  const d = hw.headsNeededDefaults();
  const heads = d.headCounts;
  const res = {relations: d.relations, settings: trainSettings(d), steps, rounds, msPerStep: {}};

  const task = `relations=${d.relations.join(',')}`;
  log('heads-needed training: native ...');
  res.msPerStep.native = nativeTrainBench(task, heads, steps, rounds);

  log('heads-needed training: wasm-node ...');
  res.msPerStep['wasm-node'] = timeTrainers(hw, {relations: d.relations, dModel: d.dModel}, heads,
    steps, rounds);

  res.tfjsCheck = {};
  for (const backend of ['wasm', 'cpu']) {
    log(`heads-needed training: tfjs-${backend} ...`);
    try {
      // tfjs-cpu is far slower: fewer steps per sample.
      const r = await timeTfjs(hw, d, heads, backend === 'cpu' ? Math.max(5, steps >> 2) : steps,
        rounds, backend, log);
      res.msPerStep[`tfjs-${backend}`] = r.ms;
      res.tfjsCheck[backend] = r.check;
    } catch (e) {
      log(`note: tfjs-${backend} skipped: ${e.message}`);
    }
  }

  log('heads-needed training: pytorch ...');
  const pytorch = pytorchTrainBench(task, heads, Math.max(20, steps >> 1), rounds, d, log);
  if (pytorch) res.msPerStep.pytorch = pytorch;

  res.median = medians(res.msPerStep);
  // The range of the samples in steps per second: [slowest, fastest].
  res.spread = {};
  for (const [impl, byHeads] of Object.entries(res.msPerStep)) {
    res.spread[impl] = Object.fromEntries(Object.entries(byHeads).map(([h, ms]) =>
      [h, [1000 / Math.max(...ms), 1000 / Math.min(...ms)]]));
  }

  log('heads-needed training: memory of the full grid, ten grids ...');
  res.memory = gridMemory(hw);
  return res;
}

export function headsTable(res) {
  const impls = Object.keys(res.median);
  const heads = Object.keys(res.median['wasm-node']).map(Number);
  const sps = (i, h) => (res.median[i]?.[h] ? 1000 / res.median[i][h] : null);
  const tfjsBest = (h) => Math.max(...['tfjs-wasm', 'tfjs-cpu'].map((i) => sps(i, h) ?? 0));
  const ratio = (a, b) => (a && b ? `${(a / b).toFixed(1)}x` : '-');
  const s = res.settings;
  const lines = [
    `| model (${res.relations.join(' + ')}, d_model ${s.dModel}, batch ${s.batchSize} x ${s.seqLen}) | ` +
      `${impls.map((i) => `${i} steps/s`).join(' | ')} | wasm-node / fastest tfjs | wasm-node / pytorch |`,
    `|---|${impls.map(() => '---').join('|')}|---|---|`
  ];
  for (const h of heads) {
    lines.push(`| ${h} head${h > 1 ? 's' : ''} | ${impls.map((i) => {
      const v = sps(i, h);
      const [lo, hi] = res.spread[i]?.[h] ?? [];
      return v ? `${v.toFixed(0)} (${lo.toFixed(0)}–${hi.toFixed(0)})` : '-';
    }).join(' | ')} | ${ratio(sps('wasm-node', h), tfjsBest(h))} | ${ratio(sps('wasm-node', h), sps('pytorch', h))} |`);
  }
  const m = res.memory;
  if (m) {
    const mb = (x) => (x < 2 ** 20 ? `${(x / 1024).toFixed(0)} KiB` : `${(x / 2 ** 20).toFixed(1)} MiB`);
    const peaks = m.grids.map((g) => g.peakUsedBytes);
    lines.push('');
    lines.push(`Memory, the full grid (${m.models} models alive at once, each stepped, evaluated ` +
      `with every head off, attention read), ${m.grids.length} grids in a row: malloc in use ` +
      `${mb(m.before.usedBytes)} before, peak ${mb(Math.min(...peaks))} to ${mb(Math.max(...peaks))}, ` +
      `after each grid ${[...new Set(m.grids.map((g) => mb(g.usedBytesAfter)))].join(' / ')}; ` +
      `WASM memory ${mb(m.before.heapBytes)} before, after each grid ` +
      `${[...new Set(m.grids.map((g) => mb(g.heapBytes)))].join(' / ')}.`);
  }
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const {flag, count} = commandLine();
    const res = await headsBench({rounds: count('rounds', 5), steps: count('steps', 100)});
    console.log(headsTable(res));
    if (flag('json')) console.log(JSON.stringify(res));
  });
}
