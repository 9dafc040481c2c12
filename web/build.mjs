// Builds the static site into dist/: bundles web/src/lesson/main.js into dist/app.js (an IIFE, so it
// runs from file:// as a classic script) and copies index.html, styles.css and favicon.svg.
// dist/headwise.js (the WASM module, built by `npm run build:wasm`) is left untouched.

import { build, transform } from 'esbuild';
import { copyFile, mkdir, access, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEmbed } from './build-embed.mjs';

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const dist = join(root, 'dist');

await mkdir(dist, { recursive: true });

await build({
  entryPoints: [join(web, 'src', 'lesson', 'main.js')],
  outfile: join(dist, 'app.js'),
  bundle: true,
  format: 'iife',
  target: ['es2020'],
  sourcemap: false,
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});

for (const file of ['index.html', 'favicon.svg']) {
  await copyFile(join(web, file), join(dist, file));
}
// The stylesheet, minified: every byte counts for pages embedded in course sites.
const css = await transform(await readFile(join(web, 'styles.css'), 'utf8'),
  { loader: 'css', minify: true, target: ['chrome91', 'firefox113', 'safari16'] });
await writeFile(join(dist, 'styles.css'), css.code);

// Embedding: the <mha-*> elements, the iframe embed, its host helper and the gallery.
const embedFiles = await buildEmbed({ web, dist });

try {
  await access(join(dist, 'headwise.js'));
} catch {
  console.warn('warning: dist/headwise.js is missing; run `npm run build:wasm` to build the module.');
}
console.log('built dist/index.html, dist/styles.css, dist/favicon.svg, dist/app.js');
console.log(`built ${embedFiles.map((f) => `dist/${f}`).join(', ')}`);
