// <hw-induction>: the section "Heads that work together". Two layers × two heads train beside one
// layer of four heads at the same d_model on the task 'induction' (a segment that repeats); the
// page shows both models' curves (the plateau, then the drop), the step where the induction head
// formed (read from the live curve), every head's attention on the student's probe (both layers,
// the previous token and the induction target marked), each head's previous-token and induction
// scores held-out, and switches that turn heads off: with the layer-1 previous-token head or the
// layer-2 induction head off, the repeat accuracy falls back toward chance. The run lives in the
// store's InductionSession (induction.js); this element draws it with the run view (run-view.js)
// and draws what is its own: the formed step, the verdict, the scores and switches, the heads, and
// layer 2's circuits over the run (each head's copying score and its K-composition with each
// layer-1 head, measured at every snapshot: trainer.circuits()), with the steps where the copier
// formed and where it learnt where to look, on the timeline and in the verdict.

import { HwElement, define } from '../shared/ui/element.js';
import { code, h, replace, setText } from '../shared/ui/dom.js';
import { codeBlock } from '../shared/python/code-block.js';
import { cellColors, prefersDark } from '../shared/ui/color.js';
import { PageError, concerns, errorOf } from '../shared/state/errors.js';
import { reflectNumber, showError } from '../shared/ui/forms.js';
import { SETTING } from '../shared/state/settings.js';
import { capitalise } from '../shared/i18n/i18n.js';
import { seedField } from './frames.js';
import { HeadTable } from './tables.js';
import { awaitTrainingModule } from './training-module.js';
import { RESET, RunView } from './run-view.js';
import { Curves, SERIES } from './curves.js';
import { inductionCircuitsCode, inductionCircuitsOutput, inductionCode, inductionOutput } from './induction-python.js';
import {
  COPIER_FORMED, INDUCTION, READS_PREVIOUS, circuitSteps, formedStep, inductionFor, inductionTargets, keyHeads, parseInductionProbe, plateauLoss,
} from './induction.js';

/** @typedef {import('./induction.js').InductionSession} InductionSession */
/** @typedef {import('./induction.js').InductionModel} InductionModel */

/** @param {number} x */
const f2 = (x) => x.toFixed(2);
/** @param {number} x */
const f3 = (x) => x.toFixed(3);

class HwInduction extends HwElement {
  build() {
    for (const line of this.querySelectorAll(':scope > [data-hw-train-loading]')) line.remove();
    const seed = seedField(this, 'inductionSeed', this.t('induction.seed'), this.t('induction.seedHint'));
    this.seedInput = seed.input;
    this.seedError = seed.error;
    this.seedError.hidden = true;
    this.seedInput.addEventListener('input', () => this.timeline.follow());
    this.view = new RunView(this, {
      id: 'induction', measure: INDUCTION.name, errorTestid: 'induction-error',
      buttons: [
        { name: 'run', text: 'induction.run', onClick: (exp) => exp.start() },
        { ...RESET, onClick: (exp) => {
          this.timeline.follow();
          exp.reset();
        } },
      ],
      onScrub: () => {
        /** @type {string} */
        this.shownKey = '';
        this.schedule();
      },
    });
    this.timeline = this.view.timeline;

    this.about = h('p', { class: 'hw-hint hw-train-about', 'data-testid': 'induction-about' });
    this.models = h('ul', { class: 'hw-induction-models', 'data-testid': 'induction-models' });
    this.formed = h('p', { class: 'hw-train-model-verdict', 'data-testid': 'induction-formed', 'aria-live': 'polite' });
    this.verdict = h('div', { class: 'hw-induction-verdict', 'data-testid': 'induction-verdict', 'aria-live': 'polite' });

    this.probeInput = /** @type {HTMLInputElement} */ (h('input', {
      id: 'induction-probe', name: 'induction-probe', type: 'text', autocomplete: 'off', spellcheck: 'false', 'data-testid': 'induction-probe',
      'aria-describedby': 'induction-probe-hint induction-probe-error',
    }));
    this.probeHint = h('p', { class: 'hw-hint', id: 'induction-probe-hint' });
    this.probeError = h('p', { class: 'hw-error', id: 'induction-probe-error', 'data-error-for': 'induction-probe', 'data-testid': 'induction-probe-error', role: 'alert', hidden: true });
    this.probeInput.addEventListener('input', () => this.readProbe());
    this.headsBox = h('div', { class: 'hw-induction-heads', 'data-testid': 'induction-heads', 'aria-live': 'off' });
    this.scoresBox = h('div', { class: 'hw-induction-scores', 'data-testid': 'induction-scores' });
    // Layer 2's circuits over the run: two charts, and their numbers at the timeline's step.
    this.circuitsHint = h('p', { class: 'hw-hint' });
    this.circuitsCurves = h('div', { class: 'hw-train-curves hw-induction-circuits', 'data-testid': 'induction-circuits' });
    this.circuitsAt = h('div', { class: 'hw-induction-model', 'data-testid': 'induction-circuits-at' });

    this.appendChild(this.view.controls([seed.wrap]));
    this.appendChild(this.about);
    this.appendChild(this.models);
    this.appendChild(this.view.curves);
    this.appendChild(this.view.legend);
    this.appendChild(this.circuitsHint);
    this.appendChild(this.circuitsCurves);
    this.appendChild(this.formed);
    this.appendChild(this.verdict);
    this.appendChild(this.scoresBox);
    this.appendChild(this.timeline.wrap);
    this.appendChild(this.circuitsAt);
    this.appendChild(h('div', { class: 'hw-field hw-heads-probe' }, [h('label', { for: 'induction-probe', text: this.t('induction.probe') }), this.probeInput, this.probeHint, this.probeError]));
    this.appendChild(this.headsBox);

    // "Reproduce in Python": the script of the current run, and what it prints once trained.
    this.pyPending = h('p', { class: 'hw-hint', 'data-testid': 'induction-python-pending' });
    const python = codeBlock({
      id: 'induction-python', title: this.t('induction.python'), lang: this.language,
      after: [this.pyPending, h('p', { class: 'hw-hint' }, this.tNodes('induction.pythonHint', { dtype: code('dtype=torch.float64') }))],
    });
    this.codeEl = python.code;
    this.pyOutput = python.output;
    this.appendChild(python.el);
    // The same for layer 2's circuits at the timeline's step (inductionCircuitsCode).
    this.circuitsPyHint = h('p', { class: 'hw-hint' });
    this.circuitsPython = codeBlock({
      id: 'induction-circuits-python', title: this.t('induction.circuitsPython'), lang: this.language, after: [this.circuitsPyHint],
    });
    this.appendChild(this.circuitsPython.el);

    /** @type {InductionSession|null} */
    this.session = null;
    this.layoutKey = '';
    this.onTheme(() => {
      this.layoutKey = '';
      this.schedule();
    });
  }

  static get keep() {
    return ['onSession'];
  }

  /** @param {any} store */
  update(store) {
    const session = inductionFor(store);
    if (!session) {
      awaitTrainingModule(this);
      return;
    }
    this.view.adopt(session);
    // The seed is the store's (`#induction_seed`, the `induction-seed` attribute); the session
    // judges it (a refusal names the seed as its field) and the field shows why.
    const seed = store.state.inductionSeed;
    reflectNumber(this.seedInput, seed);
    const missing = store.inputErrors[SETTING.inductionSeed.control];
    const lang = this.language;
    showError(this.seedError, this.seedInput, missing || null, lang);
    if (!missing && (!session.settings || session.settings.seed !== seed)) {
      try {
        session.ensure(/** @type {number} */ (seed));
        this.view.showError(null);
      } catch (e) {
        const error = errorOf(e);
        if (concerns(error, 'seed')) showError(this.seedError, this.seedInput, error, lang);
        else this.view.showError(error);
        if (!session.settings) return;
      }
    }
    this.schedule();
  }

  /** The probe field changed: use it if it reads, else say why (the last good probe stays). */
  readProbe() {
    const session = this.session;
    if (!session || !session.settings) return;
    try {
      const tokens = parseInductionProbe(this.probeInput.value, session.settings);
      showError(this.probeError, this.probeInput, null, this.language);
      if (tokens.join(' ') !== session.probeKey) session.setProbe(tokens).catch((e) => this.view.showError(errorOf(e)));
    } catch (e) {
      showError(this.probeError, this.probeInput, new PageError('errors.induction.kept', { reason: errorOf(e), probe: this.probeText() }), this.language);
    }
  }

  /** The session's probe as labels. */
  probeText() {
    const session = /** @type {InductionSession} */ (this.session);
    const s = /** @type {NonNullable<InductionSession['settings']>} */ (session.settings);
    return session.probe.map((t) => s.tokenLabels[t]).join(' ');
  }

  schedule() {
    this.view.schedule();
  }

  /**
   * "2 layers × 2 heads" / "1 layer × 4 heads".
   * @param {InductionModel} m
   */
  modelName(m) {
    return this.t('induction.modelName', { layers: this.t('induction.layers', { count: m.layers }), heads: this.t('common.heads', { count: m.numHeads }) });
  }

  /**
   * "layer 1, head 0" (layers counted from 1, as the lesson speaks of them; heads from 0, as the
   * tables name them).
   * @param {number} layer  from 0
   * @param {number} head
   */
  headName(layer, head) {
    return this.t('induction.headName', { layer: layer + 1, head });
  }

  /** The parts that depend on the settings, the models and the theme. */
  layout() {
    const session = /** @type {InductionSession} */ (this.session);
    const st = /** @type {NonNullable<InductionSession['settings']>} */ (session.settings);
    const dark = prefersDark();
    if (this.layoutModels === session.models && this.layoutKey === String(dark)) return;
    /** @type {unknown} */
    this.layoutModels = session.models;
    this.layoutKey = String(dark);
    this.dark = dark;
    setText(this.about, this.t('induction.about', { ...st, chance: f2(1 / st.vocab) }));
    setText(this.probeHint, this.t('induction.probeHint', { first: st.tokenLabels[0], last: st.tokenLabels[st.tokenLabels.length - 1], n: st.seqLen }));
    this.view.layoutCurves(st.steps, {
      series: session.models.map((m) => this.modelName(m)),
      loss: { title: this.t('induction.loss') },
      accuracy: { title: this.t('induction.accuracy') },
    });
    this.modelLines = session.models.map(() => h('li', {}));
    replace(this.models, this.modelLines);
    this.layoutCircuits(session.models[0], st);
    /** @type {string} */
    this.headsKey = '';
    /** @type {string} */
    this.scoresKey = '';
    this.timeline.follow();
  }

  draw() {
    const session = this.session;
    if (!session || !session.settings) return;
    this.layout();
    const st = session.settings;
    const running = session.busy;
    this.view.drawButtons({ run: { disabled: !session.canStart() }, reset: { disabled: running || session.status === 'idle' } });
    this.seedInput.disabled = running || this.seedInput.hasAttribute('data-locked');
    const [deep, wide] = session.models;
    const step = deep.step;
    this.view.drawRun(session, {
      counter: session.status === 'evaluating' ? this.t('induction.counterEvaluating') : this.t('induction.counter', { step, steps: st.steps }),
      step,
      took: true,
    });
    this.toggleAttribute('data-done', session.status === 'done');

    session.models.forEach((m, i) => {
      setText(/** @type {HTMLElement[]} */ (this.modelLines)[i], this.t('induction.modelLine', {
        model: this.modelName(m), dHead: st.dModel / m.numHeads, parameters: m.parameters || '…',
      }));
    });
    this.view.drawCurves(session.models);
    this.drawCircuits(deep);

    // The step where the head formed, from the live curve of the two-layer model.
    const formed = formedStep(deep.steps, deep.accuracy, st.formedAccuracy);
    const plateau = plateauLoss(deep.steps, deep.loss, formed, st.steps);
    const lastLoss = deep.loss.length ? deep.loss[deep.loss.length - 1] : null;
    let formedText = '';
    if (formed !== null) {
      formedText = this.t('induction.formed', { model: this.modelName(deep), step: formed, threshold: f2(st.formedAccuracy), plateau: plateau === null ? '–' : f2(plateau), loss: f2(/** @type {number} */ (lastLoss)) });
    } else if (deep.steps.length) {
      formedText = this.t('induction.notFormed', { model: this.modelName(deep), threshold: f2(st.formedAccuracy), step });
    }
    setText(this.formed, formedText);
    this.formed.dataset.step = formed === null ? '' : String(formed);
    this.drawVerdict(formed, this.circuitSteps(deep));
    this.drawScores();

    // The probe field shows the session's probe unless the student is editing it.
    const probe = this.probeText();
    if (this.probeInput.value !== probe && document.activeElement !== this.probeInput && !this.probeError.textContent) this.probeInput.value = probe;
    this.drawHeads();
    this.drawPython();
  }

  /** The script for these settings; what it prints once both models are evaluated. */
  drawPython() {
    const session = /** @type {InductionSession} */ (this.session);
    const st = /** @type {NonNullable<InductionSession['settings']>} */ (session.settings);
    if (this.codeFor !== st) {
      /** @type {unknown} */
      this.codeFor = st;
      this.codeEl.textContent = inductionCode(st);
    }
    const done = session.status === 'done' && session.models.every((m) => m.evaluation && m.ablations.length === m.heads.length);
    const output = done ? inductionOutput(session.models.map((m) => ({
      layers: m.layers, numHeads: m.numHeads, parameters: m.parameters, evaluation: m.evaluation, ablations: m.ablations,
    }))) : '';
    if (this.pyOutput.textContent !== output) this.pyOutput.textContent = output;
    this.pyOutput.hidden = !done;
    setText(this.pyPending, done ? '' : this.t('induction.pythonPending', { steps: st.steps }));
  }

  /**
   * The two-layer model's circuit charts: each layer-2 head's copying score, and its K-composition
   * with each layer-1 head (one series per pair), over the run's steps; each with its legend.
   * @param {InductionModel} deep
   * @param {NonNullable<InductionSession['settings']>} st
   */
  layoutCircuits(deep, st) {
    const heads = Array.from({ length: deep.numHeads }, (_, k) => k);
    const xLabel = this.t('train.curves.step');
    const legend = (/** @type {string[]} */ labels) => h('ul', { class: 'hw-train-legend' }, labels.map((label, i) => h('li', { class: `hw-train-key ${SERIES[i % SERIES.length]}` }, [h('span', { class: 'hw-train-swatch', 'aria-hidden': 'true' }), label])));
    const copyLabels = heads.map((k) => this.headName(1, k));
    const pairLabels = heads.flatMap((k) => heads.map((g) => this.t('induction.pair', { reader: this.headName(1, k), read: this.headName(0, g) })));
    this.copyCurves = new Curves({
      title: this.t('induction.copyingCurve'), testid: 'induction-copying', yMax: 1, yTicks: [0, 0.2, 0.4, 0.6, 0.8, 1], yFormat: String, xLabel,
      series: copyLabels.map((label, i) => ({ label, cls: SERIES[i % SERIES.length] })),
    });
    this.kCurves = new Curves({
      title: this.t('induction.kCurve'), testid: 'induction-kcomp', yMax: 0.4, yTicks: [0, 0.1, 0.2, 0.3, 0.4], yFormat: String, xLabel,
      series: pairLabels.map((label, i) => ({ label, cls: SERIES[i % SERIES.length] })),
    });
    for (const [c, labels] of /** @type {[Curves, string[]][]} */ ([[this.copyCurves, copyLabels], [this.kCurves, pairLabels]])) {
      c.setX(st.steps);
      c.figure.appendChild(legend(labels));
    }
    replace(this.circuitsCurves, [this.copyCurves.figure, this.kCurves.figure]);
    setText(this.circuitsHint, this.t('induction.circuitsHint', { copier: f2(COPIER_FORMED), reads: f2(READS_PREVIOUS) }));
    /** @type {string} */
    this.circuitsAtKey = '';
  }

  /**
   * The charts' points so far, and the circuits at the timeline's step as a table.
   * @param {InductionModel} deep
   */
  drawCircuits(deep) {
    const c = deep.circuits;
    const n = deep.numHeads;
    c.copying.forEach((ys, k) => /** @type {Curves} */ (this.copyCurves).update(k, c.steps, ys));
    c.k.forEach((rows, k) => rows.forEach((ys, g) => /** @type {Curves} */ (this.kCurves).update(k * n + g, c.steps, ys)));
    this.circuitsCurves.dataset.points = String(c.steps.length);
  }

  /**
   * The steps where the copier formed and where it learnt where to look, from the curves so far.
   * The previous-token head is the held-out evaluation's once the model is evaluated, before that
   * the layer-1 head whose positional QK circuit points most at the previous position now.
   * @param {InductionModel} deep
   */
  circuitSteps(deep) {
    const e = /** @type {any} */ (deep.evaluation);
    return circuitSteps(deep.circuits, e ? keyHeads(e).previous.head : null);
  }

  /**
   * The circuits' steps in words (the timeline's sentences).
   * @param {ReturnType<typeof circuitSteps>} cs
   * @param {number} step  the model's step now
   */
  circuitsSentences(cs, step) {
    if (!cs.copier) return cs.previous === null ? [] : [this.t('induction.copierNotYet', { threshold: f2(COPIER_FORMED), step })];
    const copier = this.headName(1, cs.copier.head);
    const previous = this.headName(0, /** @type {number} */ (cs.previous));
    return [
      this.t('induction.copierFormed', { head: copier, step: cs.copier.step, threshold: f2(COPIER_FORMED) }),
      cs.reads
        ? this.t('induction.readsFormed', { head: copier, previous, step: cs.reads.step, threshold: f2(READS_PREVIOUS) })
        : this.t('induction.readsNotYet', { head: copier, previous, step, threshold: f2(READS_PREVIOUS) }),
    ];
  }

  /**
   * Once both models are evaluated: what the deep model's heads do and what turning each off
   * costs, beside the one-layer model, and when its circuits formed; the challenge hears these
   * numbers.
   * @param {number|null} formed
   * @param {ReturnType<typeof circuitSteps>} cs
   */
  drawVerdict(formed, cs) {
    const session = /** @type {InductionSession} */ (this.session);
    const st = /** @type {NonNullable<InductionSession['settings']>} */ (session.settings);
    const [deep, wide] = session.models;
    const key = `${session.status}|${deep.ablations.length}|${wide.ablations.length}|${formed}|${cs.copier && cs.copier.step}|${cs.reads && cs.reads.step}|${cs.previous}`;
    if (key === this.verdictKey) return;
    /** @type {string} */
    this.verdictKey = key;
    if (session.status !== 'done' || !deep.evaluation || !wide.evaluation) {
      replace(this.verdict, []);
      return;
    }
    const e = /** @type {any} */ (deep.evaluation);
    const k = keyHeads(e);
    const offPrev = /** @type {any} */ (deep.ablations[k.previous.index]).repeatAccuracy;
    const offInd = /** @type {any} */ (deep.ablations[k.induction.index]).repeatAccuracy;
    const w = /** @type {any} */ (wide.evaluation);
    const wideBest = Math.max(...w.inductionScore[0]);
    const lines = [
      this.t('induction.verdictDeep', {
        model: this.modelName(deep), accuracy: f2(e.repeatAccuracy),
        previous: this.headName(k.previous.layer, k.previous.head), previousScore: f2(k.previous.score),
        induction: this.headName(k.induction.layer, k.induction.head), inductionScore: f2(k.induction.score),
      }),
      this.t('induction.verdictAblate', {
        previous: this.headName(k.previous.layer, k.previous.head), offPrevious: f2(offPrev),
        induction: this.headName(k.induction.layer, k.induction.head), offInduction: f2(offInd), chance: f2(1 / st.vocab),
      }),
      this.t('induction.verdictWide', { model: this.modelName(wide), accuracy: f2(w.repeatAccuracy), score: f2(wideBest) }),
    ];
    if (cs.copier && cs.reads) {
      const last = deep.circuits.steps.length - 1;
      const pair = deep.circuits.k[cs.copier.head][/** @type {number} */ (cs.previous)];
      const copied = cs.copier.step;
      lines.push(this.t('induction.verdictCircuits', {
        head: this.headName(1, cs.copier.head), copied: cs.copier.step, threshold: f2(COPIER_FORMED),
        previous: this.headName(0, /** @type {number} */ (cs.previous)), reads: cs.reads.step, kThreshold: f2(READS_PREVIOUS),
        kStart: f3(pair[0]), kEnd: f3(pair[last]), accuracy: f2(deep.accuracy[Math.max(0, deep.steps.findIndex((x) => x >= copied))] ?? 0),
      }));
    } else {
      const said = this.circuitsSentences(cs, deep.step).map((text) => this.t('common.sentenceEnd', { text: capitalise(text, this.language) }));
      if (said.length) lines.push(said.join(this.t('common.sentenceGap')));
    }
    replace(this.verdict, lines.map((text) => h('p', { text })));
    this.dispatchEvent(new CustomEvent('headwise-induction', {
      bubbles: true, composed: true,
      detail: {
        seed: st.seed, formed, deep: { layers: deep.layers, numHeads: deep.numHeads, accuracy: e.repeatAccuracy, offPrevious: offPrev, offInduction: offInd },
        wide: { layers: 1, numHeads: wide.numHeads, accuracy: w.repeatAccuracy }, chance: 1 / st.vocab,
      },
    }));
  }

  /** Each model's heads: their two scores, the repeat accuracy with each off, and a switch. */
  drawScores() {
    const session = /** @type {InductionSession} */ (this.session);
    const lang = this.language;
    const key = `${session.models.map((m) => `${m.ablations.length}|${m.evaluation ? 1 : 0}|${[...m.off].join(',')}|${m.offEvaluation ? /** @type {any} */ (m.offEvaluation).repeatAccuracy : ''}`).join('/')}|${session.status}|${this.dark}`;
    if (key === this.scoresKey) return;
    this.scoresKey = key;
    if (session.status !== 'done') {
      replace(this.scoresBox, [h('p', { class: 'hw-hint', text: this.t('induction.scoresNone') })]);
      return;
    }
    const dark = Boolean(this.dark);
    const paint = (/** @type {HTMLElement} */ td, /** @type {number} */ x) => {
      const { bg, fg } = cellColors(Math.max(0, Math.min(1, x)), dark);
      td.style.backgroundColor = bg;
      td.style.color = fg;
      return td;
    };
    replace(this.scoresBox, session.models.map((m) => {
      const e = /** @type {any} */ (m.evaluation);
      const off = /** @type {any} */ (m.offEvaluation);
      const rows = m.heads.map((index) => {
        const layer = Math.floor(index / m.numHeads);
        const head = index % m.numHeads;
        const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'data-testid': 'induction-switch', 'data-model': m.key, 'data-index': index, autocomplete: 'off' }));
        box.checked = !m.off.has(index);
        box.addEventListener('change', () => {
          const next = new Set(m.off);
          if (box.checked) next.delete(index);
          else next.add(index);
          session.ablate(m, [...next].sort((a, b) => a - b));
        });
        return h('tr', { 'data-index': index }, [
          h('th', { scope: 'row', text: this.headName(layer, head) }),
          paint(h('td', { 'data-score': 'previous', text: f2(e.previousTokenScore[layer][head]) }), e.previousTokenScore[layer][head]),
          paint(h('td', { 'data-score': 'induction', text: f2(e.inductionScore[layer][head]) }), e.inductionScore[layer][head]),
          h('td', { 'data-score': 'off', text: f2(/** @type {any} */ (m.ablations[index]).repeatAccuracy) }),
          h('td', {}, [h('label', { class: 'hw-check' }, [box, ` ${this.t('induction.on')}`])]),
        ]);
      });
      const offList = [...m.off];
      const status = offList.length === 0 ? this.t('induction.switchAll', { accuracy: f2(e.repeatAccuracy) })
        : this.t('induction.switchOff', {
          heads: offList.map((i) => this.headName(Math.floor(i / m.numHeads), i % m.numHeads)).join(this.t('common.listSeparator')),
          accuracy: off ? f2(off.repeatAccuracy) : '…', all: f2(e.repeatAccuracy),
        });
      return h('div', { class: 'hw-induction-model', 'data-model': m.key }, [
        h('table', { class: 'hw-weights hw-induction-score-table', 'data-testid': 'induction-score-table', 'data-model': m.key }, [
          h('caption', { text: this.modelName(m) }),
          h('thead', {}, [h('tr', {}, [
            h('td', { class: 'hw-corner' }),
            h('th', { scope: 'col', text: this.t('induction.colPrevious') }),
            h('th', { scope: 'col', text: this.t('induction.colInduction') }),
            h('th', { scope: 'col', text: this.t('induction.colOff') }),
            h('th', { scope: 'col', text: this.t('induction.colSwitch') }),
          ])]),
          h('tbody', {}, rows),
        ]),
        h('p', { class: 'hw-hint', 'data-testid': 'induction-switch-result', 'data-model': m.key, role: 'status', text: status }),
      ]);
    }));
    void lang;
  }

  /**
   * Every head's attention on the probe (both layers of the deep model, then the wide one), at
   * the timeline's step; the previous token (outline 0) and the induction target (outline 1) marked.
   */
  drawHeads() {
    const session = /** @type {InductionSession} */ (this.session);
    const st = /** @type {NonNullable<InductionSession['settings']>} */ (session.settings);
    const [deep] = session.models;
    const layoutKey = `${session.probeKey}|${this.layoutKey}|${session.models.map((m) => m.key).join()}`;
    if (layoutKey !== this.headsKey || this.headsModels !== session.models) {
      this.headsKey = layoutKey;
      this.headsModels = session.models;
      const labels = session.probe.map((t) => st.tokenLabels[t]);
      const target = inductionTargets(session.probe);
      const sources = labels.map((_, i) => [i > 0 ? i - 1 : -1, target[i]]);
      /** @type {{model: InductionModel, index: number, table: HeadTable}[]} */
      this.tables = [];
      const boxes = session.models.map((m) => {
        const grid = h('div', { class: 'hw-train-heads' });
        for (const index of m.heads) {
          const t = new HeadTable({ head: index % m.numHeads, labels, sources, lang: this.language });
          setText(/** @type {HTMLElement} */ (t.caption.firstChild), this.headName(Math.floor(index / m.numHeads), index % m.numHeads));
          this.tables.push({ model: m, index, table: t });
          grid.appendChild(h('div', { class: 'hw-train-head', 'data-model': m.key, 'data-index': index }, [t.table]));
        }
        return h('section', { class: 'hw-induction-model-heads', 'data-model': m.key }, [h('h3', { text: this.modelName(m) }), grid]);
      });
      replace(this.headsBox, [
        h('p', { class: 'hw-hint' }, [
          h('span', { class: 'hw-rel-key hw-rel-0', text: this.t('induction.keyPrevious') }),
          this.t('common.listSeparator'),
          h('span', { class: 'hw-rel-key hw-rel-1', text: this.t('induction.keyInduction') }),
        ]),
        ...boxes,
      ]);
      this.shownKey = '';
    }

    // The timeline: the deep model's snapshots (both models are snapshotted at the same steps);
    // snapshots taken on an earlier probe are taken again on this one once training is done.
    const current = session.timelineCurrent(session.models);
    const snaps = current ? deep.snapshots : [];
    this.timeline.update(snaps.map((sn) => sn.step), this.circuitsSentences(this.circuitSteps(deep), deep.step));
    const index = this.timeline.index;
    this.drawCircuitsAt(deep, Number(this.timeline.at.dataset.step));
    const shownKey = `${index}|${snaps.length}|${session.probeKey}|${session.models.map((m) => m.attentionStep).join()}|${current}`;
    if (shownKey === this.shownKey) return;
    this.shownKey = shownKey;
    const dark = Boolean(this.dark);
    for (const { model, index: k, table } of /** @type {any[]} */ (this.tables)) {
      const snap = index === null ? null : model.snapshots[index];
      const attention = snap && current ? snap.attention : model.attention;
      if (attention && attention[k] && attention[k].length === table.n) table.update(attention[k], dark);
    }
    this.headsBox.dataset.shownStep = this.timeline.at.dataset.step || '';
    this.headsBox.dataset.probe = session.probeKey;
  }

  /**
   * Layer 2's circuits at the timeline's step: each head's copying score and its K-composition
   * with each layer-1 head, as the charts show them there.
   * @param {InductionModel} deep
   * @param {number} step
   */
  drawCircuitsAt(deep, step) {
    const c = deep.circuits;
    const k = c.steps.indexOf(step);
    const key = `${k}|${c.steps.length}|${this.dark}|${this.layoutKey}`;
    if (key === this.circuitsAtKey) return;
    this.circuitsAtKey = key;
    this.circuitsAt.dataset.step = k < 0 ? '' : String(step);
    const st = /** @type {NonNullable<InductionSession['settings']>} */ (/** @type {InductionSession} */ (this.session).settings);
    this.circuitsPython.set(inductionCircuitsCode(st, k < 0 ? 0 : step), k < 0 ? '' : inductionCircuitsOutput(c, k));
    this.circuitsPython.output.hidden = k < 0;
    setText(this.circuitsPyHint, this.t('induction.circuitsPythonHint', { step: k < 0 ? 0 : step }));
    if (k < 0) {
      replace(this.circuitsAt, []);
      return;
    }
    const dark = Boolean(this.dark);
    const cell = (/** @type {string} */ kind, /** @type {number} */ x, /** @type {number} */ top) => {
      const td = h('td', { 'data-score': kind, text: f3(x) });
      const { bg, fg } = cellColors(Math.max(0, Math.min(1, x / top)), dark);
      td.style.backgroundColor = bg;
      td.style.color = fg;
      return td;
    };
    const layer1 = Array.from({ length: deep.numHeads }, (_, g) => g);
    replace(this.circuitsAt, [h('table', { class: 'hw-weights hw-induction-score-table', 'data-testid': 'induction-circuits-table' }, [
      h('caption', { text: this.t('induction.circuitsAt', { step }) }),
      h('thead', {}, [h('tr', {}, [
        h('td', { class: 'hw-corner' }),
        h('th', { scope: 'col', text: this.t('induction.colCopying') }),
        ...layer1.map((g) => h('th', { scope: 'col', text: this.t('induction.colK', { head: this.headName(0, g) }) })),
      ])]),
      h('tbody', {}, c.copying.map((ys, head) => h('tr', { 'data-head': head }, [
        h('th', { scope: 'row', text: this.headName(1, head) }),
        cell('copying', ys[k], 1),
        ...layer1.map((g) => cell('k', c.k[head][g][k], 0.4)),
      ]))),
    ])]);
  }
}

define('hw-induction', HwInduction);
