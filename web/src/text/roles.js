// A head's role, as the section labels it: from the scores its training recorded on held-out
// text (the weights file's metadata `heads`, cpp/tools/train_text.cpp; each a [layer][head]
// matrix, the measures of cpp/headwise/text_model.hpp TextEvaluation):
//   previousWord  mean weight on the word before                      role from 0.40
//   currentWord   mean weight on the word itself                      role from 0.50
//   induction     on a repeated random sequence, weight on the word
//                 after the current word's earlier occurrence         role from 0.30 (the bar)
//   firstWord     mean weight on the first word                       role from 0.50
//   sameWord      mean weight on earlier copies of the same word      role from 0.30
//   broad         entropy of the weights / log(i + 1): 1 is uniform   role from 0.80
// A head takes the role whose score is furthest above its threshold (the largest score /
// threshold); one whose scores all stay below their thresholds is "mixed", shown with the score
// nearest its threshold. A measure the metadata does not hold is passed over. A uniform head
// scores about 0.1 on previousWord, currentWord and firstWord over 32 words, so these thresholds
// name only what a head does far more than by chance.

/** The roles in the order the section lists them, with their thresholds. */
export const ROLES = /** @type {const} */ ([
  ['previousWord', 0.4],
  ['currentWord', 0.5],
  ['induction', 0.3],
  ['firstWord', 0.5],
  ['sameWord', 0.3],
  ['broad', 0.8],
]);

/**
 * @typedef {object} HeadRole
 * @property {string} role     one of ROLES' names, or 'mixed'
 * @property {string} measure  the score shown (the role's, or for 'mixed' the nearest to its threshold)
 * @property {number} score
 */

/**
 * Every head's role from the metadata's scores.
 * @param {Record<string, number[][]>} heads  metadata().heads
 * @param {number} layers
 * @param {number} numHeads
 * @returns {HeadRole[][]}  [layer][head]
 */
export function headRoles(heads, layers, numHeads) {
  /** @type {HeadRole[][]} */
  const out = [];
  for (let l = 0; l < layers; l += 1) {
    const row = [];
    for (let k = 0; k < numHeads; k += 1) {
      let best = { measure: '', score: NaN, ratio: -Infinity };
      for (const [name, threshold] of ROLES) {
        const score = heads && heads[name] && heads[name][l] ? Number(heads[name][l][k]) : NaN;
        if (!Number.isFinite(score)) continue;
        const ratio = score / threshold;
        if (ratio > best.ratio) best = { measure: name, score, ratio };
      }
      row.push({ role: best.ratio >= 1 ? best.measure : 'mixed', measure: best.measure, score: best.score });
    }
    out.push(row);
  }
  return out;
}
