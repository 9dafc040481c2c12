// The catalogues (web/i18n/*.json) and the runtime that reads them (web/src/shared/i18n/i18n.js,
// markup.js), without a browser:
// - every language has every key of en.json and no other, with the same placeholders, the plural
//   forms its own plural rules need, the same numbers, code and links as English, markup only from
//   the list, a _meta, and (besides English) a glossary;
// - every key the code or the page's templates name is in en.json, and every key of en.json is
//   named somewhere (a translator never translates a sentence nobody shows);
// - the markup tokenizer refuses what is not on its list; t and tNodes fill placeholders as text;
// - a language is resolved as the page resolves it (own lang, ancestors across shadow roots, the
//   page's choice, navigator.languages, English with one warning), and matched to a catalogue.
// A language listed in tests/js/i18n-pending.json is being translated: its completeness check runs
// as a TODO, listing what is missing, and fails once the language is complete and still listed.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import vm from 'node:vm';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT, createHeadwise } from './helpers.mjs';
import { readCatalogues, catalogueProblems, fillTemplate } from '../../web/build-i18n.mjs';
import { MarkupError, invariants, parseMarkup, placeholders } from '../../web/src/shared/i18n/markup.js';
import * as i18n from '../../web/src/shared/i18n/i18n.js';
import * as languageTags from '../../web/src/shared/i18n/language-tags.js';
import { META } from '../../web/src/shared/i18n/catalogues.js';

const WEB = join(ROOT, 'web');
const catalogues = readCatalogues(WEB);
const EN = catalogues[0].data;
const PENDING = JSON.parse(readFileSync(join(ROOT, 'tests', 'js', 'i18n-pending.json'), 'utf8'));
const keysOf = (data) => Object.keys(data).filter((k) => k !== '_meta');

/** A value's forms: [['', text]] for a string, [[category, text], …] for a plural object. */
const formsOf = (value) => (typeof value === 'string' ? [['', value]] : Object.entries(value));

test('every catalogue reads (JSON, _meta, values, markup) and English comes first', () => {
  assert.equal(catalogues[0].tag, 'en');
  assert.ok(catalogues.length >= 3, `en, es and zh-CN at least: ${catalogues.map((c) => c.tag).join(', ')}`);
  for (const { tag, data } of catalogues) {
    assert.equal(typeof data._meta.nativeName, 'string', tag);
    assert.ok(keysOf(data).length > 0, tag);
  }
  assert.ok(keysOf(EN).length > 400, `en.json has ${keysOf(EN).length} keys`);
});

test('a broken catalogue is refused with a reason, key by key', () => {
  assert.deepEqual(catalogueProblems({ 'a.b': 'x' }), ['_meta must be {"name": "<the language in English>", "nativeName": "<the language in itself>"}']);
  const meta = { name: 'X', nativeName: 'X' };
  assert.match(catalogueProblems({ _meta: meta, 'a.b': '<script>x</script>' })[0], /^"a\.b": <script> is not an element/);
  assert.match(catalogueProblems({ _meta: meta, 'a.b': { one: 'x' } })[0], /needs the form "other"/);
  assert.match(catalogueProblems({ _meta: meta, 'a.b': { other: 'x', lots: 'y' } })[0], /not lots/);
  assert.match(catalogueProblems({ _meta: meta, 'a.b': 3 })[0], /a value is a string or a plural object/);
  assert.match(catalogueProblems({ _meta: meta, Bad: 'x' })[0], /a key is words joined by dots/);
  assert.deepEqual(catalogueProblems({ _meta: meta, 'a.b': 'fine <em>x</em> {n}' }), []);
});

for (const { tag, data } of catalogues.slice(1)) {
  const missing = keysOf(EN).filter((k) => !(k in data));
  const pending = PENDING[tag];
  test(`${tag}: every key of en.json is translated`, pending ? { todo: `${tag} is being translated (tests/js/i18n-pending.json): ${missing.length} of ${keysOf(EN).length} keys missing` } : {}, () => {
    assert.deepEqual(missing, [], `${tag}.json lacks ${missing.length} keys`);
  });
  if (pending) {
    test(`${tag}: listed as being translated, and so not complete yet`, () => {
      assert.ok(missing.length > 0, `${tag}.json is complete: remove "${tag}" from tests/js/i18n-pending.json`);
    });
  }

  test(`${tag}: no key that English does not have`, () => {
    assert.deepEqual(keysOf(data).filter((k) => !(k in EN)), []);
  });

  test(`${tag}: each translated value has English's placeholders, plural forms, numbers, code and links`, () => {
    const categories = new Intl.PluralRules(tag).resolvedOptions().pluralCategories;
    const problems = [];
    for (const key of keysOf(data).filter((k) => k in EN)) {
      const en = EN[key];
      const value = data[key];
      const enForms = formsOf(en);
      const forms = formsOf(value);
      if (typeof en === 'string' && typeof value !== 'string') problems.push(`${key}: English is one string, not plural forms`);
      if (typeof en !== 'string') {
        if (typeof value === 'string' && categories.join() !== 'other') problems.push(`${key}: ${tag} needs the plural forms ${categories.join(', ')}`);
        if (typeof value !== 'string') {
          const have = Object.keys(value);
          const lacking = categories.filter((c) => !have.includes(c));
          const extra = have.filter((c) => !categories.includes(c));
          if (lacking.length) problems.push(`${key}: lacks the plural forms ${lacking.join(', ')} (${tag} has ${categories.join(', ')})`);
          if (extra.length) problems.push(`${key}: ${extra.join(', ')} ${extra.length === 1 ? 'is not a plural form' : 'are not plural forms'} of ${tag} (${categories.join(', ')})`);
        }
      }
      const phs = (fs) => [...new Set(fs.flatMap(([, text]) => placeholders(parseMarkup(text))))].sort();
      if (phs(forms).join() !== phs(enForms).join()) problems.push(`${key}: placeholders {${phs(forms).join('}, {')}} where English has {${phs(enForms).join('}, {')}}`);
      for (const [form, text] of forms) {
        const mine = placeholders(parseMarkup(text));
        const extra = mine.filter((p) => !phs(enForms).includes(p));
        if (extra.length) problems.push(`${key}${form ? ` (${form})` : ''}: {${extra.join('}, {')}} is not a placeholder of English`);
      }
      // Numbers, code and links: what English has in its most general form ("other").
      const reference = invariants(parseMarkup(typeof en === 'string' ? en : en.other));
      const own = invariants(parseMarkup(typeof value === 'string' ? value : value.other ?? Object.values(value)[0]));
      for (const part of ['numbers', 'verbatim', 'elements']) {
        if (own[part].join('|') !== reference[part].join('|')) problems.push(`${key}: ${part} ${JSON.stringify(own[part])} where English has ${JSON.stringify(reference[part])}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test(`${tag}: a glossary, web/i18n/glossary/${tag}.md, with a table of terms`, () => {
    const file = join(WEB, 'i18n', 'glossary', `${tag}.md`);
    assert.ok(existsSync(file), `web/i18n/glossary/${tag}.md is missing`);
    const rows = readFileSync(file, 'utf8').split('\n').filter((l) => /^\|.*\|$/.test(l.trim()));
    assert.match(rows[0] || '', /^\|\s*English\s*\|/, 'its table starts with a header whose first column is English');
    assert.match(rows[1] || '', /^\|\s*-+/, 'the header is followed by its separator line');
    const terms = rows.slice(2).map((r) => r.split('|').map((c) => c.trim()));
    assert.ok(terms.length >= 10, `${terms.length} terms`);
    for (const t of terms) assert.ok(t[1] && t[2], `a term and its translation on every row: ${t.join(' | ')}`);
  });
}

test('every glossary belongs to a language with a catalogue', () => {
  const tags = catalogues.map((c) => c.tag);
  for (const f of readdirSync(join(WEB, 'i18n', 'glossary'))) assert.ok(tags.includes(f.replace(/\.md$/, '')), f);
});

// ---- the code and the catalogue ----------------------------------------------------------------

/** Every .js file under web/src. */
function sources() {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.js')) out.push(join(dir, e.name));
    }
  };
  walk(join(WEB, 'src'));
  return out;
}
const SOURCE_TEXT = sources().map((f) => readFileSync(f, 'utf8')).join('\n');
const TEMPLATES = ['index.html', 'embed.html'].map((f) => readFileSync(join(WEB, f), 'utf8')).join('\n');
const GROUPS = [...new Set(keysOf(EN).map((k) => k.split('.')[0]))];
const KEY_LIKE = new RegExp(`^(?:${GROUPS.join('|')})\\.[A-Za-z][\\w-]*(?:\\.[\\w-]+)*$`);
const FILE_NAME = /\.(js|css|html|json|png|svg|py|zip|md)$/;

test('every key the code or the templates name is in en.json', () => {
  const named = new Set();
  for (const m of SOURCE_TEXT.matchAll(/'([^'\n]+)'/g)) if (KEY_LIKE.test(m[1]) && !FILE_NAME.test(m[1])) named.add(m[1]);
  for (const m of TEMPLATES.matchAll(/data-i18n="([^"]+)"/g)) named.add(m[1]);
  for (const m of TEMPLATES.matchAll(/data-i18n-attr="([^"]+)"/g)) for (const pair of m[1].split(';')) named.add(pair.split(':')[1]);
  assert.ok(named.size > 300, `${named.size} keys named`);
  assert.deepEqual([...named].filter((k) => !(k in EN)), []);
});

test('every key of en.json is shown somewhere: named in the code or a template, or made from a name', () => {
  // Keys the code makes: `quiz.q${n}.prompt` becomes /^quiz\.q[^.]+\.prompt$/.
  // A key made in steps (`quiz.q${n}`, then `${q}.prompt`) is matched by its first step's prefix.
  const made = [...SOURCE_TEXT.matchAll(/`([a-zA-Z][a-zA-Z0-9]*(?:\.(?:[\w-]|\$\{[^}]+\})+)+)`/g)]
    .map((m) => m[1]).filter((s) => s.includes('${') && GROUPS.includes(s.split('.')[0]))
    .map((s) => new RegExp(`^${s.split(/\$\{[^}]+\}/).map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[\\w-]+')}(\\.[\\w.-]+)?$`));
  assert.ok(made.length >= 8, `${made.length} made keys`);
  const unused = keysOf(EN).filter((k) => !SOURCE_TEXT.includes(`'${k}'`) && !TEMPLATES.includes(`"${k}"`) && !TEMPLATES.includes(`:${k}"`) && !made.some((re) => re.test(k)));
  assert.deepEqual(unused, []);
});

test('the module\'s relations and tasks each have their words (title, phrase, description)', async () => {
  const hw = await createHeadwise();
  for (const r of hw.trainingRelations()) {
    for (const part of ['title', 'phrase', 'description']) assert.ok(`relation.${r.name}.${part}` in EN, `relation.${r.name}.${part}`);
    assert.equal(EN[`relation.${r.name}.title`], r.title, 'the module\'s English title');
    assert.equal(EN[`relation.${r.name}.description`], r.description);
  }
  for (const task of hw.trainingTasks()) assert.equal(EN[`task.${task.name}.title`], task.title, task.name);
});

test('the templates name only keys of en.json, and the build writes their English in', () => {
  const html = readFileSync(join(WEB, 'index.html'), 'utf8');
  const filled = fillTemplate(html, EN);
  assert.ok(filled.includes(`<h2 id="why-title" data-i18n="why.title">${EN['why.title']}</h2>`));
  assert.ok(filled.includes(`content="${EN['meta.description']}"`));
  assert.throws(() => fillTemplate('<p data-i18n="no.such"></p>', EN), /names the key "no\.such", which web\/i18n\/en\.json does not have/);
  assert.throws(() => fillTemplate('<p data-i18n="why.title">Why</p>', EN), /must be empty/);
  assert.doesNotMatch(filled, /data-i18n="[^"]+"><\//, 'no element left empty');
});

// ---- markup and text ----------------------------------------------------------------------------

test('the markup tokenizer takes its list and refuses everything else, naming it', () => {
  const ok = ['a <em>b</em> <strong>c</strong> <code>d</code> <var>i</var> <kbd>k</kbd> x<sub>1</sub> y<sup>2</sup><br>z',
    '<a href="#train">link</a>', '<hw-fact name="h0-t2"></hw-fact>', '<hw-version></hw-version>',
    '<span data-train-fact="acc-1">0.617</span>', '<span data-print-address></span>', 'a &amp; b &lt;c&gt; &quot;d&quot;&nbsp;e', '{count} {a-b} {x_1}'];
  for (const v of ok) assert.doesNotThrow(() => parseMarkup(v), v);
  const bad = [
    ['<script>alert(1)</script>', /<script> is not an element/],
    ['<img src=x onerror=alert(1)>', /is not a tag this catalogue allows/],
    ['<em onclick="x()">a</em>', /<em> takes no attributes/],
    ['<a href="https://example.org">a</a>', /<a> takes exactly one attribute, href/],
    ['<a href="javascript:alert(1)">a</a>', /<a> takes exactly one attribute, href/],
    ['<span style="color:red">a</span>', /<span> takes one of/],
    ['<span class="evil">a</span>', /<span> takes one of/],
    ['<hw-fact name="x" onload="y"></hw-fact>', /<hw-fact> takes exactly one attribute, name/],
    ['<em>a', /<em> is not closed/],
    ['a</em>', /<\/em> closes nothing/],
    ['<em><strong>a</em></strong>', /<\/em> closes <strong>/],
    ['a < b', /is not a tag/],
    ['AT&T', /is not one of the entities/],
    ['&copy;', /is not one of the entities/],
    ['{1x}', /is not a placeholder/],
    ['a } b', /without its "\{"/],
    ['<em/>', /must be written <em><\/em>/],
  ];
  for (const [v, why] of bad) assert.throws(() => parseMarkup(v), (e) => e instanceof MarkupError && why.test(e.message), v);
});

test('t fills placeholders, chooses plural forms by each language\'s rules, and falls back to English', () => {
  assert.equal(i18n.t('status.what.run', { tokens: 5, dModel: 8, count: 1 }), '5 × 8, 1 head');
  assert.equal(i18n.t('status.what.run', { tokens: 5, dModel: 8, count: 2 }), '5 × 8, 2 heads');
  assert.equal(i18n.t('status.what.run', { tokens: 5, dModel: 8, count: 0 }), '5 × 8, 0 heads');
  assert.throws(() => i18n.t('no.such.key'), /web\/i18n\/en\.json has no key "no\.such\.key"/);
  assert.throws(() => i18n.t('status.computing'), /no value was given for the placeholder \{what\}/);
  // A placeholder's value is text, never read as markup.
  assert.equal(i18n.t('status.computing', { what: '<em>x</em> {y}' }), 'Computing <em>x</em> {y}…');
  // Markup is dropped from t's text.
  assert.match(i18n.t('why.p2'), /costs no extra parameters compared/);
  // es has one, many (a million: "de") and other; zh-CN only other.
  assert.equal(i18n.t('common.heads', { count: 1 }, 'es'), '1 cabeza');
  assert.equal(i18n.t('common.heads', { count: 3 }, 'es'), '3 cabezas');
  assert.equal(i18n.t('common.heads', { count: 1000000 }, 'es'), '1000000 de cabezas');
  assert.equal(i18n.t('common.heads', { count: 1 }, 'zh-CN'), '1 个头');
  // A key the language lacks is English: a catalogue being written (one key of a made-up tag,
  // put beside the real ones as the build would put its file; every shipped one is complete).
  const registry = globalThis[Symbol.for('headwise.catalogues')];
  META['x-partial'] = { name: 'Partial', nativeName: 'Partial' };
  registry['x-partial'] = JSON.stringify({ _meta: META['x-partial'], 'quiz.title': 'Partial quiz' });
  try {
    assert.equal(i18n.t('quiz.title', {}, 'x-partial'), 'Partial quiz');
    assert.equal(i18n.t('quiz.show', {}, 'x-partial'), EN['quiz.show']);
  } finally {
    delete META['x-partial'];
    delete registry['x-partial'];
  }
  // A language without a catalogue reads English too.
  assert.equal(i18n.t('quiz.title', {}, 'fr'), EN['quiz.title']);
});

test('the pseudo-language is English in ⟦ ⟧, placeholders and markup kept, for every key', () => {
  for (const key of keysOf(EN)) {
    const params = Object.fromEntries(formsOf(EN[key]).flatMap(([, v]) => placeholders(parseMarkup(v))).map((p) => [p, `<${p}>`]));
    if (typeof EN[key] !== 'string') params.count = 2;
    const text = i18n.t(key, params, languageTags.PSEUDO);
    assert.ok(text.startsWith('⟦') && text.endsWith('⟧'), `${key}: ${text}`);
    assert.equal(text.slice(1, -1), i18n.t(key, params), key);
  }
  assert.ok(!languageTags.languages().includes(languageTags.PSEUDO), 'never offered in the switcher');
});

/** A tiny DOM for tNodes: elements and text nodes, no parser at all. */
function fakeDocument() {
  const el = (tag) => ({
    nodeType: 1, localName: tag, attributes: {}, childNodes: [],
    setAttribute(k, v) { this.attributes[k] = v; },
    appendChild(c) { this.childNodes.push(c); return c; },
    get textContent() { return this.childNodes.map((c) => c.textContent).join(''); },
  });
  return {
    createElement: el,
    createTextNode: (text) => ({ nodeType: 3, nodeValue: text, get textContent() { return text; } }),
  };
}

test('tNodes makes the listed elements itself (no HTML parser), code marked translate="no", nodes passed through', () => {
  const saved = globalThis.document;
  globalThis.document = fakeDocument();
  try {
    const strong = document.createElement('strong');
    const nodes = i18n.tNodes('heads.table.verdict', { answer: strong, call: '<img src=x>', value: 'False' });
    assert.equal(nodes[0], strong, 'a Node parameter is inserted as it is');
    assert.equal(nodes[1].nodeType, 3);
    assert.equal(nodes[1].nodeValue, ' <img src=x> is False.', 'text parameters are text, merged with the text around them');
    const q = i18n.tNodes('quiz.q2.prompt');
    const code = q.filter((n) => n.nodeType === 1);
    assert.deepEqual(code.map((n) => [n.localName, n.attributes.translate, n.textContent]),
      [['code', 'no', 'nn.MultiheadAttention(8, num_heads=2, bias=False)'], ['code', 'no', 'nn.MultiheadAttention(8, num_heads=1, bias=False)']]);
    const link = i18n.tNodes('challenge.discussion.p3').find((n) => n.localName === 'a');
    assert.deepEqual(link.attributes, { href: '#train' });
  } finally {
    globalThis.document = saved;
  }
});

// ---- which language ----------------------------------------------------------------------------

test('a requested language is matched to a catalogue: same tag in any case, else same language and script', () => {
  const m = languageTags.matchLanguage;
  assert.equal(m('es'), 'es');
  assert.equal(m('ES'), 'es');
  assert.equal(m('es-MX'), 'es');
  assert.equal(m('es-419'), 'es');
  assert.equal(m('zh-cn'), 'zh-CN');
  for (const zh of ['zh', 'zh-Hans', 'zh-Hans-CN', 'zh-SG', 'zh-Hans-SG']) assert.equal(m(zh), 'zh-CN', zh);
  for (const trad of ['zh-TW', 'zh-Hant', 'zh-HK', 'zh-Hant-TW', 'zh-MO']) assert.equal(m(trad), null, trad);
  assert.equal(m('en-GB'), 'en');
  assert.equal(m('fr'), null);
  assert.equal(m('qps-ploc'), 'qps-ploc');
  for (const bad of ['', 'e', '<script>', 'es_MX', '123', 'es-']) assert.equal(m(bad), null, bad);
});

/** A fake element: its lang, whether Headwise wrote it, its parent (or shadow host). */
function node(attrs, parent = null, host = null) {
  return {
    nodeType: 1,
    hasAttribute: (k) => k in attrs,
    getAttribute: (k) => (k in attrs ? attrs[k] : null),
    parentNode: parent,
    host,
  };
}

test('a node\'s language: its own lang, an ancestor\'s across shadow roots, the page\'s, the browser\'s, English', () => {
  const warnings = [];
  const saved = { warn: console.warn, nav: Object.getOwnPropertyDescriptor(globalThis, 'navigator') };
  console.warn = (...a) => warnings.push(a.join(' '));
  const setBrowser = (languages) => Object.defineProperty(globalThis, 'navigator', { value: { languages, language: languages[0] }, configurable: true });
  try {
    setBrowser(['en-US']);
    const html = node({ lang: 'en', [i18n.AUTO]: '' });  // the lesson's own <html lang="en" data-hw-lang-auto>
    const body = node({}, html);
    assert.equal(i18n.resolveLanguage(body), 'en');
    setBrowser(['fr-FR', 'es-MX', 'en']);
    assert.equal(i18n.resolveLanguage(body), 'es', 'the first of the browser\'s languages with a catalogue; Headwise\'s own lang does not count');
    i18n.setPageLanguage('zh-Hans');
    assert.equal(i18n.resolveLanguage(body), 'zh-CN', 'the page\'s choice (#lang=) before the browser');
    const hostPage = node({ lang: 'es' });  // a course page: <html lang="es">
    const shadowHost = node({}, hostPage);
    const shadowRoot = { nodeType: 11, parentNode: null, host: shadowHost };
    const widget = node({ lang: 'en', [i18n.AUTO]: '' }, node({}, shadowRoot));
    assert.equal(i18n.resolveLanguage(widget), 'es', 'through the shadow root to the host page\'s lang');
    const own = node({ lang: 'zh-CN' }, node({}, shadowRoot));
    assert.equal(i18n.resolveLanguage(own), 'zh-CN', 'an element\'s own lang first');
    assert.equal(i18n.resolveLanguage(node({ lang: '  ' }, hostPage)), 'es', 'an empty lang says nothing');
    assert.deepEqual(warnings, []);
    assert.equal(i18n.resolveLanguage(node({ lang: 'fr' }, hostPage)), 'en', 'no catalogue: English');
    assert.equal(i18n.resolveLanguage(node({ lang: 'FR' }, hostPage)), 'en');
    assert.equal(warnings.length, 1, `one warning: ${warnings.join(' / ')}`);
    assert.match(warnings[0], /"fr"/);
    assert.match(warnings[0], new RegExp(`available are: ${languageTags.languages().join(', ')}\\.`));
    i18n.setPageLanguage(null);
    setBrowser(['de', 'fr']);
    assert.equal(i18n.resolveLanguage(body), 'en', 'none of the browser\'s: English, without a warning (a preference, not a choice)');
    assert.equal(warnings.length, 1);
  } finally {
    console.warn = saved.warn;
    i18n.setPageLanguage(null);
    if (saved.nav) Object.defineProperty(globalThis, 'navigator', saved.nav);
    else delete globalThis.navigator;
  }
});

test('every shipped language is named in itself for the switcher', () => {
  const names = Object.fromEntries(languageTags.languages().map((tag) => [tag, languageTags.languageNames(tag).nativeName]));
  assert.deepEqual(names, Object.fromEntries(catalogues.map((c) => [c.tag, c.data._meta.nativeName])));
  assert.equal(names.en, 'English');
  assert.equal(names.es, 'Español');
  assert.equal(names['zh-CN'], '简体中文');
  assert.equal(languageTags.languages()[0], 'en');
});

// ---- the languages' files -----------------------------------------------------------------------

const DIST = join(ROOT, 'dist');
/** A bundle's text with its string escapes undone (esbuild writes ASCII: "\u00e9", "\xE9"). */
const unescaped = (file) => readFileSync(join(DIST, file), 'utf8')
  .replace(/\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})/g, (_, a, b, c) => String.fromCodePoint(parseInt(a || b || c, 16)));

test('the bundles carry English and every language\'s names, and no other language\'s words', () => {
  const englishText = JSON.stringify(EN);
  for (const bundle of ['app.js', 'headwise-elements.js', 'embed-page.js']) {
    const text = unescaped(bundle);
    for (const { tag, data } of catalogues) {
      assert.ok(text.includes(data._meta.nativeName), `${bundle} names ${tag} (${data._meta.nativeName}) for the switcher`);
      if (tag === 'en') continue;
      // Every value of the language that English does not say itself (and that no code could).
      const own = keysOf(data).flatMap((k) => formsOf(data[k]).map(([, v]) => v))
        .filter((v) => v.length >= 6 && /\p{L}{3}/u.test(v) && !englishText.includes(v) && !/["\\]/.test(v));
      assert.ok(own.length >= 10, `${tag}: ${own.length} values to look for`);
      const found = own.filter((v) => text.includes(v));
      assert.deepEqual(found, [], `${bundle} holds ${found.length} of ${tag}'s ${own.length} values`);
    }
  }
  assert.ok(unescaped('app.js').includes(EN['why.title']), 'English is in the page\'s bundle');
  assert.ok(unescaped('embed-page.js').includes(EN['embed.noScript']), 'the iframe page\'s own English sentences');
  assert.ok(!unescaped('embed-page.js').includes(EN['why.title']), 'and only those');
});

test('every language but English is a file of its own, dist/i18n/<tag>.js, and nothing else is there', () => {
  const expected = catalogues.filter((c) => c.tag !== 'en').map((c) => `${c.tag}.js`).sort();
  assert.deepEqual(readdirSync(join(DIST, 'i18n')).sort(), expected);
});

for (const { tag, data } of catalogues.filter((c) => c.tag !== 'en')) {
  test(`dist/i18n/${tag}.js registers ${tag}.json's catalogue, whether the page's bundle ran before it or not; ASCII only`, () => {
    const code = readFileSync(join(DIST, 'i18n', `${tag}.js`), 'utf8');
    assert.match(code, /^[\x20-\x7e\n]*$/, 'ASCII only: a page in any encoding reads it the same');
    const key = Symbol.for('headwise.catalogues');
    // Loaded first: it makes the registry.
    const first = vm.createContext({});
    vm.runInContext(code, first);
    const made = vm.runInContext('globalThis', first)[key];
    assert.deepEqual(Object.keys(made), [tag]);
    assert.deepEqual(JSON.parse(made[tag]), data, 'the same catalogue as the JSON file');
    // Loaded after another: both stay.
    const second = vm.createContext({});
    vm.runInContext(`globalThis[Symbol.for('headwise.catalogues')] = { xx: '{}' };`, second);
    vm.runInContext(code, second);
    assert.deepEqual(Object.keys(vm.runInContext('globalThis', second)[key]).sort(), ['xx', tag].sort());
  });
}

/**
 * A page for the language runtime in Node: a document whose <script> elements "load" as `serve`
 * says (a function of the URL: 'ok' runs `run` and fires load, 'fail' fires error, 'hang' fires
 * nothing), a window, and a fresh copy of src/shared/i18n/i18n.js (its own parsed catalogues; the
 * registry is the process's, as it is the page's).
 */
async function languagePage(serve) {
  const saved = { document: globalThis.document, window: globalThis.window };
  const requested = [];
  globalThis.window = { addEventListener() {}, removeEventListener() {} };
  globalThis.document = {
    createElement: () => {
      const listeners = {};
      return {
        dataset: {},
        addEventListener: (type, f) => { listeners[type] = f; },
        remove() {},
        set src(url) { this.url = url; },
        fire(type) { listeners[type]?.(); },
      };
    },
    head: {
      appendChild(script) {
        requested.push(script.url);
        const how = serve(script.url);
        if (how === 'hang') return;
        setTimeout(() => {
          if (how === 'ok') script.run?.();
          script.fire(how === 'ok' ? 'load' : 'error');
        }, 5);
      },
    },
  };
  const runtime = await import(`../../web/src/shared/i18n/i18n.js?page=${Math.random()}`);
  runtime.setLanguageBase('https://example.org/headwise/');
  return {
    runtime,
    requested,
    restore() {
      globalThis.document = saved.document;
      globalThis.window = saved.window;
    },
  };
}

test('a language whose file cannot be loaded: English, one warning naming the file; the reader may ask again', async () => {
  const registry = globalThis[Symbol.for('headwise.catalogues')];
  const text = registry['zh-CN'];
  const warnings = [];
  const warn = console.warn;
  console.warn = (...a) => warnings.push(a.join(' '));
  delete registry['zh-CN'];
  let serving = 'fail';
  const page = await languagePage(() => serving);
  try {
    const { runtime } = page;
    let told = 0;
    runtime.onLanguageChange(() => { told += 1; });
    assert.equal(runtime.isReady('zh-CN'), false);
    assert.equal(runtime.resolveLanguage(node({ lang: 'zh-CN' })), 'en', 'in English while it is not here');
    assert.equal(await runtime.ensureLanguage('zh-CN'), false);
    assert.equal(await runtime.ensureLanguage('zh-CN'), false, 'asked again: the same answer');
    assert.deepEqual(page.requested, ['https://example.org/headwise/i18n/zh-CN.js'], 'one request, beside the bundle');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /Chinese \(Simplified\) \(zh-CN\) is shown in English: https:\/\/example\.org\/headwise\/i18n\/zh-CN\.js could not be loaded/);
    assert.equal(told, 0);
    // The switcher asks again (retry); this time the file is there.
    serving = 'ok';
    const ask = runtime.ensureLanguage('zh-CN', { retry: true });
    // (The file is asked for from a task of its own.)
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(page.requested.length, 2);
    // What the file does when it runs: register the catalogue's text.
    registry['zh-CN'] = text;
    assert.equal(await ask, true);
    assert.equal(told, 1, 'the listeners are told it arrived');
    assert.equal(runtime.t('quiz.show', {}, 'zh-CN'), JSON.parse(text)['quiz.show']);
    assert.equal(runtime.resolveLanguage(node({ lang: 'zh-CN' })), 'zh-CN');
    assert.equal(await runtime.ensureLanguage('xx'), false, 'no such language');
    assert.equal(await runtime.ensureLanguage('en'), true);
  } finally {
    page.restore();
    registry['zh-CN'] = text;
    console.warn = warn;
  }
});

test('a language late past LANGUAGE_WAIT_MS: drawn in English meanwhile (one warning), in the language once it arrives', async () => {
  const registry = globalThis[Symbol.for('headwise.catalogues')];
  const text = registry.es;
  const warnings = [];
  const warn = console.warn;
  console.warn = (...a) => warnings.push(a.join(' '));
  delete registry.es;
  let script = null;
  const page = await languagePage(() => 'hang');
  const realCreate = document.createElement;
  document.createElement = () => (script = realCreate());
  try {
    const { runtime } = page;
    let told = 0;
    runtime.onLanguageChange(() => { told += 1; });
    runtime.setPageLanguage('es');
    assert.equal(runtime.pageLanguage(), 'en', 'the page shows English while Spanish loads');
    assert.equal(runtime.requestedPageLanguage(), 'es');
    assert.equal(await runtime.whenLanguage('es', 30), false);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /i18n\/es\.js has not arrived within 0\.03 s: shown in English until it does/);
    registry.es = text;
    script.fire('load');
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(told, 1, 'told when it arrived');
    assert.equal(runtime.pageLanguage(), 'es');
    assert.equal(page.requested.length, 1);
  } finally {
    page.restore();
    registry.es = text;
    console.warn = warn;
  }
});
