// A small line chart in inline SVG: axes and gridlines drawn once, one <path> per series whose
// `d` attribute is rewritten in place as points arrive (no rebuilds, no chart library).

const SVG = 'http://www.w3.org/2000/svg';
/** Series classes, by model index (colour and dash, so they differ without colour too). */
export const SERIES = ['hw-s0', 'hw-s1', 'hw-s2', 'hw-s3'];
/** Plot geometry in viewBox units (the SVG scales with its container). */
const W = 320;
const H = 170;
const PAD = { left: 34, right: 8, top: 10, bottom: 26 };

/**
 * @param {string} tag
 * @param {Record<string, string|number>} [attrs]
 * @param {string} [text]
 * @returns {SVGElement}
 */
function s(tag, attrs = {}, text = '') {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text) el.textContent = text;
  return el;
}

/**
 * @typedef {object} SeriesDef
 * @property {string} label   "2 heads"
 * @property {string} cls     CSS class that colours it
 */

export class Curves {
  /**
   * @param {object} o
   * @param {string} o.title      figure caption, e.g. "Loss (training batch)"
   * @param {string} o.testid
   * @param {number} o.yMax
   * @param {number[]} o.yTicks
   * @param {(y: number) => string} o.yFormat
   * @param {SeriesDef[]} o.series
   * @param {string} o.xLabel     the x axis's name, "step"
   */
  constructor({ title, testid, yMax, yTicks, yFormat, series, xLabel }) {
    this.yMax = yMax;
    this.xLabel = xLabel;
    this.xMax = 1;
    this.svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'hw-curve-svg', role: 'img', 'aria-label': title });
    this.grid = s('g', { class: 'hw-curve-grid' });
    this.xAxis = s('g', { class: 'hw-curve-axis' });
    this.svg.appendChild(this.grid);
    for (const y of yTicks) {
      const py = this.py(y);
      this.grid.appendChild(s('line', { x1: PAD.left, x2: W - PAD.right, y1: py, y2: py }));
      this.grid.appendChild(s('text', { x: PAD.left - 4, y: py + 3, 'text-anchor': 'end' }, yFormat(y)));
    }
    this.svg.appendChild(this.xAxis);
    /** @type {SVGElement[]} */
    this.paths = series.map((d, i) => s('path', { class: `hw-curve-line ${d.cls}`, 'data-series': i, d: '' }));
    for (const p of this.paths) this.svg.appendChild(p);
    this.figure = document.createElement('figure');
    this.figure.className = 'hw-curve';
    this.figure.setAttribute('data-testid', testid);
    const caption = document.createElement('figcaption');
    caption.textContent = title;
    this.figure.appendChild(caption);
    this.figure.appendChild(this.svg);
    /** @type {number[]} points drawn per series (to skip unchanged ones) */
    this.drawn = series.map(() => -1);
  }

  /** @param {number} y */
  py(y) {
    const t = Math.min(1, Math.max(0, y / this.yMax));
    return +(H - PAD.bottom - t * (H - PAD.top - PAD.bottom)).toFixed(1);
  }

  /** @param {number} x */
  px(x) {
    return +(PAD.left + (x / this.xMax) * (W - PAD.left - PAD.right)).toFixed(1);
  }

  /**
   * The x range (steps): redraws the step axis and forgets the drawn paths.
   * @param {number} xMax
   */
  setX(xMax) {
    this.xMax = Math.max(1, xMax);
    while (this.xAxis.firstChild) this.xAxis.removeChild(this.xAxis.firstChild);
    const y = H - PAD.bottom;
    this.xAxis.appendChild(s('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y }));
    const ticks = [0, Math.round(this.xMax / 2), this.xMax];
    for (const t of ticks) {
      this.xAxis.appendChild(s('text', { x: this.px(t), y: y + 13, 'text-anchor': t === 0 ? 'start' : t === this.xMax ? 'end' : 'middle' }, String(t)));
    }
    this.xAxis.appendChild(s('text', { x: (PAD.left + W - PAD.right) / 2, y: H - 2, 'text-anchor': 'middle', class: 'hw-curve-xlabel' }, this.xLabel));
    this.drawn = this.drawn.map(() => -1);
    for (const p of this.paths) p.setAttribute('d', '');
  }

  /**
   * Draw series i from its points (only when it has new ones).
   * @param {number} i
   * @param {number[]} xs
   * @param {number[]} ys
   */
  update(i, xs, ys) {
    const n = Math.min(xs.length, ys.length);
    if (n === this.drawn[i]) return;
    this.drawn[i] = n;
    let d = '';
    for (let k = 0; k < n; k += 1) d += `${k ? 'L' : 'M'}${this.px(xs[k])} ${this.py(ys[k])}`;
    this.paths[i].setAttribute('d', d);
  }
}
