// Every language's catalogue, as the JSON text of its web/i18n/<tag>.json (parsed on first use,
// by src/shared/i18n.js), and each one's _meta (its names, for the language switcher).
//
// In the page's bundles this module is never read: web/build-i18n.mjs puts a module of the same
// exports in its place, made from the files web/i18n/ holds when the page is built. Here it
// reads them itself, for the node tests that import web/src directly.

import { readFileSync, readdirSync } from 'node:fs';

const dir = new URL('../../i18n/', import.meta.url);

/** @type {Record<string, string>} */
export const CATALOGUES = {};
/** @type {Record<string, {name: string, nativeName: string}>} */
export const META = {};
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const tag = file.slice(0, -'.json'.length);
  CATALOGUES[tag] = readFileSync(new URL(file, dir), 'utf8');
  META[tag] = JSON.parse(CATALOGUES[tag])._meta;
}
