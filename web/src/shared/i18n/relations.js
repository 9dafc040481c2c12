// The training module's relations and tasks in words. The module names them (hw.trainingRelations(),
// hw.trainingTasks(): `name`, and an English `title` and `description`); the catalogues say them
// in every language by that name: relation.<name>.title ("previous token"), .phrase ("the previous
// token", as a sentence names it) and .description, task.<name>.title. A name the catalogues do
// not know yet (a relation added to the module) is shown with the module's English.
//
// Where each relation takes its target from comes from the module with it (`source`: `{back: k}`,
// the token k positions before i, or `{at: k}`, the token at position k), so nothing reads a rule
// string back.

import { has, t } from './i18n.js';
import { SOURCE } from './language-tags.js';

/** @typedef {{back: number}|{at: number}} RelationSource */

/**
 * Where relation `r` takes its target from. Throws an Error naming the relation when it carries
 * no source (an object not from hw.trainingRelations() or hw.trainingTasks()).
 * @param {{name: string, source?: RelationSource}} r
 * @returns {RelationSource}
 */
export function relationSource(r) {
  const s = r.source;
  if (!s || !(Number.isInteger(/** @type {any} */ (s).back) || Number.isInteger(/** @type {any} */ (s).at))) {
    throw new Error(`the relation "${r.name}" carries no source: take relations from hw.trainingRelations() or hw.trainingTasks()`);
  }
  return s;
}

/**
 * The source position of relation `r` at position i of a sequence of n tokens: -1 where it does
 * not exist or comes after i (the model attends causally).
 * @param {{name: string, source?: RelationSource}} r
 * @param {number} i
 * @param {number} n
 */
export function sourceOf(r, i, n) {
  const s = relationSource(r);
  const src = 'back' in s ? i - s.back : s.at;
  return src >= 0 && src <= i && src < n ? src : -1;
}

/**
 * @param {string} key
 * @param {string} fallback
 * @param {string} lang
 */
function named(key, fallback, lang) {
  return has(key) ? t(key, {}, lang) : fallback;
}

/**
 * A relation's short title: "previous token", "two back".
 * @param {string} name
 * @param {string} fallback  the module's title
 * @param {string} lang
 */
export function relationTitle(name, fallback, lang) {
  return named(`relation.${name}.title`, fallback, lang);
}

/**
 * A relation as a sentence names it: "the previous token", "the token two back" (for a name the
 * catalogues do not know, made in English from the module's title).
 * @param {{name: string, title: string}} r
 * @param {string} [lang]
 */
export function relationPhrase(r, lang = SOURCE) {
  return named(`relation.${r.name}.phrase`, /\btoken$/.test(r.title) ? `the ${r.title}` : `the token ${r.title}`, lang);
}

/**
 * A relation's description, for a tooltip.
 * @param {string} name
 * @param {string} fallback  the module's description
 * @param {string} lang
 */
export function relationDescription(name, fallback, lang) {
  return named(`relation.${name}.description`, fallback, lang);
}

/**
 * A training task's title: "Previous token and first token".
 * @param {string} name
 * @param {string} fallback  the module's title
 * @param {string} lang
 */
export function taskTitle(name, fallback, lang) {
  return named(`task.${name}.title`, fallback, lang);
}
