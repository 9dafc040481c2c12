// The one "Reproduce it in Python" block: a title, a Copy button, the script, "It prints:" and
// the printout, then whatever the section adds under it (a note, a "train it first" line). The
// script and what it prints are never translated (translate="no"); ids and test ids come from
// the block's id: #<id> holds the script, [data-testid="<id>-output"] the printout.

import { h, setText, copyButton } from '../ui/dom.js';
import { t } from '../i18n/i18n.js';
import { copyTexts } from '../i18n/translate-dom.js';

/**
 * @typedef {object} CodeBlock
 * @property {HTMLElement} el       the block (section.hw-code-block)
 * @property {HTMLElement} heading  its title (h3), for a section that retitles it
 * @property {HTMLElement} code     the script's <code>
 * @property {HTMLElement} output   the printout's <pre>
 * @property {(source: string, printed: string) => void} set  write the script and the printout
 *   (a node only when its text changed: a selection or the focus stays where it was)
 */

/**
 * Build a block.
 * @param {object} o
 * @param {string} o.id       the script's id
 * @param {string} o.title    its title, in the page's language
 * @param {string} o.lang     the language of the Copy button and of "It prints:"
 * @param {(Node|null)[]} [o.after]  what follows the printout
 * @returns {CodeBlock}
 */
export function codeBlock({ id, title, lang, after = [] }) {
  const code = h('code', { class: 'language-python' });
  const output = h('pre', { class: 'hw-code hw-code-output', 'data-testid': `${id}-output`, tabindex: '0', translate: 'no' });
  const heading = h('h3', { text: title });
  const el = h('section', { class: 'hw-code-block' }, [
    heading,
    copyButton(code, copyTexts(title, lang)),
    h('pre', { class: 'hw-code', id, 'data-testid': id, tabindex: '0', translate: 'no' }, [code]),
    h('p', { class: 'hw-output-label', text: t('python.prints', {}, lang) }),
    output,
    ...after,
  ]);
  return {
    el, heading, code, output,
    set(source, printed) {
      setText(code, source);
      setText(output, printed);
    },
  };
}
