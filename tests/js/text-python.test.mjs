// "Your own sentence" in Python: the NumPy script the page generates (web/src/text/
// sentence-python.js), run on the shipped weights file with Debian's NumPy, prints character for
// character what the page shows, where the page's numbers come from dist/headwise.js.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { execFileSync } from 'node:child_process';

import { circuitsCode, circuitsOutput, sentenceCode, sentenceOutput, shellWord } from '../../web/src/text/sentence-python.js';
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

// The sum of paths and the circuits: the page's printout from the module's attribute, circuits
// and promoted; the script from the weights file with NumPy.
const CIRCUIT_CASES = [
  { text: 'The people of the United States have a right to expect that their government will do its duty. The people of the United States', position: 23, word: 'states', head: [1, 0] },
  { text: 'We must keep the peace of the world, and we must keep the peace of the world.', position: 12, word: null, head: [0, 2] },
];
const CIRCUITS = model.circuits();

for (const c of CIRCUIT_CASES) {
  test(`the circuits script prints what the page shows: ${c.text.slice(0, 40)}…`, () => {
    const words = model.tokenize(c.text).words;
    const run = model.run({ text: c.text });
    const attribution = model.attribute({ text: c.text, position: c.position, word: c.word ?? run.predictions[c.position][0].id });
    const promoted = model.promoted({ layer: c.head[0], head: c.head[1], word: run.ids[c.position], k: 8 });
    const page = circuitsOutput({ attribution, circuits: CIRCUITS, promoted, words, position: c.position, head: /** @type {[number, number]} */ (c.head) });
    assert.equal(python(circuitsCode({ ...c, head: /** @type {[number, number]} */ (c.head), k: 8 })), page);
    assert.match(page, /^logit of "/);
  });
}

test('the scripts read the file of the model shown: sotu.hwtm by default, the student\'s own by its name; the hint\'s command quotes a name the shell would split', () => {
  const settings = { text: 'the people', position: 1, word: null, head: [0, 0], k: 5 };
  for (const code of [sentenceCode({ text: 'the people' }), circuitsCode(settings)]) {
    assert.match(code, /^PATH = sys\.argv\[1\] if len\(sys\.argv\) > 1 else "sotu\.hwtm"  # dist\/models\/sotu\.hwtm$/m);
  }
  const own = 'my "model" (2).hwtm';
  for (const code of [sentenceCode({ text: 'the people', file: own }), circuitsCode({ ...settings, file: own })]) {
    assert.ok(code.includes(`else "my \\"model\\" (2).hwtm"  # your own model, saved from the page`), code.split('\n').find((l) => l.startsWith('PATH')));
  }
  assert.equal(shellWord('own-text.hwtm'), 'own-text.hwtm');
  // what a POSIX shell makes of each word: the name itself, as one argument
  for (const name of ['own-text.hwtm', 'my model.hwtm', "it's (2).hwtm", 'a"b$c`d.hwtm']) {
    const args = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${shellWord(name)}`], { encoding: 'utf8' });
    assert.equal(args, `${name}\n`, name);
  }
});
