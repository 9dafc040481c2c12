// <hw-sentence>: the section "Your own sentence". A small language model that Headwise trained
// itself (2 layers × 4 heads on State of the Union addresses, cpp/tools/train_text.cpp) reads the
// student's sentence: every head of every layer shows its attention over the student's words as a
// small map, labelled with the role its training measured on held-out text (roles.js); the model's
// five likeliest next words at a chosen word; the loss; unknown words marked; and a switch per
// head that turns it off, showing what changes (the guesses, the loss, the later layer's maps);
// the chosen word's logit as a sum of paths (the direct path and one term per head), and the
// heads' circuits read from the weights (scores, K-composition, the words a head's OV circuit
// promotes), laid out by sentence-circuits.js.
//
// The model (model.js) loads when the section comes near the window or the student acts on it;
// every forward (two at most per change: all heads, and with the heads switched off) runs on the
// main thread in a task of its own after typing pauses (a few ms for 32 words).

import { HwElement, define } from '../shared/ui/element.js';
import { code, h, replace, setText } from '../shared/ui/dom.js';
import { codeBlock } from '../shared/python/code-block.js';
import { prefersDark, rampRGB } from '../shared/ui/color.js';
import { errorOf } from '../shared/state/errors.js';
import { fmtInt } from '../shared/ui/format.js';
import { MODEL_FILE, evaluationOf, shownModel, textModel, textModelNow } from './model.js';
import { OwnTextPanel } from './own-text.js';
import { headRoles } from './roles.js';
import { circuitsCode, circuitsOutput, sentenceCode, sentenceOutput, shellWord } from './sentence-python.js';
import { PROMOTED_K, drawBars, drawPromoted, scoreTable, setLine } from './sentence-circuits.js';

/** How far ahead of the window the model starts loading (px, above and below). */
const NEAR_MARGIN_PX = 1500;
/** How long typing must pause before the model reads the text again (ms). */
const TYPING_PAUSE_MS = 150;

/**
 * The presets: English sentences (the model reads English), each making one kind of head visible.
 * Their names are translated (sentence.preset.<key>).
 */
export const PRESETS = /** @type {const} */ ([
  ['prose', 'The people of the United States have a right to expect that their government will do its duty.'],
  ['repeat', 'We must keep the peace of the world, and we must keep the peace of the world.'],
  ['same', 'Congress, Congress and again Congress: the nation asks Congress to act now.'],
  ['new', 'My smartphone and the internet changed how the people of this nation talk.'],
]);

/** @param {number} x */
const f2 = (x) => x.toFixed(2);

/** The exercise's sentence: a phrase said twice, the induction head's case (the first preset's, repeated). */
export const FIND_TEXT = 'The people of the United States have a right to expect that their government will do its duty. The people of the United States';

/** Each model's circuits (textModel.circuits), computed once. @type {WeakMap<object, any>} */
const circuitsOf = new WeakMap();

class HwSentence extends HwElement {
  build() {
    for (const line of this.querySelectorAll(':scope > [data-hw-train-loading]')) line.remove();
    if (this.text === undefined) this.text = PRESETS[0][1];
    if (this.off === undefined) this.off = new Set();
    /** @type {number|null} the word whose guesses are shown (null: the last) */
    if (this.pos === undefined) this.pos = null;

    this.about = h('p', { class: 'hw-hint hw-sentence-about', 'data-testid': 'sentence-about' });
    const presets = PRESETS.map(([key, text]) => {
      const b = h('button', { type: 'button', class: 'hw-button hw-button-quiet', 'data-testid': 'sentence-preset', 'data-preset': key, text: this.t(`sentence.preset.${key}`) });
      b.addEventListener('click', () => {
        this.input.value = text;
        this.readText(true);
      });
      return b;
    });
    this.presets = h('div', { class: 'hw-sentence-presets', role: 'group', 'aria-label': this.t('sentence.presets') }, [
      h('span', { class: 'hw-sentence-presets-label', text: this.t('sentence.presets') }), ...presets,
    ]);
    this.input = /** @type {HTMLTextAreaElement} */ (h('textarea', {
      id: 'sentence-text', name: 'sentence-text', rows: 3, autocomplete: 'off', spellcheck: 'false', lang: 'en', 'data-testid': 'sentence-text',
      'aria-describedby': 'sentence-hint sentence-error',
    }));
    this.input.value = this.text;
    this.input.addEventListener('input', () => this.readText(false));
    this.hint = h('p', { class: 'hw-hint', id: 'sentence-hint', 'data-testid': 'sentence-hint' });
    this.error = h('p', { class: 'hw-error', id: 'sentence-error', 'data-error-for': 'sentence-text', 'data-testid': 'sentence-error', role: 'alert', hidden: true });
    this.words = h('div', { class: 'hw-sentence-words', role: 'group', 'aria-label': this.t('sentence.wordsLabel'), 'data-testid': 'sentence-words' });
    this.guesses = h('div', { class: 'hw-sentence-guesses', 'data-testid': 'sentence-guesses', 'aria-live': 'polite' });
    this.loss = h('p', { class: 'hw-sentence-loss', 'data-testid': 'sentence-loss' });
    this.switchResult = h('p', { class: 'hw-hint', 'data-testid': 'sentence-switch-result', role: 'status' });
    this.heads = h('div', { class: 'hw-sentence-heads', 'data-testid': 'sentence-heads' });

    // "Train it on your own text" (own-text.js): its switch between the models goes first, since
    // every view below reads the model it chooses; the panel itself after the circuits.
    this.ownPanel = new OwnTextPanel(this);
    this.appendChild(this.about);
    this.appendChild(this.ownPanel.switcher);
    this.appendChild(this.presets);
    this.appendChild(h('div', { class: 'hw-field hw-sentence-field' }, [
      h('label', { for: 'sentence-text', text: this.t('sentence.label') }), this.input, this.hint, this.error,
    ]));
    this.appendChild(h('p', { class: 'hw-hint', text: this.t('sentence.wordsHint') }));
    this.appendChild(this.words);
    this.appendChild(this.guesses);
    this.appendChild(this.loss);
    this.buildSplit();
    this.appendChild(h('h3', { class: 'hw-sentence-heads-title', text: this.t('sentence.headsTitle') }));
    this.appendChild(h('p', { class: 'hw-hint', text: this.t('sentence.headsHint') }));
    this.appendChild(this.switchResult);
    this.appendChild(this.heads);
    this.buildCircuits();
    this.appendChild(this.ownPanel.el);

    // "Reproduce it in Python": the NumPy script for this sentence and these heads switched off
    // (sentence-python.js), and what it prints, from the page's own run.
    const python = codeBlock({
      id: 'sentence-python', title: this.t('sentence.python'), lang: this.language,
      after: [this.pythonHint = h('p', { class: 'hw-hint', 'data-testid': 'sentence-python-hint' })],
    });
    this.codeEl = python.code;
    this.pyOutput = python.output;
    this.appendChild(python.el);
    // The same for the sum of paths and the circuits (circuitsCode).
    const circuits = codeBlock({
      id: 'circuits-python', title: this.t('sentence.circuitsPython'), lang: this.language,
      after: [this.circuitsPythonHint = h('p', { class: 'hw-hint', 'data-testid': 'circuits-python-hint' })],
    });
    this.circuitsCodeEl = circuits.code;
    this.circuitsPyOutput = circuits.output;
    this.appendChild(circuits.el);

    /** @type {any} the last good run: {text, base, off, ablate} */
    this.result = null;
    /** @type {string} */
    this.layoutKey = '';
    this.onTheme(() => {
      this.layoutKey = '';
      this.draw();
    });
  }

  /** The sum of paths: the chosen word's logit split into the direct path and every head. */
  buildSplit() {
    this.splitInput = /** @type {HTMLInputElement} */ (h('input', {
      type: 'text', id: 'sentence-split-word', name: 'sentence-split-word', autocomplete: 'off', spellcheck: 'false', lang: 'en',
      'data-testid': 'split-word', 'aria-describedby': 'sentence-split-error',
    }));
    if (this.splitWord) this.splitInput.value = this.splitWord;
    this.splitInput.addEventListener('input', () => {
      clearTimeout(this.splitTyping);
      this.splitTyping = setTimeout(() => {
        this.splitWord = this.splitInput.value;
        this.draw();
      }, TYPING_PAUSE_MS);
    });
    this.splitError = h('p', { class: 'hw-error', id: 'sentence-split-error', 'data-error-for': 'sentence-split-word', 'data-testid': 'split-error', role: 'alert', hidden: true });
    this.splitTitle = h('p', { class: 'hw-sentence-split-title', 'data-testid': 'split-title' });
    this.splitBars = h('ol', { class: 'hw-split-bars', 'data-testid': 'split-bars' });
    this.splitSum = h('p', { class: 'hw-hint', 'data-testid': 'split-sum' });
    this.appendChild(h('section', { class: 'hw-sentence-split', 'data-testid': 'sentence-split' }, [
      h('h3', { text: this.t('sentence.split.title') }),
      h('p', { class: 'hw-hint', text: this.t('sentence.split.hint') }),
      h('div', { class: 'hw-field hw-sentence-split-field' }, [
        h('label', { for: 'sentence-split-word', text: this.t('sentence.split.label') }), this.splitInput, this.splitError,
      ]),
      this.splitTitle, this.splitBars, this.splitSum,
    ]));
  }

  /** The circuits panel: scores, composition, and what a head's OV circuit promotes. */
  buildCircuits() {
    this.circuitTables = h('div', { class: 'hw-circuits-tables', 'data-testid': 'circuits-tables' });
    this.promotedHead = /** @type {HTMLSelectElement} */ (h('select', { id: 'sentence-promoted-head', name: 'sentence-promoted-head', autocomplete: 'off', 'data-testid': 'promoted-head' }));
    this.promotedHead.addEventListener('change', () => {
      this.promoteFrom = Number(this.promotedHead.value);
      this.draw();
    });
    this.promotedTitle = h('p', { class: 'hw-sentence-split-title', 'data-testid': 'promoted-title' });
    this.promotedList = h('ol', { class: 'hw-circuits-promoted', 'data-testid': 'promoted-list' });
    this.appendChild(h('section', { class: 'hw-sentence-circuits', 'data-testid': 'sentence-circuits' }, [
      h('h3', { text: this.t('sentence.circuits.title') }),
      h('p', { class: 'hw-hint', text: this.t('sentence.circuits.hint') }),
      this.circuitTables,
      h('h4', { text: this.t('sentence.promoted.heading') }),
      h('p', { class: 'hw-hint', text: this.t('sentence.promoted.hint') }),
      h('div', { class: 'hw-field' }, [h('label', { for: 'sentence-promoted-head', text: this.t('sentence.promoted.label') }), this.promotedHead]),
      this.promotedTitle, this.promotedList,
    ]));
    // The exercise: find the head the induction head reads in the composition table, then check
    // it by switching heads off.
    this.findSelect = /** @type {HTMLSelectElement} */ (h('select', { id: 'sentence-find-head', name: 'sentence-find-head', autocomplete: 'off', 'data-testid': 'find-head' }));
    const check = h('button', { type: 'button', class: 'hw-button', 'data-testid': 'find-check', text: this.t('sentence.find.check') });
    check.addEventListener('click', () => this.checkFind());
    this.findResult = h('p', { class: 'hw-verdict', 'data-testid': 'find-result', role: 'status' });
    this.appendChild(h('section', { class: 'hw-sentence-find', 'data-testid': 'sentence-find' }, [
      h('h4', { text: this.t('sentence.find.title') }),
      h('p', { text: this.t('sentence.find.question') }),
      h('div', { class: 'hw-field hw-sentence-find-field' }, [h('label', { for: 'sentence-find-head', text: this.t('sentence.find.label') }), this.findSelect, check]),
      this.findResult,
    ]));
  }

  /**
   * The exercise's answer, from the model's circuits: the last layer's best copier (the
   * induction head) and the earlier head its K-composition is highest with.
   * @returns {{layer: number, head: number, earlier: number, answer: number, k: number}|null}
   */
  findAnswer() {
    const model = textModelNow();
    const circuits = model && circuitsOf.get(model);
    if (!circuits) return null;
    const c = model.config;
    const layer = c.layers - 1;
    const earlier = layer - 1;
    let head = 0;
    for (let k = 1; k < c.numHeads; k += 1) if (Number(circuits.copying[layer][k]) > Number(circuits.copying[layer][head])) head = k;
    const row = /** @type {number[]} */ (circuits.composition.k[layer][head][earlier]);
    let answer = 0;
    for (let g = 1; g < row.length; g += 1) if (row[g] > row[answer]) answer = g;
    return { layer, head, earlier, answer, k: row[answer] };
  }

  /** Check the student's head, and show what switching each earlier head off does. */
  checkFind() {
    const model = textModelNow();
    const a = this.findAnswer();
    if (!model || !a) return;
    const c = model.config;
    if (this.findSelect.value === '') {
      this.findResult.dataset.correct = '';
      setText(this.findResult, this.t('sentence.find.none'));
      return;
    }
    const chosen = Number(this.findSelect.value);
    const name = (/** @type {number} */ l, /** @type {number} */ k) => this.t('induction.headName', { layer: l + 1, head: k });
    const correct = chosen === a.answer;
    // The check by switching off: the repeated phrase, the probability of its word after the
    // second "united" with each earlier head off in turn.
    const words = model.tokenize(FIND_TEXT).words;
    const pos = words.lastIndexOf('united');
    const p = (/** @type {number[]} */ ablate) => Math.exp(-model.run({ text: FIND_TEXT, ablate }).tokenLoss[pos]);
    const all = p([]);
    const off = Array.from({ length: c.numHeads }, (_, g) => p([a.earlier * c.numHeads + g]));
    const others = off.filter((_, g) => g !== a.answer);
    this.findResult.dataset.correct = String(correct);
    // The student's answer, for the page's progress (src/page/path.js keeps and restores it).
    this.dispatchEvent(new CustomEvent('headwise-find', { bubbles: true, composed: true, detail: { head: chosen, correct } }));
    this.findResult.dataset.off = off.map(String).join(',');
    this.findResult.dataset.all = String(all);
    setText(this.findResult, this.t(correct ? 'sentence.find.right' : 'sentence.find.wrong', {
      chosen: name(a.earlier, chosen), head: name(a.layer, a.head), answer: name(a.earlier, a.answer), k: a.k.toFixed(3),
      word: words[pos + 1], p: all.toFixed(3), pOff: off[a.answer].toFixed(3), pOthers: Math.min(...others).toFixed(3),
    }));
  }

  static get keep() {
    return ['text', 'off', 'pos', 'watching', 'splitWord', 'promoteFrom', 'own'];
  }

  connectedCallback() {
    super.connectedCallback();
    this.watchNear();
  }

  /** Load the model when the section comes near the window, or the student acts on it. */
  watchNear() {
    if (this.watching || textModelNow()) return;
    this.watching = true;
    const start = () => {
      if (this.nearWatch) this.nearWatch.disconnect();
      for (const type of ['pointerdown', 'focusin', 'keydown']) this.removeEventListener(type, start);
      this.loadModel();
    };
    for (const type of ['pointerdown', 'focusin', 'keydown']) this.addEventListener(type, start);
    if (typeof IntersectionObserver !== 'function') {
      start();
      return;
    }
    this.nearWatch = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) start();
    }, { rootMargin: `${NEAR_MARGIN_PX}px 0px` });
    this.nearWatch.observe(this);
  }

  loadModel() {
    if (this.loading) return;
    this.loading = true;
    this.loadError = null;
    textModel().then(() => {
      if (!this._built) return;
      this.compute();
      this.refresh();
    }, (e) => {
      this.loadError = errorOf(e);
      this.refresh();
    });
  }

  /** The model shown changed (own-text.js): every view reads it anew. */
  modelChanged() {
    this.layoutKey = '';
    this.result = null;
    this.promoteFrom = undefined;
    // The heads switched off were the other model's.
    this.off = new Set();
    this.dataset.shown = shownModel();
    if (textModelNow()) this.compute();
  }

  /** @param {any} _store */
  update(_store) {
    const model = textModelNow();
    if (!model) {
      this.setStatus(this.loadError ? this.t('sentence.loadFailed', { reason: this.say(this.loadError) }) : this.t('sentence.loading'), Boolean(this.loadError));
      this.toggleAttribute('data-model', false);
      return;
    }
    if (!this.result && !this.error.textContent) this.compute();
    this.draw();
  }

  /**
   * The text field changed: read it again after typing pauses (a preset at once).
   * @param {boolean} now
   */
  readText(now) {
    clearTimeout(this.typing);
    // data-pending: text typed that the model has not read yet.
    this.toggleAttribute('data-pending', true);
    if (now) {
      this.compute();
      return;
    }
    this.typing = setTimeout(() => this.compute(), TYPING_PAUSE_MS);
  }

  /** Run the model on the field's text (all heads, and with the heads switched off), then draw. */
  compute() {
    const model = textModelNow();
    if (!this._built) return;
    if (!model) {
      this.loadModel();
      return;
    }
    const text = this.input.value;
    this.toggleAttribute('data-pending', false);
    const max = model.config.context;
    let message = null;
    try {
      const tokens = model.tokenize(text);
      const count = tokens.words.length;
      if (count === 0) message = this.t('sentence.empty', { max });
      else if (count > max) message = this.t('sentence.tooLong', { count, max });
      else {
        const ablate = [...this.off].sort((a, b) => a - b);
        const t0 = performance.now();
        const base = model.run({ text });
        const off = ablate.length ? model.run({ text, ablate }) : null;
        this.dataset.forwardMs = (performance.now() - t0).toFixed(1);
        if (!this.result || this.result.text !== text) this.pos = null;
        this.text = text;
        this.result = { text, base, off, ablate };
      }
    } catch (e) {
      message = this.say(e);
    }
    // The page's own sentences are already in the widget's language; showError leaves them so.
    setText(this.error, message || '');
    this.error.hidden = !message;
    if (message) this.input.setAttribute('aria-invalid', 'true');
    else this.input.removeAttribute('aria-invalid');
    this.toggleAttribute('data-stale', Boolean(message) && Boolean(this.result));
    this.draw();
  }

  /** The parts that depend on the model and the theme. */
  layout() {
    const model = textModelNow();
    const dark = prefersDark(this.store);
    const key = `${dark}`;
    if (this.layoutKey === key && this.layoutModel === model) return;
    this.layoutKey = key;
    this.layoutModel = model;
    this.dark = dark;
    const c = model.config;
    const meta = /** @type {any} */ (model.metadata());
    this.meta = meta;
    const evaluation = evaluationOf(model);
    this.roles = headRoles(evaluation.heads, c.layers, c.numHeads);
    const held = evaluation.heldOut;
    setText(this.about, this.t(shownModel() === 'own' ? 'sentence.own.about' : 'sentence.about', {
      layers: c.layers, heads: c.numHeads, dModel: c.dModel, context: c.context, vocab: fmtInt(c.vocab - 1),
      loss: Number.isFinite(held.loss) ? f2(held.loss) : '–', unigram: Number.isFinite(held.unigram) ? f2(held.unigram) : '–',
      bigram: Number.isFinite(held.bigram) ? f2(held.bigram) : '–',
    }));
    // One card per head: its name, its role, its map, its switch and the chosen word's readout.
    /** @type {{layer: number, head: number, card: HTMLElement, canvas: HTMLCanvasElement, row: HTMLElement, readout: HTMLElement, box: HTMLInputElement}[]} */
    this.cards = [];
    const layers = [];
    for (let l = 0; l < c.layers; l += 1) {
      const grid = h('div', { class: 'hw-sentence-grid' });
      for (let k = 0; k < c.numHeads; k += 1) {
        const index = l * c.numHeads + k;
        const role = this.roles[l][k];
        const roleText = role.role === 'mixed'
          ? this.t('sentence.role.mixed', { measure: this.t(`sentence.role.${role.measure}`), score: f2(role.score) })
          : this.t('sentence.role.with', { role: this.t(`sentence.role.${role.role}`), score: f2(role.score) });
        const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'hw-sentence-map', width: 1, height: 1, 'aria-hidden': 'true' }));
        const row = h('div', { class: 'hw-sentence-row', 'aria-hidden': 'true', hidden: true });
        const readout = h('p', { class: 'hw-sentence-readout', 'data-testid': 'sentence-readout' });
        const name = this.t('induction.headName', { layer: l + 1, head: k });
        const box = /** @type {HTMLInputElement} */ (h('input', {
          type: 'checkbox', 'data-testid': 'sentence-switch', 'data-index': index, autocomplete: 'off', 'aria-label': this.t('sentence.switchLabel', { head: name }),
        }));
        box.checked = !this.off.has(index);
        box.addEventListener('change', () => {
          if (box.checked) this.off.delete(index);
          else this.off.add(index);
          this.compute();
        });
        const card = h('figure', {
          class: 'hw-sentence-head', 'data-testid': 'sentence-head', 'data-layer': l, 'data-head': k, 'data-index': index, 'data-role': role.role,
        }, [
          h('figcaption', {}, [
            h('span', { class: 'hw-head-name', text: name }),
            h('span', { class: `hw-sentence-role hw-role-${role.role}`, 'data-testid': 'sentence-role', text: roleText }),
          ]),
          h('div', { class: 'hw-sentence-map-box' }, [canvas, row]),
          readout,
          h('label', { class: 'hw-check' }, [box, ` ${this.t('sentence.on')}`]),
        ]);
        this.cards.push({ layer: l, head: k, card, canvas, row, readout, box });
        grid.appendChild(card);
      }
      layers.push(h('section', { class: 'hw-sentence-layer', 'data-layer': l }, [
        h('h4', { text: this.t('sentence.layer', { layer: l + 1 }) }), grid,
      ]));
    }
    replace(this.heads, layers);
    this.layoutCircuits(model);
    this.drawnFor = null;
  }

  /**
   * The model's circuits (the same for every sentence): the scores table, the composition
   * table of each later layer with each earlier one, the head chooser.
   * @param {any} model
   */
  layoutCircuits(model) {
    // The circuits take a few hundred ms: they are computed once per model, in a task after the
    // one that draws the maps, so the sentence shows first.
    if (!circuitsOf.has(model)) {
      this.toggleAttribute('data-circuits', false);
      clearTimeout(this.circuitsTask);
      this.circuitsTask = setTimeout(() => {
        if (!circuitsOf.has(model)) circuitsOf.set(model, model.circuits());
        if (this.layoutModel !== model) return;
        this.layoutCircuits(model);
        this.draw();
      }, 0);
      return;
    }
    const c = model.config;
    const circuits = circuitsOf.get(model);
    const name = (/** @type {number} */ l, /** @type {number} */ k) => this.t('induction.headName', { layer: l + 1, head: k });
    const rows = [];
    for (let l = 0; l < c.layers; l += 1) {
      for (let k = 0; k < c.numHeads; k += 1) {
        const copying = Number(circuits.copying[l][k]);
        rows.push({ label: name(l, k), values: [copying, circuits.previousPosition[l][k]], attrs: { 'data-layer': l, 'data-head': k } });
      }
    }
    const tables = [scoreTable(['', this.t('sentence.circuits.copying'), this.t('sentence.circuits.previous')], rows, {
      dark: this.dark, testid: 'circuits-scores', caption: this.t('sentence.circuits.scoresCaption', { scale: this.t(`sentence.circuits.scale.${this.dark ? 'dark' : 'light'}`) }),
    })];
    for (let l = 1; l < c.layers; l += 1) {
      for (let m = 0; m < l; m += 1) {
        const kc = circuits.composition.k;
        const values = Array.from({ length: c.numHeads }, (_, k) => /** @type {number[]} */ (kc[l][k][m]));
        tables.push(scoreTable(['', ...Array.from({ length: c.numHeads }, (_, g) => name(m, g))],
          values.map((v, k) => ({ label: name(l, k), values: v, attrs: { 'data-layer': l, 'data-head': k } })), {
            dark: this.dark, top: Math.max(...values.flat()), digits: 3, testid: 'circuits-composition',
            caption: this.t('sentence.circuits.compositionCaption', { later: l + 1, earlier: m + 1, scale: this.t(`sentence.circuits.scale.${this.dark ? 'dark' : 'light'}`) }),
          }));
      }
    }
    replace(this.circuitTables, tables);
    // The head whose words are listed: the student's, else the last layer's best copier.
    if (this.promoteFrom === undefined) {
      const last = c.layers - 1;
      let best = 0;
      for (let k = 1; k < c.numHeads; k += 1) if (Number(circuits.copying[last][k]) > Number(circuits.copying[last][best])) best = k;
      this.promoteFrom = last * c.numHeads + best;
    }
    const earlier = c.layers - 2;
    if (earlier >= 0) {
      const keep = this.findSelect.value;
      replace(this.findSelect, [
        h('option', { value: '', text: this.t('sentence.find.choose') }),
        ...Array.from({ length: c.numHeads }, (_, g) => h('option', { value: g, text: name(earlier, g) })),
      ]);
      if (keep) this.findSelect.value = keep;
    }
    replace(this.promotedHead, rows.map((r, i) => h('option', { value: i, text: r.label })));
    this.promotedHead.value = String(this.promoteFrom);
    this.toggleAttribute('data-circuits', true);
  }

  draw() {
    const model = textModelNow();
    if (!model || !this._built) return;
    this.layout();
    this.toggleAttribute('data-model', true);
    const r = this.result;
    const max = model.config.context;
    if (!r) return;
    const shown = r.off || r.base;
    const n = r.base.words.length;
    const pos = this.pos === null || this.pos >= n ? n - 1 : this.pos;
    const unknown = r.base.unknown.filter(Boolean).length;
    setText(this.hint, this.t('sentence.hint', { count: n, max, unknown }));
    if (this.drawnFor !== r || this.drawnPos !== pos) this.drawWords(r, pos);
    this.drawGuesses(r, pos);
    this.drawLoss(r);
    this.drawSplit(r, pos);
    this.drawPromotedWords(r, pos);
    this.drawMaps(shown, pos);
    if (this.drawnFor !== r) this.drawPython(r);
    this.drawnFor = r;
    this.drawnPos = pos;
    this.dataset.words = String(n);
    this.dataset.pos = String(pos);
  }

  /**
   * The student's words as buttons (the chosen one pressed), unknown words marked. One stop on
   * the keyboard's path: the chosen word; the arrow keys, Home and End choose another.
   * @param {any} r
   * @param {number} pos
   */
  drawWords(r, pos) {
    const words = r.base.words;
    const choose = (/** @type {number} */ i) => {
      this.pos = i;
      this.draw();
      const again = /** @type {HTMLElement|null} */ (this.words.querySelector(`[data-i="${i}"]`));
      if (again) again.focus();
    };
    replace(this.words, words.map((/** @type {string} */ w, /** @type {number} */ i) => {
      const unknown = r.base.unknown[i];
      const b = h('button', {
        type: 'button', class: `hw-sentence-word${unknown ? ' hw-unknown' : ''}`, 'data-testid': 'sentence-word', 'data-i': i,
        'aria-pressed': String(i === pos), translate: 'no', lang: 'en', title: unknown ? this.t('sentence.unknownTitle', { word: w }) : null,
        tabindex: i === pos ? '0' : '-1',
      }, [h('span', { class: 'hw-tok-idx', text: String(i) }), ' ', w, unknown ? h('span', { class: 'hw-sentence-unk', text: this.t('sentence.unknownMark') }) : null]);
      b.addEventListener('click', () => choose(i));
      b.addEventListener('keydown', (e) => {
        const to = { ArrowLeft: i - 1, ArrowUp: i - 1, ArrowRight: i + 1, ArrowDown: i + 1, Home: 0, End: words.length - 1 }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        choose(Math.max(0, Math.min(words.length - 1, to)));
      });
      return b;
    }));
  }

  /**
   * A word as the guesses show it: "<unk>" as "(an unknown word)".
   * @param {string} w
   */
  wordText(w) {
    return w === '<unk>' ? this.t('sentence.unknownWord') : w;
  }

  /**
   * The five likeliest next words after word `pos`, with all heads and (when heads are off)
   * without them; the word that follows in the text and its probability.
   * @param {any} r
   * @param {number} pos
   */
  drawGuesses(r, pos) {
    const words = r.base.words;
    const list = (/** @type {any[]} */ guesses, /** @type {string} */ title, /** @type {string} */ which) => h('div', { class: 'hw-sentence-guess-list', 'data-which': which }, [
      h('p', { class: 'hw-sentence-guess-title', text: title }),
      h('ol', { 'data-testid': 'sentence-guess-list', 'data-which': which }, guesses.map((g) => {
        const bar = h('span', { class: 'hw-sentence-bar', 'aria-hidden': 'true' });
        bar.style.width = `${Math.max(1, Math.round(g.probability * 100))}%`;
        return h('li', { 'data-word': g.word, 'data-testid': 'sentence-guess' }, [
          h('span', { class: `hw-sentence-guess-word${g.word === '<unk>' ? ' hw-unknown' : ''}`, translate: g.word === '<unk>' ? null : 'no', lang: g.word === '<unk>' ? null : 'en', text: this.wordText(g.word) }),
          h('span', { class: 'hw-sentence-p', text: f2(g.probability) }),
          h('span', { class: 'hw-sentence-bar-box', 'aria-hidden': 'true' }, [bar]),
        ]);
      })),
    ]);
    const lists = [list(r.base.predictions[pos], this.t('sentence.allHeads'), 'all')];
    if (r.off) lists.push(list(r.off.predictions[pos], this.t('sentence.withOff', { count: r.ablate.length }), 'off'));
    const next = pos + 1 < words.length ? words[pos + 1] : null;
    /** @type {(Node|string)[]} */
    const parts = [
      h('h4', { 'data-testid': 'sentence-guess-title' }, this.tNodes('sentence.after', {
        word: h('q', { translate: 'no', lang: 'en', text: words[pos] }), i: pos,
      })),
      h('div', { class: 'hw-sentence-guess-lists' }, lists),
    ];
    if (next !== null) {
      const p = (/** @type {any} */ run) => Math.exp(-run.tokenLoss[pos]);
      parts.push(h('p', { class: 'hw-hint', 'data-testid': 'sentence-next' }, this.tNodes(r.off ? 'sentence.nextOff' : 'sentence.next', {
        word: h('q', { translate: 'no', lang: 'en', text: this.wordText(next) }), p: f2(p(r.base)), pOff: r.off ? f2(p(r.off)) : '',
      })));
    } else {
      parts.push(h('p', { class: 'hw-hint', 'data-testid': 'sentence-next', text: this.t('sentence.nextNone') }));
    }
    replace(this.guesses, parts);
  }

  /**
   * The logit of the guess at word pos (or of the word typed) as the direct path plus every head.
   * @param {any} r
   * @param {number} pos
   */
  drawSplit(r, pos) {
    const model = textModelNow();
    const typed = (this.splitWord || '').trim();
    let a;
    try {
      a = model.attribute({ text: r.text, position: pos, word: typed || r.base.predictions[pos][0].id });
      this.splitError.hidden = true;
      setText(this.splitError, '');
      this.splitInput.removeAttribute('aria-invalid');
    } catch (e) {
      setText(this.splitError, this.t('sentence.split.unknown', { word: typed }));
      this.splitError.hidden = false;
      this.splitInput.setAttribute('aria-invalid', 'true');
      this.splitResult = null;
      return;
    }
    this.splitResult = a;
    const c = model.config;
    const sum = drawBars(this.splitBars, a, (p) => (p.layer < 0 ? this.t('sentence.split.direct') : this.t('induction.headName', { layer: p.layer + 1, head: p.head })));
    this.splitBars.setAttribute('aria-label', this.t('sentence.split.barsLabel', { word: this.wordText(a.word) }));
    setLine(this.splitTitle, this.t(typed ? 'sentence.split.resultTyped' : 'sentence.split.result', {
      word: this.wordText(a.word), at: r.base.words[pos], i: pos, logit: f2(a.logit), p: a.probability.toFixed(3),
    }), { word: a.word, position: String(pos), logit: String(a.logit), probability: String(a.probability) });
    setLine(this.splitSum, this.t(r.off ? 'sentence.split.sumOff' : 'sentence.split.sum', {
      sum: f2(sum), logit: f2(a.logit), diff: Math.abs(sum - a.logit).toExponential(0), heads: c.layers * c.numHeads,
    }), { sum: String(sum) });
  }

  /**
   * The words the chosen head's OV circuit promotes most from the chosen word.
   * @param {any} r
   * @param {number} pos
   */
  drawPromotedWords(r, pos) {
    const model = textModelNow();
    if (!this.hasAttribute('data-circuits')) return;
    const c = model.config;
    const i = Number(this.promoteFrom);
    const layer = Math.floor(i / c.numHeads);
    const head = i % c.numHeads;
    const result = model.promoted({ layer, head, word: r.base.ids[pos], k: PROMOTED_K });
    this.promotedList.dataset.head = String(i);
    this.promotedList.dataset.source = String(r.base.ids[pos]);
    setText(this.promotedTitle, this.t('sentence.promoted.title', {
      head: this.t('induction.headName', { layer: layer + 1, head }), word: this.wordText(result.word),
    }));
    drawPromoted(this.promotedList, result.promoted, (w) => this.wordText(w));
    // The script for what this part shows, and its printout from these same results.
    if (!this.splitResult) return;
    const typed = Boolean((this.splitWord || '').trim());
    const file = this.pythonFile();
    const settings = { text: r.text, position: pos, word: typed ? this.splitResult.word : null, head: /** @type {[number, number]} */ ([layer, head]), k: PROMOTED_K, file };
    setText(this.circuitsCodeEl, circuitsCode(settings));
    if (this.circuitsPythonHint.dataset.file !== file) {
      this.circuitsPythonHint.dataset.file = file;
      replace(this.circuitsPythonHint, this.tNodes('sentence.circuitsPythonHint', { run: code(`python3 circuits.py ${shellWord(file)}`) }));
    }
    setText(this.circuitsPyOutput, circuitsOutput({
      attribution: this.splitResult, circuits: circuitsOf.get(model), promoted: result, words: r.base.words, position: pos, head: settings.head,
    }));
  }

  /**
   * The script for the sentence and the heads switched off, and what it prints.
   * @param {any} r
   */
  drawPython(r) {
    const c = textModelNow().config;
    const ablate = r.ablate.map((/** @type {number} */ i) => /** @type {[number, number]} */ ([Math.floor(i / c.numHeads), i % c.numHeads]));
    const file = this.pythonFile();
    setText(this.codeEl, sentenceCode({ text: r.text, ablate, file }));
    setText(this.pyOutput, sentenceOutput(r.off || r.base, ablate));
    if (this.pythonHint.dataset.file === file) return;
    this.pythonHint.dataset.file = file;
    const run = code(`python3 sentence.py ${shellWord(file)}`);
    replace(this.pythonHint, file === MODEL_FILE
      ? this.tNodes('sentence.pythonHint', { file: code(`dist/models/${MODEL_FILE}`), run })
      : this.tNodes('sentence.pythonHintOwn', { file: code(file), run }));
  }

  /** The weights file the Python scripts read: the section's model's, or the student's own. */
  pythonFile() {
    return shownModel() === 'own' ? this.ownPanel.modelFileName : MODEL_FILE;
  }

  /** @param {any} r */
  drawLoss(r) {
    const n = r.base.words.length;
    if (n < 2) {
      setText(this.loss, this.t('sentence.lossNone'));
      setText(this.switchResult, '');
      return;
    }
    setText(this.loss, r.off
      ? this.t('sentence.lossOff', { loss: f2(r.base.loss), off: f2(r.off.loss), count: r.ablate.length })
      : this.t('sentence.loss', { loss: f2(r.base.loss), count: n - 1 }));
    this.loss.dataset.loss = String(r.base.loss);
    this.loss.dataset.off = r.off ? String(r.off.loss) : '';
    const c = textModelNow().config;
    const names = r.ablate.map((/** @type {number} */ i) => this.t('induction.headName', { layer: Math.floor(i / c.numHeads) + 1, head: i % c.numHeads }));
    setText(this.switchResult, r.off
      ? this.t('sentence.switchOff', { heads: names.join(this.t('common.listSeparator')), loss: f2(r.base.loss), off: f2(r.off.loss) })
      : this.t('sentence.switchAll'));
  }

  /**
   * Every head's map (n × n, one pixel per weight, scaled up), the chosen word's row outlined, and
   * below it the words that word looks at most.
   * @param {any} run
   * @param {number} pos
   */
  drawMaps(run, pos) {
    const dark = Boolean(this.dark);
    const words = run.words;
    const n = words.length;
    for (const { layer, head, card, canvas, row, readout, box } of /** @type {any[]} */ (this.cards)) {
      const w = run.attention[layer][head];
      const index = Number(card.dataset.index);
      const off = this.off.has(index);
      box.checked = !off;
      card.classList.toggle('hw-off', off);
      if (canvas.width !== n) {
        canvas.width = n;
        canvas.height = n;
      }
      const ctx = canvas.getContext('2d');
      if (ctx) {
        const img = ctx.createImageData(n, n);
        for (let i = 0; i < n; i += 1) {
          for (let j = 0; j < n; j += 1) {
            const [r, g, b] = rampRGB(j > i ? 0 : w[i][j], dark);
            const k = (i * n + j) * 4;
            img.data[k] = r; img.data[k + 1] = g; img.data[k + 2] = b; img.data[k + 3] = j > i ? 90 : 255;
          }
        }
        ctx.putImageData(img, 0, 0);
      }
      row.hidden = false;
      row.style.top = `${(100 * pos) / n}%`;
      row.style.height = `${100 / n}%`;
      // The readout: where word pos looks most (its two largest weights).
      const order = /** @type {[number, number][]} */ (w[pos].map((/** @type {number} */ x, /** @type {number} */ j) => [x, j])).filter(([, j]) => j <= pos).sort((a, b) => b[0] - a[0]).slice(0, 2);
      const argmax = w.map((/** @type {number[]} */ rowW, /** @type {number} */ i) => rowW.slice(0, i + 1).reduce((best, x, j) => (x > rowW[best] ? j : best), 0));
      card.dataset.argmax = argmax.join(',');
      const looks = order.map(([x, j]) => `${j} ${words[j]} ${f2(x)}`).join(this.t('common.listSeparator'));
      setText(readout, this.t('sentence.readout', { word: words[pos], looks }));
      const name = /** @type {HTMLElement} */ (card.querySelector('.hw-head-name')).textContent;
      const role = /** @type {HTMLElement} */ (card.querySelector('.hw-sentence-role')).textContent;
      canvas.parentElement?.setAttribute('role', 'img');
      canvas.parentElement?.setAttribute('aria-label', `${name}, ${role}${off ? `, ${this.t('sentence.offMark')}` : ''}. ${this.t('sentence.readout', { word: words[pos], looks })}`);
    }
  }
}

define('hw-sentence', HwSentence);
