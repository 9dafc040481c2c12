// Files a student or instructor can take away from any widget: the per-head weights as CSV and
// JSON, the head tables as a PNG, and the Python that reproduces them. Everything is built from
// the module's results; numbers are written at full precision (shortest round-trip digits).

import { PageError } from '../shared/state/errors.js';
import { labelOf } from '../shared/state/settings.js';
import { numpyCode, paramsCode, torchTail } from '../lesson/hw-python.js';
import { cellColors, weightPixels } from '../shared/ui/color.js';
import { fmt3 } from '../shared/ui/format.js';

/** @typedef {import('../shared/state/store.js').State} State */

/**
 * A file name stem for a run, e.g. "headwise-seed7-n5-d8-h2".
 * @param {any} run
 */
export function fileStem(run) {
  return `headwise-seed${run.seed}-n${run.tokens}-d${run.dModel}-h${run.numHeads}${run.bias ? '-bias' : ''}${run.causal ? '-causal' : ''}`;
}

/**
 * One CSV field. Text that a spreadsheet would run as a formula gets a leading apostrophe.
 * @param {string} text
 */
export function csvField(text) {
  let s = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  if (/[",\r\n]/.test(s)) s = `"${s.replace(/"/g, '""')}"`;
  return s;
}

/**
 * Per-head weights as CSV: one block per head, separated by an empty line. A block's header row
 * is "head <h>" followed by the key tokens' labels; each following row is a query token's label
 * followed by its weights.
 * @param {any} run
 * @param {State} state  for the token labels
 */
export function weightsCsv(run, state) {
  const n = run.tokens;
  /** @type {string[]} */
  const labels = [];
  for (let i = 0; i < n; i += 1) labels.push(csvField(labelOf(state, i)));
  const blocks = run.headWeights.map((/** @type {number[][]} */ w, /** @type {number} */ head) => {
    const lines = [[`head ${head}`, ...labels].join(',')];
    for (let i = 0; i < n; i += 1) lines.push([labels[i], ...w[i].map((x) => String(x))].join(','));
    return lines.join('\r\n');
  });
  return `${blocks.join('\r\n\r\n')}\r\n`;
}

/**
 * Per-head weights as JSON: the settings that produced them, then headWeights[h][query][key].
 * @param {any} run
 * @param {State} state
 * @param {string} version  the module's version
 */
export function weightsJson(run, state, version) {
  const labels = [];
  for (let i = 0; i < run.tokens; i += 1) labels.push(labelOf(state, i));
  return `${JSON.stringify({
    generator: `headwise ${version}`,
    settings: {
      seed: run.seed, tokens: run.tokens, dModel: run.dModel, numHeads: run.numHeads, bias: run.bias, causal: run.causal, labels,
    },
    dHead: run.dHead,
    headWeights: run.headWeights,
  }, null, 1)}\n`;
}

/**
 * @param {string} code
 * @param {string} pad
 */
function indent(code, pad) {
  return code.split('\n').map((line) => (line === '' ? '' : pad + line)).join('\n');
}

/**
 * The "reproduce in Python" code as one script: the NumPy pipeline with its prints, then (when
 * PyTorch is installed) exercise 3's cross-check and the parameter counts.
 * @param {any} run
 * @param {number} query
 */
export function pythonScript(run, query) {
  return [
    '# Headwise: the multi-head attention lesson\'s numbers, reproduced.',
    `# seed ${run.seed}, ${run.tokens} tokens, d_model ${run.dModel}, ${run.numHeads} heads${run.bias ? ', with bias' : ''}${run.causal ? ', causal mask' : ''}.`,
    '# The NumPy part needs NumPy 1.14 or later; the PyTorch part runs if PyTorch 1.12+ is installed.',
    '',
    numpyCode(run, query, true),
    '',
    '',
    'try:',
    '    import torch',
    'except ImportError:',
    '    torch = None',
    '    print("PyTorch is not installed: the PyTorch checks are skipped.")',
    '',
    'if torch is not None:',
    indent(torchTail(run), '    '),
    '',
    '    # Parameter counts (this loop reuses the name num_heads, so it comes last).',
    indent(paramsCode(run.dModel, run.bias), '    '),
    '',
  ].join('\n');
}

/** Most pixels drawn into the PNG (about 4096 × 4096). */
const PNG_MAX_PIXELS = 16e6;

/**
 * The head tables drawn on a canvas: one heat map per head, with the weights written in the
 * cells when there are 16 tokens or fewer. Light colours, whatever the page's scheme.
 * @param {any} run
 * @param {State} state
 * @returns {HTMLCanvasElement}
 */
export function headsCanvas(run, state) {
  const n = run.tokens;
  const withText = n <= 16;
  const cell = withText ? 44 : Math.max(1, Math.min(8, Math.floor(512 / n)));
  const margin = withText ? 64 : 24;
  const gap = 24;
  const title = 34;
  const size = n * cell;
  const boxW = margin + size;
  const boxH = title + margin + size;
  let shown = run.numHeads;
  while (shown > 1 && shown * (boxW + gap) * (boxH + gap) > PNG_MAX_PIXELS) shown -= 1;
  const cols = Math.max(1, Math.min(shown, withText ? 4 : 8, Math.floor(4096 / (boxW + gap)) || 1));
  const rows = Math.ceil(shown / cols);
  const header = 40;
  const canvas = document.createElement('canvas');
  canvas.width = gap + cols * (boxW + gap);
  canvas.height = header + rows * (boxH + gap);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new PageError('errors.export.noCanvas');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#1d1f23';
  ctx.textBaseline = 'middle';
  ctx.font = '600 16px system-ui, sans-serif';
  const more = shown < run.numHeads ? ` (heads 0–${shown - 1} of ${run.numHeads})` : '';
  ctx.fillText(`Attention weights · seed ${run.seed}, n = ${n}, d_model = ${run.dModel}, ${run.numHeads} head${run.numHeads === 1 ? '' : 's'}${run.bias ? ', bias' : ''}${run.causal ? ', causal' : ''}${more}`, gap, header / 2 + 4);
  /** @param {string} s */
  const clip = (s) => (s.length > 6 ? `${s.slice(0, 5)}…` : s);
  for (let head = 0; head < shown; head += 1) {
    const x0 = gap + (head % cols) * (boxW + gap);
    const y0 = header + Math.floor(head / cols) * (boxH + gap);
    ctx.fillStyle = '#1d1f23';
    ctx.font = '600 14px system-ui, sans-serif';
    ctx.textAlign = 'left';
    ctx.fillText(`Head ${head} · d_head = ${run.dHead}`, x0, y0 + title / 2);
    const gx = x0 + margin;
    const gy = y0 + title + margin;
    const w = run.headWeights[head];
    if (withText) {
      ctx.font = '11px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.fillStyle = '#565b63';
      for (let j = 0; j < n; j += 1) ctx.fillText(`${j} ${clip(labelOf(state, j))}`, gx + j * cell + cell / 2, gy - 10);
      ctx.textAlign = 'right';
      for (let i = 0; i < n; i += 1) ctx.fillText(`${i} ${clip(labelOf(state, i))}`, gx - 6, gy + i * cell + cell / 2);
      ctx.font = '12px ui-monospace, monospace';
      ctx.textAlign = 'center';
    }
    if (withText) {
      for (let i = 0; i < n; i += 1) {
        for (let j = 0; j < n; j += 1) {
          const { bg, fg } = cellColors(w[i][j], false);
          ctx.fillStyle = bg;
          ctx.fillRect(gx + j * cell, gy + i * cell, cell, cell);
          ctx.fillStyle = fg;
          ctx.fillText(fmt3(w[i][j]), gx + j * cell + cell / 2, gy + i * cell + cell / 2);
        }
      }
    } else {
      // One pixel per weight, then scaled up without smoothing.
      const pixels = weightPixels(w, false);
      if (!pixels) throw new PageError('errors.export.noCanvas');
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(pixels, gx, gy, size, size);
    }
    ctx.strokeStyle = '#dcd8cf';
    ctx.lineWidth = 1;
    ctx.strokeRect(gx - 0.5, gy - 0.5, size + 1, size + 1);
    if (!withText) {
      ctx.fillStyle = '#565b63';
      ctx.font = '11px system-ui, sans-serif';
      ctx.textAlign = 'left';
      ctx.fillText('key →', gx, gy - 9);
    }
  }
  return canvas;
}

/**
 * @param {HTMLCanvasElement} canvas
 * @returns {Promise<Blob>}
 */
export function pngBlob(canvas) {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new PageError('errors.export.noImage'))), 'image/png');
  });
}

/**
 * Save a file: a Blob URL clicked through a temporary <a download> placed in `parent`.
 * @param {Blob} blob
 * @param {string} name
 * @param {Node} parent
 */
export function saveFile(blob, name, parent) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  parent.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
