// cpp/api.d.ts compiles under tsc --strict against code that uses every method, and declares
// exactly what the module has at run time.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { LESSON, ROOT, createHeadwise } from './helpers.mjs';

const DTS = join(ROOT, 'cpp', 'api.d.ts');
const DIST_DTS = join(ROOT, 'dist', 'headwise.d.ts');

test('tsc --noEmit --strict accepts the usage files (and rejects the marked misuse)',
  { timeout: 60000 }, async () => {
    // moduleDetection auto: types-global.ts has no import, so it is a script (a classic page).
    const args = ['--no-install', 'tsc', '--noEmit', '--strict', '--module', 'nodenext',
      '--target', 'es2022', '--moduleDetection', 'auto', 'tests/js/types-usage.ts',
      'tests/js/types-global.ts'];
    try {
      await promisify(execFile)('npx', args, { cwd: ROOT, timeout: 60000 });
    } catch (e) {
      assert.fail('tsc failed (exit ' + e.code + '):\n' + e.stdout + e.stderr);
    }
  });

// Property and method names of `interface name` in the declaration (with what it extends).
function declared(source, name) {
  const start = source.indexOf('  interface ' + name + ' ');
  assert.ok(start >= 0, 'interface ' + name + ' is declared');
  const body = source.slice(start, source.indexOf('\n  }\n', start));
  const names = new Set();
  for (const m of body.matchAll(/^ {4}(?:readonly )?(\w+)\??[:(]/gm)) names.add(m[1]);
  const base = /^ {2}interface \w+ extends (\w+)/.exec(body);
  if (base) for (const n of declared(source, base[1])) names.add(n);
  return names;
}

const sorted = (names) => [...names].sort();

test('the declaration names exactly the run-time API and result fields', async () => {
  const source = readFileSync(DTS, 'utf8');
  const hw = await createHeadwise();
  assert.deepEqual(sorted(declared(source, 'Headwise')), sorted(Object.keys(hw)));

  const r = hw.seedExperiment({ ...LESSON, bias: true });
  assert.deepEqual(sorted(declared(source, 'SeedExperimentResult')), sorted(Object.keys(r)));
  const W = { wq: r.wq, wk: r.wk, wv: r.wv, wo: r.wo };
  assert.deepEqual(sorted(declared(source, 'MhaResult')),
    sorted(Object.keys(hw.multiHeadAttention({ x: r.x, ...W, numHeads: 2 }))));
  const packed = hw.packLessonWeights({ ...W, bq: r.bq, bk: r.bk, bv: r.bv, bo: r.bo });
  assert.deepEqual(sorted(declared(source, 'PackLessonWeightsResult')),
    sorted(Object.keys(packed)));
  assert.deepEqual(sorted(declared(source, 'TorchMultiheadAttentionResult')),
    sorted(Object.keys(hw.torchMultiheadAttention({ embedDim: 8, numHeads: 2, ...packed,
      query: r.x, key: r.x, value: r.x }))));
  const table = hw.parameterCount({ embedDim: 8, numHeads: 2 });
  assert.deepEqual(sorted(declared(source, 'ParameterCountResult')), sorted(Object.keys(table)));
  assert.deepEqual(sorted(declared(source, 'TensorInfo')), sorted(Object.keys(table.tensors[0])));
  assert.deepEqual(sorted(declared(source, 'HeadPair')),
    sorted(Object.keys(hw.compareHeads({ headWeights: r.headWeights })[0])));
  assert.deepEqual(sorted(declared(source, 'HeapStats')), sorted(Object.keys(hw.heapStats())));
  assert.deepEqual(sorted(declared(source, 'Limits')), sorted(Object.keys(hw.limits)));
  assert.deepEqual(sorted(declared(source, 'TrainingRelation')),
    sorted(Object.keys(hw.trainingRelations()[0])));
  const heads = hw.headsNeededDefaults();
  assert.deepEqual(sorted(declared(source, 'HeadsNeededDefaults')), sorted(Object.keys(heads)));
  const trainer = hw.createTrainer({ relations: heads.relations, numHeads: 1, dModel: 4, seed: 0 });
  assert.deepEqual(sorted(declared(source, 'TrainerConfig')), sorted(Object.keys(trainer.config)));
  trainer.dispose();
  assert.deepEqual(sorted(declared(source, 'TrainingDefaults')),
    sorted(Object.keys(hw.trainingTasks()[0].defaults)));
  assert.deepEqual(sorted(declared(source, 'HeadCircuitsResult')),
    sorted(Object.keys(hw.headCircuits({ ...W, numHeads: 2 }))));
  const model = hw.textModel({ weights: readFileSync(join(ROOT, 'web', 'models', 'sotu.hwtm')) });
  assert.deepEqual(sorted(declared(source, 'ModelCircuits')), sorted(Object.keys(model.circuits())));
  const a = model.attribute({ text: 'the people of the united', position: 4 });
  assert.deepEqual(sorted(declared(source, 'TextAttribution')), sorted(Object.keys(a)));
  const p = model.promoted({ layer: 1, head: 0, word: 'states' });
  assert.deepEqual(sorted(declared(source, 'TextPromotedResult')), sorted(Object.keys(p)));
  assert.deepEqual(sorted(declared(source, 'TextPromotedWord')), sorted(Object.keys(p.promoted[0])));
  model.dispose();
});

test('the declared options are the options the module accepts', async () => {
  // The module lists its allowed options in the message for an unknown one.
  const source = readFileSync(DTS, 'utf8');
  const hw = await createHeadwise();
  const methods = {
    seedExperiment: 'SeedExperimentOptions',
    multiHeadAttention: 'MultiHeadAttentionOptions',
    torchMultiheadAttention: 'TorchMultiheadAttentionOptions',
    parameterCount: 'ParameterCountOptions',
    packLessonWeights: 'PackLessonWeightsOptions',
    compareHeads: 'CompareHeadsOptions',
    allclose: 'AllcloseOptions',
    maxAbsDiff: 'MaxAbsDiffOptions',
    createTrainer: 'CreateTrainerOptions',
    headCircuits: 'HeadCircuitsOptions'
  };
  const model = hw.textModel({ weights: readFileSync(join(ROOT, 'web', 'models', 'sotu.hwtm')) });
  const calls = Object.entries(methods).map(([method, options]) => [hw, method, options]);
  calls.push([model, 'attribute', 'TextAttributeOptions'], [model, 'promoted', 'TextPromotedOptions']);
  for (const [target, method, options] of calls) {
    let message = '';
    try {
      target[method]({ notAnOption: 1 });
    } catch (e) {
      message = e.message;
    }
    const allowed = /allowed options are (.*)$/.exec(message);
    assert.ok(allowed, method + ' lists its options: ' + message);
    assert.deepEqual(sorted(declared(source, options)), sorted(allowed[1].split(', ')), method);
  }
  model.dispose();
});

test('the build puts the declaration next to the module as dist/headwise.d.ts', (t) => {
  if (!existsSync(DIST_DTS)) {
    t.skip('dist/headwise.d.ts is not built yet');
    return;
  }
  assert.equal(readFileSync(DIST_DTS, 'utf8'), readFileSync(DTS, 'utf8'));
});
