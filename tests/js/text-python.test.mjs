// "Your own sentence" in Python: the NumPy script the page generates (web/src/text/
// sentence-python.js), run on the shipped weights file with Debian's NumPy, prints character for
// character what the page shows, where the page's numbers come from dist/headwise.js.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { sentenceCode, sentenceOutput } from '../../web/src/text/sentence-python.js';
import { ROOT, createHeadwise } from './helpers.mjs';
import { runPython } from './python.mjs';

const WEIGHTS = join(ROOT, 'web', 'models', 'sotu.hwtm');
const hw = await createHeadwise();
const model = hw.textModel({ weights: new Uint8Array(readFileSync(WEIGHTS)) });

/** The script's stdout, run as `python3 sentence.py sotu.hwtm`. @param {string} source */
const python = (source) => runPython(source, { name: 'sentence.py', args: [WEIGHTS], timeout: 120000 }).replace(/\n$/, '');

const CASES = [
  { text: 'We will not tire, we will not falter, and we will not fail.' },
  { text: 'The State of the Union is strong; the “Zyzzyva” is not.', ablate: [[0, 1], [1, 0]] },
  { text: 'Congress' },
];

for (const c of CASES) {
  test(`the script prints what the page shows: ${c.text}`, () => {
    const page = sentenceOutput(model.run({ text: c.text, ablate: c.ablate }), c.ablate);
    assert.equal(python(sentenceCode(c)), page);
    assert.match(page, /^words: /);
  });
}
