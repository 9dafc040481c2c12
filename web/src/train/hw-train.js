// <hw-train>: the section "Watch heads specialise". The same task, seed and d_model trained live
// with 1, 2 and 4 heads (so the same parameter count), with start/pause/step/reset, a step
// counter, loss and accuracy curves, every head's attention on a probe sequence as it trains,
// the verdict when the step budget is reached, and switches that turn heads off.
//
// Settings live in the store (trainTask, trainSeed; `#train-task`, `#train-seed`), so embeds can
// show, hide and lock them like any other control. The run itself lives in the store's
// TrainSession (session.js); this element draws it with the run view (run-view.js), once per
// animation frame, in place, and draws what is its own: the models' blocks, tables, switches and
// verdicts.

import { HwElement, define } from '../shared/ui/element.js';
import { forget } from '../shared/ui/redraw-guard.js';
import { h, replace, setText } from '../shared/ui/dom.js';
import { prefersDark } from '../shared/ui/color.js';
import { concerns, errorOf } from '../shared/state/errors.js';
import { reflectNumber, showError } from '../shared/ui/forms.js';
import { SETTING } from '../shared/state/settings.js';
import { SERIES } from './curves.js';
import { seedField } from './frames.js';
import { HeadTable } from './tables.js';
import { TRAIN, sessionFor } from './session.js';
import { RESET, RunView } from './run-view.js';
import { awaitTrainingModule } from './training-module.js';
import { a3, headsWord, modelVerdict, perRelation, summary } from './verdict.js';
import { relationPhrase, sourceOf, taskTitle } from '../shared/i18n/relations.js';
import { probeFocus, settledSentence, settledSteps, uniqueSources } from './timeline.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/** The task's control (the settings table's id). */
const TASK = SETTING.trainTask.control;
/** @typedef {import('./session.js').TrainSession} TrainSession */


/**
 * The probe sequence as the tables show it: its tokens' labels, and for each position the
 * source position of every relation (-1: none).
 * @param {NonNullable<TrainSession['settings']>} st
 */
function probeOf(st) {
  return {
    labels: st.probe.map((t) => st.tokenLabels[t] ?? String(t)),
    sources: st.probe.map((_, i) => st.relations.map((r) => sourceOf(r, i, st.seqLen))),
  };
}

class HwTrain extends HwElement {
  build() {
    // The line src/train/loader.js showed while train.js loaded.
    for (const line of this.querySelectorAll(':scope > [data-hw-train-loading]')) line.remove();
    this.taskSelect = /** @type {HTMLSelectElement} */ (h('select', {
      id: TASK, name: TASK, 'aria-describedby': `${TASK}-hint`,
      // The task is kept in the address (train_task); see numberField in src/shared/ui/forms.js.
      autocomplete: 'off',
    }));
    this.taskSelect.addEventListener('change', () => this.store.set({ trainTask: this.taskSelect.value }, TASK));
    const taskWrap = h('div', { class: 'hw-field' }, [
      h('label', { for: TASK, text: this.t('train.task.label') }),
      this.taskSelect,
      h('p', { class: 'hw-hint', id: `${TASK}-hint`, text: this.t('train.task.hint') }),
    ]);
    const seed = seedField(this, 'trainSeed', this.t('train.seed.label'), this.t('train.seed.hint'));
    this.seedInput = seed.input;
    this.seedError = seed.error;

    this.view = new RunView(this, {
      id: 'train', measure: TRAIN.name,
      buttons: [
        // Run pauses while the models train (not while one step computes: see Experiment.stepOnce).
        { name: 'run', text: 'train.run.train', onClick: (exp) => (exp.status === 'training' && !exp.stepping ? exp.pause() : exp.start()) },
        { name: 'step', text: 'train.run.step', quiet: true, testid: 'train-step-once', onClick: (exp) => exp.stepOnce() },
        RESET,
      ],
      onScrub: () => this.schedule(),
    });
    this.timeline = this.view.timeline;

    this.about = h('p', { class: 'hw-hint hw-train-about', 'data-testid': 'train-about' });
    this.modelsBox = h('div', { class: 'hw-train-models' });
    this.verdict = h('div', { class: 'hw-train-verdict', 'data-testid': 'train-verdict', 'aria-live': 'polite', hidden: true });

    this.appendChild(this.view.controls([taskWrap, seed.wrap]));
    this.appendChild(this.about);
    this.appendChild(this.view.curves);
    this.appendChild(this.view.legend);
    this.appendChild(this.verdict);
    this.appendChild(this.timeline.wrap);
    this.appendChild(this.modelsBox);

    /** @type {TrainSession|null} */
    this.session = null;
    /** the model whose attention tables are drawn first when several wait (see draw) */
    this.tableTurn = 0;
    // Kept when the section is drawn again in another language (see keep): a section already
    // near stays near.
    // The trainers are made when the section comes near the viewport (see Experiment.prepare).
    if (this.near === undefined) this.near = typeof IntersectionObserver !== 'function';
    if (!this.near) {
      const watch = new IntersectionObserver((entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        watch.disconnect();
        this.near = true;
        if (this.session) this.session.prepare();
      }, { rootMargin: '600px 0px' });
      watch.observe(this);
    }
    this.onTheme(() => {
      forget(this, 'layout');
      this.schedule();
    });
  }

  static get keep() {
    return ['onSession', 'near'];
  }

  /** @returns {any} */
  saveState() {
    return { ...super.saveState(), timeline: this.timeline ? this.timeline.index : null };
  }

  /** @param {any} state */
  restoreState(state) {
    super.restoreState(state);
    if (state && this.timeline) this.timeline.index = state.timeline;
  }

  /** @param {Store} store */
  update(store) {
    const session = sessionFor(store);
    if (!session) {
      awaitTrainingModule(this);
      return;
    }
    this.view.adopt(session);
    const s = store.state;
    reflectNumber(this.seedInput, s.trainSeed);
    const missing = store.inputErrors[SETTING.trainSeed.control];
    if (this.taskSelect.options.length === 0) {
      let tasks = [];
      try {
        tasks = session.hw.trainingTasks();
      } catch (e) {
        this.setStatus(this.t('train.cannotTrain', { reason: this.say(e) }), true);
        return;
      }
      for (const t of tasks) this.taskSelect.appendChild(h('option', { value: t.name, text: taskTitle(t.name, t.title, this.language) }));
    }
    if (this.taskSelect.value !== s.trainTask) this.taskSelect.value = s.trainTask;
    const lang = this.language;
    showError(this.seedError, this.seedInput, missing || null, lang);
    if (!missing && this.changed('config', [s.trainTask, s.trainSeed])) {
      try {
        session.ensure(s.trainTask, /** @type {number} */ (s.trainSeed));
        if (this.near) session.prepare();
        showError(this.seedError, this.seedInput, null, lang);
        this.view.showError(null);
      } catch (e) {
        const error = errorOf(e);
        if (concerns(error, 'seed')) showError(this.seedError, this.seedInput, error, lang);
        else this.view.showError(error);
        session.dispose();
      }
    }
    // The section draws from its session (whose events schedule a drawing themselves) and from
    // these settings: a change elsewhere on the page (the lesson's seed) leaves it alone.
    if (this.changed('draw', [s.trainTask, s.trainSeed, missing || null, session.status, session])) this.schedule();
  }

  schedule() {
    this.view.schedule();
  }


  /** Build the per-settings skeleton (curves, model blocks, tables) when the settings change. */
  layout() {
    const session = /** @type {TrainSession} */ (this.session);
    const st = /** @type {NonNullable<TrainSession['settings']>} */ (session.settings);
    const dark = prefersDark();
    if (!this.changed('layout', [st.task, st.seed, dark, session.models.length, session.models])) return;
    this.dark = dark;
    const models = session.models;
    const lang = this.language;
    const rule = (/** @type {any} */ r) => this.t('train.about.rule', { relation: relationPhrase(r, lang), rule: r.rule });
    const rules = st.relations.map(rule).join(this.t('common.and'));
    replace(this.about, [this.t('train.about.text', {
      task: taskTitle(st.task, st.title, lang), count: st.relations.length, rules, seqLen: st.seqLen, vocab: st.vocab, dModel: st.dModel,
      learningRate: st.learningRate, batchSize: st.batchSize, steps: st.steps,
    })]);
    const yMax = Math.ceil(Math.log(st.vocab) * 1.25);
    this.view.layoutCurves(st.steps, {
      series: models.map((m) => headsWord(m.numHeads, lang)),
      loss: { title: this.t('train.curves.loss'), yMax: Math.max(1, yMax), yTicks: [0, 1, 2, 3].filter((y) => y <= yMax) },
      accuracy: { title: this.t('train.curves.accuracy') },
    });

    // The models' blocks (their tables are most of the section's boxes) are built by draw(), one
    // per frame, so that no frame lays them all out at once.
    const { labels } = probeOf(st);
    /** @type {{tables: HeadTable[], stats: HTMLElement, ablation: HTMLElement, verdict: HTMLElement, switches: HTMLInputElement[], drawnStep: string, drawnOff: any}[]} */
    this.blocks = [];
    const probeText = labels.join(' ');
    const answers = st.relations.flatMap((r, k) => [
      k ? this.t(k === st.relations.length - 1 ? 'common.and' : 'common.listSeparator') : '',
      h('span', { class: `hw-rel-key hw-rel-${k}`, text: rule(r) }),
    ]);
    replace(this.modelsBox, [h('p', { class: 'hw-hint hw-train-probe' }, this.tNodes('train.probe', { probe: probeText, answers }))]);
  }

  /**
   * Build the next model's block (its heading, lines and one table per head) at the end of the
   * models box.
   */
  buildBlock() {
    const session = /** @type {TrainSession} */ (this.session);
    const st = /** @type {NonNullable<TrainSession['settings']>} */ (session.settings);
    const i = this.blocks.length;
    const m = session.models[i];
    const { labels, sources } = probeOf(st);
    const tables = Array.from({ length: m.numHeads }, (_, head) => new HeadTable({ head, labels, sources, lang: this.language }));
    const switches = tables.map((_, head) => {
      const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'data-head': head, 'data-testid': 'train-head-switch', autocomplete: 'off' }));
      box.checked = true;
      box.addEventListener('change', () => {
        const off = switches.filter((b) => !b.checked).map((b) => Number(b.dataset.head));
        session.setAblation(i, off);
      });
      return box;
    });
    const stats = h('p', { class: 'hw-train-stats', 'data-testid': 'train-stats' });
    const ablation = h('p', { class: 'hw-train-ablation', 'data-testid': 'train-ablation' });
    const verdict = h('p', { class: 'hw-train-model-verdict', 'data-testid': 'train-model-verdict', hidden: true });
    this.blocks.push({ tables, stats, ablation, verdict, switches, drawnStep: '', drawnOff: null });
    const heads = headsWord(m.numHeads, this.language);
    this.modelsBox.appendChild(h('section', { class: `hw-train-model ${SERIES[i]}`, 'data-heads': m.numHeads, 'aria-label': heads }, [
      h('h3', {}, [h('span', { class: 'hw-train-swatch', 'aria-hidden': 'true' }), heads, h('span', { class: 'hw-head-dims', translate: 'no', text: ` · d_head ${st.dModel / m.numHeads}` })]),
      stats,
      verdict,
      h('div', { class: 'hw-train-heads' }, tables.map((t, head) => h('div', { class: 'hw-train-head', 'data-head': head }, [
        t.table,
        h('label', { class: 'hw-check hw-train-switch' }, [switches[head], ` ${this.t('train.switch', { head })}`]),
      ]))),
      ablation,
    ]));
  }

  draw() {
    const session = this.session;
    if (!session || !session.settings) return;
    this.layout();
    const st = session.settings;
    const status = session.status;
    const running = session.busy;
    this.view.drawButtons({
      run: {
        disabled: session.finished || session.pausing || status === 'evaluating' || status === 'failed',
        text: status === 'training' && !session.stepping ? (session.pausing ? 'train.run.pausing' : 'train.run.pause') : session.step > 0 && !session.finished ? 'train.run.resume' : 'train.run.train',
      },
      step: { disabled: running || session.finished || status === 'failed' },
      reset: { disabled: session.step === 0 && status !== 'failed' },
    });
    // The attention tables: one model's per frame, the models taking turns (all of them in one
    // frame, about 500 boxes, would make it a long task); the section says it is done only once
    // every table shows the final weights. A block built in this frame is filled in a later one.
    // The timeline's index: the snapshot every model's tables show (null: the latest).
    const index = this.timeline.index;
    /** What model i's tables should show, and a key for it. @param {number} i */
    const wanted = (i) => {
      const m = session.models[i];
      const snap = index === null ? null : m.snapshots[Math.min(index, m.snapshots.length - 1)];
      return snap ? { attention: snap.attention, key: `t${snap.step}` } : { attention: m.attention, key: String(m.attentionStep) };
    };
    const behind = (/** @type {number} */ i) => {
      const m = session.models[i];
      return i < this.blocks.length && Boolean(m.attention) && this.blocks[i].drawnStep !== wanted(i).key;
    };
    const stale = session.models.map((_, i) => behind(i));
    if (this.blocks.length < session.models.length) this.buildBlock();
    let turn = -1;
    for (let k = 0; k < stale.length && turn < 0; k += 1) {
      const i = (this.tableTurn + k) % stale.length;
      if (stale[i]) turn = i;
    }
    if (turn >= 0) this.tableTurn = (turn + 1) % stale.length;
    const tablesLeft = this.blocks.length < session.models.length || session.models.some((_, i) => i !== turn && behind(i));
    this.toggleAttribute('data-done', status === 'done' && !tablesLeft);
    // Every block built and every table showing its model's latest attention.
    this.toggleAttribute('data-drawn', !tablesLeft);
    // Something to show for it: the page prints the section only then (page.css, print).
    this.toggleAttribute('data-trained', session.step > 0);
    const seedProblem = session.error && concerns(session.error, 'seed') ? session.error : null;
    const lang = this.language;
    if (seedProblem || !this.store.inputErrors[SETTING.trainSeed.control]) showError(this.seedError, this.seedInput, seedProblem, lang);
    this.view.drawRun(session, {
      counter: this.t(status === 'evaluating' ? 'train.counterEvaluating' : 'train.counter', { step: session.step, steps: st.steps }),
      step: session.step,
      error: seedProblem ? null : session.error,
    });
    this.view.drawCurves(session.models);

    session.models.forEach((m, i) => {
      const b = this.blocks[i];
      if (!b) return;  // built in a coming frame
      const last = m.loss.length - 1;
      setText(b.stats, last >= 0
        ? this.t('train.stats', { step: m.steps[last], loss: m.loss[last].toFixed(3), accuracy: m.accuracy[last].toFixed(3), parameters: m.parameters })
        : this.t('train.statsNone', { parameters: m.parameters || '…' }));
      if (i === turn) {
        const w = wanted(i);
        b.drawnStep = w.key;
        b.tables.forEach((t, head) => t.update(/** @type {number[][][]} */ (w.attention)[head], Boolean(this.dark)));
      }
      const canAblate = Boolean(m.remote) && !running && status !== 'failed';
      for (const box of b.switches) {
        box.disabled = !canAblate;
        box.checked = !m.off.has(Number(box.dataset.head));
        /** @type {HTMLElement} */ (box.closest('.hw-train-head')).toggleAttribute('data-off', !box.checked);
      }
      if (b.drawnOff !== m.offEvaluation) {
        b.drawnOff = m.offEvaluation;
        const e = m.offEvaluation;
        const off = [...m.off].sort((x, y) => x - y);
        const values = e ? perRelation(st.relations, (k) => a3(e.relationAccuracy[k]), lang) : '';
        b.ablation.textContent = e
          ? (off.length ? this.t('train.ablation.off', { count: off.length, heads: off.join(this.t('common.listSeparator')), values }) : this.t('train.ablation.none', { values }))
          : '';
      }
      if (m.evaluation && m.ablations.length === m.numHeads) {
        const v = modelVerdict(st.relations, m.numHeads, m.evaluation, m.ablations, lang);
        setText(b.verdict, `${v.headline}${v.ablation ? `${this.t('common.sentenceGap')}${v.ablation}` : ''}`);
        b.verdict.hidden = false;
        b.verdict.toggleAttribute('data-specialised', v.specialised);
      } else {
        b.verdict.hidden = true;
      }
    });

    if (status === 'done') {
      const lines = session.models.map((m) => {
        const v = modelVerdict(st.relations, m.numHeads, /** @type {any} */ (m.evaluation), m.ablations, lang);
        return h('li', { 'data-heads': m.numHeads }, this.tNodes('train.verdict.line', { heads: h('strong', { text: this.t('train.verdict.lineHeads', { heads: headsWord(m.numHeads, lang) }) }), verdict: v.heads }));
      });
      const key = lines.map((l) => l.textContent).join('|');
      if (key !== this.verdictKey) {
        /** @type {string} */
        this.verdictKey = key;
        const after = this.t('train.after', { steps: st.steps, seconds: (session.elapsedMs / 1000).toFixed(1) });
        const all = summary(session.models.map((m) => ({ numHeads: m.numHeads, parameters: m.parameters, evaluation: /** @type {any} */ (m.evaluation) })), lang);
        replace(this.verdict, [
          h('p', { class: 'hw-verdict', text: `${after}${this.t('common.sentenceGap')}${all}` }),
          h('ul', {}, lines),
        ]);
      }
      this.verdict.hidden = false;
    } else {
      this.verdictKey = '';
      this.verdict.hidden = true;
    }
    this.drawTimeline();
    if (tablesLeft) this.schedule();
  }

  /** The timeline's slider and, per model, the step where each head settled, in words. */
  drawTimeline() {
    const session = /** @type {TrainSession} */ (this.session);
    const st = /** @type {NonNullable<TrainSession['settings']>} */ (session.settings);
    const models = session.models;
    if (!this.uniqueRows || this.uniqueFor !== st) {
      this.uniqueFor = st;
      this.uniqueRows = uniqueSources(st.relations, st.probe.length);
    }
    const rows = this.uniqueRows;
    const steps = models.length ? models[0].snapshots.map((sn) => sn.step) : [];
    const key = `${steps.length}|${steps[steps.length - 1]}|${this.timeline.index}`;
    if (key === this.timelineKey) return;
    /** @type {string} */
    this.timelineKey = key;
    const lang = this.language;
    const sentences = models.filter((m) => m.numHeads > 1 && m.snapshots.length > 1).map((m) => {
      const list = settledSteps(m.snapshots.map((sn) => ({ step: sn.step, focus: probeFocus(sn.attention, rows) })), st.relations.length);
      return this.t('train.timeline.model', { heads: headsWord(m.numHeads, lang), settled: settledSentence(list, st.relations, lang) });
    });
    this.timeline.update(steps, sentences);
  }
}

define('hw-train', HwTrain);
