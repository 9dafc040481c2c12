// The lesson inside a course platform: what the SCORM packages (web/build-scorm.mjs) record.
// The packaged index.html says which SCORM it is (<html data-hw-scorm="1.2|2004"
// data-hw-mastery="80">); elsewhere (the plain page, an embed) startCourse does nothing at all.
// Inside a package with no LMS above it (the unzipped files opened directly) it does nothing
// either: the lesson behaves as it does anywhere.
//
// With an LMS (src/shared/platform/lms.js talks to it):
// - every answer in the quiz becomes an interaction record (journaling: changes too);
// - the score counts each question's FIRST answer: 20 per right first answer, 0 to 100, given
//   once all five are answered, with passed/failed against the mastery score; incomplete before;
// - cmi.suspend_data keeps the quiz answers, the challenge answer and the settings, and is read
//   back when the learner resumes the attempt;
// - every change is committed (typing and settings after a pause of SAVE_AFTER_MS), and the
//   session ends (LMSFinish / Terminate) when the page is left, with exit "suspend" while the
//   quiz is unfinished.
// Nothing here throws into the page: when the LMS fails, the lesson goes on and says so once.

import { Lms } from '../shared/platform/lms.js';
import { defaults, parseHash, toHash } from '../shared/state/settings.js';
import { h } from '../shared/ui/dom.js';
import { onLanguageChange, resolveLanguage, t } from '../shared/i18n/i18n.js';
import { translateError } from '../shared/i18n/i18n-errors.js';

/** @typedef {import('../shared/state/store.js').Store} Store */
/** @typedef {import('../shared/platform/lms.js').Failure} Failure */

/** Typing in the challenge and moving the settings are saved after this pause (ms). */
export const SAVE_AFTER_MS = 1000;
/** The mastery score when neither the LMS nor the package gives one. */
export const DEFAULT_MASTERY = 80;
/** Points per right first answer (five questions: 0 to 100). */
export const POINTS = 20;
/** The suspend_data format's version. */
const FORMAT = 1;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * Every sentence the student may read from this file, as catalogue keys (course.*) and their
 * parameters. The call and the platform's own error stay as the platform gave them.
 */
const STRINGS = {
  // The reason is the adapter's coded error (src/shared/platform/lms.js), said in the page's language by
  // src/shared/i18n/i18n-errors.js; the platform's own error text inside it stays as it is.
  failed: (/** @type {Failure} */ f) => ({ key: 'course.failed', params: { call: f.call, reason: f.reason }, messages: ['reason'] }),
  unreadable: { key: 'course.unreadable', params: {} },
  tooLong: (/** @type {string} */ what, /** @type {number} */ length, /** @type {number} */ limit) => ({ key: `course.tooLong.${what}`, params: { length, limit } }),
};

/**
 * @typedef {{key: string, params: Record<string, unknown>, messages?: string[]}} Said  a sentence
 *   for the learner: its key, its parameters, and which of them are errors to translate
 */

/**
 * A sentence for the learner in a language.
 * @param {Said} text
 * @param {string} lang
 */
function said(text, lang) {
  const params = { ...text.params };
  for (const name of text.messages || []) params[name] = translateError(params[name], lang);
  return t(text.key, params, lang);
}

/**
 * @typedef {object} Work  what suspend_data keeps
 * @property {string} first     per question, the letter of its first answer ('-' unanswered),
 *                              upper case where that first answer was right
 * @property {string} current   per question, the letter of its latest answer ('-' unanswered)
 * @property {string} settings  the settings that differ from the lesson's, as a permalink hash
 * @property {string|null} challenge  the challenge answer (null: none written here)
 */

/** @type {URLSearchParams|null} the defaults' permalink, read once */
let defaultHash = null;

/**
 * The settings that differ from the defaults, in the permalink's form ('' for none).
 * @param {import('../shared/state/store.js').State} state
 */
export function settingsOf(state) {
  if (!defaultHash) defaultHash = new URLSearchParams(toHash(defaults()));
  const p = new URLSearchParams(toHash(state));
  for (const [k, v] of [...p]) if (defaultHash.get(k) === v) p.delete(k);
  return p.toString();
}

/**
 * suspend_data's text: JSON, {v, f, a, s, c} (version, first answers, current answers, settings,
 * challenge), the empty parts left out.
 * @param {Work} work
 */
export function encodeWork(work) {
  /** @type {Record<string, string|number>} */
  const o = { v: FORMAT, f: work.first, a: work.current };
  if (work.settings) o.s = work.settings;
  if (work.challenge) o.c = work.challenge;
  return JSON.stringify(o);
}

/**
 * Read suspend_data back. Throws Error when it is not this format.
 * @param {string} text
 * @param {number} total  how many questions the quiz has
 * @returns {Work}
 */
export function decodeWork(text, total) {
  const o = JSON.parse(text);
  if (!o || typeof o !== 'object' || o.v !== FORMAT) throw new Error('not Headwise\'s saved work (format 1)');
  const answers = new RegExp(`^[a-zA-Z-]{${total}}$`);
  if (typeof o.f !== 'string' || !answers.test(o.f) || typeof o.a !== 'string' || !answers.test(o.a)) throw new Error('the quiz answers are not readable');
  if (o.s !== undefined && typeof o.s !== 'string') throw new Error('the settings are not readable');
  if (o.c !== undefined && typeof o.c !== 'string') throw new Error('the challenge answer is not readable');
  if (o.s) parseHash(o.s); // throws for settings this page cannot read
  return { first: o.f, current: o.a.toLowerCase(), settings: o.s || '', challenge: o.c ?? null };
}

/**
 * The score from the first answers: POINTS per right one, and whether all are answered.
 * @param {string} first
 */
export function scoreOf(first) {
  const right = [...first].filter((c) => c >= 'A' && c <= 'Z').length;
  const answered = [...first].filter((c) => c !== '-').length;
  return { raw: right * POINTS, answered, done: answered === first.length };
}

/** @param {string} s @param {number} i @param {string} c */
const put = (s, i, c) => s.slice(0, i) + c + s.slice(i + 1);

export class Course {
  /**
   * @param {Lms} lms   started
   * @param {Store} store
   * @param {Document} doc
   * @param {number} mastery  0–100
   * @param {number} total    questions in the quiz
   */
  constructor(lms, store, doc, mastery, total) {
    this.lms = lms;
    this.store = store;
    this.doc = doc;
    this.mastery = mastery;
    /** @type {Work} */
    this.work = { first: '-'.repeat(total), current: '-'.repeat(total), settings: settingsOf(store.state), challenge: null };
    this.saved = '';
    this.timer = 0;
    /** @type {Set<string>} notices already shown (each at most once) */
    this.said = new Set();
    /** @type {HTMLElement|null} */
    this.notice = null;
  }

  /** Read back a resumed attempt's work and show it; then record the attempt's state. */
  begin() {
    const entry = this.lms.version === '1.2' ? this.lms.get('cmi.core.entry') : this.lms.get('cmi.entry');
    const data = this.lms.suspendData();
    if (data && (entry === 'resume' || !entry)) {
      try {
        this.work = decodeWork(data, this.work.first.length);
        this.saved = data;
        this.restore();
      } catch (e) {
        console.warn('Headwise: the course platform\'s suspend_data could not be read:', e);
        this.say('unreadable', STRINGS.unreadable);
      }
    }
    const challenge = /** @type {any} */ (this.doc.querySelector('hw-challenge'));
    if (challenge && typeof challenge.restore === 'function') challenge.restore(this.work.challenge);
    this.report();
    this.lms.commit();
  }

  /** Put the saved settings and answers back on the page. */
  restore() {
    if (this.work.settings) this.store.set(parseHash(this.work.settings));
    /** @type {Record<number, number>} */
    const answers = {};
    [...this.work.current].forEach((c, i) => { if (c !== '-') answers[i + 1] = LETTERS.indexOf(c); });
    const quiz = /** @type {any} */ (this.doc.querySelector('hw-quiz'));
    if (quiz && typeof quiz.restore === 'function' && Object.keys(answers).length) quiz.restore(answers);
  }

  /** Score and status from the first answers. */
  report() {
    const { raw, answered, done } = scoreOf(this.work.first);
    this.lms.result({ done, raw, passed: raw >= this.mastery, progress: answered / this.work.first.length });
  }

  /**
   * A quiz answer (the headwise-quiz event's detail): an interaction, the score, the work, a commit.
   * @param {{question: number, questionId: string, questionText?: string, answer: number, correct: boolean, correctAnswer: number}} d
   */
  answered(d) {
    const i = d.question - 1;
    if (!(i >= 0 && i < this.work.first.length) || !(d.answer >= 0 && d.answer < LETTERS.length)) return;
    const letter = LETTERS[d.answer];
    if (this.work.first[i] === '-') this.work.first = put(this.work.first, i, d.correct ? letter.toUpperCase() : letter);
    this.work.current = put(this.work.current, i, letter);
    this.lms.interaction({
      id: d.questionId, response: letter, correctResponse: LETTERS[d.correctAnswer] || '', correct: d.correct,
      time: new Date(), description: d.questionText,
    });
    this.report();
    this.save();
  }

  /** Something the learner changed that is saved after a pause (typing, settings). */
  later() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save(), SAVE_AFTER_MS);
  }

  /** Write the work (if it changed) and commit. */
  save() {
    clearTimeout(this.timer);
    this.timer = 0;
    // The settings as they are now: a change the store has not told its listeners about yet
    // (it does once per animation frame) is saved too.
    this.work.settings = settingsOf(this.store.state);
    const text = this.fit();
    if (text !== this.saved) {
      if (this.lms.saveSuspendData(text)) this.saved = text;
    }
    this.lms.commit();
  }

  /**
   * The work as suspend_data, within the LMS's limit: the quiz always fits; the challenge answer,
   * then the settings, are left out (and the learner told, once each) where they would not.
   */
  fit() {
    const limit = this.lms.suspendLimit;
    let work = this.work;
    let text = encodeWork(work);
    for (const part of /** @type {const} */ (['challenge', 'settings'])) {
      if (text.length <= limit) break;
      this.say(`long-${part}`, STRINGS.tooLong(part, text.length, limit));
      work = { ...work, [part]: part === 'challenge' ? null : '' };
      text = encodeWork(work);
    }
    return text;
  }

  /** The page is being left: save, then end the session. */
  end() {
    if (this.lms.finished) return;
    this.save();
    this.lms.finish(!scoreOf(this.work.first).done);
  }

  /**
   * Tell the learner something, once per `key`, in a note fixed at the bottom of the window
   * (the latest replaces the one shown), in the page's language; a change of language rewrites
   * the note shown.
   * @param {string} key
   * @param {Said} text  a catalogue key and its parameters
   */
  say(key, text) {
    if (this.said.has(key)) return;
    this.said.add(key);
    if (this.notice) this.notice.remove();
    this.noticeText = text;
    const lang = resolveLanguage(this.doc.body || this.doc.documentElement);
    /** @type {string} */
    this.noticeLang = lang;
    const close = h('button', { type: 'button', class: 'hw-button hw-button-quiet', text: t('course.dismiss', {}, lang) });
    this.notice = h('div', { class: 'hw-course-notice', role: 'alert', 'aria-label': t('course.label', {}, lang), 'data-testid': 'course-notice' }, [
      h('p', { text: said(text, lang) }), close,
    ]);
    close.addEventListener('click', () => { this.notice?.remove(); this.notice = null; });
    (this.doc.body || this.doc.documentElement).appendChild(this.notice);
  }

  /** The page's language changed: the note shown (if any) says the same in the new one. */
  relocalize() {
    if (!this.notice || !this.noticeText) return;
    const lang = resolveLanguage(this.doc.body || this.doc.documentElement);
    if (lang === this.noticeLang) return;
    this.noticeLang = lang;
    const [p, close] = /** @type {HTMLElement[]} */ ([...this.notice.children]);
    p.textContent = said(this.noticeText, lang);
    close.textContent = t('course.dismiss', {}, lang);
    this.notice.setAttribute('aria-label', t('course.label', {}, lang));
  }
}

/**
 * Connect the lesson to its course platform when the page is a SCORM package's and an LMS is
 * there; otherwise do nothing.
 * @param {Store} store
 * @param {Document} [doc]
 * @param {number} [total]  questions in the quiz
 * @returns {Course|null}
 */
export function startCourse(store, doc = document, total = 5) {
  try {
    const root = doc.documentElement;
    const version = root.getAttribute('data-hw-scorm');
    if (version !== '1.2' && version !== '2004') return null;
    /** @type {Course|null} */
    let course = null;
    /** @type {Failure|null} */
    let early = null;
    const lms = Lms.find(window, version, (f) => {
      if (course) course.say('failed', STRINGS.failed(f));
      else early = f;
    });
    if (!lms) return null;
    const given = Number(root.getAttribute('data-hw-mastery'));
    lms.start();
    const mastery = lms.masteryScore() ?? (Number.isFinite(given) && given >= 0 && given <= 100 ? given : DEFAULT_MASTERY);
    course = new Course(lms, store, doc, mastery, total);
    if (early) course.say('failed', STRINGS.failed(early));
    onLanguageChange(() => course?.relocalize());
    if (!lms.started) return course;
    course.begin();
    doc.addEventListener('headwise-quiz', (e) => course?.answered(/** @type {CustomEvent} */ (e).detail));
    doc.addEventListener('headwise-challenge', (e) => {
      if (!course) return;
      course.work.challenge = /** @type {CustomEvent} */ (e).detail.answer;
      course.later();
    });
    store.addEventListener('change', () => {
      if (!course) return;
      const settings = settingsOf(store.state);
      if (settings === course.work.settings) return;
      course.work.settings = settings;
      course.later();
    });
    doc.addEventListener('visibilitychange', () => { if (doc.visibilityState === 'hidden' && course?.timer) course.save(); });
    window.addEventListener('pagehide', () => course?.end());
    return course;
  } catch (e) {
    // A fault here must never cost the student the lesson.
    console.error('Headwise: the course platform connection failed:', e);
    return null;
  }
}
