// A path through the lesson: the contents (index.html's <nav id="contents">, static, so that the
// first load only adds a few listeners), the section the reader is in marked there as they scroll,
// the phone's button that opens it, a "copy link to this section" button, what the student has
// done marked beside each part and kept in this browser (progress.js), restored when they come
// back, with "continue where you left off" at the top and "forget my progress".
//
// It reads what the widgets already tell the page, and never their internals:
// - `headwise-quiz` (every quiz answer), `headwise-challenge` (the challenge's text),
//   `headwise-find` (the head checked in the sentence's exercise "which layer-1 head does the
//   induction head read?");
// - the store's change with `lastChanged` naming an exercise's control (the student typed it);
// - `data-done` on <hw-train>, <hw-heads-needed> and <hw-induction> (set when a run has reached
//   its verdict), with the section's seed field (`#train-seed`, `#heads-seed`, `#induction-seed`)
//   and its verdict (`[data-testid=train-verdict]`, `heads-cliff`, `induction-verdict`);
// - `input` events of `#sentence-text` and its presets.
// And it gives back only through public doors: <hw-quiz>'s restore(), the store's set(), the
// sentence field's own input event, the exercise's head chooser and its Check button.
//
// In a course platform (SCORM) and in <mha-lesson> (H5P) the host keeps the student's work: the
// contents and its marks work for the visit, nothing is written to this browser.

import { getStore } from '../shared/state/store.js';
import { SETTING, defaults } from '../shared/state/settings.js';
import { onLanguageChange, resolveLanguage, setAutoLang, t } from '../shared/i18n/i18n.js';
import { afterFrame } from '../shared/compute/slices.js';
import { Progress, clip, openStorage } from './progress.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/** The training sections: their element, seed field and verdict. */
const TRAINED = [
  { id: 'train', tag: 'hw-train', seed: '#train-seed', verdict: '[data-testid=train-verdict]' },
  { id: 'heads-needed', tag: 'hw-heads-needed', seed: '#heads-seed', verdict: '[data-testid=heads-cliff]' },
  { id: 'induction', tag: 'hw-induction', seed: '#induction-seed', verdict: '[data-testid=induction-verdict]' },
];

/** The exercises' settings: what the student answers them with. */
const EXERCISES = [
  { id: 'exercise-1', fields: { seed: 'ex1Seed' } },
  { id: 'exercise-2', fields: { dModel: 'ex2DModel', heads: 'ex2Heads' } },
];

/** The sentence's exercise ("which layer-1 head does the induction head read?"): its record's id. */
const FIND = 'sentence-find';

/** How long after the last keystroke the sentence is kept (ms). */
const SENTENCE_SAVE_MS = 400;
/** How much of the window's top (a fraction) counts as "where the reader is". */
const READING_BAND = 0.5;

/**
 * @typedef {object} PathOptions
 * @property {'local'|'host'} [keep]  'local': kept in this browser's storage (the page);
 *   'host': a course platform or an embed's host keeps the work, this browser nothing
 * @property {Store|null} [store]  the store whose exercise settings are recorded (the page's)
 * @property {Promise<unknown>} [language]  settled once the page's first language is written
 *   (language.js's languageSettled): the contents shows its words then (page.css, data-hw-wait)
 */

/**
 * Start the path on the lesson's contents under `root` (the document, or <mha-lesson>'s frame).
 * @param {Document|Element} [root]
 * @param {PathOptions} [options]
 * @returns {Path|null}  null where there is no contents
 */
export function startPath(root = document, options = {}) {
  const nav = /** @type {HTMLElement|null} */ (root.querySelector('.hw-contents'));
  if (!nav) return null;
  try {
    return new Path(root, nav, options);
  } catch (e) {
    // A fault here must never cost the student the lesson.
    console.error('Headwise: the contents could not start:', e);
    return null;
  }
}

export class Path {
  /**
   * @param {Document|Element} root
   * @param {HTMLElement} nav
   * @param {PathOptions} options
   */
  constructor(root, nav, { keep = 'local', store = null, language = Promise.resolve() } = {}) {
    this.root = root;
    this.nav = nav;
    this.doc = nav.ownerDocument;
    this.store = store;
    this.keep = keep;
    this.progress = new Progress(keep === 'local' ? openStorage() : null);
    /** @type {Map<string, HTMLElement>} each section's item in the contents */
    this.items = new Map();
    for (const li of nav.querySelectorAll('li[data-section]')) this.items.set(/** @type {string} */ (li.getAttribute('data-section')), /** @type {HTMLElement} */ (li));
    /** @type {string|null} */
    this.current = null;
    this.status = /** @type {HTMLElement|null} */ (nav.querySelector('[data-path-status]'));
    // Its words once the language is written, laid out in a frame after the page's first.
    const show = () => afterFrame(() => nav.removeAttribute('data-hw-wait'));
    language.then(show, show);
    this.watchCurrent();
    this.wireControls();
    this.record();
    this.restore();
    this.drawMarks();
    this.drawKept();
    this.drawContinue();
    this.progress.addEventListener('change', () => this.drawMarks());
    onLanguageChange(() => {
      this.drawMarks();
      this.drawContinue();
      this.drawKept();
      for (const note of this.notes()) this.drawNote(note);
    });
  }

  /** The page's language here. */
  get lang() {
    return resolveLanguage(this.nav);
  }

  /**
   * @param {string} key
   * @param {Record<string, unknown>} [params]
   */
  t(key, params = {}) {
    return t(key, params, this.lang);
  }

  /**
   * The element with this id under the root.
   * @param {string} id
   * @returns {HTMLElement|null}
   */
  byId(id) {
    const r = /** @type {any} */ (this.root);
    return typeof r.getElementById === 'function' ? r.getElementById(id) : r.querySelector(`#${CSS.escape(id)}`);
  }

  /**
   * A section's title as the contents says it now (its language).
   * @param {string} id
   */
  titleOf(id) {
    const li = this.items.get(id);
    const title = li && li.querySelector(':scope > a > .hw-contents-title');
    return title ? (title.textContent || '').replace(/\s+/g, ' ').trim() : id;
  }

  // ---- where the reader is ----------------------------------------------------------------------

  /** Mark the section in the top part of the window, as the reader scrolls (no layout read). */
  watchCurrent() {
    /** @type {Set<string>} sections reaching into the band */
    const inBand = new Set();
    const order = [...this.items.keys()];
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting) inBand.add(e.target.id);
        else inBand.delete(e.target.id);
      }
      // The last in the page's order: an exercise within the exercises, the next section whose
      // heading has come up into the band.
      let now = null;
      for (const id of order) if (inBand.has(id)) now = id;
      if (now) this.setCurrent(now);
    }, { rootMargin: `0px 0px -${Math.round((1 - READING_BAND) * 100)}% 0px` });
    for (const id of order) {
      const el = this.byId(id);
      if (el) io.observe(el);
    }
  }

  /**
   * @param {string} id
   */
  setCurrent(id) {
    if (this.current === id) return;
    const before = this.current && this.items.get(this.current);
    if (before) {
      before.removeAttribute('data-current');
      before.querySelector(':scope > a')?.removeAttribute('aria-current');
    }
    this.current = id;
    const li = this.items.get(id);
    if (!li) return;
    li.setAttribute('data-current', '');
    li.querySelector(':scope > a')?.setAttribute('aria-current', 'location');
    // The contents' own list scrolls (never the page) to keep the current part in sight.
    const list = /** @type {HTMLElement|null} */ (this.nav.querySelector('.hw-contents-list'));
    if (list && list.scrollHeight > list.clientHeight + 1) {
      const top = li.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 3);
    }
    // Where to continue next time (not the opening: that is where a new visit starts anyway).
    if (id !== 'why') this.progress.setLast(id);
  }

  // ---- the controls -----------------------------------------------------------------------------

  wireControls() {
    const doc = this.doc;
    // The phone's button (outside <main>, on the page only).
    const opener = /** @type {HTMLButtonElement|null} */ (this.root === doc ? doc.querySelector('.hw-to-contents') : null);
    this.opener = opener;
    if (opener) {
      opener.addEventListener('click', () => (this.nav.hasAttribute('data-open') ? this.close(true) : this.open()));
    }
    const floating = /** @type {HTMLElement|null} */ (this.root === doc ? doc.querySelector('.hw-floating') : null);
    if (floating) this.stepAside(floating);
    this.nav.querySelector('[data-contents-close]')?.addEventListener('click', () => this.close(true));
    this.nav.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.nav.hasAttribute('data-open')) {
        e.preventDefault();
        this.close(true);
      }
    });
    this.nav.addEventListener('focusout', (e) => {
      const to = /** @type {Node|null} */ (e.relatedTarget);
      if (this.nav.hasAttribute('data-open') && to && !this.nav.contains(to) && to !== opener) this.close(false);
    });
    // A part chosen: the panel closes; inside a shadow root (no fragment navigation) the page scrolls to it.
    this.nav.addEventListener('click', (e) => {
      const a = /** @type {HTMLElement} */ (e.target).closest?.('a[href^="#"]');
      if (!a) return;
      if (this.nav.hasAttribute('data-open')) this.close(false);
      if (this.root !== doc) {
        const target = this.byId((a.getAttribute('href') || '').slice(1));
        if (target) {
          e.preventDefault();
          target.scrollIntoView({ block: 'start' });
        }
      }
    });
    // (Its name stays its visible text; the status line names the part whose link it copied.)
    this.nav.querySelector('[data-copy-link]')?.addEventListener('click', () => this.copyLink());
    const forget = /** @type {HTMLButtonElement|null} */ (this.nav.querySelector('[data-forget]'));
    if (forget) {
      forget.hidden = this.keep !== 'local';
      forget.addEventListener('click', () => this.forget());
    }
  }

  /**
   * The floating buttons step aside (data-aside: hidden) while they would cover the control that
   * has the focus, the field being typed in above all (WCAG 2.4.11): checked when the focus moves
   * and, while something has it, once per frame of scrolling or resizing.
   * @param {HTMLElement} floating
   */
  stepAside(floating) {
    const doc = this.doc;
    let queued = false;
    const check = () => {
      queued = false;
      const el = doc.activeElement;
      let cover = false;
      if (el && el !== doc.body && el !== doc.documentElement && !floating.contains(el)) {
        const a = el.getBoundingClientRect();
        const b = floating.getBoundingClientRect();
        cover = b.width > 0 && a.bottom > b.top && a.top < b.bottom && a.right > b.left && a.left < b.right;
      }
      if (floating.hasAttribute('data-aside') !== cover) floating.toggleAttribute('data-aside', cover);
    };
    const later = () => {
      if (queued) return;
      queued = true;
      // (After the frame, or a timer: a frame that never comes, as in a page not shown, must not
      // leave the check queued for good.)
      afterFrame(check);
    };
    doc.addEventListener('focusin', later);
    doc.addEventListener('focusout', later);
    const moved = () => {
      const el = doc.activeElement;
      if (floating.hasAttribute('data-aside') || (el && el !== doc.body)) later();
    };
    addEventListener('scroll', moved, { passive: true });
    addEventListener('resize', moved, { passive: true });
    // (A field growing as the student types in it, a textarea resized.)
    doc.addEventListener('input', later);
  }

  open() {
    this.nav.setAttribute('data-open', '');
    this.opener?.setAttribute('aria-expanded', 'true');
    const target = /** @type {HTMLElement|null} */ (this.nav.querySelector('a[aria-current]') || this.nav.querySelector('a'));
    target?.focus();
  }

  /** @param {boolean} refocus  give the focus back to the button */
  close(refocus) {
    this.nav.removeAttribute('data-open');
    this.opener?.setAttribute('aria-expanded', 'false');
    if (refocus) this.opener?.focus();
  }

  /** The current section's stable address: this page's, with `#id` and no settings. */
  linkTo(/** @type {string} */ id) {
    const here = this.doc.location;
    return `${here.href.split('#')[0]}#${id}`;
  }

  async copyLink() {
    const id = this.current || 'why';
    const url = this.linkTo(id);
    try {
      await navigator.clipboard.writeText(url);
      this.say(this.t('path.copied', { section: this.titleOf(id), url }));
    } catch {
      // No clipboard here (file://, an iframe without the permission): the address to copy by hand.
      this.say(this.t('path.copyThis', { url }));
    }
  }

  /** @param {string} text */
  say(text) {
    if (this.status) this.status.textContent = text;
  }

  forget() {
    this.progress.forget();
    for (const note of this.notes()) note.remove();
    const cont = this.continueLine();
    if (cont) cont.hidden = true;
    this.say(this.t('path.forgotten'));
  }

  // ---- recording --------------------------------------------------------------------------------

  record() {
    const p = this.progress;
    const events = this.root === this.doc ? this.doc : this.root;
    events.addEventListener('headwise-quiz', (e) => {
      const d = /** @type {CustomEvent} */ (e).detail || {};
      const before = p.get('quiz');
      const answers = { ...(before && before.answers), [d.question]: d.answer };
      p.set('quiz', { answers, right: d.score, answered: d.answered, total: d.total });
    });
    events.addEventListener('headwise-challenge', (e) => {
      const text = String(/** @type {CustomEvent} */ (e).detail?.answer || '');
      const written = text.trim() !== '';
      if (Boolean(p.get('challenge')) !== written) {
        if (written) p.set('challenge', { written: true });
        else p.remove('challenge');
      }
    });
    events.addEventListener('headwise-find', (e) => {
      const head = /** @type {CustomEvent} */ (e).detail?.head;
      if (Number.isInteger(head) && p.get(FIND)?.head !== head) p.set(FIND, { head });
    });
    const store = this.store;
    if (store) {
      store.addEventListener('change', () => {
        for (const ex of EXERCISES) {
          const controls = Object.values(ex.fields).map((name) => SETTING[/** @type {keyof typeof SETTING} */ (name)].control);
          if (!store.lastChanged || !controls.includes(store.lastChanged)) continue;
          /** @type {Record<string, any>} */
          const rec = {};
          for (const [k, name] of Object.entries(ex.fields)) rec[k] = /** @type {any} */ (store.state)[name];
          if (Object.values(rec).some((v) => typeof v !== 'number' || !Number.isFinite(v))) continue;
          const had = p.get(ex.id);
          if (!had || Object.keys(rec).some((k) => had[k] !== rec[k])) p.set(ex.id, rec);
        }
      });
    }
    for (const part of TRAINED) {
      for (const el of this.root.querySelectorAll(part.tag)) {
        new MutationObserver(() => {
          if (el.hasAttribute('data-done')) this.trained(part, el);
        }).observe(el, { attributes: true, attributeFilter: ['data-done'] });
      }
    }
    // The student's sentence: as typed (after a pause), or a preset chosen.
    let timer = 0;
    const keepSentence = () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => {
        const field = /** @type {HTMLTextAreaElement|null} */ (this.root.querySelector('#sentence-text'));
        if (field) p.set('sentence', { text: clip(field.value) });
      }, SENTENCE_SAVE_MS);
    };
    events.addEventListener('input', (e) => {
      if (/** @type {Element} */ (e.target).id === 'sentence-text') keepSentence();
    });
    events.addEventListener('click', (e) => {
      if (/** @type {Element} */ (e.target).closest?.('[data-testid=sentence-preset]')) keepSentence();
    });
    // What a host restored itself (a course platform's quiz answers and challenge) is marked too.
    this.doc.addEventListener('headwise-loaded', () => this.readRestored(), { once: true });
  }

  /**
   * A training section reached its verdict: when, the seed, the verdict's words (read in a
   * following frame, so that the verdict drawn with the attribute is there).
   * @param {{id: string, seed: string, verdict: string}} part
   * @param {Element} el
   */
  trained(part, el) {
    const read = () => {
      if (!el.hasAttribute('data-done')) return;
      const seedField = /** @type {HTMLInputElement|null} */ (el.querySelector(part.seed));
      const seed = seedField ? Number(seedField.value) : null;
      const verdictEl = el.querySelector(part.verdict);
      const verdict = clip((verdictEl && [...verdictEl.children].length
        ? [...verdictEl.children].map((c) => (c.textContent || '').trim()).filter(Boolean).join(' ')
        : verdictEl?.textContent || '').replace(/\s+/g, ' ').trim());
      this.progress.set(part.id, { at: Date.now(), seed: Number.isFinite(seed) ? seed : null, verdict, lang: resolveLanguage(el) });
      // A note from an earlier visit says nothing new now.
      this.noteFor(part.id)?.remove();
    };
    requestAnimationFrame(() => setTimeout(read, 0));
  }

  /** Marks for what a host restored without telling (read from the widgets' own state). */
  readRestored() {
    const p = this.progress;
    const quiz = this.root.querySelector('hw-quiz');
    if (quiz && !p.get('quiz')) {
      const fb = [...quiz.querySelectorAll('[data-testid=quiz-feedback][data-correct]')];
      const total = quiz.querySelectorAll('fieldset[data-question]').length;
      if (fb.length > 0) p.set('quiz', { answers: {}, right: fb.filter((f) => f.getAttribute('data-correct') === 'true').length, answered: fb.length, total });
    }
    const answer = /** @type {HTMLTextAreaElement|null} */ (this.root.querySelector('#challenge-answer'));
    if (!p.get('challenge') && answer && answer.value.trim()) p.set('challenge', { written: true });
  }

  // ---- restoring --------------------------------------------------------------------------------

  restore() {
    const p = this.progress;
    if (!p.kept) return;
    if (!p.get('challenge') && p.challengeDraft().trim()) p.data.sections.challenge = { written: true };
    const quiz = p.get('quiz');
    const quizEl = /** @type {any} */ (this.root.querySelector('hw-quiz'));
    if (quiz && quiz.answers && quizEl && typeof quizEl.restore === 'function') {
      /** @type {Record<number, number>} */
      const answers = {};
      for (const [n, oi] of Object.entries(quiz.answers)) if (Number.isInteger(oi)) answers[Number(n)] = oi;
      if (Object.keys(answers).length) quizEl.restore(answers);
    }
    // The exercises' inputs, each unless the address gives it (a link wins).
    const store = this.store;
    if (store) {
      const named = new URLSearchParams(this.doc.location.hash.replace(/^#/, ''));
      /** @type {Record<string, number>} */
      const patch = {};
      for (const ex of EXERCISES) {
        const rec = p.get(ex.id);
        if (!rec) continue;
        for (const [k, name] of Object.entries(ex.fields)) {
          const setting = SETTING[/** @type {keyof typeof SETTING} */ (name)];
          if (Number.isFinite(rec[k]) && !named.has(setting.hash)) patch[name] = rec[k];
        }
      }
      if (Object.keys(patch).length) {
        // After the store has read the address (first-load.js starts it in a microtask of its own).
        queueMicrotask(() => store.init().then(() => {
          const d = /** @type {any} */ (defaults());
          const s = /** @type {any} */ (store.state);
          // Only what is still the lesson's default: a value the student changed meanwhile stays.
          const still = Object.fromEntries(Object.entries(patch).filter(([name]) => s[name] === d[name]));
          if (Object.keys(still).length) store.set(still);
        }));
      }
    }
    // The sentence's exercise: the head chosen once its choices are there (the text model loads
    // when the section comes near), checked again, unless the student has chosen meanwhile.
    const find = p.get(FIND);
    if (find && Number.isInteger(find.head)) this.whenBuilt('hw-sentence', `#sentence-find-head option[value="${find.head}"]`, (option) => {
      const select = /** @type {HTMLSelectElement} */ (option.closest('select'));
      if (select.value !== '') return;
      select.value = String(find.head);
      /** @type {HTMLElement|null} */ (select.closest('hw-sentence')?.querySelector('[data-testid=find-check]') || null)?.click();
    });
    const sentence = p.get('sentence');
    if (sentence && typeof sentence.text === 'string') this.whenBuilt('hw-sentence', '#sentence-text', (field) => {
      const f = /** @type {HTMLTextAreaElement} */ (field);
      if (f.value === sentence.text) return;
      f.value = sentence.text;
      f.dispatchEvent(new Event('input', { bubbles: true }));
    });
    // The training sections' notes, once the page is complete (they add a line to sections far down).
    const notes = () => {
      for (const part of TRAINED) {
        const rec = p.get(part.id);
        const el = this.root.querySelector(part.tag);
        if (!rec || !el || el.hasAttribute('data-done')) continue;
        const note = this.doc.createElement('p');
        note.className = 'hw-notice hw-path-note';
        note.setAttribute('data-path-note', part.id);
        note.setAttribute('data-testid', 'path-note');
        el.before(note);
        this.drawNote(note);
      }
    };
    if (this.doc.documentElement.hasAttribute('data-hw-loading')) this.doc.addEventListener('headwise-loaded', notes, { once: true });
    else notes();
  }

  /**
   * Call `f` with the element `selector` inside the first `tag` once it is built (now or later).
   * @param {string} tag
   * @param {string} selector
   * @param {(el: Element) => void} f
   */
  whenBuilt(tag, selector, f) {
    const host = this.root.querySelector(tag);
    if (!host) return;
    const found = host.querySelector(selector);
    if (found) {
      f(found);
      return;
    }
    const mo = new MutationObserver(() => {
      const el = host.querySelector(selector);
      if (!el) return;
      mo.disconnect();
      f(el);
    });
    mo.observe(host, { childList: true, subtree: true });
  }

  /** The training sections' notes shown. @returns {HTMLElement[]} */
  notes() {
    return /** @type {HTMLElement[]} */ ([...this.root.querySelectorAll('[data-path-note]')]);
  }

  /** @param {string} id */
  noteFor(id) {
    return this.notes().find((n) => n.getAttribute('data-path-note') === id) || null;
  }

  /**
   * "You trained this on 6 Dec with seed 1. The verdict then: …" and the offer to train again.
   * @param {HTMLElement} note
   */
  drawNote(note) {
    const rec = this.progress.get(/** @type {string} */ (note.getAttribute('data-path-note')));
    if (!rec) {
      note.remove();
      return;
    }
    const lang = this.lang;
    let date = '';
    try {
      date = new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short' }).format(new Date(rec.at));
    } catch {
      date = new Date(rec.at).toISOString().slice(0, 10);
    }
    const head = this.doc.createElement('span');
    head.textContent = this.t('path.trainedOn', { date, seed: rec.seed ?? '–' });
    const verdict = this.doc.createElement('span');
    verdict.textContent = rec.verdict || '';
    if (typeof rec.lang === 'string' && rec.lang) verdict.lang = rec.lang;
    const again = this.doc.createElement('span');
    again.textContent = this.t('path.trainAgain');
    const gap = this.t('common.sentenceGap');
    note.replaceChildren(head, gap, verdict, gap, again);
    setAutoLang(note, lang);
  }

  // ---- drawing ----------------------------------------------------------------------------------

  /** Each part's mark in the contents: done, with what (the quiz's score). */
  drawMarks() {
    for (const [id, li] of this.items) {
      const mark = /** @type {HTMLElement|null} */ (li.querySelector(':scope > a > [data-mark]'));
      if (!mark) continue;
      const rec = this.progress.get(id);
      const text = rec ? this.markText(id, rec) : '';
      if (mark.textContent !== text) mark.textContent = text;
      mark.hidden = text === '';
      li.toggleAttribute('data-done', text !== '');
    }
  }

  /**
   * @param {string} id
   * @param {Record<string, any>} rec
   */
  markText(id, rec) {
    if (id === 'quiz') {
      if (!(rec.answered > 0)) return '';
      return rec.answered >= rec.total ? this.t('path.mark.quiz', { right: rec.right, total: rec.total })
        : this.t('path.mark.quizPart', { answered: rec.answered, total: rec.total });
    }
    if (TRAINED.some((p) => p.id === id)) return this.t('path.mark.trained');
    if (id === 'challenge' || id === 'sentence') return this.t('path.mark.written');
    return this.t('path.mark.answered');
  }

  /** Whether this visit's work is kept, and where. */
  drawKept() {
    const line = /** @type {HTMLElement|null} */ (this.nav.querySelector('[data-path-kept]'));
    if (!line) return;
    line.removeAttribute('data-i18n');
    if (this.keep !== 'local') {
      line.hidden = true;
      return;
    }
    line.textContent = this.t(this.progress.kept ? 'path.kept' : 'path.notKept');
    setAutoLang(line, this.lang);
  }

  continueLine() {
    return /** @type {HTMLElement|null} */ (this.root === this.doc ? this.doc.querySelector('.hw-continue') : null);
  }

  /** "Continue where you left off: <section>", near the top, on a return that links nowhere else. */
  drawContinue() {
    const line = this.continueLine();
    if (!line) return;
    const last = this.progress.data.last;
    // (Not when the address links to a part: the link says where to go. Settings in it are no link to a part.)
    const fragment = /^#[A-Za-z][\w-]*$/.test(this.doc.location.hash);
    if (!this.progress.kept || !last || !this.items.has(last) || (this.shownContinue === undefined && fragment)) {
      line.hidden = true;
      this.shownContinue = false;
      return;
    }
    if (this.shownContinue === false) return;
    this.shownContinue = true;
    this.continueTo = this.continueTo || last;
    const a = this.doc.createElement('a');
    a.href = `#${this.continueTo}`;
    a.textContent = this.titleOf(this.continueTo);
    const [before, after = ''] = this.t('path.continue', { section: '\u0000' }).split('\u0000');
    // One run of text (the line is a flex box that centres it in the row), at most two lines.
    const text = this.doc.createElement('span');
    text.append(before, a, after);
    line.replaceChildren(text);
    setAutoLang(line, this.lang);
    line.hidden = false;
  }
}

/**
 * The lesson page's path, with the page's store (main.js).
 * @param {boolean} inCourse  a course platform keeps the work
 * @param {Promise<unknown>} language  language.js's languageSettled
 */
export function startPagePath(inCourse, language) {
  return startPath(document, { keep: inCourse ? 'host' : 'local', store: getStore(), language });
}
