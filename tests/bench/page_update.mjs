// How the bench drives the lesson page and reads what an update cost: the settings in the URL
// hash, the reader's place, the first verified table, one update timed in the page, and the
// update's main-thread CPU time from a Chromium trace.
import {runTasks, stopTrace} from './common.mjs';

/** The URL hash of a lesson setting. */
export const pageHash = (seed, n, d, h) =>
    `#seed=${seed}&tokens=${n}&d_model=${d}&heads=${h}&bias=0&causal=0&query=0`;

/**
 * An init script: window.__firstVerified becomes the page's time when the lesson's first table
 * reads its verified numbers (head 0, query 0: 0.424 0.576).
 */
export function watchFirstTable() {
  window.__firstVerified = null;
  const cell = (c) => document.querySelector(
      `hw-head-weights table[data-head="0"] tr[data-token="0"] td[data-col="${c}"]`);
  const observer = new MutationObserver(() => {
    const a = cell(2);
    const b = cell(3);
    if (a && b && a.textContent.trim() === '0.424' && b.textContent.trim() === '0.576') {
      window.__firstVerified = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, {subtree: true, childList: true, characterData: true});
}

/**
 * Where the reader is for the lesson-size updates: [the key in the page results, how the
 * comparison prints it, the window's height, the element read (null: the top of the page)].
 * At 1280 x 900 the head tables are within Chromium's content-visibility margin of 150 % of
 * the window, so their layout is part of every update; at 720 they are not.
 */
export const LESSON_POSITIONS = [
  ['lesson', 'the top, 1280 x 720', 720, null],
  ['lesson, 1280 x 900', 'the top, 1280 x 900', 900, null],
  ['lesson, at the head tables', 'the head tables, 1280 x 720', 720, 'hw-head-weights'],
  ['lesson, at exercise 3', 'exercise 3, 1280 x 720', 720, 'hw-exercise-torch'],
];

/** A window 1280 px wide and `height` tall, read at the element `at` (a selector), or at the top. */
export async function placeReader(page, height, at) {
  await page.setViewportSize({width: 1280, height});
  await page.evaluate((sel) => new Promise((done) => {
    if (sel) document.querySelector(sel).scrollIntoView({block: 'start', behavior: 'instant'});
    else window.scrollTo({top: 0, behavior: 'instant'});
    // The page's IntersectionObserver reports after a frame or two.
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50)));
  }), at);
}

// One full update: the hash changes (as a control or a permalink would), the store recomputes
// and the widgets in view (or within 200 px of it) redraw synchronously in its hashchange
// handler; the others redraw in tasks of their own right after the next frame (element.js),
// each slice a 'hw-redraw' User Timing measure. work = until the handlers have run and style
// and layout are done (forced); frame = until the next frame's callbacks; redraw = the
// deferred slices' time, waited for until none is left. The mark lets a trace find the task
// that did the update (updateCpu).
export const UPDATE_IN_PAGE = (hash) => new Promise((resolveUpdate) => {
  const t0 = performance.now();
  window.addEventListener('hashchange', () => {
    const t1 = performance.now();
    performance.mark('hw-bench-update');
    void document.documentElement.getBoundingClientRect().height;  // style + layout, now
    const t2 = performance.now();
    requestAnimationFrame(() => {
      const tf = performance.now();
      const ch = new MessageChannel();
      let hops = 0;
      ch.port1.onmessage = () => {
        const slices = performance.getEntriesByName('hw-redraw').filter((e) => e.startTime >= t2);
        if (!slices.some((e) => e.detail && e.detail.waiting === 0) && hops++ < 100) {
          ch.port2.postMessage(0);  // (nothing was deferred when no slice comes in 100 tasks)
          return;
        }
        performance.clearMeasures('hw-redraw');
        resolveUpdate({
          js: t1 - t0, work: t2 - t0, frame: tf - t0,
          redraw: slices.reduce((sum, e) => sum + e.duration, 0),
        });
      };
      ch.port2.postMessage(0);
    });
  }, {once: true});
  window.location.hash = hash;
});

/** `count` updates at lesson size, untimed: the page's code warm before a traced pass. */
export async function warmUp(page, count) {
  for (let k = 0; k < count; k++) await page.evaluate(UPDATE_IN_PAGE, pageHash(2 + k, 5, 8, 2));
}

// A mark is an instant event; a measure an async pair, found by its start ('b').
const marksOf = (events, name) => events.filter((e) => e.name === name && e.ph !== 'M' && e.ph !== 'e');

/**
 * The main thread's CPU time of each marked update task in a trace ('toplevel',
 * 'blink.user_timing'): what an update costs whatever else the machine is doing meanwhile,
 * where the wall time also counts waiting for a core.
 */
export function updateCpu(events, name = 'hw-bench-update') {
  const tasks = runTasks(events).filter((e) => Number.isFinite(e.tdur));
  return marksOf(events, name)
      .map((m) => tasks.find((t) => t.pid === m.pid && t.tid === m.tid && t.ts <= m.ts &&
                                    m.ts <= t.ts + t.dur))
      .filter(Boolean)
      .map((t) => t.tdur / 1000);
}

// Every main-thread task of each marked update, from the task of its mark to the task of the
// next update's mark, in a trace with 'devtools.timeline': the whole update (recompute, render,
// layout), wherever its parts ran: the change's task, the frames, the redraw after the frame.
// JS is the page's top-level script entries less the style and layout they forced (counted as
// style and layout); paint (pre-paint, paint, layerize) is listed beside it. The bench's own
// scripts (UPDATE_IN_PAGE's listeners, evaluated in the page, so without a script URL) are not
// the page's update: their time is `bench`, beside it, while the style and layout they force are
// the update's and stay in it. The last mark only closes the window before it.
export function updateBreakdown(events, name = 'hw-bench-update') {
  const marks = marksOf(events, name).sort((a, b) => a.ts - b.ts);
  if (marks.length < 2) return [];
  const {pid, tid} = marks[0];
  const timed = events.filter((e) => e.ph === 'X' && e.pid === pid && e.tid === tid &&
                                     Number.isFinite(e.tdur))
                    .sort((a, b) => a.ts - b.ts);
  const tasks = runTasks(timed);
  const starts = marks.map((m) => (tasks.find((t) => t.ts <= m.ts && m.ts <= t.ts + t.dur) || m).ts);
  const sum = (list) => list.reduce((acc, e) => acc + e.tdur, 0) / 1000;
  const inAny = (e, list) => list.some((o) => o !== e && o.ts <= e.ts && e.ts + e.dur <= o.ts + o.dur);
  const rows = [];
  for (let k = 0; k + 1 < marks.length; k++) {
    const r = {js: 0, style: 0, layout: 0, paint: 0, bench: 0, all: 0};
    for (const t of tasks.filter((x) => x.ts >= starts[k] && x.ts < starts[k + 1])) {
      const inside = timed.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur);
      const scripts = inside.filter((e) => ['FunctionCall', 'EvaluateScript', 'RunMicrotasks',
                                            'TimerFire', 'FireAnimationFrame'].includes(e.name));
      const top = scripts.filter((e) => !inAny(e, scripts));
      const style = inside.filter((e) => e.name === 'UpdateLayoutTree');
      const layout = inside.filter((e) => e.name === 'Layout');
      r.style += sum(style);
      r.layout += sum(layout);
      for (const s of top) {
        const within = (e) => s.ts <= e.ts && e.ts + e.dur <= s.ts + s.dur;
        const forced = sum(style.filter(within)) + sum(layout.filter(within));
        // A function the bench evaluated has no script URL; every one of the page's has one.
        const urls = [s, ...scripts.filter((e) => e !== s && within(e))]
                         .filter((e) => e.name === 'FunctionCall').map((e) => (e.args && e.args.data && e.args.data.url) || '');
        const benchOnly = urls.length > 0 && urls.every((u) => u === '');
        r[benchOnly ? 'bench' : 'js'] += s.tdur / 1000 - forced;
      }
      r.paint += sum(inside.filter((e) => ['PrePaint', 'Paint', 'Layerize'].includes(e.name)));
      r.all += t.tdur / 1000;
    }
    r.whole = r.js + r.style + r.layout;
    rows.push(r);
  }
  return rows;
}

/** Traces `count` + 1 updates at lesson size from seed `seed` and splits each by kind. */
export async function tracedUpdates(browser, page, count, seed) {
  await browser.startTracing(page, {categories: ['devtools.timeline', 'toplevel', 'blink.user_timing']});
  for (let k = 0; k <= count; k++) await page.evaluate(UPDATE_IN_PAGE, pageHash(seed + k, 5, 8, 2));
  return updateBreakdown(await stopTrace(browser));
}
