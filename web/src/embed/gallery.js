// The embed gallery (gallery.html): every widget, live, with its two copy-paste snippets. The
// snippets point at the folder this page is served from, so they are right wherever dist/ is
// hosted. All text goes in through textContent. The gallery is the instructors' catalogue of
// snippets, in English; the widgets it shows follow its page's lang, as on any course page.

import { h, copyButton } from '../shared/ui/dom.js';

/**
 * @typedef {object} Item
 * @property {string} widget  embed.html's widget= value
 * @property {string} tag     the element
 * @property {string} title
 * @property {string} text
 * @property {[string, string][]} attrs  attributes, in order
 * @property {[string, string][]} query  the same settings as query parameters
 * @property {string} frameTitle
 * @property {number} height   the iframe height for pages without the helper: the content's height
 *   at 720 px wide in the tallest of Chromium, Firefox and WebKit, plus 5 % and 40 px, rounded up
 *   to 50 px (checked by tests/browser/hosts.test.mjs; narrower columns need more)
 * @property {boolean} [lazy]  shown on request (the whole lesson is long)
 */

/** @type {Item[]} */
const ITEMS = [
  {
    widget: 'heads', tag: 'mha-heads', title: 'Head tables', frameTitle: 'Attention weights of every head',
    text: 'Every head\'s attention weights on the same input, the query row highlighted, and whether the heads agree. Here the head count and d_model are locked, so students vary only the seed, tokens and query.',
    attrs: [['seed', '7'], ['tokens', '5'], ['d-model', '8'], ['heads', '2'], ['controls', 'seed,tokens,dModel,heads,query'], ['locked', 'dModel,heads']],
    query: [['seed', '7'], ['tokens', '5'], ['dModel', '8'], ['heads', '2'], ['controls', 'seed,tokens,dModel,heads,query'], ['lock', 'dModel,heads']],
    height: 1600,
  },
  {
    widget: 'params', tag: 'mha-params', title: 'Parameter table', frameTitle: 'Parameters of nn.MultiheadAttention',
    text: 'PyTorch\'s named parameters for 1, 2, 4 and 8 heads: the totals never change.',
    attrs: [['d-model', '8']], query: [['dModel', '8']], height: 1200,
  },
  {
    widget: 'circuits', tag: 'mha-circuits', title: 'Each head\'s circuits', frameTitle: 'W_QK and W_OV of every head, their rank, and their sum',
    text: 'Each head of the lesson\'s weights as two d_model × d_model matrices, W_QK and W_OV, as heatmaps with their rank (d_head), and the check that the heads\' W_OV add up to Wv·Wo.',
    attrs: [['seed', '7'], ['tokens', '5'], ['d-model', '8'], ['heads', '2']], query: [['seed', '7'], ['tokens', '5'], ['dModel', '8'], ['heads', '2']], height: 1850,
  },
  {
    widget: 'ex1', tag: 'mha-exercise-seeds', title: 'Exercise 1: your seed', frameTitle: 'Exercise 1: different heads, different patterns',
    text: 'The student picks a seed and checks that every pair of heads differs, with 2 and with 4 heads.',
    attrs: [['ex1-seed', '2024'], ['controls', 'ex1Seed']], query: [['ex1Seed', '2024'], ['controls', 'ex1Seed']], height: 1050,
  },
  {
    widget: 'ex2', tag: 'mha-exercise-dmodel', title: 'Exercise 2: your d_model', frameTitle: 'Exercise 2: equal parameter counts',
    text: 'Every head count that divides the student\'s d_model, with the same total each time, and a head count that the module refuses.',
    attrs: [['ex2-d-model', '12'], ['ex2-heads', '5']], query: [['ex2DModel', '12'], ['ex2Heads', '5']], height: 1150,
  },
  {
    widget: 'ex3', tag: 'mha-exercise-torch', title: 'Exercise 3: against PyTorch', frameTitle: 'Exercise 3: the manual pipeline against PyTorch',
    text: 'The lesson\'s weights packed into nn.MultiheadAttention\'s layout; both outputs and their largest difference. No controls: the lesson\'s own run.',
    attrs: [['seed', '7'], ['controls', 'none']], query: [['seed', '7'], ['controls', 'none']], height: 2100,
  },
  {
    widget: 'quiz', tag: 'mha-quiz', title: 'Quiz', frameTitle: 'Multi-head attention quiz',
    text: 'Five questions with instant feedback. Each answer is reported to the page as a headwise-quiz event (and by the iframe as a headwise:quiz message), so a course site can record it. Downloads are switched off here.',
    attrs: [['exports', 'none']], query: [['exports', 'none']], height: 1950,
  },
  {
    widget: 'python', tag: 'mha-python', title: 'Reproduce it in Python', frameTitle: 'Python code for the current settings',
    text: 'NumPy and PyTorch code for the current settings and what it prints; only the seed can be changed here, and only the .py download is offered.',
    attrs: [['seed', '7'], ['controls', 'seed'], ['exports', 'py']], query: [['seed', '7'], ['controls', 'seed'], ['exports', 'py']], height: 4100,
  },
  {
    widget: 'train', tag: 'mha-train', title: 'Watch heads specialise', frameTitle: 'Training 1, 2 and 4 heads live',
    text: 'Three tiny models (1, 2 and 4 heads, the same parameter count) trained live, with their curves, every head\'s attention as it learns, the verdict and switches that turn heads off. Here the task is locked; students choose the seed.',
    attrs: [['train-seed', '1'], ['controls', 'trainSeed,trainTask'], ['locked', 'trainTask']],
    query: [['trainSeed', '1'], ['controls', 'trainSeed,trainTask'], ['lock', 'trainTask']],
    // Measured before training (1878 px at 720 px in Chromium); the verdict adds about 300 px.
    height: 2300,
  },
  {
    widget: 'heads-needed', tag: 'mha-heads-needed', title: 'How many heads does it take?', frameTitle: 'How many heads a task of several relations needs',
    text: 'One model per head count (1, 2, 4, 8) on a task built from the relations the student picks, and on request the whole grid of 1 to 4 relations, filling in live; any cell opens on its attention tables, its ablation matrix and its timeline. Here the seed is fixed; students choose the relations.',
    attrs: [['heads-seed', '1'], ['controls', 'headsRelations,headsSeed'], ['locked', 'headsSeed']],
    query: [['headsSeed', '1'], ['controls', 'headsRelations,headsSeed'], ['lock', 'headsSeed']],
    height: 2300,
  },
  {
    widget: 'induction', tag: 'mha-induction', title: 'Heads that work together', frameTitle: 'Two layers of two heads beside one layer of four, trained live',
    text: 'Two layers × two heads trained live beside one layer of four heads (the same d_model) on random tokens with a repeated segment: the loss plateaus, then drops when the induction head forms; layer 2\'s circuits read from the weights as it trains (each head\'s copying score, its K-composition with each layer-1 head) and the steps where the copier formed and learnt where to look; every head\'s attention on an editable probe, its previous-token and induction scores, and switches that turn heads off.',
    attrs: [], query: [], height: 7600,
  },
  {
    widget: 'sentence', tag: 'mha-sentence', title: 'Your own sentence', frameTitle: 'The heads of a small language model on the student\'s sentence',
    text: 'A small language model that Headwise trained on State of the Union addresses (1790–2000) reads the student\'s sentence: every head of both layers as a map over its words, labelled with the role measured on held-out text, the five likeliest next words, the loss, unknown words marked, and switches that turn heads off. The model reads English. The student can also train it on a text of their own, in the browser, and switch every view to that model.',
    attrs: [], query: [], height: 9600,
  },
  {
    widget: 'lesson', tag: 'mha-lesson', title: 'The whole lesson', frameTitle: 'Multi-head attention, verified live',
    text: 'Everything: the prose, every widget, the exercises and the quiz.',
    attrs: [], query: [], height: 21000, lazy: true,
  },
];

/**
 * An attribute value for a snippet. The values are this file's own (no quotes, no character
 * references), so a URL keeps its plain "&" and stays readable.
 * @param {string} s
 */
function escapeAttr(s) {
  return s.replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The folder the snippets point at. */
function hostedBase() {
  const here = new URL('.', window.location.href);
  return here.protocol === 'http:' || here.protocol === 'https:' ? here.href : 'https://your-site.example/headwise/';
}

/**
 * @param {Item} item
 * @param {string} base
 */
function elementSnippet(item, base) {
  const attrs = item.attrs.map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  return `<script src="${base}headwise-elements.js" defer></script>\n<${item.tag}${attrs}></${item.tag}>`;
}

/**
 * @param {Item} item
 * @param {string} base
 */
function iframeUrl(item, base) {
  const q = new URLSearchParams([['widget', item.widget], ...item.query]);
  return `${base}embed.html?${q.toString().replace(/%2C/g, ',')}`;
}

/**
 * @param {Item} item
 * @param {string} base
 */
function iframeSnippet(item, base) {
  return `<iframe data-headwise src="${escapeAttr(iframeUrl(item, base))}"\n        sandbox="allow-scripts allow-downloads" title="${escapeAttr(item.frameTitle)}"\n        width="100%" height="${item.height}" loading="lazy"></iframe>\n<script src="${base}headwise-embed.js" defer></script>`;
}

/**
 * A snippet block: a heading, the code, a copy button.
 * @param {string} title
 * @param {string} text
 * @param {string} testid
 */
function snippet(title, text, testid) {
  const code = h('code', { text });
  return h('div', { class: 'hw-gallery-snippet' }, [
    h('h3', { text: title }),
    h('pre', { class: 'hw-code', 'data-testid': testid, tabindex: '0' }, [code]),
    copyButton(code, { label: `Copy: ${title}`, copy: 'Copy', copied: 'Copied.', selected: 'Selected: press Ctrl+C (⌘C) to copy.' }),
  ]);
}

/**
 * @param {Item} item
 * @param {string} base
 */
function section(item, base) {
  const live = h('div', { class: 'hw-gallery-live' });
  const makeElement = () => {
    const el = document.createElement(item.tag);
    for (const [k, v] of item.attrs) el.setAttribute(k, v);
    return el;
  };
  const makeFrame = () => {
    const frame = /** @type {HTMLIFrameElement} */ (h('iframe', {
      class: 'hw-gallery-frame', 'data-headwise': '', sandbox: 'allow-scripts allow-downloads', title: item.frameTitle, height: String(item.height),
    }));
    frame.src = iframeUrl(item, new URL('.', window.location.href).href);
    return frame;
  };
  let mode = item.lazy ? 'none' : 'element';
  if (!item.lazy) live.appendChild(makeElement());
  else live.hidden = true;
  const asElement = h('button', { type: 'button', class: 'hw-button hw-button-quiet', 'data-show': 'element', text: item.lazy ? 'Show it here' : 'Web component' });
  const asFrame = h('button', { type: 'button', class: 'hw-button hw-button-quiet', 'data-show': 'iframe', text: 'Show it as an iframe' });
  /** @param {string} next */
  const show = (next) => {
    if (next === mode) return;
    mode = next;
    live.hidden = false;
    live.replaceChildren(next === 'element' ? makeElement() : makeFrame());
    asElement.setAttribute('aria-pressed', String(next === 'element'));
    asFrame.setAttribute('aria-pressed', String(next === 'iframe'));
  };
  asElement.addEventListener('click', () => show('element'));
  asFrame.addEventListener('click', () => show('iframe'));
  if (!item.lazy) asElement.setAttribute('aria-pressed', 'true');
  return h('section', { class: 'hw-gallery-item', id: `widget-${item.widget}`, 'data-widget': item.widget, 'aria-labelledby': `title-${item.widget}` }, [
    h('h2', { id: `title-${item.widget}`, text: item.title }),
    h('p', { text: item.text }),
    h('div', { class: 'hw-controls-actions', role: 'group', 'aria-label': 'Preview' }, [asElement, asFrame]),
    live,
    h('div', { class: 'hw-gallery-snippets' }, [
      snippet('Web component (plain HTML, Jupyter Book, MkDocs, Quarto)', elementSnippet(item, base), `snippet-element-${item.widget}`),
      snippet('iframe (Canvas, Moodle, Open edX, any page)', iframeSnippet(item, base), `snippet-iframe-${item.widget}`),
    ]),
  ]);
}

function start() {
  const base = hostedBase();
  const setupEl = document.querySelector('[data-snippet="setup-elements"]');
  if (setupEl) setupEl.replaceWith(snippet('Web components', `<script src="${base}headwise-elements.js" defer></script>`, 'snippet-setup-elements'));
  const setupFrame = document.querySelector('[data-snippet="setup-iframe"]');
  if (setupFrame) setupFrame.replaceWith(snippet('iframe helper', `<script src="${base}headwise-embed.js" defer></script>`, 'snippet-setup-iframe'));
  const note = document.querySelector('[data-testid="gallery-base"]');
  if (note) {
    note.textContent = base.startsWith('https://your-site.example/')
      ? 'This page was opened from disk, so the snippets use a placeholder address: replace https://your-site.example/headwise/ with the address of your copy of dist/.'
      : `The snippets point at ${base}, where this page is hosted.`;
  }
  const list = document.getElementById('gallery-widgets');
  if (list) for (const item of ITEMS) list.appendChild(section(item, base));

  const log = document.querySelector('[data-testid="quiz-log"]');
  /** @type {string[]} */
  const lines = [];
  document.addEventListener('headwise-quiz', (event) => {
    const e = /** @type {CustomEvent} */ (event);
    const from = e.target instanceof Element ? e.target.localName : 'page';
    lines.unshift(`${from}: ${JSON.stringify(e.detail)}`);
    if (log) log.textContent = lines.slice(0, 10).join('\n');
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
