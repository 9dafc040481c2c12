// Messages shown in the reader's language (web/src/shared/i18n/i18n-errors.js): every message the page
// can show for bad input is made here as the page makes it (the real module for the settings,
// exercises and training; the store for links and the main thread's budget; the embed's attribute
// readers; the training sections' readers; the course platform's adapter; the loaders), and each
// must be read by a pattern whose English, filled with what the message quotes, is the message
// itself. In the pseudo-language each comes out wholly inside its markers, quoted messages
// translated in turn. A message no pattern reads is shown as it is, in English.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { LESSON, ROOT, createHeadwise } from './helpers.mjs';
import { installTasks } from '../../web/src/shared/compute/compute-tasks.js';
import { MAIN_BUDGET_MS } from '../../web/src/shared/compute/compute.js';
import { Store } from '../../web/src/shared/state/store.js';
import { parseHash } from '../../web/src/shared/state/settings.js';
import { CONTROLS, NAMES, controlName, parseAttribute, parseList, themeProblem } from '../../web/src/embed/attributes.js';
import { gridSettings, parseProbe, parseRelations } from '../../web/src/train/grid.js';
import { resolveSettings } from '../../web/src/train/session.js';
import { Lms } from '../../web/src/shared/platform/lms.js';
import { PSEUDO, t } from '../../web/src/shared/i18n/i18n.js';
import { readError, translateError } from '../../web/src/shared/i18n/i18n-errors.js';

const hw = await createHeadwise();
const tasks = installTasks(hw);
const source = (path) => readFileSync(join(ROOT, 'web', 'src', path), 'utf8');

/** The message of what `f` throws. */
function thrown(f) {
  try {
    f();
  } catch (e) {
    return e.message;
  }
  throw new Error(`${f} did not throw`);
}

/** Every message, by where the page shows it. @type {[string, string][]} */
const MESSAGES = [];
const add = (where, message) => MESSAGES.push([where, message]);

// The settings and the exercises, through the module as the page calls it (compute-tasks.js).
for (const [field, values] of Object.entries({
  seed: [1.5, -1, 4294967296, 1e308], tokens: [2.5, 0, -3, 2049, 1e9], dModel: [8.5, 0, -8, 4096, 1e9], numHeads: [1.5, 0, -2, 3, 1e6],
})) {
  for (const v of values) add(`settings: ${field} ${v}`, thrown(() => tasks.lessonRun({ ...LESSON, bias: false, causal: false, [field]: v })));
}
add('settings: the memory bound', thrown(() => tasks.lessonRun({ seed: 7, tokens: 2048, dModel: 2048, numHeads: 2048, bias: false, causal: false })));
for (const seed of [0.5, -7]) {
  const blocks = tasks.seedsRun({ seed, tokens: 5, dModel: 8, headCounts: [2, 4], bias: false, causal: false });
  add(`exercise 1: seed ${seed}`, blocks[0].error || thrown(() => { throw new Error('no error'); }));
}
for (const [o, what] of [[{ embedDim: 12.5, numHeads: 1 }, 'd_model 12.5'], [{ embedDim: -4, numHeads: 1 }, 'd_model -4'], [{ embedDim: 1e9, numHeads: 1 }, 'd_model 1e9'],
  [{ embedDim: 12, numHeads: 0 }, 'heads 0'], [{ embedDim: 12, numHeads: 2.5 }, 'heads 2.5'], [{ embedDim: 12, numHeads: 5 }, 'heads 5']]) {
  add(`exercise 2: ${what}`, thrown(() => hw.parameterCount({ ...o, bias: false })));
}
// The empty and unreadable fields (src/shared/ui/forms.js parseNumberField).
const fieldProblems = [...source('shared/ui/forms.js').matchAll(/'((?:Required: )?[Ee]nter a number\.)'/g)].map((m) => m[1]);
assert.equal(new Set(fieldProblems).size, 2);
for (const m of new Set(fieldProblems)) add('an empty or unreadable field', m);

// Links the store cannot read (tests/browser/bad-input.test.mjs), as the notice says them.
const links = ['#%%%', '#seed=abc', '#tokens=', '#seed=Infinity', '#heads=1e400', '#seed=1&seed=2', '#bias=2', '#query=-1',
  '#label.4096=x', '#nonsense', `#${'x'.repeat(70000)}`, '#train_task=Previous', '#heads_relations=a;b', '#lang=es_MX', '#lang=<b>',
  `#${'k'.repeat(50)}=1`, '#"quoted"=1'];
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
const computeSource = source('shared/compute/compute.js');
const reasons = [...computeSource.matchAll(/(?:_useMain|fallback)\((?:'((?:[^'\\]|\\.)+)'|`((?:[^`\\]|\\.)+)`)\)/g)]
  .map((m) => (m[1] ?? m[2]).replace(/\\'/g, '\'').replace(/\$\{[^}]+\}/g, 'SecurityError: blocked'));
assert.ok(reasons.length >= 9, `${reasons.length} reasons`);
assert.ok(reasons.some((r) => r.startsWith('the module\'s source')), 'reasons quoting an apostrophe too');
for (const reason of reasons) {
  const store = new Store({ syncHash: false, compute: /** @type {any} */ ({ mode: 'main', reason }) });
  add(`main thread: ${reason.slice(0, 30)}`, store.mainBudget(MAIN_BUDGET_MS * 30, '512 tokens at d_model 768'));
}
add('a Worker that stopped', `the computation stopped: ${computeSource.match(/_crashed\(e\.message \|\| '([^']+)'\)/)[1]}`);

// The embed's attributes (src/embed/attributes.js), each after its attribute's name as mha.js says it.
add('attribute seed="abc"', parseAttribute(CONTROLS.seed, 'abc').error);
add('attribute query-token="x"', parseAttribute(CONTROLS.query, 'x').problem);
for (const p of parseList('seed,nope', NAMES, controlName, 'a control').problems) add('attribute controls', `controls: ${p}`);
const formats = ['csv', 'json', 'png', 'py'];
for (const p of parseList('gif', formats, (w) => (formats.includes(w) ? w : null), 'a download format').problems) add('attribute exports', `exports: ${p}`);
add('attribute theme', `theme: ${themeProblem('neon')}`);

// The training sections.
add('training: an unknown task', thrown(() => resolveSettings(hw, 'nope', 1)));
for (const seed of [-1, 1.5, 4294967296]) {
  add(`training: seed ${seed}`, thrown(() => hw.createTrainer({ task: 'previous-and-first', numHeads: 2, dModel: 8, seed })));
  add(`training stopped: seed ${seed}`, `Training stopped: ${thrown(() => hw.createTrainer({ relations: ['previous'], numHeads: 2, dModel: 16, seed }))}`);
}
const catalogue = hw.trainingRelations();
for (const text of ['', 'previous,nope', 'first,first', 'previous,first,two-back,three-back,four-back']) add(`relations "${text}"`, thrown(() => parseRelations(text, catalogue)));
const grid = gridSettings(hw, 'previous', 1);
for (const text of ['AZB', 'A'.repeat(grid.seqLen + 1), '  ']) {
  const m = thrown(() => parseProbe(text, grid));
  add(`probe "${text}"`, m);
  add(`probe "${text}" shown`, `${m}. The tables keep the last good probe, ABCDEFGH.`);
}
const headsNeeded = source('train/hw-heads-needed.js');
add('a fifth relation', headsNeeded.match(/`("\$\{box\.value\}" not added: [^`]+)`/)[1].replace('${box.value}', 'third').replace('${MAX_RELATIONS}', '4'));
add('the last relation', headsNeeded.match(/'(choose at least one relation: [^']+)'/)[1]);

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

// Loading the modules and the training section (the loaders' own messages).
add('a module that failed to load', 'https://example.org/headwise/headwise-lesson.js could not be loaded');
for (const [file, re] of [['shared/compute/compute.js', /new Error\('(headwise\.js did not load[^']*)'\)/], ['shared/platform/module-loader.js', /new Error\('(headwise-lesson\.js loaded but [^']*)'\)/],
  ['train/module.js', /new Error\('(the module loaded for training [^']*)'\)/], ['train/loader.js', /new Error\('(train\.js loaded but (?:[^'\\]|\\.)*)'\)/]]) {
  add(file, source(file).match(re)[1].replace(/\\'/g, '\''));
}
add('train/module.js: no factory', `${'https://example.org/headwise/headwise.js'} loaded but did not define createHeadwise`);

test(`every message the page shows is read by a pattern and comes out of en.json unchanged (${MESSAGES.length} messages)`, () => {
  const problems = [];
  for (const [where, message] of MESSAGES) {
    const r = readError(message);
    if (!r) {
      problems.push(`${where}: no pattern reads "${message.slice(0, 160)}"`);
      continue;
    }
    const english = r.prefix ? t('errors.prefixed', { name: r.prefix.slice(0, -2), message: t(r.key, r.params) }) : t(r.key, r.params);
    if (english !== message) problems.push(`${where}: ${r.key} says "${english}" for "${message}"`);
    if (translateError(message, 'en') !== message) problems.push(`${where}: English is not the message itself`);
  }
  assert.deepEqual(problems, []);
});

test('in the pseudo-language each message is inside markers, the messages it quotes translated too', () => {
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
  for (const [where, message] of MESSAGES) {
    const shown = translateError(message, PSEUDO);
    assert.doesNotMatch(outside(shown), /\p{L}/u, `${where}: ${shown}`);
  }
  // A quoted message is a sentence of its own: the link notice holds the parse error's markers.
  const notice = MESSAGES.find(([w]) => w.startsWith('link #seed=abc'))[1];
  assert.match(translateError(notice, PSEUDO), /^⟦This link's settings could not be read \(⟦"seed" is not a number⟧\), so/);
});

test('a message no pattern reads is shown as it is: in English, never blank', () => {
  for (const m of ['something new went wrong', 'seedExperiment: x must be a matrix', 'a: b: c']) {
    assert.equal(readError(m), null, m);
    assert.equal(translateError(m, 'es'), m);
    assert.equal(translateError(m, PSEUDO), m);
  }
  assert.equal(translateError('', 'es'), '');
});

test('a translated message keeps its numbers and names, and the method or attribute it came from', () => {
  const m = 'seedExperiment: d_model (10) must be divisible by num_heads (4)';
  const es = JSON.parse(readFileSync(join(ROOT, 'web', 'i18n', 'es.json'), 'utf8'));
  assert.ok(es['errors.core.divisible'], 'es.json translates this message');
  const shown = translateError(m, 'es');
  assert.notEqual(shown, m);
  assert.equal(shown, `seedExperiment: ${t('errors.core.divisible', { name: 'd_model', value: '10', heads: '4' }, 'es')}`);
  assert.match(shown, /d_model \(10\).*num_heads \(4\)/);
  // A message parseHash gives names the key as the student wrote it, inside the sentence.
  assert.equal(readError(thrown(() => parseHash('#x"y=1'))).params.key, 'x"y');
});
