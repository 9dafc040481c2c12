// "Your own sentence" in Python: a NumPy (float64) script that reads the model's weights file
// (dist/models/sotu.hwtm, the format of cpp/headwise/text_model.hpp), splits the sentence into
// words as the page does, runs the same forward with the same heads switched off, and prints
// what the page shows; and that printout, formatted from the page's own run (hw.textModel).
//
// Printed: the words, the mean next-word loss (3 decimals), for every head the earlier word each
// word attends to most with its weight (2 decimals), and the five likeliest words after the last
// one (3 decimals), each formatted as Python's f"{x:.Nf}".

import { pyFixed, pyString } from '../shared/python/format.js';
import { MODEL_FILE } from './model.js';

/**
 * @typedef {object} SentenceSettings
 * @property {string} text
 * @property {[number, number][]} [ablate]  (layer, head) pairs switched off
 * @property {string} [file]  the weights file the script reads by default (sotu.hwtm, else the
 *   student's own model's file)
 */

/**
 * A file name as one word of a shell command: as it is when it holds only letters, digits, '.',
 * '_' and '-', else in single quotes (a student's file may be called "my model (2).hwtm").
 * @param {string} name
 */
export function shellWord(name) {
  return /^[\w.-]+$/.test(name) ? name : `'${name.replace(/'/g, "'\\''")}'`;
}

/**
 * The script's line that names its weights file: the one given on the command line, else `file`.
 * @param {string} [file]
 */
function pathLine(file = MODEL_FILE) {
  const where = file === MODEL_FILE ? `dist/models/${MODEL_FILE}` : 'your own model, saved from the page';
  return `PATH = sys.argv[1] if len(sys.argv) > 1 else ${pyString(file)}  # ${where}`;
}

/**
 * The script's lines that read the weights file (into p, vocab, LAYERS, HEADS, D, N, V) and
 * split TEXT into words (words, ids, n, dh), as the page does.
 */
const READ_MODEL = [
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
];

/**
 * The lines inside the scripts' loop over layers l that compute head h's weights w (n, n) from
 * the residual z: its columns c of q, k, v, scaled dot products, the causal mask, the softmax.
 */
const ATTEND = [
  '    q, k, v = (z @ p[f"layers.{l}.{w}"] for w in ("wq", "wk", "wv"))',
  '    concat = np.zeros((n, D))',
  '    for h in range(HEADS):',
  '        c = slice(h * dh, (h + 1) * dh)',
  '        s = q[:, c] @ k[:, c].T / np.sqrt(dh)',
  '        s[np.triu_indices(n, 1)] = -np.inf  # a word sees only itself and the words before it',
  '        w = np.exp(s - s.max(axis=1, keepdims=True))',
  '        w /= w.sum(axis=1, keepdims=True)',
];

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
    pathLine(s.file),
    '',
    ...READ_MODEL,
    '',
    'z = p["tokenEmbedding"][ids] + p["positionEmbedding"][:n]',
    'attention = []',
    'for l in range(LAYERS):',
    ...ATTEND,
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

/**
 * @typedef {object} CircuitsSettings
 * @property {string} text
 * @property {number} position  the chosen word
 * @property {string|null} word  the word whose logit is split (null: the model's guess)
 * @property {[number, number]} head  (layer, head) whose promoted words are listed
 * @property {number} k  how many promoted words
 * @property {string} [file]  as SentenceSettings' file
 */

/**
 * The script for the sum of paths and the circuits: the chosen word's logit split into the
 * direct path and every head, each head's copying and previous-position scores, the
 * K-composition of every later head with every earlier one, and the words a head promotes.
 * @param {CircuitsSettings} s
 * @returns {string}
 */
export function circuitsCode(s) {
  return [
    'import json, re, struct, sys',
    'import numpy as np',
    '',
    `TEXT = ${pyString(s.text)}`,
    `POSITION = ${s.position}  # the chosen word`,
    `WORD = ${s.word === null ? 'None' : pyString(s.word)}  # the word whose logit is split (None: the model's guess)`,
    `HEAD = (${s.head[0]}, ${s.head[1]})  # (layer, head) whose promoted words are listed`,
    pathLine(s.file),
    '',
    ...READ_MODEL,
    'E, P, U, b = p["tokenEmbedding"], p["positionEmbedding"], p["readout"], p["readoutBias"]',
    '',
    '# The forward, keeping what each head writes at the chosen word: (its output) @ (its rows of Wo).',
    'z = E[ids] + P[:n]',
    'direct_in = z[POSITION].copy()',
    'written = {}',
    'for l in range(LAYERS):',
    ...ATTEND,
    '        concat[:, c] = w @ v[:, c]',
    '        written[l, h] = concat[POSITION, c] @ p[f"layers.{l}.wo"][c]',
    '    z = z + concat @ p[f"layers.{l}.wo"]',
    'logits = z[POSITION] @ U + b',
    'word = index[WORD.lower()] if WORD else int(np.argmax(logits))',
    'prob = np.exp(logits[word] - logits.max()) / np.exp(logits - logits.max()).sum()',
    '# No layer norm: the logit is exactly the direct path plus one term per head.',
    'direct = direct_in @ U[:, word] + b[word]',
    'terms = {lh: x @ U[:, word] for lh, x in written.items()}',
    'print(f"logit of \\"{vocab[word]}\\" after word {POSITION} \\"{words[POSITION]}\\": {logits[word]:.3f}, probability {prob:.3f}")',
    'print(f"  direct path {direct:+.3f}")',
    'for (l, h), x in terms.items():',
    '    print(f"  layer {l + 1} head {h} {x:+.3f}")',
    'print(f"  sum of the paths {direct + sum(terms.values()):.3f}")',
    '',
    '# Circuits, from the weights alone: W_QK = Wq_h Wk_h^T and W_OV = Wv_h Wo_h of every head.',
    'QK, OV = {}, {}',
    'for l in range(LAYERS):',
    '    for h in range(HEADS):',
    '        c = slice(h * dh, (h + 1) * dh)',
    '        QK[l, h] = p[f"layers.{l}.wq"][:, c] @ p[f"layers.{l}.wk"][:, c].T',
    '        OV[l, h] = p[f"layers.{l}.wv"][:, c] @ p[f"layers.{l}.wo"][c]',
    '',
    'def copying(ov):  # sum(eig) / sum(|eig|) of E W_OV U, from the d x d W_OV U E (same non-zero eigenvalues)',
    '    lam = np.linalg.eigvals(ov @ U @ E)',
    '    total = np.abs(lam).sum()',
    '    return lam.real.sum() / total if total > 0 else 0.0',
    '',
    'def previous(qk):  # share of positions i >= 1 whose best positional match j <= i is i - 1 (ties lose)',
    '    wins = 0',
    '    for i in range(1, N):',
    '        s = P[i] @ qk @ P[:i + 1].T',
    '        wins += bool(s[i - 1] > np.delete(s, i - 1).max())',
    '    return wins / (N - 1)',
    '',
    'for name, f in (("copying score", copying), ("previous-position score", previous)):',
    '    print(name + ": " + "; ".join(f"layer {l + 1} " + " ".join(f"{f(QK[l, h] if f is previous else OV[l, h]):.2f}" for h in range(HEADS)) for l in range(LAYERS)))',
    'fro = np.linalg.norm',
    'for l in range(1, LAYERS):',
    '    for m in range(l):',
    '        print(f"K-composition of layer {l + 1} (rows) with layer {m + 1} (columns):")',
    '        for h in range(HEADS):',
    '            row = [fro(QK[l, h] @ OV[m, g].T) / (fro(QK[l, h]) * fro(OV[m, g])) for g in range(HEADS)]',
    '            print(f"  layer {l + 1} head {h}: " + " ".join(f"{x:.3f}" for x in row))',
    '',
    '# What a head writes when it attends to the chosen word: E[word] W_OV U, the largest first.',
    'raised = E[ids[POSITION]] @ OV[HEAD] @ U',
    `top = np.argsort(-raised, kind="stable")[:${s.k}]`,
    'print(f"layer {HEAD[0] + 1} head {HEAD[1]} looking at \\"{vocab[ids[POSITION]]}\\" raises: " + ", ".join(f"{vocab[t]} {raised[t]:+.2f}" for t in top))',
  ].join('\n');
}

/** @param {number} x @param {number} digits  Python's f"{x:+.Nf}" */
function pySigned(x, digits) {
  const t = pyFixed(x, digits);
  return t.startsWith('-') ? t : `+${t}`;
}

/**
 * What circuitsCode prints, from the page's results (textModel.attribute, circuits, promoted).
 * @param {{attribution: any, circuits: any, promoted: any, words: string[], position: number, head: [number, number]}} r
 * @returns {string}
 */
export function circuitsOutput(r) {
  const a = r.attribution;
  const c = r.circuits;
  const out = [`logit of "${a.word}" after word ${r.position} "${r.words[r.position]}": ${pyFixed(a.logit, 3)}, probability ${pyFixed(a.probability, 3)}`];
  out.push(`  direct path ${pySigned(a.direct, 3)}`);
  let sum = a.direct;
  a.heads.forEach((/** @type {number[]} */ row, /** @type {number} */ l) => row.forEach((x, h) => {
    out.push(`  layer ${l + 1} head ${h} ${pySigned(x, 3)}`);
  }));
  // Python adds direct + sum(terms), the terms in order from 0.
  let terms = 0;
  for (const row of a.heads) for (const x of row) terms += x;
  sum = a.direct + terms;
  out.push(`  sum of the paths ${pyFixed(sum, 3)}`);
  const layers = c.copying.length;
  out.push(`copying score: ${c.copying.map((/** @type {number[]} */ row, /** @type {number} */ l) => `layer ${l + 1} ${row.map((x) => pyFixed(Number(x), 2)).join(' ')}`).join('; ')}`);
  out.push(`previous-position score: ${c.previousPosition.map((/** @type {number[]} */ row, /** @type {number} */ l) => `layer ${l + 1} ${row.map((x) => pyFixed(x, 2)).join(' ')}`).join('; ')}`);
  for (let l = 1; l < layers; l += 1) {
    for (let m = 0; m < l; m += 1) {
      out.push(`K-composition of layer ${l + 1} (rows) with layer ${m + 1} (columns):`);
      c.composition.k[l].forEach((/** @type {number[][]} */ row, /** @type {number} */ h) => {
        out.push(`  layer ${l + 1} head ${h}: ${row[m].map((x) => pyFixed(x, 3)).join(' ')}`);
      });
    }
  }
  out.push(`layer ${r.head[0] + 1} head ${r.head[1]} looking at "${r.promoted.word}" raises: ${r.promoted.promoted.map((/** @type {any} */ t) => `${t.word} ${pySigned(t.value, 2)}`).join(', ')}`);
  return out.join('\n');
}
