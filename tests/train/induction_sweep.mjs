// The sweep behind the induction experiment (`npm run sweep:induction`): trains seeds 0 .. S-1
// of the task "induction" with the native trainer (build/native/train_induction, the page's C++
// code), for the experiment's model (inductionDefaults(): layers x numHeads) and for one layer
// with each of compareHeadCounts at the same d_model, and prints per model how many seeds
// formed the induction head (held-out repeat accuracy >= formedAccuracy and a last-layer head
// with an induction score >= formedScore), the repeat accuracy (mean, range), the best scores,
// the step at which the head formed, and the repeat accuracy with the layer-0 previous-token
// head or the last layer's induction head switched off. Every setting defaults to the core's
// (train_induction --defaults); cpp/TRAINING.md holds this script's table for them. Every run
// is also written to build/train/induction-sweep.json. One process at a time.
//
//   node tests/train/induction_sweep.mjs [--seeds 20] [--steps N] [--dmodel N] [--seqlen N]
//       [--vocab N] [--batch N] [--lr X] [--eval N] [--every 50] [--json]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOOL = join(ROOT, 'build', 'native', 'train_induction');

function tool(argv) {
  if (!existsSync(TOOL)) throw new Error(`${TOOL} is missing: run npm run build:native first`);
  const r = spawnSync(TOOL, argv.map(String), { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`train_induction failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((line) => JSON.parse(line));
}

const d = tool(['--defaults'])[0];
const o = { seeds: 20, steps: d.steps, dmodel: d.dModel, seqlen: d.seqLen, vocab: d.vocab,
  batch: d.batchSize, lr: d.learningRate, eval: d.evalSize, every: 50, json: false };
const a = process.argv.slice(2);
for (let i = 0; i < a.length; i++) {
  const key = a[i].replace(/^--/, '');
  if (!(key in o)) throw new Error(`unknown option ${a[i]}; the options are --${Object.keys(o).join(', --')}`);
  if (key === 'json') o.json = true;
  else o[key] = Number(a[++i]);
}

const models = [[d.layers, d.numHeads], ...d.compareHeadCounts.map((h) => [1, h])];
const runs = [];
for (const [layers, heads] of models) {
  runs.push(...tool([layers, heads, o.seeds, o.steps, o.dmodel, o.seqlen, o.vocab, o.batch, o.lr,
    o.every, o.eval, 0]));
}

const max = (rows) => Math.max(...rows.flat());
const formed = (r) => r.repeatAccuracy >= d.formedAccuracy &&
  Math.max(...r.inductionScore[r.layers - 1]) >= d.formedScore;
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
const f2 = (x) => x.toFixed(2);
const range = (xs) => `${f2(mean(xs))} (${f2(Math.min(...xs))}–${f2(Math.max(...xs))})`;

console.log(`Settings: d_model ${o.dmodel}, seq_len ${o.seqlen}, vocab ${o.vocab}, batch ` +
  `${o.batch}, Adam lr ${o.lr}, ${o.steps} steps, seeds 0-${o.seeds - 1}; held-out: ${o.eval} ` +
  `sequences per seed; formed: repeat accuracy >= ${d.formedAccuracy} and a last-layer head's ` +
  `induction score >= ${d.formedScore}.\n`);
console.log('| model | parameters | formed | repeat accuracy | best previous-token score (layer 0) ' +
  '| best induction score (last layer) | step formed (median, latest) | previous-token head off ' +
  '| induction head off |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [layers, heads] of models) {
  const rs = runs.filter((r) => r.layers === layers && r.numHeads === heads);
  const steps = rs.filter(formed).map((r) => (r.curve.findIndex((acc) => acc >= d.formedAccuracy) + 1) * o.every)
    .filter((s) => s > 0).sort((x, y) => x - y);
  const when = steps.length ? `${steps[Math.floor(steps.length / 2)]}, ${steps[steps.length - 1]}` : '-';
  console.log(`| ${layers} layer${layers > 1 ? 's' : ''} × ${heads} heads | ${rs[0].parameters} | ` +
    `${rs.filter(formed).length}/${rs.length} | ${range(rs.map((r) => r.repeatAccuracy))} | ` +
    `${range(rs.map((r) => max(r.previousTokenScore.slice(0, 1))))} | ` +
    `${range(rs.map((r) => Math.max(...r.inductionScore[layers - 1])))} | ${when} | ` +
    `${range(rs.map((r) => r.withoutPreviousHead))} | ${range(rs.map((r) => r.withoutInductionHead))} |`);
}
mkdirSync(join(ROOT, 'build', 'train'), { recursive: true });
writeFileSync(join(ROOT, 'build', 'train', 'induction-sweep.json'), JSON.stringify(runs) + '\n');
if (o.json) console.log(JSON.stringify(runs));
