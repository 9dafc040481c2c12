// <hw-quiz>: the lesson's five questions as a self-check. Feedback appears as soon as an option
// is chosen; each answer can be revealed. Numbers quoted come from the module (the lesson's run).

import { HwElement, define } from '../shared/ui/element.js';
import { h, replace } from '../shared/ui/dom.js';
import { lessonFacts } from '../shared/state/facts.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/**
 * @typedef {object} Question
 * @property {string} id
 * @property {(string|Node)[]} prompt
 * @property {{text: (string|Node)[], correct?: boolean, why: string}[]} options
 * @property {(string|Node)[]} answer  the explanation shown on reveal
 */

/** Each question's right option (counted from 0); the words are the catalogue's quiz.qN.*. */
const RIGHT = [1, 2, 2, 1, 2];

/**
 * The five questions in a language: prompt, options (text and why) and the answer shown on
 * reveal, from the catalogue's quiz.q1 … quiz.q5 (options o1 … o4, in the order shown).
 * @param {Record<string, string>} f lesson facts
 * @param {(key: string, params?: Record<string, unknown>) => Node[]} tn  tNodes in the quiz's language
 * @param {(key: string, params?: Record<string, unknown>) => string} tt  t in the quiz's language
 * @returns {Question[]}
 */
function questions(f, tn, tt) {
  const facts = { params: f['params-2'], h0t2: f['h0-t2'], h0t3: f['h0-t3'], h1t4pct: f['h1-t4-pct'] };
  return RIGHT.map((right, qi) => {
    const q = `quiz.q${qi + 1}`;
    return {
      id: `q${qi + 1}`,
      prompt: tn(`${q}.prompt`, facts),
      options: [0, 1, 2, 3].map((oi) => ({
        text: tn(`${q}.o${oi + 1}.text`, facts),
        correct: oi === right,
        why: tt(`${q}.o${oi + 1}.why`, facts),
      })),
      answer: tn(`${q}.answer`, facts),
    };
  });
}

class HwQuiz extends HwElement {
  build() {
    this.score = h('p', { class: 'hw-quiz-score', 'data-testid': 'quiz-score', 'aria-live': 'polite' });
    this.list = h('ol', { class: 'hw-quiz' });
    this.appendChild(this.list);
    this.appendChild(this.score);
  }

  /** @param {Store} store */
  update(store) {
    if (this.rendered) return;
    this.rendered = true;
    /** @type {Record<string, boolean|null>} */
    this.results = {};
    /** @type {((oi: number) => void)[]} shows question qi answered with option oi, without reporting it */
    this.show = [];
    /** @type {(() => void)[]} reveals question qi's answer */
    this.reveals = [];
    /** @type {(() => boolean)[]} whether question qi's answer is revealed */
    this.revealed = [];
    /** @type {Record<number, number>} question number (1–5) → the option chosen last */
    this.chosen = {};
    const qs = questions(lessonFacts(store), (k, p) => this.tNodes(k, p), (k, p) => this.t(k, p));
    replace(this.list, qs.map((q, qi) => this.question(q, qi)));
    this.updateScore(qs.length);
    if (this.restored) this.restore(this.restored);
  }

  /**
   * Show answers given in an earlier visit (a course platform keeps them, src/page/course.js)
   * as if just chosen, without reporting them again. Before the quiz is drawn they are kept
   * until it is.
   * @param {Record<number, number>} answers  question number (1–5) → option index
   */
  restore(answers) {
    this.restored = answers;
    if (!this.rendered) return;
    for (const [n, oi] of Object.entries(answers)) {
      const show = this.show[Number(n) - 1];
      if (show && Number.isInteger(oi)) show(oi);
    }
  }

  /**
   * @param {Question} q
   * @param {number} qi
   */
  question(q, qi) {
    const legendId = `${q.id}-legend`;
    const feedback = h('p', { class: 'hw-feedback', 'data-testid': 'quiz-feedback', 'data-question': String(qi + 1), 'aria-live': 'polite' });
    const answer = h('div', { class: 'hw-answer', 'data-testid': 'quiz-answer', 'data-question': String(qi + 1), hidden: true }, [
      h('p', {}, [h('strong', { text: this.t('quiz.answer') }), this.t('common.sentenceGap'), ...q.answer]),
    ]);
    const reveal = h('button', { type: 'button', class: 'hw-button hw-button-quiet', 'aria-expanded': 'false', 'aria-controls': `${q.id}-answer`, text: this.t('quiz.show') });
    answer.id = `${q.id}-answer`;
    const options = q.options.map((o, oi) => {
      const id = `${q.id}-o${oi}`;
      const input = /** @type {HTMLInputElement} */ (h('input', {
        type: 'radio', name: q.id, id, value: String(oi), 'data-correct': o.correct ? 'true' : 'false',
        // Out of the browser's form state, which every address-bar write serializes (see numberField).
        autocomplete: 'off',
      }));
      input.addEventListener('change', () => {
        show(oi);
        this.report(qi, q, oi);
      });
      return h('div', { class: 'hw-option' }, [input, h('label', { for: id }, o.text)]);
    });
    /** @param {number} oi */
    const show = (oi) => {
      const o = q.options[oi];
      if (!o) return;
      const input = /** @type {HTMLInputElement} */ (options[oi].firstChild);
      if (!input.checked) input.checked = true;
      const ok = Boolean(o.correct);
      this.results[q.id] = ok;
      this.chosen[qi + 1] = oi;
      feedback.dataset.correct = String(ok);
      replace(feedback, [h('strong', { text: this.t(ok ? 'quiz.correct' : 'quiz.notQuite') }), this.t('common.sentenceGap'), o.why]);
      this.updateScore(5);
    };
    this.show[qi] = show;
    const fieldset = h('fieldset', { class: 'hw-question', 'data-question': String(qi + 1) }, [
      h('legend', { id: legendId }, [h('span', { class: 'hw-qnum', text: `${qi + 1}. ` }), ...q.prompt]),
      ...options,
    ]);
    const toggle = () => {
      answer.hidden = !answer.hidden;
      reveal.textContent = this.t(answer.hidden ? 'quiz.show' : 'quiz.hide');
      reveal.setAttribute('aria-expanded', String(!answer.hidden));
      fieldset.classList.toggle('hw-revealed', !answer.hidden);
    };
    reveal.addEventListener('click', toggle);
    this.reveals[qi] = () => { if (answer.hidden) toggle(); };
    this.revealed[qi] = () => !answer.hidden;
    return h('li', { class: 'hw-quiz-item' }, [fieldset, feedback, h('div', { class: 'hw-controls-actions' }, [reveal]), answer]);
  }

  /**
   * Tell the host page about an answer: a "headwise-quiz" event that bubbles out of shadow roots
   * (an embedding course site may record it; the iframe embed forwards it with postMessage).
   * @param {number} qi
   * @param {Question} q
   * @param {number} oi
   */
  report(qi, q, oi) {
    const results = Object.values(this.results);
    /** @param {(string|Node)[]} parts */
    const text = (parts) => parts.map((t) => (typeof t === 'string' ? t : t.textContent)).join('');
    this.dispatchEvent(new CustomEvent('headwise-quiz', {
      bubbles: true,
      composed: true,
      detail: {
        question: qi + 1,
        questionId: q.id,
        questionText: text(q.prompt),
        answer: oi,
        answerText: text(q.options[oi].text),
        correct: Boolean(q.options[oi].correct),
        correctAnswer: q.options.findIndex((o) => o.correct),
        score: results.filter(Boolean).length,
        answered: results.length,
        total: 5,
      },
    }));
  }

  /** @param {number} total */
  updateScore(total) {
    const answered = Object.keys(this.results).length;
    const right = Object.values(this.results).filter(Boolean).length;
    this.score.textContent = answered === 0 ? this.t('quiz.scoreNone', { total }) : this.t('quiz.score', { right, total, answered });
  }

  /** The answers chosen and the answers revealed, to draw them again in another language. */
  saveState() {
    return { chosen: { ...(this.chosen || {}) }, revealed: (this.revealed || []).map((f) => f()) };
  }

  /** @param {any} state */
  restoreState(state) {
    if (!state || !this.rendered) return;
    if (Object.keys(state.chosen).length) this.restore(state.chosen);
    state.revealed.forEach((/** @type {boolean} */ on, /** @type {number} */ qi) => { if (on && this.reveals[qi]) this.reveals[qi](); });
  }
}

define('hw-quiz', HwQuiz);
