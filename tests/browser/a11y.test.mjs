// Accessibility: axe-core finds no WCAG 2.2 AA violations (light and dark, several settings);
// every control is reached with Tab and operated with the keyboard alone; the number in every
// shaded weight cell has at least 4.5:1 contrast against its cell.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  ENGINE, gotoFresh, headTable, reachTraining, settle, shareBrowser, waitReady, withPage,
} from './helpers.mjs';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

/** The lesson over http in a fresh context, with a clean log required afterwards. */
// The whole lesson, the training section and "Your own sentence" included (they load when the
// reader comes near them).
const openLesson = (hash, options, body) =>
  withPage(browser, server, 'http', hash, async (page) => {
    await reachTraining(page);
    await reachTraining(page, { section: '#sentence', ready: 'hw-sentence[data-model][data-words]' });
    await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
    await body(page);
  }, options);

/** axe's violations, one readable line per failing element. */
async function axeViolations(page) {
  // axe-core's own script, run in the page by the driver (the page's CSP does not apply to it).
  await page.addScript(AXE_SOURCE);
  const result = await page.evaluate((tags) => /** @type {any} */ (window).axe.run(document, { runOnly: { type: 'tag', values: tags } })
    .then((r) => ({ passes: r.passes.map((p) => p.id), violations: r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })) })), WCAG_22_AA);
  assert.ok(result.passes.length > 20, 'axe ran its checks');
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`));
}

describe('axe-core: zero WCAG 2.2 AA violations', () => {
  // One page per colour scheme, opened at the first setting with everything that starts closed
  // opened; each later setting is then reached as a reader reaches it, by a new address (the
  // page follows hashchange), and checked again. A fresh page per setting took about twice as
  // long, most of it in opening and clicking, not in axe.
  const cases = [
    // [name, address, checked in the dark scheme in every engine (see below)]
    ['the lesson\'s defaults', '', true],
    ['8 heads', '#heads=8', false],
    ['an invalid setting (d_model 10, 4 heads)', '#d_model=10&heads=4', true],
    ['20 tokens (heatmaps), bias and causal mask', '#tokens=20&bias=1&causal=1', false],
  ];
  for (const colorScheme of ['light', 'dark']) {
    // Dark mode changes colours only (tests/js/dark-css.test.mjs), so its structure is light
    // mode's: in Firefox and WebKit, whose axe runs take two to three times Chromium's, the dark
    // scheme is checked at the defaults and with an error shown (its own colours); Chromium
    // checks every setting in both. Shaded cells' contrast is checked below in both schemes.
    const settings = colorScheme === 'dark' && ENGINE !== 'chromium' ? cases.filter(([, , everyEngine]) => everyEngine) : cases;
    test(`each setting in turn, ${colorScheme}`, async (t) => {
      await openLesson(cases[0][1], { colorScheme }, async (page) => {
        // Open everything that starts closed, so it is checked too.
        await page.click('hw-controls summary');
        await page.click('#challenge-reveal');
        for (const b of await page.$$('hw-quiz button[aria-controls]')) await b.click();
        await page.check('fieldset[data-question="1"] input[data-correct="false"] >> nth=0');
        await page.check('fieldset[data-question="2"] input[data-correct="true"]');
        for (const [i, [name, hash]] of settings.entries()) {
          await t.test(name, async () => {
            if (i > 0) await page.evaluate((h) => { location.hash = h; }, hash);
            const want = new URLSearchParams(hash.slice(1));
            // The fields show the new setting (those the address leaves out, their defaults).
            await page.waitForFunction((w) => ['tokens', 'd-model', 'num-heads'].every((id, k) => /** @type {HTMLInputElement} */ (document.getElementById(id)).value === w[k]),
              [want.get('tokens') || '5', want.get('d_model') || '8', want.get('heads') || '2']);
            await settle(page);
            if (hash.includes('d_model=10')) assert.ok(await page.isVisible('[data-error-for="num-heads"]'));
            assert.deepEqual(await axeViolations(page), []);
          });
        }
      });
    });
  }
  test('360 px wide, dark, with an error and labels', async () => {
    await openLesson('#heads=3&label.0=%D8%A7%D9%84%D9%82%D8%B7&label.1=%F0%9F%90%88', { colorScheme: 'dark', viewport: { width: 360, height: 740 } }, async (page) => {
      await page.click('hw-controls summary');
      assert.deepEqual(await axeViolations(page), []);
    });
  });
});

/** A short description of the focused element. */
function focused(page) {
  return page.evaluate(() => {
    const e = /** @type {HTMLElement|null} */ (document.activeElement);
    if (!e || e === document.body) return { key: 'BODY', visible: true };
    const key = e.id ? `#${e.id}` : e.matches('canvas.hw-heatmap') ? `canvas[data-head="${e.dataset.head}"]`
      : e.matches('hw-quiz button') ? `quiz-reveal:${e.getAttribute('aria-controls')}` : e.matches('.hw-copy') ? `copy:${e.getAttribute('aria-label')}`
        : e.matches('summary') ? 'summary' : e.matches('.hw-pager button') ? `pager:${e.textContent}`
          : e.dataset.testid ? `testid:${e.dataset.testid}` : `${e.localName}.${e.className}`;
    const cs = getComputedStyle(e);
    const visible = e.matches(':focus-visible') && ((cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none');
    return { key, visible };
  });
}

/**
 * Tab from the top of the page to its end; every stop, in order. A focusable marker at the end
 * of the body stops the cycle inside the page: tabbing past the last stop would move focus to
 * the browser's own controls, and headless Firefox never gives the page the system focus back
 * (keys still reach the focused element, but Enter then presses no button).
 */
async function tabStops(page) {
  await page.evaluate(() => {
    /** @type {HTMLElement} */ (document.activeElement)?.blur();
    window.scrollTo(0, 0);
    const end = document.createElement('span');
    end.id = 'tab-stops-end';
    end.tabIndex = 0;
    document.body.append(end);
  });
  const stops = [];
  for (let i = 0; i < 400; i += 1) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f.key === '#tab-stops-end' || f.key === 'BODY' || (stops.length && f.key === stops[0].key)) break;
    stops.push(f);
  }
  // Back to the top: the next Tab starts from the page's beginning, not from the removed marker
  // (which would again lead out of the page).
  await page.evaluate(() => {
    const start = document.createElement('span');
    start.tabIndex = -1;
    document.body.prepend(start);
    start.focus({ preventScroll: true });
    start.remove();
    document.getElementById('tab-stops-end')?.remove();
  });
  return stops;
}

/**
 * Focus a control by pressing Tab (or Shift+Tab) until it has focus (proves it is in the tab order).
 * @param {import('playwright-core').Page} page
 * @param {string|RegExp} key
 */
async function tabTo(page, key, press = 'Tab') {
  for (let i = 0; i < 400; i += 1) {
    await page.keyboard.press(press);
    const k = (await focused(page)).key;
    if (typeof key === 'string' ? k === key : key.test(k)) return;
  }
  assert.fail(`${key} was never reached with Tab`);
}

/** Replace a focused field's content by keyboard. */
async function typeKeys(page, text) {
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await settle(page);
}

describe('keyboard', () => {
  test('every control is reached with Tab, in order, with a visible focus indicator', async () => {
    await openLesson('', {}, async (page) => {
      const stops = await tabStops(page);
      // WebKit makes each scrolling box (the wide tables' div.hw-scroll) a tab stop of its own, so
      // that a keyboard reader can scroll it; they are not part of the controls' order.
      const keys = stops.map((s) => s.key).filter((k) => !(ENGINE === 'webkit' && k === 'div.hw-scroll'));
      const required = ['#seed', '#tokens', '#d-model', '#num-heads', '#bias', '#causal', '#query-token', 'summary', '#reset',
        '#ex1-seed', '#ex2-d-model', '#ex2-heads', '#train-task', '#train-seed', '#train-run', '#train-step',
        'testid:sentence-preset', '#sentence-text', 'testid:sentence-word', '#sentence-split-word', 'testid:sentence-switch',
        '#sentence-promoted-head', '#sentence-find-head', 'testid:find-check', '#challenge-answer', '#challenge-reveal',
        '#q1-o0', 'quiz-reveal:q1-answer', '#q2-o0', 'quiz-reveal:q2-answer', '#q3-o0', 'quiz-reveal:q3-answer',
        '#q4-o0', 'quiz-reveal:q4-answer', '#q5-o0', 'quiz-reveal:q5-answer'];
      for (const key of required) assert.ok(keys.includes(key), `${key} is not in the tab order: ${keys.join(' ')}`);
      // The skip link, the masthead's language switcher, the contents (a link per part, then its
      // copy-link and forget buttons), then the settings, in reading order; one stop per quiz
      // question (arrows move within it).
      assert.equal(keys[0], 'a.hw-skip');
      assert.equal(keys[1], '#hw-language-select');
      const parts = await page.evaluate(() => document.querySelectorAll('#contents a').length);
      const seed = keys.indexOf('#seed');
      // (Firefox makes the sticky column and the contents' list, boxes that scroll, stops of their own.)
      const scrollBoxes = ENGINE === 'firefox' ? ['aside.hw-sidebar', 'ol.hw-contents-list'] : [];
      assert.deepEqual(keys.slice(2, seed).filter((k) => !scrollBoxes.includes(k)), [...Array(parts).fill('a.'), 'testid:copy-link', 'testid:forget']);
      assert.deepEqual(keys.slice(seed, seed + 9), required.slice(0, 9));
      assert.equal(keys.filter((k) => /^#q\d-o/.test(k)).length, 5);
      // The sentence's words are one stop (the arrow keys move along them); each head's switch is one.
      assert.equal(keys.filter((k) => k === 'testid:sentence-word').length, 1);
      assert.equal(keys.filter((k) => k === 'testid:sentence-switch').length, 8);
      // NumPy, parameter counts, each head's circuits, exercise 3, the three training scripts and
      // the induction circuits' script, the sentence's two scripts.
      assert.equal(keys.filter((k) => k.startsWith('copy:')).length, 10);
      const invisible = stops.filter((s) => !s.visible).map((s) => s.key);
      assert.deepEqual(invisible, [], 'focused without a visible indicator');
    });
  });

  test('the settings are operated with the keyboard alone', async () => {
    await openLesson('', {}, async (page) => {
      const row0 = async () => (await headTable(page, 0))[0];
      await tabTo(page, '#seed');
      await typeKeys(page, '11');
      assert.match((await page.url()), /seed=11&/);
      assert.notDeepEqual(await row0(), ['0', '0', '0.424', '0.576', '0']);
      await page.keyboard.press('ArrowUp'); // a number field steps with the arrows
      await settle(page);
      assert.equal(await page.inputValue('#seed'), '12');
      assert.match((await page.url()), /seed=12&/);
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).key, '#tokens');
      await typeKeys(page, '6');
      assert.equal((await row0()).length, 6);
      await page.keyboard.press('Tab');
      await typeKeys(page, '12');
      await page.keyboard.press('Tab');
      await typeKeys(page, '3');
      assert.equal((await page.$$('hw-head-weights table.hw-weights[data-head]')).length, 3);
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).key, '#bias');
      await page.keyboard.press('Space');
      await settle(page);
      assert.equal(await page.isChecked('#bias'), true);
      assert.match((await page.url()), /bias=1/);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Space');
      await settle(page);
      assert.equal(await page.isChecked('#causal'), true);
      assert.deepEqual(await row0(), ['1', '0', '0', '0', '0', '0']); // token 0 sees only itself
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).key, '#query-token');
      await page.keyboard.press('ArrowDown');
      await settle(page);
      assert.equal(await page.inputValue('#query-token'), '1');
      assert.equal(await page.getAttribute('hw-head-weights table[data-head="0"] tr[data-token="1"]', 'data-query'), 'true');
      // The token labels open with Enter; their fields follow in the tab order.
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).key, 'summary');
      await page.keyboard.press('Enter');
      await settle(page);
      await page.keyboard.press('Tab');
      // Firefox makes a scroll container a tab stop of its own (the labels' box scrolls past 6 tokens).
      if (ENGINE === 'firefox' && (await focused(page)).key === '#token-labels') await page.keyboard.press('Tab');
      assert.equal((await focused(page)).key, '#label-0');
      await typeKeys(page, 'cat');
      assert.equal(await page.textContent('hw-head-weights table[data-head="0"] thead th[data-col="0"] .hw-tok-label'), 'cat');
      // Back to the lesson's settings.
      await tabTo(page, '#reset');
      await page.keyboard.press('Enter');
      await settle(page);
      assert.deepEqual(await row0(), ['0', '0', '0.424', '0.576', '0']);
      assert.equal(await page.inputValue('#seed'), '7');
    });
  });

  test('the exercises, the challenge and the quiz are operated with the keyboard alone', async () => {
    await openLesson('', {}, async (page) => {
      await tabTo(page, '#ex1-seed');
      await typeKeys(page, '99');
      assert.match(await page.textContent('[data-testid=ex1-verdict][data-heads="4"]'), /6 of 6 pairs differ/);
      await tabTo(page, '#ex2-d-model');
      await typeKeys(page, '20');
      assert.deepEqual(await page.$$eval('[data-testid=ex2-row] th', (t) => t.map((x) => x.textContent)), ['1', '2', '4', '5', '10', '20']);
      await tabTo(page, '#ex2-heads');
      await typeKeys(page, '3');
      assert.match(await page.textContent('[data-error-for="ex2-heads"]'), /embed_dim \(20\) must be divisible by num_heads \(3\)/);
      await tabTo(page, '#challenge-answer');
      await page.keyboard.type('Fewer separate patterns.');
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).key, '#challenge-reveal');
      await page.keyboard.press('Enter');
      assert.ok(await page.isVisible('[data-testid=challenge-discussion]'));
      // Quiz: Tab reaches the group, Space chooses, the arrows move to (and choose) the next option.
      await tabTo(page, '#q1-o0');
      await page.keyboard.press('Space');
      assert.equal(await page.isChecked('#q1-o0'), true);
      assert.match(await page.textContent('[data-testid=quiz-feedback][data-question="1"]'), /^Not quite\./);
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.isChecked('#q1-o1'), true);
      assert.match(await page.textContent('[data-testid=quiz-feedback][data-question="1"]'), /^Correct\./);
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).key, 'quiz-reveal:q1-answer');
      await page.keyboard.press('Space');
      assert.ok(await page.isVisible('[data-testid=quiz-answer][data-question="1"]'));
      await page.keyboard.press('Enter');
      assert.ok(await page.isHidden('[data-testid=quiz-answer][data-question="1"]'));
      // A copy button works from the keyboard (clipboard, or selection where it is refused).
      await tabTo(page, /^copy:/);
      await page.keyboard.press('Enter');
      // The status beside the button pressed (each copy button has its own).
      await page.waitForFunction(() => /Copied|Selected/.test(document.activeElement?.parentElement?.querySelector('.hw-copy-status')?.textContent || ''));
    });
  });

  test('at 360 px no focused control is hidden behind the floating "Settings" link, which keeps the settings', async () => {
    await openLesson('', { viewport: { width: 360, height: 740 } }, async (page) => {
      await page.fill('#seed', '11');
      await settle(page);
      await page.evaluate(() => { /** @type {HTMLElement} */ (document.activeElement)?.blur(); window.scrollTo(0, 0); });
      const hidden = [];
      let stops = 0;
      for (let i = 0; i < 400; i += 1) {
        await page.keyboard.press('Tab');
        await settle(page); // WebKit scrolls a newly focused control into view at its next rendering update
        const r = await page.evaluate(() => {
          const e = /** @type {HTMLElement|null} */ (document.activeElement);
          if (!e || e === document.body) return null;
          const a = e.getBoundingClientRect();
          const b = /** @type {HTMLElement} */ (document.querySelector('.hw-to-settings')).getBoundingClientRect();
          const covered = a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;
          const offscreen = a.bottom <= 0 || a.top >= innerHeight;
          return { key: e.id || e.className || e.localName, covered: covered && !e.matches('.hw-to-settings'), offscreen };
        });
        if (!r) break;
        stops += 1;
        if (r.covered || r.offscreen) hidden.push(r);
        if (r.key === 'hw-to-settings') {
          // The floating link is the last stop; following it moves to the settings, keeping them.
          await page.keyboard.press('Enter');
          await settle(page);
          assert.equal(await page.inputValue('#seed'), '11');
          assert.equal(await page.isVisible('[data-testid=hash-notice]'), false);
          assert.ok(await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('settings')).getBoundingClientRect().top < innerHeight));
          break;
        }
      }
      assert.ok(stops > 30, `only ${stops} tab stops`);
      assert.deepEqual(hidden, []);
    });
  });

  test('heatmaps (more than 16 tokens) and the head pager are operated with the keyboard', async () => {
    await openLesson('#tokens=20&d_model=64&heads=32', {}, async (page) => {
      const stops = (await tabStops(page)).map((s) => s.key);
      for (let head = 0; head < 16; head += 1) assert.ok(stops.includes(`canvas[data-head="${head}"]`), `heatmap ${head} in the tab order`);
      assert.ok(stops.includes('pager:Next heads →'));
      await tabTo(page, 'canvas[data-head="0"]');
      const readout = page.locator('hw-head-weights figure[data-head="0"] [data-testid=readout]');
      assert.match(await readout.textContent(), /^Head 0: query 0 \(t0\) → key 0 \(t0\) = /);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.match(await readout.textContent(), /^Head 0: query 2 \(t2\) → key 1 \(t1\) = \d/);
      await page.keyboard.press('End');
      assert.match(await readout.textContent(), /→ key 19 \(t19\) = /);
      await page.keyboard.press('Enter');
      await settle(page);
      assert.equal(await page.inputValue('#query-token'), '2');
      // Back up to the pager (it comes before the heatmaps): going forward would leave the page
      // at its end, which in Firefox moves focus to the browser's own controls.
      await tabTo(page, 'pager:Next heads →', 'Shift+Tab');
      await page.keyboard.press('Enter');
      // The next page of heads is drawn when the module's results arrive (later in some engines).
      await page.waitForFunction(() => document.querySelector('hw-head-weights canvas.hw-heatmap')?.getAttribute('data-head') !== '0');
      const heads = await page.$$eval('hw-head-weights canvas.hw-heatmap', (cs) => cs.map((c) => c.dataset.head));
      assert.deepEqual(heads, Array.from({ length: 16 }, (_, i) => String(16 + i)));
    });
  });
});

/** Contrast of every shaded cell: [description, ratio] for those under 4.5, and how many were checked. */
function shadedCellContrast(page) {
  return page.evaluate(() => {
    /** @param {string} css */
    const rgb = (css) => {
      const m = css.match(/rgba?\(([^)]+)\)/);
      if (!m) throw new Error(`unreadable colour ${css}`);
      const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      if (a !== 1) throw new Error(`translucent colour ${css}`);
      return [r, g, b];
    };
    /** @param {number[]} c */
    const lum = (c) => {
      const [r, g, b] = c.map((v) => { const s = v / 255; return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const cells = [...document.querySelectorAll('table.hw-weights td, .hw-swatch')].filter((el) => /** @type {HTMLElement} */ (el).style.backgroundColor);
    const low = [];
    for (const el of cells) {
      const cs = getComputedStyle(el);
      const [l1, l2] = [lum(rgb(cs.color)), lum(rgb(cs.backgroundColor))];
      const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      let opacity = 1;
      for (let e = /** @type {Element|null} */ (el); e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      if (ratio < 4.5 || opacity !== 1) low.push(`${el.textContent} on ${cs.backgroundColor} in ${cs.color}: ${ratio.toFixed(2)}:1, opacity ${opacity}`);
    }
    return { checked: cells.length, low };
  });
}

describe('contrast of the numbers in shaded cells', () => {
  for (const colorScheme of ['light', 'dark']) {
    test(`every shaded cell is at least 4.5:1 (${colorScheme})`, async () => {
      await openLesson('', { colorScheme }, async (page) => {
        for (const hash of ['', '#heads=8&d_model=16&tokens=9&bias=1', '#causal=1&heads=4&seed=3&query=2']) {
          await gotoFresh(page, server.url('/index.html') + hash);
          await waitReady(page);
          const { checked, low } = await shadedCellContrast(page);
          // Head tables, exercise 1's and 3's rows, and the legend.
          assert.ok(checked >= 60, `${hash}: only ${checked} shaded cells found`);
          assert.deepEqual(low, [], hash);
        }
        // The last valid tables, kept (marked stale) while a setting is invalid.
        await page.fill('#d-model', '10');
        await settle(page);
        assert.equal(await page.getAttribute('hw-head-weights', 'data-stale'), '');
        const { checked, low } = await shadedCellContrast(page);
        assert.ok(checked >= 60, `stale: only ${checked} shaded cells found`);
        assert.deepEqual(low, [], 'stale tables');
      });
    });
  }
});
