// Training steps per second (part of `npm run bench`; also `node tests/bench/train.mjs`):
// the default task's 1-, 2- and 4-head models (trainingTasks()[0].defaults), one Adam step
// each (batch draw, forward, backward, update), float64, one thread:
//
//   native         build/native/train_bench (the core, native preset: -O3, x86-64 baseline)
//   wasm-node      dist/headwise.js in Node: trainer.step(k)
//   wasm-chromium  the same in headless Chromium (/usr/bin/chromium), from file://
//   pytorch        tests/bench/train_python.py: the fixtures' PyTorch reference model, eager,
//                  torch.set_num_threads(1)
//
// Medians of `rounds` samples of `steps` steps each, after 20 warm-up steps, in CPU time (the
// machine may be shared): the thread's (native), process.cpuUsage (Node), the renderer main
// thread's ThreadTime from the DevTools protocol (Chromium), process_time (Python).
//
// `node tests/bench/train.mjs --before=DIR [--rounds=5] [--steps=100]` instead sets this tree's
// trainer against another build of it, DIR (a worktree of an earlier commit, after its
// `npm run build:wasm`, and `npm run build:native` for the native rows): see beforeAfterBench.
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {join, resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

import {
  benchDir, CHROMIUM, commandLine, headwise, isMain, launchChromium, median, outDir, playwright, root,
  runMain
} from './common.mjs';

const HEADS = [1, 2, 4];

// This process's CPU time, ms.
export const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function jsonLines(r, what) {
  if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
}

// build/native/train_bench (built if missing) for `task` (a preset's name or relations=a,b):
// {heads: [ms per step of each sample]}. tree: another tree's build of it (never built here).
export function nativeTrainBench(task, heads, steps, rounds, tree = root) {
  const native = join(tree, 'build', 'native', 'train_bench');
  if (!existsSync(native) && tree === root) {
    spawnSync('cmake', ['--preset', 'native'], {cwd: root, stdio: 'ignore'});
    spawnSync('cmake', ['--build', '--preset', 'native', '-j2', '--target', 'train_bench'],
        {cwd: root, stdio: 'inherit'});
  }
  return Object.fromEntries(jsonLines(spawnSync(native,
      [task, heads.join(','), steps, rounds].map(String), {encoding: 'utf8'}), 'train_bench')
      .map((x) => [x.numHeads, x.msPerStep]));
}

// tests/bench/train_python.py for `task` with settings d ({dModel, seqLen, vocab, batchSize,
// learningRate}): {heads: [ms per step of each sample]}, or null (and a note) without PyTorch.
export function pytorchTrainBench(task, heads, steps, rounds, d, log) {
  const py = spawnSync('/usr/bin/python3', [join(benchDir, 'train_python.py'), task,
    heads.join(','), String(steps), String(rounds)], {
    encoding: 'utf8',
    env: {...process.env, OMP_NUM_THREADS: '1', HW_D: String(d.dModel), HW_N: String(d.seqLen),
      HW_V: String(d.vocab), HW_B: String(d.batchSize), HW_LR: String(d.learningRate)}
  });
  if (py.status !== 0) {
    log(`note: PyTorch skipped: ${py.stderr.trim().split('\n').pop()}`);
    return null;
  }
  return Object.fromEntries(jsonLines(py, 'train_python.py').map((x) => [x.numHeads, x.msPerStep]));
}

// Node's loop: one trainer per head count (createTrainer's options but numHeads), warm-up,
// then samples: {heads: [ms per step of each sample]}.
export function timeTrainers(hw, options, heads, steps, rounds, now = cpuMs) {
  const out = {};
  for (const h of heads) {
    const t = hw.createTrainer({...options, numHeads: h, seed: 0});
    t.step(20);
    const ms = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = now();
      t.step(steps);
      ms.push((now() - t0) / steps);
    }
    t.dispose();
    out[h] = ms;
  }
  return out;
}

/** What a result records of a model's settings (and what train_python.py reads). */
export const trainSettings = (d) =>
  ({dModel: d.dModel, seqLen: d.seqLen, vocab: d.vocab, batchSize: d.batchSize, learningRate: d.learningRate});

/** {impl: {heads: [ms per step of each sample]}} -> {impl: {heads: median ms per step}} */
export const medians = (msPerStep) => Object.fromEntries(Object.entries(msPerStep).map(([impl, byHeads]) =>
  [impl, Object.fromEntries(Object.entries(byHeads).map(([h, ms]) => [h, median(ms)]))]));

export async function trainingBench({rounds = 5, steps = 100, log = console.log} = {}) {
  const hw = await headwise();
  const task = hw.trainingTasks()[0];
  const d = task.defaults;
  const res = {task: task.name, settings: trainSettings(d), steps, rounds, msPerStep: {}};

  log('training: native ...');
  res.msPerStep.native = nativeTrainBench(task.name, HEADS, steps, rounds);

  log('training: wasm-node ...');
  res.msPerStep['wasm-node'] = timeTrainers(hw, {task: task.name, dModel: d.dModel}, HEADS, steps,
      rounds);

  const chromium = existsSync(CHROMIUM) ? await playwright({optional: true}) : null;
  if (chromium) {
    log('training: wasm-chromium ...');
    mkdirSync(outDir, {recursive: true});
    const page = join(outDir, 'train.html');
    writeFileSync(page, '<!doctype html><meta charset="utf-8"><script src="' +
        pathToFileURL(join(root, 'dist', 'headwise.js')).href + '"></script>\n');
    const browser = await launchChromium(chromium);
    try {
      const p = await browser.newPage();
      await p.goto(pathToFileURL(page).href);
      // The renderer main thread's CPU time (the DevTools protocol's ThreadTime metric).
      const cdp = await p.context().newCDPSession(p);
      await cdp.send('Performance.enable');
      const threadMs = async () => 1000 *
          (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')
              .value;
      await p.evaluate('createHeadwise().then((hw) => { window.hw = hw; })');
      const out = {};
      for (const h of HEADS) {
        await p.evaluate(`window.t = hw.createTrainer({task: hw.trainingTasks()[0].name, ` +
            `numHeads: ${h}, dModel: hw.trainingTasks()[0].defaults.dModel, seed: 0}); ` +
            't.step(20);');
        out[h] = [];
        for (let r = 0; r < rounds; r++) {
          const t0 = await threadMs();
          await p.evaluate(`t.step(${steps}); 0`);
          out[h].push((await threadMs() - t0) / steps);
        }
        await p.evaluate('t.dispose()');
      }
      res.msPerStep['wasm-chromium'] = out;
    } finally {
      await browser.close();
    }
  }

  log('training: pytorch ...');
  const pytorch = pytorchTrainBench(task.name, HEADS, Math.max(20, steps >> 1), rounds, d, log);
  if (pytorch) res.msPerStep.pytorch = pytorch;

  res.median = medians(res.msPerStep);
  return res;
}

// ---- before and after: this tree's trainer against another build's, in one process ----------

// The models compared: the heads-needed experiment's default task with each head count, and the
// induction experiment's two-layer model (inductionDefaults()), each at its own defaults.
export function compareModels(hw) {
  const d = hw.headsNeededDefaults();
  const ind = hw.inductionDefaults();
  return [
    ...d.headCounts.map((h) => ({
      name: `heads-needed, ${h} head${h > 1 ? 's' : ''}`,
      options: {relations: d.relations, numHeads: h, dModel: d.dModel},
      native: {task: `relations=${d.relations.join(',')}`, heads: h}
    })),
    {
      name: `induction, ${ind.layers} layers x ${ind.numHeads} heads, d_model ${ind.dModel}`,
      options: {task: 'induction', layers: ind.layers, numHeads: ind.numHeads, dModel: ind.dModel}
    }
  ];
}

// True when two parameter sets (trainer.parameters()) hold the same doubles, bit for bit
// (Object.is tells -0 from 0).
function sameBits(a, b) {
  if (Array.isArray(a) || (a && typeof a === 'object')) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => sameBits(a[k], b[k]));
  }
  return Object.is(a, b);
}

// Each model in both modules, sample by sample alternately (the order flipping every round, so
// that a drift of the shared machine's load falls on both), after 20 warm-up steps each:
// {name: {before: [ms per step], after: [ms per step], ratios: [before ms / after ms, per round],
// sameBits}}. sameBits: every step's loss and the final parameters agree to the bit (both
// trainers start from the same seed and draw the same batches).
export function timeBeforeAfter(hwBefore, hwAfter, models, steps, rounds, now = cpuMs) {
  const out = {};
  for (const m of models) {
    const t = {before: hwBefore.createTrainer({...m.options, seed: 0}),
      after: hwAfter.createTrainer({...m.options, seed: 0})};
    const step = (k, n) => t[k].step(n).loss;
    let same = Object.is(step('before', 20), step('after', 20));
    const ms = {before: [], after: []};
    for (let r = 0; r < rounds; r++) {
      const losses = {};
      for (const k of r % 2 ? ['after', 'before'] : ['before', 'after']) {
        const t0 = now();
        losses[k] = step(k, steps);
        ms[k].push((now() - t0) / steps);
      }
      same = same && Object.is(losses.before, losses.after);
    }
    same = same && sameBits(t.before.parameters(), t.after.parameters());
    t.before.dispose();
    t.after.dispose();
    out[m.name] = {...ms, ratios: ms.before.map((b, i) => b / ms.after[i]), sameBits: same};
  }
  return out;
}

// The same for the native trainer: DIR's build/native/train_bench and this tree's, one sample
// each in turn (separate processes), for the models with a native form.
function nativeBeforeAfter(before, models, steps, rounds) {
  const out = {};
  for (const m of models.filter((x) => x.native)) {
    const ms = {before: [], after: []};
    for (let r = 0; r < rounds; r++) {
      for (const k of r % 2 ? ['after', 'before'] : ['before', 'after']) {
        ms[k].push(...nativeTrainBench(m.native.task, [m.native.heads], steps, 1,
            k === 'before' ? before : root)[m.native.heads]);
      }
    }
    out[m.name] = {...ms, ratios: ms.before.map((b, i) => b / ms.after[i])};
  }
  return out;
}

/**
 * This tree's trainer against the build in `before` (a directory holding dist/headwise.js, and
 * build/native/train_bench for the native rows), in one process: {wasm-node: {...}, native:
 * {...}} as timeBeforeAfter gives them.
 */
export async function beforeAfterBench({before, rounds = 5, steps = 100, log = console.log}) {
  const dir = resolve(before);
  const file = join(dir, 'dist', 'headwise.js');
  if (!existsSync(file)) throw new Error(`--before=${before}: no ${file} (npm run build:wasm there)`);
  const hwBefore = await createRequire(import.meta.url)(file)();
  const hwAfter = await headwise();
  const models = compareModels(hwAfter);
  const res = {before: dir, steps, rounds, models: {}};
  log(`training before/after: wasm-node against ${file} ...`);
  res.models['wasm-node'] = timeBeforeAfter(hwBefore, hwAfter, models, steps, rounds);
  if (existsSync(join(dir, 'build', 'native', 'train_bench'))) {
    log('training before/after: native ...');
    nativeTrainBench(models[0].native.task, [1], 1, 1);  // this tree's, built if missing
    res.models.native = nativeBeforeAfter(dir, models, steps, rounds);
  } else {
    log(`note: no ${join(dir, 'build', 'native', 'train_bench')}: native rows skipped`);
  }
  return res;
}

export function beforeAfterTable(res) {
  const lines = [
    `| model (steps/s, median of ${res.rounds} samples of ${res.steps} steps, range) | before | ` +
        'after | after / before (median of the rounds, range) | same bits |',
    '|---|---|---|---|---|'
  ];
  const sps = (ms) => `${(1000 / median(ms)).toFixed(0)} (${(1000 / Math.max(...ms)).toFixed(0)}–` +
      `${(1000 / Math.min(...ms)).toFixed(0)})`;
  for (const [impl, models] of Object.entries(res.models)) {
    for (const [name, m] of Object.entries(models)) {
      lines.push(`| ${impl}: ${name} | ${sps(m.before)} | ${sps(m.after)} | ` +
          `${median(m.ratios).toFixed(2)}x (${Math.min(...m.ratios).toFixed(2)}–` +
          `${Math.max(...m.ratios).toFixed(2)}) | ${m.sameBits === undefined ? '-' : m.sameBits ? 'yes' : 'NO'} |`);
    }
  }
  return lines.join('\n');
}

export function trainingTable(res) {
  const impls = Object.keys(res.median);
  const lines = [
    `| model (${res.task}, d_model ${res.settings.dModel}, batch ${res.settings.batchSize} x ` +
        `${res.settings.seqLen}) | ${impls.map((i) => `${i} steps/s`).join(' | ')} | ` +
        'wasm-node / pytorch | wasm-chromium / pytorch |',
    `|---|${impls.map(() => '---').join('|')}|---|---|`
  ];
  for (const h of HEADS) {
    const sps = (i) => (res.median[i]?.[h] ? 1000 / res.median[i][h] : null);
    const ratio = (i) => (sps(i) && sps('pytorch') ? (sps(i) / sps('pytorch')).toFixed(1) + 'x' : '-');
    lines.push(`| ${h} head${h > 1 ? 's' : ''} | ${
        impls.map((i) => (sps(i) ? sps(i).toFixed(0) : '-')).join(' | ')} | ${ratio('wasm-node')} | ${
        ratio('wasm-chromium')} |`);
  }
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const {flag, count, option} = commandLine();
    const before = option('before', null);
    if (before) {
      const res = await beforeAfterBench({before, rounds: count('rounds', 5), steps: count('steps', 100)});
      console.log(beforeAfterTable(res));
      if (flag('json')) console.log(JSON.stringify(res));
      const differ = Object.entries(res.models['wasm-node']).filter(([, m]) => !m.sameBits);
      if (differ.length) throw new Error(`not the same bits before and after: ${differ.map(([n]) => n).join(', ')}`);
      return;
    }
    const res = await trainingBench({rounds: count('rounds', 5)});
    console.log(trainingTable(res));
    if (flag('json')) console.log(JSON.stringify(res));
  });
}
