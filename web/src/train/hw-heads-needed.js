// <hw-heads-needed>: the section "How many heads does it take?". The student picks 1 to 4
// relations; the page trains one model per head count (1, 2, 4, 8) at the same d_model, and on
// request the whole grid D = 1…4 × h. The grid fills in as each model finishes (its worst
// relation's held-out accuracy on the page's colour ramp), each row's cliff is said in words,
// and any cell opens on its per-head attention tables (on the student's own probe), its
// heads × relations ablation matrix, its curves and its timeline.
//
// Settings live in the store (headsRelations, headsSeed; `#heads_relations`, `#heads_seed`), so
// embeds show, hide and lock them like any other control. The run lives in the store's
// GridSession (grid.js); this element draws it with the run view (run-view.js), at most once per
// DRAW_INTERVAL_MS while it trains, in place, and draws what is its own: the grid, the cliff, the
// probe, the opened cell's tables and ablation matrix.

import { HwElement, define } from '../shared/ui/element.js';
import { forget } from '../shared/ui/redraw-guard.js';
import { h, replace, setText } from '../shared/ui/dom.js';
import { cellColors, paintCell, prefersDark } from '../shared/ui/color.js';
import { PageError, concerns, errorOf } from '../shared/state/errors.js';
import { reflectNumber, showError } from '../shared/ui/forms.js';
import { SETTING } from '../shared/state/settings.js';
import { seedField } from './frames.js';
import { HeadTable } from './tables.js';
import { awaitTrainingModule } from './training-module.js';
import { GRID, MAX_RELATIONS, cliffSentence, gridFor, parseProbe } from './grid.js';
import { RESET, RunView } from './run-view.js';
import { probeFocus, settledSentence, settledSteps, uniqueSources } from './timeline.js';
import { a3, headsWord, perRelation, titleOf } from './verdict.js';
import { relationDescription, relationPhrase, relationTitle, sourceOf } from '../shared/i18n/relations.js';

/** @typedef {import('../shared/state/store.js').Store} Store */
/** @typedef {import('./grid.js').GridSession} GridSession */
/** @typedef {import('./grid.js').Cell} Cell */

/** The relations' control (the settings table's id). */
const RELATIONS = SETTING.headsRelations.control;


/** A value as a grid cell shows it. @param {number} x */
const cell2 = (x) => x.toFixed(2);

class HwHeadsNeeded extends HwElement {
  build() {
    for (const line of this.querySelectorAll(':scope > [data-hw-train-loading]')) line.remove();
    this.relationBox = h('fieldset', { class: 'hw-field hw-heads-relations', id: RELATIONS, 'aria-describedby': `${RELATIONS}-hint ${RELATIONS}-error` }, [
      h('legend', { text: this.t('headsNeeded.relations') }),
    ]);
    this.relationChecks = /** @type {HTMLInputElement[]} */ ([]);
    this.relationHint = h('p', { class: 'hw-hint', id: `${RELATIONS}-hint`, text: this.t('headsNeeded.relationsHint', { max: MAX_RELATIONS }) });
    this.relationError = h('p', { class: 'hw-error', id: `${RELATIONS}-error`, 'data-error-for': RELATIONS, role: 'alert', hidden: true });
    const seed = seedField(this, 'headsSeed', this.t('headsNeeded.seed'), this.t('headsNeeded.seedHint'));
    this.seedInput = seed.input;
    this.seedError = seed.error;
    this.view = new RunView(this, {
      id: 'heads', measure: GRID.name,
      buttons: [
        { name: 'run', text: 'headsNeeded.run', onClick: (exp) => exp.start(false) },
        { name: 'grid', text: 'headsNeeded.grid', quiet: true, onClick: (exp) => exp.start(true) },
        RESET,
      ],
      onScrub: () => {
        /** @type {string} */
        this.shownKey = '';
        this.schedule();
      },
    });
    this.timeline = this.view.timeline;

    this.about = h('p', { class: 'hw-hint hw-train-about', 'data-testid': 'heads-about' });
    this.gridBox = h('div', { class: 'hw-heads-grid-box' });
    this.cliff = h('ul', { class: 'hw-heads-cliff', 'data-testid': 'heads-cliff', 'aria-live': 'polite' });

    this.probeInput = /** @type {HTMLInputElement} */ (h('input', {
      id: 'heads-probe', name: 'heads-probe', type: 'text', autocomplete: 'off', spellcheck: 'false', 'data-testid': 'heads-probe',
      'aria-describedby': 'heads-probe-hint heads-probe-error',
    }));
    this.probeHint = h('p', { class: 'hw-hint', id: 'heads-probe-hint' });
    this.probeError = h('p', { class: 'hw-error', id: 'heads-probe-error', 'data-error-for': 'heads-probe', 'data-testid': 'heads-probe-error', role: 'alert', hidden: true });
    this.probeInput.addEventListener('input', () => this.readProbe());

    this.cellBox = h('section', { class: 'hw-heads-cell', 'data-testid': 'heads-cell', 'aria-live': 'off' });

    this.appendChild(this.view.controls([h('div', { class: 'hw-heads-relations-wrap' }, [this.relationBox, this.relationHint, this.relationError]), seed.wrap]));
    this.appendChild(this.about);
    this.appendChild(this.gridBox);
    this.appendChild(this.cliff);
    this.appendChild(h('div', { class: 'hw-field hw-heads-probe' }, [h('label', { for: 'heads-probe', text: this.t('headsNeeded.probe') }), this.probeInput, this.probeHint, this.probeError]));
    this.appendChild(this.cellBox);

    /** @type {GridSession|null} */
    this.session = null;
    this.onTheme(() => {
      forget(this, 'layout');
      this.schedule();
    });
  }

  static get keep() {
    return ['onSession'];
  }

  /** @returns {any} */
  saveState() {
    return { ...super.saveState(), timeline: this.timeline ? this.timeline.index : null };
  }

  /** @param {any} state */
  restoreState(state) {
    super.restoreState(state);
    if (!state) return;
    if (this.timeline) this.timeline.index = state.timeline;
    // A probe the student was still typing (and its message, now in this language).
    const typed = state.fields && state.fields['heads-probe'];
    if (typed && this.session && this.session.settings && typed.value !== this.probeText()) this.readProbe();
  }

  /** @param {Store} store */
  update(store) {
    const session = gridFor(store);
    if (!session) {
      awaitTrainingModule(this);
      return;
    }
    this.view.adopt(session, ['progress', 'state', 'shown']);
    const s = store.state;
    reflectNumber(this.seedInput, s.headsSeed);
    const missing = store.inputErrors[SETTING.headsSeed.control];
    const lang = this.language;
    showError(this.seedError, this.seedInput, missing || null, lang);
    if (this.relationChecks.length === 0) {
      try {
        this.buildRelations(session);
      } catch (e) {
        this.setStatus(this.t('headsNeeded.cannotBuild', { reason: this.say(e) }), true);
        return;
      }
    }
    const chosen = String(s.headsRelations).split(',');
    for (const box of this.relationChecks) box.checked = chosen.includes(box.value);
    if (!missing && this.changed('config', [s.headsRelations, s.headsSeed])) {
      try {
        session.ensure(s.headsRelations, /** @type {number} */ (s.headsSeed));
        showError(this.relationError, null, null, lang);
        this.view.showError(null);
      } catch (e) {
        const error = errorOf(e);
        if (concerns(error, 'seed')) showError(this.seedError, this.seedInput, error, lang);
        else showError(this.relationError, this.relationBox, error, lang);
      }
    }
    this.schedule();
  }

  /** @param {GridSession} session */
  buildRelations(session) {
    const catalogue = session.hw.trainingRelations();
    for (const r of catalogue) {
      const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', value: r.name, 'data-testid': 'heads-relation', autocomplete: 'off' }));
      box.addEventListener('change', () => this.toggleRelation(box));
      this.relationChecks.push(box);
      const lang = this.language;
      this.relationBox.appendChild(h('label', { class: 'hw-check', title: relationDescription(r.name, r.description, lang) }, [
        box, ` ${relationTitle(r.name, r.title, lang)} `, h('code', { translate: 'no', text: r.rule }),
      ]));
    }
  }

  /**
   * A relation checked or unchecked: the list keeps the order they were chosen in. A fifth is
   * refused, and the last one can't go (the message says so; the last good list stays).
   * @param {HTMLInputElement} box
   */
  toggleRelation(box) {
    const list = String(this.store.state.headsRelations).split(',').filter(Boolean);
    const next = box.checked ? [...list.filter((n) => n !== box.value), box.value] : list.filter((n) => n !== box.value);
    const lang = this.language;
    if (next.length > MAX_RELATIONS) {
      box.checked = false;
      showError(this.relationError, this.relationBox, new PageError('errors.grid.notAdded', { name: box.value, max: MAX_RELATIONS }), lang);
      return;
    }
    if (next.length === 0) {
      box.checked = true;
      showError(this.relationError, this.relationBox, new PageError('errors.grid.keepOne'), lang);
      return;
    }
    showError(this.relationError, this.relationBox, null, lang);
    this.store.set({ headsRelations: next.join(',') }, RELATIONS);
  }

  /** The probe field changed: use it if it reads, else say why (the last good probe stays). */
  readProbe() {
    const session = this.session;
    if (!session || !session.settings) return;
    try {
      const tokens = parseProbe(this.probeInput.value, session.settings);
      showError(this.probeError, this.probeInput, null, this.language);
      if (tokens.join(' ') !== session.probeKey) session.setProbe(tokens);
    } catch (e) {
      showError(this.probeError, this.probeInput, new PageError('errors.probe.kept', { reason: errorOf(e), probe: this.probeText() }), this.language);
    }
  }

  /**
   * "3 relations", in this widget's language.
   * @param {number} n
   */
  relationsWord(n) {
    return this.t('headsNeeded.relationsCount', { count: n });
  }

  /** The session's probe as letters. */
  probeText() {
    const s = /** @type {any} */ (this.session).settings;
    return /** @type {GridSession} */ (this.session).probe.map((t) => s.tokenLabels[t]).join('');
  }

  schedule() {
    this.view.schedule();
  }


  /** The grid's skeleton, when the settings, the rows shown or the theme change. */
  layout() {
    const session = /** @type {GridSession} */ (this.session);
    const st = /** @type {NonNullable<GridSession['settings']>} */ (session.settings);
    const dark = prefersDark();
    const rows = session.shownRows();
    if (!this.changed('layout', [st.relations.map((r) => r.name), st.seed, dark, rows, session.cells])) return;
    // Each layout is new ground for the shown cell (drawCell).
    this.layouts = (this.layouts || 0) + 1;
    this.dark = dark;
    setText(this.about, this.t('headsNeeded.about', st));
    setText(this.probeHint, this.t('headsNeeded.probeHint', { first: st.tokenLabels[0], last: st.tokenLabels[st.tokenLabels.length - 1], n: st.seqLen }));
    const heads = st.headCounts;
    /** @type {Map<string, HTMLButtonElement>} */
    this.cellButtons = new Map();
    /** @type {Map<number, HTMLElement>} */
    this.paramCells = new Map();
    const body = h('tbody', {}, rows.map((d) => {
      const row = session.row(d);
      const params = h('span', { class: 'hw-heads-params' });
      this.paramCells.set(d, params);
      return h('tr', { 'data-rows': d }, [
        h('th', { scope: 'row' }, [
          this.t('headsNeeded.rowHead', { count: d, relations: row[0].relations.map((r) => titleOf(r, this.language)).join(this.t('common.listSeparator')) }),
          h('br'), params,
        ]),
        ...row.map((c) => {
          const b = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'hw-heads-cell-button', 'data-cell': c.key, 'data-testid': 'heads-cell-button', 'aria-pressed': 'false' }));
          b.addEventListener('click', () => {
            this.timeline.follow();
            session.open(c.key);
          });
          /** @type {Map<string, HTMLButtonElement>} */ (this.cellButtons).set(c.key, b);
          return h('td', { 'data-heads': c.numHeads }, [b]);
        }),
      ]);
    }));
    replace(this.gridBox, [h('table', { class: 'hw-heads-grid', 'data-testid': 'heads-grid-table' }, [
      h('caption', { text: this.t('headsNeeded.gridCaption') }),
      h('thead', {}, [h('tr', {}, [h('th', { scope: 'col', text: this.t('headsNeeded.corner') }), ...heads.map((n) => h('th', { scope: 'col', text: headsWord(n, this.language) }))])]),
      body,
    ])]);
    this.drawnCells = new Map();
    this.shownKey = '';
  }

  draw() {
    const session = this.session;
    if (!session || !session.settings) return;
    this.layout();
    const st = session.settings;
    const running = session.busy;
    this.view.drawButtons({
      run: { disabled: running || session.row(st.relations.length).every((c) => c.status === 'done') },
      grid: { disabled: running || session.models.every((c) => c.status === 'done') },
      reset: { disabled: running || session.models.every((c) => c.status === 'idle') },
    });
    for (const box of this.relationChecks) box.disabled = running || box.hasAttribute('data-locked');
    this.relationBox.toggleAttribute('data-running', running);

    const plan = session.plan(session.full);
    const done = plan.filter((c) => c.status === 'done').length;
    const current = plan.find((c) => c.status === 'training' || c.status === 'evaluating') || null;
    this.view.drawRun(session, {
      counter: current
        ? this.t('headsNeeded.counterModel', { model: done + 1, models: plan.length, relations: this.relationsWord(current.rows), heads: headsWord(current.numHeads, this.language), step: current.step, steps: st.steps })
        : this.t('headsNeeded.counterDone', { done, models: plan.length }),
      took: true,
    });
    this.view.counter.dataset.done = String(done);

    // The grid's cells: only those whose value changed.
    const drawn = /** @type {Map<string, string>} */ (this.drawnCells);
    for (const [key, b] of /** @type {Map<string, HTMLButtonElement>} */ (this.cellButtons)) {
      const c = /** @type {Cell} */ (session.cells.get(key));
      const text = c.status === 'done' ? cell2(/** @type {number} */ (c.worst)) : c.status === 'idle' ? '·' : c.status === 'failed' ? '!' : `${Math.round((100 * c.step) / st.steps)}%`;
      const state = `${text}|${c.status}|${this.dark ? 'd' : 'l'}`;
      if (drawn.get(key) !== state) {
        drawn.set(key, state);
        b.textContent = text;
        b.dataset.status = c.status;
        b.setAttribute('aria-label', this.t('headsNeeded.cellLabel', {
          relations: this.relationsWord(c.rows), heads: headsWord(c.numHeads, this.language), value: c.status === 'idle' ? this.t('headsNeeded.waiting') : text,
        }));
        if (c.status === 'done') paintCell(b, /** @type {number} */ (c.worst), Boolean(this.dark));
        else {
          b.style.backgroundColor = '';
          b.style.color = '';
        }
      }
    }
    for (const [d, el] of /** @type {Map<number, HTMLElement>} */ (this.paramCells)) {
      const p = session.row(d).find((c) => c.parameters)?.parameters;
      setText(el, p ? this.t('headsNeeded.params', { parameters: p }) : '');
    }
    const shown = session.shown();
    for (const [key, b] of /** @type {Map<string, HTMLButtonElement>} */ (this.cellButtons)) {
      const pressed = String(key === shown.key);
      if (b.getAttribute('aria-pressed') !== pressed) b.setAttribute('aria-pressed', pressed);
    }

    // The cliff of every finished row, in words.
    const lines = session.shownRows().map((d) => session.row(d)).filter((row) => row.every((c) => c.status === 'done'))
      .map((row) => cliffSentence(row[0].rows, row, st.solved, this.language));
    const cliffKey = lines.join('|');
    if (cliffKey !== this.cliffKey) {
      /** @type {string} */
      this.cliffKey = cliffKey;
      replace(this.cliff, lines.map((text) => h('li', { text: this.t('common.sentenceEnd', { text }) })));
      this.announce();
    }
    const allDone = plan.length > 0 && plan.every((c) => c.status === 'done');
    this.toggleAttribute('data-done', allDone && session.status === 'done');

    // The probe field shows the session's probe unless the student is editing it.
    const probe = this.probeText();
    if (this.probeInput.value !== probe && document.activeElement !== this.probeInput && !this.probeError.textContent) this.probeInput.value = probe;
    this.drawCell(shown);
  }

  /** Tell the page (the challenge) the grid's numbers, whenever a row completes. */
  announce() {
    const session = /** @type {GridSession} */ (this.session);
    const st = /** @type {NonNullable<GridSession['settings']>} */ (session.settings);
    /** @type {Record<number, {numHeads: number, worst: number}[]>} */
    const rows = {};
    for (let d = 1; d <= MAX_RELATIONS; d += 1) {
      const row = session.row(d);
      if (row.length && row.every((c) => c.status === 'done')) rows[d] = row.map((c) => ({ numHeads: c.numHeads, worst: /** @type {number} */ (c.worst) }));
    }
    const relationsOf = (/** @type {string} */ d, /** @type {'title'|'name'} */ field) => session.row(Number(d))[0].relations.map((r) => r[field]);
    const titles = Object.fromEntries(Object.keys(rows).map((d) => [d, relationsOf(d, 'title')]));
    const names = Object.fromEntries(Object.keys(rows).map((d) => [d, relationsOf(d, 'name')]));
    this.dispatchEvent(new CustomEvent('headwise-heads-grid', { bubbles: true, composed: true, detail: { seed: st.seed, rows, relations: titles, names } }));
  }

  /**
   * The shown cell's inside: heading, result, curves of its row, timeline, tables and ablation
   * matrix. Rebuilt when the cell, its heads' layout or the probe changes; updated otherwise.
   * @param {Cell} c
   */
  drawCell(c) {
    const session = /** @type {GridSession} */ (this.session);
    const st = /** @type {NonNullable<GridSession['settings']>} */ (session.settings);
    if (this.changed('cell', [c.key, session.probeKey, this.layouts])) {
      const labels = session.probe.map((t) => st.tokenLabels[t]);
      const n = labels.length;
      const sources = labels.map((_, i) => c.relations.map((r) => sourceOf(r, i, n)));
      // The tables are built one per frame (below): 8 heads' tables built at once, about 500 boxes
      // to lay out, would make that frame a long task.
      /** @type {HeadTable[]} */
      this.tables = [];
      this.tableArgs = { labels, sources, numHeads: c.numHeads };
      this.headsBox = h('div', { class: 'hw-train-heads' });
      this.rowsUnique = uniqueSources(c.relations, n);
      this.cellTitle = h('h3', {});
      this.cellStats = h('p', { class: 'hw-train-stats', 'data-testid': 'heads-cell-stats' });
      this.cellResult = h('p', { class: 'hw-train-model-verdict', 'data-testid': 'heads-cell-result' });
      this.ablationBox = h('div', { class: 'hw-heads-ablation', 'data-testid': 'heads-ablation' });
      /** @type {string} */
      this.ablationKey = '';
      const row = session.row(c.rows);
      const lang = this.language;
      this.view.layoutCurves(st.steps, {
        series: row.map((m) => headsWord(m.numHeads, lang)),
        loss: { title: this.t('headsNeeded.loss') },
        accuracy: { title: this.t('headsNeeded.accuracy') },
      });
      this.curveRow = row;
      this.timeline.follow();
      replace(this.cellBox, [
        this.cellTitle,
        this.cellStats,
        this.cellResult,
        this.view.curves,
        this.view.legend,
        this.timeline.wrap,
        h('p', { class: 'hw-hint', text: this.t('headsNeeded.tablesHint', { probe: labels.join(' ') }) }),
        h('p', { class: 'hw-hint' }, c.relations.flatMap((r, k) => [
          k ? this.t('common.listSeparator') : '',
          h('span', { class: `hw-rel-key hw-rel-${k}`, text: this.t('train.about.rule', { relation: relationPhrase(r, lang), rule: r.rule }) }),
        ])),
        this.headsBox,
        this.ablationBox,
      ]);
      this.cellBox.dataset.cell = c.key;
      this.shownKey = '';
    }
    const lang = this.language;
    setText(/** @type {HTMLElement} */ (this.cellTitle), this.t('headsNeeded.cellTitle', {
      relations: this.relationsWord(c.rows), heads: headsWord(c.numHeads, lang), dModel: st.dModel, dHead: st.dModel / c.numHeads, parameters: c.parameters,
    }));
    const last = c.loss.length - 1;
    setText(/** @type {HTMLElement} */ (this.cellStats), c.status === 'idle' ? this.t('headsNeeded.cellNotYet')
      : last >= 0 ? this.t('headsNeeded.cellStep', { step: c.steps[last], loss: c.loss[last].toFixed(3), accuracy: c.accuracy[last].toFixed(3) }) : this.t('headsNeeded.stepZero'));
    setText(/** @type {HTMLElement} */ (this.cellResult), c.evaluation
      ? this.t('headsNeeded.cellResult', { values: perRelation(c.relations, (k) => a3(/** @type {any} */ (c.evaluation).relationAccuracy[k]), lang) }) : '');
    this.view.drawCurves(/** @type {Cell[]} */ (this.curveRow));

    // The timeline: the snapshots' steps, the settled sentence from their focus on the probe. A
    // done cell's snapshots taken on an earlier probe are taken again on this one first.
    const current = session.timelineCurrent([c]);
    const rowsUnique = /** @type {any} */ (this.rowsUnique);
    const snaps = current ? c.snapshots : [];
    const points = snaps.map((sn) => ({ step: sn.step, focus: probeFocus(sn.attention, rowsUnique) }));
    const settled = points.length > 1 ? settledSentence(settledSteps(points, c.relations.length), c.relations, lang) : '';
    this.timeline.update(snaps.map((sn) => sn.step), settled ? [settled] : []);
    const index = this.timeline.index;
    const tables = /** @type {HeadTable[]} */ (this.tables);
    const args = /** @type {any} */ (this.tableArgs);
    if (tables.length < args.numHeads) {
      const head = tables.length;
      const t = new HeadTable({ head, labels: args.labels, sources: args.sources, lang: this.language });
      tables.push(t);
      /** @type {HTMLElement} */ (this.headsBox).appendChild(h('div', { class: 'hw-train-head', 'data-head': head }, [t.table]));
      this.schedule();
    }
    this.cellBox.toggleAttribute('data-drawn', tables.length === args.numHeads);
    const shownKey = `${c.key}|${index}|${snaps.length}|${session.probeKey}|${tables.length}`;
    const at = index === null ? null : snaps[index];
    const attention = at ? at.attention : c.attention;
    // Only an attention on this probe: a model asked while it trained keeps its latest on the last
    // probe until its next snapshot (and the new probe's is taken one model after another).
    if (attention && attention[0] && attention[0].length === args.labels.length
      && (shownKey !== this.shownKey || attention !== this.shownAttention)) {
      this.shownKey = shownKey;
      this.shownAttention = attention;
      this.drawTables(attention);
    }
    this.cellBox.dataset.shownStep = this.timeline.at.dataset.step || '';

    // The ablation matrix: heads × relations, the drop when that head is off.
    const ablationKey = `${c.key}|${c.ablations.length}|${c.evaluation ? 1 : 0}|${this.dark}`;
    if (ablationKey !== this.ablationKey) {
      this.ablationKey = ablationKey;
      const box = /** @type {HTMLElement} */ (this.ablationBox);
      if (!c.evaluation || c.ablations.length !== c.numHeads) {
        replace(box, [h('p', { class: 'hw-hint', text: `${this.t('common.sentenceEnd', { text: this.t('headsNeeded.ablation') })}${this.t('common.sentenceGap')}${this.t('headsNeeded.ablationNone')}` })]);
      } else {
        const base = c.evaluation.relationAccuracy;
        replace(box, [h('table', { class: 'hw-weights hw-heads-ablation-table', 'data-testid': 'heads-ablation-table' }, [
          h('caption', { text: this.t('headsNeeded.ablation') }),
          h('thead', {}, [h('tr', {}, [h('td', { class: 'hw-corner' }), ...c.relations.map((r) => h('th', { scope: 'col', text: titleOf(r, lang) }))])]),
          h('tbody', {}, c.ablations.map((e, head) => h('tr', {}, [
            h('th', { scope: 'row', text: this.t('headsNeeded.ablationHead', { head }) }),
            ...c.relations.map((_, r) => {
              const drop = base[r] - e.relationAccuracy[r];
              const td = h('td', { 'data-head': head, 'data-rel': r, text: drop.toFixed(2) });
              const { bg, fg } = cellColors(Math.max(0, Math.min(1, drop)), Boolean(this.dark));
              td.style.backgroundColor = bg;
              td.style.color = fg;
              return td;
            }),
          ]))),
        ])]);
      }
    }
  }

  /** @param {number[][][]} attention */
  drawTables(attention) {
    const dark = Boolean(this.dark);
    /** @type {HeadTable[]} */ (this.tables).forEach((t, head) => { if (attention[head]) t.update(attention[head], dark); });
  }
}

define('hw-heads-needed', HwHeadsNeeded);
