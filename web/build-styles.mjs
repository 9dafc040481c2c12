// The stylesheets that ship, each joined from the CSS files beside the code they style, in this
// order (the cascade's: a later rule of equal specificity wins, so a widget's file comes after the
// shared ones it refines, and the page's after the widgets' parts it sizes).
//   styles.css   the page and every lesson widget (index.html, gallery.html; embeds through
//                headwise-elements.css)
//   train.css    the training sections and "Your own sentence", loaded with them (src/train/loader.js)
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const STYLESHEETS = {
  'styles.css': [
    'shared/ui/base.css',
    'shared/ui/widgets.css',
    'shared/ui/forms.css',
    'page/page.css',
    'lesson/hw-controls.css',
    'lesson/hw-pipeline.css',
    'lesson/hw-head-weights.css',
    'lesson/hw-param-table.css',
    'lesson/hw-head-circuits.css',
    'lesson/hw-reference-table.css',
    'lesson/exercises.css',
    'lesson/hw-exercise-torch.css',
    'lesson/hw-challenge.css',
    'lesson/hw-quiz.css',
    'lesson/hw-status.css',
    'lesson/hw-fact.css',
  ],
  'train.css': ['train/train.css', 'text/hw-sentence.css'],
};

/**
 * One shipped stylesheet's text, unminified: its files (under web/src/) one after another.
 * @param {string} web  the web/ folder
 * @param {keyof typeof STYLESHEETS} name
 */
export async function readStylesheet(web, name) {
  const parts = await Promise.all(STYLESHEETS[name].map((file) => readFile(join(web, 'src', file), 'utf8')));
  return parts.join('\n');
}
