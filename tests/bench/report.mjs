// The run's report: the forward's tables (plain text and Markdown), the scaling plot (SVG), the
// targets met or not, and results.json; also a recorded run printed again (--from).
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs';
import {join, resolve} from 'node:path';

import {benchDir, fmtMs, log, outDir, writeJson} from './common.mjs';
import {HEADS_GOALS} from './heads.mjs';
import {LOAD_GOALS} from './load.mjs';

const COLUMNS = [
  'native', 'native-baseline', 'wasm-node', 'wasm-node-api', 'wasm-chromium', 'wasm-chromium-api',
  'numpy', 'pytorch'
];
const HEADS = {
  'native': 'native',
  'native-baseline': 'baseline',
  'wasm-node': 'WASM node',
  'wasm-node-api': 'node API',
  'wasm-chromium': 'WASM chrom',
  'wasm-chromium-api': 'chrom API',
  'numpy': 'NumPy',
  'pytorch': 'PyTorch'
};

const fmtX = (x) => (x == null ? '-' : x.toFixed(2) + 'x');

const gf = (row, k) => (row.impls[k] ? row.impls[k].gflops.toFixed(1) : '-');

/** The forward's medians, ratios and rates per size, as plain text. */
export function table(results) {
  const lines = [];
  const head = [
    '(n, d, h)', ...COLUMNS.map((c) => HEADS[c]), 'wasm/base', 'nat/torch', 'nat/numpy',
    'GFLOP/s nat', 'chrom', 'torch'
  ];
  lines.push(head.map((x, i) => (i === 0 ? x.padEnd(14) : x.padStart(10))).join(' '));
  for (const row of results) {
    const [n, d, h] = row.size;
    const cells = [`(${n}, ${d}, ${h})`.padEnd(14)];
    for (const c of COLUMNS) cells.push(fmtMs(row.impls[c]?.median_ms).padStart(10));
    cells.push(fmtX(row.ratios.wasmNodeOverBaseline).padStart(10));
    cells.push(fmtX(row.ratios.nativeOverPytorch).padStart(10));
    cells.push(fmtX(row.ratios.nativeOverNumpy).padStart(10));
    for (const k of ['native', 'wasm-chromium', 'pytorch']) cells.push(gf(row, k).padStart(10));
    lines.push(cells.join(' '));
  }
  return lines.join('\n');
}

/** The same as a Markdown table (the README's). */
export function markdown(results) {
  const cols = COLUMNS.filter((c) => results.some((r) => r.impls[c]));
  const lines = [];
  const head = cols.map((c) => HEADS[c]).join(' | ');
  lines.push(`| (tokens, d_model, heads) | ${head} | WASM / native baseline (Node, Chromium) | ` +
    'native / PyTorch | native / NumPy | GFLOP/s (native, WASM Chromium, PyTorch) |');
  lines.push(`|---|${cols.map(() => '---:').join('|')}|---:|---:|---:|---:|`);
  for (const row of results) {
    const [n, d, h] = row.size;
    const r = row.ratios;
    const ms = cols.map((c) => fmtMs(row.impls[c]?.median_ms)).join(' | ');
    const wasm = `${fmtX(r.wasmNodeOverBaseline)}, ${fmtX(r.wasmChromiumOverBaseline)}`;
    const rates = ['native', 'wasm-chromium', 'pytorch'].map((k) => gf(row, k)).join(', ');
    lines.push(`| (${n}, ${d}, ${h}) | ${ms} | ${wasm} | ${fmtX(r.nativeOverPytorch)} | ` +
      `${fmtX(r.nativeOverNumpy)} | ${rates} |`);
  }
  return lines.join('\n');
}

/** Time against tokens, log-log, one line per implementation. */
export function scalingSvg(scaling) {
  const W = 640;
  const H = 400;
  const m = {l: 64, r: 170, t: 36, b: 48};
  const series = Object.keys(scaling.series);
  const all = series.flatMap((s) => scaling.series[s].map((p) => p.ms)).filter((x) => x > 0);
  const xmin = Math.log10(scaling.tokens[0]);
  const xmax = Math.log10(scaling.tokens[scaling.tokens.length - 1]);
  const ymin = Math.floor(Math.log10(Math.min(...all)));
  const ymax = Math.ceil(Math.log10(Math.max(...all)));
  const X = (t) => m.l + ((Math.log10(t) - xmin) / (xmax - xmin)) * (W - m.l - m.r);
  const Y = (ms) => H - m.b - ((Math.log10(ms) - ymin) / (ymax - ymin)) * (H - m.t - m.b);
  const colors = {
    'native': '#1b6ca8',
    'native-baseline': '#5fa8d3',
    'wasm-node': '#d1495b',
    'wasm-chromium': '#edae49'
  };
  const names = {
    'native': 'native (-march=native)',
    'native-baseline': 'native (x86-64 baseline)',
    'wasm-node': 'WASM (Node)',
    'wasm-chromium': 'WASM (Chromium)'
  };
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${
      H}" font-family="sans-serif" font-size="12">`);
  out.push(`<title>Multi-head attention forward: time against tokens (d_model ${scaling.dModel}, ${
      scaling.heads} heads, float64, one thread)</title>`);
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(
      `<text x="${m.l}" y="20" font-size="13" font-weight="bold">Forward time vs tokens (d_model ${
          scaling.dModel}, ${scaling.heads} heads, float64, 1 thread)</text>`);
  for (let e = ymin; e <= ymax; e++) {
    const y = Y(10 ** e);
    out.push(`<line x1="${m.l}" x2="${W - m.r}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${m.l - 6}" y="${y + 4}" text-anchor="end">${
        10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(-e)} ms</text>`);
  }
  for (const t of scaling.tokens) {
    const x = X(t);
    out.push(`<line x1="${x}" x2="${x}" y1="${m.t}" y2="${H - m.b}" stroke="#eee"/>`);
    out.push(`<text x="${x}" y="${H - m.b + 16}" text-anchor="middle">${t}</text>`);
  }
  out.push(`<text x="${(m.l + W - m.r) / 2}" y="${
      H - 12}" text-anchor="middle">tokens (log scale)</text>`);
  out.push(`<rect x="${m.l}" y="${m.t}" width="${W - m.l - m.r}" height="${
      H - m.t - m.b}" fill="none" stroke="#888"/>`);
  series.forEach((s, i) => {
    const pts = scaling.series[s].filter((p) => p.ms > 0);
    const c = colors[s] || '#555';
    out.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${
        pts.map((p) => `${X(p.tokens).toFixed(1)},${Y(p.ms).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts)
      out.push(`<circle cx="${X(p.tokens).toFixed(1)}" cy="${Y(p.ms).toFixed(1)}" r="3" fill="${
          c}"><title>${names[s] || s}: ${p.tokens} tokens, ${fmtMs(p.ms)} ms</title></circle>`);
    const ly = m.t + 14 + i * 20;
    out.push(`<line x1="${W - m.r + 12}" x2="${W - m.r + 32}" y1="${ly}" y2="${ly}" stroke="${
        c}" stroke-width="2"/>`);
    out.push(`<text x="${W - m.r + 38}" y="${ly + 4}">${names[s] || s}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** One target as printed: met or not against its limit, or for information. */
function targetLine(t) {
  const v = typeof t.value === 'number' ? t.value.toFixed(2) : t.value;
  if (t.note) return `  [${t.met ? 'met' : 'NOT met'}] ${t.name}: ${v} (target ${t.note})`;
  return t.limit === null ? `  [info] ${t.name}: ${v}`
                          : `  [${t.met ? 'met' : 'NOT met'}] ${t.name}: ${v} (target <= ${t.limit})`;
}

/** Every target the run's results reach: {name, value, limit (null: for information), met, note}. */
export function targets(res) {
  const at = (n, d, h) => (res.sizes || []).find((r) => r.size.join() === [n, d, h].join());
  const t = [];
  const add = (name, value, limit, met, note) => t.push({name, value, limit, met, note});
  const mid = at(128, 512, 8);
  const big = at(128, 768, 12);
  if (mid) {
    for (const [k, label] of [
             ['wasmNodeOverBaseline', 'Node'], ['wasmChromiumOverBaseline', 'Chromium']]) {
      const v = mid.ratios[k];
      if (v != null)
        add(`WASM (${label}, core) / native baseline at (128, 512, 8)`, v, 1.5, v <= 1.5);
    }
  }
  for (const row of [mid, big].filter(Boolean)) {
    for (const k of ['nativeOverPytorch', 'nativeOverNumpy']) {
      const v = row.ratios[k];
      if (v != null)
        add(`native / ${k.endsWith('Pytorch') ? 'PyTorch' : 'NumPy'} at (${row.size.join(', ')})`,
            v, 1.0, v <= 1.0);
    }
  }
  if (big) {
    for (const k of ['wasm-chromium', 'wasm-chromium-api']) {
      if (big.impls[k])
        add(`forward in headless Chromium (${
                k.endsWith('api') ? 'API' : 'core'}) at (128, 768, 12), ms`,
            big.impls[k].median_ms, 50, big.impls[k].median_ms <= 50);
    }
  }
  // multiHeadAttention at (128, 768, 12) at most 1.1 times the bare forward, into a previous
  // result's arrays and into new ones (which cost a page fault per 4 KB).
  const api = res.responsive?.api;
  if (api?.api_into_ratio != null)
    add('multiHeadAttention / bare forward at (128, 768, 12), {data, rows, cols}, into the previous result',
        api.api_into_ratio, 1.1, api.api_into_ratio <= 1.1);
  if (api?.api_typed_ratio != null)
    add('multiHeadAttention / bare forward at (128, 768, 12), {data, rows, cols}, new result arrays',
        api.api_typed_ratio, 1.1, api.api_typed_ratio <= 1.1);
  const u = res.page?.updates;
  if (u?.['128x768x12'])
    add('full page update at (128, 768, 12), ms', u['128x768x12'].median_work_ms, 200,
        u['128x768x12'].median_work_ms <= 200);
  if (u?.lesson)
    add('page update at lesson size (the change\'s task), ms', u.lesson.median_work_ms, 5,
        u.lesson.median_work_ms <= 5);
  // Each place the lesson-size update was timed: the change's task (what is in view), its CPU
  // time from a trace, and that task with the redraw of what is out of view after the frame.
  for (const [k, x] of Object.entries(u || {}).filter(([k]) => k.startsWith('lesson'))) {
    const where = k === 'lesson' ? 'lesson size' : k;
    if (x.p95_work_ms != null)
      add(`update at ${where}, the change's task, p95 of ${x.count}, ms`, x.p95_work_ms, 5, x.p95_work_ms <= 5);
    if (x.p95_cpu_ms != null)
      add(`update at ${where}, the change's task, main-thread CPU (trace), p95 of ${x.cpu_samples}, ms`,
          x.p95_cpu_ms, 5, x.p95_cpu_ms <= 5);
    if (x.p95_whole_ms != null)
      add(`update at ${where}, with the redraw out of view after the frame, p95 of ${x.count}, ms`,
          x.p95_whole_ms, 5, x.p95_whole_ms <= 5);
    if (x.full_update_cpu_ms)
      add(`update at ${where}, the whole update (recompute, render, layout; every task), main-thread CPU, p95 of ${
              x.full_update_samples}, ms`,
          x.full_update_cpu_ms.whole.p95, 5, x.full_update_cpu_ms.whole.p95 <= 5);
  }
  for (const r of (res.load?.tasks || []).filter((x) => x.build !== 'before')) {
    add(`first load at ${r.width} px from ${r.mode}: longest main-thread task (CPU, trace), median of ${r.loads}, ms`,
        r.cpuMedian, LOAD_GOALS.taskMs, r.cpuMedian <= LOAD_GOALS.taskMs);
  }
  for (const r of res.load?.switches || []) {
    add(`a switch of language to ${r.lang} at the switcher: longest main-thread task (CPU, trace), max of ${r.switches}, ms`,
        r.cpuMax, LOAD_GOALS.taskMs, r.cpuMax <= LOAD_GOALS.taskMs);
  }
  for (const r of (res.load?.lighthouse || []).filter((x) => x.build !== 'before')) {
    if (r.profile === 'mobile') {
      add('Lighthouse mobile: performance, median of 3', r.performance, null, r.performance >= LOAD_GOALS.performance,
          `>= ${LOAD_GOALS.performance}`);
      add('Lighthouse mobile: total blocking time, median of 3, ms', r.tbt, LOAD_GOALS.tbtMs, r.tbt <= LOAD_GOALS.tbtMs);
    }
    add(`Lighthouse ${r.profile}: accessibility and best practices, medians of 3`, `${r.accessibility} and ${r.bestPractices}`,
        null, r.accessibility >= LOAD_GOALS.accessibility && r.bestPractices >= LOAD_GOALS.bestPractices,
        `${LOAD_GOALS.accessibility} and ${LOAD_GOALS.bestPractices}`);
  }
  if (res.page?.page)
    add('the lesson page at first load, gzipped KB', res.page.page.gzip / 1000, 100,
        res.page.page.gzip <= 100000);
  if (res.page?.training)
    add('the training section loaded on demand, gzipped KB (not part of the first load)',
        res.page.training.gzip / 1000, null, true);
  if (res.trainPage) {
    const tp = res.trainPage;
    add('training section: default demo to its verdict, Chromium on one core, s', tp.verdictMs / 1000, 10,
        tp.verdictMs <= 10000);
    add('training section: drawing per frame while training, p95 ms', tp.drawP95, 8, tp.drawP95 <= 8);
    add('training section: CPU to its verdict (one core: about the wall time), s', tp.cpuToVerdictMs / 1000, 10,
        tp.cpuToVerdictMs <= 10000);
    add('training section: longest main-thread task while training (CPU), ms', tp.mainTaskCpuMax, 50,
        tp.mainTaskCpuMax <= 50);
    add('training section: longest main-thread task while training (wall clock), ms', tp.longestTaskMs, 50,
        tp.longestTaskMs <= 50);
  }
  if (res.headsPage) {
    for (const [k, label] of [['default', 'the default experiment'], ['grid', 'the full grid']]) {
      const ms = res.headsPage[k].medianMs;
      add(`How many heads: ${label}, click to last cell, Chromium on one core, s`, ms / 1000, HEADS_GOALS[k],
          ms <= HEADS_GOALS[k] * 1000);
    }
  }
  if (res.heap)
    add('WASM heap across 10,000 recomputes', res.heap.flat ? 'flat' : 'grew', 'flat',
        res.heap.flat);
  if (res.heads) {
    // The goal is the WASM trainer at >= 2x the fastest TensorFlow.js backend's steps/s, written
    // as the inverse so that it reads like the other limits.
    for (const [h, ms] of Object.entries(res.heads.median['wasm-node'] || {})) {
      const tfjs = Math.max(...['tfjs-wasm', 'tfjs-cpu'].map((b) =>
        (res.heads.median[b]?.[h] ? 1000 / res.heads.median[b][h] : 0)));
      if (tfjs) {
        const v = tfjs / (1000 / ms);
        add(`heads-needed task, ${h} head${h > 1 ? 's' : ''}: fastest TensorFlow.js / WASM trainer, ` +
            'steps per second (the goal: WASM at least 2x)', v, 0.5, v <= 0.5);
      }
    }
    const m = res.heads.memory;
    if (m) {
      const flat = m.grids.every((g) => g.usedBytesAfter === m.before.usedBytes &&
          g.heapBytes === m.grids[0].heapBytes);
      add(`heads-needed full grid, ${m.grids.length} in a row: malloc back where it was, no WASM ` +
          'memory growth after the first', flat ? 'flat' : 'grew', 'flat', flat);
      add('heads-needed full grid: peak malloc in use, MiB', Math.max(...m.grids.map((g) =>
          g.peakUsedBytes)) / 2 ** 20, null, true);
    }
  }
  return t;
}


export function printTargets(list) {
  log('\nTargets:');
  for (const t of list) log(targetLine(t));
}

/** --from=FILE: a recorded run's tables and targets printed again, and its plot redrawn. */
export function printRecorded(file) {
  const res = JSON.parse(readFileSync(resolve(file), 'utf8'));
  if (res.sizes) {  // a --page-only run has none
    log(table(res.sizes));
    log('');
    log(markdown(res.sizes));
  }
  printTargets(targets(res));
  if (res.scaling) writeFileSync(join(outDir, 'scaling.svg'), scalingSvg(res.scaling));
}

/**
 * The whole run's targets printed; build/bench/results.json, table.md (and scaling.svg, written
 * by the forward section); with record, also the committed copies in tests/bench/.
 */
export function writeResults(res, {record}) {
  res.targets = targets(res);
  printTargets(res.targets);
  const written = writeJson('results.json', res);
  writeFileSync(join(outDir, 'table.md'), markdown(res.sizes) + '\n');
  log(`\nwrote ${written}, table.md${res.scaling ? ', scaling.svg' : ''}`);
  if (record) {
    copyFileSync(join(outDir, 'results.json'), join(benchDir, 'results.json'));
    if (res.scaling) copyFileSync(join(outDir, 'scaling.svg'), join(benchDir, 'scaling.svg'));
    log('recorded: tests/bench/results.json, tests/bench/scaling.svg');
  }
}
