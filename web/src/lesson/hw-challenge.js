// <hw-challenge>: the independent challenge. The student writes an answer, then may reveal
// the discussion. The draft is kept in this browser (localStorage), and every change is told to
// the page with a "headwise-challenge" event ({answer}), which a course platform's package saves
// (src/page/course.js); restore() puts back an answer saved there. The discussion's paragraph
// marked data-heads-live quotes the grid of "How many heads does it take?" (its
// "headwise-heads-grid" event) once the grid's four-relation row is trained on this page; the one
// marked data-induction-live quotes "Heads that work together" ("headwise-induction") once trained.

import { HwElement, define } from '../shared/ui/element.js';
import { h, replace } from '../shared/ui/dom.js';
import { relationTitle } from '../shared/i18n/relations.js';

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
      button.textContent = this.t(open ? 'challenge.hide' : answer.value.trim() ? 'challenge.compare' : 'challenge.reveal');
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
      h('label', { for: 'challenge-answer', text: this.t('challenge.answerLabel') }),
      this.hint = h('p', { class: 'hw-hint', id: 'challenge-hint', text: this.t(this.inCourse ? 'challenge.hintCourse' : 'challenge.hintBrowser') }),
      answer,
      h('div', { class: 'hw-controls-actions' }, [button]),
    ]);
    this.discussion = discussion;
    this.insertBefore(form, discussion.parentNode === this ? discussion : null);
    if (discussion.parentNode !== this) this.appendChild(discussion);
    if (this.restored) this.restore(this.restored.text);
    const live = /** @type {HTMLElement|null} */ (discussion.querySelector('[data-heads-live]'));
    this.live = live;
    if (live && !this.listening) {
      // Once per element, however often it is built (relocalize keeps the flag and the last grid).
      this.listening = true;
      live.setAttribute('data-testid', 'challenge-heads-live');
      this.getRootNode().addEventListener('headwise-heads-grid', (event) => {
        this.grid = /** @type {CustomEvent} */ (event).detail;
        if (this.live) this.quote(this.live, this.grid);
      });
    }
    if (live && this.grid) this.quote(live, this.grid);
    const deep = /** @type {HTMLElement|null} */ (discussion.querySelector('[data-induction-live]'));
    this.deepLive = deep;
    if (deep && !this.listeningInduction) {
      this.listeningInduction = true;
      deep.setAttribute('data-testid', 'challenge-induction-live');
      this.getRootNode().addEventListener('headwise-induction', (event) => {
        this.induction = /** @type {CustomEvent} */ (event).detail;
        if (this.deepLive) this.quoteInduction(this.deepLive, this.induction);
      });
    }
    if (deep && this.induction) this.quoteInduction(deep, this.induction);
  }

  /**
   * "Heads that work together", quoted in the discussion: two layers of two heads against one
   * layer of four, and the repeat accuracy with the deep model's key heads off.
   * @param {HTMLElement} live
   * @param {any} d  the "headwise-induction" event's detail
   */
  quoteInduction(live, d) {
    const f2 = (/** @type {number} */ x) => x.toFixed(2);
    replace(live, this.tNodes('challenge.live.induction', {
      seed: d.seed, deep: f2(d.deep.accuracy), wide: f2(d.wide.accuracy), heads: d.wide.numHeads,
      offPrevious: f2(d.deep.offPrevious), offInduction: f2(d.deep.offInduction), chance: f2(d.chance),
      link: h('a', { href: '#induction', text: this.t('challenge.live.inductionLink') }),
    }));
    live.dataset.live = '';
  }

  static get keep() {
    return ['listening', 'grid', 'inCourse', 'listeningInduction', 'induction'];
  }

  /**
   * The grid's four-relation row, quoted in the discussion.
   * @param {HTMLElement} live
   * @param {{seed: number, rows: Record<number, {numHeads: number, worst: number}[]>, relations: Record<number, string[]>, names: Record<number, string[]>}} d
   */
  quote(live, d) {
    const row = d && d.rows && d.rows[4];
    if (!row) return;
    const at = (/** @type {number} */ n) => row.find((c) => c.numHeads === n);
    const eight = at(8);
    const one = at(1);
    if (!eight || !one) return;
    const sep = this.t('common.listSeparator');
    const others = row.filter((c) => c.numHeads !== 1 && c.numHeads !== 8)
      .map((c) => this.t('challenge.live.other', { count: c.numHeads, worst: c.worst.toFixed(2) })).join(sep);
    // The grid names its relations by the module's names; the relations are said in this language.
    const relations = d.names[4].map((name, i) => relationTitle(name, d.relations[4][i], this.language)).join(sep);
    replace(live, this.tNodes('challenge.live.text', {
      relations, seed: d.seed, eight: eight.worst.toFixed(2), one: one.worst.toFixed(2), others,
      link: h('a', { href: '#heads-needed', text: this.t('challenge.live.link') }),
    }));
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
    this.inCourse = true;
    this.hint.textContent = this.t('challenge.hintCourse');
    if (typeof text === 'string') {
      this.answer.value = text;
      this.label();
    }
  }

  /** @returns {any} */
  saveState() {
    return { ...super.saveState(), open: Boolean(this.discussion && !this.discussion.hidden) };
  }

  /** @param {any} state */
  restoreState(state) {
    super.restoreState(state);
    if (state && this.discussion) this.discussion.hidden = !state.open;
    if (this.label) this.label();
  }
}

define('hw-challenge', HwChallenge);
