// Bad input on the page: links whose settings cannot be read (garbage, random bytes, 100 KB),
// token labels that are hard to render (emoji, right-to-left scripts, 10,000 characters), and
// numbers the module refuses typed into every field. The page never throws, shows the
// module's message beside the control concerned, and recovers once the input is valid again.
// A refusal of the C++ core reaches the control of its field in every language, written from the
// catalogue by its code: a module whose messages are reworded changes nothing the page shows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  DIST, LANGS, MODES, catalogue, gotoFresh, headTable, pageUrl, serveDist, settle, shareBrowser, waitReady, withCleanPage,
  inContext,
} from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

const LESSON_ROW_H0 = ['0', '0', '0.424', '0.576', '0'];
const MAIN_CONTROLS = ['seed', 'tokens', 'd-model', 'num-heads'];

/** Deterministic pseudo-random bytes (xorshift32). */
function randomBytes(n, seed) {
  let x = seed >>> 0;
  const out = [];
  for (let i = 0; i < n; i += 1) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out.push(x & 0xff);
  }
  return out;
}

/** Main-settings error slots that show something: {controlId: message}. */
function shownErrors(page) {
  return page.evaluate((ids) => Object.fromEntries(ids
    .map((id) => [id, document.querySelector(`[data-error-for="${id}"]`)])
    .filter(([, e]) => e && !e.hidden && e.textContent)
    .map(([id, e]) => [id, e.textContent])), [...MAIN_CONTROLS, 'general']);
}

/** The page shows the lesson's defaults and responds. */
async function assertLessonDefaults(page, what) {
  assert.deepEqual(
    await Promise.all(['#seed', '#tokens', '#d-model', '#num-heads'].map((s) => page.inputValue(s))),
    ['7', '5', '8', '2'], what,
  );
  assert.deepEqual((await headTable(page, 0))[0], LESSON_ROW_H0, what);
  assert.deepEqual(await shownErrors(page), {}, what);
}

const randomEncoded = `#${randomBytes(300, 42).map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`;
const randomPrintable = `#${randomBytes(300, 7).map((b) => String.fromCharCode(33 + (b % 94))).join('')}`;

/** [name, hash, what the notice must say] */
const BAD_HASHES = [
  ['percent signs', '#%%%', /"%%%" is not a setting this page knows/],
  ['a seed that is not a number', '#seed=abc', /"seed" is not a number/],
  ['an empty value', '#tokens=', /"tokens" is not a number/],
  ['Infinity', '#seed=Infinity', /"seed" is not a number/],
  ['a number too big for a double', '#heads=1e400', /"heads" is not a number/],
  ['a setting given twice', '#seed=1&seed=2', /"seed" appears twice/],
  ['a checkbox that is not 0 or 1', '#bias=2', /"bias" must be 0 or 1/],
  ['a negative query token', '#query=-1', /"query" must be a token index/],
  ['a label index out of range', '#label.4096=x', /"label.4096" is out of range/],
  ['an unknown word', '#nonsense', /"nonsense" is not a setting this page knows/],
  ['300 random bytes, percent-encoded', randomEncoded, /is not a setting this page knows|could not be decoded|appears twice|is not a number|must be/],
  ['300 random printable characters', randomPrintable, /is not a setting this page knows|appears twice|is not a number|must be/],
  ['100 KB of garbage', `#${'x'.repeat(100 * 1024)}`, /the link is too long \(102400 characters after the #; at most 65536\)/],
  ['100 KB in one well-formed label', `#seed=7&label.0=${'a'.repeat(100 * 1024)}`, /the link is too long/],
];

for (const mode of MODES) {
  describe(`links that cannot be read, over ${mode}://`, () => {
    test('garbage and oversized hashes fall back to the defaults with a visible notice', async () => {
      await withCleanPage(browser, null, async (page) => {
        for (const [name, hash, notice] of BAD_HASHES) {
          await gotoFresh(page, pageUrl(mode, server, hash));
          await waitReady(page);
          const shown = page.locator('[data-testid=hash-notice]');
          assert.ok(await shown.isVisible(), `${name}: notice visible`);
          const text = await shown.textContent();
          assert.match(text, /^This link's settings could not be read \(.*\), so the page shows the lesson's defaults instead\.$/s, name);
          assert.match(text, notice, name);
          assert.ok(text.length < 400, `${name}: the notice quotes at most a short piece of the link`);
          await assertLessonDefaults(page, name);
          // The address now holds the defaults, so a copied link works.
          assert.ok(new URL((await page.url())).hash.startsWith('#seed=7&tokens=5&d_model=8&heads=2&'), `${name}: ${(await page.url()).slice(0, 200)}`);
        }
        // The page still responds, and the notice goes once the student changes something.
        await page.fill('#num-heads', '4');
        await settle(page);
        assert.equal((await page.$$('hw-head-weights table.hw-weights[data-head]')).length, 4);
        assert.equal(await page.isVisible('[data-testid=hash-notice]'), false);
      }, { origin: mode === 'http' ? server.origin : null });
    });
  });
}

const LABELS = [
  '🐈‍⬛ cat 👩🏽‍🔬🇯🇵',
  'القطة السوداء',
  'החתול השחור',
  'x'.repeat(10000),
  'abc القط 123 חתול',
];

describe('token labels that are hard to render', () => {
  for (const width of [360, 1280]) {
    test(`emoji, right-to-left text and 10,000 characters are shown literally at ${width} px`, async () => {
      await withCleanPage(browser, server.url('/index.html'), async (page) => {
        await page.click('hw-controls summary');
        for (const [i, label] of LABELS.entries()) {
          await page.fill(`#label-${i}`, label);
          await settle(page);
        }
        const check = async (what) => {
          const shown = await page.evaluate((n) => Array.from({ length: n }, (_, i) => {
            const th = document.querySelector(`hw-head-weights table[data-head="0"] thead th[data-col="${i}"]`);
            const idx = th.querySelector('.hw-tok-idx').getBoundingClientRect();
            const label = th.querySelector('.hw-tok-label');
            const lr = label.getBoundingClientRect();
            return {
              text: label.textContent,
              option: document.querySelector(`#query-token option[value="${i}"]`).textContent,
              rowLabel: document.querySelector(`hw-head-weights table[data-head="0"] tr[data-token="${i}"] th .hw-tok-label`).textContent,
              indexFirst: idx.right <= lr.left + 1 || idx.bottom <= lr.top + 1, // the index is not pulled into the RTL run
              headerWidth: th.getBoundingClientRect().width,
            };
          }), LABELS.length);
          for (const [i, label] of LABELS.entries()) {
            assert.equal(shown[i].text, label, `${what}: label ${i}`);
            assert.equal(shown[i].rowLabel, label, `${what}: row label ${i}`);
            assert.equal(shown[i].option, `${i} · ${label}`, `${what}: option ${i}`);
            assert.ok(shown[i].indexFirst, `${what}: label ${i} keeps its index before it`);
            assert.ok(shown[i].headerWidth < 200, `${what}: label ${i}'s header is ${shown[i].headerWidth}px wide`);
          }
          const layout = await page.evaluate(() => ({
            page: document.documentElement.scrollWidth,
            body: document.body.scrollWidth,
            inner: window.innerWidth,
          }));
          assert.ok(layout.page <= width && layout.body <= width, `${what}: no horizontal page overflow (${JSON.stringify(layout)})`);
        };
        await check('typed');
        // The labels travel in the link and come back the same.
        await gotoFresh(page, (await page.url()));
        await waitReady(page);
        await check('from the link');
        assert.equal(await page.isVisible('[data-testid=hash-notice]'), false);
      }, { context: { viewport: { width, height: 800 } } });
    });
  }
});

/** [control id, typed, the message beside it] */
const BAD_NUMBERS = [
  ['seed', '1.5', /seed must be an integer, got 1\.5/],
  ['seed', '-1', /seed \(-1\) must be an integer between 0 and 4294967295/],
  ['seed', '4294967296', /seed \(4294967296\) must be an integer between 0 and 4294967295/],
  ['seed', '1e308', /seed \(1e\+308\) is too large/],
  ['seed', '', /^Required: enter a number\.$/],
  ['seed', '1e', /^Enter a number\.$/],
  ['tokens', '2.5', /tokens must be an integer, got 2\.5/],
  ['tokens', '0', /tokens \(0\) must be a positive integer/],
  ['tokens', '-3', /tokens \(-3\) must be a positive integer/],
  ['tokens', '2049', /tokens \(2049\) must be at most 2048/],
  ['tokens', '1e9', /tokens \(1000000000\) must be at most 2048/],
  ['d-model', '8.5', /dModel must be an integer, got 8\.5/],
  ['d-model', '0', /d_model \(0\) must be a positive integer/],
  ['d-model', '-8', /d_model \(-8\) must be a positive integer/],
  ['d-model', '4096', /d_model \(4096\) must be at most 2048/],
  ['d-model', '1e9', /d_model \(1000000000\) must be at most 2048/],
  ['num-heads', '1.5', /numHeads must be an integer, got 1\.5/],
  ['num-heads', '0', /num_heads \(0\) must be a positive integer/],
  ['num-heads', '-2', /num_heads \(-2\) must be a positive integer/],
  ['num-heads', '3', /d_model \(8\) must be divisible by num_heads \(3\)/],
  ['num-heads', '1e6', /d_model \(8\) must be divisible by num_heads \(1000000\)/],
];

const EXERCISE_NUMBERS = [
  ['ex1-seed', '0.5', /seed must be an integer, got 0\.5/],
  ['ex1-seed', '-7', /seed \(-7\) must be an integer between 0 and 4294967295/],
  ['ex1-seed', '', /^Required: enter a number\.$/],
  ['ex2-d-model', '12.5', /embedDim must be an integer, got 12\.5/],
  ['ex2-d-model', '-4', /embed_dim \(-4\) must be a positive integer/],
  ['ex2-d-model', '1e9', /embed_dim \(1000000000\) must be at most 16777216/],
  ['ex2-d-model', '', /^Required: enter a number\.$/],
  ['ex2-heads', '0', /num_heads \(0\) must be a positive integer/],
  ['ex2-heads', '2.5', /numHeads must be an integer, got 2\.5/],
  ['ex2-heads', '', /^Required: enter a number\.$/],
];

/** Type into a number field with the keyboard (so "1e" stays unparseable, as a student's would). */
async function typeNumber(page, id, text) {
  await page.focus(`#${id}`);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  if (text) await page.keyboard.type(text);
  await settle(page);
}

describe('numbers the module refuses, typed into the page', () => {
  test('the settings: the module\'s message beside the control, and recovery', async () => {
    await withCleanPage(browser, server.url('/index.html'), async (page) => {
      const valid = { seed: '7', tokens: '5', 'd-model': '8', 'num-heads': '2' };
      for (const [id, typed, message] of BAD_NUMBERS) {
        const what = `${id} = ${JSON.stringify(typed)}`;
        await typeNumber(page, id, typed);
        // The message may wait for the module, still busy with the last valid keystroke's
        // settings on a loaded machine after settle(): wait for it (then every check below).
        await page.waitForFunction((i) => {
          const e = document.querySelector(`[data-error-for="${i}"]`);
          return Boolean(e && !e.hidden && e.textContent);
        }, id, { timeout: 20000 }).catch(() => {});
        const errors = await shownErrors(page);
        assert.deepEqual(Object.keys(errors), [id], `${what} (the field holds ${JSON.stringify(await page.inputValue(`#${id}`))}): ${JSON.stringify(errors)}`);
        assert.match(errors[id], message, what);
        assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true', what);
        // The last valid tables (here those of the last keystroke that was valid) stay, marked as such.
        assert.equal(await page.getAttribute('hw-head-weights', 'data-stale'), '', what);
        assert.match(await page.textContent('hw-head-weights .hw-stale'), /Showing the last valid settings/, what);
        assert.ok((await page.$$('hw-head-weights figure[data-head]')).length > 0, what);
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, `${what}: no horizontal overflow`);
        await typeNumber(page, id, valid[id]);
        assert.deepEqual(await shownErrors(page), {}, `${what}, then fixed`);
        assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), null, what);
        assert.equal(await page.getAttribute('hw-head-weights', 'data-stale'), null, what);
      }
      await assertLessonDefaults(page, 'after every bad number');
    }, { context: { viewport: { width: 360, height: 800 } } });
  });

  test('the exercises\' own fields: the module\'s message beside the field, and recovery', async () => {
    await withCleanPage(browser, server.url('/index.html'), async (page) => {
      const valid = { 'ex1-seed': '2024', 'ex2-d-model': '12', 'ex2-heads': '6' };
      await typeNumber(page, 'ex2-heads', '6');
      for (const [id, typed, message] of EXERCISE_NUMBERS) {
        const what = `${id} = ${JSON.stringify(typed)}`;
        await typeNumber(page, id, typed);
        const slot = page.locator(`[data-error-for="${id}"]`);
        assert.ok(await slot.isVisible(), what);
        assert.match(await slot.textContent(), message, what);
        assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true', what);
        assert.deepEqual(await shownErrors(page), {}, `${what}: the main settings are untouched`);
        await typeNumber(page, id, valid[id]);
        assert.ok(await slot.isHidden(), `${what}, then fixed`);
      }
      assert.equal((await page.$$('[data-testid=ex1-pair]')).length, 7);
      assert.deepEqual(await page.$$eval('[data-testid=ex2-row] th', (t) => t.map((x) => x.textContent)), ['1', '2', '3', '4', '6', '12']);
      assert.equal(await page.getAttribute('[data-testid=ex2-try]', 'data-accepted'), 'true');
    });
  });
});

// ---- errors as codes ---------------------------------------------------------------------------

const CATALOGUES = Object.fromEntries(LANGS.map((l) => [l, catalogue(l)]));
/** A catalogue's sentence with its placeholders filled. */
const say = (lang, key, params) => CATALOGUES[lang][key].replace(/\{(\w+)\}/g, (_, p) => String(params[p]));

/** Scroll the training section into view until `selector` shows text (its module loads on demand). */
async function trainingText(page, selector) {
  const end = Date.now() + 60000;
  for (;;) {
    await page.evaluate(() => document.querySelector('#train')?.scrollIntoView({ behavior: 'instant', block: 'start' }));
    const text = await page.evaluate((s) => {
      const e = document.querySelector(s);
      return e && !e.hidden ? e.textContent : '';
    }, selector);
    if (text) return text;
    if (Date.now() > end) throw new Error(`${selector} shows nothing`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The page's error slots for three refusals of the C++ core, each read where it is shown: num_heads
 * 3 (divisible: beside the head count), seed -1 (integerRange: beside the seed) and a training
 * seed of 2^32 (createTrainer's range: beside the training section's seed).
 * @returns {Promise<Record<string, string>>}
 */
async function coreRefusals(page, origin, lang) {
  const shown = {};
  for (const [hash, id] of [['heads=3', 'num-heads'], ['seed=-1', 'seed']]) {
    await gotoFresh(page, `${origin}/index.html#lang=${lang}&${hash}`);
    await waitReady(page);
    await page.waitForFunction((l) => document.documentElement.lang === l, lang, { timeout: 10000 });
    await page.waitForFunction((i) => document.querySelector(`[data-error-for="${i}"]`)?.textContent, id, { timeout: 20000 });
    shown[id] = await page.textContent(`[data-error-for="${id}"]`);
  }
  await gotoFresh(page, `${origin}/index.html#lang=${lang}&train_seed=4294967296`);
  await waitReady(page);
  shown['train-seed'] = await trainingText(page, '[data-error-for="train-seed"]');
  return shown;
}

/** The module's files with every refusal's message reworded (code, field and params kept). */
function rewordedModules() {
  // Appended to each file: createHeadwise wraps the API so that every coded Error it throws gets
  // another message; moduleSource() carries the wrapper into the page's Workers too.
  function reword() {
    const inner = createHeadwise; // eslint-disable-line no-undef
    const wrapApi = (hw) => {
      const out = {};
      for (const k of Object.keys(hw)) {
        const v = hw[k];
        out[k] = typeof v !== 'function' ? v : function () {
          try {
            return v.apply(hw, arguments);
          } catch (e) {
            if (e && typeof e.code === 'string') e.message = `REWORDED [${e.code}] ${e.message.split('').reverse().join('')}`;
            throw e;
          }
        };
      }
      return Object.freeze(out);
    };
    const f = (m) => inner(m).then(wrapApi);
    for (const k of Object.keys(inner)) f[k] = inner[k];
    const source = inner.moduleSource;
    f.moduleSource = () => {
      const s = source();
      return s === null ? null : `${s}\n(${reword.toString()})();\n`;
    };
    createHeadwise = f; // eslint-disable-line no-undef, no-global-assign
  }
  const pages = {};
  for (const file of ['headwise-lesson.js', 'headwise.js']) {
    pages[`/${file}`] = { type: 'text/javascript', body: `${readFileSync(join(DIST, file), 'utf8')}\n(${reword.toString()})();\n` };
  }
  return pages;
}

/** The refusals on the page as `origin` serves it, read once per origin and language. */
const refusals = new Map();
async function refusalsOn(origin, lang) {
  const key = `${origin} ${lang}`;
  if (!refusals.has(key)) {
    await withCleanPage(browser, null, async (page) => {
      refusals.set(key, await coreRefusals(page, origin, lang));
    }, { origin });
  }
  return refusals.get(key);
}

describe('errors as codes: the C++ core\'s refusals on the page', () => {
  test('num_heads, seed and the training seed reach their controls, written in Spanish and Chinese', { timeout: 300000 }, async () => {
    const en = await refusalsOn(server.origin, 'en');
    assert.deepEqual(en, {
      'num-heads': 'd_model (8) must be divisible by num_heads (3)',
      seed: 'seed (-1) must be an integer between 0 and 4294967295',
      'train-seed': 'seed (4294967296) must be between 0 and 4294967295',
    });
    for (const lang of ['es', 'zh-CN']) {
      const shown = await refusalsOn(server.origin, lang);
      const field = (f) => CATALOGUES[lang][`errors.field.${f}`];
      assert.deepEqual(shown, {
        'num-heads': say(lang, 'errors.code.divisible', { field: field('dModel'), value: 8, divisor: 3, divisorField: field('numHeads') }),
        seed: say(lang, 'errors.code.integerRange', { field: field('seed'), value: -1, min: 0, max: 4294967295 }),
        'train-seed': say(lang, 'errors.code.range', { field: field('seed'), value: 4294967296, min: 0, max: 4294967295 }),
      }, lang);
      for (const [id, text] of Object.entries(shown)) assert.notEqual(text, en[id], `${lang} translates the error beside ${id}`);
    }
  });

  test('a module whose messages are reworded changes nothing the page shows, in English, Spanish and Chinese', { timeout: 400000 }, async () => {
    const reworded = await serveDist({ pages: rewordedModules() });
    try {
      // The rewording is real: the module the page loaded says something else.
      await inContext(browser, async (page) => {
        await page.goto(reworded.url('/index.html'));
        await waitReady(page);
        const message = await page.evaluate(() => createHeadwise().then((hw) => {  // eslint-disable-line no-undef
          try {
            hw.seedExperiment({ seed: 7, tokens: 5, dModel: 8, numHeads: 3 });
          } catch (e) {
            return [e.message, e.code, e.field];
          }
          return null;
        }));
        assert.deepEqual(message, ['REWORDED [divisible] )3( sdaeh_mun yb elbisivid eb tsum )8( ledom_d :tnemirepxEdees', 'divisible', 'dModel']);
      });
      for (const lang of LANGS) {
        assert.deepEqual(await refusalsOn(reworded.origin, lang), await refusalsOn(server.origin, lang), lang);
      }
    } finally {
      await reworded.close();
    }
  });
});
