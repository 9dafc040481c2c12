// <hw-train>: the section "Watch heads specialise". The same task, seed and d_model trained live
// with 1, 2 and 4 heads (so the same parameter count), with start/pause/step/reset, a step
// counter, loss and accuracy curves, every head's attention on a probe sequence as it trains,
// the verdict when the step budget is reached, and switches that turn heads off.
//
// Settings live in the store (trainTask, trainSeed; `#train-task`, `#train-seed`), so embeds can
// show, hide and lock them like any other control. The run itself lives in the store's
// TrainSession (session.js); this element only draws it, once per animation frame, in place.

import { HwElement, define } from '../shared/element.js';
import { h, replace, setText } from '../shared/dom.js';
import { prefersDark } from '../shared/color.js';
import { messageOf } from '../shared/errors.js';
import { numberField, parseNumberField, reflectNumber, showError } from '../lesson/hw-controls.js';
import { Curves, SERIES } from './curves.js';
import { FrameDrawer, adoptSession, onThemeChange } from './frames.js';
import { HeadTable } from './tables.js';
import { awaitTrainingModule, sessionFor, sourceOf } from './session.js';
import { a3, headsWord, modelVerdict, relationPhrase, summary } from './verdict.js';
import { Timeline, paceField, probeFocus, settledSentence, settledSteps, uniqueSources } from './timeline.js';

/** @typedef {import('../shared/store.js').Store} Store */
/** @typedef {import('./session.js').TrainSession} TrainSession */
/** @typedef {import('./session.js').Model} Model */


/**
 * The probe sequence as the tables show it: its tokens' labels, and for each position the
 * source position of every relation (-1: none).
 * @param {NonNullable<TrainSession['settings']>} st
 */
function probeOf(st) {
  return {
    labels: st.probe.map((t) => st.tokenLabels[t] ?? String(t)),
    sources: st.probe.map((_, i) => st.relations.map((r) => sourceOf(r.rule, i, st.seqLen))),
  };
}

class HwTrain extends HwElement {
  build() {
    // The line src/train/loader.js showed while train.js loaded.
    for (const line of this.querySelectorAll(':scope > [data-hw-train-loading]')) line.remove();
    this.taskSelect = /** @type {HTMLSelectElement} */ (h('select', {
      id: 'train-task', name: 'train-task', 'aria-describedby': 'train-task-hint',
      // The task is kept in the address (train_task); see web/src/lesson/hw-controls.js numberField.
      autocomplete: 'off',
    }));
    this.taskSelect.addEventListener('change', () => this.store.set({ trainTask: this.taskSelect.value }, 'train-task'));
    const taskWrap = h('div', { class: 'hw-field' }, [
      h('label', { for: 'train-task', text: 'Task' }),
      this.taskSelect,
      h('p', { class: 'hw-hint', id: 'train-task-hint', text: 'What every position must predict.' }),
    ]);
    const seed = numberField('train-seed', 'Seed', 'np.random.seed(seed): initial weights and batches.');
    this.seedInput = seed.input;
    this.seedError = seed.error;
    seed.input.min = '0';
    seed.input.addEventListener('input', () => {
      const { value, problem } = parseNumberField(seed.input);
      this.store.setInputError('train-seed', problem);
      this.store.set({ trainSeed: value }, 'train-seed');
    });

    const pace = paceField('train-pace', (p) => { if (this.session) this.session.setPace(p); });
    this.paceSelect = pace.select;
    this.timeline = new Timeline('train-timeline', () => this.schedule());

    this.runButton = h('button', { type: 'button', class: 'hw-button', id: 'train-run', 'data-testid': 'train-run', text: 'Train' });
    this.stepButton = h('button', { type: 'button', class: 'hw-button hw-button-quiet', id: 'train-step', 'data-testid': 'train-step-once', text: 'Step' });
    this.resetButton = h('button', { type: 'button', class: 'hw-button hw-button-quiet', id: 'train-reset', 'data-testid': 'train-reset', text: 'Reset' });
    this.runButton.addEventListener('click', () => {
      const s = this.session;
      if (!s) return;
      if (s.status === 'running') s.pause();
      else s.start();
    });
    this.stepButton.addEventListener('click', () => { if (this.session) this.session.stepOnce(); });
    this.resetButton.addEventListener('click', () => { if (this.session) this.session.reset(); });
    // Until the training module has loaded there is nothing to train (draw() enables them).
    for (const b of [this.runButton, this.stepButton, this.resetButton]) b.toggleAttribute('disabled', true);
    this.counter = h('p', { class: 'hw-train-counter', 'data-testid': 'train-counter', role: 'status', 'aria-live': 'off' });
    this.runError = h('p', { class: 'hw-error', 'data-error-for': 'train', role: 'alert', hidden: true });

    this.about = h('p', { class: 'hw-hint hw-train-about', 'data-testid': 'train-about' });
    this.legend = h('ul', { class: 'hw-train-legend', 'aria-label': 'Models' });
    this.curveBox = h('div', { class: 'hw-train-curves' });
    this.modelsBox = h('div', { class: 'hw-train-models' });
    this.verdict = h('div', { class: 'hw-train-verdict', 'data-testid': 'train-verdict', 'aria-live': 'polite', hidden: true });

    this.appendChild(h('div', { class: 'hw-train-controls' }, [
      h('div', { class: 'hw-train-fields' }, [taskWrap, seed.wrap, pace.wrap]),
      h('div', { class: 'hw-controls-actions', role: 'group', 'aria-label': 'Training' }, [this.runButton, this.stepButton, this.resetButton, this.counter]),
      this.runError,
    ]));
    this.appendChild(this.about);
    this.appendChild(this.curveBox);
    this.appendChild(this.legend);
    this.appendChild(this.verdict);
    this.appendChild(this.timeline.wrap);
    this.appendChild(this.modelsBox);

    /** @type {TrainSession|null} */
    this.session = null;
    this.configKey = '';
    this.drawer = new FrameDrawer({
      name: 'hw-train draw', draw: () => this.draw(), busy: () => Boolean(this.session) && this.session.status === 'running',
      fail: (m) => this.setStatus(m, true),
    });
    /** the model whose attention tables are drawn first when several wait (see draw) */
    this.tableTurn = 0;
    this.onSession = () => this.schedule();
    // The trainers are made when the section comes near the viewport (see TrainSession.prepare).
    this.near = typeof IntersectionObserver !== 'function';
    if (!this.near) {
      const watch = new IntersectionObserver((entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        watch.disconnect();
        this.near = true;
        if (this.session) this.session.prepare();
      }, { rootMargin: '600px 0px' });
      watch.observe(this);
    }
    onThemeChange(() => {
      this.layoutKey = '';
      this.schedule();
    });
  }

  /** @param {Store} store */
  update(store) {
    const session = sessionFor(store);
    if (!session) {
      awaitTrainingModule(this);
      return;
    }
    adoptSession(this, session, ['progress', 'state']);
    const s = store.state;
    reflectNumber(this.seedInput, s.trainSeed);
    const missing = store.inputErrors['train-seed'];
    if (this.taskSelect.options.length === 0) {
      let tasks = [];
      try {
        tasks = session.hw.trainingTasks();
      } catch (e) {
        this.setStatus(`This module cannot train: ${messageOf(e)}`, true);
        return;
      }
      for (const t of tasks) this.taskSelect.appendChild(h('option', { value: t.name, text: t.title }));
    }
    if (this.taskSelect.value !== s.trainTask) this.taskSelect.value = s.trainTask;
    showError(this.seedError, this.seedInput, missing || null);
    const key = JSON.stringify([s.trainTask, s.trainSeed]);
    if (!missing && key !== this.configKey) {
      this.configKey = key;
      try {
        session.ensure(s.trainTask, /** @type {number} */ (s.trainSeed));
        if (this.near) session.prepare();
        showError(this.seedError, this.seedInput, null);
        showError(this.runError, null, null);
      } catch (e) {
        const message = messageOf(e);
        if (/seed/i.test(message)) showError(this.seedError, this.seedInput, message);
        else showError(this.runError, null, message);
        session.dispose();
      }
    }
    // The section draws from its session (whose events schedule a drawing themselves) and from
    // these settings: a change elsewhere on the page (the lesson's seed) leaves it alone.
    const drawKey = JSON.stringify([key, missing || null, session.status]);
    if (drawKey !== this.drawKey || session !== this.drawnSession) {
      this.drawKey = drawKey;
      this.drawnSession = session;
      this.schedule();
    }
  }

  schedule() {
    this.drawer.schedule();
  }


  /** Build the per-settings skeleton (curves, model blocks, tables) when the settings change. */
  layout() {
    const session = /** @type {TrainSession} */ (this.session);
    const st = /** @type {NonNullable<TrainSession['settings']>} */ (session.settings);
    const dark = prefersDark();
    const key = JSON.stringify([st.task, st.seed, dark, session.models.length]);
    if (key === this.layoutKey && this.layoutModels === session.models) return;
    this.layoutKey = key;
    this.layoutModels = session.models;
    this.dark = dark;
    const models = session.models;
    const series = models.map((m, i) => ({ label: headsWord(m.numHeads), cls: SERIES[i] }));
    const rules = st.relations.map((r) => `${relationPhrase(r)} (${r.rule})`).join(' and ');
    replace(this.about, [
      `${st.title}: at every position i the model predicts ${st.relations.length} tokens, ${rules}. `,
      `Sequences of ${st.seqLen} tokens from ${st.vocab} letters; d_model ${st.dModel}; `,
      `Adam, learning rate ${st.learningRate}, batches of ${st.batchSize}, ${st.steps} steps. `,
      'All models start from the same weights (np.random.seed) and see the same batches; only the split into heads differs.',
    ]);
    this.loss = new Curves({
      title: 'Loss on each training batch', testid: 'train-loss', yMax: Math.max(1, Math.ceil(Math.log(st.vocab) * 1.25)),
      yTicks: [0, 1, 2, 3].filter((y) => y <= Math.ceil(Math.log(st.vocab) * 1.25)), yFormat: String, series,
    });
    this.acc = new Curves({ title: 'Accuracy on each training batch', testid: 'train-accuracy', yMax: 1, yTicks: [0, 0.25, 0.5, 0.75, 1], yFormat: (y) => String(y), series });
    this.loss.setX(st.steps);
    this.acc.setX(st.steps);
    replace(this.curveBox, [this.loss.figure, this.acc.figure]);
    replace(this.legend, models.map((m, i) => h('li', { class: `hw-train-key ${SERIES[i]}` }, [h('span', { class: 'hw-train-swatch', 'aria-hidden': 'true' }), headsWord(m.numHeads)])));

    // The models' blocks (their tables are most of the section's boxes) are built one per frame
    // by draw(): built all at once with the section, the section's first frame was the page's
    // longest task (47 to 61 ms of CPU here: layout alone 18 to 22 ms).
    const { labels } = probeOf(st);
    /** @type {{tables: HeadTable[], stats: HTMLElement, ablation: HTMLElement, verdict: HTMLElement, switches: HTMLInputElement[], drawnStep: string, drawnOff: any}[]} */
    this.blocks = [];
    const probeText = labels.join(' ');
    replace(this.modelsBox, [h('p', { class: 'hw-hint hw-train-probe' }, [
      `Each table is one head's attention on the probe sequence ${probeText}: row i is position i, each row adds up to 1 (a position sees only itself and earlier ones). `,
      'The answers are outlined: ',
      ...st.relations.flatMap((r, k) => [k ? (k === st.relations.length - 1 ? ' and ' : ', ') : '', h('span', { class: `hw-rel-key hw-rel-${k}`, text: `${relationPhrase(r)} (${r.rule})` })]),
      '. Switch a head off to see what the model loses without it (while paused, or after training).',
    ])]);
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
    const tables = Array.from({ length: m.numHeads }, (_, head) => new HeadTable({ head, labels, sources }));
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
    this.modelsBox.appendChild(h('section', { class: `hw-train-model ${SERIES[i]}`, 'data-heads': m.numHeads, 'aria-label': headsWord(m.numHeads) }, [
      h('h3', {}, [h('span', { class: 'hw-train-swatch', 'aria-hidden': 'true' }), `${headsWord(m.numHeads)}`, h('span', { class: 'hw-head-dims', text: ` · d_head ${st.dModel / m.numHeads}` })]),
      stats,
      verdict,
      h('div', { class: 'hw-train-heads' }, tables.map((t, head) => h('div', { class: 'hw-train-head', 'data-head': head }, [
        t.table,
        h('label', { class: 'hw-check hw-train-switch' }, [switches[head], ` head ${head} on`]),
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
    const running = status === 'running' || status === 'finishing';
    // Only when it changes: this runs every frame while training, and WebKit drops a click whose
    // button's text node is replaced between press and release (every click held a frame or more).
    setText(this.runButton, status === 'running' ? (session.pausing ? 'Pausing…' : 'Pause') : session.step > 0 && !session.finished ? 'Resume' : 'Train');
    this.runButton.toggleAttribute('disabled', session.finished || session.pausing || status === 'finishing' || status === 'error');
    this.stepButton.toggleAttribute('disabled', running || session.finished || status === 'error');
    this.resetButton.toggleAttribute('disabled', session.step === 0 && status !== 'error');
    setText(this.counter, `step ${session.step} of ${st.steps}${status === 'finishing' ? ' · evaluating…' : ''}`);
    this.counter.dataset.step = String(session.step);
    // The attention tables: one model's per frame. A model's tables all change when its
    // attention is probed, and the models are probed together; redrawing every model's tables in
    // one frame (7 tables, about 500 boxes to lay out) made the first frames of training the
    // page's longest tasks (30 to 54 ms of CPU here, layout alone 20 to 35 ms; 15 to 23 ms with
    // one model's per frame). The others follow in the next frames, taking turns, and the
    // section says it is done only once every table shows the final weights. A block built in
    // this frame is filled in a later one.
    // Model i's tables are built and do not show its latest attention yet.
    // The timeline: the step every model's tables show (null: the latest).
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
    this.toggleAttribute('data-running', running);
    this.toggleAttribute('data-done', status === 'done' && !tablesLeft);
    // Every block built and every table showing its model's latest attention.
    this.toggleAttribute('data-drawn', !tablesLeft);
    // Something to show for it: the page prints the section only then (styles.css, print).
    this.toggleAttribute('data-trained', session.step > 0);
    this.dataset.status = status;
    const seedProblem = session.error && /\bseed\b/.test(session.error) ? session.error : null;
    if (seedProblem || !this.store.inputErrors['train-seed']) showError(this.seedError, this.seedInput, seedProblem);
    showError(this.runError, null, session.error && !seedProblem ? `Training stopped: ${session.error}` : null);

    session.models.forEach((m, i) => {
      this.loss.update(i, m.steps, m.loss);
      this.acc.update(i, m.steps, m.accuracy);
      const b = this.blocks[i];
      if (!b) return;  // built in a coming frame
      const last = m.loss.length - 1;
      setText(b.stats, last >= 0
        ? `step ${m.steps[last]}: loss ${m.loss[last].toFixed(3)}, accuracy ${m.accuracy[last].toFixed(3)} (training batch) · ${m.parameters} parameters`
        : `not trained yet · ${m.parameters || '…'} parameters`);
      if (i === turn) {
        const w = wanted(i);
        b.drawnStep = w.key;
        b.tables.forEach((t, head) => t.update(/** @type {number[][][]} */ (w.attention)[head], Boolean(this.dark)));
      }
      const canAblate = Boolean(m.remote) && !running && status !== 'error';
      for (const box of b.switches) {
        box.disabled = !canAblate;
        box.checked = !m.off.has(Number(box.dataset.head));
        /** @type {HTMLElement} */ (box.closest('.hw-train-head')).toggleAttribute('data-off', !box.checked);
      }
      if (b.drawnOff !== m.offEvaluation) {
        b.drawnOff = m.offEvaluation;
        const e = m.offEvaluation;
        const off = [...m.off].sort((x, y) => x - y);
        b.ablation.textContent = e
          ? `${off.length ? `With head${off.length > 1 ? 's' : ''} ${off.join(', ')} off` : 'All heads on'}, held-out accuracy: ${st.relations.map((r, k) => `${r.title} ${a3(e.relationAccuracy[k])}`).join(', ')}.`
          : '';
      }
      if (m.evaluation && m.ablations.length === m.numHeads) {
        const v = modelVerdict(st.relations, m.numHeads, m.evaluation, m.ablations);
        setText(b.verdict, `${v.headline}${v.ablation ? ` ${v.ablation}` : ''}`);
        b.verdict.hidden = false;
        b.verdict.toggleAttribute('data-specialised', v.specialised);
      } else {
        b.verdict.hidden = true;
      }
    });

    if (status === 'done') {
      const lines = session.models.map((m) => {
        const v = modelVerdict(st.relations, m.numHeads, /** @type {any} */ (m.evaluation), m.ablations);
        return h('li', { 'data-heads': m.numHeads }, [h('strong', { text: `${headsWord(m.numHeads)}: ` }), v.heads]);
      });
      const key = lines.map((l) => l.textContent).join('|');
      if (key !== this.verdictKey) {
        this.verdictKey = key;
        replace(this.verdict, [
          h('p', { class: 'hw-verdict', text: `After ${st.steps} steps (${(session.elapsedMs / 1000).toFixed(1)} s of training). ${summary(session.models.map((m) => ({ numHeads: m.numHeads, parameters: m.parameters, evaluation: /** @type {any} */ (m.evaluation) })))}` }),
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
    this.timelineKey = key;
    const sentences = models.filter((m) => m.numHeads > 1 && m.snapshots.length > 1).map((m) => {
      const list = settledSteps(m.snapshots.map((sn) => ({ step: sn.step, focus: probeFocus(sn.attention, rows) })), st.relations.length);
      return `${headsWord(m.numHeads)}: ${settledSentence(list, st.relations)}`;
    });
    this.timeline.update(steps, sentences.join('. '));
  }
}

define('hw-train', HwTrain);
