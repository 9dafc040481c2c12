// A language in a script the page has not shown yet (Chinese, after the English the page was
// written in) sends the browser to its fonts the first time that text is laid out: in Chromium,
// each face (serif, sans, monospace; regular, bold, italic) is opened and readied for shaping
// then, all in one long task. warmFonts measures a few of the language's characters on a canvas
// in each face, one face per task, before the language is shown, so the layout finds them ready.

import { nextSlice } from '../compute/slices.js';

/** The page's font stacks (ui/base.css); a page without them gets the generic families. */
const FAMILIES = [['--hw-serif', 'serif'], ['--hw-sans', 'sans-serif'], ['--hw-mono', 'monospace']];
/** The faces the page's text is set in, as canvas font shorthands' style and weight. */
const FACES = ['', 'bold ', 'italic '];
/** Text in scripts the page's English already readied (Latin, with its punctuation and spaces). */
const LATIN = /^[\u0000-\u024f\u2000-\u206f\s]*$/;

/**
 * Resolves once every face of the page has measured `sample`, each in a task of its own; at once
 * where there is nothing to ready (Latin text, no document, no canvas).
 * @param {string} sample  a few characters in the language's script (its name in itself)
 * @returns {Promise<void>}
 */
export async function warmFonts(sample) {
  if (typeof document === 'undefined' || !sample || LATIN.test(sample)) return;
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return;
  // Read in a task of its own too: the page's styles are worked out here if not yet.
  await nextSlice();
  const style = getComputedStyle(document.documentElement);
  const families = FAMILIES.map(([name, generic]) => style.getPropertyValue(name).trim() || generic);
  for (const family of families) {
    for (const face of FACES) {
      await nextSlice();
      context.font = `${face}16px ${family}`;
      context.measureText(sample);
    }
  }
}
