// H5P.Headwise, the content type of dist/headwise.h5p (built by web/build-h5p.mjs): one <mha-*>
// element, chosen and set up by the content's parameters (semantics.json), inside H5P's frame.
//
// - The elements' script, headwise-elements.js, is loaded from this library's folder
//   (H5P.getLibraryPath) when the content is attached, so that it finds its stylesheet, the
//   module (headwise-lesson.js, the WebAssembly inlined in it), the training files and the
//   languages beside itself, also where the platform serves this file from a cache of its own.
// - The quiz (widget "quiz", or the whole lesson) reports through H5P's xAPI: "answered" for every
//   answer, as a choice interaction under this content (…?subContentId=q1), with the response and
//   whether it was right; "completed" once all questions have an answer, with result.score
//   raw/min/max/scaled from each question's FIRST answer (as the SCORM packages count it) and
//   success against the mastery score.
// - getCurrentState() keeps each question's first and latest answer and the settings the student
//   changed; H5P gives them back as extras.previousState, and they are put back.
/* global H5P */

(() => {
  /** widget → element, as embed.html reads `widget=` (web/src/embed/embed-page.js). */
  const WIDGETS = /** @type {Record<string, string>} */ (__HEADWISE_WIDGETS__);
  /** Settings' field → {attr, kind}: the elements' attributes (web/src/embed/attributes.js). */
  const SETTINGS = /** @type {Record<string, {field: string, attr: string, kind: string}>} */ (__HEADWISE_SETTINGS__);
  /** This library's folder name: H5P.Headwise-<major>.<minor>. */
  const LIBRARY = /** @type {string} */ (__HEADWISE_LIBRARY__);
  const DEFAULT_MASTERY = /** @type {number} */ (__HEADWISE_MASTERY__);
  const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
  const FORMAT = 1;

  /** @type {Map<string, Promise<void>>} headwise-elements.js, loaded once per folder */
  const loads = new Map();

  /** @param {string} src */
  function loadScript(src) {
    if (!loads.has(src)) {
      loads.set(src, new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = src;
        s.addEventListener('load', () => resolve());
        s.addEventListener('error', () => reject(new Error(`${src} could not be loaded`)));
        document.head.appendChild(s);
      }));
    }
    return /** @type {Promise<void>} */ (loads.get(src));
  }

  /**
   * A saved state read back, or null (with a console warning) when it is not this format.
   * @param {any} s
   * @returns {{first: string, current: string, settings: Record<string, string>, completed: boolean}|null}
   */
  function readState(s) {
    if (s === undefined || s === null || s === '') return null;
    const o = typeof s === 'string' ? (() => { try { return JSON.parse(s); } catch { return null; } })() : s;
    const answers = /^[a-zA-Z-]{0,26}$/;
    if (!o || o.v !== FORMAT || typeof o.f !== 'string' || !answers.test(o.f) || typeof o.a !== 'string' || !answers.test(o.a) ||
        o.f.length !== o.a.length || (o.s !== undefined && (typeof o.s !== 'object' || o.s === null))) {
      console.warn('H5P.Headwise: the saved state is not Headwise\'s (format 1) and is not used:', s);
      return null;
    }
    /** @type {Record<string, string>} */
    const settings = {};
    for (const [k, v] of Object.entries(o.s || {})) if (Object.prototype.hasOwnProperty.call(SETTINGS, k) && typeof v === 'string') settings[k] = v;
    return { first: o.f, current: o.a.toLowerCase(), settings, completed: o.c === 1 };
  }

  /** A state field as its attribute's text. @param {any} v */
  function attrText(v) {
    if (Array.isArray(v)) return Array.from(v, (x) => (x === undefined || x === null ? '' : String(x))).join(',');
    if (typeof v === 'boolean') return v ? '1' : '0';
    return String(v);
  }

  /**
   * @param {any} params     content.json: {widget, settings, controls, locked, exports, theme, lang, masteryScore}
   * @param {number|string} contentId
   * @param {{previousState?: any}} [extras]
   */
  function Headwise(params, contentId, extras) {
    H5P.EventDispatcher.call(this);
    this.params = params || {};
    this.contentId = contentId;
    const saved = readState(extras && extras.previousState);
    this.work = saved || { first: '', current: '', settings: {}, completed: false };
    /** @type {HTMLElement|null} */
    this.el = null;
    /** @type {Record<string, any>|null} the settings as they were when the widget first drew */
    this.start = null;
  }
  Headwise.prototype = Object.create(H5P.EventDispatcher.prototype);
  Headwise.prototype.constructor = Headwise;

  /** The mastery score (0–100) and, for a value that is not one, the problem. */
  Headwise.prototype.mastery = function mastery() {
    const m = this.params.masteryScore;
    if (m === undefined || m === null || m === '') return { value: DEFAULT_MASTERY, problem: null };
    if (typeof m !== 'number' || !(m >= 0 && m <= 100)) {
      return { value: DEFAULT_MASTERY, problem: `masteryScore must be a number from 0 to 100, not ${JSON.stringify(m)}; ${DEFAULT_MASTERY} is used.` };
    }
    return { value: m, problem: null };
  };

  /** @param {any} $container  H5P's jQuery-wrapped container */
  Headwise.prototype.attach = function attach($container) {
    const container = /** @type {HTMLElement} */ ($container && $container.get ? $container.get(0) : $container);
    container.classList.add('h5p-headwise');
    container.textContent = '';
    const say = (/** @type {string} */ text) => {
      const p = document.createElement('p');
      p.setAttribute('role', 'alert');
      p.className = 'h5p-headwise-message';
      p.textContent = text;
      container.appendChild(p);
      this.trigger('resize');
    };
    const p = this.params;
    const widget = typeof p.widget === 'string' && p.widget ? p.widget : 'lesson';
    if (!Object.prototype.hasOwnProperty.call(WIDGETS, widget)) {
      say(`"${widget.slice(0, 40)}" is not a Headwise widget (use ${Object.keys(WIDGETS).join(', ')}).`);
      return;
    }
    const { problem } = this.mastery();
    if (problem) say(problem);
    const el = document.createElement(WIDGETS[widget]);
    const settings = p.settings && typeof p.settings === 'object' ? p.settings : {};
    for (const [name, def] of Object.entries(SETTINGS)) {
      const v = Object.prototype.hasOwnProperty.call(this.work.settings, name) ? this.work.settings[name] : settings[name];
      if (v === undefined || v === null || v === '') continue;
      el.setAttribute(def.attr, attrText(v));
    }
    for (const name of ['controls', 'locked', 'exports', 'theme', 'lang']) {
      if (typeof p[name] === 'string' && p[name].trim() !== '') el.setAttribute(name, p[name].trim());
    }
    if (!el.id) el.id = `h5p-headwise-${this.contentId}`;
    el.addEventListener('headwise-quiz', (e) => this.answered(/** @type {CustomEvent} */ (e).detail));
    el.addEventListener('headwise-ready', () => this.ready());
    container.appendChild(el);
    this.el = el;
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.trigger('resize')).observe(el);
    if (!customElements.get(el.localName)) {
      // This library's own name and version (not libraryInfo, which some players get wrong for a
      // minor version of 0).
      const folder = H5P.getLibraryPath(LIBRARY);
      loadScript(`${folder}/headwise-elements.js`).catch((e) => say(`${e.message}: the widget cannot be shown.`));
    }
  };

  /** The widget has drawn: note its starting settings; put saved answers back. */
  Headwise.prototype.ready = function ready() {
    const el = /** @type {any} */ (this.el);
    if (!this.start && el.hwStore) this.start = { ...el.hwStore.state };
    const answers = /** @type {Record<number, number>} */ ({});
    [...this.work.current].forEach((c, i) => { if (c !== '-') answers[i + 1] = LETTERS.indexOf(c); });
    if (!Object.keys(answers).length) return;
    let tries = 0;
    const put = () => {
      const quiz = el.shadowRoot && el.shadowRoot.querySelector('hw-quiz');
      if (quiz && typeof quiz.restore === 'function') quiz.restore(answers);
      else if ((tries += 1) < 100) setTimeout(put, 50);
    };
    put();
  };

  /** Right first answers. */
  Headwise.prototype.getScore = function getScore() {
    return [...this.work.first].filter((c) => c >= 'A' && c <= 'Z').length;
  };

  /** The quiz's questions (0 for a widget without the quiz). */
  Headwise.prototype.getMaxScore = function getMaxScore() {
    return this.work.first.length;
  };

  /** What H5P keeps for the student: answers and changed settings (undefined: nothing yet). */
  Headwise.prototype.getCurrentState = function getCurrentState() {
    const el = /** @type {any} */ (this.el);
    /** @type {Record<string, string>} */
    const s = { ...this.work.settings };
    if (el && el.hwStore && this.start) {
      for (const [name, def] of Object.entries(SETTINGS)) {
        const now = el.hwStore.state[def.field];
        if (attrText(now) !== attrText(this.start[def.field])) s[name] = attrText(now);
      }
    }
    if (!this.work.first && !Object.keys(s).length) return undefined;
    return { v: FORMAT, f: this.work.first, a: this.work.current, s, c: this.work.completed ? 1 : 0 };
  };

  /**
   * One answer (the headwise-quiz event's detail): an "answered" statement, and "completed" once
   * every question has a first answer.
   * @param {{question: number, questionId: string, questionText: string, answer: number, answerText: string, correct: boolean, correctAnswer: number, total: number}} d
   */
  Headwise.prototype.answered = function answered(d) {
    if (!this.work.first) {
      this.work.first = '-'.repeat(d.total);
      this.work.current = '-'.repeat(d.total);
    }
    const i = d.question - 1;
    if (!(i >= 0 && i < this.work.first.length) || !(d.answer >= 0 && d.answer < LETTERS.length)) return;
    const letter = LETTERS[d.answer];
    const put = (/** @type {string} */ s, /** @type {string} */ c) => s.slice(0, i) + c + s.slice(i + 1);
    if (this.work.first[i] === '-') this.work.first = put(this.work.first, d.correct ? letter.toUpperCase() : letter);
    this.work.current = put(this.work.current, letter);

    const event = this.createXAPIEventTemplate('answered');
    const statement = event.data.statement;
    const main = statement.object.id;
    statement.object.id = `${main}${main.includes('?') ? '&' : '?'}subContentId=${encodeURIComponent(d.questionId)}`;
    const lang = (this.el && this.el.closest('[lang]') && this.el.closest('[lang]').getAttribute('lang')) || 'en-US';
    const text = (/** @type {string} */ s) => ({ [lang]: s });
    statement.object.definition = {
      ...statement.object.definition,
      name: text(d.questionText),
      description: text(d.questionText),
      type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
      interactionType: 'choice',
      correctResponsesPattern: [String(d.correctAnswer)],
      choices: this.choices(d.questionId).map((c, n) => ({ id: String(n), description: text(c) })),
    };
    statement.context = statement.context || {};
    statement.context.contextActivities = statement.context.contextActivities || {};
    statement.context.contextActivities.parent = [{ id: main, objectType: 'Activity' }];
    event.setScoredResult(d.correct ? 1 : 0, 1, this, true, d.correct);
    statement.result.response = String(d.answer);
    this.trigger(event);

    if (!this.work.completed && !this.work.first.includes('-')) {
      this.work.completed = true;
      const done = this.createXAPIEventTemplate('completed');
      const raw = this.getScore();
      const max = this.getMaxScore();
      done.setScoredResult(raw, max, this, true, (raw / max) * 100 >= this.mastery().value);
      this.trigger(done);
    }
    this.trigger('resize');
  };

  /**
   * The options' texts of a question, in the order shown.
   * @param {string} questionId
   */
  Headwise.prototype.choices = function choices(questionId) {
    const root = this.el && this.el.shadowRoot;
    if (!root) return [];
    const out = [];
    for (let n = 0; n < LETTERS.length; n += 1) {
      const label = root.querySelector(`label[for="${questionId}-o${n}"]`);
      if (!label) break;
      out.push((label.textContent || '').trim());
    }
    return out;
  };

  H5P.Headwise = Headwise;
})();
