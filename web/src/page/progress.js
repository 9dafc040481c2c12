// What the student has done on the lesson page, kept in this browser (localStorage) by the
// sections' language-independent ids (index.html's section ids: `exercise-1`, `train`, `quiz`, …),
// so that it comes back when they return. No DOM here: src/page/path.js records and shows it.
//
// One entry, STORAGE_KEY, holds JSON:
//   {v: 1, last: "induction", sections: {
//     "exercise-1": {seed: 5},                        an exercise answered, with its inputs
//     "exercise-2": {dModel: 12, heads: 4},
//     "quiz": {answers: {"1": 2, …}, right: 4, answered: 5, total: 5},
//     "train" | "heads-needed" | "induction": {at: 1765000000000, seed: 1, verdict: "…", lang: "en"},
//     "sentence": {text: "…"},
//     "sentence-find": {head: 1},                     the sentence's exercise: the layer-1 head checked
//     "challenge": {written: true}                    (its text is <hw-challenge>'s own entry, CHALLENGE_KEY)
//   }}
// The trained models themselves are not kept: only when, with which seed, and the verdict's words.
// Where storage is refused (a sandboxed iframe, some private windows, file:// in some engines) or
// full, the same object works in memory for the visit and says so (`kept`); nothing throws.

/** The entry that holds the progress. */
export const STORAGE_KEY = 'headwise.progress';
/** <hw-challenge>'s own entry: the challenge's draft (src/lesson/hw-challenge.js). */
export const CHALLENGE_KEY = 'headwise.challenge.answer';
/** The format's version. */
const FORMAT = 1;
/** The longest text kept for one field (a sentence, a verdict): more is cut. */
const MAX_TEXT = 2000;

/**
 * This window's localStorage if it can be read and written, else null (a sandboxed iframe throws
 * on the very access; a full or disabled storage throws on setItem).
 * @param {any} [win]
 * @returns {Storage|null}
 */
export function openStorage(win = globalThis) {
  try {
    const s = win.localStorage;
    if (!s) return null;
    const probe = `${STORAGE_KEY}.probe`;
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

/**
 * @typedef {{v: number, last: string|null, sections: Record<string, Record<string, any>>}} Data
 */

/** @returns {Data} */
const empty = () => ({ v: FORMAT, last: null, sections: {} });

/**
 * Read the stored text; anything that is not this format is treated as no progress.
 * @param {string|null} text
 * @returns {Data}
 */
export function decode(text) {
  if (!text) return empty();
  try {
    const o = JSON.parse(text);
    if (!o || typeof o !== 'object' || o.v !== FORMAT || !o.sections || typeof o.sections !== 'object' || Array.isArray(o.sections)) return empty();
    /** @type {Data} */
    const data = { v: FORMAT, last: typeof o.last === 'string' ? o.last : null, sections: {} };
    for (const [id, rec] of Object.entries(o.sections)) {
      if (/^[a-z][a-z0-9-]{0,40}$/.test(id) && rec && typeof rec === 'object' && !Array.isArray(rec)) data.sections[id] = rec;
    }
    return data;
  } catch {
    return empty();
  }
}

/**
 * A field's text as kept (at most MAX_TEXT characters).
 * @param {unknown} s
 */
export function clip(s) {
  const text = String(s ?? '');
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
}

/**
 * The student's progress: read once, written on every change. Tells `change` listeners.
 */
export class Progress extends EventTarget {
  /**
   * @param {Storage|null} storage  null: kept in memory for this visit only
   */
  constructor(storage) {
    super();
    this.storage = storage;
    /** @type {Data} */
    this.data = empty();
    if (storage) {
      try {
        this.data = decode(storage.getItem(STORAGE_KEY));
      } catch {
        this.storage = null;
      }
    }
  }

  /** Whether what is recorded outlives the visit. */
  get kept() {
    return this.storage !== null;
  }

  /**
   * A section's record, or null.
   * @param {string} id
   */
  get(id) {
    return this.data.sections[id] || null;
  }

  /**
   * Record (replace) a section's record, and keep it.
   * @param {string} id
   * @param {Record<string, any>} record
   */
  set(id, record) {
    this.data.sections[id] = record;
    this.write();
    this.dispatchEvent(new CustomEvent('change', { detail: { id } }));
  }

  /**
   * Remove a section's record.
   * @param {string} id
   */
  remove(id) {
    if (!(id in this.data.sections)) return;
    delete this.data.sections[id];
    this.write();
    this.dispatchEvent(new CustomEvent('change', { detail: { id } }));
  }

  /**
   * The section the student was last in.
   * @param {string} id
   */
  setLast(id) {
    if (this.data.last === id) return;
    this.data.last = id;
    this.write();
  }

  /** Clear everything kept (the challenge's draft too). */
  forget() {
    this.data = empty();
    if (this.storage) {
      try {
        this.storage.removeItem(STORAGE_KEY);
        this.storage.removeItem(CHALLENGE_KEY);
      } catch {
        // storage gone meanwhile: nothing is kept there anyway
      }
    }
    this.dispatchEvent(new CustomEvent('change', { detail: { id: null } }));
  }

  /** Write the data (quietly in memory only when the storage refuses: full, or gone). */
  write() {
    if (!this.storage) return;
    try {
      this.storage.setItem(STORAGE_KEY, JSON.stringify(this.data));
    } catch {
      this.storage = null;
    }
  }

  /** The challenge's draft as <hw-challenge> keeps it ('' for none). */
  challengeDraft() {
    if (!this.storage) return '';
    try {
      return this.storage.getItem(CHALLENGE_KEY) || '';
    } catch {
      return '';
    }
  }
}
