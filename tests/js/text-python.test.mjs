// "Your own sentence" in Python: the NumPy script the page generates (web/src/text/
// sentence-python.js), run on the shipped weights file with Debian's NumPy, prints character for
// character what the page shows, where the page's numbers come from dist/headwise.js.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { sentenceCode, sentenceOutput } from '../../web/src/text/sentence-python.js';
import { ROOT, createHeadwise } from './helpers.mjs';

const WEIGHTS = join(ROOT, 'web', 'models', 'sotu.hwtm');
const hw = await createHeadwise();
const model = hw.textModel({ weights: new Uint8Array(readFileSync(WEIGHTS)) });

function python(source) {
  const dir = mkdtempSync(join(tmpdir(), 'headwise-text-'));
  try {
    const file = join(dir, 'sentence.py');
    writeFileSync(file, source);
    const r = spawnSync('/usr/bin/python3', [file, WEIGHTS], { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `python failed:\n${r.stderr}`);
    return r.stdout.replace(/\n$/, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
