// The languages, at build time (used by build.mjs and build-embed.mjs):
//   readCatalogues(web)            every web/i18n/*.json, checked: JSON, _meta, values that are
//                                  strings or plural objects, markup only from the list in
//                                  src/shared/markup.js; any problem stops the build, named
//   cataloguesPlugin(catalogues)   an esbuild plugin that puts every catalogue into a bundle in
//                                  place of src/shared/catalogues.js, as JSON text (parsed by the
//                                  page only for the languages it shows); `keep` limits the keys
//   fillTemplate(html, en)         web/index.html with the English text written into every
//                                  element that names a key (data-i18n, data-i18n-attr), so that
//                                  dist/index.html reads in full before any script runs

import { readFileSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { MarkupError, escapeHtml, parseMarkup, plainText, toHtml } from './src/shared/markup.js';

const PLURAL_FORMS = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);

/**
 * @typedef {Record<string, string|Record<string, string>>} Catalogue
 * @typedef {{tag: string, file: string, data: Catalogue}} Language
 */

/**
 * The problems of one catalogue (an empty list when there are none).
 * @param {any} data
 * @returns {string[]}
 */
export function catalogueProblems(data) {
  const problems = [];
  if (!data || typeof data !== 'object' || Array.isArray(data)) return ['is not a JSON object of keys and values'];
  const meta = data._meta;
  if (!meta || typeof meta.name !== 'string' || typeof meta.nativeName !== 'string' || !meta.name || !meta.nativeName) {
    problems.push('_meta must be {"name": "<the language in English>", "nativeName": "<the language in itself>"}');
  }
  for (const [key, value] of Object.entries(data)) {
    if (key === '_meta') continue;
    if (!/^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9][A-Za-z0-9-]*)+$/.test(key)) problems.push(`"${key}": a key is words joined by dots, such as "quiz.q1.prompt"`);
    /** @type {[string, unknown][]} */
    let forms;
    if (typeof value === 'string') {
      forms = [['', value]];
    } else if (value && typeof value === 'object' && !Array.isArray(value)) {
      forms = Object.entries(value);
      const bad = forms.map(([k]) => k).filter((k) => !PLURAL_FORMS.has(k));
      if (bad.length) problems.push(`"${key}": a plural object's forms are zero, one, two, few, many and other, not ${bad.join(', ')}`);
      if (!('other' in value)) problems.push(`"${key}": a plural object needs the form "other"`);
    } else {
      problems.push(`"${key}": a value is a string or a plural object such as {"one": "…", "other": "…"}`);
      continue;
    }
    for (const [f, text] of forms) {
      if (typeof text !== 'string') {
        problems.push(`"${key}"${f ? `.${f}` : ''}: must be a string`);
        continue;
      }
      try {
        parseMarkup(text);
      } catch (e) {
        if (!(e instanceof MarkupError)) throw e;
        problems.push(`"${key}"${f ? ` (${f})` : ''}: ${e.message}`);
      }
    }
  }
  return problems;
}

/**
 * Every catalogue in web/i18n/, English first. Throws with every problem found, by file.
 * @param {string} web  the web/ folder
 * @returns {Language[]}
 */
export function readCatalogues(web) {
  const dir = join(web, 'i18n');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const out = [];
  const problems = [];
  for (const file of files) {
    const tag = file.slice(0, -'.json'.length);
    const where = `web${sep}i18n${sep}${file}`;
    if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) {
      problems.push(`${where}: the file's name must be a language tag (BCP 47), such as es.json or zh-CN.json`);
      continue;
    }
    let data;
    try {
      data = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (e) {
      problems.push(`${where}: not valid JSON (${/** @type {Error} */ (e).message})`);
      continue;
    }
    for (const p of catalogueProblems(data)) problems.push(`${where}: ${p}`);
    out.push({ tag, file: where, data });
  }
  if (!out.some((l) => l.tag === 'en')) problems.push(`web${sep}i18n${sep}en.json is missing: it is the source of every string`);
  if (problems.length) throw new Error(`the catalogues have problems:\n  ${problems.join('\n  ')}`);
  return out.sort((a, b) => (a.tag === 'en' ? -1 : b.tag === 'en' ? 1 : a.tag.localeCompare(b.tag)));
}

/**
 * The esbuild plugin that replaces src/shared/catalogues.js with the catalogues themselves.
 * @param {Language[]} catalogues
 * @param {{keep?: (key: string) => boolean}} [options]  keep: the keys a bundle needs (all by default)
 * @returns {import('esbuild').Plugin}
 */
export function cataloguesPlugin(catalogues, { keep = () => true } = {}) {
  return {
    name: 'headwise-catalogues',
    setup(b) {
      b.onResolve({ filter: /(^|\/)catalogues\.js$/ }, (args) => {
        const path = join(args.resolveDir, args.path);
        if (!path.endsWith(`${sep}src${sep}shared${sep}catalogues.js`)) return undefined;
        return { path: 'catalogues', namespace: 'headwise-catalogues' };
      });
      b.onLoad({ filter: /.*/, namespace: 'headwise-catalogues' }, () => {
        /** @type {Record<string, string>} */
        const texts = {};
        /** @type {Record<string, any>} */
        const meta = {};
        for (const { tag, data } of catalogues) {
          const kept = Object.fromEntries(Object.entries(data).filter(([k]) => k === '_meta' || keep(k)));
          // JSON text, parsed when the language is first shown: JSON.parse of a string is faster
          // than evaluating the same object as a literal, and the languages not shown cost nothing.
          texts[tag] = JSON.stringify(kept);
          meta[tag] = data._meta;
        }
        return {
          contents: `export const CATALOGUES = ${JSON.stringify(texts)};\nexport const META = ${JSON.stringify(meta)};\n`,
          loader: 'js',
        };
      });
    },
  };
}

/**
 * One start tag's attributes, in order.
 * @param {string} text  what lies between the tag name and its ">"
 * @returns {[string, string|null][]}
 */
function attributesOf(text) {
  return [...text.matchAll(/([^\s"'=<>/]+)(?:\s*=\s*"([^"]*)")?/g)].map((m) => [m[1], m[2] ?? null]);
}

/**
 * web/index.html with the English written in: every `<tag … data-i18n="key"></tag>` (which must
 * be empty in the template) gets the value of `key`, and every `data-i18n-attr="name:key;…"`
 * its attributes. Throws for an unknown key or an element that is not empty.
 * @param {string} html
 * @param {Catalogue} en
 */
export function fillTemplate(html, en) {
  const value = (/** @type {string} */ key) => {
    const v = en[key];
    if (typeof v !== 'string') throw new Error(`web/index.html names the key "${key}", which web/i18n/en.json ${v === undefined ? 'does not have' : 'holds as a plural object'}`);
    return parseMarkup(v);
  };
  const withAttrs = html.replace(/<([a-z][a-z0-9-]*)(\s(?:[^>]*?\s)?data-i18n-attr="([^"]*)"[^>]*)>/g, (whole, tag, rest, spec) => {
    const attrs = attributesOf(rest);
    for (const pair of spec.split(';')) {
      const [name, key] = pair.split(':').map((s) => s.trim());
      const text = escapeHtml(plainText(value(key), {}), true);
      const at = attrs.findIndex(([n]) => n === name);
      if (at >= 0) attrs[at] = [name, text];
      else attrs.push([name, text]);
    }
    return `<${tag}${attrs.map(([n, v]) => (v === null ? ` ${n}` : ` ${n}="${v}"`)).join('')}>`;
  });
  const filled = withAttrs.replace(/<([a-z][a-z0-9-]*)(\s(?:[^>]*?\s)?data-i18n="([^"]*)"[^>]*)>([\s\S]*?)<\/\1>/g, (whole, tag, rest, key, inner) => {
    if (inner !== '') throw new Error(`web/index.html: <${tag} data-i18n="${key}"> must be empty (its text comes from web/i18n/en.json)`);
    return `<${tag}${rest}>${toHtml(value(key), {})}</${tag}>`;
  });
  return filled;
}
