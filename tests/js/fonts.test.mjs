// The fonts of a language in another script readied before it is shown (web/src/shared/i18n/fonts.js
// warmFonts): each of the page's faces measures the sample once, on a canvas, in the page's own
// font stacks, one face per task; Latin text (the faces English already readied) and a page with
// no canvas cost nothing. tests/browser/load.test.mjs measures what it saves, in a Chinese first
// load.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';

import { warmFonts } from '../../web/src/shared/i18n/fonts.js';

const STACKS = { '--hw-serif': '"Noto Serif CJK SC", serif', '--hw-sans': '"Noto Sans CJK SC", sans-serif', '--hw-mono': '' };

/**
 * The browser's tasks, as src/shared/compute/slices.js asks for them (a MessageChannel's messages): the
 * test delivers them one at a time (`deliver`), so that it knows which task each measure ran in.
 * Installed before the first nextSlice(), which keeps its channel.
 */
const queue = [];
let task = 0;
const REAL_CHANNEL = globalThis.MessageChannel;
globalThis.MessageChannel = class {
  constructor() {
    const port1 = { onmessage: null, close() {} };
    this.port1 = port1;
    this.port2 = { postMessage: (data) => queue.push(() => port1.onmessage && port1.onmessage({ data })) };
  }
};
after(() => { globalThis.MessageChannel = REAL_CHANNEL; });

/** A document with a canvas that records what it measures, and the task each measure ran in. */
function fakePage({ canvas = true } = {}) {
  const measured = [];
  const ctx = {
    font: '',
    measureText(text) {
      measured.push({ font: this.font, text, task });
      return { width: text.length };
    },
  };
  globalThis.document = {
    documentElement: {},
    createElement: (name) => {
      assert.equal(name, 'canvas');
      return { getContext: (kind) => (kind === '2d' && canvas ? ctx : null) };
    },
  };
  globalThis.getComputedStyle = () => ({ getPropertyValue: (name) => STACKS[name] ?? '' });
  return {
    measured,
    /** Run the next task; false when none is queued. */
    deliver() {
      const run = queue.shift();
      if (!run) return false;
      task += 1;
      run();
      return true;
    },
  };
}

/** Deliver every task until warmFonts's promise has resolved. */
async function drain(page, promise) {
  let done = false;
  promise.then(() => { done = true; });
  for (let n = 0; n < 100 && !done; n += 1) {
    page.deliver();
    await Promise.resolve();
    await Promise.resolve();
  }
  assert.ok(done, 'warmFonts resolved once its tasks had run');
}

afterEach(() => {
  delete globalThis.document;
  delete globalThis.getComputedStyle;
});

test('every face of the page (serif, sans, monospace × regular, bold, italic) measures the sample once, in its own stack', async () => {
  const page = fakePage();
  await drain(page, warmFonts('简体中文'));
  assert.deepEqual(page.measured.map((m) => m.font), [
    '16px "Noto Serif CJK SC", serif', 'bold 16px "Noto Serif CJK SC", serif', 'italic 16px "Noto Serif CJK SC", serif',
    '16px "Noto Sans CJK SC", sans-serif', 'bold 16px "Noto Sans CJK SC", sans-serif', 'italic 16px "Noto Sans CJK SC", sans-serif',
    '16px monospace', 'bold 16px monospace', 'italic 16px monospace',
  ], 'a page without a stack of its own (--hw-mono here) gets the generic family');
  assert.ok(page.measured.every((m) => m.text === '简体中文'));
});

test('no two faces are readied in the same task, and none in the caller\'s', async () => {
  const page = fakePage();
  const done = warmFonts('简体中文');
  assert.equal(page.measured.length, 0, 'nothing measured before the caller\'s task ends');
  await drain(page, done);
  const tasks = page.measured.map((m) => m.task);
  assert.equal(tasks.length, 9);
  assert.equal(new Set(tasks).size, tasks.length, `the task of each measure: ${tasks.join(', ')}`);
});

test('Latin text, no sample, no canvas, no document: nothing to ready, resolved at once', async () => {
  let page = fakePage();
  await warmFonts('Español');
  await warmFonts('English — “quoted”');
  await warmFonts('');
  assert.equal(page.deliver(), false, 'no task asked for');
  assert.deepEqual(page.measured, []);
  page = fakePage({ canvas: false });
  await warmFonts('简体中文');
  assert.equal(page.deliver(), false, 'no task asked for');
  assert.deepEqual(page.measured, []);
  delete globalThis.document;
  await warmFonts('简体中文');
});
