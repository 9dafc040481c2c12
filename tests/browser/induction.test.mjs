// "Heads that work together": from file://, two layers × two heads and one layer × four heads
// train side by side. In Chromium the full run reaches its verdict (the step where the induction
// head formed, read back from the session's own curve; each head's two scores as the evaluation
// gives them; the layer-1 previous-token head switched off sends the repeat accuracy toward
// chance and the layer-2 induction head switched off lowers it; a switch re-evaluates; the challenge quotes the numbers;
// the timeline goes back to step 0; the run's PyTorch script, run by /usr/bin/python3, prints the
// page's numbers), with no main-thread task over GUARD_TASK_MS of CPU. Layer 2's circuits at every
// snapshot (copying, K-composition with layer 1) are the module's trainer.circuits() at those
// steps, drawn as curves; in Chromium only, the verdict and the timeline name the steps where the
// copier formed and learnt where to look, read from those curves, and the circuits' script at the
// timeline's step prints the table's numbers. Firefox and WebKit train a shorter stretch (the full
// run there would break CI's time budget): the real pace is slow enough to follow, the circuits'
// curves exist and grow as it trains, and the timeline goes back to step 0. In every engine the probe
// redraws every head's table and refuses a token outside the vocabulary and a sequence too long,
// keeping the last good one. The section trains under the strict CSP (http header) and in
// <iframe sandbox="allow-scripts"> (embed.html?widget=induction).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DIST, ENGINE, GUARD_TASK_MS, engine, shareBrowser, trainingPartServers, withPage, withEmbed, withStrictCsp, mainThreadTaskCpu, reachTraining, waitTrainingDrawn } from './helpers.mjs';
import { runPython } from '../js/python.mjs';
import { addCircuits, circuitSteps, keyHeads } from '../../web/src/train/induction.js';

const createHeadwise = createRequire(import.meta.url)(join(DIST, 'headwise.js'));
const hw = await createHeadwise();
const D = hw.inductionDefaults();
const FULL = ENGINE === 'chromium';

const PERSON = { hold: 100 };
const RUN_TIMEOUT = 400000;
const TEST_TIMEOUT = 600000;

let browser;
let server;
shareBrowser((b, s) => {
  browser = b;
  server = s;
});

const servers = trainingPartServers('widget=induction&inductionSeed=2&lock=inductionSeed', 'Induction');

const READY = 'hw-induction[data-ready] #induction-run:not([disabled])';

/** @param {any} where  a page or a frame */
async function reachInduction(where) {
  if (await where.locator('hw-train').count()) {
    await reachTraining(where);
    await waitTrainingDrawn(where.locator('hw-train').first());
  }
  await reachTraining(where, { section: '#induction, mha-induction', ready: READY });
}

/** What the section shows and what its session holds. @param {any} where */
function readSection(where) {
  return where.$eval('hw-induction', (el) => {
    const s = /** @type {any} */ (el).session;
    const text = (/** @type {string} */ id) => el.querySelector(`[data-testid="${id}"]`)?.textContent || '';
    return {
      status: s.status,
      step: s.models[0].step,
      models: s.models.map((/** @type {any} */ m) => ({
        key: m.key, layers: m.layers, numHeads: m.numHeads, parameters: m.parameters, steps: m.steps, loss: m.loss, accuracy: m.accuracy,
        evaluation: m.evaluation, ablations: m.ablations, snapshots: m.snapshots.length, attention: m.attention, first: m.snapshots[0]?.attention,
      })),
      probe: s.probe,
      labels: s.settings.tokenLabels,
      formed: text('induction-formed'),
      formedStep: el.querySelector('[data-testid="induction-formed"]').dataset.step,
      circuits: s.models[0].circuits,
      settled: text('induction-timeline-settled'),
      circuitsAt: [...el.querySelectorAll('[data-testid="induction-circuits-table"] tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      circuitsAtStep: el.querySelector('[data-testid="induction-circuits-at"]').dataset.step,
      lines: Object.fromEntries(['induction-copying', 'induction-kcomp'].map((id) => [id, [...el.querySelectorAll(`[data-testid="${id}"] path.hw-curve-line`)].map((p) => (p.getAttribute('d').match(/[ML]/g) || []).length)])),
      verdict: text('induction-verdict'),
      models_: text('induction-models'),
      scores: [...el.querySelectorAll('[data-testid="induction-score-table"]')].map((t) => ({
        model: t.getAttribute('data-model'),
        rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-score]')].map((td) => td.textContent)),
      })),
      tables: [...el.querySelectorAll('[data-testid="induction-heads"] table.hw-train-weights')].map((t) => ({
        header: [...t.querySelectorAll('thead th')].map((th) => th.textContent).join(' '),
        cells: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      })),
    };
  });
}

const cellText = (/** @type {number} */ x) => (x >= 0.995 ? '1' : x < 0.005 ? '0' : x.toFixed(2).replace(/^0/, ''));
const expected = (/** @type {number[][]} */ head) => head.map((row, i) => row.map((w, j) => (j <= i ? cellText(w) : '')));

/** The tables show these models' attention (deep model's heads first). @param {any} s @param {'attention'|'first'} which */
function checkTables(s, which) {
  const want = s.models.flatMap((/** @type {any} */ m) => m[which].map(expected));
  assert.equal(s.tables.length, 2 * D.layers * D.numHeads, 'every head of both models has a table');
  s.tables.forEach((t, k) => assert.deepEqual(t.cells, want[k], `table ${k}`));
}

/** The probe: an unknown token and a sequence too long are refused, the last good probe kept. @param {any} where */
async function checkProbe(where) {
  const before = await readSection(where);
  const good = before.probe.map((/** @type {number} */ t) => before.labels[t]).join(' ');
  await where.fill('#induction-probe', `${good} 99`);
  await where.waitForSelector('[data-testid="induction-probe-error"]:not([hidden])');
  const err = await where.textContent('[data-testid="induction-probe-error"]');
  assert.match(err, /"99" is not a token of the vocabulary: use 0 to 31\. The tables keep the last good probe: /);
  assert.ok(err.includes(good), `the message names the last good probe: ${err}`);
  assert.deepEqual((await readSection(where)).probe, before.probe, 'the last good probe stays');
  await where.fill('#induction-probe', Array.from({ length: D.seqLen + 1 }, () => '1').join(' '));
  await where.waitForFunction(() => /too long/.test(document.querySelector('[data-testid="induction-probe-error"]')?.textContent || ''));
  // A new probe with a repeat: every table is made for it.
  const probe = '3 1 4 1 5 9 2 6 1 4 1 5';
  await where.fill('#induction-probe', probe);
  await where.waitForSelector('[data-testid="induction-probe-error"][hidden]', { state: 'attached' });
  await where.waitForFunction((p) => {
    const tables = [...document.querySelectorAll('[data-testid="induction-heads"] table.hw-train-weights')];
    return tables.length > 0 && tables.every((t) => [...t.querySelectorAll('thead th')].map((th) => th.textContent).join(' ') === p);
  }, probe);
  assert.deepEqual((await readSection(where)).probe, probe.split(' ').map(Number));
}

describe('Heads that work together', () => {
  test(`from file://: the probe and its errors; ${FULL ? 'the full run to the verdict, the scores, ablation, the challenge and the timeline' : 'a shorter run (the full one would break CI\'s budget in this engine): real pace and the timeline'}`, { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'file', '', async (page) => {
      await reachInduction(page);
      const s0 = await readSection(page);
      assert.equal(s0.models.length, 2);
      assert.deepEqual(s0.models.map((m) => [m.layers, m.numHeads]), [[D.layers, D.numHeads], [1, D.layers * D.numHeads]]);
      await checkProbe(page);
      await page.locator('#induction-run').evaluate((b) => b.scrollIntoView({ behavior: 'instant', block: 'center' }));
      if (!FULL) {
        await page.selectOption('#induction-pace', 'real');
        await page.click('#induction-run', PERSON);
        await page.waitForFunction(() => Number(document.querySelector('[data-testid="induction-counter"]').dataset.step) > 0);
        await page.waitForTimeout(2000);
        const s = await readSection(page);
        // Real time spreads the run over about 15 s: after 2 s it is far from done.
        assert.ok(s.step < D.steps / 2, `at the real pace, step ${s.step} of ${D.steps} after 2 s`);
        await page.waitForFunction(() => /** @type {any} */ (document.querySelector('hw-induction')).session.models[0].snapshots.length >= 3, null, { timeout: 60000 });
        // Layer 2's circuits: a curve per head and per pair, growing with the snapshots (drawn in
        // the frame after the one that took them).
        await page.waitForFunction(() => Number(document.querySelector('[data-testid="induction-circuits"]').dataset.points) >= 3);
        const before = await readSection(page);
        assert.deepEqual(before.lines['induction-copying'].length, D.numHeads);
        assert.deepEqual(before.lines['induction-kcomp'].length, D.numHeads * D.numHeads);
        const points = before.circuits.steps.length;
        assert.ok(points >= 3 && Object.values(before.lines).flat().every((n) => n >= 3), JSON.stringify(before.lines));
        await page.waitForFunction((n) => /** @type {any} */ (document.querySelector('hw-induction')).session.models[0].circuits.steps.length > n, points, { timeout: 60000 });
        await page.waitForFunction((n) => Number(document.querySelector('[data-testid="induction-circuits"]').dataset.points) > n, points);
        await page.fill('#induction-timeline', '0');
        await page.waitForFunction(() => document.querySelector('[data-testid="induction-heads"]').dataset.shownStep === '0');
        const at0 = await readSection(page);
        assert.equal(at0.circuitsAtStep, '0');
        assert.deepEqual(at0.circuitsAt, at0.circuits.copying.map((c, h) => [c[0].toFixed(3), ...at0.circuits.k[h].map((g) => g[0].toFixed(3))]));
        return;
      }
      let s = null;
      const cpu = await mainThreadTaskCpu(page, async () => {
        await page.click('#induction-run', PERSON);
        const end = Date.now() + RUN_TIMEOUT;
        for (;;) {
          try {
            await page.waitForSelector('hw-induction[data-done]', { state: 'attached', timeout: 20000 });
            break;
          } catch (e) {
            if (Date.now() > end) throw e;
            console.log(`# ${ENGINE}: ${await page.textContent('[data-testid="induction-counter"]')}`);
          }
        }
      });
      await page.waitForSelector('[data-testid="induction-score-table"]', { state: 'attached' });
      await page.waitForTimeout(300);
      s = await readSection(page);
      console.log(`# ${s.formed} ${s.verdict}`);
      const [deep, wide] = s.models;
      assert.equal(s.step, D.steps);
      // Both parameter counts are shown.
      assert.ok(s.models_.includes(`${deep.parameters} parameters`) && s.models_.includes(`${wide.parameters} parameters`), s.models_);
      // The step where the head formed, as the live curve says it (FORMED_POINTS = 3 in a row).
      let run = 0;
      let formed = null;
      for (let k = 0; k < deep.accuracy.length && formed === null; k += 1) {
        run = deep.accuracy[k] >= D.formedAccuracy ? run + 1 : 0;
        if (run === 3) formed = deep.steps[k - 2];
      }
      assert.notEqual(formed, null, 'the two-layer model formed its induction head');
      assert.equal(s.formedStep, String(formed));
      assert.ok(s.formed.includes(`near step ${formed}`), s.formed);
      // The plateau, then the drop: the loss before the step is well above the last loss.
      assert.ok(deep.loss[deep.loss.length - 1] < deep.loss[0] - 1, `the loss dropped: ${deep.loss[0]} → ${deep.loss[deep.loss.length - 1]}`);
      // Each head's scores, as the evaluation gives them.
      for (const [m, table] of [[deep, s.scores[0]], [wide, s.scores[1]]]) {
        const e = m.evaluation;
        table.rows.forEach((row, k) => {
          const l = Math.floor(k / m.numHeads);
          const h = k % m.numHeads;
          assert.deepEqual(row, [e.previousTokenScore[l][h].toFixed(2), e.inductionScore[l][h].toFixed(2), m.ablations[k].repeatAccuracy.toFixed(2)]);
        });
      }
      // The verdict: the key heads, and their ablations toward chance.
      const e = deep.evaluation;
      const prev = e.previousTokenScore[0].indexOf(Math.max(...e.previousTokenScore[0]));
      const ind = e.inductionScore[1].indexOf(Math.max(...e.inductionScore[1]));
      assert.ok(e.repeatAccuracy >= D.formedAccuracy, `held-out repeat accuracy ${e.repeatAccuracy}`);
      assert.ok(e.inductionScore[1][ind] >= D.formedScore, `the layer-2 induction score ${e.inductionScore[1][ind]}`);
      const offPrev = deep.ablations[prev].repeatAccuracy;
      const offInd = deep.ablations[D.numHeads + ind].repeatAccuracy;
      const chance = 1 / D.vocab;
      // The previous-token head off takes the repeat most of the way back to chance; the
      // induction head off lowers it (the other layer-2 head may carry part of the copying).
      assert.ok(offPrev - chance < (e.repeatAccuracy - chance) / 2, `the previous-token head off: ${offPrev} is nearer chance (${chance}) than ${e.repeatAccuracy}`);
      assert.ok(offInd < e.repeatAccuracy, `the induction head off: ${offInd} below ${e.repeatAccuracy}`);
      assert.ok(s.verdict.includes(`falls to ${offPrev.toFixed(2)}`) && s.verdict.includes(`to ${offInd.toFixed(2)}`), s.verdict);
      assert.ok(s.verdict.includes(`reaches only ${wide.evaluation.repeatAccuracy.toFixed(2)}`), s.verdict);
      assert.ok(wide.evaluation.repeatAccuracy < e.repeatAccuracy, 'one layer of four heads does worse');
      checkTables(s, 'attention');
      // Layer 2's circuits at every snapshot: the module's trainer.circuits() at those steps (the
      // same run here, from the same seed), one point each on every curve.
      const settings = await page.$eval('hw-induction', (el) => /** @type {any} */ (el).session.settings);
      const again = hw.createTrainer({ task: 'induction', layers: D.layers, numHeads: D.numHeads, dModel: D.dModel, seed: settings.seed });
      const mine = { steps: [], copying: [], k: [], previous: [] };
      let at = 0;
      for (const step of s.circuits.steps) {
        if (step > at) again.step(step - at);
        at = step;
        addCircuits(mine, step, again.circuits());
      }
      again.dispose();
      assert.equal(s.circuits.steps.length, deep.snapshots, 'one point per snapshot');
      assert.deepEqual(s.circuits, mine);
      assert.deepEqual(Object.values(s.lines).flat(), Array(D.numHeads + D.numHeads * D.numHeads).fill(mine.steps.length));
      // The two steps, read from those curves: the copier first, then where it looks.
      const cs = circuitSteps(mine, keyHeads(e).previous.head);
      console.log(`# seed ${settings.seed}: copier L2 h${cs.copier?.head} at step ${cs.copier?.step}; reads L1 h${cs.previous} at step ${cs.reads?.step}`);
      assert.ok(cs.copier && cs.reads && cs.copier.step < cs.reads.step, JSON.stringify(cs));
      assert.ok(s.verdict.includes(`copied from step ${cs.copier.step} on`) && s.verdict.includes(`Only at step ${cs.reads.step} did it learn where to look`), s.verdict);
      assert.ok(s.settled.includes(`became a copier at step ${cs.copier.step}`) && s.settled.includes(`where to look at step ${cs.reads.step}`), s.settled);
      // A switch: the layer-2 induction head off, evaluated again.
      await page.click(`[data-testid="induction-switch"][data-model="deep"][data-index="${D.numHeads + ind}"]`);
      await page.waitForFunction((v) => (document.querySelector('[data-testid="induction-switch-result"][data-model="deep"]')?.textContent || '').includes(`repeat accuracy ${v}`), offInd.toFixed(2));
      // The challenge quotes the two models.
      const live = await page.textContent('[data-testid="challenge-induction-live"]');
      assert.ok(live.includes(`accuracy ${e.repeatAccuracy.toFixed(2)}`) && live.includes(`only ${wide.evaluation.repeatAccuracy.toFixed(2)}`), live);
      // The timeline back to step 0: the tables show the first snapshots.
      await page.fill('#induction-timeline', '0');
      await page.waitForFunction(() => document.querySelector('[data-testid="induction-heads"]').dataset.shownStep === '0');
      const first = await readSection(page);
      checkTables(first, 'first');
      assert.deepEqual(first.circuitsAt, mine.copying.map((c, h) => [c[0].toFixed(3), ...mine.k[h].map((g) => g[0].toFixed(3))]));
      // The circuits' script at the timeline's step prints the table's numbers.
      const circuitsScript = await page.textContent('[data-testid="induction-circuits-python"]');
      assert.match(circuitsScript, /LR, BATCH, STEPS, EVAL_SIZE = [^,]+, \d+, 0, /);
      assert.equal(runPython(circuitsScript, { name: 'induction_circuits.py' }).trim(), await page.textContent('[data-testid="induction-circuits-python-output"]'));
      // The PyTorch script of this run prints the page's numbers.
      const script = await page.textContent('[data-testid="induction-python"]');
      const printed = await page.textContent('[data-testid="induction-python-output"]');
      assert.ok(printed.includes(`held-out repeat accuracy ${e.repeatAccuracy.toFixed(2)}`), printed);
      const stdout = runPython(script, { name: 'induction.py' });
      // The same lines; the one-layer model's numbers the same, the two-layer model's within
      // 0.01 (the page and PyTorch sum in different orders; over 600 steps the last bits drift).
      const numbers = (/** @type {string} */ t) => t.match(/\d+\.\d+/g).map(Number);
      const shape = (/** @type {string} */ t) => t.replace(/\d+\.\d+/g, '#');
      assert.equal(shape(stdout), shape(`${printed}\n`));
      const wideAt = printed.indexOf('1 layer x');
      const [got, want] = [stdout, printed].map(numbers);
      const deepCount = numbers(printed.slice(0, wideAt)).length;
      got.forEach((x, k) => assert.ok(Math.abs(x - want[k]) <= (k < deepCount ? 0.0100001 : 0), `number ${k}: python ${x}, page ${want[k]}`));
      console.log(`# the script printed:\n${stdout.replace(/^/gm, '#   ')}`);
      console.log(`# longest main-thread task from the click to the verdict: ${Math.max(...(cpu || [0])).toFixed(1)} ms of CPU`);
      if (cpu) assert.deepEqual(cpu.filter((ms) => ms > GUARD_TASK_MS), [], `main-thread tasks over ${GUARD_TASK_MS} ms`);
    }, { viewport: { width: 640, height: 900 } });
  });

  test('the link\'s #induction_seed reaches the section; a seed out of range is refused at its field; a new one goes into the link', { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'file', '#induction_seed=3', async (page) => {
      await reachInduction(page);
      const seedOf = () => page.$eval('hw-induction', (el) => /** @type {any} */ (el).session.settings.seed);
      assert.equal(await page.inputValue('#induction-seed'), '3');
      assert.equal(await seedOf(), 3);
      await page.fill('#induction-seed', '-1');
      await page.waitForFunction(() => !document.querySelector('#induction-seed-error').hidden);
      assert.equal(await page.textContent('#induction-seed-error'), 'seed -1 is not allowed: use a whole number from 0 to 4294967295');
      assert.equal(await page.getAttribute('#induction-seed', 'aria-invalid'), 'true');
      assert.equal(await seedOf(), 3, 'the models of the last good seed stay');
      await page.fill('#induction-seed', '4');
      await page.waitForFunction(() => /[#&]induction_seed=4(&|$)/.test(window.location.hash));
      assert.equal(await seedOf(), 4);
      assert.equal(await page.locator('#induction-seed-error').isHidden(), true);
    });
  });

  test('under the strict CSP (http header) the section trains on the lesson page', { timeout: TEST_TIMEOUT }, async () => {
    await withStrictCsp(browser, servers, '', async (page) => {
      await reachInduction(page);
      await trainSome(page);
    });
  });

  test('inside <iframe sandbox="allow-scripts"> (embed.html?widget=induction) the models train; the seed is the frame\'s, locked', { timeout: TEST_TIMEOUT }, async () => {
    await withEmbed(browser, servers, 'mha-induction', async (frame) => {
      await reachInduction(frame);
      assert.equal(await frame.inputValue('#induction-seed'), '2');
      assert.equal(await frame.$eval('hw-induction', (el) => /** @type {any} */ (el).session.settings.seed), 2);
      await trainSome(frame);
      // Once the run has ended (its field is enabled again where nothing locks it), still locked.
      const end = Date.now() + RUN_TIMEOUT;
      while ((await readSection(frame)).status !== 'done') {
        assert.ok(Date.now() < end, 'the run ends');
        await frame.waitForTimeout(500);
      }
      assert.equal(await frame.isDisabled('#induction-seed'), true, 'the seed stays locked after the run');
    });
  });
});

/** Train a few snapshots' worth of steps: both models record points and their parameter counts. @param {any} where */
async function trainSome(where) {
  await where.click('#induction-run', PERSON);
  // Polled through the element (in an embed it is inside a shadow root).
  const end = Date.now() + 120000;
  let s = await readSection(where);
  while (s.step < 24) {
    assert.ok(Date.now() < end, `step ${s.step} after 120 s`);
    await where.waitForTimeout(250);
    s = await readSection(where);
  }
  assert.ok(s.models.every((m) => m.steps.length > 0 && m.parameters > 0), 'both models train');
}
