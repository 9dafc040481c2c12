// The H5P package, made by web/build.mjs from what it has built into dist/:
//   dist/headwise.h5p
// A .h5p is a zip: h5p.json (the content's metadata), content/content.json (its parameters) and a
// folder per library. Platforms take only some file types (scripts and styles only inside a
// library; no .wasm, no .html), so the package holds one library of Headwise's own, H5P.Headwise:
//   library.json     its name, version, and the one script H5P loads (h5p-headwise.js)
//   semantics.json   the parameters an instructor sets in the H5P editor: which widget (or the
//                    whole lesson), its settings, which controls are shown and locked, the
//                    downloads, the theme, the language and the quiz's mastery score
//   h5p-headwise.js  the content type (web/h5p/h5p-headwise.js, bundled here)
//   headwise-elements.js/.css, headwise-lesson.js (the WebAssembly inlined in it), headwise.js,
//   train.js, models/sotu.hwtm.js, i18n/<tag>.js   the web components and what they load beside themselves
// The content is the whole lesson with the default mastery score (HEADWISE_MASTERY_SCORE, as for
// the SCORM packages); the instructor changes both in the platform's H5P editor.

import { build } from 'esbuild';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { CONTROLS } from './src/embed/attributes.js';
import { SETTING, rangeOf } from './src/shared/state/settings.js';
import { zip } from './build-scorm.mjs';

export const LIBRARY = { machineName: 'H5P.Headwise', majorVersion: 1, minorVersion: 0, patchVersion: 0 };
/** The library's folder in the package (and on the platform). */
export const LIBRARY_FOLDER = `${LIBRARY.machineName}-${LIBRARY.majorVersion}.${LIBRARY.minorVersion}`;
const TITLE = 'Headwise · Module 08: Multi-head attention';

/** The files the elements load beside themselves, besides the languages. */
const ELEMENT_FILES = ['headwise-elements.js', 'headwise-elements.css', 'headwise-lesson.js', 'headwise.js', 'train.js', 'models/sotu.hwtm.js'];

/**
 * widget= values and their elements, read from embed.html's script (src/embed/embed-page.js), so
 * that the package offers exactly the iframe's widgets.
 * @param {string} web
 * @returns {Promise<Record<string, string>>}
 */
export async function widgets(web) {
  const text = await readFile(join(web, 'src', 'embed', 'embed-page.js'), 'utf8');
  const body = /export const WIDGETS = [^\n]*\(\{\n([^}]*)\}\);/.exec(text)?.[1];
  const pairs = body ? [...body.matchAll(/^\s*'?([\w-]+)'?: '(mha-[\w-]+)',?$/gm)].map((m) => [m[1], m[2]]) : [];
  if (!pairs.length) throw new Error('build-h5p: src/embed/embed-page.js has no WIDGETS table (widget → element) to read');
  return Object.fromEntries(pairs);
}

/** What the H5P editor calls each widget and setting. */
const WIDGET_LABELS = {
  lesson: 'The whole lesson (graded: its quiz)', quiz: 'Quiz (graded)', heads: 'Attention weights of every head', params: 'Parameters of nn.MultiheadAttention',
  circuits: 'Each head\'s circuits: W_QK, W_OV and their rank',
  ex1: 'Exercise 1: your own seed', ex2: 'Exercise 2: equal parameter counts', ex3: 'Exercise 3: PyTorch\'s layout', python: 'NumPy and PyTorch code',
  train: 'Watch heads specialise (training)', 'heads-needed': 'How many heads does it take?',
  sentence: 'Your own sentence: the heads of a small language model',
  induction: 'Heads that work together (training)',
};
/** What the H5P editor calls each setting; a number's range is the settings table's. */
const SETTING_FIELDS = {
  seed: { label: 'Seed' },
  tokens: { label: 'Tokens' },
  dModel: { label: 'd_model' },
  heads: { label: 'Heads (a divisor of d_model)' },
  bias: { label: 'Bias' },
  causal: { label: 'Causal mask' },
  query: { label: 'Query token (its row is highlighted)' },
  labels: { label: 'Token labels, separated by commas' },
  ex1Seed: { label: 'Exercise 1: seed' },
  ex2DModel: { label: 'Exercise 2: d_model' },
  ex2Heads: { label: 'Exercise 2: heads to try' },
  trainTask: { label: 'Training: task', options: ['previous-and-first', 'previous-and-two-back'] },
  trainSeed: { label: 'Training: seed' },
  headsRelations: { label: '"How many heads": relations, separated by commas' },
  headsSeed: { label: '"How many heads": seed' },
  inductionSeed: { label: '"Heads that work together": seed' },
};

/**
 * The module's limits (hw.limits), read from the built dist/headwise.js.
 * @param {string} dist
 * @returns {Promise<Record<string, number>>}
 */
export async function moduleLimits(dist) {
  const createHeadwise = createRequire(import.meta.url)(join(dist, 'headwise.js'));
  return (await createHeadwise()).limits;
}

/**
 * semantics.json: the content's parameters as the H5P editor shows them.
 * @param {Record<string, string>} widgetTable
 * @param {number} mastery
 * @param {Record<string, number>} limits  the module's (moduleLimits): the numbers' maxima
 */
export function semantics(widgetTable, mastery, limits) {
  const missing = Object.keys(CONTROLS).filter((n) => !(n in SETTING_FIELDS));
  if (missing.length) throw new Error(`build-h5p: no H5P editor field for the setting(s) ${missing.join(', ')} (add them to SETTING_FIELDS)`);
  const settingField = (/** @type {string} */ name) => {
    const f = /** @type {any} */ (SETTING_FIELDS)[name];
    const kind = CONTROLS[name].kind;
    if (kind === 'boolean') return { name, type: 'boolean', label: f.label, optional: true, default: false };
    if (f.options) return { name, type: 'select', label: f.label, optional: true, options: f.options.map((/** @type {string} */ o) => ({ value: o, label: o })) };
    if (kind === 'index') return { name, type: 'number', label: f.label, optional: true, min: 0, max: limits.maxTokens - 1 };
    if (kind === 'number') {
      const r = /** @type {{min: number, max: number}} */ (rangeOf(SETTING[CONTROLS[name].field], limits));
      return { name, type: 'number', label: f.label, optional: true, min: r.min, max: r.max };
    }
    return { name, type: 'text', label: f.label, optional: true, maxLength: 4096 };
  };
  const list = (/** @type {string} */ name, /** @type {string} */ label, /** @type {string} */ description) => ({ name, type: 'text', label, description, optional: true, maxLength: 1000 });
  return [
    {
      name: 'widget', type: 'select', label: 'What the student sees', default: 'lesson',
      options: Object.keys(widgetTable).map((w) => ({ value: w, label: /** @type {any} */ (WIDGET_LABELS)[w] || w })),
    },
    {
      name: 'settings', type: 'group', label: 'Starting settings (empty: the lesson\'s)', importance: 'low', expanded: false,
      fields: Object.keys(CONTROLS).map(settingField),
    },
    list('controls', 'Controls shown', `none, all, or control names separated by commas (${Object.keys(CONTROLS).join(', ')}); empty: the widget's own`),
    list('locked', 'Controls locked (shown, greyed out, cannot be changed)', 'all, or control names separated by commas'),
    list('exports', 'Downloads offered', 'none, all, or csv, json, png, py; empty: all'),
    { name: 'theme', type: 'select', label: 'Colours', default: 'light', options: [{ value: 'light', label: 'Light' }, { value: 'dark', label: 'Dark' }, { value: 'auto', label: 'The student\'s system setting' }] },
    { name: 'lang', type: 'text', label: 'Language (a tag such as es or zh-CN; empty: the page\'s or the browser\'s)', optional: true, maxLength: 35, regexp: { pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', modifiers: '' } },
    {
      name: 'masteryScore', type: 'number', label: 'Mastery score (%): the share of the quiz\'s first answers that must be right to pass', default: mastery, min: 0, max: 100, decimals: 2,
    },
  ];
}

/**
 * library.json of H5P.Headwise.
 */
export function libraryJson() {
  return {
    title: 'Headwise (multi-head attention)',
    description: 'Multi-head attention, taught and verified live: a C++ core compiled to WebAssembly, checked against NumPy and PyTorch.',
    ...LIBRARY,
    runnable: 1,
    author: 'Headwise',
    license: 'MIT',
    embedTypes: ['iframe'],
    fullscreen: 0,
    coreApi: { majorVersion: 1, minorVersion: 24 },
    preloadedJs: [{ path: 'h5p-headwise.js' }],
    metadataSettings: { disable: 0, disableExtraTitleField: 0 },
  };
}

/**
 * h5p.json: the content's metadata.
 */
export function h5pJson() {
  return {
    title: TITLE,
    language: 'und',
    mainLibrary: LIBRARY.machineName,
    embedTypes: ['iframe'],
    license: 'U',
    preloadedDependencies: [{ machineName: LIBRARY.machineName, majorVersion: LIBRARY.majorVersion, minorVersion: LIBRARY.minorVersion }],
  };
}

/**
 * Write dist/headwise.h5p.
 * @param {{web: string, dist: string, root: string, mastery: number, when?: Date}} o
 * @returns {Promise<string>} the file written (its name in dist/)
 */
export async function buildH5p({ web, dist, root, mastery, when }) {
  const table = await widgets(web);
  const settings = Object.fromEntries(Object.entries(CONTROLS).map(([name, d]) => [name, { field: d.field, attr: d.attr, kind: d.kind }]));
  const runtime = await build({
    entryPoints: [join(web, 'h5p', 'h5p-headwise.js')],
    bundle: true, format: 'iife', target: ['es2020'], minify: true, legalComments: 'none', write: false, logLevel: 'warning',
    define: {
      __HEADWISE_WIDGETS__: JSON.stringify(table),
      __HEADWISE_SETTINGS__: JSON.stringify(settings),
      __HEADWISE_LIBRARY__: JSON.stringify(LIBRARY_FOLDER),
      __HEADWISE_MASTERY__: JSON.stringify(mastery),
    },
  });
  const languages = (await readdir(join(dist, 'i18n')).catch(() => [])).filter((f) => f.endsWith('.js')).sort().map((f) => `i18n/${f}`);
  const json = (/** @type {any} */ o) => Buffer.from(`${JSON.stringify(o, null, 2)}\n`, 'utf8');
  const lib = (/** @type {string} */ f) => `${LIBRARY_FOLDER}/${f}`;
  const entries = [
    { name: 'h5p.json', data: json(h5pJson()) },
    { name: 'content/content.json', data: json({ widget: 'lesson', settings: {}, theme: 'light', masteryScore: mastery }) },
    { name: lib('library.json'), data: json(libraryJson()) },
    { name: lib('semantics.json'), data: json(semantics(table, mastery, await moduleLimits(dist))) },
    { name: lib('h5p-headwise.js'), data: Buffer.from(runtime.outputFiles[0].text, 'utf8') },
    { name: lib('LICENSE.txt'), data: await readFile(join(root, 'LICENSE')) },
  ];
  for (const f of [...ELEMENT_FILES, ...languages]) entries.push({ name: lib(f), data: await readFile(join(dist, f)) });
  await writeFile(join(dist, 'headwise.h5p'), zip(entries, when));
  return 'headwise.h5p';
}
