// The sweep behind the "how many heads does a task need?" experiment (`npm run sweep:heads`):
// for D = 1 .. 4 relations (the first D of the experiment's grid order) and every head count
// (1, 2, 4, 8 at the same d_model, so the same parameter count), trains seeds 0 .. S-1 with the
// native trainer (build/native/train_sweep, the page's C++ code) and prints, per (D, h), how many
// seeds are solved (the worst relation's held-out accuracy >= solvedAccuracy) and the mean (and
// range) of the worst relation's held-out accuracy; then for how many seeds the whole grid shows
// the cliff (solved exactly where h >= D). Every setting defaults to the core's
// (headsNeededDefaults, printed by train_sweep --heads-needed-defaults); cpp/TRAINING.md
// holds this script's table for them. Every run is also written to build/train/heads-sweep.json.
//
//   node cpp/tools/heads_sweep.mjs [--seeds 20] [--steps N] [--dmodel N] [--seqlen N]
//       [--vocab N] [--batch N] [--lr X] [--eval N] [--relations a,b,c,d] [--heads 1,2,4,8]
//       [--jobs 2] [--json]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SWEEP = join(ROOT, 'build', 'native', 'train_sweep');

function coreDefaults() {
  if (!existsSync(SWEEP)) throw new Error(`${SWEEP} is missing: run npm run build:native first`);
  const r = spawnSync(SWEEP, ['--heads-needed-defaults'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`train_sweep --heads-needed-defaults failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function args(d) {
  const o = { seeds: 20, steps: d.steps, dmodel: d.dModel, seqlen: d.seqLen, vocab: d.vocab,
    batch: d.batchSize, lr: d.learningRate, eval: d.evalSize, solved: d.solvedAccuracy,
    relations: d.gridRelations.join(','), heads: d.headCounts.join(','), jobs: 2, json: false };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const key = a[i].replace(/^--/, '');
    if (!(key in o)) throw new Error(`unknown option ${a[i]}; the options are --${Object.keys(o).join(', --')}`);
    if (key === 'json') o.json = true;
    else o[key] = typeof o[key] === 'number' ? Number(a[++i]) : a[++i];
  }
  return o;
}

// One train_sweep process: every head count for one task and a range of seeds.
function run(relations, firstSeed, seeds, o) {
  const argv = [`relations=${relations.join(',')}`, o.heads, seeds, o.steps, o.dmodel, o.seqlen,
    o.vocab, o.batch, o.lr, 50, o.eval, firstSeed].map(String);
  return new Promise((resolve, reject) => {
    const child = spawn(SWEEP, argv);
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => { out += b; });
    child.stderr.on('data', (b) => { err += b; });
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`train_sweep failed: ${err}`));
      else resolve(out.trim().split('\n').map((line) => JSON.parse(line)));
    });
  });
}

// Runs every job, at most `jobs` at a time.
async function pool(tasks, jobs) {
  const results = new Array(tasks.length);
  let next = 0;
  async function worker() {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, worker));
  return results;
}

const worst = (r) => Math.min(...r.relationAccuracy);
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
const f2 = (x) => x.toFixed(2);

function table(runs, o, grid, heads) {
  const seeds = [...new Set(runs.map((r) => r.seed))].sort((a, b) => a - b);
  const cell = (D, h) => runs.filter((r) => r.relations === D && r.numHeads === h);
  const lines = [];
  lines.push(`Settings: d_model ${o.dmodel}, seq_len ${o.seqlen}, vocab ${o.vocab}, batch ` +
    `${o.batch}, Adam lr ${o.lr}, ${o.steps} steps, seeds ${seeds[0]}-${seeds[seeds.length - 1]}; ` +
    `held-out: ${o.eval} sequences per seed; solved: worst relation's held-out accuracy >= ` +
    `${o.solved}.`);
  lines.push('');
  lines.push(`| D relations | parameters | ${heads.map((h) => (h === 1 ? '1 head' : `${h} heads`)).join(' | ')} |`);
  lines.push(`|---|---|${heads.map(() => '---|').join('')}`);
  for (let D = 1; D <= grid.length; D++) {
    const cells = heads.map((h) => {
      const rs = cell(D, h);
      const w = rs.map(worst);
      const solved = w.filter((x) => x >= o.solved).length;
      return `${solved}/${rs.length} · ${f2(mean(w))} (${f2(Math.min(...w))}–${f2(Math.max(...w))})`;
    });
    lines.push(`| ${D} (${grid.slice(0, D).join(', ')}) | ${cell(D, heads[0])[0].parameters} | ` +
      `${cells.join(' | ')} |`);
  }
  // The cliff, seed by seed: solved exactly where h >= D, in every cell.
  const cliff = seeds.filter((s) => runs.filter((r) => r.seed === s)
    .every((r) => (worst(r) >= o.solved) === (r.numHeads >= r.relations)));
  const misses = seeds.filter((s) => !cliff.includes(s)).map((s) => {
    const off = runs.filter((r) => r.seed === s &&
      (worst(r) >= o.solved) !== (r.numHeads >= r.relations));
    return `seed ${s}: ${off.map((r) => `D ${r.relations}, ${r.numHeads} head${r.numHeads > 1 ? 's' : ''} ` +
      `${f2(worst(r))}`).join('; ')}`;
  });
  lines.push('');
  lines.push(`Cells: solved seeds / seeds · mean worst-relation held-out accuracy (min–max). ` +
    `The cliff (solved exactly where h >= D, all ${grid.length * heads.length} cells) holds for ` +
    `${cliff.length} of ${seeds.length} seeds${misses.length ? `; not for ${misses.join(' | ')}` : ''}.`);
  // When the solved cells got there: the first evaluation (every 50 steps) with worst >= solved.
  const reached = runs.filter((r) => r.numHeads >= r.relations).map((r) => {
    const i = r.worstCurve.findIndex((x) => x >= o.solved);
    return i < 0 ? Infinity : (i + 1) * r.every;
  });
  const sortedReached = [...reached].sort((a, b) => a - b);
  const q = (p) => sortedReached[Math.min(sortedReached.length - 1, Math.floor(p * sortedReached.length))];
  lines.push(`Cells with h >= D first reach the threshold (evaluated every 50 steps): median step ` +
    `${q(0.5)}, 90th percentile ${q(0.9)}, latest ${sortedReached[sortedReached.length - 1]}.`);
  return lines.join('\n');
}

const defaults = coreDefaults();
const o = args(defaults);
const grid = o.relations.split(',');
const heads = o.heads.split(',').map(Number);
// Jobs: one per (D, half of the seeds), so two cores stay busy.
const halves = o.jobs > 1 ? [[0, Math.ceil(o.seeds / 2)], [Math.ceil(o.seeds / 2), o.seeds]]
  : [[0, o.seeds]];
const jobs = [];
for (let D = 1; D <= grid.length; D++) {
  for (const [from, to] of halves) {
    if (to > from) {
      jobs.push(async () => (await run(grid.slice(0, D), from, to - from, o))
        .map((r) => ({ ...r, relations: D })));
    }
  }
}
const started = Date.now();
const runs = (await pool(jobs, o.jobs)).flat();
const out = join(ROOT, 'build', 'train');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'heads-sweep.json'), JSON.stringify({ options: o, runs }) + '\n');
if (o.json) console.log(JSON.stringify(runs));
else {
  console.log(table(runs, o, grid, heads));
  console.log(`(${runs.length} models in ${((Date.now() - started) / 1000).toFixed(0)} s of wall time, ${o.jobs} jobs)`);
}
