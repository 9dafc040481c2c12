// --compare-page=DIR: the whole update at lesson size (updateBreakdown), for dist/ and for the
// page built in DIR, alternated in one sitting so that both meet the same machine: each round
// opens one page per version (from file://, which both builds support) and times it at every
// reader position. What compares is the difference: figures from separate sittings on a shared
// machine differ by more than most changes do.
import {existsSync} from 'node:fs';
import os from 'node:os';
import {join, resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

import {fmtMs, launchChromium, log, machine, percentile, root, writeJson} from './common.mjs';
import {LESSON_POSITIONS, placeReader, tracedUpdates, warmUp, watchFirstTable} from './page_update.mjs';

const FIELDS = ['whole', 'js', 'style', 'layout', 'paint', 'bench'];

// The page of version `dir`, its first table verified and exercise 3 drawn.
async function open(browser, dir) {
  const page = await browser.newPage({viewport: {width: 1280, height: 720}});
  await page.addInitScript(watchFirstTable);
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  await page.waitForFunction(
      () => window.__firstVerified !== null && document.querySelector('hw-exercise-torch[data-ready]') !== null,
      null, {timeout: 30000});
  return page;
}

/** `rounds` rounds of `updates` updates per reader position; writes compare-results.json. */
export async function comparePage(chromium, other, {rounds, updates, command}) {
  const versions = [['dist/', join(root, 'dist')], [other, resolve(other)]];
  for (const [label, dir] of versions) {
    if (!existsSync(join(dir, 'index.html'))) throw new Error(`--compare-page: ${label} has no index.html; give a built page's directory`);
  }
  const browser = await launchChromium(chromium, {freeFrames: true});
  /** rows[position][version] = updateBreakdown rows */
  const rows = LESSON_POSITIONS.map(() => versions.map(() => []));
  try {
    // A fresh browser is slower for its first minutes: each version first runs untimed.
    for (const [, dir] of versions) {
      const page = await open(browser, dir);
      await warmUp(page, updates);
      await page.close();
    }
    for (let r = 0; r < rounds; r++) {
      // The order of the two alternates with the round, so that neither always goes first.
      for (const vi of r % 2 ? [1, 0] : [0, 1]) {
        // One page per version and round, through the positions in turn, as the page section
        // does: the page's code is warm, and every section has been laid out once (the page
        // skips sections off screen only after that).
        const page = await open(browser, versions[vi][1]);
        for (const [pi, [, , height, at]] of LESSON_POSITIONS.entries()) {
          await placeReader(page, height, at);
          await warmUp(page, updates);
          rows[pi][vi].push(...await tracedUpdates(browser, page, updates, 200 + r * 1000));
        }
        await page.close();
      }
      log(`  round ${r + 1} of ${rounds} done`);
    }
  } finally {
    await browser.close();
  }
  const out = {
    command,
    date: new Date().toISOString(),
    machine: machine(),
    versions: versions.map(([label]) => label),
    positions: {}
  };
  log(`\nthe whole update at lesson size, main-thread CPU p50 / p95 (ms), ${rounds} rounds of ${updates} updates:`);
  const width = Math.max(...versions.map(([l]) => l.length));
  for (const [pi, [, where]] of LESSON_POSITIONS.entries()) {
    const stats = versions.map((_, vi) => Object.fromEntries(FIELDS.map((f) => {
      const xs = rows[pi][vi].map((x) => x[f]);
      return [f, {p50: percentile(xs, 50), p95: percentile(xs, 95), samples: xs.length}];
    })));
    out.positions[where] = Object.fromEntries(versions.map(([label], vi) => [label, stats[vi]]));
    log(`  ${where}`);
    for (const [vi, [label]] of versions.entries()) {
      const x = stats[vi];
      log(`    ${label.padEnd(width)}  recompute + render + layout ${
          fmtMs(x.whole.p50)} / ${fmtMs(x.whole.p95)} (JS ${fmtMs(x.js.p50)} / ${fmtMs(x.js.p95)}, layout ${
          fmtMs(x.layout.p50)} / ${fmtMs(x.layout.p95)}); paint ${fmtMs(x.paint.p50)} / ${
          fmtMs(x.paint.p95)}; the bench's own scripts, not counted, ${fmtMs(x.bench.p50)} / ${fmtMs(x.bench.p95)}`);
    }
    log(`    dist/ against ${versions[1][0]}: p50 ${(stats[0].whole.p50 / stats[1].whole.p50).toFixed(2)}x, p95 ${
        (stats[0].whole.p95 / stats[1].whole.p95).toFixed(2)}x`);
  }
  out.loadAverageAtEnd = os.loadavg();
  log(`\nwrote ${writeJson('compare-results.json', out)}`);
}
