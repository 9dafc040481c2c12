// The documentation's own checks, without the built module: every relative link in every tracked
// Markdown file resolves (the file exists and, for `#anchor` links, so does the heading, by
// GitHub's slug rules), and the README's one-screen embedding snippets are taken from
// web/EMBEDDING.md, whose titled blocks tests/browser/hosts.test.mjs builds real sites from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The text of a Markdown file with fenced code blocks blanked out (line numbers kept).
 * @param {string} text
 */
function withoutFences(text) {
  const out = [];
  let fence = null;
  for (const line of text.split('\n')) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
      out.push('');
    } else if (m) {
      fence = m[1];
      out.push('');
    } else {
      out.push(line);
    }
  }
  return out.join('\n');
}

/**
 * GitHub's anchor for a heading's text: inline markup dropped, lower case, every character that is
 * not a letter, mark, number, connector (`_`), space or hyphen removed, spaces turned into hyphens.
 * @param {string} heading
 */
export function slug(heading) {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')  // links and images: their text
    .replace(/<[^>]+>/g, '')                    // inline HTML tags
    .replace(/[`*]/g, '')                       // code spans, emphasis
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/**
 * Every anchor a Markdown file's headings get on GitHub (repeated slugs get -1, -2, …).
 * @param {string} text
 */
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of withoutFences(text).split('\n')) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/**
 * The links of a Markdown file, outside code: inline links and images, and reference definitions.
 * @param {string} text
 * @returns {{line: number, target: string}[]}
 */
export function links(text) {
  const found = [];
  withoutFences(text).split('\n').forEach((raw, i) => {
    const line = raw.replace(/(`+)[\s\S]*?\1/g, '');  // code spans
    for (const m of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ line: i + 1, target: m[1] });
    const def = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/.exec(line);
    if (def) found.push({ line: i + 1, target: def[1] });
  });
  return found;
}

/**
 * Every relative link of these Markdown files that does not resolve, as "file:line: reason".
 * @param {string} root  the repository's root
 * @param {string[]} files  paths relative to root
 */
export function brokenLinks(root, files) {
  const problems = [];
  const anchorCache = new Map();
  const anchorsOf = (path) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchors(readFileSync(path, 'utf8')));
    return anchorCache.get(path);
  };
  for (const file of files) {
    const from = join(root, file);
    for (const { line, target } of links(readFileSync(from, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;  // https:, mailto:, …
      const [pathPart, anchor] = target.split('#', 2);
      const path = pathPart === '' ? from : join(dirname(from), decodeURIComponent(pathPart.split('?')[0]));
      const where = `${file}:${line}: ${target}`;
      if (!existsSync(path)) {
        problems.push(`${where}: ${relative(root, path)} does not exist`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(path).isDirectory() || !path.endsWith('.md')) {
        problems.push(`${where}: an anchor into something that is not a Markdown file`);
      } else if (!anchorsOf(path).has(decodeURIComponent(anchor).toLowerCase())) {
        problems.push(`${where}: ${relative(root, path)} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}

/** The tracked Markdown files (git), relative to ROOT. */
function trackedMarkdown() {
  const out = execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\0').filter((f) => f && existsSync(join(ROOT, f)));
}

test('every relative link in every tracked Markdown file resolves', () => {
  const files = trackedMarkdown();
  assert.ok(files.includes('README.md') && files.includes('web/EMBEDDING.md'), `tracked Markdown: ${files.join(', ')}`);
  assert.deepEqual(brokenLinks(ROOT, files), []);
});

test('the link check finds a missing file, a missing heading and an anchor into a non-Markdown file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'headwise-docs-'));
  try {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'guide.md'), '# The guide\n\n## 1. Put `dist/` somewhere\n\n## Notes\n\n## Notes\n');
    writeFileSync(join(dir, 'code.js'), '');
    writeFileSync(join(dir, 'README.md'), [
      '# Top',
      '[ok](sub/guide.md) [ok](sub/guide.md#1-put-dist-somewhere) [ok](sub/guide.md#notes-1) [ok](#top) [ok](sub/)',
      '[external](https://example.org/nowhere.md) `[in code](missing.md)`',
      '```',
      '[in a fence](missing.md)',
      '```',
      '[gone](missing.md)',
      '![gone too](sub/missing.png)',
      '[no heading](sub/guide.md#notes-2)',
      '[here neither](#bottom)',
      '[not markdown](code.js#L3)',
      '[ref]: sub/nothing.md',
    ].join('\n'));
    const problems = brokenLinks(dir, ['README.md', 'sub/guide.md']);
    assert.deepEqual(problems.map((p) => p.split(': ').slice(0, 2).join(': ')), [
      'README.md:7: missing.md',
      'README.md:8: sub/missing.png',
      'README.md:9: sub/guide.md#notes-2',
      'README.md:10: #bottom',
      'README.md:11: code.js#L3',
      'README.md:12: sub/nothing.md',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GitHub slugs: punctuation dropped, code and links unwrapped, case folded', () => {
  assert.equal(slug('10. Browsers your students need'), '10-browsers-your-students-need');
  assert.equal(slug('Typed arrays: `{data, rows, cols}`'), 'typed-arrays-data-rows-cols');
  assert.equal(slug('`into`: results in arrays you already have'), 'into-results-in-arrays-you-already-have');
  assert.equal(slug('The defaults, chosen by a sweep'), 'the-defaults-chosen-by-a-sweep');
  assert.equal(slug('Canvas, Moodle, Open edX (and other LMSs)'), 'canvas-moodle-open-edx-and-other-lmss');
  assert.equal(slug('tests/ — what each layer proves'), 'tests--what-each-layer-proves');
});

test("the README's embedding snippets are lines of web/EMBEDDING.md, which the host tests check", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Embed in your course');
  assert.ok(start >= 0, 'README has "## Embed in your course"');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  const guide = new Set(readFileSync(join(ROOT, 'web', 'EMBEDDING.md'), 'utf8').split('\n').map((l) => l.trim()));
  const blocks = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
  assert.ok(blocks.length >= 4, `README's embedding section has ${blocks.length} code blocks`);
  for (const [, lang, text] of blocks) {
    for (const line of text.split('\n').map((l) => l.trim())) {
      if (!line || (['yaml', 'python'].includes(lang) && line.startsWith('#'))) continue;
      assert.ok(guide.has(line), `README's ${lang} snippet line is not in web/EMBEDDING.md: ${line}`);
    }
  }
});
