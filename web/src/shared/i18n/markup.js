// The markup a catalogue value may hold (web/i18n/*.json), read by a tokenizer of its own: never
// by innerHTML or DOMParser, so a host page that enforces Trusted Types accepts the page, and a
// value can only ever make the few elements listed here. No DOM in this file: the build (which
// fills web/index.html with the English text) and the node tests use it as the page does.
//
// A value is text with {placeholders} and these elements:
//   <em> <strong> <code> <var> <kbd> <sub> <sup>   no attributes
//   <br>                                            void (also <br/>)
//   <a href="#id">                                  links within the page only
//   <hw-fact name="…">  <hw-version>                the lesson's computed numbers, the module version
//   <span data-train-fact="…">  <span data-print-address>  <span class="hw-ex-num">
// and the entities &amp; &lt; &gt; &quot; &nbsp;. Anything else is an error that names it.

/** Elements without attributes. */
const PLAIN = new Set(['em', 'strong', 'code', 'var', 'kbd', 'sub', 'sup', 'hw-version']);
/** Elements whose content is never translated: identifiers, code, numbers as the libraries print them. */
export const VERBATIM = new Set(['code', 'var', 'kbd']);
const ENTITIES = /** @type {Record<string, string>} */ ({ amp: '&', lt: '<', gt: '>', quot: '"', nbsp: '\u00a0' });
const NAME = /^[A-Za-z][\w-]*$/;

/**
 * @typedef {string|{ph: string}|{tag: string, attrs: Record<string, string>, children: MarkupNode[]}} MarkupNode
 */

export class MarkupError extends Error {}

/**
 * Whether an element with these attributes is allowed; a reason when not.
 * @param {string} tag
 * @param {Record<string, string>} attrs
 * @returns {string|null}
 */
function refuse(tag, attrs) {
  const names = Object.keys(attrs);
  const only = (/** @type {string} */ name, /** @type {RegExp} */ re) => (names.length === 1 && names[0] === name && re.test(attrs[name])
    ? null : `<${tag}> takes exactly one attribute, ${name}, matching ${re}`);
  if (PLAIN.has(tag) || tag === 'br') return names.length ? `<${tag}> takes no attributes` : null;
  if (tag === 'a') return only('href', /^#[A-Za-z][\w-]*$/);
  if (tag === 'hw-fact') return only('name', /^[\w-]+$/);
  if (tag === 'span') {
    if (names.length === 1 && names[0] === 'data-train-fact' && /^[\w-]+$/.test(attrs[names[0]])) return null;
    if (names.length === 1 && names[0] === 'data-print-address' && attrs[names[0]] === '') return null;
    if (names.length === 1 && names[0] === 'class' && attrs.class === 'hw-ex-num') return null;
    return '<span> takes one of: data-train-fact="name", data-print-address, class="hw-ex-num"';
  }
  return `<${tag}> is not an element a catalogue value may hold (use em, strong, code, var, kbd, sub, sup, br, a, hw-fact, hw-version, span)`;
}

/**
 * Read the text between markup: entities decoded, {placeholders} split out.
 * @param {string} text
 * @param {MarkupNode[]} out
 */
function pushText(text, out) {
  let rest = text;
  while (rest) {
    const m = /[{}&]/.exec(rest);
    if (!m) {
      out.push(rest);
      return;
    }
    if (m.index) out.push(rest.slice(0, m.index));
    rest = rest.slice(m.index);
    if (rest[0] === '}') throw new MarkupError('a "}" without its "{" (placeholders are written {name})');
    if (rest[0] === '{') {
      const ph = /^\{([A-Za-z][\w-]*)\}/.exec(rest);
      if (!ph) throw new MarkupError(`"${rest.slice(0, 20)}" is not a placeholder (write {name}: a letter, then letters, digits, _ or -)`);
      out.push({ ph: ph[1] });
      rest = rest.slice(ph[0].length);
    } else {
      const ent = /^&([a-z]+);/.exec(rest);
      if (!ent || !(ent[1] in ENTITIES)) throw new MarkupError(`"${rest.slice(0, 12)}" is not one of the entities &amp; &lt; &gt; &quot; &nbsp; (write a literal & as &amp;)`);
      out.push(ENTITIES[ent[1]]);
      rest = rest.slice(ent[0].length);
    }
  }
}

/** @type {Map<string, MarkupNode[]>} */
const parsed = new Map();

/**
 * A catalogue value as a tree. Throws MarkupError (saying what is wrong) for anything outside
 * the list above or badly nested. Results are cached: a value is read once.
 * @param {string} value
 * @returns {MarkupNode[]}
 */
export function parseMarkup(value) {
  const hit = parsed.get(value);
  if (hit) return hit;
  /** @type {MarkupNode[]} */
  const root = [];
  /** @type {{tag: string, children: MarkupNode[]}[]} */
  const stack = [{ tag: '', children: root }];
  const tagRe = /<(\/?)([a-z][a-z0-9-]*)((?:\s+[a-z][a-z0-9-]*(?:="[^"<>]*")?)*)\s*(\/?)>/y;
  let i = 0;
  while (i < value.length) {
    const lt = value.indexOf('<', i);
    const end = lt < 0 ? value.length : lt;
    if (end > i) pushText(value.slice(i, end), stack[stack.length - 1].children);
    if (lt < 0) break;
    tagRe.lastIndex = lt;
    const m = tagRe.exec(value);
    if (!m) throw new MarkupError(`"${value.slice(lt, lt + 24)}" is not a tag this catalogue allows (write a literal < as &lt;)`);
    const [whole, closing, tag, attrText, selfClosing] = m;
    if (closing) {
      if (attrText || selfClosing) throw new MarkupError(`"${whole}" is not a closing tag`);
      const top = stack[stack.length - 1];
      if (top.tag !== tag) throw new MarkupError(top.tag ? `</${tag}> closes <${top.tag}>` : `</${tag}> closes nothing`);
      stack.pop();
    } else {
      /** @type {Record<string, string>} */
      const attrs = {};
      for (const a of attrText.matchAll(/([a-z][a-z0-9-]*)(?:="([^"]*)")?/g)) {
        if (a[1] in attrs) throw new MarkupError(`<${tag}> has ${a[1]} twice`);
        attrs[a[1]] = a[2] ?? '';
      }
      const why = refuse(tag, attrs);
      if (why) throw new MarkupError(why);
      const node = { tag, attrs, children: /** @type {MarkupNode[]} */ ([]) };
      stack[stack.length - 1].children.push(node);
      if (tag !== 'br') {
        if (selfClosing) throw new MarkupError(`<${tag}/> must be written <${tag}></${tag}>`);
        stack.push(node);
      }
    }
    i = lt + whole.length;
  }
  if (stack.length > 1) throw new MarkupError(`<${stack[stack.length - 1].tag}> is not closed`);
  parsed.set(value, root);
  return root;
}

/**
 * The placeholders a value uses (a sorted list, each once).
 * @param {MarkupNode[]} tree
 */
export function placeholders(tree) {
  const out = new Set();
  const walk = (/** @type {MarkupNode[]} */ nodes) => {
    for (const n of nodes) {
      if (typeof n === 'string') continue;
      if ('ph' in n) out.add(n.ph);
      else walk(n.children);
    }
  };
  walk(tree);
  return [...out].sort();
}

/**
 * What must read the same in every language: the digits of the text, what code, var and kbd
 * hold, and every element that has attributes (links, the lesson's numbers), each as a sorted
 * list.
 * @param {MarkupNode[]} tree
 */
export function invariants(tree) {
  /** @type {string[]} */
  const numbers = [];
  /** @type {string[]} */
  const verbatim = [];
  /** @type {string[]} */
  const elements = [];
  const walk = (/** @type {MarkupNode[]} */ nodes, inVerbatim = false) => {
    for (const n of nodes) {
      if (typeof n === 'string') {
        if (!inVerbatim) numbers.push(...(n.match(/\d+(?:[.,]\d+)*/g) || []));
      } else if ('tag' in n) {
        if (VERBATIM.has(n.tag) && !inVerbatim) verbatim.push(`${n.tag}:${plainText(n.children, null)}`);
        if (Object.keys(n.attrs).length || n.tag.startsWith('hw-')) elements.push(`<${n.tag}${Object.entries(n.attrs).map(([k, v]) => ` ${k}="${v}"`).join('')}>`);
        walk(n.children, inVerbatim || VERBATIM.has(n.tag));
      }
    }
  };
  walk(tree);
  return { numbers: numbers.sort(), verbatim: verbatim.sort(), elements: elements.sort() };
}

/**
 * A value's text without its markup, placeholders filled in (kept as {name} when `params` is null).
 * @param {MarkupNode[]} tree
 * @param {Record<string, unknown>|null} params
 * @returns {string}
 */
export function plainText(tree, params) {
  let s = '';
  for (const n of tree) {
    if (typeof n === 'string') s += n;
    else if ('ph' in n) s += params ? String(param(params, n.ph)) : `{${n.ph}}`;
    else if (n.tag === 'br') s += '\n';
    else s += plainText(n.children, params);
  }
  return s;
}

/**
 * A parameter's value; a missing one is a programming error (the catalogue test checks that every
 * language uses the placeholders English uses).
 * @param {Record<string, unknown>} params
 * @param {string} name
 */
export function param(params, name) {
  if (!Object.prototype.hasOwnProperty.call(params, name)) throw new Error(`no value was given for the placeholder {${name}}`);
  return params[name];
}

/**
 * Text as HTML: &, <, > and no-break spaces escaped (quotes too, in an attribute's value).
 * @param {string} s
 * @param {boolean} [attribute]
 */
export function escapeHtml(s, attribute = false) {
  const text = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;');
  return attribute ? text.replace(/"/g, '&quot;') : text;
}

/**
 * The value as HTML (for the build, which writes the English text into index.html), text escaped.
 * @param {MarkupNode[]} tree
 * @param {Record<string, unknown>} params
 * @returns {string}
 */
export function toHtml(tree, params) {
  let s = '';
  for (const n of tree) {
    if (typeof n === 'string') s += escapeHtml(n);
    else if ('ph' in n) s += escapeHtml(String(param(params, n.ph)));
    else {
      const attrs = Object.entries(n.attrs).map(([k, v]) => (v === '' && k.startsWith('data-') ? ` ${k}` : ` ${k}="${escapeHtml(v, true)}"`)).join('');
      // Code is never translated, by the page or by a browser's translation tool (as tNodes marks it).
      const verbatim = VERBATIM.has(n.tag) ? ' translate="no"' : '';
      s += n.tag === 'br' ? '<br>' : `<${n.tag}${attrs}${verbatim}>${toHtml(n.children, params)}</${n.tag}>`;
    }
  }
  return s;
}

/** What a `lang` value, `#lang=` or a catalogue's file name must look like (a BCP 47 language tag). */
export const TAG_FORM = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,6}$/;

/**
 * Whether `value` is a language tag as the page takes one: TAG_FORM, at most 35 characters.
 * @param {string} value
 */
export function isLanguageTag(value) {
  return TAG_FORM.test(value) && value.length <= 35;
}
