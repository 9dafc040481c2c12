// Colour scale for attention weights: a single-hue blue ramp (colour-blind safe, ordered by
// lightness). The light scheme runs from near-white (0) to deep blue (1); the dark scheme from
// near-background navy (0) to pale blue (1). Text on each cell is black or white, whichever has
// the higher contrast, which is always at least 4.58:1 (the best of the two is >= sqrt(21)).

/** @typedef {[number, number, number]} RGB */

/** @type {RGB[]} ColorBrewer "Blues" (9 classes), light to dark. */
const BLUES = [
  [247, 251, 255], [222, 235, 247], [198, 219, 239], [158, 202, 225], [107, 174, 214],
  [66, 146, 198], [33, 113, 181], [8, 81, 156], [8, 48, 107],
];

/** @type {RGB[]} A dark-scheme ramp: navy to pale blue, monotone in lightness. */
const BLUES_DARK = [
  [16, 26, 44], [18, 44, 82], [20, 64, 122], [27, 88, 160], [45, 115, 190],
  [77, 145, 210], [118, 174, 226], [165, 203, 239], [214, 232, 250],
];

/**
 * Whether to draw in the dark scheme: the store's theme if it has one ('light' or 'dark', set by
 * an embedded widget's `theme` attribute), else the system's setting.
 * @param {object|null} [store]  a Store (an embed's has a `theme`)
 * @returns {boolean}
 */
export function prefersDark(store = null) {
  const theme = store && /** @type {{theme?: string}} */ (store).theme;
  if (theme === 'dark') return true;
  if (theme === 'light') return false;
  if (typeof matchMedia !== 'function') return false;
  if (!darkQuery) darkQuery = matchMedia('(prefers-color-scheme: dark)');
  return darkQuery.matches;
}

/** The system's dark-scheme query, made once (asked for every cell drawn). @type {MediaQueryList|null} */
let darkQuery = null;

/**
 * The ramp's colour for t as one integer, 0xRRGGBB, without allocating: rampRGB, colourRows
 * and paintCell all go through it.
 * @param {number} t in [0, 1] (clamped; NaN and infinities map to the lowest colour)
 * @param {RGB[]} stops
 * @returns {number}
 */
function rampInt(t, stops) {
  const last = stops.length - 1;
  const x = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  const pos = x * last;
  const i = Math.min(last - 1, Math.floor(pos));
  const f = pos - i;
  const a = stops[i];
  const b = stops[i + 1];
  return (Math.round(a[0] + (b[0] - a[0]) * f) << 16) | (Math.round(a[1] + (b[1] - a[1]) * f) << 8) |
    Math.round(a[2] + (b[2] - a[2]) * f);
}

/**
 * @param {number} t in [0, 1] (clamped; NaN maps to the lowest colour)
 * @param {boolean} dark
 * @returns {RGB}
 */
export function rampRGB(t, dark) {
  const c = rampInt(t, dark ? BLUES_DARK : BLUES);
  return [c >> 16, (c >> 8) & 255, c & 255];
}

/** @param {number} c 0..255 */
function channel(c) {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

/**
 * WCAG relative luminance.
 * @param {RGB} rgb
 */
export function luminance([r, g, b]) {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/**
 * WCAG contrast ratio of two luminances.
 * @param {number} l1
 * @param {number} l2
 */
export function contrast(l1, l2) {
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}

/**
 * Background and text colour for a weight in [0, 1].
 * @param {number} t
 * @param {boolean} dark
 * @returns {{bg: string, fg: string, rgb: RGB}}
 */
export function cellColors(t, dark) {
  const rgb = rampRGB(t, dark);
  const l = luminance(rgb);
  const fg = contrast(l, 0) >= contrast(l, 1) ? '#000' : '#fff';
  return { bg: `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`, fg, rgb };
}

/** Each painted cell's background now, as 0xRRGGBB. @type {WeakMap<HTMLElement, number>} */
const paintedAs = new WeakMap();
/**
 * The colours of each background painted so far (the text colour follows from it). The two
 * ramps have about 1,100 in all, so a redraw of a table whose numbers change allocates no colour
 * strings (they were about a quarter of a lesson-size update's allocation).
 * @type {Map<number, {bg: string, fg: string, rgb: RGB}>}
 */
const painted = new Map();

/**
 * Colour a table cell for weight t, in place: nothing is written when its colours stay.
 * @param {HTMLElement} td
 * @param {number} t
 * @param {boolean} dark
 */
export function paintCell(td, t, dark) {
  const key = rampInt(t, dark ? BLUES_DARK : BLUES);
  if (paintedAs.get(td) === key) return;
  paintedAs.set(td, key);
  let c = painted.get(key);
  if (!c) painted.set(key, (c = cellColors(t, dark)));
  td.style.backgroundColor = c.bg;
  td.style.color = c.fg;
}

/**
 * A heatmap at one pixel per weight: an n x n canvas coloured by the ramp, to be scaled up
 * without smoothing. Null where the browser cannot draw on a canvas.
 * @param {number[][]} weights (n, n)
 * @param {boolean} dark
 * @returns {HTMLCanvasElement|null}
 */
export function weightPixels(weights, dark) {
  const n = weights.length;
  const canvas = document.createElement('canvas');
  canvas.width = n;
  canvas.height = n;
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  const img = ctx.createImageData(n, n);
  for (let i = 0; i < n; i += 1) {
    for (let j = 0; j < n; j += 1) {
      const [r, g, b] = rampRGB(weights[i][j], dark);
      const k = (i * n + j) * 4;
      img.data[k] = r; img.data[k + 1] = g; img.data[k + 2] = b; img.data[k + 3] = 255;
    }
  }
  ctx.putImageData(img, 0, 0);
  return canvas;
}

/**
 * Colour rows [from, to) of an n × n heatmap into img (ImageData n × n) from row-major data:
 * data[offset + i * n + j] is weight (i, j). The same colours as rampRGB, without allocating.
 * @param {ImageData} img
 * @param {ArrayLike<number>} data
 * @param {number} offset
 * @param {number} n
 * @param {number} from
 * @param {number} to
 * @param {boolean} dark
 */
export function colourRows(img, data, offset, n, from, to, dark) {
  const stops = dark ? BLUES_DARK : BLUES;
  const px = img.data;
  for (let k = from * n; k < to * n; k += 1) {
    const c = rampInt(data[offset + k], stops);
    const p = 4 * k;
    px[p] = c >> 16;
    px[p + 1] = (c >> 8) & 255;
    px[p + 2] = c & 255;
    px[p + 3] = 255;
  }
}
