// "Train it on your own text" (web/src/text/own-text.js): the student's text trains the section's
// model in the page, on the training module's Workers, summing each step's shard gradients in a
// fixed order, so the model is the same on 1, 2 and 4 Workers (the file the page saves, byte for
// byte, and the loss the section's views read with it); the same model as Node's
// hw.createTextTrainer gives with the same options. Every view of the section switches between the
// State of the Union model and the student's; the table sets each head after the warm-up beside
// each head after the text. Bad input gets a coded message naming the limit, the text stays in the
// box and the previous model stays: an empty text, a text too small, one without a–z words, a file
// over the limit, a damaged model file. From file://, under the strict CSP (http header), and in
// <iframe sandbox="allow-scripts">. Every engine trains a short run (RUN_STEPS steps); Chromium
// alone also trains the 1960s' addresses to the end of the trainer's default run and checks its
// verdict (the held-out loss below the text's unigram, a head that kept its warm-up role, a
// previous-word head of 0.5 or more; the figures printed), since the long run takes minutes in
// the other engines on this machine.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DIST, ENGINE, ROOT, collectCsp, fileUrl, gotoFresh, layoutProblems, openPage, reachSentence, shareBrowser, trainingPartServers, waitReady, withEmbed,
} from './helpers.mjs';
import { presetText } from '../../web/build-text.mjs';
import { checksum } from '../../web/src/text/own-text.js';
import { MAX_FILE_BYTES } from '../../web/src/text/own-text-training.js';

const createHeadwise = createRequire(import.meta.url)(join(DIST, 'headwise.js'));
const hw = await createHeadwise();
const TIMEOUT = 300000;
/** The short run's steps (every engine). */
const RUN_STEPS = 4;
const EN = JSON.parse(readFileSync(join(ROOT, 'web', 'i18n', 'en.json'), 'utf8'));
const DATA = join(ROOT, 'node_modules', '@stdlib', 'datasets-sotu', 'data');
/** A small text: Kennedy's first address (about 5,000 words). */
const SMALL = await presetText(DATA, { from: 1961, to: 1961, president: 'john_f_kennedy' });

let browser;
shareBrowser((b) => {
  browser = b;
});
const servers = trainingPartServers('widget=sentence', 'Your own sentence');

/** Scroll to the section until its model has read a sentence and the panel is there. @param {any} where */
const reachPanel = (where) => reachSentence(where, 'hw-sentence[data-model][data-words] [data-testid="own-text"]');

/** The panel as the page shows it. @param {any} where */
function readPanel(where) {
  return where.$eval('[data-testid="own-text"]', (el) => ({
    status: /** @type {HTMLElement} */ (el).dataset.status,
    steps: Number(/** @type {HTMLElement} */ (el).dataset.steps),
    workers: Number(/** @type {HTMLElement} */ (el).dataset.workers),
    checksum: /** @type {HTMLElement} */ (el).dataset.checksum,
    error: /** @type {HTMLElement} */ (el.querySelector('[data-testid="own-text-error"]')).hidden ? '' : el.querySelector('[data-testid="own-text-error"]')?.textContent,
    code: /** @type {HTMLElement} */ (el.querySelector('[data-testid="own-text-error"]')).dataset.code,
    text: /** @type {HTMLTextAreaElement} */ (el.querySelector('[data-testid="own-text-input"]')).value,
    held: /** @type {HTMLElement} */ (el.querySelector('[data-testid="own-status"]')).dataset.held,
    rows: [...el.querySelectorAll('[data-testid="own-table"] tbody tr')].map((tr) => ({
      fromWarmup: tr.getAttribute('data-from-warmup') === 'true',
      cells: Object.fromEntries([...tr.querySelectorAll('td[data-measure]')].map((td) => [td.getAttribute('data-measure'), [Number(td.getAttribute('data-before')), Number(td.getAttribute('data-after'))]])),
    })),
    shown: /** @type {HTMLElement|null} */ (el.closest('hw-sentence'))?.dataset.shown || 'sotu',
  }));
}

/**
 * Put a text in the box and train it for `steps` steps (0: the trainer's default run).
 * @param {any} where
 * @param {string} text
 * @param {number} steps
 */
async function train(where, text, steps, timeout = 120000) {
  await where.evaluate(({ t, n }) => {
    // The widget, on the page or in an embed's <mha-sentence> (its shadow root).
    const root = document.querySelector('mha-sentence')?.shadowRoot || document;
    const el = /** @type {HTMLElement} */ (root.querySelector('hw-sentence'));
    if (n > 0) el.setAttribute('data-own-steps', String(n));
    else el.removeAttribute('data-own-steps');
    const box = /** @type {HTMLTextAreaElement} */ (el.querySelector('[data-testid="own-text-input"]'));
    box.value = t;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }, { t: text, n: steps });
  const before = (await readPanel(where)).checksum;
  await where.click('[data-testid="own-train"]');
  await where.waitForFunction((old) => {
    const root = document.querySelector('mha-sentence')?.shadowRoot || document;
    const p = /** @type {HTMLElement} */ (root.querySelector('[data-testid="own-text"]'));
    return (p.dataset.status === 'done' && p.dataset.checksum !== old) || !p.querySelector('[data-testid="own-text-error"]')?.hidden;
  }, before, { timeout });
  return readPanel(where);
}

/**
 * Open a file in one of the panel's file fields (a File made in the page, as a person's choice).
 * @param {any} where
 * @param {string} testid
 * @param {string} name
 * @param {{text?: string, bytes?: number[], size?: number}} content  size: that many 'a's
 */
async function openFile(where, testid, name, content) {
  await where.evaluate(({ id, n, c }) => {
    const input = /** @type {HTMLInputElement} */ (document.querySelector(`[data-testid="${id}"]`));
    const part = c.bytes ? new Uint8Array(c.bytes) : c.size ? new Uint8Array(c.size).fill(97) : c.text;
    const dt = new DataTransfer();
    dt.items.add(new File([part], n));
    input.files = dt.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, { id: testid, n: name, c: content });
}

/**
 * The weights file the section's two Python scripts read by default, and the file their hints name.
 * @param {any} page
 * @param {string} name
 */
async function pythonReads(page, name) {
  await page.waitForFunction((n) => {
    const el = /** @type {any} */ (document.querySelector('hw-sentence'));
    return el.codeEl.textContent.includes(`else "${n}"`) && el.circuitsCodeEl.textContent.includes(`else "${n}"`) &&
      document.querySelector('[data-testid="sentence-python-hint"]')?.textContent?.includes(`python3 sentence.py ${n}`) &&
      document.querySelector('[data-testid="circuits-python-hint"]')?.textContent?.includes(`python3 circuits.py ${n}`);
  }, name);
}

/** The section's loss on its sentence, as its views read it with the model shown. @param {any} where */
const sentenceLoss = (where) => where.$eval('[data-testid="sentence-loss"]', (p) => p.getAttribute('data-loss'));

/** Node's model for the same text and run: the bytes save() writes. @param {string} text @param {number} steps */
function nodeModel(text, steps) {
  const t = hw.createTextTrainer({ text, steps });
  try {
    for (let k = 0; k < steps; k += 1) t.step(1);
    return t.save();
  } finally {
    t.dispose();
  }
}

describe('Train it on your own text', () => {
  test(`from file://: the same model on 1, 2 and 4 Workers (${RUN_STEPS} steps) and in Node; the views switch; download and open the file`, { timeout: TIMEOUT }, async () => {
    const want = checksum(nodeModel(SMALL, RUN_STEPS));
    const { context, page, log } = await openPage(browser);
    try {
      /** @type {Record<number, string>} */
      const losses = {};
      for (const workers of [1, 2, 4]) {
        await gotoFresh(page, `${fileUrl('index.html')}#workers=${workers}`);
        await waitReady(page);
        await reachPanel(page);
        const sotuLoss = await sentenceLoss(page);
        const p = await train(page, SMALL, RUN_STEPS);
        assert.equal(p.error, '', `${workers} Workers: ${p.error}`);
        assert.equal(p.status, 'done');
        assert.equal(p.steps, RUN_STEPS);
        assert.equal(p.workers, workers, 'one replica per Worker');
        assert.equal(p.checksum, want, `${workers} Workers: the same file as Node's trainer`);
        // Every view reads the student's model now; the switch puts the State of the Union's back.
        assert.equal(p.shown, 'own');
        await page.waitForFunction((old) => document.querySelector('[data-testid="sentence-loss"]')?.getAttribute('data-loss') !== old, sotuLoss);
        losses[workers] = await sentenceLoss(page);
        assert.notEqual(await page.textContent('[data-testid="sentence-about"]'), '');
        // The Python scripts read the student's model: the file the panel downloads.
        await pythonReads(page, 'own-text.hwtm');
        await page.click('#sentence-model-sotu');
        await page.waitForFunction((old) => document.querySelector('[data-testid="sentence-loss"]')?.getAttribute('data-loss') === old, sotuLoss);
        assert.equal((await readPanel(page)).shown, 'sotu');
        await pythonReads(page, 'sotu.hwtm');
        await page.click('#sentence-model-own');
        await page.waitForFunction((l) => document.querySelector('[data-testid="sentence-loss"]')?.getAttribute('data-loss') === l, losses[workers]);
        // The table: every head, before (the warm-up) and after.
        assert.equal(p.rows.length, 8);
        for (const r of p.rows) for (const [b, a] of Object.values(r.cells)) assert.ok(Number.isFinite(b) && Number.isFinite(a));
      }
      assert.equal(losses[2], losses[1]);
      assert.equal(losses[4], losses[1]);
      // The file downloads, and opens again as the same model.
      const file = await page.download(() => page.click('[data-testid="own-download"]'));
      assert.match(file.name, /\.hwtm$/);
      assert.equal(checksum(new Uint8Array(file.bytes)), want);
      await page.click('#sentence-model-sotu');
      // (opened under another name: the scripts then read that file)
      await openFile(page, 'own-model-file', 'my-model.hwtm', { bytes: [...file.bytes] });
      await page.waitForFunction(() => document.querySelector('hw-sentence')?.getAttribute('data-shown') === 'own');
      await page.waitForFunction((l) => document.querySelector('[data-testid="sentence-loss"]')?.getAttribute('data-loss') === l, losses[1]);
      await pythonReads(page, 'my-model.hwtm');
      await collectCsp(page, log);
      log.assertClean(null);
    } finally {
      await context.close();
    }
  });

  test('bad input: a clear coded message, the text kept, the previous model kept', { timeout: TIMEOUT }, async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await gotoFresh(page, `${fileUrl('index.html')}#workers=2`);
      await waitReady(page);
      await reachPanel(page);
      const good = await train(page, SMALL, 2);
      assert.equal(good.status, 'done');
      const cases = [
        ['   ', 'errors.ownText.empty'],
        ['the cat sat', null],                              // too few words: the trainer's code
        [SMALL.split(/\s+/).slice(0, 3000).map((w, i) => `w${i}`).join(' '), null],  // no word twice
        ['中文的文本没有任何英文字母。'.repeat(400), null],   // no a–z words
      ];
      for (const [text, code] of cases) {
        const p = await train(page, text, 2);
        assert.notEqual(p.error, '', `a message for ${JSON.stringify(text.slice(0, 20))}`);
        if (code) assert.equal(p.code, code);
        else assert.ok(p.code, `coded: ${p.error}`);
        assert.ok(!/undefined|\{/.test(p.error), p.error);
        assert.equal(p.text, text, 'the text stays in the box');
        assert.equal(p.checksum, good.checksum, 'the previous model stays');
        assert.equal(p.shown, 'own');
      }
      // A file over the limit is refused unread; the box keeps its text.
      await page.evaluate(() => {
        const box = /** @type {HTMLTextAreaElement} */ (document.querySelector('[data-testid="own-text-input"]'));
        box.value = 'kept';
      });
      await openFile(page, 'own-text-file', 'big.txt', { size: MAX_FILE_BYTES + 1 });
      await page.waitForFunction(() => !document.querySelector('[data-testid="own-text-error"]')?.hidden);
      let p = await readPanel(page);
      assert.equal(p.code, 'errors.ownText.fileTooBig');
      assert.ok(p.error.includes(String(MAX_FILE_BYTES)), p.error);
      assert.equal(p.text, 'kept');
      // A .txt file within the limit fills the box.
      await openFile(page, 'own-text-file', 'small.txt', { text: 'Words from a file.' });
      await page.waitForFunction(() => /** @type {HTMLTextAreaElement} */ (document.querySelector('[data-testid="own-text-input"]')).value === 'Words from a file.');
      // A damaged model file: refused with the module's code, the model kept.
      await openFile(page, 'own-model-file', 'broken.hwtm', { bytes: [72, 87, 84, 77, 1, 2, 3] });
      await page.waitForFunction(() => !document.querySelector('[data-testid="own-text-error"]')?.hidden);
      p = await readPanel(page);
      assert.ok(p.code && !p.code.startsWith('errors.ownText'), `the module's code: ${p.code}`);
      assert.equal(p.checksum, good.checksum);
      assert.equal(p.shown, 'own');
      await collectCsp(page, log);
      log.assertClean(null);
    } finally {
      await context.close();
    }
  });

  test('at 390 px in English, Spanish and Chinese: the panel in its language, nothing sideways or cut off', { timeout: TIMEOUT }, async () => {
    const { context, page, log } = await openPage(browser, { viewport: { width: 390, height: 844 } });
    try {
      for (const lang of ['en', 'es', 'zh-CN']) {
        const catalogue = JSON.parse(readFileSync(join(ROOT, 'web', 'i18n', `${lang}.json`), 'utf8'));
        await gotoFresh(page, `${fileUrl('index.html')}#lang=${lang}`);
        await waitReady(page);
        await page.waitForFunction(() => !document.documentElement.hasAttribute('data-hw-loading'), undefined, { timeout: 60000 });
        await reachPanel(page);
        assert.equal(await page.textContent('#own-text-title'), catalogue['sentence.own.title']);
        assert.equal(await page.textContent('[data-testid="own-private"]'), catalogue['sentence.own.private']);
        if (lang === 'en') {
          const p = await train(page, SMALL, 2);
          assert.equal(p.status, 'done');
        }
        assert.deepEqual(await page.evaluate(layoutProblems), [], `${lang}: layout at 390 px`);
      }
      await collectCsp(page, log);
      log.assertClean(null);
    } finally {
      await context.close();
    }
  });

  test('under the strict CSP (http header): a short run on the Workers', { timeout: TIMEOUT }, async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(servers.csp.url('/index.html#workers=2'));
      await reachPanel(page);
      const p = await train(page, SMALL, RUN_STEPS);
      assert.equal(p.error, '');
      assert.equal(p.workers, 2);
      await collectCsp(page, log);
      log.assertClean(servers.csp.origin);
    } finally {
      await context.close();
    }
  });

  test('inside <iframe sandbox="allow-scripts"> (embed.html?widget=sentence): a preset, a short run', { timeout: TIMEOUT }, async () => {
    await withEmbed(browser, servers, 'mha-sentence', async (frame) => {
      await reachPanel(frame);
      await frame.click('[data-testid="own-preset"][data-preset="kennedy"]');
      await frame.waitForFunction(() => /** @type {HTMLTextAreaElement} */ ((document.querySelector('mha-sentence')?.shadowRoot || document).querySelector('[data-testid="own-text-input"]')).value.length > 10000);
      const text = await frame.$eval('[data-testid="own-text-input"]', (t) => /** @type {HTMLTextAreaElement} */ (t).value);
      const p = await train(frame, text, RUN_STEPS);
      assert.equal(p.error, '');
      assert.equal(p.status, 'done');
      assert.equal(p.shown, 'own');
    });
  });

  test('a whole run to its verdict (Chromium only: minutes in the other engines here)', ENGINE === 'chromium' ? { timeout: 900000 } : { skip: `${ENGINE}: the long run is Chromium's; this engine trains the short runs above` }, async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await gotoFresh(page, fileUrl('index.html'));
      await waitReady(page);
      await reachPanel(page);
      const text = await presetText(DATA, { from: 1960, to: 1969, president: null });
      const p = await train(page, text, 0, 840000);
      assert.equal(p.error, '');
      assert.equal(p.status, 'done');
      const summary = await page.textContent('[data-testid="own-status"]');
      console.log(`# ${ENGINE}: ${summary}`);
      const t = hw.createTextTrainer({ text });
      const { unigram, bigram } = t.baselines;
      t.dispose();
      const best = (/** @type {string} */ m, /** @type {0|1} */ when) => Math.max(...p.rows.map((r) => r.cells[m][when]));
      console.log(`# ${ENGINE}: held-out ${Number(p.held).toFixed(3)} (unigram ${unigram.toFixed(3)}, bigram ${bigram.toFixed(3)}); `
        + `best previous-word head ${best('previousWord', 0).toFixed(2)} -> ${best('previousWord', 1).toFixed(2)}, best induction head ${best('induction', 0).toFixed(2)} -> ${best('induction', 1).toFixed(2)}`);
      // The page's verdict: the text taught the words (held-out below the text's own unigram, and
      // far below where the warm-up started), and the heads the warm-up gave are still there. (The
      // issue's bar of 0.5 nat below the unigram at the defaults is the trainer's, tested in Node.)
      assert.ok(Number(p.held) < unigram, `held-out ${p.held} below the unigram ${unigram}`);
      assert.ok(p.rows.some((r) => r.fromWarmup), 'a head kept its warm-up role');
      assert.ok(best('previousWord', 1) >= 0.5, `a previous-word head: ${best('previousWord', 1)}`);
      await collectCsp(page, log);
      log.assertClean(null);
    } finally {
      await context.close();
    }
  });
});
