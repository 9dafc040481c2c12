// <hw-challenge>: the independent challenge. The student writes an answer, then may reveal
// the discussion. The draft is kept in this browser (localStorage), and every change is told to
// the page with a "headwise-challenge" event ({answer}), which a course platform's package saves
// (src/lesson/course.js); restore() puts back an answer saved there. The discussion's paragraph
// marked data-heads-live quotes the grid of "How many heads does it take?" (its
// "headwise-heads-grid" event) once the grid's four-relation row is trained on this page.

import { HwElement, define } from '../shared/element.js';
import { h, replace } from '../shared/dom.js';

const STORAGE_KEY = 'headwise.challenge.answer';

/** What the student reads under the label, by where the answer is kept. */
const HINTS = {
  browser: 'Write it before you look. It stays in this browser only.',
  course: 'Write it before you look. Your course platform keeps it with your progress.',
};

/** The strings of the live paragraph, in one place. */
const TEXT = {
  heads: (/** @type {number} */ n) => (n === 1 ? '1 head' : `${n} heads`),
  live: (/** @type {any} */ d, /** @type {string} */ eight, /** @type {string} */ one, /** @type {string} */ others) => `On this page, with a task of four relations at once (${d.relations[4].join(', ')}; seed ${d.seed}) and the same d_model and parameter count for every model, 8 heads reached ${eight} on the worst relation and 1 head only ${one} (${others}). `,
  link: 'See the grid',
  after: ': the single head does not run short of parameters, it runs short of softmaxes.',
};

class HwChallenge extends HwElement {
  build() {
    const answer = /** @type {HTMLTextAreaElement} */ (h('textarea', {
      id: 'challenge-answer', rows: '5', dir: 'auto', 'aria-describedby': 'challenge-hint',
      // The draft is kept in localStorage, not in the browser's form state (see numberField).
      autocomplete: 'off',
    }));
    try { answer.value = localStorage.getItem(STORAGE_KEY) || ''; } catch { /* storage unavailable */ }
    const discussion = /** @type {HTMLElement} */ (this.querySelector('[data-challenge-discussion]') || h('div'));
    discussion.setAttribute('data-testid', 'challenge-discussion');
    discussion.id = 'challenge-discussion';
    discussion.hidden = true;
    const button = h('button', { type: 'button', class: 'hw-button', id: 'challenge-reveal', 'aria-expanded': 'false', 'aria-controls': 'challenge-discussion' });
    const label = () => {
      const open = !discussion.hidden;
      button.textContent = open ? 'Hide the discussion' : answer.value.trim() ? 'Compare with the discussion' : 'Reveal the discussion without answering';
      button.setAttribute('aria-expanded', String(open));
    };
    answer.addEventListener('input', () => {
      try { localStorage.setItem(STORAGE_KEY, answer.value); } catch { /* ignore */ }
      label();
      this.dispatchEvent(new CustomEvent('headwise-challenge', { bubbles: true, composed: true, detail: { answer: answer.value } }));
    });
    this.answer = answer;
    this.label = label;
    button.addEventListener('click', () => {
      discussion.hidden = !discussion.hidden;
      label();
      if (!discussion.hidden) discussion.focus();
    });
    discussion.setAttribute('tabindex', '-1');
    label();
    const form = h('div', { class: 'hw-challenge-form' }, [
      h('label', { for: 'challenge-answer', text: 'Your answer (two or three sentences)' }),
      this.hint = h('p', { class: 'hw-hint', id: 'challenge-hint', text: HINTS.browser }),
      answer,
      h('div', { class: 'hw-controls-actions' }, [button]),
    ]);
    this.insertBefore(form, discussion.parentNode === this ? discussion : null);
    if (discussion.parentNode !== this) this.appendChild(discussion);
    if (this.restored) this.restore(this.restored.text);
    const live = /** @type {HTMLElement|null} */ (discussion.querySelector('[data-heads-live]'));
    if (live) {
      live.setAttribute('data-testid', 'challenge-heads-live');
      this.getRootNode().addEventListener('headwise-heads-grid', (event) => this.quote(live, /** @type {CustomEvent} */ (event).detail));
    }
  }

  /**
   * The grid's four-relation row, quoted in the discussion.
   * @param {HTMLElement} live
   * @param {{seed: number, rows: Record<number, {numHeads: number, worst: number}[]>, relations: Record<number, string[]>}} d
   */
  quote(live, d) {
    const row = d && d.rows && d.rows[4];
    if (!row) return;
    const at = (/** @type {number} */ n) => row.find((c) => c.numHeads === n);
    const eight = at(8);
    const one = at(1);
    if (!eight || !one) return;
    const others = row.filter((c) => c.numHeads !== 1 && c.numHeads !== 8).map((c) => `${TEXT.heads(c.numHeads)} ${c.worst.toFixed(2)}`).join(', ');
    replace(live, [TEXT.live(d, eight.worst.toFixed(2), one.worst.toFixed(2), others), h('a', { href: '#heads-needed', text: TEXT.link }), TEXT.after]);
    live.dataset.live = '';
  }

  /**
   * The answer is kept by a course platform: say so, and show the answer saved there (if any).
   * @param {string|null} text
   */
  restore(text) {
    // Before the widget is built (the page's first load may build it later), kept until it is.
    this.restored = { text };
    if (!this.answer) return;
    this.hint.textContent = HINTS.course;
    if (typeof text === 'string') {
      this.answer.value = text;
      this.label();
    }
  }
}

define('hw-challenge', HwChallenge);
