// "Watch heads specialise": the training section trains 1, 2 and 4 heads live and reaches its
// verdict from file://, under the strict CSP over http and inside a sandboxed iframe embed;
// switching a head off drops the relation it serves and leaves the other; no main-thread task
// longer than GUARD_TASK_MS from reaching the section to the end of its training (a guard: the
// bench measures the 50 ms goal); the Python block, run
// with Debian's PyTorch, prints what the page shows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import {
  DIST, GUARD_TASK_MS, engine, shareBrowser, serveDist, trainingPartServers, withPage, withEmbed, collectCsp, waitReady, settle,
  mainThreadTaskCpu, reachTraining, withCleanPage, withStrictCsp, inContext,
} from './helpers.mjs';
import { runPython } from '../js/python.mjs';

const createHeadwise = createRequire(import.meta.url)(join(DIST, 'headwise.js'));
const hw = await createHeadwise();
const TASK = hw.trainingTasks()[0];
const STEPS = TASK.defaults.steps;

/**
 * Generous (a run takes 3 to 10 s here): the machine may be shared; the bench measures the real
 * time to the verdict. Under run.mjs's SILENT_MS, so that a run that never ends fails with what
 * it waited for instead of being ended as a hung file.
 */
const TRAIN_TIMEOUT = 120000;
/** A whole test: page load, a training run or two, and the Python block where it runs. */
const TEST_TIMEOUT = 600000;

let browser;
let server;
shareBrowser((b, s) => { browser = b; server = s; });

/**
 * A click as a person makes it: the button held down about 100 ms. WebKit drops a click whose
 * button's text node was replaced between press and release; the section redraws every frame
 * while it trains, so a held click finds that where a driver's instant one mostly does not.
 */
const PERSON = { hold: 100 };

/** The policy of the no-Worker test: the page's own without worker-src blob:. */
const NO_WORKERS_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

// dist/ served under the strict CSP as an HTTP header; dist/ whose index.html has no meta policy
// and a header policy that allows no Worker; and a host page embedding the training widget
// from another origin.
const servers = trainingPartServers('widget=train&trainSeed=1&controls=trainSeed&lock=trainTask', 'Training');
/** dist/ whose index.html forbids Workers (a CSP without worker-src blob:). */
let noWorkerServer;
before(async () => {
  const index = readFileSync(join(DIST, 'index.html'), 'utf8').replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
  noWorkerServer = await serveDist({
    pages: { '/index.html': { type: 'text/html; charset=utf-8', body: index, headers: { 'Content-Security-Policy': NO_WORKERS_CSP } } },
  });
});
after(async () => {
  await noWorkerServer?.close();
});

// Long tasks on the main thread, recorded from the start (Chromium only).
const LONG_TASKS = `
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { window.__longTasks = null; }
`;

/**
 * Press Train in the section (a page or a frame's page) and wait for the verdict.
 * @param {import('./engine.mjs').Page} where
 */
async function trainToVerdict(where) {
  await reachTraining(where);
  // Held as a person holds it, while the section may still be drawing its models' blocks.
  await where.click('#train-run', PERSON);
  await where.waitForSelector('hw-train[data-done]', { state: 'attached', timeout: TRAIN_TIMEOUT });
  // Done means drawn: every model's tables show its final attention (the section redraws one
  // model's tables per frame, and says it is done only once all of them are).
  const stale = await where.$eval('hw-train', (el) => {
    const shown = (/** @type {number} */ x) => (x >= 0.995 ? '1' : x < 0.005 ? '0' : x.toFixed(2).replace(/^0/, ''));
    const out = [];
    let cells = 0;
    const blocks = el.querySelectorAll('section.hw-train-model');
    /** @type {any} */ (el).session.models.forEach((/** @type {any} */ m, /** @type {number} */ i) => {
      m.attention.forEach((/** @type {number[][]} */ head, /** @type {number} */ hd) => {
        const table = blocks[i].querySelector(`table.hw-train-weights[data-head="${hd}"]`);
        head.forEach((row, r) => row.forEach((w, c) => {
          if (c > r) return;
          cells += 1;
          const text = table.querySelector(`td[data-row="${r}"][data-col="${c}"]`).textContent;
          if (text !== shown(w)) out.push(`${m.numHeads} heads, head ${hd}, [${r}][${c}]: ${text} for ${w}`);
        }));
      });
    });
    return { cells, out };
  });
  assert.ok(stale.cells > 50, `the tables have ${stale.cells} weight cells`);
  assert.deepEqual(stale.out, [], 'cells that do not show the final attention once the section is done');
  return where.$eval('hw-train', (el) => ({
    counter: el.querySelector('[data-testid="train-counter"]').textContent,
    verdict: el.querySelector('[data-testid="train-verdict"]').textContent,
    models: [...el.querySelectorAll('section.hw-train-model')].map((m) => ({
      heads: Number(m.getAttribute('data-heads')),
      verdict: m.querySelector('[data-testid="train-model-verdict"]').textContent,
    })),
  }));
}

/**
 * The verdict's claim for a multi-head model: "head h follows the <relation>: 0.xx".
 * @param {string} text
 * @param {string} relation
 */
function follower(text, relation) {
  const m = new RegExp(`head (\\d+) follows the (?:token )?${relation}: (\\d\\.\\d\\d)`).exec(text);
  return m ? { head: Number(m[1]), focus: Number(m[2]) } : null;
}

/** @param {string} text "…held-out accuracy: previous token 0.998, first token 0.425." */
function accuracies(text) {
  return Object.fromEntries(TASK.relations.map((r) => {
    const m = new RegExp(`${r.title} (\\d\\.\\d{3})`).exec(text);
    return [r.title, m ? Number(m[1]) : NaN];
  }));
}

/**
 * The 2-head model's verdict line in the summary box.
 * @param {string} verdict
 */
function twoHeadLine(verdict) {
  const line = verdict.split(/(?=\d+ heads?: )/).find((l) => l.startsWith('2 heads: '));
  assert.ok(line, `no 2-head line in the verdict: ${verdict}`);
  return line;
}

/**
 * Wait until a locator's text matches.
 * @param {import('./engine.mjs').Locator} locator
 * @param {RegExp} re
 */
async function waitText(locator, re, timeout = 60000) {
  const end = Date.now() + timeout;
  for (;;) {
    const text = await locator.textContent();
    if (re.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${locator} to match ${re}: "${text}"`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('training section', () => {
  test('from file://: trains to the verdict, heads divide the relations, the Python block prints the page\'s numbers', { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'file', '', async (page) => {
      const result = await trainToVerdict(page);
      assert.equal(result.counter.trim(), `step ${STEPS} of ${STEPS}`);
      assert.deepEqual(result.models.map((m) => m.heads), [1, 2, 4]);
      const line = twoHeadLine(result.verdict);
      const names = TASK.relations.map((r) => r.title);
      const claims = names.map((n) => follower(line, n));
      for (const [i, c] of claims.entries()) {
        assert.ok(c, `the 2-head verdict names no head for the ${names[i]}: ${line}`);
        assert.ok(c.focus >= 0.9, `${names[i]}: ${c.focus}`);
      }
      assert.notEqual(claims[0].head, claims[1].head, 'one head per relation');
      // Same parameter count for every model, said in the summary.
      assert.match(result.verdict, /Same \d+ parameters each/);

      // The challenge's discussion quotes this default run (seed 1): its numbers are the page's.
      const facts = Object.fromEntries(await page.$$eval('[data-train-fact]', (els) => els.map((e) => [e.getAttribute('data-train-fact'), e.textContent])));
      const one = result.models.find((m) => m.heads === 1).verdict;
      const two = result.models.find((m) => m.heads === 2).verdict;
      const grab = (text, re) => {
        const m = re.exec(text);
        assert.ok(m, `${re} in ${text}`);
        return m[1];
      };
      const [rel0, rel1] = names;
      assert.deepEqual(facts, {
        params: grab(result.verdict, /Same (\d+) parameters each/),
        'acc-1': grab(result.verdict, /accuracy: 1 head (\d\.\d{3})/),
        'focus-1-0': grab(result.verdict, new RegExp(`1 head: [^\\n]*?${rel0} (\\d\\.\\d\\d)`)),
        'focus-1-1': grab(result.verdict, new RegExp(`1 head: [^\\n]*?${rel1} (\\d\\.\\d\\d)`)),
        'rel-1-0': grab(one, new RegExp(`\\(${rel0} (\\d\\.\\d{3})`)),
        'acc-2': grab(result.verdict, /2 heads (\d\.\d{3})/),
        'focus-2-0': claims[0].focus.toFixed(2),
        'focus-2-1': claims[1].focus.toFixed(2),
        'off-2-0': grab(two, new RegExp(`drops the ${rel0} to (\\d\\.\\d{3})`)),
        'off-2-1': grab(two, new RegExp(`drops the ${rel1} to (\\d\\.\\d{3})`)),
      });

      // The Python block's printout appears and agrees with the section's verdict.
      const out = await page.textContent('[data-testid="python-train-output"]');
      const block2 = out.split(/\n(?=\d+ heads?, )/).find((b) => b.startsWith('2 heads, '));
      assert.ok(block2, out);
      for (const c of claims) assert.match(block2, new RegExp(`head ${c.head} weight on: .*${c.focus.toFixed(2)}`));
      const code = await page.textContent('[data-testid="python-train"]');
      assert.match(code, /np\.random\.seed\(SEED\)/);
      assert.match(code, new RegExp(`STEPS, EVAL_SIZE = [^\\n]*${STEPS}, ${TASK.defaults.evalSize}`));
      // Run as a student would, with Debian's NumPy and PyTorch: it prints the box, exactly.
      assert.equal(runPython(code, { name: 'train.py' }), `${out}\n`);
    });
  });

  test('switching off the head that serves a relation drops that relation and keeps the other', { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'http', '', async (page) => {
      const result = await trainToVerdict(page);
      const line = twoHeadLine(result.verdict);
      const model = page.locator('section.hw-train-model[data-heads="2"]');
      const ablation = model.locator('[data-testid="train-ablation"]');
      const allOn = accuracies(await ablation.textContent());
      const [first, second] = TASK.relations.map((r) => r.title);
      for (const [served, other] of [[first, second], [second, first]]) {
        const { head } = /** @type {{head: number}} */ (follower(line, served));
        const box = model.locator(`input[data-testid="train-head-switch"][data-head="${head}"]`);
        await box.uncheck();
        await waitText(ablation, /off, held-out/);
        const off = accuracies(await ablation.textContent());
        assert.ok(off[served] < allOn[served] - 0.3, `${served}: ${allOn[served]} -> ${off[served]} with head ${head} off`);
        assert.ok(off[other] > allOn[other] - 0.1, `${other}: ${allOn[other]} -> ${off[other]} with head ${head} off`);
        // The same numbers as the verdict's own ablation line for that head.
        const modelVerdict = await model.locator('[data-testid="train-model-verdict"]').textContent();
        assert.match(modelVerdict, new RegExp(`head ${head} off drops the (?:token )?${served} to ${off[served].toFixed(3)}`));
        await box.check();
        await waitText(ablation, /^All heads on/);
        assert.deepEqual(accuracies(await ablation.textContent()), allOn);
      }
    });
  });

  test('no long main-thread task from reaching the section to the end of training; pause, step and reset work', { timeout: TEST_TIMEOUT }, async (t) => {
    await withCleanPage(browser, server.url('/index.html'), async (page) => {
      if (engine.supports.longtask) assert.notEqual(await page.evaluate(() => window.__longTasks), null, 'this Chromium reports long tasks');
      let start = 0;
      // Every task of the page's main thread, with the CPU time it used (where a trace is
      // recorded), from the reader's arrival at the section: its code and module load, its first
      // drawing (one model's block per frame), then training.
      const cpu = await mainThreadTaskCpu(page, async () => {
        await reachTraining(page);
        // Drawn whole (every model's block) before Train is pressed: the wall-clock check below
        // is about training.
        await page.waitForSelector('hw-train[data-drawn]', { state: 'attached' });
        start = await page.evaluate(() => performance.now());
        await page.click('#train-run', PERSON);
        // Pause part-way (a click while the section redraws every frame), step once, resume.
        await page.waitForFunction(() => Number(document.querySelector('[data-testid="train-counter"]').dataset.step) > 50, undefined, { timeout: TRAIN_TIMEOUT });
        await page.click('#train-run', PERSON);
        await page.waitForSelector('hw-train[data-status="paused"]', { state: 'attached' });
        const paused = Number(await page.getAttribute('[data-testid="train-counter"]', 'data-step'));
        await page.waitForTimeout(300);
        assert.equal(Number(await page.getAttribute('[data-testid="train-counter"]', 'data-step')), paused, 'paused means paused');
        await page.click('#train-step', PERSON);
        await page.waitForFunction((p) => Number(document.querySelector('[data-testid="train-counter"]').dataset.step) === p + 1, paused);
        await page.click('#train-run', PERSON);
        await page.waitForSelector('hw-train[data-done]', { state: 'attached', timeout: TRAIN_TIMEOUT });
      });
      const end = await page.evaluate(() => performance.now());

      await t.test(`no main-thread task computed for more than ${GUARD_TASK_MS} ms (CPU time, from a trace)`, engine.skipUnless('tracing'), () => {
        assert.deepEqual(/** @type {number[]} */ (cpu).filter((ms) => ms > GUARD_TASK_MS), [], `main-thread tasks that computed for more than ${GUARD_TASK_MS} ms from reaching the section to the end of training`);
      });

      // The same while training, as the page's PerformanceObserver sees it (wall-clock time). On
      // a machine with more runnable processes than cores, a task's wall time also counts the
      // time it waited for a core; there the CPU times above are the measure, and the wall times
      // are reported. (Not from the section's arrival: there its first frames share two cores with
      // the Worker and the training module starting, and one took 64 ms by the wall clock when no
      // task had used more than 30 ms of CPU.)
      await t.test(`no long task over ${GUARD_TASK_MS} ms (PerformanceObserver, wall time) on an idle machine`, engine.skipUnless('longtask'), async (st) => {
        const long = await page.evaluate(([a, b]) => window.__longTasks.filter((x) => x.start >= a && x.start <= b), [start, end]);
        const [load] = loadavg();
        const over = long.filter((x) => x.duration > GUARD_TASK_MS).map((x) => Math.round(x.duration));
        st.diagnostic(`longest task CPU ${cpu ? Math.max(...cpu).toFixed(1) : '?'} ms; wall ${Math.round(Math.max(0, ...long.map((x) => x.duration)))} ms; load average ${load.toFixed(1)} on ${cpus().length} cores`);
        if (load < cpus().length) assert.deepEqual(over, [], `long tasks over ${GUARD_TASK_MS} ms (PerformanceObserver) during training`);
      });

      // Reset goes back to step 0 with the verdict gone.
      await page.click('#train-reset');
      await page.waitForFunction(() => document.querySelector('[data-testid="train-counter"]').dataset.step === '0');
      assert.equal(await page.isHidden('[data-testid="train-verdict"]'), true);
    }, { initScripts: [LONG_TASKS] });
  });

  test('a different seed from the URL trains a different run; a bad seed says what is allowed', { timeout: TEST_TIMEOUT }, async () => {
    await withPage(browser, server, 'http', '#train_seed=2', async (page) => {
      await reachTraining(page);
      assert.equal(await page.inputValue('#train-seed'), '2');
      await page.fill('#train-seed', '-5');
      await page.waitForSelector('#train-seed-error:not([hidden])');
      assert.match(await page.textContent('#train-seed-error'), /seed/);
      await page.fill('#train-seed', '3');
      await page.waitForSelector('#train-seed-error[hidden]', { state: 'attached' });
      await page.waitForSelector('hw-train[data-ready] #train-run:not([disabled])');
      await page.click('#train-step');
      await page.waitForFunction(() => document.querySelector('[data-testid="train-counter"]').dataset.step === '1');
      await settle(page);
      assert.match(await page.url(), /train_seed=3/);
    });
  });
});

/**
 * The training module's pool and the three models' final numbers.
 * @param {any} page
 */
function modelsOf(page) {
  return page.$eval('hw-train', (el) => {
    const session = /** @type {any} */ (el).session;
    const p = session.store.compute;
    return {
      mode: p.mode, size: p.size, open: p.open, peak: p.peakBusy,
      models: session.models.map((/** @type {any} */ m) => ({ mode: m.mode, options: m.options, step: m.step, loss: m.loss[m.loss.length - 1] })),
    };
  });
}

/**
 * Each model's last batch loss is that of the same model trained alone on Node's module (bit for bit).
 * @param {Awaited<ReturnType<typeof modelsOf>>} r
 */
function checkAlone(r) {
  for (const m of r.models) {
    const t = hw.createTrainer(m.options);
    try {
      assert.equal(t.step(m.step).loss, m.loss, `${m.options.numHeads} heads: the last batch's loss`);
    } finally {
      t.dispose();
    }
  }
}

describe('training section, embedded', () => {
  test('under the strict CSP (http header) it trains to the verdict', { timeout: TEST_TIMEOUT }, async () => {
    await withStrictCsp(browser, servers, '#workers=2', async (page) => {
      const result = await trainToVerdict(page);
      assert.match(result.verdict, /follows the/);
      // #workers=2: the three models on two Workers, trained side by side, each as alone.
      const r = await modelsOf(page);
      assert.deepEqual([r.mode, r.size, r.open, r.peak], ['worker', 2, 2, 2]);
      checkAlone(r);
    });
  });

  test('where no Worker may start (a CSP without worker-src blob:), it trains on the main thread in slices', { timeout: TEST_TIMEOUT }, async (t) => {
    await inContext(browser, async (page, log) => {
      await page.goto(noWorkerServer.url('/index.html#workers=4'));
      await waitReady(page);
      await page.waitForFunction(() => /** @type {any} */ (document.querySelector('hw-controls')).store.compute.mode !== 'starting', undefined, { timeout: 60000 });
      assert.equal(await page.evaluate(() => /** @type {any} */ (document.querySelector('hw-controls')).store.compute.mode), 'main');
      // Loading the section (train.js, then headwise.js started on this thread, and the
      // section's first frames) is reported, not bounded here: its longest tasks are the
      // section's first layout and the module's start, about 40 ms of CPU on an idle machine.
      // Training is guarded at four times the figure the page holds the main thread to where no
      // Worker runs (100 ms): its steps come in slices of a few ms, and unsliced, one model's run
      // would be a single task of seconds. Both figures are printed.
      const loading = await mainThreadTaskCpu(page, () => reachTraining(page), 5);
      const cpu = await mainThreadTaskCpu(page, async () => {
        const result = await trainToVerdict(page);
        assert.match(result.verdict, /follows the/);
      }, 50);
      // #workers=4 asks for a pool, but no Worker starts: every model on this thread, as alone.
      const r = await modelsOf(page);
      assert.deepEqual([r.mode, r.size, r.open], ['main', 4, 0]);
      assert.deepEqual(r.models.map((m) => m.mode), ['main', 'main', 'main']);
      checkAlone(r);
      await t.test(`no main-thread task computed for more than ${2 * GUARD_TASK_MS} ms (CPU time, from a trace)`, engine.skipUnless('tracing'), (st) => {
        st.diagnostic(`longest task CPU while loading the section ${loading ? Math.max(...loading).toFixed(1) : '?'} ms; while training ${cpu ? Math.max(...cpu).toFixed(1) : '?'} ms`);
        assert.deepEqual(/** @type {number[]} */ (cpu).filter((ms) => ms > 2 * GUARD_TASK_MS), [], `main-thread tasks that computed for more than ${2 * GUARD_TASK_MS} ms while training on the main thread`);
      });
      await collectCsp(page, log);
      // The refused Worker is the point of this test; anything else must stay clean.
      log.cspViolations = log.cspViolations.filter((v) => !/^worker-src blob\b/.test(v));
      log.assertClean(noWorkerServer.origin, { allowConsole: /worker-src|Worker/ });
    });
  });

  test('inside <iframe sandbox="allow-scripts"> (embed.html?widget=train) it trains to the verdict', { timeout: TEST_TIMEOUT }, async () => {
    await withEmbed(browser, servers, 'mha-train', async (frame) => {
      // The element renders in its shadow root; the adapter's selectors search it.
      const result = await trainToVerdict(frame);
      assert.match(result.verdict, /follows the/);
      assert.equal(await frame.isDisabled('#train-task'), true, 'the task is locked');
      assert.equal(await frame.isVisible('#train-seed'), true);
    });
  });
});
