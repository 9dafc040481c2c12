// "Train it on your own text" on every core (a section of `npm run bench`; also
// `node tests/bench/own-text.mjs [--quick]`): in headless Chromium on every core, from file://, a
// text of 20,000 words (the first 20,000 words of the 1960s' State of the Union addresses, cut at
// the end of the sentence that reaches them) trained at the trainer's defaults through the page's
// panel, once on one Worker (#workers=1) and once on the pool (one Worker per core), alternated:
//   - the wall time from the click to the model shown (reading the text, the warm-up's
//     evaluation, every step, the held-out evaluations, saving);
//   - the pool's speed-up over one Worker (ratio of medians);
//   - the held-out loss reached, against the text's unigram and bigram (the panel's own figures);
//   - whether both gave the same model file (the panel's checksum).
// Goals (issue 53): at most 60 s on the pool, and the pool at least 1.7 times one Worker.
// Writes build/bench/own-text.json when run alone.
import os from 'node:os';
import {join} from 'node:path';
import {commandLine, isMain, launchChromium, median, openTrainingPart, playwright, root, runMain, writeJson} from './common.mjs';
import {presetText} from '../../web/build-text.mjs';

export const OWN_TEXT_GOALS = {seconds: 60, speedUp: 1.7};
/** The text's length in words. */
export const WORDS = 20000;

/** The bench's text: the first WORDS words of the 1960s' addresses, to the end of that sentence. */
export async function benchText() {
  const all = await presetText(join(root, 'node_modules', '@stdlib', 'datasets-sotu', 'data'), {from: 1960, to: 1969, president: null});
  const re = /\S+/g;
  let m;
  let n = 0;
  let end = all.length;
  while ((m = re.exec(all))) {
    n += 1;
    if (n >= WORDS) {
      const stop = all.slice(m.index).search(/[.!?](\s|$)/);
      end = stop < 0 ? all.length : m.index + stop + 1;
      break;
    }
  }
  return all.slice(0, end);
}

async function oneRun(browser, text, hash) {
  const {context, page} = await openTrainingPart(browser, '#sentence', 'hw-sentence[data-model][data-words] [data-testid="own-text"]', hash);
  try {
    await page.waitForTimeout(2000);
    await page.evaluate((t) => {
      const box = document.querySelector('[data-testid="own-text-input"]');
      box.value = t;
      box.dispatchEvent(new Event('input', {bubbles: true}));
    }, text);
    const t0 = Date.now();
    await page.click('[data-testid="own-train"]');
    await page.waitForFunction(() => {
      const p = document.querySelector('[data-testid="own-text"]');
      return (p.dataset.status === 'done' && p.dataset.checksum) || !p.querySelector('[data-testid="own-text-error"]').hidden;
    }, undefined, {timeout: 1800000, polling: 100});
    const ms = Date.now() - t0;
    return await page.evaluate((wall) => {
      const el = document.querySelector('hw-sentence');
      const p = document.querySelector('[data-testid="own-text"]');
      const s = el.own;
      return {
        ms: wall, error: p.querySelector('[data-testid="own-text-error"]').textContent, workers: Number(p.dataset.workers), steps: Number(p.dataset.steps),
        checksum: p.dataset.checksum, trainMs: s.ms, heldOut: s.after.heldOut.loss, unigram: s.after.heldOut.unigram, bigram: s.after.heldOut.bigram,
        words: s.corpus.words, vocab: s.corpus.vocab,
      };
    }, ms);
  } finally {
    await context.close();
  }
}

/**
 * @param {any} chromium  playwright-core's chromium
 * @param {{quick?: boolean, log?: (s: string) => void}} [o]
 */
export async function ownTextMetrics(chromium, {quick = false, log = console.log} = {}) {
  const text = await benchText();
  const browser = await launchChromium(chromium);
  const out = {cores: os.cpus().length, loadAverageBefore: os.loadavg(), one: [], pool: []};
  try {
    for (let r = 0; r < (quick ? 1 : 2); r += 1) {
      for (const [hash, into, label] of [['#workers=1', out.one, '1 Worker'], ['', out.pool, 'the pool']]) {
        const x = await oneRun(browser, text, hash);
        if (x.error) throw new Error(`the panel refused the bench's text: ${x.error}`);
        log(`  ${label} (${x.workers} Workers): ${(x.ms / 1000).toFixed(1)} s wall (${(x.trainMs / 1000).toFixed(1)} s of steps), ${x.steps} steps; ` +
            `held-out ${x.heldOut.toFixed(3)} (unigram ${x.unigram.toFixed(3)}, bigram ${x.bigram.toFixed(3)}); ${x.words} words, vocab ${x.vocab}`);
        into.push(x);
      }
    }
  } finally {
    await browser.close();
  }
  out.oneMs = median(out.one.map((x) => x.ms));
  out.poolMs = median(out.pool.map((x) => x.ms));
  out.speedUp = out.oneMs / out.poolMs;
  out.workers = out.pool[0].workers;
  out.heldOut = out.pool[0].heldOut;
  out.unigram = out.pool[0].unigram;
  out.bigram = out.pool[0].bigram;
  out.sameModel = [...out.one, ...out.pool].every((x) => x.checksum === out.one[0].checksum);
  out.loadAverageAfter = os.loadavg();
  return out;
}

/** @param {any} r ownTextMetrics's result */
export function ownTextTable(r) {
  return [
    `  Chromium on every core (${r.cores}); load average ${r.loadAverageBefore.map((x) => x.toFixed(1)).join(', ')} -> ${
        r.loadAverageAfter.map((x) => x.toFixed(1)).join(', ')}`,
    `  ${WORDS.toLocaleString('en')} words at the defaults: 1 Worker ${(r.oneMs / 1000).toFixed(1)} s, the pool (${r.workers} Workers) ${
        (r.poolMs / 1000).toFixed(1)} s (goal <= ${OWN_TEXT_GOALS.seconds} s: ${r.poolMs <= OWN_TEXT_GOALS.seconds * 1000 ? 'met' : 'NOT met'}); speed-up ${
        r.speedUp.toFixed(2)}x (goal >= ${OWN_TEXT_GOALS.speedUp}x: ${r.speedUp >= OWN_TEXT_GOALS.speedUp ? 'met' : 'NOT met'})`,
    `  held-out loss ${r.heldOut.toFixed(3)} nats (unigram ${r.unigram.toFixed(3)}, bigram ${r.bigram.toFixed(3)}); the same model on 1 Worker and the pool: ${
        r.sameModel ? 'yes' : 'NO'}`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  runMain(async () => {
    const chromium = await playwright();
    console.log('Train it on your own text, Chromium on every core ...');
    const r = await ownTextMetrics(chromium, {quick: commandLine().flag('quick')});
    console.log(ownTextTable(r));
    console.log(`wrote ${writeJson('own-text.json', r)}`);
  });
}
