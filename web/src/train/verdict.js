// What a finished run shows, in words: which head follows which relation (from the module's
// headFocus), what switching it off costs (from its ablated evaluations), and how the models
// compare at the same parameter count. Only formatting and comparisons here; every number comes
// from the trainer's evaluate().

import { pyFixed } from '../shared/python/format.js';
import { capitalise as upper, t } from '../shared/i18n/i18n.js';
import { SOURCE } from '../shared/i18n/language-tags.js';
import { relationPhrase, relationTitle } from '../shared/i18n/relations.js';

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

/** A head "follows" a relation when its mean weight on the relation's source is at least this. */
export const FOLLOWS = 0.9;

/**
 * A relation's short title in a language ("previous token").
 * @param {Relation} r
 * @param {string} [lang]
 */
export function titleOf(r, lang = SOURCE) {
  return relationTitle(r.name, r.title, lang);
}

/**
 * "1 head", "2 heads".
 * @param {number} h
 * @param {string} [lang]
 */
export function headsWord(h, lang = SOURCE) {
  return t('common.heads', { count: h }, lang);
}

/**
 * "previous token 0.233, first token 1.000": a value per relation.
 * @param {Relation[]} relations
 * @param {(i: number) => string} value
 * @param {string} lang
 */
export function perRelation(relations, value, lang) {
  return relations.map((r, i) => t('train.verdict.relationValue', { relation: titleOf(r, lang), value: value(i) }, lang)).join(t('common.listSeparator', {}, lang));
}

/**
 * Clauses as one sentence: joined, the full stop added (and the first letter made upper case,
 * where asked).
 * @param {string[]} clauses
 * @param {string} lang
 * @param {boolean} [capitalise]
 */
function sentence(clauses, lang, capitalise = false) {
  const text = clauses.join(t('common.clauseSeparator', {}, lang));
  return t('common.sentenceEnd', { text: capitalise ? upper(text, lang) : text }, lang);
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
 * @param {string} [lang]
 * @returns {{headline: string, heads: string, ablation: string, specialised: boolean}}
 */
export function modelVerdict(relations, numHeads, evaluation, ablations, lang = SOURCE) {
  const list = assignments(evaluation, ablations, relations.length);
  const tr = (/** @type {string} */ key, /** @type {Record<string, unknown>} */ params) => t(key, params, lang);
  const phrase = (/** @type {number} */ r) => relationPhrase(relations[r], lang);
  const acc = perRelation(relations, (i) => a3(evaluation.relationAccuracy[i]), lang);
  const headline = tr('train.verdict.headline', { heads: headsWord(numHeads, lang), accuracy: a3(evaluation.accuracy), relations: acc });
  if (numHeads === 1) {
    const split = perRelation(relations, (i) => w2(evaluation.headFocus[0][i]), lang);
    const one = list.find((a) => a.follows);
    return {
      headline,
      heads: one
        ? tr('train.verdict.oneFollows', { relation: phrase(one.relation), focus: w2(one.focus), split })
        : tr('train.verdict.oneSplits', { split }),
      ablation: '',
      specialised: false,
    };
  }
  const heads = list.map((a) => (a.follows
    ? tr('train.verdict.follows', { head: a.head, relation: phrase(a.relation), focus: w2(a.focus) })
    : tr('train.verdict.noneSettles', { relation: phrase(a.relation), focus: w2(a.focus), head: a.head })));
  const ablation = list.filter((a) => a.follows).map((a) => {
    const params = { head: a.head, relation: phrase(a.relation), drop: a3(/** @type {number} */ (a.drop)), others: a.othersAfter === null ? '' : a3(a.othersAfter) };
    return tr(relations.length > 1 && a.othersAfter !== null ? 'train.verdict.ablationOthers' : 'train.verdict.ablation', params);
  });
  return {
    headline,
    heads: sentence(heads, lang),
    ablation: ablation.length ? sentence(ablation, lang, true) : '',
    specialised: specialised(list),
  };
}

/**
 * The section's one-line summary across models at the same parameter count.
 * @param {{numHeads: number, parameters: number, evaluation: Evaluation}[]} models
 * @param {string} [lang]
 */
export function summary(models, lang = SOURCE) {
  const params = new Set(models.map((m) => m.parameters));
  const sep = t('common.listSeparator', {}, lang);
  const item = (/** @type {number} */ h, /** @type {string|number} */ value) => t('train.summary.item', { heads: headsWord(h, lang), value }, lang);
  const same = params.size === 1
    ? t('train.summary.same', { parameters: models[0].parameters }, lang)
    : t('train.summary.parameters', { list: models.map((m) => item(m.numHeads, m.parameters)).join(sep) }, lang);
  return t('train.summary.text', { parameters: same, accuracy: models.map((m) => item(m.numHeads, a3(m.evaluation.accuracy))).join(sep) }, lang);
}
