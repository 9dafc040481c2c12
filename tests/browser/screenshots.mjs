#!/usr/bin/env node
// The README's two pictures, taken from the built page (dist/index.html, opened from disk as a
// reader may) in /usr/bin/chromium through playwright-core:
//
//   web/screenshots/lesson.png    the settings beside the head tables, at the lesson's defaults
//   web/screenshots/training.png  "Watch heads specialise" after its default run has trained, down
//                                 to the 2-head model's tables
//
//   node tests/browser/screenshots.mjs [--dist DIR] [--out DIR]
//
// DIR defaults: dist/ and web/screenshots/ of this checkout (HEADWISE_DIST also sets the first).
// Light colour scheme, reduced motion, 1280 px wide, one device pixel per CSS pixel, so that each
// file stays a few hundred KB. Exits non-zero if the page does not show the lesson's numbers
// (head 0 gives token 0's attention 0.424 and 0.576) or the training does not reach its verdict.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: opts } = parseArgs({
  options: { dist: { type: 'string' }, out: { type: 'string' } },
});
const DIST = resolve(opts.dist ?? process.env.HEADWISE_DIST ?? join(ROOT, 'dist'));
const OUT = resolve(opts.out ?? join(ROOT, 'web', 'screenshots'));
const WIDTH = 1280;
/** The lesson's picture: one window of a laptop-sized screen. */
const LESSON_HEIGHT = 1000;
/** The training run: 600 steps of three models; generous for a busy 2-core machine. */
const TRAIN_TIMEOUT = 300000;

if (!existsSync(join(DIST, 'index.html'))) {
  console.error(`screenshots: ${join(DIST, 'index.html')} is missing: run \`npm run build:wasm && npm run build:web\` first, or pass --dist DIR`);
  process.exit(1);
}
mkdirSync(OUT, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/**
 * A page at `height` CSS pixels tall, the lesson loaded and its head tables showing the module's
 * numbers. The window is made tall enough for everything shot to be inside it: sections off
 * screen skip layout (content-visibility), so a shot beyond the window could be blank.
 * @param {number} height
 */
async function lessonPage(height) {
  const context = await browser.newContext({ viewport: { width: WIDTH, height }, deviceScaleFactor: 1, colorScheme: 'light', reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(pathToFileURL(join(DIST, 'index.html')).href);
  await page.waitForFunction(() => {
    const cells = [...document.querySelectorAll('hw-head-weights table[data-head="0"] tr')].map((tr) => tr.textContent);
    const busy = document.querySelector('[aria-busy="true"], [data-stale], [data-drawing], [data-computing]');
    return !busy && cells.some((t) => t.includes('0.424') && t.includes('0.576'));
  }, undefined, { timeout: 60000 });
  await page.evaluate(() => document.fonts.ready);
  return { context, page, errors };
}

/**
 * Write a PNG of the window, or of a region of it in window coordinates, and report its size.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 * @param {{x: number, y: number, width: number, height: number}} [clip]
 */
async function shoot(page, name, clip) {
  const path = join(OUT, name);
  await page.screenshot({ path, clip, type: 'png', animations: 'disabled', caret: 'hide' });
  console.log(`screenshots: ${path} (${(statSync(path).size / 1000).toFixed(0)} KB)`);
}

let failed = false;
try {
  // 1. The lesson: the settings beside the verified head tables (the sidebar is sticky), in
  // one window's height, scrolled so that the section "Verified: different heads attend
  // differently" starts at the top.
  {
    const { context, page, errors } = await lessonPage(LESSON_HEIGHT);
    await page.evaluate(() => document.querySelector('#heads').scrollIntoView({ behavior: 'instant', block: 'start' }));
    await page.waitForTimeout(300);
    await shoot(page, 'lesson.png');
    if (errors.length) throw new Error(`the lesson logged errors: ${errors.join('; ')}`);
    await context.close();
  }
  // 2. The training section, trained: Train, then the verdict, every table showing its final
  // weights. The window is as tall as the section, so that all of it is laid out and in view.
  {
    const { context, page, errors } = await lessonPage(1400);
    const toSection = () => page.evaluate(() => document.querySelector('#train').scrollIntoView({ behavior: 'instant', block: 'start' }));
    await toSection();
    await page.waitForSelector('hw-train[data-drawn] #train-run:not([disabled])', { state: 'attached', timeout: 60000 });
    await page.click('#train-run');
    await page.waitForSelector('hw-train[data-done]', { state: 'attached', timeout: TRAIN_TIMEOUT });
    const height = await page.$eval('#train', (el) => el.getBoundingClientRect().height);
    await page.setViewportSize({ width: WIDTH, height: Math.ceil(height) + 48 });
    await toSection();
    await page.waitForTimeout(500);
    // From the section's heading through the 2-head model's tables: the controls, the curves,
    // the verdict, the single head splitting its weight, and two heads that divided the work.
    const clip = await page.evaluate(() => {
      const top = document.querySelector('#train').getBoundingClientRect();
      const two = document.querySelector('#train section.hw-train-model[data-heads="2"]').getBoundingClientRect();
      const pad = 16;
      return { x: Math.max(0, top.left - pad), y: Math.max(0, top.top - pad), width: top.width + 2 * pad, height: two.bottom - top.top + 2 * pad };
    });
    await shoot(page, 'training.png', clip);
    if (errors.length) throw new Error(`the training section logged errors: ${errors.join('; ')}`);
    await context.close();
  }
} catch (e) {
  console.error(`screenshots: ${e.message}`);
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
