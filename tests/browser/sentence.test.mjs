// "Your own sentence": the text model's weights (dist/models/sotu.hwtm.js) are not fetched until
// the reader nears the section; then the student's sentence is read as the module reads it here in
// Node from dist/models/sotu.hwtm (the same dist/headwise.js, so the same numbers): every head's
// map (each row's strongest word), the words with the unknown ones marked, the five guesses at the
// chosen word with "<unk>" in words, the loss; each head labelled with its role from the weights'
// metadata (web/src/text/roles.js); a head switched off changes the guesses, the loss and the
// later layer's maps exactly as the module's ablated run says; a text of more words than the
// model reads gets a message and the last good sentence stays; each preset reads. The sum of
// paths (a bar per term, adding up to the logit), the circuits' scores, the K-composition table
// and a head's promoted words are the module's attribute, circuits and promoted. Typing does no
// main-thread task over GUARD_TASK_MS (Chromium's trace). The same from file://, under the strict
// CSP (http header) and in <iframe sandbox="allow-scripts"> (embed.html?widget=sentence).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DIST, ENGINE, GUARD_TASK_MS, PHONE, inEachLanguage, layoutProblems, mainThreadTaskCpu, reachSentence, shareBrowser, trainingPartServers,
  withCleanPage, withEmbed, withPage, withStrictCsp, waitLoaded,
} from './helpers.mjs';
import { headRoles } from '../../web/src/text/roles.js';
import { circuitsOutput, sentenceOutput } from '../../web/src/text/sentence-python.js';

const createHeadwise = createRequire(import.meta.url)(join(DIST, 'headwise.js'));
const hw = await createHeadwise();
const model = hw.textModel({ weights: new Uint8Array(readFileSync(join(DIST, 'models', 'sotu.hwtm'))) });
const C = model.config;
const META = /** @type {any} */ (model.metadata());
const ROLES = headRoles(META.heads, C.layers, C.numHeads);
const TIMEOUT = 240000;
const MODEL_SCRIPT = '/models/sotu.hwtm.js';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });
const servers = trainingPartServers('widget=sentence', 'Your own sentence');

/** Each row's strongest word (ties to the first), as the maps' data-argmax. @param {number[][]} w */
const argmax = (w) => w.map((row, i) => row.slice(0, i + 1).reduce((best, x, j) => (x > row[best] ? j : best), 0)).join(',');
/** @param {number} x */
const f2 = (x) => x.toFixed(2);

/** What the widget shows. @param {any} where */
function readWidget(where) {
  return where.$eval('hw-sentence', (el) => ({
    words: [...el.querySelectorAll('[data-testid="sentence-word"]')].map((b) => ({
      i: Number(b.getAttribute('data-i')), unknown: b.classList.contains('hw-unknown'), pressed: b.getAttribute('aria-pressed') === 'true',
    })),
    n: Number(/** @type {HTMLElement} */ (el).dataset.words),
    pos: Number(/** @type {HTMLElement} */ (el).dataset.pos),
    heads: [...el.querySelectorAll('[data-testid="sentence-head"]')].map((c) => ({
      index: Number(c.getAttribute('data-index')), role: c.getAttribute('data-role'), argmax: c.getAttribute('data-argmax'),
      label: c.querySelector('[data-testid="sentence-role"]')?.textContent || '',
      on: /** @type {HTMLInputElement} */ (c.querySelector('[data-testid="sentence-switch"]')).checked,
    })),
    guesses: [...el.querySelectorAll('[data-testid="sentence-guess-list"]')].map((ol) => ({
      which: ol.getAttribute('data-which'),
      items: [...ol.querySelectorAll('li')].map((li) => [li.getAttribute('data-word'), li.children[0].textContent, li.children[1].textContent]),
    })),
    loss: el.querySelector('[data-testid="sentence-loss"]')?.getAttribute('data-loss') || '',
    lossOff: el.querySelector('[data-testid="sentence-loss"]')?.getAttribute('data-off') || '',
    error: el.querySelector('[data-testid="sentence-error"]')?.hidden ? '' : el.querySelector('[data-testid="sentence-error"]')?.textContent || '',
    stale: el.hasAttribute('data-stale'),
    text: /** @type {HTMLTextAreaElement} */ (el.querySelector('#sentence-text')).value,
    python: el.querySelector('[data-testid="sentence-python-output"]')?.textContent || '',
    script: el.querySelector('[data-testid="sentence-python"]')?.textContent || '',
  }));
}

/**
 * Type `text` and wait until the widget shows it read.
 * @param {any} where
 * @param {string} text
 */
async function typeSentence(where, text) {
  const n = model.tokenize(text).words.length;
  await where.fill('#sentence-text', text);
  await where.waitForFunction(([n, text]) => {
    const el = /** @type {any} */ ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('hw-sentence'));
    return !el.hasAttribute('data-pending') && el.dataset.words === String(n) && el.result && el.result.text === text;
  }, [n, text]);
  return readWidget(where);
}

/**
 * The widget shows the module's run of `text` (with `ablate` off) at word `pos`.
 * @param {any} s  readWidget's
 * @param {string} text
 * @param {number[]} ablate
 */
function checkShows(s, text, ablate = []) {
  const base = model.run({ text });
  const off = ablate.length ? model.run({ text, ablate }) : null;
  const shown = off || base;
  const n = base.words.length;
  assert.equal(s.n, n, 'the words read');
  assert.deepEqual(s.words.map((w) => w.unknown), base.unknown, 'unknown words marked');
  assert.deepEqual(s.words.filter((w) => w.pressed).map((w) => w.i), [s.pos], 'the chosen word is pressed');
  assert.equal(s.heads.length, C.layers * C.numHeads, 'a map per head of every layer');
  for (const head of s.heads) {
    const l = Math.floor(head.index / C.numHeads);
    const k = head.index % C.numHeads;
    assert.equal(head.argmax, argmax(shown.attention[l][k]), `head ${head.index}'s map`);
    assert.equal(head.on, !ablate.includes(head.index), `head ${head.index}'s switch`);
  }
  const want = (/** @type {any} */ run) => run.predictions[s.pos].map((/** @type {any} */ g) => [g.word, g.word === '<unk>' ? '(an unknown word)' : g.word, f2(g.probability)]);
  assert.deepEqual(s.guesses.map((g) => g.which), off ? ['all', 'off'] : ['all']);
  assert.deepEqual(s.guesses[0].items, want(base), 'the guesses with every head');
  if (off) assert.deepEqual(s.guesses[1].items, want(off), 'the guesses with the heads off');
  // What the Python script prints: the page's run, switched-off heads as (layer, head).
  const pairs = ablate.map((i) => [Math.floor(i / C.numHeads), i % C.numHeads]);
  assert.equal(s.python, sentenceOutput(shown, pairs), 'the printout');
  assert.ok(s.script.includes(`TEXT = ${JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}`), 'the script reads the sentence');
  if (n > 1) {
    assert.equal(s.loss, String(base.loss), 'the loss');
    assert.equal(s.lossOff, off ? String(off.loss) : '', 'the loss with the heads off');
  }
}

/** The sum of paths and the circuits panel as the widget shows them. @param {any} where */
async function readCircuits(where) {
  await where.waitForSelector('hw-sentence[data-circuits]', { state: 'attached' });
  return where.$eval('hw-sentence', (el) => {
    const title = /** @type {HTMLElement} */ (el.querySelector('[data-testid="split-title"]'));
    const cells = (/** @type {Element} */ t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.getAttribute('data-value')));
    const list = /** @type {HTMLElement} */ (el.querySelector('[data-testid="promoted-list"]'));
    return {
      word: title.dataset.word, position: Number(title.dataset.position), logit: title.dataset.logit, probability: title.dataset.probability,
      title: title.textContent,
      parts: [...el.querySelectorAll('[data-testid="split-part"]')].map((li) => [li.getAttribute('data-part'), li.getAttribute('data-value')]),
      sum: /** @type {HTMLElement} */ (el.querySelector('[data-testid="split-sum"]')).dataset.sum,
      error: /** @type {HTMLElement} */ (el.querySelector('[data-testid="split-error"]')).hidden ? '' : el.querySelector('[data-testid="split-error"]')?.textContent,
      scores: cells(/** @type {Element} */ (el.querySelector('[data-testid="circuits-scores"]'))),
      composition: [...el.querySelectorAll('[data-testid="circuits-composition"]')].map(cells),
      head: Number(list.dataset.head), source: Number(list.dataset.source),
      promoted: [...list.querySelectorAll('li')].map((li) => [li.getAttribute('data-word'), li.getAttribute('data-value')]),
      python: el.querySelector('[data-testid="circuits-python-output"]')?.textContent || '',
      script: el.querySelector('[data-testid="circuits-python"]')?.textContent || '',
    };
  });
}

/**
 * The sum of paths, the scores, the composition table and the promoted words are the module's
 * (textModel.attribute, circuits, promoted), and the bars add up to the logit.
 * @param {any} c  readCircuits's
 * @param {string} text
 * @param {number} pos
 * @param {string|number} [word]  the word typed (default: the guess)
 */
function checkCircuits(c, text, pos, word) {
  const run = model.run({ text });
  const a = model.attribute({ text, position: pos, word: word ?? run.predictions[pos][0].id });
  assert.equal(c.position, pos);
  assert.equal(c.word, a.word, 'the word split');
  assert.equal(c.logit, String(a.logit), 'its logit');
  assert.equal(c.probability, String(a.probability), 'its probability');
  assert.ok(c.title.includes(a.logit.toFixed(2)) && c.title.includes(a.probability.toFixed(3)), c.title);
  const want = [['direct', String(a.direct)]];
  a.heads.forEach((row, l) => row.forEach((v, k) => want.push([`${l},${k}`, String(v)])));
  assert.deepEqual(c.parts, want, 'a bar per term: the direct path, then every head');
  const sum = c.parts.reduce((s, [, v]) => s + Number(v), 0);
  assert.ok(Math.abs(sum - a.logit) <= 1e-9 * Math.max(1, Math.abs(a.logit)), `the bars add up to the logit: ${sum} vs ${a.logit}`);
  assert.equal(Number(c.sum), sum);
  const circuits = model.circuits();
  assert.deepEqual(c.scores, circuits.copying.flatMap((row, l) => row.map((x, k) => [String(x), String(circuits.previousPosition[l][k])])), 'copying and previous-position scores');
  assert.deepEqual(c.composition, [circuits.composition.k[1].map((row) => row[0].map(String))], 'layer 2 x layer 1 K-composition');
  const p = model.promoted({ layer: Math.floor(c.head / C.numHeads), head: c.head % C.numHeads, word: run.ids[pos], k: 8 });
  assert.equal(c.source, run.ids[pos], 'the source word is the chosen word');
  assert.deepEqual(c.promoted, p.promoted.map((x) => [x.word, String(x.value)]), 'the words the head promotes');
  const head = /** @type {[number, number]} */ ([Math.floor(c.head / C.numHeads), c.head % C.numHeads]);
  assert.equal(c.python, circuitsOutput({ attribution: a, circuits, promoted: p, words: run.words, position: pos, head }), 'the circuits printout');
  assert.ok(c.script.includes(`POSITION = ${pos}`) && c.script.includes(`HEAD = (${head[0]}, ${head[1]})`), 'the script reads the chosen word and head');
}

/** Wait for the split to show `word` at the widget's word. @param {any} where @param {string} word */
function waitSplit(where, word) {
  return where.waitForFunction((w) => {
    const el = /** @type {any} */ ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('hw-sentence'));
    const t = el.querySelector('[data-testid="split-title"]');
    return t && t.dataset.word === w && t.dataset.position === el.dataset.pos;
  }, word);
}

/** Everything the section does, where it is (the lesson page or the embed's frame). @param {any} where */
async function exercise(where) {
  // Labels: each head's role and score from the weights' metadata.
  const s0 = await readWidget(where);
  for (const head of s0.heads) {
    const r = ROLES[Math.floor(head.index / C.numHeads)][head.index % C.numHeads];
    assert.equal(head.role, r.role, `head ${head.index}'s role`);
    assert.ok(head.label.includes(f2(r.score)), `head ${head.index}'s label gives its score: ${head.label}`);
  }
  assert.ok(s0.heads.every((h) => h.label.length > 0));
  // The first preset's sentence as the module reads it, guesses after its last word.
  checkShows(s0, s0.text);
  assert.equal(s0.pos, s0.n - 1);
  checkCircuits(await readCircuits(where), s0.text, s0.pos);

  // The repeated phrase: the logit of "states" after the second "united", a word typed; the
  // induction head's promoted words; a word the model does not know is refused.
  const repeat = 'The people of the United States have a right to expect that their government will do its duty. The people of the United States';
  await typeSentence(where, repeat);
  const united = model.tokenize(repeat).words.lastIndexOf('united');
  await where.click(`[data-testid="sentence-word"][data-i="${united}"]`);
  await where.fill('[data-testid="split-word"]', 'States');
  await waitSplit(where, 'states');
  checkCircuits(await readCircuits(where), repeat, united, 'states');
  await where.selectOption('[data-testid="promoted-head"]', String(1));
  await where.waitForFunction(() => ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('[data-testid="promoted-list"]'))?.getAttribute('data-head') === '1');
  checkCircuits(await readCircuits(where), repeat, united, 'states');
  await where.fill('[data-testid="split-word"]', 'zzqx');
  await where.waitForSelector('[data-testid="split-error"]:not([hidden])', { state: 'attached' });
  assert.match((await readCircuits(where)).error, /zzqx/);
  await where.fill('[data-testid="split-word"]', '');
  await where.waitForSelector('[data-testid="split-error"][hidden]', { state: 'attached' });
  await waitSplit(where, model.run({ text: repeat }).predictions[united][0].word);
  checkCircuits(await readCircuits(where), repeat, united);

  // The exercise: the layer-1 head the induction head (layer 2's best copier) K-composes with
  // most; a wrong answer is told so; the check by switching off is the module's ablated runs.
  const circuits = model.circuits();
  const copier = circuits.copying[1].reduce((best, x, k, row) => (x > row[best] ? k : best), 0);
  const row = circuits.composition.k[1][copier][0];
  const answer = row.reduce((best, x, g) => (x > row[best] ? g : best), 0);
  // Nothing chosen yet: asked to choose (the answer is not preselected).
  assert.equal(await where.inputValue('[data-testid="find-head"]'), '');
  await where.click('[data-testid="find-check"]');
  await where.waitForSelector('[data-testid="find-result"][data-correct=""]', { state: 'attached' });
  for (const g of [(answer + 1) % C.numHeads, answer]) {
    await where.selectOption('[data-testid="find-head"]', String(g));
    await where.click('[data-testid="find-check"]');
    await where.waitForSelector(`[data-testid="find-result"][data-correct="${g === answer}"]`, { state: 'attached' });
  }
  const result = await where.$eval('[data-testid="find-result"]', (p) => ({ text: p.textContent, off: p.dataset.off, all: p.dataset.all }));
  const findText = 'The people of the United States have a right to expect that their government will do its duty. The people of the United States';
  const at = model.tokenize(findText).words.lastIndexOf('united');
  const pOf = (/** @type {number[]} */ ablate) => Math.exp(-model.run({ text: findText, ablate }).tokenLoss[at]);
  assert.equal(result.all, String(pOf([])));
  assert.deepEqual(result.off.split(','), [0, 1, 2, 3].map((g) => String(pOf([g]))), 'each layer-1 head off in turn');
  assert.ok(result.text.includes(row[answer].toFixed(3)), result.text);
  const offs = result.off.split(',').map(Number);
  assert.equal(offs.indexOf(Math.min(...offs)), answer, 'switching the answer off costs the repeated word most');

  // Typing: a sentence with a word the model does not know.
  const text = 'The congress of the smartphone age must keep the peace, and the congress must keep the peace.';
  assert.ok(model.tokenize(text).unknown.some(Boolean), 'the sentence has an unknown word');
  let s = await typeSentence(where, text);
  checkShows(s, text);
  // Another word chosen: its guesses.
  await where.click('[data-testid="sentence-word"][data-i="4"]');
  await where.waitForFunction(() => /** @type {HTMLElement} */ ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('hw-sentence')).dataset.pos === '4');
  s = await readWidget(where);
  checkShows(s, text);
  // The keyboard: the chosen word is the words' one stop; the arrow keys and Home choose others.
  await where.focus('[data-testid="sentence-word"][aria-pressed="true"]');
  await where.keyboard.press('ArrowLeft');
  await where.waitForFunction(() => /** @type {HTMLElement} */ ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('hw-sentence')).dataset.pos === '3');
  await where.keyboard.press('Home');
  await where.waitForFunction(() => /** @type {HTMLElement} */ ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('hw-sentence')).dataset.pos === '0');
  assert.deepEqual(await where.$$eval('[data-testid="sentence-word"]', (bs) => bs.filter((b) => b.getAttribute('tabindex') === '0').map((b) => b.getAttribute('data-i'))), ['0'], 'one stop: the chosen word');
  checkShows(await readWidget(where), text);

  // A layer-1 head switched off: the guesses, the loss and layer 2's maps as the ablated run.
  const k = 1;
  await where.click(`[data-testid="sentence-switch"][data-index="${k}"]`);
  await where.waitForSelector('[data-testid="sentence-guess-list"][data-which="off"]', { state: 'attached' });
  s = await readWidget(where);
  checkShows(s, text, [k]);
  const base = model.run({ text });
  const off = model.run({ text, ablate: [k] });
  assert.notEqual(off.loss, base.loss, 'switching the head off changes the module\'s loss');
  assert.notDeepEqual(off.attention[1], base.attention[1], 'and layer 2\'s attention');
  await where.click(`[data-testid="sentence-switch"][data-index="${k}"]`);
  await where.waitForFunction(() => !(document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('[data-testid="sentence-guess-list"][data-which="off"]'));
  checkShows(await readWidget(where), text);

  // Too many words: a message that says so, the last good sentence kept.
  const long = Array.from({ length: C.context + 8 }, () => 'peace').join(' ');
  await where.fill('#sentence-text', long);
  await where.waitForSelector('hw-sentence:not([data-pending]) [data-testid="sentence-error"]:not([hidden])', { state: 'attached' });
  s = await readWidget(where);
  assert.match(s.error, new RegExp(`has ${C.context + 8} words and punctuation marks; the model reads at most ${C.context}`));
  assert.ok(s.stale, 'marked as showing the last good sentence');
  checkShows(s, text);
  await typeSentence(where, text);
  assert.equal((await readWidget(where)).error, '');

  // Each preset reads its sentence.
  const presets = await where.$$eval('[data-testid="sentence-preset"]', (bs) => bs.map((b) => b.getAttribute('data-preset')));
  assert.ok(presets.length >= 3 && presets.includes('repeat') && presets.includes('prose'), presets.join());
  for (const p of presets) {
    await where.click(`[data-testid="sentence-preset"][data-preset="${p}"]`);
    const value = await where.inputValue('#sentence-text');
    const n = model.tokenize(value).words.length;
    await where.waitForFunction(([n, v]) => {
      const el = /** @type {any} */ ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('hw-sentence'));
      return !el.hasAttribute('data-pending') && el.dataset.words === String(n) && el.result && el.result.text === v;
    }, [n, value]);
    checkShows(await readWidget(where), value);
  }
}

describe('Your own sentence', () => {
  test('over http: the model is fetched only when the section comes near, once', { timeout: TIMEOUT }, async () => {
    const from = server.served.length;
    await withPage(browser, server, 'http', '', async (page) => {
      await page.waitForTimeout(1000);
      assert.ok(!server.served.slice(from).includes(MODEL_SCRIPT), `not fetched at first: ${server.served.slice(from).join(' ')}`);
      assert.equal(await page.evaluate(() => document.querySelectorAll('script[data-headwise-text-model]').length), 0);
      await reachSentence(page);
      assert.equal(server.served.slice(from).filter((p) => p === MODEL_SCRIPT).length, 1, 'fetched once');
    });
  });

  test('from file://: typing, words, guesses, labels, switches, a text too long, presets; typing is never one long task', { timeout: TIMEOUT }, async () => {
    await withPage(browser, server, 'file', '', async (page) => {
      assert.equal(await page.evaluate(() => document.querySelectorAll('script[data-headwise-text-model]').length), 0, 'no model before the section');
      await reachSentence(page);
      await exercise(page);
      const cpu = await mainThreadTaskCpu(page, async () => {
        for (const text of ['We must', 'We must keep the peace', 'We must keep the peace of the world and we must keep the peace of the world .']) {
          await typeSentence(page, text);
        }
      }, 5);
      if (cpu) assert.ok(Math.max(...cpu) < GUARD_TASK_MS, `typing's longest main-thread task ${Math.max(...cpu).toFixed(1)} ms (guard ${GUARD_TASK_MS} ms)`);
      else console.log(`# ${ENGINE}: no trace; the longest task is not measured here`);
    });
  });

  test('at 390 px in English, Spanish and Chinese: the section in its language, nothing sideways or cut off', { timeout: TIMEOUT }, async () => {
    await withCleanPage(browser, null, async (page) => {
      await inEachLanguage(page, '', async (lang, catalogue) => {
        // This test is about words and layout: the page's first load is over before the section
        // grows (the other tests reach it while the page still loads).
        await waitLoaded(page);
        await reachSentence(page);
        await page.click('[data-testid="sentence-preset"][data-preset="repeat"]');
        await page.click('[data-testid="sentence-switch"][data-index="0"]');
        await page.waitForSelector('[data-testid="sentence-guess-list"][data-which="off"]', { state: 'attached' });
        const titles = await page.$$eval('.hw-sentence-guess-title', (ps) => ps.map((p) => p.textContent));
        assert.equal(titles[0], catalogue['sentence.allHeads'], `${lang}: the guesses' title`);
        assert.equal(await page.textContent('.hw-sentence-heads-title'), catalogue['sentence.headsTitle'], `${lang}: the heads' title`);
        assert.deepEqual(await page.evaluate(layoutProblems), [], `${lang}: layout at 390 px`);
      });
    }, { context: { viewport: PHONE } });
  });

  test('under the strict CSP (http header)', { timeout: TIMEOUT }, async () => {
    await withStrictCsp(browser, servers, '', async (page) => {
      await reachSentence(page);
      await exercise(page);
    });
  });

  test('inside <iframe sandbox="allow-scripts"> (embed.html?widget=sentence)', { timeout: TIMEOUT }, async () => {
    await withEmbed(browser, servers, 'mha-sentence', async (frame) => {
      await reachSentence(frame);
      await exercise(frame);
    });
  });
});
