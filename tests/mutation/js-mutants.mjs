// Runs Stryker on the JS layer with tests/mutation/stryker.config.json (or the config given as
// the first argument): `npm run test:mutation:js` (options below).
//
// Stryker 10's command-line entry refuses Node.js before 22 at start-up; this machine's Node is
// 20. Its programmatic API (the Stryker class) runs here, so it is called directly. The exit
// code is non-zero when the score is below the config's thresholds.break.
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// [config] [--mutate file:from-to,...] [--concurrency N]: --mutate narrows the run to those
// lines (Stryker's mutate ranges), e.g. to re-run part of a file after new tests.
const args = process.argv.slice(2);
const flagValue = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return null;
  const value = args[at + 1];
  if (value === undefined) throw new Error(`${name} needs a value`);
  args.splice(at, 2);
  return value;
};
const mutate = flagValue('--mutate');
const concurrency = flagValue('--concurrency');
const config = resolve(args[0] ?? join(ROOT, 'tests', 'mutation', 'stryker.config.json'));
const options = JSON.parse(readFileSync(config, 'utf8'));
delete options.$schema;
if (mutate) options.mutate = mutate.split(',');
if (concurrency) options.concurrency = Number(concurrency);
process.chdir(ROOT);
const core = join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'dist', 'src', 'stryker.js');
const {Stryker} = await import(pathToFileURL(core).href);
// Which group of tests killed each mutant (tests/mutation/js-suite.mjs writes it).
// Beside the config's JSON report, so that the api.js and store runs keep their own.
const out = dirname(resolve(ROOT, options.jsonReporter?.fileName ?? 'build/mutation/stryker/mutation.json'));
mkdirSync(out, {recursive: true});
process.env.HEADWISE_KILLED_BY = join(out, 'killed-by.txt');
writeFileSync(process.env.HEADWISE_KILLED_BY, '');
const results = await new Stryker(options).runMutationTest();
const counts = {};
for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
const survived = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
const score = (100 * killed) / (killed + survived);
const byGroup = new Map(readFileSync(process.env.HEADWISE_KILLED_BY, 'utf8').trim().split('\n')
  .filter(Boolean).map((line) => line.split(' ')));
const existing = results.filter((r) => r.status === 'Killed' && byGroup.get(r.id) === 'existing');
const timeouts = counts.Timeout ?? 0;
console.log(`js-mutants: ${JSON.stringify(counts)}`);
console.log(`js-mutants: score ${score.toFixed(1)} % of ${killed + survived} killable mutants ` +
            `(${killed} killed); the existing tests alone kill ${existing.length + timeouts} ` +
            `(${((100 * (existing.length + timeouts)) / (killed + survived)).toFixed(1)} %)`);
const floor = options.thresholds?.break ?? 0;
process.exitCode = score >= floor ? 0 : 1;
