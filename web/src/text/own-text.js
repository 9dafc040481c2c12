// "Train it on your own text": the panel of <hw-sentence> where the student pastes a text, opens a
// .txt file or picks a preset (State of the Union addresses of one president or one decade,
// dist/models/texts/, loaded on demand), trains the section's model on it in this browser
// (own-text-training.js: on every Worker, the same model whatever their number), watches the
// training loss and the held-out loss against the text's own unigram and bigram, and then switches
// every view of the section between the State of the Union model and their own (model.js
// showModel). A table sets each head's scores after the warm-up (the trainer's evaluate() at
// step 0) beside those after their text. The model downloads as a .hwtm file, and such a file
// opens again. Nothing is sent anywhere: the text, the training and the file stay in the tab.
//
// The panel's state (OwnState) lives on the element and survives a change of language; the panel
// itself is drawn anew from it. A page may shorten the run with <hw-sentence data-own-steps="N">
// (the trainer's `steps`: its learning-rate schedule's length); the panel's data-checksum is the
// FNV-1a hash of the model file's bytes (the same model gives the same file).

import { h, replace, setText } from '../shared/ui/dom.js';
import { fmtInt } from '../shared/ui/format.js';
import { loadScript, scriptBase } from '../shared/platform/scripts.js';
import { PageError, errorOf, messageOf } from '../shared/state/errors.js';
import { Curves, SERIES } from '../train/curves.js';
import { trainingModule } from '../train/training-module.js';
import { evaluationOf, ownModelNow, setOwnModel, showModel, shownModel } from './model.js';
import { MAX_FILE_BYTES, MAX_TEXT_CHARS, MODEL_EXTENSION, OwnTextTraining, checkFile, checkModelFile, checkText } from './own-text-training.js';
import { headRoles } from './roles.js';

/** The preset texts, by key (web/build-text.mjs TEXT_PRESETS; names: sentence.own.preset.<key>). */
export const TEXT_PRESETS = ['lincoln', 'kennedy', 'sixties'];
/** Where a preset's script registers its text (web/build-text.mjs TEXTS_KEY). */
const TEXTS_KEY = Symbol.for('headwise.texts');
/** Where train.js was loaded from: the preset texts are in models/texts/ beside it. */
const BASE = typeof document === 'undefined' ? '' : scriptBase('train.js');
/** How many held-out evaluations a run draws (besides the one before its first step): each takes
 * as long as a few steps, on one Worker while the others wait. */
const EVALUATIONS = 4;
/** The file name a downloaded model gets. */
const DOWNLOAD_NAME = `own-text${MODEL_EXTENSION}`;
/** How many steps the page asks a team of Workers for at once: on two, about a tenth of a second. */
const STEPS_AT_ONCE = 4;
/** The most often the panel redraws while training (ms). */
const DRAW_MS = 100;
/** The measures the before/after table shows, in its order (roles.js names). */
export const TABLE_MEASURES = ['previousWord', 'induction', 'currentWord', 'firstWord'];

/**
 * @typedef {object} OwnState
 * @property {'idle'|'starting'|'training'|'stopping'|'done'} status
 * @property {OwnTextTraining|null} run
 * @property {any} corpus     the trainer's corpus
 * @property {any} baselines  the trainer's baselines
 * @property {any} before     evaluate() at step 0 (the warm-up's heads on this text)
 * @property {any} after      evaluate() at the end
 * @property {number} steps
 * @property {number} stepsDone
 * @property {number} workers  Workers used (0: the main thread)
 * @property {number[]} lossSteps
 * @property {number[]} losses
 * @property {number[]} heldSteps
 * @property {number[]} held
 * @property {number} ms  training time
 * @property {Uint8Array|null} bytes  the model's file
 * @property {string} source  'trained' | 'file'
 * @property {string} fileName
 * @property {any} error  the last refusal (an ErrorInfo or a message), or null
 */

/** @returns {OwnState} */
export function freshState() {
  return {
    status: 'idle', run: null, corpus: null, baselines: null, before: null, after: null, steps: 0, stepsDone: 0, workers: 0,
    lossSteps: [], losses: [], heldSteps: [], held: [], ms: 0, bytes: null, source: '', fileName: '', error: null,
  };
}

/**
 * A preset's text (its script loaded once).
 * @param {string} key
 * @returns {Promise<string>}
 */
export async function presetText(key) {
  /** @type {any} */
  const g = globalThis;
  if (!g[TEXTS_KEY] || typeof g[TEXTS_KEY][key] !== 'string') {
    const url = new URL(`models/texts/${key}.js`, BASE).href;
    await loadScript(url, { data: 'headwiseText' });
    if (!g[TEXTS_KEY] || typeof g[TEXTS_KEY][key] !== 'string') throw new PageError('errors.load.noText', { url, name: key });
  }
  return g[TEXTS_KEY][key];
}

/**
 * The steps at which a run of `steps` evaluates the held-out loss: EVALUATIONS, evenly, the last
 * one at the end.
 * @param {number} steps
 * @returns {Set<number>}
 */
export function evaluationSteps(steps) {
  const out = new Set();
  for (let k = 1; k <= EVALUATIONS; k += 1) out.add(Math.max(1, Math.round((k * steps) / EVALUATIONS)));
  return out;
}

/**
 * Which heads the warm-up gave their role (a role other than 'mixed' at step 0), and what the
 * text changed: each head's role before and after.
 * @param {any} before  evaluate().heads at step 0 (or null)
 * @param {any} after   evaluate().heads at the end
 * @param {number} layers
 * @param {number} numHeads
 */
export function headChanges(before, after, layers, numHeads) {
  const a = headRoles(after, layers, numHeads);
  const b = before ? headRoles(before, layers, numHeads) : null;
  const out = [];
  for (let l = 0; l < layers; l += 1) {
    for (let k = 0; k < numHeads; k += 1) {
      const was = b ? b[l][k] : null;
      const now = a[l][k];
      out.push({ layer: l, head: k, before: was, after: now, fromWarmup: Boolean(was && was.role !== 'mixed' && was.role === now.role) });
    }
  }
  return out;
}

/**
 * The 32-bit FNV-1a hash of bytes, in hex (the panel's data-checksum).
 * @param {Uint8Array} bytes
 */
export function checksum(bytes) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i += 1) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * The trainer's options for a text: the page's run length when it sets one (data-own-steps).
 * @param {string} text
 * @param {string|null} steps  the attribute's value
 */
export function trainerOptions(text, steps) {
  const n = steps === null ? NaN : Number(steps);
  return Number.isInteger(n) && n > 0 ? { text, steps: n } : { text };
}

/** @param {number} x */
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');

export class OwnTextPanel {
  /**
   * @param {any} host  the <hw-sentence> element (its t, tNodes, say, and its views' redraw)
   */
  constructor(host) {
    this.host = host;
    if (!host.own) host.own = freshState();
    /** @type {OwnState} */
    this.state = host.own;
    const t = (/** @type {string} */ k, /** @type {any} */ p = undefined) => host.t(k, p);
    const presets = TEXT_PRESETS.map((key) => {
      const b = h('button', { type: 'button', class: 'hw-button hw-button-quiet', 'data-testid': 'own-preset', 'data-preset': key, text: t(`sentence.own.preset.${key}`) });
      b.addEventListener('click', () => this.pickPreset(key));
      return b;
    });
    this.input = /** @type {HTMLTextAreaElement} */ (h('textarea', {
      id: 'own-text', name: 'own-text', rows: 6, autocomplete: 'off', spellcheck: 'false', lang: 'en', 'data-testid': 'own-text-input',
      'aria-describedby': 'own-text-hint own-text-error',
    }));
    this.input.addEventListener('input', () => this.drawHint());
    this.file = /** @type {HTMLInputElement} */ (h('input', { type: 'file', id: 'own-text-file', name: 'own-text-file', accept: '.txt,text/plain', autocomplete: 'off', 'data-testid': 'own-text-file' }));
    this.file.addEventListener('change', () => this.openText());
    this.hint = h('p', { class: 'hw-hint', id: 'own-text-hint', 'data-testid': 'own-text-hint' });
    this.error = h('p', { class: 'hw-error', id: 'own-text-error', 'data-error-for': 'own-text', 'data-testid': 'own-text-error', role: 'alert', hidden: true });
    this.train = h('button', { type: 'button', class: 'hw-button', 'data-testid': 'own-train' });
    this.train.addEventListener('click', () => (this.busy() ? this.stop() : this.start()));
    this.download = h('button', { type: 'button', class: 'hw-button hw-button-quiet', 'data-testid': 'own-download', text: t('sentence.own.download') });
    this.download.addEventListener('click', () => this.save());
    this.modelFile = /** @type {HTMLInputElement} */ (h('input', { type: 'file', id: 'own-model-file', name: 'own-model-file', accept: `${MODEL_EXTENSION},application/octet-stream`, autocomplete: 'off', 'data-testid': 'own-model-file' }));
    this.modelFile.addEventListener('change', () => this.openModel());
    this.status = h('p', { class: 'hw-sentence-own-status', 'data-testid': 'own-status', role: 'status' });
    this.corpus = h('p', { class: 'hw-hint', 'data-testid': 'own-corpus' });
    this.curves = new Curves({
      title: t('sentence.own.curveTitle'), testid: 'own-curve', yMax: 10, yTicks: [0, 2, 4, 6, 8, 10], yFormat: (y) => String(y),
      series: [
        { label: t('sentence.own.series.training'), cls: SERIES[0] }, { label: t('sentence.own.series.heldOut'), cls: SERIES[1] },
        { label: t('sentence.own.series.unigram'), cls: SERIES[2] }, { label: t('sentence.own.series.bigram'), cls: SERIES[3] },
      ],
      xLabel: t('sentence.own.step'),
    });
    this.legend = h('ul', { class: 'hw-train-legend' }, ['training', 'heldOut', 'unigram', 'bigram'].map((s, i) => h('li', { class: SERIES[i] }, [
      h('span', { class: 'hw-train-swatch', 'aria-hidden': 'true' }), t(`sentence.own.series.${s}`),
    ])));
    this.chart = h('div', { class: 'hw-sentence-own-chart', hidden: true }, [this.curves.figure, this.legend]);
    const choice = (/** @type {'sotu'|'own'} */ which) => {
      const r = /** @type {HTMLInputElement} */ (h('input', { type: 'radio', name: 'sentence-model', id: `sentence-model-${which}`, value: which, 'data-testid': 'own-show', autocomplete: 'off' }));
      r.addEventListener('change', () => {
        if (r.checked) this.show(which);
      });
      return { r, label: h('label', { class: 'hw-check', for: `sentence-model-${which}` }, [r, ` ${t(`sentence.own.show.${which}`)}`]) };
    };
    this.choices = { sotu: choice('sotu'), own: choice('own') };
    this.switcher = h('fieldset', { class: 'hw-sentence-own-switch', 'data-testid': 'own-switch', hidden: true }, [
      h('legend', { text: t('sentence.own.showLegend') }), this.choices.sotu.label, this.choices.own.label,
    ]);
    this.summary = h('div', { class: 'hw-sentence-own-summary', 'data-testid': 'own-summary' });
    this.table = h('div', { class: 'hw-sentence-own-table', 'data-testid': 'own-table' });

    this.el = h('section', { class: 'hw-sentence-own', 'data-testid': 'own-text', 'aria-labelledby': 'own-text-title' }, [
      h('h3', { id: 'own-text-title', text: t('sentence.own.title') }),
      h('p', { text: t('sentence.own.intro') }),
      h('p', { class: 'hw-notice', 'data-testid': 'own-private', text: t('sentence.own.private') }),
      h('div', { class: 'hw-sentence-presets', role: 'group', 'aria-label': t('sentence.own.presets') }, [
        h('span', { class: 'hw-sentence-presets-label', text: t('sentence.own.presets') }), ...presets,
      ]),
      h('div', { class: 'hw-field hw-sentence-field' }, [h('label', { for: 'own-text', text: t('sentence.own.label') }), this.input, this.hint, this.error]),
      h('div', { class: 'hw-field hw-sentence-own-file' }, [h('label', { for: 'own-text-file', text: t('sentence.own.fileLabel') }), this.file]),
      h('div', { class: 'hw-sentence-own-actions' }, [this.train, this.download]),
      this.status, this.corpus, this.chart, this.switcher, this.summary, this.table,
      h('div', { class: 'hw-field hw-sentence-own-file' }, [h('label', { for: 'own-model-file', text: t('sentence.own.modelFileLabel') }), this.modelFile]),
    ]);
    this.lastDraw = 0;
    this.drawHint();
    this.draw();
  }

  /** @param {string} key @param {any} [params] */
  t(key, params) {
    return this.host.t(key, params);
  }

  busy() {
    return ['starting', 'training', 'stopping'].includes(this.state.status);
  }

  /** The text's length against the limit. */
  drawHint() {
    const n = this.input.value.length;
    setText(this.hint, this.t('sentence.own.hint', { count: fmtInt(n), max: fmtInt(MAX_TEXT_CHARS), mb: (MAX_FILE_BYTES / 1e6).toFixed(0) }));
  }

  /**
   * Show a refusal (coded) under the text, or clear it; the text and the model stay as they were.
   * @param {unknown} e  an error, or null
   */
  refuse(e) {
    this.state.error = e === null ? null : errorOf(e);
    this.drawError();
  }

  drawError() {
    const e = this.state.error;
    const message = e ? this.host.say(e) : '';
    setText(this.error, message);
    this.error.hidden = !message;
    this.error.dataset.code = e && typeof e === 'object' ? e.code : '';
    if (message) this.input.setAttribute('aria-invalid', 'true');
    else this.input.removeAttribute('aria-invalid');
  }

  /** @param {string} key */
  async pickPreset(key) {
    try {
      this.input.value = await presetText(key);
      this.refuse(null);
    } catch (e) {
      this.refuse(e);
    }
    this.drawHint();
  }

  /** Read the .txt file the student opened into the box (a file over the limit is refused unread). */
  async openText() {
    const f = this.file.files && this.file.files[0];
    if (!f) return;
    try {
      checkFile(f);
      const text = await f.text();
      checkText(text);
      this.input.value = text;
      this.refuse(null);
    } catch (e) {
      this.refuse(e);
    }
    this.file.value = '';
    this.drawHint();
  }

  /** Open a .hwtm file: it becomes the student's own model (a damaged one is refused, the last kept). */
  async openModel() {
    const f = this.modelFile.files && this.modelFile.files[0];
    if (!f || this.busy()) return;
    try {
      checkModelFile(f);
      const bytes = new Uint8Array(await f.arrayBuffer());
      const { hw } = await trainingModule();
      const model = hw.textModel({ weights: bytes });
      const s = this.state;
      setOwnModel(model, null);
      Object.assign(s, { source: 'file', fileName: f.name, bytes, before: null, after: evaluationOf(model), status: 'done', corpus: null, baselines: null });
      s.lossSteps = []; s.losses = []; s.heldSteps = []; s.held = [];
      this.refuse(null);
      this.show('own');
    } catch (e) {
      this.refuse(e);
    }
    this.modelFile.value = '';
    this.draw();
  }

  /**
   * Train a new model on the text in the box. The model shown, its file and its table stay until
   * the run has finished; a run refused or stopped by an error puts them back as they were.
   */
  async start() {
    const s = this.state;
    let text;
    try {
      text = checkText(this.input.value);
    } catch (e) {
      this.refuse(e);
      return;
    }
    this.refuse(null);
    const previous = { ...s };
    Object.assign(s, freshState(), { status: 'starting', bytes: previous.bytes });
    this.draw();
    /** @type {OwnTextTraining|null} */
    let run = null;
    try {
      const module = await trainingModule();
      run = await OwnTextTraining.open(module, trainerOptions(text, this.host.getAttribute('data-own-steps')));
      s.run = run;
      Object.assign(s, { corpus: run.corpus, baselines: run.baselines, steps: run.steps, workers: run.workers });
      s.before = await run.evaluate();
      s.heldSteps.push(0);
      s.held.push(s.before.heldOut.loss);
      s.status = 'training';
      this.draw();
      const at = evaluationSteps(run.steps);
      const t0 = performance.now();
      while (run.stepsDone < run.steps && s.status === 'training') {
        // A team of Workers a few steps at a time (one Worker, or none, a step at a time), never
        // past the next held-out evaluation.
        let k = run.workers > 1 ? STEPS_AT_ONCE : 1;
        for (const e of at) if (e > run.stepsDone && e - run.stepsDone < k) k = e - run.stepsDone;
        const from = run.stepsDone;
        const losses = await run.advance(k);
        losses.forEach((loss, i) => {
          s.lossSteps.push(from + i + 1);
          s.losses.push(loss);
        });
        s.stepsDone = run.stepsDone;
        if (at.has(run.stepsDone) && run.stepsDone < run.steps) {
          const e = await run.evaluate();
          s.heldSteps.push(run.stepsDone);
          s.held.push(e.heldOut.loss);
        }
        s.ms = performance.now() - t0;
        this.host.ownPanel?.drawSoon();
      }
      s.after = await run.evaluate();
      if (s.heldSteps[s.heldSteps.length - 1] !== run.stepsDone) {
        s.heldSteps.push(run.stepsDone);
        s.held.push(s.after.heldOut.loss);
      }
      s.bytes = await run.save();
      const { hw } = module;
      setOwnModel(hw.textModel({ weights: s.bytes }), { heads: s.after.heads, heldOut: s.after.heldOut });
      Object.assign(s, { status: 'done', source: 'trained', fileName: '' });
      this.host.ownPanel?.show('own');
    } catch (e) {
      // A refusal of the text (a coded error) is the student's to read, not the console's.
      if (typeof errorOf(e) === 'string') console.error('Headwise: training on the student\'s text failed:', messageOf(e));
      Object.assign(s, previous);
      this.host.ownPanel?.refuse(e);
    } finally {
      s.run = null;
      if (run) run.dispose().catch(() => {});
    }
    this.host.ownPanel?.draw();
  }

  /** Stop after the step under way; the model so far becomes the student's. */
  stop() {
    if (this.state.status === 'training') this.state.status = 'stopping';
    this.draw();
  }

  /** The file name of the student's model: the file they opened, else the name of its download. */
  get modelFileName() {
    return this.state.fileName || DOWNLOAD_NAME;
  }

  /** Download the student's model as a .hwtm file. */
  save() {
    const bytes = this.state.bytes;
    if (!bytes) return;
    const url = URL.createObjectURL(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type: 'application/octet-stream' }));
    const a = /** @type {HTMLAnchorElement} */ (h('a', { href: url, download: DOWNLOAD_NAME, hidden: true }));
    this.el.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  /** @param {'sotu'|'own'} which */
  show(which) {
    showModel(which);
    this.host.modelChanged();
    this.draw();
  }

  /** Redraw at most every DRAW_MS while training. */
  drawSoon() {
    const now = performance.now();
    if (now - this.lastDraw < DRAW_MS) return;
    this.draw();
  }

  draw() {
    this.lastDraw = performance.now();
    const s = this.state;
    const busy = this.busy();
    setText(this.train, this.t(busy ? 'sentence.own.stop' : 'sentence.own.train'));
    this.train.toggleAttribute('disabled', s.status === 'starting' || s.status === 'stopping');
    this.download.hidden = !s.bytes || busy;
    this.modelFile.disabled = busy;
    this.el.dataset.status = s.status;
    this.el.dataset.steps = String(s.stepsDone);
    this.el.dataset.workers = String(s.workers);
    this.el.dataset.checksum = s.bytes ? checksum(s.bytes) : '';
    this.drawError();
    this.drawStatus();
    this.drawCorpus();
    this.drawChart();
    const own = ownModelNow();
    this.switcher.hidden = !own;
    const which = shownModel();
    this.choices.sotu.r.checked = which === 'sotu';
    this.choices.own.r.checked = which === 'own';
    this.drawSummary();
  }

  drawStatus() {
    const s = this.state;
    const b = s.baselines || {};
    const last = s.held.length ? s.held[s.held.length - 1] : NaN;
    const where = s.workers > 0 ? this.t('sentence.own.onWorkers', { count: s.workers }) : this.t('sentence.own.onMain');
    /** @type {Record<string, string>} */
    const key = { idle: '', starting: 'sentence.own.starting', training: 'sentence.own.training', stopping: 'sentence.own.stopping', done: 'sentence.own.done' };
    let text = key[s.status] ? this.t(key[s.status], {
      step: s.stepsDone, steps: s.steps, where, loss: f2(s.losses[s.losses.length - 1]), held: f2(last), unigram: f2(b.unigram), bigram: f2(b.bigram),
      seconds: (s.ms / 1000).toFixed(1),
    }) : '';
    if (s.status === 'done' && s.source === 'file') text = this.t('sentence.own.opened', { name: s.fileName });
    setText(this.status, text);
    this.status.dataset.held = Number.isFinite(last) ? String(last) : '';
  }

  drawCorpus() {
    const c = this.state.corpus;
    if (!c) {
      setText(this.corpus, '');
      return;
    }
    setText(this.corpus, this.t('sentence.own.corpus', {
      words: fmtInt(c.words), training: fmtInt(c.trainingWords), held: fmtInt(c.heldOutWords), vocab: fmtInt(c.vocab - 1),
      unknown: (100 * c.unknownShare.heldOut).toFixed(0), ignored: fmtInt(c.ignored),
    }));
  }

  drawChart() {
    const s = this.state;
    this.chart.hidden = s.heldSteps.length === 0;
    if (this.chart.hidden) return;
    if (this.curves.xMax !== Math.max(1, s.steps)) this.curves.setX(s.steps);
    this.curves.update(0, s.lossSteps, s.losses);
    this.curves.update(1, s.heldSteps, s.held);
    const b = s.baselines || {};
    const flat = (/** @type {number} */ y) => /** @type {[number[], number[]]} */ (Number.isFinite(y) ? [[0, s.steps], [y, y]] : [[], []]);
    this.curves.update(2, ...flat(b.unigram));
    this.curves.update(3, ...flat(b.bigram));
  }

  /** What the warm-up gave, what the text changed, and the table of each head's scores. */
  drawSummary() {
    const s = this.state;
    const own = ownModelNow();
    if (!own || !s.after) {
      replace(this.summary, []);
      replace(this.table, []);
      return;
    }
    const c = own.config;
    const name = (/** @type {number} */ l, /** @type {number} */ k) => this.t('induction.headName', { layer: l + 1, head: k });
    const roleName = (/** @type {any} */ r) => (r ? (r.role === 'mixed' ? this.t('sentence.own.mixed') : this.t(`sentence.role.${r.role}`)) : '–');
    const changes = headChanges(s.before && s.before.heads, s.after.heads, c.layers, c.numHeads);
    const kept = changes.filter((x) => x.fromWarmup).map((x) => `${name(x.layer, x.head)} (${roleName(x.after)})`);
    const changed = changes.filter((x) => x.before && x.before.role !== x.after.role)
      .map((x) => this.t('sentence.own.changedHead', { head: name(x.layer, x.head), before: roleName(x.before), after: roleName(x.after) }));
    const sep = this.t('common.listSeparator');
    const lines = [];
    const ho = s.after.heldOut || {};
    if (s.before) {
      const b0 = s.before.heldOut;
      lines.push(this.t('sentence.own.lossChange', { before: f2(b0.loss), after: f2(ho.loss), unigram: f2(ho.unigram), bigram: f2(ho.bigram) }));
      lines.push(kept.length ? this.t('sentence.own.fromWarmup', { heads: kept.join(sep) }) : this.t('sentence.own.noneFromWarmup'));
      lines.push(changed.length ? this.t('sentence.own.changed', { heads: changed.join(sep) }) : this.t('sentence.own.unchanged'));
    } else {
      lines.push(this.t('sentence.own.fileLoss', { loss: f2(ho.loss), unigram: f2(ho.unigram), bigram: f2(ho.bigram) }));
    }
    replace(this.summary, lines.map((text) => h('p', { text })));
    // The table: a row per head, its role and each measure before → after.
    const head = h('tr', {}, [
      h('th', { scope: 'col', text: this.t('sentence.own.table.head') }),
      h('th', { scope: 'col', text: this.t('sentence.own.table.role') }),
      ...TABLE_MEASURES.map((m) => h('th', { scope: 'col', text: this.t(`sentence.role.${m}`) })),
    ]);
    const cell = (/** @type {string} */ m, /** @type {number} */ l, /** @type {number} */ k) => {
      const a = s.after.heads[m] ? Number(s.after.heads[m][l][k]) : NaN;
      const b = s.before && s.before.heads[m] ? Number(s.before.heads[m][l][k]) : NaN;
      return h('td', { 'data-measure': m, 'data-before': String(b), 'data-after': String(a), text: s.before ? this.t('sentence.own.table.change', { before: f2(b), after: f2(a) }) : f2(a) });
    };
    const rows = changes.map((x) => h('tr', { 'data-layer': x.layer, 'data-head': x.head, 'data-from-warmup': String(x.fromWarmup) }, [
      h('th', { scope: 'row', text: name(x.layer, x.head) }),
      h('td', { 'data-testid': 'own-role', text: s.before ? this.t('sentence.own.table.change', { before: roleName(x.before), after: roleName(x.after) }) : roleName(x.after) }),
      ...TABLE_MEASURES.map((m) => cell(m, x.layer, x.head)),
    ]));
    // The caption above the scrolling box (a <caption> would scroll sideways with a wide table).
    replace(this.table, [
      h('p', { class: 'hw-sentence-split-title', id: 'own-table-caption', text: this.t(s.before ? 'sentence.own.table.caption' : 'sentence.own.table.captionFile') }),
      h('div', { class: 'hw-sentence-own-scroll' }, [h('table', { class: 'hw-table', 'aria-labelledby': 'own-table-caption' }, [h('thead', {}, [head]), h('tbody', {}, rows)])]),
    ]);
  }
}

