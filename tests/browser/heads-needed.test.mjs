// "How many heads does it take?": from file:// the whole grid (1 to 4 relations × 1, 2, 4, 8
// heads) fills in to its last cell, each cell showing its model's worst relation, each row's
// cliff said from those numbers, the challenge quoting the four-relation row; an opened cell shows
// its tables and ablation matrix; the probe redraws every table and refuses a letter outside the
// vocabulary and a sequence too long, keeping the last good one; the timeline scrubs back to
// step 0. Under the strict CSP (http header) and in <iframe sandbox="allow-scripts"> the default
// experiment reaches its last cell, its work off the main thread (no task over GUARD_TASK_MS of CPU),
// on as many Workers as #workers= or workers= asks (one per core by default), each model's numbers
// those of the model trained alone. The
// three-model section's pace and timeline: real time is slow enough to follow, fast finishes, the
// timeline goes back to step 0. In Chromium, the grid cell's PyTorch script prints its box.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  DIST, ENGINE, GUARD_TASK_MS, engine, shareBrowser, trainingPartServers, withPage, withEmbed, mainThreadTaskCpu, reachTraining,
  waitTrainingDrawn, withStrictCsp,
} from './helpers.mjs';
import { runPython } from '../js/python.mjs';

const createHeadwise = createRequire(import.meta.url)(join(DIST, 'headwise.js'));
const hw = await createHeadwise();
const D = hw.headsNeededDefaults();

/**
 * A click as a person makes it, held about 100 ms (as tests/browser/train.test.mjs does: WebKit's
 * driver loses a quick click on a section that redraws while it is pressed).
 */
const PERSON = { hold: 100 };

/** Generous: the machine may be shared; the bench measures the real time to the last cell. */
const GRID_TIMEOUT = 400000;
const TEST_TIMEOUT = 900000;

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

const servers = trainingPartServers('widget=heads-needed&headsSeed=1&controls=headsRelations&lock=headsSeed&workers=1', 'Heads');

/**
 * Scroll to the section (a page or a frame's page) and wait until it can train.
 * @param {any} where
 */
async function reachHeads(where) {
  // On the lesson page "Watch heads specialise", above, grows while it is first drawn (one model
  // per frame, once it comes near the view), moving this section down: a click aimed at it could
  // land where it was. So that section is reached and drawn whole first.
  if (await where.locator('hw-train').count()) {
    await reachTraining(where);
    await waitTrainingDrawn(where.locator('hw-train').first());
  }
  await reachTraining(where, { section: '#heads-needed, mha-heads-needed', ready: 'hw-heads-needed[data-ready] #heads-run:not([disabled])' });
}

/**
 * What the section shows and what its session holds: every shown cell's text and number, the
 * cliff lines, the shown cell's tables and ablation matrix.
 * @param {any} where
 */
function readSection(where) {
  return where.$eval('hw-heads-needed', (el) => {
    const g = /** @type {any} */ (el).session;
    const cells = [...el.querySelectorAll('[data-testid="heads-cell-button"]')].map((b) => {
      const c = g.cells.get(b.getAttribute('data-cell'));
      return { key: c.key, text: b.textContent, worst: c.worst, status: c.status, bg: /** @type {HTMLElement} */ (b).style.backgroundColor };
    });
    const shown = g.shown();
    const tables = [...el.querySelectorAll('[data-testid="heads-cell"] table.hw-train-weights')].map((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    const headers = [...el.querySelectorAll('[data-testid="heads-cell"] table.hw-train-weights')].map((t) => [...t.querySelectorAll('thead th')].map((th) => th.textContent).join(''));
    const ablation = [...el.querySelectorAll('[data-testid="heads-ablation-table"] tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    const drops = shown.evaluation && shown.ablations.length === shown.numHeads
      ? shown.ablations.map((/** @type {any} */ e) => e.relationAccuracy.map((/** @type {number} */ a, /** @type {number} */ r) => (shown.evaluation.relationAccuracy[r] - a).toFixed(2)))
      : [];
    return {
      cells,
      cliff: [...el.querySelectorAll('[data-testid="heads-cliff"] li')].map((li) => li.textContent),
      rows: g.shownRows().map((/** @type {number} */ d) => g.row(d).map((/** @type {any} */ c) => ({ numHeads: c.numHeads, worst: c.worst, parameters: c.parameters }))),
      shown: { key: shown.key, numHeads: shown.numHeads, snapshots: shown.snapshots.length, attention: shown.attention, first: shown.snapshots[0]?.attention, probe: g.probe },
      tables, headers, ablation, drops,
      counter: el.querySelector('[data-testid="heads-counter"]').textContent,
      about: el.querySelector('[data-testid="heads-about"]').textContent,
    };
  });
}

/**
 * The shown cell drawn whole (its tables are built one per frame), and a last frame's drawing.
 * @param {any} where
 */
async function drawn(where) {
  await where.waitForSelector('[data-testid="heads-cell"][data-drawn]', { state: 'attached' });
  await where.waitForTimeout(300);
}

/**
 * Until the opened cell has all its tables, made for `probe`. A probe of another length makes the
 * tables again, one per frame, and until the first redraw data-drawn is still the old probe's
 * (WebKit, under load, was read in between).
 * @param {any} where
 * @param {string} probe
 * @param {number} heads
 */
function tablesFor(where, probe, heads) {
  return where.waitForFunction(([p, n]) => {
    const box = document.querySelector('[data-testid="heads-cell"]');
    const tables = [...box.querySelectorAll('table.hw-train-weights')];
    return box.hasAttribute('data-drawn') && tables.length === n &&
      tables.every((t) => [...t.querySelectorAll('thead th')].map((th) => th.textContent).join('') === p);
  }, [probe, heads]);
}

/** A weight as a table cell shows it (tables.js cellText). @param {number} x */
const cellText = (x) => (x >= 0.995 ? '1' : x < 0.005 ? '0' : x.toFixed(2).replace(/^0/, ''));

/**
 * The tables as the attention should show them (lower triangle; masked cells stay empty).
 * @param {number[][][]} attention
 */
const expectedTables = (attention) => attention.map((head) => head.map((row, i) => row.map((w, j) => (j <= i ? cellText(w) : ''))));

/**
 * Press a train button and wait for the last cell.
 * @param {any} where
 * @param {string} button
 */
async function trainTo(where, button) {
  // In view first, at once (WebKit's driver misses a click on a button it has to scroll to).
  await where.locator(button).evaluate((b) => b.scrollIntoView({ behavior: 'instant', block: 'center' }));
  await where.click(button, PERSON);
  // Progress is printed every 20 s: the runner ends a file that prints nothing for long as hung,
  // and the whole grid may take minutes on a shared machine.
  const end = Date.now() + GRID_TIMEOUT;
  for (;;) {
    try {
      await where.waitForSelector('hw-heads-needed[data-done]', { state: 'attached', timeout: 20000 });
      break;
    } catch (e) {
      if (Date.now() > end) throw e;
      console.log(`# ${ENGINE}: ${await where.textContent('[data-testid="heads-counter"]')}`);
    }
  }
  await drawn(where);
  return readSection(where);
}

/**
 * The training module's pool and what the run made of it, and every cell's final numbers.
 * @param {any} where
 */
function poolOf(where) {
  return where.$eval('hw-heads-needed', (el) => {
    const g = /** @type {any} */ (el).session;
    const p = g.store.compute;
    const cells = g.plan(g.full).map((/** @type {any} */ c) => ({ key: c.key, options: c.options, loss: c.loss[c.loss.length - 1], evaluation: c.evaluation }));
    return { mode: p.mode, size: p.size, open: p.open, peak: p.peakBusy, lanes: g.lanes, cores: navigator.hardwareConcurrency, cells };
  });
}

/**
 * Each cell as one model trained alone on this thread's module: the same final batch loss and
 * held-out evaluation, bit for bit (the pool only chose where each model trained).
 * @param {Awaited<ReturnType<typeof poolOf>>} pool
 */
function checkAlone(pool) {
  for (const c of pool.cells) {
    const t = hw.createTrainer(c.options);
    try {
      const last = t.step(D.steps);
      assert.equal(last.loss, c.loss, `${c.key}: the last batch's loss`);
      assert.deepEqual(t.evaluate({}), c.evaluation, `${c.key}: the held-out evaluation`);
    } finally {
      t.dispose();
    }
  }
}

/**
 * The grid's cells say their numbers and each finished row's cliff is said from them.
 * @param {Awaited<ReturnType<typeof readSection>>} s
 */
function checkGrid(s) {
  for (const c of s.cells) {
    assert.equal(c.status, 'done', `${c.key} is done`);
    assert.equal(c.text, c.worst.toFixed(2), `${c.key} shows its worst relation`);
    assert.notEqual(c.bg, '', `${c.key} is coloured`);
  }
  assert.equal(s.cliff.length, s.rows.length);
  s.rows.forEach((row, k) => {
    const d = row.length ? s.cliff[k].match(/^(\d) relations?/)[1] : '';
    assert.ok(d, s.cliff[k]);
    for (const c of row) assert.ok(s.cliff[k].includes(`${c.numHeads === 1 ? '1 head' : `${c.numHeads} heads`} ${c.worst.toFixed(2)}`), `${s.cliff[k]} quotes ${c.numHeads} heads`);
    // Same d_model, so the same parameter count across the row.
    assert.equal(new Set(row.map((c) => c.parameters)).size, 1, `one parameter count in row ${d}`);
  });
  assert.ok(s.about.includes(`d_model ${D.dModel}`), s.about);
}

describe('How many heads does it take?', () => {
  test('from file://: the whole grid fills in, the cliff is said, the challenge quotes it; a cell opens; the probe and the timeline redraw its tables', { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'file', '', async (page) => {
      await reachHeads(page);
      const s = await trainTo(page, '#heads-grid');
      // No workers setting: one Worker per core (at most 8), the cells trained that many at once.
      const pool = await poolOf(page);
      assert.equal(pool.mode, 'worker');
      assert.equal(pool.size, Math.min(8, pool.cores));
      assert.equal(pool.lanes, pool.size);
      assert.equal(s.cells.length, 4 * D.headCounts.length);
      checkGrid(s);
      assert.equal(s.rows.length, 4);
      // The challenge's discussion quotes the four-relation row: 8 heads against 1.
      const four = s.rows[3];
      const live = await page.textContent('[data-testid="challenge-heads-live"]');
      assert.ok(live.includes(`8 heads reached ${four.find((c) => c.numHeads === 8).worst.toFixed(2)}`), live);
      assert.ok(live.includes(`1 head only ${four.find((c) => c.numHeads === 1).worst.toFixed(2)}`), live);

      // Open the 2-relation, 2-head cell: its tables show its final attention; its ablation
      // matrix is each relation's drop with each head off.
      await page.locator('[data-testid="heads-cell-button"][data-cell="2:2"]').evaluate((b) => b.scrollIntoView({ behavior: 'instant', block: 'center' }));
      await page.click('[data-testid="heads-cell-button"][data-cell="2:2"]', PERSON);
      await page.waitForSelector('[data-testid="heads-cell"][data-cell="2:2"]', { state: 'attached' });
      await drawn(page);
      let open = await readSection(page);
      assert.equal(open.shown.key, '2:2');
      assert.deepEqual(open.tables, expectedTables(open.shown.attention));
      assert.deepEqual(open.ablation, open.drops);
      assert.equal(open.ablation.length, 2);

      // The student's probe: every table redraws on it.
      await page.fill('#heads-probe', 'ABCA');
      await page.waitForFunction(() => /** @type {any} */ (document.querySelector('hw-heads-needed')).session.probeKey === '0 1 2 0');
      await tablesFor(page, 'ABCA', 2);
      await drawn(page);
      open = await readSection(page);
      assert.equal(open.headers[0], 'ABCA');
      assert.deepEqual(open.tables, expectedTables(open.shown.attention));
      assert.equal(open.shown.attention[0].length, 4);
      // A letter outside the vocabulary, then a sequence too long: each says what is allowed, and
      // the last good probe stays.
      const last = String.fromCharCode(64 + D.vocab);
      await page.fill('#heads-probe', 'AB9');
      await page.waitForSelector('#heads-probe-error:not([hidden])');
      assert.equal(await page.textContent('#heads-probe-error'), `"9" is not in the vocabulary: use the letters A to ${last}. The tables keep the last good probe, ABCA.`);
      await page.fill('#heads-probe', 'A'.repeat(D.seqLen + 1));
      await page.waitForFunction((n) => document.querySelector('#heads-probe-error').textContent.startsWith(`${n} letters is too long`), D.seqLen + 1);
      assert.equal(await page.textContent('#heads-probe-error'), `${D.seqLen + 1} letters is too long: the models read at most ${D.seqLen}. The tables keep the last good probe, ABCA.`);
      assert.equal((await readSection(page)).headers[0], 'ABCA');

      // The timeline: back to step 0, the tables show the untrained model on this probe.
      await page.fill('#heads-probe', 'ABCDEFGH'.slice(0, D.seqLen));
      await page.waitForSelector('#heads-probe-error[hidden]', { state: 'attached' });
      await page.waitForFunction(() => {
        const g = /** @type {any} */ (document.querySelector('hw-heads-needed')).session;
        return g.shown().snapshots.every((/** @type {any} */ sn) => sn.probeKey === g.probeKey);
      });
      await page.waitForTimeout(300);
      await page.$eval('#heads-timeline', (el) => {
        /** @type {HTMLInputElement} */ (el).value = '0';
        el.dispatchEvent(new Event('input', { bubbles: true }));
      });
      await page.waitForFunction(() => document.querySelector('[data-testid="heads-cell"]').dataset.shownStep === '0');
      await tablesFor(page, 'ABCDEFGH'.slice(0, D.seqLen), 2);
      await page.waitForTimeout(300);
      open = await readSection(page);
      assert.deepEqual(open.tables, expectedTables(open.shown.first));
      assert.notDeepEqual(open.tables, expectedTables(open.shown.attention), 'step 0 is not the trained model');
      const settled = await page.textContent('[data-testid="heads-timeline-settled"]');
      // Said from the snapshots on this probe: a step for each relation that a head settled on.
      assert.match(settled, /^[A-Z]/, 'each sentence starts with a capital');
      assert.match(settled, /[Hh]ead \d settled on the .+ near step \d+/);
      assert.match(await page.textContent('[data-testid="heads-timeline-step"]'), /^step 0$/);

      // The grid cell's PyTorch script: its box is the page's numbers for that cell.
      const out = await page.textContent('[data-testid="python-heads-output"]');
      assert.match(out, /^2 heads, \d+ parameters: held-out loss/);
      if (ENGINE === 'chromium') {
        const code = await page.textContent('[data-testid="python-heads"]');
        assert.equal(runPython(code, { name: 'cell.py' }), `${out}\n`);
      }
    // 640 px wide: WebKit's driver clicks only inside its 640 × 480 screen (tests/browser/engine.mjs).
    }, { viewport: { width: 640, height: 900 } });
  });

  test('under the strict CSP (http header) the default experiment reaches its last cell, its work off the main thread', { timeout: TEST_TIMEOUT }, async (t) => {
    await withStrictCsp(browser, servers, '#workers=2', async (page) => {
      await reachHeads(page);
      let s = null;
      const cpu = await mainThreadTaskCpu(page, async () => {
        s = await trainTo(page, '#heads-run');
      });
      assert.equal(s.cells.length, D.headCounts.length);
      checkGrid(s);
      // #workers=2: two Workers, both training at once, and every model's numbers its own alone.
      const pool = await poolOf(page);
      assert.deepEqual([pool.mode, pool.size, pool.lanes, pool.peak], ['worker', 2, 2, 2]);
      checkAlone(pool);
      assert.deepEqual(s.rows[0].map((c) => c.numHeads), D.headCounts);
      await t.test(`no main-thread task computed for more than ${GUARD_TASK_MS} ms (CPU time, from a trace)`, engine.skipUnless('tracing'), () => {
        console.log(`# longest main-thread task from the click to the last cell: ${Math.max(...cpu).toFixed(1)} ms of CPU`);
        assert.deepEqual(/** @type {number[]} */ (cpu).filter((ms) => ms > GUARD_TASK_MS), [], `main-thread tasks over ${GUARD_TASK_MS} ms from the click to the last cell`);
      });
    });
  });

  test('inside <iframe sandbox="allow-scripts"> (embed.html?widget=heads-needed) the default experiment reaches its last cell; the seed is locked', { timeout: TEST_TIMEOUT }, async () => {
    await withEmbed(browser, servers, 'mha-heads-needed', async (frame) => {
      await reachHeads(frame);
      assert.equal(await frame.isDisabled('#heads-seed'), true, 'the seed is locked');
      const s = await trainTo(frame, '#heads-run');
      assert.equal(s.cells.length, D.headCounts.length);
      checkGrid(s);
      // workers=1 in the frame's address: one Worker, one model after another, the same numbers.
      const pool = await poolOf(frame);
      assert.deepEqual([pool.mode, pool.size, pool.lanes, pool.peak, pool.open], ['worker', 1, 1, 1, 1]);
      checkAlone(pool);
    });
  });
});

describe('Watch heads specialise: pace and timeline', () => {
  test('real time is slow enough to follow, fast finishes, and the timeline goes back to step 0', { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'http', '', async (page) => {
      await reachTraining(page);
      await page.selectOption('#train-pace', 'real');
      await page.click('#train-run');
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="train-counter"]').dataset.step) > 0);
      const steps = await page.evaluate(() => /** @type {any} */ (document.querySelector('hw-train')).session.settings.steps);
      // Real time spreads the run over about 15 s: after 2 s it is far from done, however fast
      // the machine (a slower one is further still).
      await page.waitForTimeout(2000);
      const at = Number(await page.getAttribute('[data-testid="train-counter"]', 'data-step'));
      assert.ok(at < steps / 3, `step ${at} of ${steps} after 2 s at the real-time pace`);
      await page.selectOption('#train-pace', 'fast');
      // (Under run.mjs's SILENT_MS: a run that never ends fails with what it waited for.)
      await page.waitForSelector('hw-train[data-done]', { state: 'attached', timeout: 120000 });
      // The timeline: every model's tables at step 0 are its untrained attention.
      await page.$eval('#train-timeline', (el) => {
        /** @type {HTMLInputElement} */ (el).value = '0';
        el.dispatchEvent(new Event('input', { bubbles: true }));
      });
      await page.waitForFunction(() => document.querySelector('[data-testid="train-timeline-step"]').dataset.step === '0');
      await page.waitForSelector('hw-train[data-drawn]', { state: 'attached' });
      await page.waitForTimeout(300);
      const check = await page.$eval('hw-train', (el) => {
        const shown = (/** @type {number} */ x) => (x >= 0.995 ? '1' : x < 0.005 ? '0' : x.toFixed(2).replace(/^0/, ''));
        const out = [];
        const blocks = el.querySelectorAll('section.hw-train-model');
        /** @type {any} */ (el).session.models.forEach((/** @type {any} */ m, /** @type {number} */ i) => {
          const first = m.snapshots[0];
          if (first.step !== 0) out.push(`${m.numHeads} heads: the first snapshot is at step ${first.step}`);
          first.attention.forEach((/** @type {number[][]} */ head, /** @type {number} */ hd) => {
            const table = blocks[i].querySelector(`table.hw-train-weights[data-head="${hd}"]`);
            head.forEach((row, r) => row.forEach((w, c) => {
              if (c > r) return;
              const text = table.querySelector(`td[data-row="${r}"][data-col="${c}"]`).textContent;
              if (text !== shown(w)) out.push(`${m.numHeads} heads, head ${hd}, [${r}][${c}]: ${text} for ${w}`);
            }));
          });
        });
        return out;
      });
      assert.deepEqual(check, [], 'cells that do not show step 0');
      const settled = await page.textContent('[data-testid="train-timeline-settled"]');
      assert.match(settled, /2 heads: head \d settled on the .+ near step \d+/);
    });
  });
});
