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
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
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
// {heads: [ms per step of each sample]}.
export function nativeTrainBench(task, heads, steps, rounds) {
  const native = join(root, 'build', 'native', 'train_bench');
  if (!existsSync(native)) {
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
    const {flag, count} = commandLine();
    const res = await trainingBench({rounds: count('rounds', 5)});
    console.log(trainingTable(res));
    if (flag('json')) console.log(JSON.stringify(res));
  });
}
