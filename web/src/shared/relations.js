// The training module's relations and tasks in words. The module names them (hw.trainingRelations(),
// hw.trainingTasks(): `name`, and an English `title` and `description`); the catalogues say them
// in every language by that name: relation.<name>.title ("previous token"), .phrase ("the previous
// token", as a sentence names it) and .description, task.<name>.title. A name the catalogues do
// not know yet (a relation added to the module) is shown with the module's English.
//
// Where each relation takes its target from is written here once, by name (the module's
// catalogue says it to people as a rule string, "x[i-2]", which nothing reads back):
// `back: k` is the token k positions before i, `at: k` the token at position k.

import { SOURCE, has, t } from './i18n.js';

/** @typedef {{back: number}|{at: number}} RelationSource */

/** Every relation of the module's catalogue (hw.trainingRelations()) by name: where its target is. */
export const RELATION_SOURCES = /** @type {Readonly<Record<string, RelationSource>>} */ (Object.freeze({
  previous: { back: 1 },
  'two-back': { back: 2 },
  'three-back': { back: 3 },
  'four-back': { back: 4 },
  first: { at: 0 },
  second: { at: 1 },
  third: { at: 2 },
}));

/**
 * Where relation `r` takes its target from. Throws an Error naming the relation and the known
 * ones when this catalogue does not know it.
 * @param {{name: string}} r
 * @returns {RelationSource}
 */
export function relationSource(r) {
  const source = Object.prototype.hasOwnProperty.call(RELATION_SOURCES, r.name) ? RELATION_SOURCES[r.name] : undefined;
  if (!source) throw new Error(`the relation "${r.name}" is not one the page knows (${Object.keys(RELATION_SOURCES).join(', ')})`);
  return source;
}

/**
 * The source position of relation `r` at position i of a sequence of n tokens: -1 where it does
 * not exist or comes after i (the model attends causally).
 * @param {{name: string}} r
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
