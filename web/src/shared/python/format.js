// Python source and Python's printouts, written from JavaScript: the literals a generated script
// holds and the numbers it prints, formatted exactly as Python formats them. Every "Reproduce it
// in Python" block (the lesson's NumPy and PyTorch code, the training sections' scripts, the text
// model's script) takes its formatting from here.

import { pyRepr } from '../ui/format.js';

/**
 * A float as a Python literal: Python's repr() (shortest round-trip digits, always with a point
 * or an exponent, so that Python reads a float).
 * @param {number} x
 */
export const pyFloat = pyRepr;

/**
 * Python's f"{x:.{digits}f}": correctly rounded, ties to even on the exact binary value
 * (JavaScript's toFixed breaks ties away from zero: (0.0625).toFixed(3) is "0.063", Python
 * prints "0.062").
 * @param {number} x
 * @param {number} digits
 */
export function pyFixed(x, digits) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const text = x.toFixed(digits);
  // x = mantissa * 2^exponent exactly; a tie is x * 10^digits = odd / 2.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  if (biased !== 0) mantissa |= 1n << 52n;
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return text;  // an integer: no tie
  const num = mantissa * 10n ** BigInt(digits) * 2n;
  const den = 1n << BigInt(-exponent);
  if (num % den !== 0n) return text;
  const twice = num / den;
  if (twice % 2n === 0n) return text;  // exact at `digits` decimals
  let n = (twice - 1n) / 2n;
  if (n % 2n !== 0n) n += 1n;  // to even
  const s = n.toString().padStart(digits + 1, '0');
  const body = digits ? `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}` : s;
  return x < 0 ? `-${body}` : body;
}

/**
 * A Python string literal for any text: JSON's escapes (which Python reads the same), with every
 * character beyond ASCII written as \uXXXX, so the script is plain ASCII.
 * @param {string} s
 */
export function pyString(s) {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A tuple literal of numbers: "(1, 2, 4)", and "(8,)" for one.
 * @param {(number|string)[]} xs
 */
export function pyTuple(xs) {
  return `(${xs.join(', ')}${xs.length === 1 ? ',' : ''})`;
}

/**
 * "1 head", "2 heads": a count as the scripts print it (f"{n} head{'s' if n > 1 else ''}").
 * @param {number} n
 * @param {string} word
 */
export function pyCount(n, word) {
  return `${n} ${word}${n > 1 ? 's' : ''}`;
}
