// "Your own sentence" in Python: a NumPy (float64) script that reads the model's weights file
// (dist/models/sotu.hwtm, the format of cpp/headwise/text_model.hpp), splits the sentence into
// words as the page does, runs the same forward with the same heads switched off, and prints
// what the page shows; and that printout, formatted from the page's own run (hw.textModel).
//
// Printed: the words, the mean next-word loss (3 decimals), for every head the earlier word each
// word attends to most with its weight (2 decimals), and the five likeliest words after the last
// one (3 decimals), each formatted as Python's f"{x:.Nf}".

import { pyFixed, pyString } from '../shared/python/format.js';

/**
 * @typedef {object} SentenceSettings
 * @property {string} text
 * @property {[number, number][]} [ablate]  (layer, head) pairs switched off
 */

/**
 * The script for a sentence.
 * @param {SentenceSettings} s
 * @returns {string}
 */
export function sentenceCode(s) {
  const off = (s.ablate ?? []).map(([l, h]) => `(${l}, ${h})`).join(', ');
  return [
    'import json, re, struct, sys',
    'import numpy as np',
    '',
    `TEXT = ${pyString(s.text)}`,
    `OFF = {${off}}  # (layer, head) pairs switched off`,
    'PATH = sys.argv[1] if len(sys.argv) > 1 else "sotu.hwtm"  # dist/models/sotu.hwtm',
    '',
    '# The weights file: "HWTM", nine little-endian uint32 (version, layers, heads, d_model, context,',
    '# vocab, dtype 16, vocabulary bytes, metadata bytes), the words one per line, the metadata (JSON),',
    '# zeros up to a multiple of 8, then every tensor in float16, row-major.',
    'data = open(PATH, "rb").read()',
    'assert data[:4] == b"HWTM"',
    '_, LAYERS, HEADS, D, N, V, _, lv, lm = struct.unpack_from("<9I", data, 4)',
    'vocab = data[40:40 + lv].decode("utf-8").split("\\n")[:-1]',
    'values = np.frombuffer(data, "<f2", offset=(40 + lv + lm + 7) // 8 * 8).astype(np.float64)',
    'shapes = [("tokenEmbedding", (V, D)), ("positionEmbedding", (N, D))]',
    'shapes += [(f"layers.{l}.{w}", (D, D)) for l in range(LAYERS) for w in ("wq", "wk", "wv", "wo")]',
    'shapes += [("readout", (D, V)), ("readoutBias", (V,))]',
    'p, k = {}, 0',
    'for name, shape in shapes:',
    '    p[name] = values[k:k + int(np.prod(shape))].reshape(shape)',
    '    k += int(np.prod(shape))',
    '',
    '# Words: ASCII letters lower-cased; runs of letters, runs of digits, any other character alone.',
    'words = re.findall(r"[a-z]+|[0-9]+|[^\\sa-z0-9]", TEXT.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")))',
    'index = {w: i for i, w in enumerate(vocab)}',
    'ids = np.array([index.get(w, 0) for w in words])  # 0 is "<unk>", a word the model does not know',
    'n, dh = len(ids), D // HEADS',
    '',
    'z = p["tokenEmbedding"][ids] + p["positionEmbedding"][:n]',
    'attention = []',
    'for l in range(LAYERS):',
    '    q, k, v = (z @ p[f"layers.{l}.{w}"] for w in ("wq", "wk", "wv"))',
    '    concat = np.zeros((n, D))',
    '    for h in range(HEADS):',
    '        c = slice(h * dh, (h + 1) * dh)',
    '        s = q[:, c] @ k[:, c].T / np.sqrt(dh)',
    '        s[np.triu_indices(n, 1)] = -np.inf  # a word sees only itself and the words before it',
    '        w = np.exp(s - s.max(axis=1, keepdims=True))',
    '        w /= w.sum(axis=1, keepdims=True)',
    '        attention.append(w)',
    '        if (l, h) not in OFF:',
    '            concat[:, c] = w @ v[:, c]',
    '    z = z + concat @ p[f"layers.{l}.wo"]',
    'logits = z @ p["readout"] + p["readoutBias"]',
    'logp = logits - logits.max(axis=1, keepdims=True)',
    'logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))',
    '',
    'print("words: " + " ".join(w if i else f"[{w}]" for w, i in zip(words, ids)))',
    'if n > 1:',
    '    print(f"mean next-word loss: {-np.mean([logp[i, ids[i + 1]] for i in range(n - 1)]):.3f} nats")',
    'for l in range(LAYERS):',
    '    for h in range(HEADS):',
    '        w = attention[l * HEADS + h]',
    '        most = [f"{words[i]}->{words[j]} {w[i, j]:.2f}" for i, j in enumerate(w.argmax(axis=1))]',
    '        print(f"layer {l + 1} head {h}{\' (off)\' if (l, h) in OFF else \'\'}: " + ", ".join(most))',
    'top = np.argsort(-logp[-1], kind="stable")[:5]',
    'print(f"after \\"{words[-1]}\\": " + ", ".join(f"{vocab[t]} {np.exp(logp[-1, t]):.3f}" for t in top))',
  ].join('\n');
}

/**
 * What the script prints, from the page's run (hw.textModel(...).run).
 * @param {{words: string[], ids: number[], loss: number, attention: number[][][][], predictions: {word: string, probability: number}[][]}} r
 * @param {[number, number][]} [ablate]
 * @returns {string}
 */
export function sentenceOutput(r, ablate = []) {
  const n = r.words.length;
  const out = [`words: ${r.words.map((w, i) => (r.ids[i] ? w : `[${w}]`)).join(' ')}`];
  if (n > 1) out.push(`mean next-word loss: ${pyFixed(r.loss, 3)} nats`);
  r.attention.forEach((heads, l) => heads.forEach((w, h) => {
    const most = w.map((row, i) => {
      let j = 0;
      for (let k = 1; k < row.length; k += 1) if (row[k] > row[j]) j = k;
      return `${r.words[i]}->${r.words[j]} ${pyFixed(row[j], 2)}`;
    });
    const off = ablate.some(([a, b]) => a === l && b === h) ? ' (off)' : '';
    out.push(`layer ${l + 1} head ${h}${off}: ${most.join(', ')}`);
  }));
  const last = r.predictions[n - 1];
  out.push(`after "${r.words[n - 1]}": ${last.map((t) => `${t.word} ${pyFixed(t.probability, 3)}`).join(', ')}`);
  return out.join('\n');
}
