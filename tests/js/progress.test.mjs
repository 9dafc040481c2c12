// The student's progress as src/page/progress.js keeps it, without a browser: the stored format is
// read back, anything else is no progress, a storage that refuses (a sandboxed iframe's throws on
// the very access; a full one on setItem) leaves the progress working in memory, and forget()
// clears the challenge's draft too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHALLENGE_KEY, Progress, STORAGE_KEY, clip, decode, openStorage } from '../../web/src/page/progress.js';

/** A Storage in memory; `refuse` makes setItem throw as a full storage does. */
class MemoryStorage {
  constructor() { this.map = new Map(); this.refuse = false; }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) {
    if (this.refuse) throw new DOMException('full', 'QuotaExceededError');
    this.map.set(k, String(v));
  }
  removeItem(k) { this.map.delete(k); }
}

test('a record written is read back by the next visit, and forget clears it with the challenge\'s draft', () => {
  const storage = new MemoryStorage();
  const p = new Progress(/** @type {any} */ (storage));
  assert.equal(p.kept, true);
  const told = [];
  p.addEventListener('change', (e) => told.push(/** @type {CustomEvent} */ (e).detail.id));
  p.set('quiz', { answers: { 1: 2 }, right: 0, answered: 1, total: 5 });
  p.set('exercise-1', { seed: 5 });
  p.setLast('induction');
  storage.setItem(CHALLENGE_KEY, 'my answer');
  assert.deepEqual(told, ['quiz', 'exercise-1']);
  const next = new Progress(/** @type {any} */ (storage));
  assert.deepEqual(next.get('quiz'), { answers: { 1: 2 }, right: 0, answered: 1, total: 5 });
  assert.deepEqual(next.get('exercise-1'), { seed: 5 });
  assert.equal(next.data.last, 'induction');
  assert.equal(next.challengeDraft(), 'my answer');
  next.remove('exercise-1');
  assert.equal(new Progress(/** @type {any} */ (storage)).get('exercise-1'), null);
  next.forget();
  assert.equal(storage.getItem(STORAGE_KEY), null);
  assert.equal(storage.getItem(CHALLENGE_KEY), null);
  assert.equal(new Progress(/** @type {any} */ (storage)).get('quiz'), null);
});

test('what is not this format is no progress (and never throws)', () => {
  for (const text of [null, '', 'not json', '[]', '{"v":2,"sections":{}}', '{"v":1,"sections":[]}', '{"v":1}', 'null']) {
    assert.deepEqual(decode(text), { v: 1, last: null, sections: {} }, String(text));
  }
  // Section ids are the page's (lower case, digits, hyphens); records are objects.
  const d = decode(JSON.stringify({ v: 1, last: 7, sections: { quiz: { right: 1 }, 'Bad Id': {}, train: 'x', heads: [] } }));
  assert.deepEqual(d, { v: 1, last: null, sections: { quiz: { right: 1 } } });
  assert.equal(clip('x'.repeat(5000)).length, 2000);
  assert.equal(clip(null), '');
});

test('a storage that throws leaves the progress in memory for the visit', () => {
  // A sandboxed iframe: the very access throws.
  const sandboxed = {};
  Object.defineProperty(sandboxed, 'localStorage', { get() { throw new DOMException('denied', 'SecurityError'); } });
  assert.equal(openStorage(sandboxed), null);
  assert.equal(openStorage({}), null);
  const p = new Progress(null);
  assert.equal(p.kept, false);
  p.set('challenge', { written: true });
  assert.deepEqual(p.get('challenge'), { written: true });
  assert.equal(p.challengeDraft(), '');
  p.forget();
  assert.equal(p.get('challenge'), null);
  // A full storage: the probe fails, or a later write does, and the progress goes on in memory.
  const full = new MemoryStorage();
  full.refuse = true;
  assert.equal(openStorage({ localStorage: full }), null);
  const later = new MemoryStorage();
  const q = new Progress(/** @type {any} */ (later));
  later.refuse = true;
  q.set('quiz', { answered: 1 });
  assert.equal(q.kept, false);
  assert.deepEqual(q.get('quiz'), { answered: 1 });
});
