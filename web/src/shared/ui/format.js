// Number formatting. No attention math here: these functions only turn numbers the WASM
// module returned into text, the way NumPy / Python would print them.

/**
 * NumPy's rint: round half to even.
 * @param {number} y
 */
function rint(y) {
  const f = Math.floor(y);
  const diff = y - f;
  if (diff < 0.5) return f;
  if (diff > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * np.round(x, decimals): rint(x * 10**decimals) / 10**decimals, as NumPy computes it.
 * @param {number} x
 * @param {number} [decimals]
 */
export function npRound(x, decimals = 3) {
  if (!Number.isFinite(x)) return x;
  const scale = 10 ** decimals;
  const r = rint(x * scale) / scale;
  // rint keeps the sign of a negative value that rounds to zero: np.round(-0.0004, 3) is -0.0.
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r;
}

/**
 * A value as the page shows it: np.round(x, 3), printed without NumPy's trailing dot,
 * and with -0 shown as 0. 0.4237 -> "0.424", 1.0 -> "1", 2.3e-06 -> "0".
 * @param {number} x
 */
export function fmt3(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const r = npRound(x, 3);
  if (r === 0) return '0';
  return String(r);
}

/**
 * Python's repr() of a float (shortest round-trip digits; scientific below 1e-4 and from 1e16).
 * @param {number} x
 */
export function pyRepr(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expStr] = x.toExponential().split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 16) {
    const sign = exp < 0 ? '-' : '+';
    const e = String(Math.abs(exp)).padStart(2, '0');
    return `${mant}e${sign}${e}`;
  }
  const s = positional(x);
  return s.includes('.') ? s : `${s}.0`;
}

/**
 * Shortest round-trip digits written positionally (no exponent).
 * @param {number} x
 */
function positional(x) {
  const neg = x < 0 || Object.is(x, -0);
  const [mant, expStr] = Math.abs(x).toExponential().split('e');
  const exp = Number(expStr);
  const digits = mant.replace('.', '');
  let out;
  if (exp >= 0) {
    if (digits.length <= exp + 1) out = digits + '0'.repeat(exp + 1 - digits.length);
    else out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  return (neg ? '-' : '') + out;
}

/**
 * What `print(np.round(a, 3))` shows for a 1-D float array under
 * `np.set_printoptions(suppress=True)` (NumPy >= 1.14 defaults otherwise: maxprec, precision 8,
 * line width 75, summarised beyond 1000 elements with 3 edge items).
 * @param {number[]} values raw values; they are rounded here exactly as np.round does
 */
export function numpyArrayStr(values) {
  const rounded = values.map((v) => npRound(v, 3));
  const summary = rounded.length > 1000;
  const shown = summary ? [...rounded.slice(0, 3), ...rounded.slice(-3)] : rounded;
  const finite = shown.filter((v) => Number.isFinite(v));
  const parts = finite.map((v) => {
    const s = positional(v);
    const [i, f = ''] = s.split('.');
    return [i, f];
  });
  let padLeft = Math.max(0, ...parts.map(([i]) => i.length));
  const padRight = Math.max(0, ...parts.map(([, f]) => f.length));
  if (finite.length !== shown.length) {
    const nonFinite = shown.filter((v) => !Number.isFinite(v)).map((v) => (Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf'));
    padLeft = Math.max(padLeft, ...nonFinite.map((s) => s.length - padRight - 1));
  }
  /** @param {number} v */
  const word = (v) => {
    if (!Number.isFinite(v)) {
      const s = Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
      return s.padStart(padLeft + padRight + 1);
    }
    const [i, f = ''] = positional(v).split('.');
    return `${i.padStart(padLeft)}.${f.padEnd(padRight)}`;
  };
  const words = shown.map(word);
  if (summary) words.splice(3, 0, '...');
  // numpy's _formatArray for 1-D: hanging indent ' ', element width 74.
  let s = '';
  let line = ' ';
  words.forEach((w, k) => {
    if (line.length + w.length > 74 && line.length > 1) {
      s += `${line.trimEnd()}\n`;
      line = ' ';
    }
    line += w;
    if (k < words.length - 1) line += ' ';
  });
  s += line;
  return `[${s.slice(1)}]`;
}

/**
 * Python's format(x, '.3g'): 3 significant digits, trailing zeros dropped, scientific notation
 * below 1e-4 and from 1e3 (with a two-digit exponent). Used for divergences and differences.
 * @param {number} x
 */
export function fmtSig(x) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mant, expStr] = x.toExponential(2).split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 3) {
    const m = mant.replace(/\.?0+$/, '');
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const fixed = x.toFixed(Math.max(0, 2 - exp));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/**
 * An integer with commas between groups of three digits, e.g. 40000400000 -> "40,000,400,000"
 * (what toLocaleString('en-US') prints for an integer). Written out rather than asking Intl,
 * whose first toLocaleString loads the locale's data on the page's first load.
 * @param {number} n  an integer
 */
export function fmtInt(n) {
  if (!Number.isFinite(n)) return String(n);
  const digits = String(Math.abs(Math.round(n)));
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  return sign + digits.replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * A shape like "(5, 8)"; a 1-tuple prints as "(8,)" like Python.
 * @param {number[]} dims
 */
export function shapeStr(dims) {
  return dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
}
