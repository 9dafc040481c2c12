// Layout in every engine, at a phone's, a tablet's and a laptop's width: the lesson, the gallery
// and each iframe widget; in dark mode too, at the phone's width only (dark mode changes colours
// only, which tests/js/dark-css.test.mjs checks, so its geometry is light mode's). Nothing makes
// the page scroll sideways (only containers meant to scroll may), no identifier or shape in a
// table breaks across lines, nothing is clipped by a box too small for it, and a table's caption
// stays within the width of the box that scrolls the table; NumPy printouts wrap rather than
// scroll. Full-page screenshots are saved under build/screenshots/<engine>/ to
// be looked at (unless HEADWISE_SCREENSHOTS=0).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ENGINE, ROOT, layoutProblems, settle, shareBrowser, withCleanPage } from './helpers.mjs';

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

// HEADWISE_SCREENSHOTS=0 (as in CI, where nobody looks at them) saves the time they take.
const SHOTS = process.env.HEADWISE_SCREENSHOTS === '0' ? null : join(ROOT, 'build', 'screenshots', ENGINE);
if (SHOTS) mkdirSync(SHOTS, { recursive: true });

const WIDTHS = [360, 768, 1280];
const WIDGETS = ['heads', 'params', 'ex1', 'ex2', 'ex3', 'quiz', 'python', 'lesson'];
const PAGES = [
  ['lesson', '/index.html', 'hw-head-weights[data-ready]'],
  ['lesson-heatmaps', '/index.html#tokens=20&d_model=64&heads=32&bias=1', 'hw-head-weights[data-ready]'],
  ['gallery', '/gallery.html', 'section[data-widget="lesson"]'],
  ...WIDGETS.map((w) => [`embed-${w}`, `/embed.html?widget=${w}&id=${w}`, 'main#embed > *']),
];

for (const [colorScheme, widths] of [['light', WIDTHS], ['dark', [WIDTHS[0]]]]) {
  describe(`layout, ${colorScheme}`, () => {
    for (const width of widths) {
      test(`${width} px: no sideways scrolling, no broken identifiers, nothing cut off`, { timeout: 600000 }, async () => {
        const found = [];
        await withCleanPage(browser, null, async (page) => {
          for (const [name, path, ready] of PAGES) {
            await page.goto('about:blank');
            await page.goto(server.url(path));
            await page.waitForSelector(ready, { state: 'attached', timeout: 30000 });
            await page.waitForFunction(() => !document.querySelector('[data-busy]'));
            await settle(page);
            assert.equal((await page.viewport()).width, width, 'the viewport has the width asked for');
            if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-${width}-${colorScheme}.png`), fullPage: true });
            found.push(...(await page.evaluate(layoutProblems)).map((p) => `${name}: ${p}`));
          }
        }, { context: { colorScheme, viewport: { width, height: 900 } }, origin: server.origin });
        assert.deepEqual(found, []);
      });
    }
  });
}
