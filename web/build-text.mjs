// The text model's side of dist/ (called by build.mjs):
//   dist/models/sotu.hwtm     the weights file as committed (web/models/sotu.hwtm), for Node and
//                             servers (the format: cpp/headwise/text_model.hpp)
//   dist/models/sotu.hwtm.js  the same bytes as a classic script that the page loads on demand
//                             (file:// and strict CSPs allow a <script> but no fetch of a file):
//                             it puts them, in base64, under globalThis[Symbol.for('headwise.models')]
//                             ['sotu.hwtm'] (read by web/src/text/model.js)

import { access, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The text models the build ships, by file name under web/models/. */
export const TEXT_MODELS = ['sotu.hwtm'];
/** The global (a Symbol.for key) under which a model's script registers its bytes. */
export const MODELS_KEY = 'headwise.models';

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
