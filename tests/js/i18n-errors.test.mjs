// Errors shown in the reader's language (web/src/shared/i18n/i18n-errors.js): every error is a code,
// a field and parameters (the module's HeadwiseError, the page's PageError), and the page writes it
// from each catalogue by its code, never by reading its message.
// - Every code the module can raise (cpp/api.d.ts lists them; the C++ core and cpp/api.js raise
//   only those) and every code the page raises has its sentence in English, Spanish and Chinese,
//   whose placeholders are among the parameters the code carries.
// - Every error the page can show for bad input, made here as the page makes it (the real module
//   for the settings, exercises and training; the store for links and the main thread's budget; the
//   embed's attribute readers; the training sections' readers; the course platform's adapter), is
//   coded and renders in each language; its English is the message the module or the page wrote.
// - An error raised in C++ for a bad layers, seed, vocab or numHeads reaches the control of that
//   field, translated.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { LESSON, ROOT, createHeadwise, documentedCodes } from './helpers.mjs';
import { installTasks } from '../../web/src/shared/compute/lesson-tasks.js';
import { Compute } from '../../web/src/shared/compute/compute.js';
import { MAIN_BUDGET_MS } from '../../web/src/shared/compute/cost.js';
import { checkWorkers } from '../../web/src/shared/compute/pool.js';
import { Store } from '../../web/src/shared/state/store.js';
import { parseHash } from '../../web/src/shared/state/settings.js';
import { PageError, controlFor, errorOf, fieldsOf, stopped } from '../../web/src/shared/state/errors.js';
import { parseNumberField } from '../../web/src/shared/ui/forms.js';
import { CONTROLS, NAMES, controlName, parseAttribute, parseList, themeProblem } from '../../web/src/embed/attributes.js';
import { gridSettings, parseProbe, parseRelations } from '../../web/src/train/grid.js';
import { inductionSettings, parseInductionProbe } from '../../web/src/train/induction.js';
import { resolveSettings } from '../../web/src/train/session.js';
import { Lms } from '../../web/src/shared/platform/lms.js';
import { t } from '../../web/src/shared/i18n/i18n.js';
import { PSEUDO } from '../../web/src/shared/i18n/language-tags.js';
import { isCoded, keyOfCode, translateError } from '../../web/src/shared/i18n/i18n-errors.js';

const hw = await createHeadwise();
const tasks = installTasks(hw);
const LANGS = ['en', 'es', 'zh-CN'];
const CATALOGUES = Object.fromEntries(LANGS.map((l) => [l, JSON.parse(readFileSync(join(ROOT, 'web', 'i18n', `${l}.json`), 'utf8'))]));
const CODES = documentedCodes();

/** What `f` throws. */
function thrown(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error(`${f} did not throw`);
}

/** A catalogue value's placeholders. */
const placeholders = (value) => new Set([...JSON.stringify(value).matchAll(/\{(\w+)\}/g)].map((m) => m[1]));

/** Every error, by where the page shows it. @type {[string, any][]} */
const ERRORS = [];
const add = (where, error) => ERRORS.push([where, error]);

// The settings and the exercises, through the module as the page calls it (lesson-tasks.js).
for (const [field, values] of Object.entries({
  seed: [1.5, -1, 4294967296, 1e308], tokens: [2.5, 0, -3, 2049, 1e9], dModel: [8.5, 0, -8, 4096, 1e9], numHeads: [1.5, 0, -2, 3, 1e6],
})) {
  for (const v of values) add(`settings: ${field} ${v}`, thrown(() => tasks.lessonRun({ ...LESSON, bias: false, causal: false, [field]: v })));
}
add('settings: the memory bound', thrown(() => tasks.lessonRun({ seed: 7, tokens: 2048, dModel: 2048, numHeads: 2048, bias: false, causal: false })));
for (const seed of [0.5, -7]) {
  add(`exercise 1: seed ${seed}`, tasks.seedsRun({ seed, tokens: 5, dModel: 8, headCounts: [2, 4], bias: false, causal: false })[0].error);
}
for (const o of [{ embedDim: 12.5, numHeads: 1 }, { embedDim: -4, numHeads: 1 }, { embedDim: 1e9, numHeads: 1 },
  { embedDim: 12, numHeads: 0 }, { embedDim: 12, numHeads: 2.5 }, { embedDim: 12, numHeads: 5 }]) {
  add(`exercise 2: ${JSON.stringify(o)}`, thrown(() => hw.parameterCount({ ...o, bias: false })));
}
// The empty and unreadable fields (src/shared/ui/forms.js parseNumberField).
for (const input of [{ value: ' ', validity: { badInput: false } }, { value: '', validity: { badInput: true } }, { value: '1e', validity: {} }]) {
  add(`a field holding ${JSON.stringify(input.value)}`, parseNumberField(/** @type {any} */ (input)).problem);
}
// Links the store cannot read (tests/browser/bad-input.test.mjs), as the notice says them.
const links = ['#%%%', '#seed=abc', '#tokens=', '#seed=Infinity', '#heads=1e400', '#seed=1&seed=2', '#bias=2', '#query=-1',
  '#label.4096=x', '#nonsense', `#${'x'.repeat(70000)}`, '#train_task=Previous', '#heads_relations=a;b', '#lang=es_MX', '#lang=<b>',
  `#${'k'.repeat(50)}=1`, '#"quoted"=1', '#workers=9'];
{
  const saved = { window: globalThis.window, document: globalThis.document };
  try {
    globalThis.document = /** @type {any} */ ({ getElementById: () => null });
    for (const hash of links) {
      globalThis.window = /** @type {any} */ ({ location: { hash } });
      const store = new Store({ syncHash: false, compute: /** @type {any} */ ({}) });
      store.readHash();
      assert.ok(store.notice, hash.slice(0, 40));
      add(`link ${hash.slice(0, 30)}`, store.notice);
    }
  } finally {
    globalThis.window = saved.window;
    globalThis.document = saved.document;
  }
}
// The main thread's budget, with every reason the page gives for computing there.
const REASONS = [['errors.worker.notAsked'], ['errors.worker.cannot'], ['errors.worker.noSource'], ['errors.worker.failed', { error: 'SecurityError: blocked' }],
  ['errors.worker.timeout'], ['errors.worker.csp'], ['errors.worker.moduleFailed', { error: 'CompileError: x' }], ['errors.worker.moduleRestart', { error: 'x' }], ['errors.worker.restart']];
for (const [code, params] of REASONS) {
  const store = new Store({ syncHash: false, compute: /** @type {any} */ ({ mode: 'main', reason: new PageError(code, params) }) });
  add(`main thread: ${code}`, store.mainBudget(MAIN_BUDGET_MS * 30, { tokens: 512, dModel: 768 }));
}
// compute.js codes its own errors without the catalogues: their English must be the catalogue's.
{
  const c = new Compute({ worker: false, factory: () => createHeadwise });
  c.start();
  add('main thread: as compute.js says it', c.reason);
  const store = new Store({ syncHash: false, compute: /** @type {any} */ ({ mode: 'main', reason: c.reason }) });
  add('main thread: compute.js\'s reason in the budget', store.mainBudget(MAIN_BUDGET_MS * 30, { tokens: 512, dModel: 768 }));
  const job = c.run('seedExperiment', { ...LESSON, bias: false, causal: false });
  c.dispose();
  add('a Worker that was closed', await job.then(() => null, (e) => e));
}
add('workers 9', thrown(() => checkWorkers('9')));
add('a Worker that stopped', new PageError('errors.worker.stopped', { reason: new PageError('errors.worker.died') }));

// The embed's attributes (src/embed/attributes.js).
add('attribute seed="abc"', parseAttribute(CONTROLS.seed, 'abc').error);
add('attribute query-token="x"', parseAttribute(CONTROLS.query, 'x').problem);
for (const p of parseList('seed,nope', NAMES, controlName, 'errors.embed.notControl').problems) add('attribute controls', p);
add('attribute theme', themeProblem('neon'));

// The training sections.
add('training: an unknown task', thrown(() => resolveSettings(hw, 'nope', 1)));
for (const seed of [-1, 1.5, 4294967296]) {
  add(`training: seed ${seed}`, thrown(() => hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed })));
  add(`training stopped: seed ${seed}`, stopped(thrown(() => hw.createTrainer({ relations: ['previous'], numHeads: 2, dModel: 16, seed }))));
}
for (const patch of [{ layers: 5 }, { vocab: 1 }, { numHeads: 3 }]) {
  add(`training: ${JSON.stringify(patch)}`, thrown(() => hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 1, ...patch })));
}
const catalogue = hw.trainingRelations();
for (const text of ['', 'previous,nope', 'first,first', 'previous,first,two-back,three-back,four-back']) add(`relations "${text}"`, thrown(() => parseRelations(text, catalogue)));
const grid = gridSettings(hw, 'previous', 1);
for (const text of ['AZB', 'A'.repeat(grid.seqLen + 1), '  ']) {
  const e = thrown(() => parseProbe(text, grid));
  add(`probe "${text}"`, e);
  add(`probe "${text}" shown`, new PageError('errors.probe.kept', { reason: errorOf(e), probe: 'ABCDEFGH' }));
}
add('a fifth relation', new PageError('errors.grid.notAdded', { name: 'third', max: 4 }));
add('the last relation', new PageError('errors.grid.keepOne'));
add('induction: seed -1', thrown(() => inductionSettings(hw, -1)));
const induction = inductionSettings(hw, 1);
for (const text of ['', 'A ZZ', 'A', Array(induction.seqLen + 1).fill(induction.tokenLabels[0]).join(' ')]) {
  const e = thrown(() => parseInductionProbe(text, induction));
  add(`induction probe "${text.slice(0, 10)}"`, e);
  add(`induction probe "${text.slice(0, 10)}" shown`, new PageError('errors.induction.kept', { reason: errorOf(e), probe: 'A B C' }));
}

// The course platform's adapter: a call the API lacks, one it refuses, one that throws.
const failures = [];
const api = (overrides) => Object.assign({
  LMSInitialize: () => 'true', LMSFinish: () => 'true', LMSGetValue: () => '', LMSSetValue: () => 'true', LMSCommit: () => 'true',
  LMSGetLastError: () => '0', LMSGetErrorString: () => '',
}, overrides);
for (const overrides of [{ LMSCommit: undefined }, { LMSCommit: () => 'false' }, { LMSCommit: () => 'false', LMSGetLastError: () => '101', LMSGetErrorString: () => 'General exception' },
  { LMSCommit: () => 'false', LMSGetLastError: () => '301' }, { LMSCommit: () => { throw new Error('lost connection'); } }]) {
  const lms = new Lms(api(overrides), '1.2', (f) => failures.push(f));
  lms.start();
  lms.commit();
}
assert.equal(failures.length, 5);
for (const f of failures) add(`course platform: ${f.call}`, f.reason);

/** The code files of a folder, recursively. */
function files(dir, ext) {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && e.name.endsWith(ext)).map((e) => join(e.parentPath ?? e.path, e.name));
}

test('every code the module can raise is documented, and has its sentence in every language', () => {
  const raised = new Set();
  for (const f of [...files(join(ROOT, 'cpp'), '.cpp'), ...files(join(ROOT, 'cpp'), '.hpp')]) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/Error\(\s*"(\w+)"/g)) raised.add(m[1]);
    for (const m of text.matchAll(/error_out\([^;]*?,\s*"(\w+)"/g)) raised.add(m[1]);
  }
  const apiJs = readdirSync(join(ROOT, 'cpp', 'api')).filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(ROOT, 'cpp', 'api', f), 'utf8')).join('\n');
  // The code: the first quoted word followed by the params ({…} or null) within the statement of
  // a fail( or coded( call (a statement ends at a semicolon at the end of its line).
  for (const m of apiJs.matchAll(/(?:fail|coded)\((?:[^;]|;(?!\n))*?, '(\w+)',\s*(?:\{|null)/g)) raised.add(m[1]);
  for (const m of apiJs.matchAll(/'(conflict|required)'/g)) raised.add(m[1]);
  assert.ok(raised.size >= 40, `${raised.size} codes raised`);
  assert.deepEqual([...raised].filter((c) => !CODES.has(c)), [], 'raised but not documented in cpp/api.d.ts');
  assert.deepEqual([...CODES.keys()].filter((c) => !raised.has(c)), [], 'documented but never raised');
  for (const [code, params] of CODES) {
    const key = keyOfCode(code);
    for (const lang of LANGS) {
      assert.ok(key in CATALOGUES[lang], `${lang} has ${key}`);
      const extra = [...placeholders(CATALOGUES[lang][key])].filter((p) => !params.has(p) && p !== 'field' && p !== 'path');
      assert.deepEqual(extra, [], `${lang} ${key}: placeholders the code does not carry`);
    }
    // Rendered with every parameter it documents: no placeholder is left unfilled.
    const error = { code, field: 'dModel', params: Object.fromEntries([...params, 'path'].map((p) => [p, `<${p}>`])) };
    for (const lang of [...LANGS, PSEUDO]) {
      const shown = translateError(error, lang);
      assert.ok(shown && !/\{\w+\}/.test(shown), `${code} in ${lang}: ${shown}`);
    }
  }
});

test('every code the page raises has its sentence in every language', () => {
  const named = new Set();
  for (const f of files(join(ROOT, 'web', 'src'), '.js')) {
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:PageError|coded|code:|problem)\(?\s*(?:[^'()]*\? )?'(errors\.[\w.]+)'(?: : '(errors\.[\w.]+)')?/g)) {
      named.add(m[1]);
      if (m[2]) named.add(m[2]);
    }
  }
  assert.ok(named.size >= 50, `${named.size} page codes`);
  for (const key of named) for (const lang of LANGS) assert.ok(key in CATALOGUES[lang], `${lang} has ${key}`);
});

test(`every error the page shows is coded and renders in every language, its English the message itself (${ERRORS.length} errors)`, () => {
  const problems = [];
  for (const [where, error] of ERRORS) {
    if (!isCoded(error)) {
      problems.push(`${where}: not coded: ${String(error)}`);
      continue;
    }
    const english = translateError(error, 'en');
    // The module's messages start with the method's name ("seedExperiment: …"); the page writes the rest.
    if (error.message !== english && !error.message.endsWith(`: ${english}`)) problems.push(`${where}: en says "${english}" for "${error.message}"`);
    for (const lang of ['es', 'zh-CN']) {
      const shown = translateError(error, lang);
      if (!shown || /\{\w+\}/.test(shown)) problems.push(`${where}: ${lang} "${shown}"`);
      const key = keyOfCode(error.code);
      if (CATALOGUES[lang][key] !== CATALOGUES.en[key] && shown === english) problems.push(`${where}: ${lang} is the English "${shown}"`);
    }
  }
  assert.deepEqual(problems, []);
});

test('in the pseudo-language each error is inside markers, the errors it quotes translated too', () => {
  const outside = (text) => {
    let depth = 0;
    let out = '';
    for (const ch of text) {
      if (ch === '⟦') depth += 1;
      else if (ch === '⟧') depth -= 1;
      else if (depth === 0) out += ch;
    }
    return out;
  };
  for (const [where, error] of ERRORS) {
    const shown = translateError(error, PSEUDO);
    assert.doesNotMatch(outside(shown), /\p{L}/u, `${where}: ${shown}`);
  }
  // A quoted error is a sentence of its own: the link notice holds the parse error's markers.
  const notice = ERRORS.find(([w]) => w.startsWith('link #seed=abc'))[1];
  assert.match(translateError(notice, PSEUDO), /^⟦This link's settings could not be read \(⟦"seed" is not a number⟧\), so/);
});

test('what has no code is shown as it is: in English, never blank', () => {
  for (const m of ['something new went wrong', new Error('a browser\'s own exception')]) {
    const text = m instanceof Error ? m.message : m;
    assert.equal(translateError(m, 'es'), text);
    assert.equal(translateError(m, PSEUDO), text);
  }
  assert.equal(translateError('', 'es'), '');
  assert.equal(translateError(null, 'es'), '');
  // A code no catalogue has: its message.
  assert.equal(translateError({ code: 'notACode', params: {}, message: 'as written' }, 'es'), 'as written');
});

test('a translated error keeps its numbers and names; a link\'s key is quoted as the student wrote it', () => {
  const e = thrown(() => hw.seedExperiment({ ...LESSON, dModel: 10, numHeads: 4 }));
  const shown = translateError(e, 'es');
  assert.equal(shown, t('errors.code.divisible', { field: 'd_model', value: '10', divisor: '4', divisorField: 'num_heads' }, 'es'));
  assert.match(shown, /d_model \(10\).*num_heads \(4\)/);
  assert.notEqual(shown, translateError(e, 'en'));
  assert.equal(thrown(() => parseHash('#x"y=1')).params.key, 'x"y');
});

test('a C++ error for a bad layers, seed, vocab or numHeads reaches the control of its field, translated', () => {
  const MAIN = ['seed', 'tokens', 'dModel', 'numHeads'];
  const trainer = (patch) => errorOf(thrown(() => hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed: 1, ...patch })));
  const cases = [
    // [error, settings passed to the failing call, the control it belongs to, what the sentence quotes]
    [errorOf(thrown(() => tasks.lessonRun({ ...LESSON, numHeads: 3, bias: false, causal: false }))), MAIN, 'num-heads', ['d_model', '8', 'num_heads', '3']],
    [errorOf(thrown(() => hw.parameterCount({ embedDim: 12, numHeads: 5 }))), ['ex2DModel', 'ex2Heads'], 'ex2-heads', ['embed_dim', '12', '5']],
    [errorOf(thrown(() => tasks.lessonRun({ ...LESSON, seed: -1, bias: false, causal: false }))), MAIN, 'seed', ['seed', '-1', '4294967295']],
    [tasks.seedsRun({ seed: -7, tokens: 5, dModel: 8, headCounts: [2], bias: false, causal: false })[0].error, ['ex1Seed', 'tokens', 'dModel'], 'ex1-seed', ['-7']],
    [trainer({ seed: 4294967296 }), ['trainSeed'], 'train-seed', ['seed', '4294967296']],
    [trainer({ seed: -1 }), ['headsSeed'], 'heads-seed', ['seed', '-1']],
    [trainer({ numHeads: 3 }), MAIN, 'num-heads', ['d_model', '8', 'num_heads', '3']],
    // No setting of the page is passed as layers or vocab (the tasks choose them): the section's
    // own error slot ('general') shows them.
    [trainer({ layers: 5 }), ['trainSeed'], 'general', ['layers', '5', '1', '4']],
    [trainer({ vocab: 300 }), ['headsSeed'], 'general', ['vocab', '300', '2', '256']],
  ];
  for (const [error, among, control, quoted] of cases) {
    const what = `${error.code} ${error.field}`;
    assert.equal(controlFor(error, among, null), control, what);
    const english = translateError(error, 'en');
    for (const lang of ['es', 'zh-CN']) {
      const shown = translateError(error, lang);
      assert.notEqual(shown, english, `${what}: ${lang} translates it`);
      for (const q of quoted) assert.ok(shown.includes(q), `${what}: ${lang} "${shown}" quotes ${q}`);
    }
  }
  // A field the error names beside its own (the divisor): the control just changed wins.
  const divisible = cases[0][0];
  assert.deepEqual(fieldsOf(divisible), ['numHeads', 'dModel']);
  assert.equal(controlFor(divisible, MAIN, 'd-model'), 'd-model');
  assert.equal(controlFor(divisible, MAIN, 'seed'), 'num-heads');
  assert.equal(trainer({ layers: 5 }).field, 'layers');
  assert.equal(trainer({ vocab: 300 }).field, 'vocab');
});
