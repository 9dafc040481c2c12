// What a finished run shows, in words: which head follows which relation (from the module's
// headFocus), what switching it off costs (from its ablated evaluations), and how the models
// compare at the same parameter count. Only formatting and comparisons here; every number comes
// from the trainer's evaluate().

import { FOLLOWS } from './session.js';
import { pyFixed } from './python.js';

/** @typedef {import('./python.js').Relation} Relation */
/** @typedef {import('./python.js').Evaluation} Evaluation */

/**
 * @typedef {object} Assignment
 * @property {number} relation
 * @property {number} head      the head with the most weight on the relation's source
 * @property {number} focus     that weight
 * @property {boolean} follows  focus >= FOLLOWS
 * @property {number|null} drop         that relation's accuracy with the head off (null: 1 head)
 * @property {number|null} othersAfter  the lowest other relation's accuracy with the head off
 */

/**
 * A relation as a sentence names it: "the previous token", "the token two back".
 * @param {Relation} r
 */
export function relationPhrase(r) {
  return /\btoken$/.test(r.title) ? `the ${r.title}` : `the token ${r.title}`;
}

/**
 * @param {number} h
 */
export function headsWord(h) {
  return h === 1 ? '1 head' : `${h} heads`;
}

/** A weight or accuracy as the verdict writes it. @param {number} x */
export const w2 = (x) => pyFixed(x, 2);
/** @param {number} x */
export const a3 = (x) => pyFixed(x, 3);

/**
 * For every relation, the head that puts the most weight on its source.
 * @param {Evaluation} evaluation
 * @param {Evaluation[]} ablations  [h]: head h off
 * @param {number} relations
 * @returns {Assignment[]}
 */
export function assignments(evaluation, ablations, relations) {
  const out = [];
  const numHeads = evaluation.headFocus.length;
  for (let r = 0; r < relations; r += 1) {
    let head = 0;
    for (let h = 1; h < numHeads; h += 1) if (evaluation.headFocus[h][r] > evaluation.headFocus[head][r]) head = h;
    const focus = evaluation.headFocus[head][r];
    const off = numHeads > 1 ? ablations[head] : null;
    let othersAfter = null;
    if (off) {
      for (let o = 0; o < relations; o += 1) {
        if (o !== r && (othersAfter === null || off.relationAccuracy[o] < othersAfter)) othersAfter = off.relationAccuracy[o];
      }
    }
    out.push({ relation: r, head, focus, follows: focus >= FOLLOWS, drop: off ? off.relationAccuracy[r] : null, othersAfter });
  }
  return out;
}

/**
 * Whether a model's heads divide the relations between them: every relation has a head that
 * follows it, and no head follows two.
 * @param {Assignment[]} list
 */
export function specialised(list) {
  const heads = new Set(list.map((a) => a.head));
  return list.every((a) => a.follows) && heads.size === list.length;
}

/**
 * The verdict for one model, as sentences.
 * @param {Relation[]} relations
 * @param {number} numHeads
 * @param {Evaluation} evaluation
 * @param {Evaluation[]} ablations
 * @returns {{headline: string, heads: string, ablation: string, specialised: boolean}}
 */
export function modelVerdict(relations, numHeads, evaluation, ablations) {
  const list = assignments(evaluation, ablations, relations.length);
  const acc = relations.map((r, i) => `${r.title} ${a3(evaluation.relationAccuracy[i])}`).join(', ');
  const headline = `${headsWord(numHeads)}: held-out accuracy ${a3(evaluation.accuracy)} (${acc}).`;
  if (numHeads === 1) {
    const split = relations.map((r, i) => `${r.title} ${w2(evaluation.headFocus[0][i])}`).join(', ');
    const one = list.find((a) => a.follows);
    return {
      headline,
      heads: one
        ? `Its one head follows ${relationPhrase(relations[one.relation])} (${w2(one.focus)}); its weight on each: ${split}.`
        : `Its one head splits its weight between the positions it needs: ${split}.`,
      ablation: '',
      specialised: false,
    };
  }
  const heads = list.map((a) => (a.follows
    ? `head ${a.head} follows ${relationPhrase(relations[a.relation])}: ${w2(a.focus)}`
    : `no head settles on ${relationPhrase(relations[a.relation])} (at most ${w2(a.focus)}, head ${a.head})`)).join('; ');
  const ablation = list.filter((a) => a.follows).map((a) => {
    const others = relations.length > 1 && a.othersAfter !== null ? `, the other relation's stays at ${a3(a.othersAfter)}` : '';
    return `switching head ${a.head} off drops ${relationPhrase(relations[a.relation])} to ${a3(/** @type {number} */ (a.drop))}${others}`;
  }).join('; ');
  return {
    headline,
    heads: `${heads}.`,
    ablation: ablation ? `${ablation.charAt(0).toUpperCase()}${ablation.slice(1)}.` : '',
    specialised: specialised(list),
  };
}

/**
 * The section's one-line summary across models at the same parameter count.
 * @param {{numHeads: number, parameters: number, evaluation: Evaluation}[]} models
 */
export function summary(models) {
  const params = new Set(models.map((m) => m.parameters));
  const same = params.size === 1 ? `Same ${models[0].parameters} parameters each` : `Parameters: ${models.map((m) => `${headsWord(m.numHeads)} ${m.parameters}`).join(', ')}`;
  return `${same}; held-out accuracy: ${models.map((m) => `${headsWord(m.numHeads)} ${a3(m.evaluation.accuracy)}`).join(', ')}.`;
}
