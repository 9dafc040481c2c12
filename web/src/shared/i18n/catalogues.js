// English's catalogue, as the JSON text of web/i18n/en.json (parsed on first use by
// src/shared/i18n/i18n.js), and every language's _meta (its names, for the language switcher and for
// matching a requested language).
//
// In the page's bundles this module is never read: web/build-i18n.mjs puts a module of the same
// exports in its place, made from web/i18n/ when the page is built, and the other languages are
// files of their own (dist/i18n/<tag>.js) that the page loads when it shows them. Here, for the
// node tests that import web/src directly, it reads web/i18n/ itself and registers every other
// language as its file would, so that every language is there from the start.

import { readFileSync, readdirSync } from 'node:fs';

const dir = new URL('../../../i18n/', import.meta.url);

/** @type {string} */
export let ENGLISH = '';
/** @type {Record<string, {name: string, nativeName: string}>} */
export const META = {};
/** @type {any} */
const g = globalThis;
const registry = g[Symbol.for('headwise.catalogues')] || (g[Symbol.for('headwise.catalogues')] = {});
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const tag = file.slice(0, -'.json'.length);
  const text = readFileSync(new URL(file, dir), 'utf8');
  META[tag] = JSON.parse(text)._meta;
  if (tag === 'en') ENGLISH = text;
  else registry[tag] = text;
}
