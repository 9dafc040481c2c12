// The sweep behind the training section's defaults (`npm run sweep`): trains 1-, 2- and 4-head
// models on many seeds with the native trainer (build/native/train_sweep, the page's C++ code)
// and prints, per task and head count, how many seeds solve the task, how soon, how sharply the
// heads focus, and what switching each head off does. The table in cpp/TRAINING.md is this
// script's output; every run's numbers are also written to build/train/sweep.json.
//
//   node cpp/tools/sweep.mjs [--seeds 20] [--steps 600] [--dmodel 8] [--seqlen 8]
//                              [--vocab 16] [--batch 64] [--lr 0.01] [--tasks a,b] [--json]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SWEEP = join(ROOT, 'build', 'native', 'train_sweep');

// A run solves the task when every relation's held-out accuracy is at least this.
const SOLVED = 0.95;
// A head serves a relation when its mean weight on that relation's source is at least this.
const FOCUSED = 0.9;
// Switching a serving head off must cost its relation at least this much accuracy, and cost the
// other relation at most NEARLY_INTACT.
const DROP = 0.3;
const NEARLY_INTACT = 0.05;

function args() {
  const o = { seeds: 20, steps: 600, dmodel: 8, seqlen: 8, vocab: 16, batch: 64, lr: 0.01,
    tasks: 'previous-and-first,previous-and-two-back', heads: '1,2,4', json: false };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const key = a[i].replace(/^--/, '');
    if (!(key in o)) throw new Error(`unknown option ${a[i]}`);
    if (key === 'json') o.json = true;
    else o[key] = typeof o[key] === 'number' ? Number(a[++i]) : a[++i];
  }
  return o;
}

function run(task, o) {
  if (!existsSync(SWEEP)) throw new Error(`${SWEEP} is missing: run npm run build:native first`);
  const r = spawnSync(SWEEP, [task, o.heads, o.seeds, o.steps, o.dmodel, o.seqlen, o.vocab,
    o.batch, o.lr, 50].map(String), { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`train_sweep failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((line) => JSON.parse(line));
}

// For each relation: the head that focuses on it most, its focus, and what switching it off
// does to this relation and to the others.
function analyse(run) {
  const R = run.relationAccuracy.length;
  const relations = [];
  for (let r = 0; r < R; r++) {
    let best = 0;
    run.headFocus.forEach((f, h) => { if (f[r] > run.headFocus[best][r]) best = h; });
    const off = run.ablations[best];
    const others = [...Array(R).keys()].filter((o) => o !== r);
    relations.push({
      head: best,
      focus: run.headFocus[best][r],
      drop: run.relationAccuracy[r] - off[r],
      otherDrop: Math.max(0, ...others.map((o) => run.relationAccuracy[o] - off[o]))
    });
  }
  const solved = run.relationAccuracy.every((a) => a >= SOLVED);
  const distinct = new Set(relations.map((x) => x.head)).size === R;
  const specialised = run.numHeads >= 2 && solved && distinct &&
    relations.every((x) => x.focus >= FOCUSED && x.drop >= DROP && x.otherDrop <= NEARLY_INTACT);
  const firstSolved = run.curve.findIndex((a) => a >= SOLVED);
  return {
    solved, specialised, relations,
    stepsTo95: firstSolved < 0 ? null : (firstSolved + 1) * run.every
  };
}

const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
const f2 = (x) => x.toFixed(2);
// Step budgets the table reports: a third, two thirds and all of the steps (multiples of 50).
const budgets = (o) => [1, 2, 3].map((k) => Math.round((o.steps * k) / 3 / 50) * 50);

function table(results, o) {
  const lines = [];
  lines.push(`Settings: d_model ${o.dmodel}, seq_len ${o.seqlen}, vocab ${o.vocab}, batch ` +
    `${o.batch}, Adam lr ${o.lr}, ${o.steps} steps, seeds 0-${o.seeds - 1}; held-out: 256 ` +
    'sequences per seed.');
  lines.push('');
  lines.push('| task | heads | parameters | solved | held-out accuracy (per relation) | ' +
    'held-out loss | held-out accuracy ≥ 95 % by step ' +
    `${budgets(o).join(' / ')} | head focus (mean, per relation) | ` +
    'specialised | switching the serving head off (mean accuracy drop: own / other) |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const { task, runs } of results) {
    const byHeads = new Map();
    runs.forEach((r) => {
      if (!byHeads.has(r.numHeads)) byHeads.set(r.numHeads, []);
      byHeads.get(r.numHeads).push(r);
    });
    for (const [heads, rs] of byHeads) {
      const an = rs.map(analyse);
      const R = rs[0].relationAccuracy.length;
      const acc = [...Array(R).keys()].map((r) => f2(mean(rs.map((x) => x.relationAccuracy[r]))));
      const focus = [...Array(R).keys()].map((r) => f2(mean(an.map((a) => a.relations[r].focus))));
      const reached = budgets(o).map((b) =>
        an.filter((a) => a.stepsTo95 !== null && a.stepsTo95 <= b).length).join(' / ');
      const drops = [...Array(R).keys()].map((r) =>
        `${f2(mean(an.map((a) => a.relations[r].drop)))} / ` +
        `${f2(mean(an.map((a) => a.relations[r].otherDrop)))}`);
      lines.push(`| ${task} | ${heads} | ${rs[0].parameters} | ` +
        `${an.filter((a) => a.solved).length}/${rs.length} | ${acc.join(' / ')} | ` +
        `${mean(rs.map((x) => x.loss)).toPrecision(3)} | ${reached} | ` +
        `${heads === 1 ? 'split ' : ''}${focus.join(' / ')} | ` +
        `${heads === 1 ? '-' : `${an.filter((a) => a.specialised).length}/${rs.length}`} | ` +
        `${drops.join('; ')} |`);
    }
  }
  return lines.join('\n');
}

const o = args();
const results = o.tasks.split(',').map((task) => ({ task, runs: run(task, o) }));
const out = join(ROOT, 'build', 'train');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'sweep.json'), JSON.stringify({ options: o, results }) + '\n');
if (o.json) console.log(JSON.stringify(results));
else console.log(table(results, o));
