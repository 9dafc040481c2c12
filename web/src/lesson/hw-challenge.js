// <hw-challenge>: the independent challenge. The student writes an answer, then may reveal
// the discussion. The draft is kept in this browser (localStorage) only.

import { HwElement, define } from '../shared/element.js';
import { h } from '../shared/dom.js';

const STORAGE_KEY = 'headwise.challenge.answer';

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
    });
    button.addEventListener('click', () => {
      discussion.hidden = !discussion.hidden;
      label();
      if (!discussion.hidden) discussion.focus();
    });
    discussion.setAttribute('tabindex', '-1');
    label();
    const form = h('div', { class: 'hw-challenge-form' }, [
      h('label', { for: 'challenge-answer', text: 'Your answer (two or three sentences)' }),
      h('p', { class: 'hw-hint', id: 'challenge-hint', text: 'Write it before you look. It stays in this browser only.' }),
      answer,
      h('div', { class: 'hw-controls-actions' }, [button]),
    ]);
    this.insertBefore(form, discussion.parentNode === this ? discussion : null);
    if (discussion.parentNode !== this) this.appendChild(discussion);
  }
}

define('hw-challenge', HwChallenge);
