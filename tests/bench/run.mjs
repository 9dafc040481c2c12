#!/usr/bin/env node
// `npm run bench`: everything the bench measures, in one run, in this order (each section is a
// file of its own):
//
//   build.mjs          builds the native forward (presets bench, native-baseline), WASM, the page
//   forward.mjs        the multi-head attention forward side by side, interleaved, float64, one
//                      thread: native (-march=native), native-baseline (SSE2, like WASM's
//                      128-bit vectors), wasm-node and wasm-chromium (core and API), NumPy,
//                      PyTorch; then time against tokens (16 ... 1024, d_model 768, 12 heads)
//   page.mjs           the page: sizes (page_sizes.mjs), the first verified table, full updates
//                      at lesson size at four reader positions and at (128, 768, 12)
//                      (page_update.mjs)
//   heap.mjs           the WASM heap across 10,010 recomputes
//   train_page.mjs     the training section, Chromium on one core: the default demo to its verdict
//   heads.mjs          "How many heads does it take?", click to last cell, Chromium on one core
//   own-text.mjs       "Train it on your own text": 20,000 words at the defaults, one Worker
//                      against the pool, Chromium on every core
//   responsive.mjs     the page as a student feels it (file://, long tasks)
//   load.mjs           the first load: longest tasks, a switch of language, Lighthouse
//   train.mjs          training steps per second of the default models
//   train_heads.mjs    the heads-needed trainer against TensorFlow.js and PyTorch, its memory
//   report.mjs         the tables, the targets, build/bench/results.json, table.md, scaling.svg
//   compare_page.mjs   --compare-page: two builds' updates, alternated
//
// Writes build/bench/results.json, build/bench/scaling.svg and build/bench/table.md;
// with --record also tests/bench/results.json and tests/bench/scaling.svg (the committed run).
//
// Options: --no-build  --quick (fewer rounds)  --record  --skip-page  --skip-scaling  --skip-responsive
//          --sizes-only (just the page's sizes: at first load, and the training section on demand)
//          --skip-training (both training sections)  --skip-heads  --skip-train-page  --skip-heads-page
//          --skip-induction-page  --skip-sentence-page  --skip-own-text
//          --train-page-only (just the training section of the page, Chromium on one core)
//          --page-only (just the page: sizes, first verified table, updates; about a minute with
//            --no-build)  --updates=N (full updates timed at lesson size, default 60)
//          --only=native,wasm-node,...  --rounds=N  --sizes=128x512x8,128x768x12
//          --glibc-malloc-defaults (time the forward without forward.mjs's malloc settings)
//          --from=tests/bench/results.json (print a recorded run's table and targets again)
//          --skip-load  --load-only (just the first load: longest tasks and Lighthouse, about 8
//            minutes with --no-build)  --before=DIR (the first load of the page built in DIR too,
//            alternated with dist/'s in one sitting)
//          --compare-page=DIR (the whole update at lesson size, dist/ against another built page
//            in DIR, e.g. dist/ copied at another commit, alternated in one sitting: --rounds
//            rounds of --updates updates per reader position; about 2.5 minutes with --no-build)
import {existsSync, mkdirSync} from 'node:fs';
import os from 'node:os';
import {resolve} from 'node:path';

import {buildAll, buildPage} from './build.mjs';
import {
  CHROMIUM, commandLine, launchChromium, log, machine, outDir, playwright, root, runMain, writeJson
} from './common.mjs';
import {comparePage} from './compare_page.mjs';
import {forwardSection, mallocEnv, method} from './forward.mjs';
import {headsPageMetrics, headsPoolMetrics, headsPoolTable, headsTable as headsPageTable} from './heads.mjs';
import {heapSection} from './heap.mjs';
import {loadMetrics, loadTable} from './load.mjs';
import {pageSection} from './page.mjs';
import {logPageSizes, pageSizes} from './page_sizes.mjs';
import {printRecorded, printTargets, targets, writeResults} from './report.mjs';
import {responsiveMetrics, responsiveTable} from './responsive.mjs';
import {serve} from './serve.mjs';
import {trainingBench, trainingTable} from './train.mjs';
import {headsBench, headsTable} from './train_heads.mjs';
import {inductionMetrics, inductionTable} from './induction.mjs';
import {sentenceMetrics, sentenceTable} from './sentence.mjs';
import {ownTextMetrics, ownTextTable} from './own-text.mjs';
import {logTrainPage, trainPageMetrics} from './train_page.mjs';

const {argv, flag, option, count} = commandLine();
const QUICK = flag('quick');
// Full updates timed at lesson size: enough that their p95 is not just the largest sample.
const UPDATES = count('updates', 60, 20, 'updates');
const ENV = mallocEnv(flag('glibc-malloc-defaults'));
const indent = (text) => text.replace(/^/gm, '  ');

/** Runs `section(baseUrl)` with the project served on loopback. */
async function served(section) {
  const server = await serve(root);
  try {
    return await section(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.close();
  }
}

async function responsiveSection(res, chromium) {
  log('\npage, responsiveness (from file://, long tasks observed) ...');
  const browser = await launchChromium(chromium);
  try {
    res.responsive = await responsiveMetrics(browser, {quick: QUICK});
  } finally {
    await browser.close();
  }
  log(indent(responsiveTable(res.responsive)));
}

async function loadSection(res) {
  const before = option('before', null);
  log(`\npage, first load (tasks from a trace; Lighthouse mobile and desktop)${
      before ? `: ${before} against dist/, alternated` : ''} ...`);
  res.load = await loadMetrics(
      {before: before && resolve(before), rounds: QUICK ? 3 : 5, lighthouseRunsN: 3, log: (m) => log(`  ${m}`)});
  log(indent(loadTable(res.load)));
}

// The whole run, into results.json.
async function wholeRun() {
  const chromium = existsSync(CHROMIUM) ? await playwright({optional: true}) : null;
  const rounds = count('rounds', QUICK ? 3 : 7);
  const res = {command: 'npm run bench', date: new Date().toISOString(), machine: machine(),
               method: method(rounds, ENV)};
  await served(async (baseUrl) => {
    await forwardSection(res, {
      baseUrl, chromium, env: ENV, rounds, quick: QUICK, withScaling: !flag('skip-scaling'),
      only: option('only', null)?.split(','),
      sizes: option('sizes', '5x8x2,64x256x4,128x512x8,128x768x12,512x768x12')
                 .split(',').map((s) => s.split('x').map(Number)),
    });
    const page = chromium && !flag('skip-page');
    if (page) {
      await pageSection(res, chromium, baseUrl, {quick: QUICK, updates: UPDATES});
      await heapSection(res);
    }
    if (page && !flag('skip-train-page')) {
      log('\ntraining section, Chromium on one core ...');
      res.trainPage = await trainPageMetrics(chromium, baseUrl, {quick: QUICK});
      logTrainPage(res.trainPage);
    }
    if (page && !flag('skip-heads-page')) {
      log('\nHow many heads does it take?, Chromium on one core (tests/bench/heads.mjs) ...');
      res.headsPage = await headsPageMetrics(chromium, {quick: QUICK, log});
      log(headsPageTable(res.headsPage));
      log('\nHow many heads does it take?, one Worker against the pool, Chromium on every core ...');
      res.headsPool = await headsPoolMetrics(chromium, {quick: QUICK, log});
      log(headsPoolTable(res.headsPool));
    }
    if (page && !flag('skip-induction-page')) {
      log('\nHeads that work together, Chromium on one core (tests/bench/induction.mjs) ...');
      res.inductionPage = await inductionMetrics(chromium, {quick: QUICK, log});
      log(inductionTable(res.inductionPage));
    }
    if (page && !flag('skip-sentence-page')) {
      log('\nYour own sentence, Chromium on one core (tests/bench/sentence.mjs) ...');
      res.sentencePage = await sentenceMetrics(chromium, {quick: QUICK, log});
      log(sentenceTable(res.sentencePage));
    }
    if (page && !flag('skip-own-text')) {
      log('\nTrain it on your own text, one Worker against the pool, Chromium on every core (tests/bench/own-text.mjs) ...');
      res.ownText = await ownTextMetrics(chromium, {quick: QUICK, log});
      log(ownTextTable(res.ownText));
    }
    if (page && !flag('skip-responsive')) await responsiveSection(res, chromium);
    if (page && !flag('skip-load')) await loadSection(res);
  });
  if (!flag('skip-training')) {
    log('\ntraining steps per second (tests/bench/train.mjs) ...');
    res.training = await trainingBench({rounds: QUICK ? 3 : 5, log});
    log(trainingTable(res.training));
  }
  if (!flag('skip-training') && !flag('skip-heads')) {
    log('\nheads-needed training: steps per second against TensorFlow.js and PyTorch, memory ' +
        '(tests/bench/train_heads.mjs) ...');
    res.heads = await headsBench({rounds: QUICK ? 3 : 5, log});
    log(headsTable(res.heads));
  }
  res.loadAverageAtEnd = os.loadavg();
  writeResults(res, {record: flag('record')});
}

// --page-only: the page section and its targets, into page-results.json (results.json keeps the
// last whole run).
async function pageOnly(chromium) {
  const res = {command: `node tests/bench/run.mjs ${argv.join(' ')}`, date: new Date().toISOString(),
               machine: machine()};
  await served((baseUrl) => pageSection(res, chromium, baseUrl, {quick: QUICK, updates: UPDATES}));
  res.loadAverageAtEnd = os.loadavg();
  res.targets = targets(res);
  printTargets(res.targets);
  log(`\nwrote ${writeJson('page-results.json', res)}`);
}

async function main() {
  mkdirSync(outDir, {recursive: true});
  if (option('from', null)) return printRecorded(option('from', null));
  const justThePage = flag('page-only') || option('compare-page', null) || flag('load-only');
  if (flag('record') && flag('page-only')) throw new Error('--page-only measures part of a run: it cannot be --record-ed');
  if (flag('record') && option('compare-page', null)) throw new Error('--compare-page compares two builds: it cannot be --record-ed');
  if (!flag('no-build')) {
    if (justThePage) buildPage();
    else buildAll();
  }
  if (flag('sizes-only')) {
    const browser = await launchChromium(await playwright());
    try {
      log('page sizes (gzip -9, 1 KB = 1000 B) ...');
      logPageSizes(await served((baseUrl) => pageSizes(browser, baseUrl)));
    } finally {
      await browser.close();
    }
    return;
  }
  if (flag('page-only')) return pageOnly(await playwright());
  if (flag('load-only')) {
    const res = {};
    await loadSection(res);
    log(`\nwrote ${writeJson('load.json', res.load)}`);
    return;
  }
  if (option('compare-page', null)) {
    return comparePage(await playwright(), option('compare-page', null), {
      rounds: count('rounds', 3), updates: UPDATES, command: `node tests/bench/run.mjs ${argv.join(' ')}`});
  }
  if (flag('train-page-only')) {
    const chromium = await playwright();
    log('training section, Chromium on one core ...');
    logTrainPage(await served((baseUrl) => trainPageMetrics(chromium, baseUrl, {quick: QUICK})));
    return;
  }
  return wholeRun();
}

runMain(main);
