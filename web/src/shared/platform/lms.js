// The one adapter between the page and a course platform's SCORM run-time (an LMS). Everything
// version-specific lives here: the API object's name and methods, the data model's element names
// and formats (SCORM 1.2 and SCORM 2004 4th edition). The lesson (src/page/course.js) speaks in
// the terms below; no widget talks to the LMS.
//
// The API is searched for as the ADL wrappers (pipwerks) do: this window, then up to
// MAX_PARENTS parents, then the opener and its parents. A frame of another origin ends a search
// (reading it throws). Every call to the LMS is wrapped: an LMS that throws, or that answers
// "false" with an error code, never throws into the page; the first failure is kept in
// `lms.failure` and passed to `onFailure` once.

import { PageError, errorOf } from '../state/errors.js';

/**
 * A failure's reason: a coded error of the page's catalogue (lms.*), as plain data.
 * @param {string} code
 * @param {Record<string, unknown>} params
 */
function coded(code, params) {
  return errorOf(new PageError(code, params));
}

/** How many parent windows are searched above each starting window. */
export const MAX_PARENTS = 10;

/** @typedef {'1.2'|'2004'} ScormVersion */

/**
 * @typedef {object} Interaction  one answer to one question, as the LMS records it
 * @property {string} id                 the question's identifier (q1 … q5)
 * @property {string} response           the option chosen, a letter a–z
 * @property {string} correctResponse    the right option's letter
 * @property {boolean} correct
 * @property {Date} time
 * @property {string} [description]      the question's text (SCORM 2004 only; at most 250 characters)
 */

/**
 * @typedef {object} Failure
 * @property {string} call     e.g. LMSSetValue("cmi.suspend_data", …)
 * @property {any} reason      what the LMS said (its error code and text) or threw, as a coded
 *   error (lms.*: src/shared/state/errors.js)
 */

/** The limit SCORM sets on cmi.suspend_data, in characters. */
export const SUSPEND_LIMIT = { '1.2': 4096, 2004: 64000 };

/** Each version's API: the window property and its method names. */
const API = {
  '1.2': {
    name: 'API', initialize: 'LMSInitialize', finish: 'LMSFinish', get: 'LMSGetValue', set: 'LMSSetValue',
    commit: 'LMSCommit', lastError: 'LMSGetLastError', errorString: 'LMSGetErrorString',
  },
  2004: {
    name: 'API_1484_11', initialize: 'Initialize', finish: 'Terminate', get: 'GetValue', set: 'SetValue',
    commit: 'Commit', lastError: 'GetLastError', errorString: 'GetErrorString',
  },
};

/** @param {number} n @param {number} [width] */
const pad = (n, width = 2) => String(Math.floor(n)).padStart(width, '0');

/**
 * A duration in each version's format: 1.2 CMITimespan (HHHH:MM:SS.SS), 2004 ISO 8601 (PT…S).
 * @param {ScormVersion} version
 * @param {number} ms
 */
export function formatDuration(version, ms) {
  const cs = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const s = (cs % 6000) / 100;
  if (version === '1.2') return `${pad(h, 4)}:${pad(m)}:${pad(Math.floor(s))}.${pad(cs % 100)}`;
  return `PT${h}H${m}M${s.toFixed(2)}S`;
}

/**
 * A point in time: 1.2 CMITime (the time of day, HH:MM:SS), 2004 a timestamp in UTC
 * (YYYY-MM-DDThh:mm:ss.ssZ).
 * @param {ScormVersion} version
 * @param {Date} date
 */
export function formatTime(version, date) {
  if (version === '1.2') return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `${date.toISOString().slice(0, 22)}Z`;
}

/**
 * The window's property `name`, or null where it cannot be read (another origin).
 * @param {Window} win
 * @param {string} name
 */
function read(win, name) {
  try {
    const api = /** @type {any} */ (win)[name];
    return api && typeof api === 'object' ? api : null;
  } catch {
    return null;
  }
}

/**
 * The window's parent, or null at the top or where it cannot be read.
 * @param {Window} win
 * @returns {Window|null}
 */
function parentOf(win) {
  try {
    return win.parent && win.parent !== win ? win.parent : null;
  } catch {
    return null;
  }
}

/**
 * Search `start`, its parents, then its opener and the opener's parents for the API object.
 * @param {Window} start
 * @param {string} name  'API' or 'API_1484_11'
 * @returns {any|null}
 */
export function findApi(start, name) {
  /** @param {Window|null} win */
  const up = (win) => {
    for (let i = 0; win && i <= MAX_PARENTS; i += 1, win = parentOf(win)) {
      const api = read(win, name);
      if (api) return api;
    }
    return null;
  };
  let opener = null;
  try {
    opener = start.opener || null;
  } catch {
    opener = null;
  }
  return up(start) || up(opener);
}

export class Lms {
  /**
   * @param {any} api       the LMS's API object
   * @param {ScormVersion} version
   * @param {(failure: Failure) => void} [onFailure]  told about the first failure only
   */
  constructor(api, version, onFailure = () => {}) {
    this.api = api;
    this.version = version;
    this.names = API[version];
    /** @type {Failure|null} */
    this.failure = null;
    this.onFailure = onFailure;
    this.started = false;
    this.finished = false;
    /** the next interaction record's index (cmi.interactions._count at the start) */
    this.interactions = 0;
    this.startedAt = Date.now();
  }

  /**
   * The LMS of this page for `version`, or null where there is none.
   * @param {Window} win
   * @param {ScormVersion} version
   * @param {(failure: Failure) => void} [onFailure]
   */
  static find(win, version, onFailure) {
    const api = findApi(win, API[version].name);
    return api ? new Lms(api, version, onFailure) : null;
  }

  /** The most characters cmi.suspend_data may hold. */
  get suspendLimit() {
    return SUSPEND_LIMIT[this.version];
  }

  /**
   * @param {string} call
   * @param {any} reason  a coded error
   * @returns {false}
   */
  fail(call, reason) {
    if (!this.failure) {
      this.failure = { call, reason };
      try {
        this.onFailure(this.failure);
      } catch (e) {
        console.error('Headwise: the course platform failure handler threw:', e);
      }
    }
    return false;
  }

  /** The LMS's last error, coded (lms.codeText, lms.code), or null when it reports none. */
  lastError() {
    try {
      const code = String(this.api[this.names.lastError]());
      if (code === '' || code === '0') return null;
      let text = '';
      try {
        text = String(this.api[this.names.errorString](code) || '');
      } catch {
        text = '';
      }
      return coded(text ? 'errors.lms.codeText' : 'errors.lms.code', { code, text });
    } catch {
      return null;
    }
  }

  /**
   * Call one of the API's methods that answer "true" or "false".
   * @param {string} method
   * @param {string[]} args
   */
  call(method, args) {
    const shown = `${method}(${args.map((a, i) => (i === 1 ? '…' : JSON.stringify(a))).join(', ')})`;
    try {
      const fn = this.api[method];
      if (typeof fn !== 'function') return this.fail(shown, coded('errors.lms.noMethod', { method }));
      const answer = fn.apply(this.api, args);
      if (answer === true || String(answer) === 'true') return true;
      return this.fail(shown, this.lastError() || coded('errors.lms.answered', { answer: JSON.stringify(String(answer)) }));
    } catch (e) {
      const message = e && /** @type {{message?: unknown}} */ (e).message;
      return this.fail(shown, coded('errors.lms.threw', { error: typeof message === 'string' ? message : String(e) }));
    }
  }

  /** Initialize / LMSInitialize. */
  start() {
    if (this.started) return true;
    this.started = this.call(this.names.initialize, ['']);
    this.startedAt = Date.now();
    if (this.started) {
      const n = Number(this.get('cmi.interactions._count'));
      this.interactions = Number.isInteger(n) && n >= 0 ? n : 0;
    }
    return this.started;
  }

  /** Usable: initialised and not yet finished. (After a failure every later call is still made:
   * a platform that failed once may take the next save.) */
  get live() {
    return this.started && !this.finished;
  }

  /**
   * Read a data model element: its value, or null where the LMS has none (an element not set yet
   * answers with an error by the specification, so a read never counts as a failure).
   * @param {string} element
   * @returns {string|null}
   */
  get(element) {
    if (!this.started || this.finished) return null;
    try {
      const value = this.api[this.names.get](element);
      if (value === null || value === undefined) return null;
      const text = String(value);
      return text === '' && this.lastError() ? null : text;
    } catch {
      return null;
    }
  }

  /**
   * @param {string} element
   * @param {string|number} value
   */
  set(element, value) {
    if (!this.live) return false;
    return this.call(this.names.set, [element, String(value)]);
  }

  /**
   * Set several elements in order; stops at the first that fails.
   * @param {[string, string|number][]} pairs
   */
  setAll(pairs) {
    return pairs.every(([k, v]) => this.set(k, v));
  }

  commit() {
    if (!this.live) return false;
    return this.call(this.names.commit, ['']);
  }

  /**
   * LMSFinish / Terminate, with the session's time and how the learner left.
   * @param {boolean} suspend  the learner will come back to this attempt (exit "suspend")
   */
  finish(suspend) {
    if (!this.started || this.finished) return false;
    const v = this.version === '1.2';
    this.setAll([
      [v ? 'cmi.core.session_time' : 'cmi.session_time', formatDuration(this.version, Date.now() - this.startedAt)],
      [v ? 'cmi.core.exit' : 'cmi.exit', suspend ? 'suspend' : v ? '' : 'normal'],
    ]);
    const ok = this.call(this.names.finish, ['']);
    this.finished = true;
    return ok;
  }

  /** cmi.core.entry / cmi.entry: true when the learner resumes a suspended attempt. */
  resuming() {
    return this.get(this.version === '1.2' ? 'cmi.core.entry' : 'cmi.entry') === 'resume';
  }

  /** @returns {string} the saved state ('' for none) */
  suspendData() {
    return this.get('cmi.suspend_data') || '';
  }

  /**
   * The mastery score the LMS was given (the manifest's, or the instructor's), 0–100, or null.
   * 1.2: cmi.student_data.mastery_score (0–100); 2004: cmi.scaled_passing_score (−1 to 1).
   */
  masteryScore() {
    const raw = this.get(this.version === '1.2' ? 'cmi.student_data.mastery_score' : 'cmi.scaled_passing_score');
    if (raw === null || raw.trim() === '') return null;
    const n = Number(raw);
    if (!Number.isFinite(n)) return null;
    return this.version === '1.2' ? n : n * 100;
  }

  /**
   * Record one answer as a new interaction record (journaling: every answer, first or changed,
   * gets a record of its own, in the order given).
   * @param {Interaction} it
   */
  interaction(it) {
    const n = `cmi.interactions.${this.interactions}`;
    const v = this.version === '1.2';
    const pairs = /** @type {[string, string][]} */ ([
      [`${n}.id`, it.id],
      [`${n}.type`, 'choice'],
    ]);
    if (!v && it.description) pairs.push([`${n}.description`, it.description.replace(/[{}]/g, '').slice(0, 250)]);
    pairs.push(
      [`${n}.${v ? 'time' : 'timestamp'}`, formatTime(this.version, it.time)],
      [`${n}.correct_responses.0.pattern`, it.correctResponse],
      [`${n}.${v ? 'student_response' : 'learner_response'}`, it.response],
      [`${n}.result`, it.correct ? 'correct' : v ? 'wrong' : 'incorrect'],
    );
    const ok = this.setAll(pairs);
    if (ok) this.interactions += 1;
    return ok;
  }

  /**
   * The score (0–100) and the status. `done`: every question answered, so the score is final and
   * passed or failed; until then the attempt is incomplete and no score is given (an LMS that
   * compares a score with the mastery score would otherwise fail a learner half-way through).
   * @param {{done: boolean, raw: number, passed: boolean, progress: number}} result
   *   progress: the share of questions answered, 0–1
   */
  result({ done, raw, passed, progress }) {
    if (this.version === '1.2') {
      if (!done) return this.set('cmi.core.lesson_status', 'incomplete');
      return this.setAll([
        ['cmi.core.score.min', 0], ['cmi.core.score.max', 100], ['cmi.core.score.raw', raw],
        ['cmi.core.lesson_status', passed ? 'passed' : 'failed'],
      ]);
    }
    if (!done) {
      return this.setAll([['cmi.completion_status', 'incomplete'], ['cmi.progress_measure', progress.toFixed(2)]]);
    }
    return this.setAll([
      ['cmi.score.min', 0], ['cmi.score.max', 100], ['cmi.score.raw', raw], ['cmi.score.scaled', String(raw / 100)],
      ['cmi.progress_measure', '1'], ['cmi.completion_status', 'completed'], ['cmi.success_status', passed ? 'passed' : 'failed'],
    ]);
  }

  /**
   * @param {string} data
   */
  saveSuspendData(data) {
    return this.set('cmi.suspend_data', data);
  }
}
