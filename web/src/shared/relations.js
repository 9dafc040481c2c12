// The training module's relations and tasks in words. The module names them (hw.trainingRelations(),
// hw.trainingTasks(): `name`, and an English `title` and `description`); the catalogues say them
// in every language by that name: relation.<name>.title ("previous token"), .phrase ("the previous
// token", as a sentence names it) and .description, task.<name>.title. A name the catalogues do
// not know yet (a relation added to the module) is shown with the module's English.

import { has, t } from './i18n.js';

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
 * A relation as a sentence names it: "the previous token", "the token two back".
 * @param {string} name
 * @param {string} fallback  the English phrase made from the module's rule
 * @param {string} lang
 */
export function relationPhrase(name, fallback, lang) {
  return named(`relation.${name}.phrase`, fallback, lang);
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
