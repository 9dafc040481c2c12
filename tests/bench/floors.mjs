// What bounds the whole update at the lesson's size on this machine (runnable alone):
//   node tests/bench/floors.mjs [--reps=200]
// Needs dist/ (npm run build). Serves it on loopback, cross-origin isolated (serve.mjs), and
// measures in headless Chromium:
//   - layout per number: exercise 3's number cells (the reader at exercise 3) all rewritten with
//     new numbers, then style and layout forced, --reps times (a frame between rewrites): p50 and
//     p95; then the same cells after exercise 3 is moved alone into an empty body (is it the page
//     around them?); then as many numbers in plain 8 x 5 tables without the page's stylesheet
//     (the browser's own cost per number);
//   - cold calls: module calls at the lesson's size (packLessonWeights, maxAbsDiff,
//     seedExperiment) and a plain JS loop of about the same length, timed back to back (warm),
//     as the first call of a task of its own, and as the first call after 30 ms idle.
// Writes build/bench/floors.json.
import {existsSync} from 'node:fs';
import {join} from 'node:path';

import {commandLine, launchChromium, playwright, root, runMain, writeJson} from './common.mjs';
import {serve} from './serve.mjs';

const REPS = commandLine().count('reps', 200, 20, 'repetitions');
if (!existsSync(join(root, 'dist', 'index.html')))
  throw new Error('dist/index.html is missing: run npm run build first');

// In the page: rewrite every text node in `texts` with new numbers, force style and layout, and
// time that; `reps` times, a frame apart. (One argument: Playwright passes one.) Returns {numbers,
// p50, p95} in ms.
async function timeRewrites([where, reps]) {
  let texts;
  if (where === 'plain') {
    const count = document.querySelectorAll('hw-exercise-torch td.hw-num').length;
    document.head.querySelectorAll('link[rel="stylesheet"], style').forEach((s) => s.remove());
    document.body.replaceChildren();
    texts = [];
    while (texts.length < count) {
      const table = document.body.appendChild(document.createElement('table'));
      for (let i = 0; i < 8 && texts.length < count; i += 1) {
        const tr = table.insertRow();
        for (let j = 0; j < 5 && texts.length < count; j += 1) {
          texts.push(tr.insertCell().appendChild(document.createTextNode('0')));
        }
      }
    }
  } else {
    const ex = document.querySelector('hw-exercise-torch');
    if (where === 'alone') document.body.replaceChildren(ex);
    ex.scrollIntoView({block: 'start', behavior: 'instant'});
    texts = [...ex.querySelectorAll('td.hw-num')].map((td) => {
      if (!td.firstChild || td.firstChild.nodeType !== 3 || td.firstChild.nextSibling)
        td.textContent = '0';
      return td.firstChild;
    });
  }
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 5)));
  void document.documentElement.getBoundingClientRect();
  await frame();
  let seed = 12345;
  const next = () => {
    seed = (seed * 16807) % 2147483647;  // Park and Miller: exact in doubles
    const x = seed / 2147483647;
    return (x < 0.3 ? '-' : '') + x.toFixed(3);
  };
  const times = [];
  for (let k = 0; k < reps; k += 1) {
    for (const t of texts) t.nodeValue = next();
    const t0 = performance.now();
    void document.documentElement.getBoundingClientRect().height;
    times.push(performance.now() - t0);
    await frame();
  }
  times.sort((a, b) => a - b);
  const at = (p) => times[Math.max(0, Math.ceil((p / 100) * times.length) - 1)];
  return {numbers: texts.length, p50: at(50), p95: at(95)};
}

// In the page: each call timed back to back (the mean of `reps` in a row, after ten times as many
// untimed), as the first call of a task (after setTimeout 0), and as the first call after 30 ms
// idle. Returns {name: {warm, task, idle}} in µs.
async function timeColdCalls(reps) {
  const hw = await globalThis.createHeadwise();
  const run = hw.seedExperiment({seed: 7, tokens: 5, dModel: 8, numHeads: 2});
  const t = run.typed;
  let sink = 0;  // the loop's sums, kept so that it is not optimised away
  const calls = {
    packLessonWeights: () => hw.packLessonWeights({wq: t.wq, wk: t.wk, wv: t.wv, wo: t.wo}),
    maxAbsDiff: () => hw.maxAbsDiff({a: t.wq, b: t.wk}),
    seedExperiment: (k) => hw.seedExperiment({seed: k, tokens: 5, dModel: 8, numHeads: 2}),
    'plain JS loop': () => {
      let s = 0;
      for (let i = 0; i < 20000; i += 1) s += Math.sqrt(i);
      sink += s;
    },
  };
  const wait = (ms) => new Promise((done) => setTimeout(done, ms));
  const out = {};
  for (const [name, call] of Object.entries(calls)) {
    for (let k = 0; k < 10 * reps; k += 1) call(k);  // every tier of the code compiled
    let t0 = performance.now();
    for (let k = 0; k < reps; k += 1) call(k);
    const warm = (performance.now() - t0) / reps;
    const first = {};
    for (const [label, gap] of [['task', 0], ['idle', 30]]) {
      let sum = 0;
      for (let k = 0; k < reps; k += 1) {
        await wait(gap);
        t0 = performance.now();
        call(k);
        sum += performance.now() - t0;
      }
      first[label] = sum / reps;
    }
    out[name] = {warm: warm * 1000, task: first.task * 1000, idle: first.idle * 1000};
  }
  return out;
}

async function main() {
  const server = await serve(root);
  const url = `http://127.0.0.1:${server.address().port}/dist/index.html`;
  const browser = await launchChromium(await playwright());
  const open = async () => {
    const page = await browser.newPage({viewport: {width: 1280, height: 720}});
    await page.goto(url);
    await page.waitForSelector(
        'hw-exercise-torch[data-ready]', {state: 'attached', timeout: 60000});
    if (!(await page.evaluate(() => window.crossOriginIsolated)))
      throw new Error('the page is not cross-origin isolated: timings would be coarse');
    await page.waitForTimeout(1000);
    return page;
  };
  const result = {reps: REPS, layout: {}, cold: null};
  try {
    for (const where of ['page', 'alone', 'plain']) {
      const page = await open();
      result.layout[where] = await page.evaluate(timeRewrites, [where, REPS]);
      await page.close();
    }
    const page = await open();
    result.cold = await page.evaluate(timeColdCalls, REPS);
    await page.close();
  } finally {
    await browser.close();
    server.close();
  }
  const ms = (x) => x.toFixed(2);
  const us = (x) => x.toFixed(1);
  console.log(
      `layout of rewritten numbers, style and layout forced (${REPS} rewrites), p50 / p95:`);
  const what = {
    page: 'exercise 3 in the page',
    alone: 'exercise 3 alone in the body',
    plain: 'plain tables, no stylesheet'
  };
  for (const [where, r] of Object.entries(result.layout)) {
    console.log(`  ${what[where].padEnd(30)} ${r.numbers} numbers: ${ms(r.p50)} / ${
        ms(r.p95)} ms (${us(1000 * r.p50 / r.numbers)} µs per number at p50)`);
  }
  console.log(`calls at the lesson's size, mean µs (${
      REPS} each): back to back / first in a task / first after 30 ms idle`);
  for (const [name, c] of Object.entries(result.cold)) {
    console.log(`  ${name.padEnd(20)} ${us(c.warm)} / ${us(c.task)} / ${us(c.idle)} (${
        (c.idle / c.warm).toFixed(1)}x)`);
  }
  console.log(`wrote ${writeJson('floors.json', result)}`);
}

runMain(main);
