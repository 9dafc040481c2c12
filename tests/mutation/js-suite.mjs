// The node tests that exercise cpp/api.js, in one process: Stryker's command per mutant (one
// Node start-up instead of one per file). Exit code 1 when any test fails.
//
//   node tests/mutation/js-suite.mjs [existing|added|store|all]
//
// The tests come in two groups: those that were there before the mutation run
// (`existing`) and those written to kill its survivors (`added`). The configured command runs
// `existing`, then `added` only if `existing` passed, and each failing group appends
// "<mutant id> <group>" to the file named by HEADWISE_KILLED_BY ("<mutant id> survived" when
// the last group passes too), so one run gives the score before the added tests (mutants
// killed by `existing`) and after, and an interrupted run still tells how far it got.
import {appendFileSync} from 'node:fs';

const GROUPS = {
  // (typed, train and train-errors cover the typed-array forms and the training API, which
  // came after the first runs; train-native needs build/, which the sandboxes leave out.)
  existing: ['errors', 'fixtures', 'lesson', 'plain-results', 'typed', 'train', 'train-errors'],
  added: ['feature-check', 'api-contract'],
  // web/src/shared/state/store.js (tests/mutation/stryker-store.config.json): its own run.
  store: ['store'],
};
const group = process.argv[2] ?? 'all';
const names = group === 'all' ? [...GROUPS.existing, ...GROUPS.added] : GROUPS[group];
if (!names) {
  console.error(`js-suite: unknown group ${group}; use existing, added, store or all`);
  process.exit(2);
}
const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
const log = process.env.HEADWISE_KILLED_BY;  // set by tests/mutation/js-mutants.mjs
if (mutant !== undefined && log) {
  process.on('exit', (code) => {
    if (code !== 0 || process.exitCode) appendFileSync(log, `${mutant} ${group}\n`);
    else if (group !== 'existing') appendFileSync(log, `${mutant} survived\n`);
  });
}
for (const name of names) await import(`../js/${name}.test.mjs`);
