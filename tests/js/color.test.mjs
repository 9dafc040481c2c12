// The weight colours (web/src/shared/ui/color.js): the ramp's ends and middle are ColorBrewer's
// stops, out-of-range weights clamp, and the three ways a colour is drawn agree: cellColors (one
// cell's colours), paintCell (a table cell, written only when its colour changes) and
// colourRows (a heatmap's pixels).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cellColors, colourRows, contrast, luminance, paintCell, rampRGB } from '../../web/src/shared/ui/color.js';

/** Weights from 0 to 1 in steps of 1/1000, and some between. */
const WEIGHTS = [...Array.from({ length: 1001 }, (_, k) => k / 1000), 0.4242, 0.57581, 1e-9, 1 - 1e-9];

/** A stand-in for a table cell: counts what is written to its style. */
function fakeCell() {
  const writes = [];
  const style = {};
  for (const name of ['backgroundColor', 'color']) {
    let value = '';
    Object.defineProperty(style, name, {
      get: () => value,
      set: (v) => { writes.push(name); value = v; },
    });
  }
  return { style, writes };
}

test('the ramp runs through its stops, light and dark, and clamps what is outside [0, 1]', () => {
  assert.deepEqual(rampRGB(0, false), [247, 251, 255]);
  assert.deepEqual(rampRGB(0.5, false), [107, 174, 214]);
  assert.deepEqual(rampRGB(1, false), [8, 48, 107]);
  assert.deepEqual(rampRGB(0, true), [16, 26, 44]);
  assert.deepEqual(rampRGB(1, true), [214, 232, 250]);
  // Halfway between the first two stops, rounded per channel: (247+222)/2, (251+235)/2, (255+247)/2.
  assert.deepEqual(rampRGB(1 / 16, false), [235, 243, 251]);
  for (const dark of [false, true]) {
    assert.deepEqual(rampRGB(-0.5, dark), rampRGB(0, dark));
    assert.deepEqual(rampRGB(3, dark), rampRGB(1, dark));
    for (const t of [NaN, Infinity, -Infinity]) assert.deepEqual(rampRGB(t, dark), rampRGB(0, dark), String(t));
  }
});

test('each cell\'s text colour is the one of black and white with the higher contrast, at least 4.5:1', () => {
  assert.equal(contrast(1, 0), 21);
  assert.equal(contrast(0, 1), 21);
  assert.equal(contrast(0.5, 0.5), 1);
  for (const dark of [false, true]) {
    for (const t of WEIGHTS) {
      const { bg, fg, rgb } = cellColors(t, dark);
      assert.equal(bg, `rgb(${rgb.join(', ')})`);
      const l = luminance(rgb);
      const best = Math.max(contrast(l, 0), contrast(l, 1));
      assert.equal(contrast(l, fg === '#000' ? 0 : 1), best, `t=${t} dark=${dark}`);
      assert.ok(best >= 4.5, `t=${t} dark=${dark}: ${best}`);
    }
  }
});

test('paintCell writes cellColors\' colours, and writes nothing when a cell keeps its colour', () => {
  for (const dark of [false, true]) {
    for (const t of WEIGHTS) {
      const cell = fakeCell();
      paintCell(/** @type {any} */ (cell), t, dark);
      const want = cellColors(t, dark);
      assert.deepEqual([cell.style.backgroundColor, cell.style.color], [want.bg, want.fg], `t=${t} dark=${dark}`);
      assert.equal(cell.writes.length, 2);
      paintCell(/** @type {any} */ (cell), t, dark);
      assert.equal(cell.writes.length, 2, 'the same weight again: nothing written');
    }
  }
  // A new weight of another colour is written; one of the same colour is not; a change of scheme is.
  const cell = fakeCell();
  paintCell(/** @type {any} */ (cell), 0.2, false);
  paintCell(/** @type {any} */ (cell), 0.9, false);
  assert.equal(cell.style.backgroundColor, cellColors(0.9, false).bg);
  assert.equal(cell.writes.length, 4);
  paintCell(/** @type {any} */ (cell), 0.9 + 1e-12, false);
  assert.equal(cell.writes.length, 4, 'a weight of the same colour: nothing written');
  paintCell(/** @type {any} */ (cell), 0.9, true);
  assert.equal(cell.style.backgroundColor, cellColors(0.9, true).bg);
  assert.equal(cell.writes.length, 6, 'the dark scheme repaints');
  paintCell(/** @type {any} */ (cell), 0, false);
  paintCell(/** @type {any} */ (cell), NaN, false);
  assert.equal(cell.writes.length, 8, 'NaN takes the lowest colour, as 0 does: nothing more written');
});

test('colourRows colours a heatmap\'s rows as rampRGB does, and only the rows asked for', () => {
  const n = 7;
  const offset = 3;
  const data = new Float64Array(offset + n * n);
  for (let k = 0; k < data.length; k += 1) data[k] = ((k * 37) % 101) / 100;
  data[offset + 5] = NaN;
  data[offset + 6] = -2;
  data[offset + 7] = 5;
  for (const dark of [false, true]) {
    const img = { data: new Uint8ClampedArray(4 * n * n) };
    colourRows(/** @type {any} */ (img), data, offset, n, 1, 5, dark);
    for (let i = 0; i < n; i += 1) {
      for (let j = 0; j < n; j += 1) {
        const p = 4 * (i * n + j);
        const got = [...img.data.subarray(p, p + 4)];
        const want = i >= 1 && i < 5 ? [...rampRGB(data[offset + i * n + j], dark), 255] : [0, 0, 0, 0];
        assert.deepEqual(got, want, `(${i}, ${j}) dark=${dark}`);
      }
    }
    colourRows(/** @type {any} */ (img), data, offset, n, 0, 1, dark);
    assert.deepEqual([...img.data.subarray(20, 24)], [...rampRGB(0, dark), 255], 'NaN: the lowest colour');
    assert.deepEqual([...img.data.subarray(24, 28)], [...rampRGB(0, dark), 255], 'below 0: the lowest colour');
  }
});
