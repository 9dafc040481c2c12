// The dark colour scheme changes colours only: every declaration that applies in dark mode alone
// (inside `@media [screen and] (prefers-color-scheme: dark)`, or under a `[data-theme="dark"]` selector) sets
// a colour property, or a custom property to a colour. So a page's geometry is the same in
// both schemes, and tests/browser/layout.test.mjs checks dark mode's layout at one width only.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const WEB = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
/** Every stylesheet of web/ (the page's beside their code in web/src/), as paths under web/. */
const SHEETS = readdirSync(WEB, { recursive: true }).filter((f) => f.endsWith('.css')).sort();

/** Properties that paint and never move a box. */
const COLOUR_PROPERTIES = new Set([
  'color', 'background', 'background-color', 'border-color', 'border-top-color', 'border-right-color',
  'border-bottom-color', 'border-left-color', 'outline-color', 'text-decoration-color', 'caret-color',
  'accent-color', 'fill', 'stroke', 'color-scheme',
]);
/** A colour value: #hex, rgb()/hsl(), a var() of one, or a keyword such as transparent. */
const COLOUR_VALUE = /^(#[0-9a-f]{3,8}|(rgba?|hsla?)\([^()]*\)|var\(--[\w-]+\)|transparent|currentcolor|inherit|light|dark|light dark)$/i;

/** The text between the brace at `open` and its partner. */
function block(css, open) {
  let depth = 0;
  for (let i = open; i < css.length; i += 1) {
    if (css[i] === '{') depth += 1;
    else if (css[i] === '}' && (depth -= 1) === 0) return css.slice(open + 1, i);
  }
  throw new Error('unbalanced braces');
}

/** Every `selector { declarations }` in a flat list of rules: [{selector, declarations: [[property, value]]}]. */
function rules(css) {
  return [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map((m) => ({
    selector: m[1].trim(),
    declarations: m[2].split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
      const k = d.indexOf(':');
      return [d.slice(0, k).trim().toLowerCase(), d.slice(k + 1).trim()];
    }),
  }));
}

/** The rules that apply in dark mode only, in one sheet. */
function darkRules(css) {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const found = [];
  for (const m of text.matchAll(/@media\s*(?:screen\s+and\s*)?\(\s*prefers-color-scheme\s*:\s*dark\s*\)\s*\{/g)) {
    found.push(...rules(block(text, m.index + m[0].length - 1)));
  }
  const topLevel = text.replace(/@media[^{]*\{/g, (m) => m.replace(/./g, ' '));
  found.push(...rules(topLevel).filter((r) => /\[data-theme="?dark"?\]/.test(r.selector)));
  return found;
}

/** Whether a declaration may change where or how big a box is (anything but a colour). */
const mayMove = (property, value) => (property.startsWith('--') || property === 'background'
  ? !COLOUR_VALUE.test(value) : !COLOUR_PROPERTIES.has(property));

/** Every dark-mode declaration of a sheet that may move a box, one line each. */
const moving = (name, css) => darkRules(css).flatMap(({ selector, declarations }) => declarations
  .filter(([p, v]) => mayMove(p, v)).map(([p, v]) => `${name}: ${selector} { ${p}: ${v} }`));

test('the sheets hold dark-mode rules (the check below has something to read)', () => {
  const count = SHEETS.reduce((n, f) => n + darkRules(readFileSync(join(WEB, f), 'utf8')).length, 0);
  assert.ok(count >= 4, `${count} dark-mode rules found in ${SHEETS.join(', ')}`);
});

test('in dark mode only colours change', () => {
  const wrong = SHEETS.flatMap((f) => moving(f, readFileSync(join(WEB, f), 'utf8')));
  assert.deepEqual(wrong, [], 'a dark-mode declaration that may move a box: check layout in dark mode at every width');
});

test('the check itself: dark rules that change a size are caught, colours are not', () => {
  const css = `@media (prefers-color-scheme: dark) {
    :root { --hw-bg: #000; --hw-gap: 4px; }
    .x { padding: 2px; color: #fff; background: #123 url(a.png); }
  }
  .y { margin: 0; }
  html[data-theme="dark"] { font-size: 120%; color-scheme: dark; }`;
  assert.deepEqual(moving('t.css', css), [
    't.css: :root { --hw-gap: 4px }',
    't.css: .x { padding: 2px }',
    't.css: .x { background: #123 url(a.png) }',
    't.css: html[data-theme="dark"] { font-size: 120% }',
  ]);
});
