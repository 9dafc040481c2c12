// A change of seed redraws the lesson in place: the head-weight cells, exercise 3's cells, the
// printout and the NumPy listing are the same nodes before and after, showing the new run's
// numbers (computed here in Node by dist/headwise.js, the module the page runs). A change of
// shape (2 heads to 4) rebuilds the tables, which then show the 4-head run, and a change of
// seed after it is in place again.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { DIST, loadWholeLesson, settle, shareBrowser, withCleanPage, waitLoaded } from './helpers.mjs';
import { fmt3, fmtSig, npRound } from '../../web/src/shared/ui/format.js';
import { cellColors } from '../../web/src/shared/ui/color.js';

const createHeadwise = createRequire(import.meta.url)(join(DIST, 'headwise.js'));
const hw = await createHeadwise();
const run = (seed, numHeads) => hw.seedExperiment({ seed, tokens: 5, dModel: 8, numHeads });

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

/** The nodes a redraw in place keeps, stashed in the page (window.__kept) to be compared later. */
const KEPT = {
  cell: 'hw-head-weights table.hw-weights[data-head="1"] td[data-row="0"][data-col="4"]',
  wq: 'hw-exercise-torch [data-testid=ex3-wq] td[data-row="0"][data-col="0"]',
  printout: 'hw-head-weights [data-testid=query-rows]',
  numpy: '#python-numpy code',
  pairDiff: 'hw-head-weights [data-testid=pair] td.hw-num',
  torchOutput: '[data-testid=python-torch-output]',
  // Exercise 3's two numbers in its sentences (PyTorch's heads against the manual ones, and
  // heads 0 and 1 against each other).
  ex3WeightsDiff: '[data-testid=ex3-weights-maxdiff]',
  ex3Divergence: '[data-testid=ex3-divergence] > span',
};

/** Runs in the page: remember each element of `sel` and its first child (a text node). */
function keep(sel) {
  /** @type {Record<string, [Element|null, Node|null]>} */
  const kept = {};
  for (const [name, s] of Object.entries(sel)) {
    const el = document.querySelector(s);
    kept[name] = [el, el && el.firstChild];
  }
  /** @type {any} */ (window).__kept = kept;
  return Object.fromEntries(Object.entries(kept).map(([k, [el, t]]) => [k, Boolean(el && t && t.nodeType === 3)]));
}

/** Runs in the page: for each kept element, is it still in the page, with the same text node? */
function stillKept(sel) {
  const kept = /** @type {any} */ (window).__kept;
  return Object.fromEntries(Object.entries(sel).map(([name, s]) => {
    const [el, text] = kept[name];
    return [name, {
      sameElement: el === document.querySelector(s) && el.isConnected,
      sameText: el.firstChild === text,
      text: el.textContent,
    }];
  }));
}

/** Runs in the page: every weight cell of every head table, as shown. */
function weightCells() {
  return [...document.querySelectorAll('hw-head-weights table.hw-weights[data-head]')].map((table) => [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-col]')].map((td) => ({
    text: td.textContent, value: td.getAttribute('data-value'), bg: /** @type {HTMLElement} */ (td).style.backgroundColor,
  }))));
}

/**
 * Every head table shows `expected` (the module's run): text, exact value and colour per cell.
 * @param {any[][][]} shown
 * @param {any} expected
 */
function assertTables(shown, expected) {
  assert.equal(shown.length, expected.numHeads, 'one table per head');
  shown.forEach((rows, head) => rows.forEach((row, i) => row.forEach((cell, j) => {
    const w = expected.headWeights[head][i][j];
    assert.deepEqual(cell, { text: fmt3(w), value: String(w), bg: cellColors(w, false).bg }, `head ${head}, cell (${i}, ${j})`);
  })));
}

/** The numbers of a NumPy-style printout line, e.g. "[0.    0.424 1.   ]" -> [0, 0.424, 1]. */
const numbersIn = (line) => (line.match(/\[([^\]]*)\]/)?.[1] ?? '').trim().split(/\s+/).map(Number);

test('a change of seed redraws in place; a change of head count rebuilds', { timeout: 300000 }, async () => {
  await withCleanPage(browser, server.url('/index.html'), async (page) => {
    assertTables(await page.evaluate(weightCells), run(7, 2));
    assert.deepEqual(await page.evaluate(keep, KEPT), { cell: true, wq: true, printout: true, numpy: true, pairDiff: true, torchOutput: true, ex3WeightsDiff: true, ex3Divergence: true });
    const divergence = (r) => fmtSig(hw.compareHeads({ headWeights: r.typed.headWeights })[0].meanJsDivergence);
    assert.equal(await page.textContent(KEPT.ex3Divergence), divergence(run(7, 2)));

    // A weight's tooltip is written when the pointer reaches it, and follows the numbers.
    const title = () => page.evaluate((s) => document.querySelector(s)?.getAttribute('title') ?? null, KEPT.cell);
    assert.equal(await title(), null, 'no tooltip before the pointer comes');
    await page.hover(KEPT.cell);
    assert.equal(await title(), `query 0 (t0) → key 4 (t4): ${run(7, 2).headWeights[1][0][4]}`);

    // Seed 7 -> 8: the same nodes, the new numbers.
    const r8 = run(8, 2);
    await page.fill('#seed', '8');
    await settle(page);
    await page.waitForFunction((v) => document.querySelector('hw-head-weights table.hw-weights[data-head="0"] td[data-row="0"][data-col="0"]')?.getAttribute('data-value') === v, String(r8.headWeights[0][0][0]), { timeout: 30000 });
    await page.waitForSelector('hw-exercise-torch[data-ready]:not([aria-busy])', { state: 'attached', timeout: 30000 });
    await settle(page);
    assertTables(await page.evaluate(weightCells), r8);
    const after = await page.evaluate(stillKept, KEPT);
    for (const [name, k] of Object.entries(after)) {
      assert.ok(k.sameElement, `${name}: the same element after the change of seed`);
      assert.ok(k.sameText, `${name}: the same text node after the change of seed`);
    }
    assert.equal(after.cell.text, fmt3(r8.headWeights[1][0][4]));
    assert.equal(after.wq.text, fmt3(r8.wq[0][0]));
    const lines = after.printout.text.split('\n');
    assert.deepEqual(numbersIn(lines[0]), r8.headWeights[0][0].map((w) => npRound(w, 3)), 'printout, head 0');
    assert.deepEqual(numbersIn(lines[1]), r8.headWeights[1][0].map((w) => npRound(w, 3)), 'printout, head 1');
    assert.match(after.numpy.text, /^np\.random\.seed\(8\)$/m);
    assert.equal(after.pairDiff.text, fmtSig(hw.compareHeads({ headWeights: r8.typed.headWeights })[0].maxAbsDiff));
    assert.match(after.torchOutput.text, /^outputs match: True$/m);
    assert.equal(after.ex3WeightsDiff.text, '0.0');
    assert.equal(after.ex3Divergence.text, divergence(r8));
    assert.notEqual(divergence(r8), divergence(run(7, 2)), 'seed 8 gives another divergence than seed 7');
    assert.equal(await title(), `query 0 (t0) → key 4 (t4): ${r8.headWeights[1][0][4]}`, 'the tooltip of the cell under the pointer, after the change');
    assert.doesNotMatch(after.numpy.text, /np\.random\.seed\(7\)/);

    // 2 heads -> 4: a new shape, new tables (the old cell is gone), the 4-head run's numbers.
    const r84 = run(8, 4);
    await page.fill('#num-heads', '4');
    await settle(page);
    await page.waitForFunction(() => document.querySelectorAll('hw-head-weights table.hw-weights[data-head]').length === 4, undefined, { timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('[data-testid=ex3-shape]')?.textContent === '(1, 4, 5, 5)', undefined, { timeout: 30000 });
    await settle(page);
    assertTables(await page.evaluate(weightCells), r84);
    const rebuilt = await page.evaluate(stillKept, { cell: KEPT.cell, wq: KEPT.wq });
    assert.equal(rebuilt.cell.sameElement, false, 'the head tables were rebuilt for 4 heads');
    assert.equal(await page.textContent(KEPT.wq), fmt3(r84.wq[0][0]));
    assert.equal((await page.$$('[data-testid=pair]')).length, 6);
    assert.match(await page.textContent('#python-numpy'), /^n, d_model, num_heads = 5, 8, 4$/m);
    assert.equal((await page.textContent('[data-testid=query-rows]')).split('\n').filter((l) => l.startsWith('head ')).length, 4);

    // And at 4 heads, a change of seed is in place again.
    const r94 = run(9, 4);
    await page.evaluate(keep, KEPT);
    await page.fill('#seed', '9');
    await settle(page);
    await page.waitForFunction((v) => document.querySelector('hw-head-weights table.hw-weights[data-head="3"] td[data-row="4"][data-col="4"]')?.getAttribute('data-value') === v, String(r94.headWeights[3][4][4]), { timeout: 30000 });
    await settle(page);
    assertTables(await page.evaluate(weightCells), r94);
    for (const [name, k] of Object.entries(await page.evaluate(stillKept, KEPT))) {
      assert.ok(k.sameElement && k.sameText, `${name}: kept across a change of seed at 4 heads`);
    }

  }, { context: { colorScheme: 'light' } });
});

// Sections and exercises off screen skip their style and layout (content-visibility: auto, from
// the first frame; not the training sections, which are laid out as they are built); as the page
// finishes loading, each is laid out once and keeps that height while off screen
// (src/page/first-load.js). A reader who jumps to a section must find it where the jump put it,
// not pushed away as the sections above take their real heights.
for (const width of [1280, 390]) {
  test(`at ${width} px: sections off screen skip layout, and a section jumped to stays put`, { timeout: 300000 }, async () => {
    await withCleanPage(browser, server.url('/index.html'), async (page) => {
      await waitLoaded(page, 30000);
      const modes = await page.evaluate(() => [...document.querySelectorAll('.hw-article > .hw-section, .hw-article > .hw-section > .hw-exercise')].map((s) => `${s.id}: ${getComputedStyle(s).contentVisibility}`));
      assert.ok(modes.length >= 11, `the lesson's sections and exercises: ${modes.join(', ')}`);
      // Every section of the article but the three training sections and "Your own sentence",
      // which are laid out when built, and the exercises' section, whose exercises skip each on
      // their own.
      for (const m of modes) assert.match(m, /^(train|heads-needed|induction|sentence|exercises):/.test(m) ? /: visible$/ : /: auto$/, modes.join(', '));
      /**
       * Scroll smoothly to a section, as the page's links do: it must end where an instant jump
       * puts it (sections passed on the way take their real heights; with estimated ones the
       * smooth scroll would end short or long), and still be there once the page has drawn.
       */
      const jump = async (id) => {
        const landed = await page.evaluate(async (id) => {
          const el = document.getElementById(id);
          const from = scrollY;
          el.scrollIntoView({ block: 'start', behavior: 'smooth' });
          // Until the scroll has started (a busy engine may take seconds: WebKitGTK on a loaded
          // machine took over 3 s) and then held still for 10 drawn frames and at least 1 s;
          // at most 30 s. Counted in frames, not in time alone: on a loaded machine WebKitGTK
          // drew no frame, and so moved no further, for over 500 ms in the middle of a smooth
          // scroll, which a stillness of 500 ms took for its end.
          const begun = performance.now();
          let last = from;
          let movedAt = begun;
          let still = 0;
          let started = false;
          while (performance.now() - begun < 30000) {
            await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 16)));
            started = started || scrollY !== from || Math.abs(el.getBoundingClientRect().top) <= 2;
            if (scrollY !== last) {
              last = scrollY;
              movedAt = performance.now();
              still = 0;
            } else {
              still += 1;
            }
            if (started && still >= 10 && performance.now() - movedAt >= 1000) break;
          }
          return started ? el.getBoundingClientRect().top : null;
        }, id);
        assert.notEqual(landed, null, `#${id}: the smooth scroll did not start within 30 s`);
        const put = await page.evaluate((id) => {
          document.getElementById(id).scrollIntoView({ block: 'start', behavior: 'instant' });
          return document.getElementById(id).getBoundingClientRect().top;
        }, id);
        assert.ok(Math.abs(landed - put) <= 2, `#${id}: a smooth scroll ended with it at ${landed} px from the top, an instant one at ${put} px`);
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 500)))));
        const later = await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top, id);
        assert.ok(Math.abs(later - put) <= 2, `#${id}: put at ${put} px from the top, then at ${later} px`);
      };
      // First from the top, past four sections not drawn since the page loaded.
      await jump('exercises');
      // Then below the training section, once it has loaded and grown (it loads when the reader
      // nears it, and WebKit, with no scroll anchoring, would move what is below it anyway).
      await loadWholeLesson(page);
      for (const id of ['challenge', 'quiz', 'python', 'pipeline']) await jump(id);
    }, { context: { viewport: { width, height: 900 } } });
  });
}

// A change redraws the widgets in view (or within 200 px of it) in its own task, and the others
// right after the next frame (web/src/shared/ui/element.js); inside a widget in view, exercise 3's
// table rows outside the window wait for the frame too: what the student sees is answered
// first. Read in the page: in the change's task (a hashchange listener after the store's), then
// after the frame.
test('a change redraws what is in view in its task, and what is out of view right after the next frame', { timeout: 120000 }, async () => {
  await withCleanPage(browser, server.url('/index.html#seed=7&tokens=5&d_model=8&heads=2'), async (page) => {
    const r7 = run(7, 2);
    const r8 = run(8, 2);
    const CELLS = {
      head: 'hw-head-weights table.hw-weights[data-head="0"] td[data-row="0"][data-col="2"]',
      wq: 'hw-exercise-torch [data-testid=ex3-wq] td[data-row="0"][data-col="0"]',
      // Exercise 3's per-head rows, a window below its first table: a row out of the window
      // waits for the frame even while its widget is in view.
      rows: 'hw-exercise-torch [data-testid=ex3-rows] tr[data-head="0"] td[data-col="2"]',
    };
    /** Runs in the page: change the seed and read both cells in the change's task and after. */
    const change = ({ cells, hash }) => new Promise((resolve) => {
      const read = () => ({
        head: document.querySelector(cells.head).getAttribute('data-value'),
        wq: document.querySelector(cells.wq).textContent,
        rows: document.querySelector(cells.rows).textContent,
      });
      window.addEventListener('hashchange', () => {
        const inTask = read();
        // After the frame: the deferred redraw is handed on in the frame's callbacks (the page's
        // frame callback was asked for before this one) and runs in slices of about 8 ms in the
        // tasks that follow, each ending with a 'hw-redraw' measure that counts what still
        // waits. Read once one of them, after this frame, says nothing does (on a loaded
        // machine the slices can take far longer than a frame; at most 20 s).
        requestAnimationFrame(() => {
          const frame = performance.now();
          const drawn = () => performance.getEntriesByName('hw-redraw')
            .some((m) => m.startTime >= frame && /** @type {any} */ (m).detail?.waiting === 0);
          const started = Date.now();
          const poll = () => {
            if (drawn() || Date.now() - started > 20000) resolve({ inTask, after: read() });
            else setTimeout(poll, 10);
          };
          setTimeout(poll, 0);
        });
      }, { once: true });
      window.location.hash = hash;
    });
    const inView = (sel) => page.evaluate((sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return r.bottom > -200 && r.top < innerHeight + 200;
    }, sel);

    // The reader at the head tables: exercise 3 is thousands of pixels below.
    await page.evaluate(() => document.querySelector('hw-head-weights').scrollIntoView({ block: 'start', behavior: 'instant' }));
    await settle(page);
    await page.waitForTimeout(200);  // the IntersectionObserver reports after a frame
    assert.equal(await inView(CELLS.head), true);
    assert.equal(await inView(CELLS.wq), false);
    const a = await page.evaluate(change, { cells: CELLS, hash: '#seed=8&tokens=5&d_model=8&heads=2' });
    assert.equal(a.inTask.head, String(r8.headWeights[0][0][2]), 'the head table, in view, shows seed 8 in the change\'s task');
    assert.equal(a.inTask.wq, fmt3(r7.wq[0][0]), 'exercise 3, out of view, still shows seed 7 in that task');
    assert.equal(a.after.wq, fmt3(r8.wq[0][0]), 'and seed 8 right after the frame');
    assert.equal(a.after.rows, fmt3(r8.headWeights[0][0][2]), 'its per-head rows too');

    // The reader at exercise 3: now the head tables wait for the frame.
    await page.evaluate(() => document.querySelector('hw-exercise-torch').scrollIntoView({ block: 'start', behavior: 'instant' }));
    await settle(page);
    await page.waitForTimeout(200);
    assert.equal(await inView(CELLS.head), false);
    assert.equal(await inView(CELLS.wq), true);
    const outOfWindow = await page.evaluate((sel) => document.querySelector(sel).closest('tr').getBoundingClientRect().top > innerHeight, CELLS.rows);
    assert.equal(outOfWindow, true, 'exercise 3\'s per-head rows are below the window');
    const b = await page.evaluate(change, { cells: CELLS, hash: '#seed=7&tokens=5&d_model=8&heads=2' });
    assert.equal(b.inTask.wq, fmt3(r7.wq[0][0]), 'exercise 3, in view, shows seed 7 in the change\'s task');
    assert.equal(b.inTask.head, String(r8.headWeights[0][0][2]), 'the head table, out of view, still shows seed 8 in that task');
    assert.equal(b.after.head, String(r7.headWeights[0][0][2]), 'and seed 7 right after the frame');
    assert.equal(b.inTask.rows, fmt3(r8.headWeights[0][0][2]), 'a row of exercise 3 below the window still shows seed 8 in that task');
    assert.equal(b.after.rows, fmt3(r7.headWeights[0][0][2]), 'and seed 7 right after the frame');

  }, { context: { viewport: { width: 1280, height: 720 } } });
});
