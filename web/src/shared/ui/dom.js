// Small DOM helpers. Text always goes in through textContent, never through innerHTML,
// so token labels and URL contents can hold any characters safely.

/**
 * Create an element.
 * @param {string} tag
 * @param {Record<string, string|number|boolean|null|undefined>} [attrs]
 *   attributes; `class` sets className, `text` sets textContent; null/false values are skipped.
 * @param {(Node|string|null|undefined|false)[]} [children]
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, children = []) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'text') el.textContent = String(value);
    else if (key === 'class') el.className = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/**
 * Append children (strings become text nodes).
 * @param {Node} parent
 * @param {(Node|string|null|undefined|false)[]} children
 */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/**
 * Replace all children of `parent`.
 * @param {Node} parent
 * @param {(Node|string|null|undefined|false)[]} children
 */
export function replace(parent, children) {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/**
 * Show `text` in `el`, in place: when `el` holds one text node, that node is rewritten (only if
 * the text differs), so a table cell or a code listing keeps its nodes across redraws.
 * @param {Node} el
 * @param {string} text
 */
export function setText(el, text) {
  const t = el.firstChild;
  if (t && t.nodeType === 3 && !t.nextSibling) {
    if (t.nodeValue !== text) t.nodeValue = text;
  } else {
    el.textContent = text;
  }
}

/**
 * Set an attribute only if it differs (null removes it), so that an unchanged value costs no
 * style invalidation.
 * @param {Element} el
 * @param {string} name
 * @param {string|null} value
 */
export function setAttr(el, name, value) {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}

/**
 * Like replace(), but in place: each child of `parent` that has the same shape as the new child
 * at its position (the same tags in the same places, all the way down) is kept and only its
 * text, attributes and colours that differ are written; any other is replaced by the new one.
 * So a redraw where only numbers change keeps every node (and its listeners, focus and
 * selection), and a change of shape rebuilds. Listeners of the new nodes are dropped where old
 * nodes are kept: use it for subtrees whose listeners depend on their shape only.
 * @param {Node} parent
 * @param {(Node|string|null|undefined|false)[]} children
 */
export function morph(parent, children) {
  let old = parent.firstChild;
  for (const child of children) {
    // An empty string adds nothing (so that :empty still matches), as textContent = '' would.
    if (child === null || child === undefined || child === false || child === '') continue;
    const node = typeof child === 'string' ? document.createTextNode(child) : child;
    if (!old) {
      parent.appendChild(node);
      continue;
    }
    const next = old.nextSibling;
    if (node !== old) {  // a node kept by the caller stays as it is
      if (sameShape(old, node)) patch(old, node);
      else parent.replaceChild(node, old);
    }
    old = next;
  }
  while (old) {
    const next = old.nextSibling;
    parent.removeChild(old);
    old = next;
  }
}

/**
 * @param {Node} a
 * @param {Node} b
 * @returns {boolean}
 */
function sameShape(a, b) {
  if (a.nodeType !== b.nodeType || /** @type {Element} */ (a).localName !== /** @type {Element} */ (b).localName) return false;
  let x = a.firstChild;
  let y = b.firstChild;
  for (; x && y; x = x.nextSibling, y = y.nextSibling) {
    if (!sameShape(x, y)) return false;
  }
  return x === y;  // both lists ended
}

/**
 * Write into `a` what differs in `b` (of the same shape).
 * @param {Node} a
 * @param {Node} b
 */
function patch(a, b) {
  if (a.nodeType !== 1) {
    if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue;
    return;
  }
  const x = /** @type {HTMLElement} */ (a);
  const y = /** @type {HTMLElement} */ (b);
  const want = y.attributes;
  for (let i = 0; i < want.length; i += 1) {
    const { name, value } = want[i];
    if (x.getAttribute(name) === value) continue;
    // Colours go through element.style: a style attribute would break the page's CSP.
    if (name === 'style') x.style.cssText = value;
    else x.setAttribute(name, value);
  }
  const have = x.attributes;
  for (let i = have.length - 1; i >= 0; i -= 1) {
    const { name } = have[i];
    if (!y.hasAttribute(name)) {
      if (name === 'style') x.style.cssText = '';
      else x.removeAttribute(name);
    }
  }
  for (let c = a.firstChild, d = b.firstChild; c && d; c = c.nextSibling, d = d.nextSibling) patch(c, d);
}

/**
 * Inline code span.
 * @param {string} text
 */
export function code(text) {
  // Code is never translated (by the page, or by a browser's translation tool).
  return h('code', { translate: 'no', text });
}

let uid = 0;
/**
 * A document-unique id with a readable prefix.
 * @param {string} prefix
 */
export function uniqueId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * A "Copy" button for the text of `source`.
 * Falls back to selecting the text when the clipboard is unavailable (e.g. file://).
 * @param {HTMLElement} source
 * @param {{label: string, copy: string, copied: string, selected: string}} text  in the page's
 *   language: the button's accessible name ("Copy: NumPy code"), its text, and what it says
 *   once the text is copied, or only selected
 */
export function copyButton(source, text) {
  const status = h('span', { class: 'hw-copy-status', role: 'status' });
  const button = h('button', { type: 'button', class: 'hw-button hw-copy', 'aria-label': text.label, text: text.copy });
  button.addEventListener('click', async () => {
    const content = source.textContent || '';
    try {
      await navigator.clipboard.writeText(content);
      status.textContent = text.copied;
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const sel = window.getSelection();
      if (sel) {
        sel.removeAllRanges();
        sel.addRange(range);
      }
      status.textContent = text.selected;
    }
    setTimeout(() => { status.textContent = ''; }, 4000);
  });
  return h('div', { class: 'hw-copy-row' }, [button, status]);
}
