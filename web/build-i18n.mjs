// The languages, at build time (used by build.mjs and build-embed.mjs):
//   readCatalogues(web)            every web/i18n/*.json, checked: JSON, _meta, values that are
//                                  strings or plural objects, markup only from the list in
//                                  src/shared/i18n/markup.js; any problem stops the build, named
//   cataloguesPlugin(catalogues)   an esbuild plugin that puts English (the source, and every
//                                  other language's fallback) into a bundle in place of
//                                  src/shared/i18n/catalogues.js, as JSON text, with every language's
//                                  tag and names (_meta); `keep` limits English's keys
//   languageFile(language)         dist/i18n/<tag>.js: one other language, a classic script that
//                                  registers its catalogue's JSON text under
//                                  Symbol.for('headwise.catalogues'), loaded by the page when it
//                                  shows that language (src/shared/i18n/i18n.js ensureLanguage)
//   writeLanguageFiles(dist, …)    every language but English into dist/i18n/, stale files removed
//   fillTemplate(html, en)         web/index.html with the English text written into every
//                                  element that names a key (data-i18n, data-i18n-attr), so that
//                                  dist/index.html reads in full before any script runs

import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { MarkupError, escapeHtml, isLanguageTag, parseMarkup, plainText, toHtml } from './src/shared/i18n/markup.js';

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
    if (!isLanguageTag(tag)) {
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
 * The esbuild plugin that replaces src/shared/i18n/catalogues.js with English's catalogue and every
 * language's names. The other languages are files of their own (languageFile), loaded by the page
 * only when it shows them: a bundle carries nothing a reader of English never reads.
 * @param {Language[]} catalogues  English first (readCatalogues)
 * @param {{keep?: (key: string) => boolean}} [options]  keep: English's keys a bundle needs (all by default)
 * @returns {import('esbuild').Plugin}
 */
export function cataloguesPlugin(catalogues, { keep = () => true } = {}) {
  const en = catalogues.find((c) => c.tag === 'en');
  if (!en) throw new Error('cataloguesPlugin: web/i18n/en.json is missing');
  return {
    name: 'headwise-catalogues',
    setup(b) {
      b.onResolve({ filter: /(^|\/)catalogues\.js$/ }, (args) => {
        const path = join(args.resolveDir, args.path);
        if (!path.endsWith(`${sep}src${sep}shared${sep}i18n${sep}catalogues.js`)) return undefined;
        return { path: 'catalogues', namespace: 'headwise-catalogues' };
      });
      b.onLoad({ filter: /.*/, namespace: 'headwise-catalogues' }, () => {
        const kept = Object.fromEntries(Object.entries(en.data).filter(([k]) => k === '_meta' || keep(k)));
        /** @type {Record<string, any>} */
        const meta = {};
        for (const { tag, data } of catalogues) meta[tag] = data._meta;
        // JSON text, parsed when first used: JSON.parse of a string is faster than evaluating the
        // same object as a literal.
        return {
          contents: `export const ENGLISH = ${JSON.stringify(JSON.stringify(kept))};\nexport const META = ${JSON.stringify(meta)};\n`,
          loader: 'js',
        };
      });
    },
  };
}

/** The global under which language files register their catalogues (src/shared/i18n/i18n.js reads it). */
const REGISTRY = 'headwise.catalogues';

/**
 * dist/i18n/<tag>.js: a classic script (so it loads from file:// and under a CSP that allows the
 * page's own scripts) that puts the catalogue's JSON text into the registry, whether the page's
 * bundle has run yet or not; the page parses it when it first shows the language. ASCII only
 * (every other character escaped): a course page in another encoding than UTF-8 reads it the same.
 * @param {Language} language
 */
function languageFile({ tag, data }) {
  const literal = JSON.stringify(JSON.stringify(data)).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `(function(g,k){(g[k]=g[k]||{})[${JSON.stringify(tag)}]=${literal}})(globalThis,Symbol.for(${JSON.stringify(REGISTRY)}));\n`;
}

/**
 * Write every language but English into dist/i18n/<tag>.js, and remove the files of languages
 * that web/i18n/ no longer has.
 * @param {string} dist
 * @param {Language[]} catalogues
 * @returns {string[]} the files written, relative to dist/
 */
export function writeLanguageFiles(dist, catalogues) {
  const dir = join(dist, 'i18n');
  mkdirSync(dir, { recursive: true });
  const files = catalogues.filter((c) => c.tag !== 'en').map((c) => [`${c.tag}.js`, languageFile(c)]);
  const keep = new Set(files.map(([f]) => f));
  for (const f of readdirSync(dir)) if (!keep.has(f)) rmSync(join(dir, f), { recursive: true, force: true });
  for (const [f, text] of files) writeFileSync(join(dir, f), text);
  return files.map(([f]) => `i18n/${f}`);
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
