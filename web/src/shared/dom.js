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
 * Inline code span.
 * @param {string} text
 */
export function code(text) {
  return h('code', { text });
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
 * @param {string} label accessible name, e.g. "Copy the NumPy code"
 */
export function copyButton(source, label) {
  const status = h('span', { class: 'hw-copy-status', role: 'status' });
  const button = h('button', { type: 'button', class: 'hw-button hw-copy', 'aria-label': label, text: 'Copy' });
  button.addEventListener('click', async () => {
    const text = source.textContent || '';
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = 'Copied.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const sel = window.getSelection();
      if (sel) {
        sel.removeAllRanges();
        sel.addRange(range);
      }
      status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
    setTimeout(() => { status.textContent = ''; }, 4000);
  });
  return h('div', { class: 'hw-copy-row' }, [button, status]);
}
