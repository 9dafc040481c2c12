// Watchable training, shared by the training sections: the probe, the pace control and the
// timeline (every model's attention on the probe kept at regular steps, scrubbed with a slider,
// and the step where each head settled on its relation, in words). Only formatting and
// comparisons here; every weight comes from the trainer's attention().

import { h, setText } from '../shared/ui/dom.js';
import { FOLLOWS } from './verdict.js';
import { PACES } from './model-run.js';
import { capitalise, t } from '../shared/i18n/i18n.js';
import { SOURCE } from '../shared/i18n/language-tags.js';
import { relationPhrase, sourceOf } from '../shared/i18n/relations.js';

/** @typedef {import('./python.js').Relation} Relation */

/**
 * A fixed probe sequence whose tokens are all different where the vocabulary allows: position i
 * holds (3 + i·step) mod V for a step coprime to V, so "the first token" and "the previous token"
 * are never the same letter by accident.
 * @param {number} n
 * @param {number} vocab
 * @returns {number[]}
 */
export function probeTokens(n, vocab) {
  /** @param {number} a @param {number} b @returns {number} */
  const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
  const step = [5, 7, 3, 1].find((s) => gcd(s, vocab) === 1) || 1;
  return Array.from({ length: n }, (_, i) => (3 + i * step) % vocab);
}

/**
 * For each relation, the positions i of the probe where its source exists and differs from
 * every other relation's (so a weight there is that relation's alone), with that source. Not
 * position 0: it sees only itself, so its one weight is 1 whatever the head has learnt.
 * @param {Relation[]} relations
 * @param {number} n
 * @returns {{i: number, src: number}[][]}  [r]
 */
export function uniqueSources(relations, n) {
  return relations.map((r, k) => {
    const rows = [];
    for (let i = 1; i < n; i += 1) {
      const src = sourceOf(r, i, n);
      if (src < 0 || src > i) continue;
      if (relations.some((o, m) => m !== k && sourceOf(o, i, n) === src)) continue;
      rows.push({ i, src });
    }
    return rows;
  });
}

/**
 * focus[h][r]: head h's mean weight on relation r's source on the probe (NaN: no position shows
 * relation r alone).
 * @param {number[][][]} attention  [h][i][j]
 * @param {{i: number, src: number}[][]} rows  uniqueSources()
 */
export function probeFocus(attention, rows) {
  return Array.from({ length: attention.length }, (_, head) => rows.map((list) => {
    if (list.length === 0) return NaN;
    let sum = 0;
    for (const { i, src } of list) sum += attention[head][i][src];
    return sum / list.length;
  }));
}

/**
 * For each relation, the head that follows it best at the last snapshot and the step from which
 * it stayed at FOLLOWS or more (null: it never settled).
 * @param {{step: number, focus: number[][]}[]} points  in step order
 * @param {number} relations
 * @returns {{relation: number, head: number, focus: number, step: number|null}[]}
 */
export function settledSteps(points, relations) {
  if (points.length === 0) return [];
  const last = points[points.length - 1].focus;
  const out = [];
  for (let r = 0; r < relations; r += 1) {
    let head = 0;
    for (let k = 1; k < last.length; k += 1) if ((last[k][r] || 0) > (last[head][r] || 0)) head = k;
    let step = null;
    for (let p = points.length - 1; p >= 0; p -= 1) {
      if (points[p].focus[head][r] >= FOLLOWS) step = points[p].step;
      else break;
    }
    out.push({ relation: r, head, focus: last[head][r], step });
  }
  return out;
}

/**
 * The settled steps in words: "head 1 settled on the first token near step 140".
 * @param {ReturnType<typeof settledSteps>} list
 * @param {Relation[]} relations
 * @param {string} [lang]
 */
export function settledSentence(list, relations, lang = SOURCE) {
  return list.filter((s) => !Number.isNaN(s.focus)).map((s) => (s.step !== null
    ? t('timeline.settled', { head: s.head, relation: relationPhrase(relations[s.relation], lang), step: s.step }, lang)
    : t('timeline.notSettled', { relation: relationPhrase(relations[s.relation], lang), focus: s.focus.toFixed(2), head: s.head }, lang)))
    .join(t('common.clauseSeparator', {}, lang));
}

/**
 * A pace control: a select whose change calls `onChange(pace)`.
 * @param {string} id
 * @param {(pace: import('./model-run.js').Pace) => void} onChange
 * @param {string} lang
 */
export function paceField(id, onChange, lang) {
  const select = /** @type {HTMLSelectElement} */ (h('select', { id, name: id, 'aria-describedby': `${id}-hint`, autocomplete: 'off', 'data-testid': id }));
  for (const p of PACES) select.appendChild(h('option', { value: p, text: t(`pace.${p}`, {}, lang) }));
  select.value = 'fast';
  select.addEventListener('change', () => onChange(/** @type {import('./model-run.js').Pace} */ (select.value)));
  const wrap = h('div', { class: 'hw-field hw-pace' }, [
    h('label', { for: id, text: t('pace.label', {}, lang) }),
    select,
    h('p', { class: 'hw-hint', id: `${id}-hint`, text: t('pace.hint', {}, lang) }),
  ]);
  return { wrap, select };
}

/**
 * The timeline: a slider over a model's snapshots, the step it shows and the settled steps.
 */
export class Timeline {
  /**
   * @param {string} id
   * @param {(index: number|null) => void} onScrub  null: follow the latest snapshot
   * @param {string} lang
   */
  constructor(id, onScrub, lang) {
    this.lang = lang;
    this.input = /** @type {HTMLInputElement} */ (h('input', {
      type: 'range', id, min: '0', max: '0', step: '1', value: '0', 'aria-describedby': `${id}-hint`, 'data-testid': id, autocomplete: 'off',
    }));
    this.at = h('output', { for: id, class: 'hw-timeline-step', 'data-testid': `${id}-step` });
    this.sentence = h('p', { class: 'hw-timeline-settled', 'data-testid': `${id}-settled`, 'aria-live': 'polite' });
    this.wrap = h('div', { class: 'hw-timeline' }, [
      h('div', { class: 'hw-timeline-row' }, [h('label', { for: id, text: t('timeline.label', {}, lang) }), this.input, this.at]),
      h('p', { class: 'hw-hint', id: `${id}-hint`, text: t('timeline.hint', {}, lang) }),
      this.sentence,
    ]);
    /** the snapshot shown; null: the latest */
    this.index = /** @type {number|null} */ (null);
    this.count = 0;
    this.input.addEventListener('input', () => {
      const i = Number(this.input.value);
      this.index = i >= this.count - 1 ? null : i;
      onScrub(this.index);
    });
  }

  /**
   * @param {number[]} steps  the snapshots' steps
   * @param {string[]} settled  the settled sentences (one per model; none while there are none)
   */
  update(steps, settled) {
    this.count = steps.length;
    const max = String(Math.max(0, steps.length - 1));
    if (this.input.max !== max) this.input.max = max;
    const shown = this.index === null ? steps.length - 1 : Math.min(this.index, steps.length - 1);
    if (this.index === null && this.input.value !== max) this.input.value = max;
    this.input.disabled = steps.length < 2;
    const step = steps[Math.max(0, shown)];
    setText(this.at, steps.length ? t(shown === steps.length - 1 ? 'timeline.atLatest' : 'timeline.at', { step }, this.lang) : '');
    this.at.dataset.step = steps.length ? String(step) : '';
    // Each a sentence of its own, so it starts with a capital where the language has them ("head 0
    // settled on…" comes from a phrase that other sentences put after "2 heads: ").
    setText(this.sentence, settled.map((text) => t('common.sentenceEnd', { text: capitalise(text, this.lang) }, this.lang)).join(t('common.sentenceGap', {}, this.lang)));
  }

  /** Back to following the latest snapshot. */
  follow() {
    this.index = null;
  }
}
