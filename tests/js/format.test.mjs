// Integer grouping (web/src/shared/ui/format.js fmtInt): the page writes its counts itself, not
// through Intl (whose locale data costs the first load tens of milliseconds), and must print
// exactly what toLocaleString('en-US') prints for an integer.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fmtInt } from '../../web/src/shared/ui/format.js';

test('fmtInt groups digits in threes with commas, as toLocaleString("en-US") does', () => {
  const values = [0, -0, 1, 12, 123, 999, 1000, 1001, 12345, 123456, 999999, 1000000, 1234567,
    40000400000, -1, -999, -1000, -1234567, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
  for (let k = 0; k < 2000; k += 1) values.push(Math.floor(Math.random() * 10 ** (1 + (k % 15))) * (k % 3 ? 1 : -1));
  for (const n of values) assert.equal(fmtInt(n), n.toLocaleString('en-US'), `fmtInt(${n})`);
});

test('fmtInt prints what is not a finite number as String does', () => {
  assert.equal(fmtInt(NaN), 'NaN');
  assert.equal(fmtInt(Infinity), 'Infinity');
  assert.equal(fmtInt(-Infinity), '-Infinity');
});
