// The settings table (web/src/shared/state/settings.js) as the rest of the page reads it: every
// range against the module's own limits, the one limit of the relation list, the sections and
// the settings of the training sections (hash keys and embed attributes), the runs' options.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createHeadwise } from './helpers.mjs';
import {
  DEFAULTS, MAX_RELATIONS, SETTING, SETTINGS, embedNames, parseHash, rangeError, rangeOf, rangeProblem, runInputs,
  runOptions, settingsOf, toHash,
} from '../../web/src/shared/state/settings.js';
import { CONTROLS, controlName, parseAttribute } from '../../web/src/embed/attributes.js';
import { MAX_WORKERS } from '../../web/src/shared/compute/limits.js';
import { inductionSettings } from '../../web/src/train/induction.js';
import { translateError } from '../../web/src/shared/i18n/i18n-errors.js';

const hw = await createHeadwise();
const message = (f) => {
  try {
    f();
  } catch (e) {
    return e.message;
  }
  return 'no error';
};

test('every range names a limit the module gives, and holds its default', () => {
  const ranged = SETTINGS.filter((s) => s.range);
  assert.ok(ranged.length >= 10, `${ranged.length} ranged settings`);
  for (const s of ranged) {
    if (typeof s.range.max === 'string') assert.equal(typeof hw.limits[s.range.max], 'number', `${s.name}: hw.limits.${s.range.max}`);
    const r = rangeOf(s, hw.limits);
    assert.ok(r && r.min <= r.max && r.step === 1, `${s.name}: ${JSON.stringify(r)}`);
    if (s.default !== null) assert.ok(s.default >= r.min && s.default <= r.max, `${s.name}'s default ${s.default} in ${r.min} … ${r.max}`);
  }
  // Every number setting has one; a core limit is not known without the module.
  assert.deepEqual(SETTINGS.filter((s) => s.type === 'number' && !s.range).map((s) => s.name), []);
  assert.equal(rangeOf(SETTING.seed), null);
  assert.deepEqual(rangeOf(SETTING.seed, hw.limits), { min: 0, max: hw.limits.maxSeed, step: 1 });
  assert.deepEqual(rangeOf(SETTING.workers), { min: 1, max: MAX_WORKERS, step: 1 });
});

test('a seed out of range is refused with the range, as an Error that names its setting', () => {
  const max = hw.limits.maxSeed;
  for (const bad of [-1, max + 1, 1.5, null]) {
    assert.equal(rangeProblem(SETTING.inductionSeed, bad, hw.limits), `seed ${bad} is not allowed: use a whole number from 0 to ${max}`);
  }
  for (const good of [0, 1, max]) assert.equal(rangeProblem(SETTING.inductionSeed, good, hw.limits), null);
  const e = rangeError(SETTING.inductionSeed, -1, hw.limits);
  assert.deepEqual({ code: e.code, field: e.field, params: e.params }, { code: 'errors.setting.range', field: 'seed', params: { name: 'seed', value: '-1', min: 0, max } });
  assert.equal(e.message, rangeProblem(SETTING.inductionSeed, -1, hw.limits));
  assert.equal(rangeError(SETTING.inductionSeed, 3, hw.limits), null);
  // The induction section's settings refuse it so, and the page says it in each language.
  const thrown = (() => {
    try {
      inductionSettings(hw, -1);
    } catch (err) {
      return err;
    }
    return null;
  })();
  assert.equal(thrown && thrown.field, 'seed');
  assert.equal(thrown.message, 'seed -1 is not allowed: use a whole number from 0 to 4294967295');
  for (const lang of ['es', 'zh-CN']) assert.notEqual(translateError(thrown, lang), thrown.message, lang);
  assert.equal(inductionSettings(hw, 5).seed, 5);
});

test('the relation list has one limit: the grid\'s rows, which the module gives', () => {
  const d = hw.headsNeededDefaults();
  assert.equal(MAX_RELATIONS, d.gridRelations.length);
  assert.ok(MAX_RELATIONS <= d.maxRelations, 'a task of the grid is one the module trains');
  const names = hw.trainingRelations().map((r) => r.name);
  const most = names.slice(0, MAX_RELATIONS).join(',');
  assert.equal(parseHash(`heads_relations=${most}`).headsRelations, most);
  assert.equal(message(() => parseHash(`heads_relations=${names.slice(0, MAX_RELATIONS + 1).join(',')}`)),
    '"heads_relations" must be relation names separated by commas, such as previous,first,two-back');
});

test('the induction seed: its hash key read and written back, its attribute, its section', () => {
  assert.equal(DEFAULTS.inductionSeed, 1);
  const state = parseHash('#induction_seed=42&heads_seed=3&heads_relations=first,previous');
  assert.deepEqual([state.inductionSeed, state.headsSeed, state.headsRelations], [42, 3, 'first,previous']);
  const hash = toHash(state);
  assert.match(hash, /(^|&)induction_seed=42(&|$)/);
  assert.deepEqual(parseHash(hash), state);
  // Not a number: refused by the hash; a number out of range: kept, for the module to judge
  // (its message shown at the seed field, as for the other seeds).
  assert.equal(message(() => parseHash('induction_seed=abc')), '"induction_seed" is not a number');
  assert.equal(message(() => parseHash('induction_seed=1&induction_seed=2')), '"induction_seed" appears twice');
  assert.equal(parseHash('induction_seed=-1').inductionSeed, -1);
  // The embeds: the `induction-seed` attribute (any spelling of its control name).
  assert.deepEqual(CONTROLS.inductionSeed, { field: 'inductionSeed', id: 'induction-seed', attr: 'induction-seed', kind: 'number', panel: false });
  for (const spelling of ['inductionSeed', 'induction-seed', 'induction_seed']) assert.equal(controlName(spelling), 'inductionSeed');
  assert.deepEqual(parseAttribute(CONTROLS.inductionSeed, ' 9 '), { value: 9, error: null, problem: null });
  assert.deepEqual(parseAttribute(CONTROLS.inductionSeed, null), { value: 1, error: null, problem: null });
  const refused = parseAttribute(CONTROLS.inductionSeed, 'x').error;
  assert.equal(refused.message, 'induction-seed: "x" is not a number.');
  assert.deepEqual([refused.code, refused.field, refused.params.problem.code], ['errors.embed.attribute', 'inductionSeed', 'errors.embed.notNumber']);
  // Each training section's element offers its section's settings.
  assert.deepEqual(embedNames('induction'), ['inductionSeed']);
  assert.deepEqual(embedNames('heads'), ['headsRelations', 'headsSeed']);
  assert.deepEqual(embedNames('train'), ['trainSeed', 'trainTask']);
});

test('every setting has a section; the runs\' options come from the table', () => {
  const sections = new Set(['lesson', 'exercise1', 'exercise2', 'train', 'heads', 'induction', 'page']);
  for (const s of SETTINGS) assert.ok(sections.has(s.section), `${s.name}: ${s.section}`);
  assert.deepEqual(settingsOf('lesson').map((s) => s.name), SETTINGS.filter((s) => s.lesson).map((s) => s.name));
  assert.deepEqual(settingsOf('page').map((s) => s.name), ['lang', 'workers']);
  const state = { ...DEFAULTS, seed: 3, tokens: 6, dModel: 12, numHeads: 4, bias: true, ex1Seed: 99, inductionSeed: 8, trainTask: 'x' };
  assert.deepEqual(runOptions(state, 'experiment'), { seed: 3, tokens: 6, dModel: 12, numHeads: 4, bias: true, causal: false });
  assert.deepEqual(runOptions(state, 'ex1'), { tokens: 6, dModel: 12, bias: true, causal: false, seed: 99 });
  assert.deepEqual(runOptions(state, 'induction'), { seed: 8 });
  assert.deepEqual(runOptions(state, 'train'), { seed: 1, task: 'x' });
  assert.deepEqual(runInputs('ex1'), ['tokens', 'dModel', 'bias', 'causal', 'ex1Seed']);
  // The lesson's run takes exactly what seedExperiment documents.
  const result = hw.seedExperiment(runOptions(state, 'experiment'));
  assert.equal(result.headWeights.length, 4);
});
