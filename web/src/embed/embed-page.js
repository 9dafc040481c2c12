// The iframe embed (embed.html): one widget chosen by the query string, e.g.
//   embed.html?widget=heads&seed=7&tokens=5&dModel=8&heads=2&controls=seed,heads&lock=dModel&theme=light&id=w1
// The parameters become the <mha-*> element's attributes. The page tells its parent how tall
// its content is and what the student answers in the quiz, with postMessage (see web/EMBEDDING.md, "Quiz answers and other events"):
//   {type: 'headwise:ready',  id, widget, error}
//   {type: 'headwise:height', id, height}
//   {type: 'headwise:quiz',   id, question, questionId, answer, answerText, correct, score, answered, total}
//   {subject: 'lti.frameResize', height}   (the LTI convention some LMSs follow)
// A parent may send {type: 'headwise:request-height'} to have the height sent again.
// No height is sent before the widget is drawn (module loaded, stylesheet applied), so a parent
// that follows the messages never sees the frame collapse while it loads.
// It needs nothing from its parent, so it runs in <iframe sandbox="allow-scripts">.
// lang=es draws the widget in that language (the element's `lang`); without it the widget follows
// the reader's browser. The page's own few sentences come from English's embed.* keys, which are
// all this bundle carries of the catalogues, and from the language's file (i18n/<tag>.js beside
// this page, which the widget loads too): they are written once it is here.

import {
  isReady, onLanguageChange, requestedLanguage, setAutoLang, setLanguageBase, t, isLanguageTag,
  whenLanguage,
} from '../shared/i18n/i18n.js';
import { translateTree } from '../shared/i18n/translate-dom.js';
import { matchLanguage } from '../shared/i18n/language-tags.js';
import { scriptBase } from '../shared/platform/scripts.js';
import { SETTING, SETTINGS } from '../shared/state/settings.js';

// The languages' files are in i18n/ beside this script (read while it runs: currentScript).
setLanguageBase(scriptBase('embed-page.js'));

/** widget= value → element. */
export const WIDGETS = /** @type {Record<string, string>} */ ({
  heads: 'mha-heads',
  params: 'mha-params',
  circuits: 'mha-circuits',
  ex1: 'mha-exercise-seeds',
  ex2: 'mha-exercise-dmodel',
  ex3: 'mha-exercise-torch',
  quiz: 'mha-quiz',
  python: 'mha-python',
  train: 'mha-train',
  'heads-needed': 'mha-heads-needed',
  induction: 'mha-induction',
  sentence: 'mha-sentence',
  lesson: 'mha-lesson',
});

/**
 * Query parameter → attribute: each setting's public name (`dModel`) and its permalink name
 * (`d_model`, `ex1_seed`, …) from the settings table, `numHeads`, and the embed's own options.
 */
const PARAMS = /** @type {Record<string, string>} */ ({
  ...Object.fromEntries(SETTINGS.filter((s) => s.attr).flatMap((s) => [
    ...(s.embed ? [[s.embed, s.attr]] : []),
    ...(s.type === 'labels' ? [] : [[s.hash, s.attr]]),
  ])),
  numHeads: SETTING.numHeads.attr,
  controls: 'controls',
  lock: 'locked',
  locked: 'locked',
  exports: 'exports',
  theme: 'theme',
});

const BOOLEAN_ATTRS = new Set(SETTINGS.filter((s) => s.type === 'boolean').map((s) => s.attr));
const MAX_HEIGHT = 100000;

/**
 * @param {string} text  in the page's language
 * @param {string} [cls]
 */
function message(text, cls = 'mha-embed-message') {
  const p = document.createElement('p');
  p.className = cls;
  p.setAttribute('role', cls === 'mha-embed-message' ? 'alert' : 'status');
  p.textContent = text;
  return p;
}

/**
 * @param {Record<string, unknown>} data
 */
function post(data) {
  if (window.parent === window) return;
  window.parent.postMessage(data, '*');
}

function start() {
  const main = /** @type {HTMLElement} */ (document.getElementById('embed'));
  const params = new URLSearchParams(window.location.search);
  const id = (params.get('id') || '').slice(0, 200);
  const widget = params.get('widget') || 'lesson';
  const tag = Object.prototype.hasOwnProperty.call(WIDGETS, widget) ? WIDGETS[widget] : null;
  // The language asked for: the widget's (a lang attribute, so that it is the widget's choice,
  // with the warning its element gives for one there is no catalogue of), and the page's.
  const langParam = params.get('lang');
  const wanted = langParam !== null && isLanguageTag(langParam.trim()) ? langParam.trim() : null;
  const target = wanted ? matchLanguage(wanted) || 'en' : requestedLanguage(document.body);
  // The page's own sentences, each written in the language once its file is here (or could not be
  // loaded, or is late: then in English, and again when it arrives).
  /** @type {[HTMLElement, string, Record<string, unknown>][]} */
  const texts = [];
  let lang = '';
  const paint = () => {
    const now = isReady(target) ? target : 'en';
    if (now === lang) return;
    lang = now;
    setAutoLang(document.documentElement, lang);
    translateTree(document, lang);
    for (const [p, key, vars] of texts) p.textContent = t(key, vars, lang);
  };
  /**
   * A message of the page, written now if its language is here, else when it is.
   * @param {string} key
   * @param {Record<string, unknown>} vars
   * @param {string} [cls]
   */
  const say = (key, vars, cls) => {
    const p = message('', cls);
    texts.push([p, key, vars]);
    if (lang) p.textContent = t(key, vars, lang);
    return p;
  };
  if (isReady(target)) paint();
  else whenLanguage(target).then(paint);
  onLanguageChange(() => { if (lang) paint(); });

  // Height: the content's own height (never the viewport's), sent whenever it changes once the
  // widget is drawn.
  let sent = -1;
  let drawn = false;
  const sendHeight = (force = false) => {
    if (!drawn) return;
    const root = document.documentElement;
    // A horizontal scrollbar, if any, takes room below the content.
    const scrollbar = Math.max(0, window.innerHeight - root.clientHeight);
    const height = Math.min(MAX_HEIGHT, Math.ceil(root.getBoundingClientRect().height + scrollbar));
    if (height === sent && !force) return;
    sent = height;
    post({ type: 'headwise:height', id, height });
    // The same, in the form Canvas (and other LMSs that resize LTI tools) understand.
    post({ subject: 'lti.frameResize', height });
  };
  // Browsers pause rendering (and so ResizeObserver) in cross-origin frames that are out of view,
  // so changes to the content also trigger a measurement; reading the layout works regardless.
  let timer = 0;
  const schedule = () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => sendHeight(), 20);
  };
  // The size is watched only once the widget is drawn, when a height can be sent: WebKit now and
  // then reports a "ResizeObserver loop" error while the page is still being laid out at load,
  // and in a frame sandboxed without allow-same-origin that error reaches the page as an opaque
  // "Script error.", which a course site's error monitor cannot tell from a real one.
  let sized = false;
  const markDrawn = () => {
    drawn = true;
    if (sized) return;
    sized = true;
    new ResizeObserver(schedule).observe(document.documentElement);
  };
  const watch = new MutationObserver(schedule);
  watch.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
  window.addEventListener('resize', schedule);
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const data = event.data;
    if (data && typeof data === 'object' && data.type === 'headwise:request-height') sendHeight(true);
  });

  if (!tag) {
    main.appendChild(say('embed.unknownWidget', { widget: widget.slice(0, 40), widgets: Object.keys(WIDGETS).join(', ') }));
    post({ type: 'headwise:ready', id, widget, error: 'unknown widget' });
    markDrawn();
    sendHeight();
    return;
  }

  const el = document.createElement(tag);
  const theme = params.get('theme');
  if (theme !== null) document.documentElement.dataset.theme = theme.trim().toLowerCase();
  /** @type {string[]} */
  const labels = [];
  const unknown = [];
  if (wanted) el.setAttribute('lang', wanted);
  else if (langParam !== null) main.appendChild(say('embed.badLang', {}, 'mha-embed-notice'));
  for (const [key, value] of params) {
    if (key === 'id' || key === 'widget' || key === 'lang') continue;
    const label = /^label\.(\d{1,4})$/.exec(key);
    if (label) {
      labels[Number(label[1])] = value;
    } else if (Object.prototype.hasOwnProperty.call(PARAMS, key)) {
      const attr = PARAMS[key];
      if (BOOLEAN_ATTRS.has(attr) && ['0', 'false', 'no', 'off'].includes(value.trim().toLowerCase())) el.removeAttribute(attr);
      else el.setAttribute(attr, value);
    } else {
      unknown.push(key.slice(0, 40));
    }
  }
  if (labels.length && !el.hasAttribute('labels')) el.setAttribute('labels', Array.from(labels, (l) => l || '').join(','));
  if (unknown.length) {
    main.appendChild(say('embed.ignored', { count: unknown.length, names: unknown.map((k) => `"${k}"`).join(', ') }, 'mha-embed-notice'));
  }
  el.addEventListener('headwise-quiz', (event) => {
    post({ type: 'headwise:quiz', id, ...(/** @type {CustomEvent} */ (event)).detail });
  });
  el.addEventListener('headwise-ready', (event) => {
    post({ type: 'headwise:ready', id, widget, error: (/** @type {CustomEvent} */ (event)).detail.error });
    // Drawn: the widget has rendered from the module (or shows why it could not); the first
    // height goes once its stylesheet has been applied too.
    const whenStyled = () => {
      const frame = el.shadowRoot && el.shadowRoot.querySelector('.mha-frame');
      if (frame && /** @type {HTMLElement} */ (frame).hidden) {
        setTimeout(whenStyled, 50);
        return;
      }
      markDrawn();
      sendHeight();
    };
    whenStyled();
  });
  main.appendChild(el);
  if (el.shadowRoot) watch.observe(el.shadowRoot, { childList: true, subtree: true, attributes: true, characterData: true });
  if (!customElements.get(tag)) {
    main.appendChild(say('embed.notLoaded', {}));
    markDrawn();
  }
  sendHeight();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
