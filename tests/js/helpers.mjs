// Shared by the node --test files: loading dist/headwise.js, reading the golden fixtures, and
// comparing nested arrays element by element with a message that names the first difference.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

export const ROOT = join(here, '..', '..');
export const DIST_JS = join(ROOT, 'dist', 'headwise.js');
export const FIXTURE_DIR = join(ROOT, 'tests', 'fixtures');

// The factory exactly as a Node user gets it.
export const createHeadwise = require('../../dist/headwise.js');

// The fixtures' agreed tolerance between this module and NumPy / PyTorch (float64 both sides).
export const TOL = 1e-12;

// ---- error codes ------------------------------------------------------------------------------

// The codes cpp/api.d.ts documents on HeadwiseError, each with the parameters it lists ("min",
// "index?" for an optional one, as "index"): Map code -> Set of names.
export function documentedCodes() {
  const dts = readFileSync(join(ROOT, 'cpp', 'api.d.ts'), 'utf8');
  const start = dts.indexOf('The codes and their params');
  const block = dts.slice(start, dts.indexOf('interface HeadwiseError', start));
  const codes = new Map();
  for (const m of block.replace(/\n\s*\*\s*/g, ' ').matchAll(/(\w+) \{([^}]*)\}/g)) {
    codes.set(m[1], new Set(m[2].split(',').map((p) => p.trim().replace(/[?:].*$/, '')).filter(Boolean)));
  }
  return codes;
}

// ---- fixtures ---------------------------------------------------------------------------------

// Non-finite numbers are stored as the strings "NaN", "Infinity", "-Infinity" (strict JSON).
function revive(key, value) {
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  return value;
}

// {generator, cases} of tests/fixtures/<name>.json.
export function loadFixture(name) {
  return JSON.parse(readFileSync(join(FIXTURE_DIR, name), 'utf8'), revive);
}

// ---- comparison -------------------------------------------------------------------------------

function indexString(path) {
  return path.map((i) => '[' + i + ']').join('') || '(top level)';
}

function shapeOf(value) {
  const shape = [];
  for (let v = value; Array.isArray(v); v = v[0]) shape.push(v.length);
  return '(' + shape.join(', ') + ')';
}

// Compares nested arrays (or scalars) element by element: |actual - expected| <= tol, NaN only
// where expected has NaN, infinities only where expected has the same infinity. Returns null when
// they match, else a message naming the first differing index, both values, how many differ and
// the max |difference|.
export function nearReport(actual, expected, tol, what) {
  let first = null;
  let count = 0;
  let total = 0;
  let worst = 0;
  let worstAt = null;
  let nonFinite = 0;
  let structural = null;
  function walk(a, e, path) {
    if (structural) return;
    if (Array.isArray(e)) {
      if (!Array.isArray(a) || a.length !== e.length) {
        structural = what + ': at ' + indexString(path) + ' expected an array of ' + e.length +
          ' (' + 'shape ' + shapeOf(e) + '), got ' +
          (Array.isArray(a) ? 'an array of ' + a.length : JSON.stringify(a));
        return;
      }
      for (let i = 0; i < e.length; i++) walk(a[i], e[i], path.concat(i));
      return;
    }
    total++;
    if (typeof a !== 'number') {
      structural = what + ': at ' + indexString(path) + ' expected a number, got ' +
        JSON.stringify(a);
      return;
    }
    let diff;
    if (!Number.isFinite(a) || !Number.isFinite(e)) {
      // NaN must meet NaN, an infinity the same infinity.
      diff = Object.is(a, e) || (Number.isNaN(a) && Number.isNaN(e)) ? 0 : Infinity;
      if (diff) nonFinite++;
    } else {
      diff = Math.abs(a - e);
      if (diff > worst) {
        worst = diff;
        worstAt = path;
      }
    }
    if (diff > tol) {
      count++;
      if (!first) first = { path, a, e };
    }
  }
  walk(actual, expected, []);
  if (structural) return structural;
  if (!first) return null;
  return what + ': ' + count + ' of ' + total + ' entries differ by more than ' + tol +
    '; first at ' + indexString(first.path) + ': got ' + first.a + ', expected ' + first.e +
    '; max |difference| ' + worst + (worstAt ? ' at ' + indexString(worstAt) : '') +
    (nonFinite ? '; ' + nonFinite + ' NaN/infinity mismatches' : '');
}

// assert that nested arrays agree within tol (NaN positions must match).
export function assertNear(actual, expected, tol, what) {
  const report = nearReport(actual, expected, tol, what);
  if (report) assert.fail(report);
}

// ---- the lesson's numbers ---------------------------------------------------------------------

export const LESSON = Object.freeze({ seed: 7, tokens: 5, dModel: 8, numHeads: 2 });

// Rounded to 3 decimals like np.round (the weights are >= 0; + 0 turns -0 into 0).
const round3 = (row) => row.map((v) => Math.round(v * 1000) / 1000 + 0);

// The numbers the lesson prints for seed 7: head 0 and head 1 attend differently.
export function assertLessonNumbers(hw, what = 'seed 7') {
  const r = hw.seedExperiment(LESSON);
  assert.deepEqual(round3(r.headWeights[0][0]), [0, 0, 0.424, 0.576, 0],
    what + ': head 0, query 0 weights (3 dp)');
  assert.deepEqual(round3(r.headWeights[1][0]), [0, 0, 0, 0, 1],
    what + ': head 1, query 0 weights (3 dp)');
  const [pair] = hw.compareHeads({ headWeights: r.headWeights });
  assert.equal(pair.allclose, false, what + ': heads 0 and 1 must not be allclose');
  return r;
}
