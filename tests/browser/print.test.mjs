// The lesson printed, as a student prints a handout: Chromium's own PDF output (A4 and Letter),
// read back with poppler's pdftotext and pdftoppm. Every number of the lesson's run is on paper;
// the page count is sane; nothing fixed (the floating "Settings" link) repeats on every page; no
// buttons; the weights' shading is really printed (dark cells, not white text on white paper);
// every text prints at a contrast of at least 4.5:1 against what is printed behind it; the
// training section prints its run once there is one, and a line saying how otherwise.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { scratchDir } from './engine.mjs';
import { INDEX_FILE_URL, engine, reachTraining, shareBrowser, waitReady, DESKTOP } from './helpers.mjs';

const POPPLER = spawnSync('pdftotext', ['-v'], { encoding: 'utf8' });
const skip = engine.skipUnless('pdf');

let browser;
let page;
let scratch;

if (!skip.skip) {
  before(() => {
    assert.ok(!POPPLER.error, 'pdftotext is missing: install poppler-utils (apt-get install poppler-utils)');
    scratch = scratchDir('headwise-print-');
  });
  shareBrowser(async (b) => {
    browser = b;
    const context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    await page.goto(INDEX_FILE_URL);
    await waitReady(page);
    return () => context.close();
  }, null);
  after(() => scratch?.remove());
}

/**
 * Print the page to PDF; its text page by page, and its page count.
 * @param {'A4'|'Letter'} format
 */
async function print(format) {
  const file = join(scratch.dir, `lesson-${format}.pdf`);
  writeFileSync(file, await page.raw.pdf({ format }));
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  const pages = text.split('\f').filter((p, i, all) => i < all.length - 1 || p.trim());
  return { file, pages, text };
}

/**
 * Page `n` (1-based) rendered at 50 dots per inch, as [r, g, b] pixels (pdftoppm's PPM).
 * @param {string} file
 * @param {number} n
 */
function pixels(file, n) {
  const ppm = execFileSync('pdftoppm', ['-r', '50', '-f', String(n), '-l', String(n), file]);
  const header = ppm.subarray(0, 40).toString('latin1').match(/^P6\s+(\d+)\s+(\d+)\s+255\s/);
  const data = ppm.subarray(header[0].length);
  const out = [];
  for (let i = 0; i + 2 < data.length; i += 3) out.push([data[i], data[i + 1], data[i + 2]]);
  return out;
}

for (const [format, most] of [['A4', 22], ['Letter', 22]]) {
  test(`printed on ${format}: every number of the lesson's run, on a sane number of pages, with nothing repeated on each`, skip, async () => {
    const { file, pages, text } = await print(format);
    assert.ok(pages.length >= 8 && pages.length <= most, `${pages.length} pages`);
    // The lesson's numbers: head 0's split, head 1's token 4, the pair's divergence, the counts.
    for (const n of ['0.424', '0.576', '0.997', '0.965', '0.544', '256', '576']) assert.ok(text.includes(n), `${n} is printed`);
    // The floating "Settings" link would print on every page: the word stands alone on one page
    // only, the settings' own heading.
    const alone = pages.filter((p) => /^\s*Settings\s*$/m.test(p)).length;
    assert.equal(alone, 1, `"Settings" alone on a line on ${alone} pages`);
    for (const gone of ['Skip to the settings', 'Show the answer', 'Back to the lesson', 'Reveal the discussion']) {
      assert.ok(!text.includes(gone), `"${gone}" is not printed`);
    }
    assert.match(text, /Not trained when this copy was printed/);
    assert.match(text, /Printed from\s+file:\/\//);
    // The head tables' page: the strongest weights print as dark cells (deep blue), not white.
    const n = pages.findIndex((p) => /Head 0/.test(p) && /Head 1/.test(p)) + 1;
    assert.ok(n > 0, 'the head tables are printed on one page');
    const dark = pixels(file, n).filter(([r, g, b]) => r < 60 && g < 90 && b > 90 && b - r > 50).length;
    assert.ok(dark > 150, `${dark} deep-blue pixels on page ${n}`);
  });
}

for (const scheme of ['light', 'dark']) {
  test(`every text prints at 4.5:1 or more against what is printed behind it (system in ${scheme} mode)`, skip, async () => {
    // The dark scheme is the screen's only: printed, the page is black on white either way.
    let where = page;
    let own = null;
    if (scheme === 'dark') {
      own = await browser.newContext({ viewport: DESKTOP, colorScheme: 'dark' });
      where = await own.newPage();
      await where.goto(INDEX_FILE_URL);
      await waitReady(where);
    }
    await where.raw.emulateMedia({ media: 'print' });
    try {
      const low = await where.evaluate(() => {
        const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
        const lum = ([r, g, b]) => {
          const f = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        // What paper shows behind an element: the nearest background printed exactly, else white.
        const behind = (el) => {
          for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
            const cs = getComputedStyle(e);
            const bg = rgb(cs.backgroundColor);
            const exact = cs.printColorAdjust === 'exact' || cs.webkitPrintColorAdjust === 'exact';
            if (bg.length >= 3 && (bg[3] === undefined || bg[3] > 0.5) && exact) return bg;
          }
          return [255, 255, 255];
        };
        const out = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let t = walker.nextNode(); t; t = walker.nextNode()) {
          if (!t.textContent.trim()) continue;
          const el = t.parentElement;
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
          const fg = rgb(getComputedStyle(el).color);
          const [a, b] = [lum(fg), lum(behind(el))].sort((x, y) => y - x);
          const ratio = (a + 0.05) / (b + 0.05);
          if (ratio < 4.5) out.push(`${t.textContent.trim().slice(0, 30)} (${el.localName}.${el.className}): ${ratio.toFixed(2)}`);
        }
        return out;
      });
      assert.deepEqual(low.slice(0, 20), [], `${low.length} texts print below 4.5:1`);
    } finally {
      await where.raw.emulateMedia({ media: null });
      await own?.close();
    }
  });
}

test('once trained, the training section prints its run instead of the line saying how', skip, async () => {
  await reachTraining(page);
  await page.click('#train-step');
  await page.waitForSelector('hw-train[data-trained]', { state: 'attached' });
  const { text } = await print('A4');
  assert.match(text, /step 1 of 600/);
  assert.match(text, /step 1: loss \d\.\d{3}, accuracy \d\.\d{3} \(training batch\) · \d+ parameters/);
  assert.match(text, /Loss on each training batch/);
  assert.doesNotMatch(text, /Not trained when this copy was printed/);
});
