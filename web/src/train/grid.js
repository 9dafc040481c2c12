// The experiment of "How many heads does it take?": a task built from D relations, trained with
// 1, 2, 4 and 8 heads at the same d_model (so the same parameter count), and on request the whole
// grid D = 1…4 × h = 1, 2, 4, 8. One model per cell (a ModelRun of the training engine, run.js),
// trained as many at once as the training module has Workers (one after another on the main
// thread), so the grid fills in cell by cell; each keeps its curves, its
// timeline on the student's probe and, when done, the heads × relations ablation matrix. The
// session never draws; it fires "progress" and "state" events, and the element redraws once per
// frame.

import { ModelRun, RunSet, isDisposed, snapshotEvery } from './run.js';
import { perStore } from './module.js';
import { probeTokens } from './timeline.js';
import { PageError, errorOf } from '../shared/state/errors.js';
import { SOURCE, t } from '../shared/i18n/i18n.js';
import { headsWord } from './verdict.js';
import { MAX_RELATIONS } from '../shared/state/settings.js';

/** @typedef {import('./python.js').Relation} Relation */

/** The most relations a row asks for (the grid's last row): the settings table's. */
export { MAX_RELATIONS };

/**
 * @typedef {object} GridSettings
 * @property {Relation[]} relations    the student's choice (row D = relations.length)
 * @property {Relation[]} order        the full grid's relations: row D uses the first D
 * @property {Relation[]} catalogue    every relation the module knows
 * @property {number[]} headCounts
 * @property {number} solved           a model solves its task when its worst relation's
 *   held-out accuracy is at least this
 * @property {number} seed
 * @property {number} seqLen
 * @property {number} vocab
 * @property {number} dModel
 * @property {number} learningRate
 * @property {number} batchSize
 * @property {number} steps
 * @property {number} evalSize
 * @property {string[]} tokenLabels
 */

/** A cell of the grid: one model (a ModelRun) of D relations and a head count. */
export class Cell extends ModelRun {
  /**
   * @param {number} rows  D, the number of relations
   * @param {Relation[]} relations
   * @param {Record<string, any>} options  hw.createTrainer's options
   */
  constructor(rows, relations, options) {
    super(options);
    /** "D:h" */
    this.key = `${rows}:${options.numHeads}`;
    this.rows = rows;
    this.relations = relations;
    /** @type {'waiting'|'training'|'evaluating'|'done'|'error'} */
    this.status = 'waiting';
    /** @type {number|null} the worst relation's held-out accuracy */
    this.worst = null;
    /** @type {string|null} */
    this.error = null;
  }
}

/**
 * The relations the module offers and the experiment's settings (chosen by the sweep in
 * cpp/tools, see cpp/TRAINING.md).
 * @param {any} hw
 * @returns {{catalogue: Relation[], defaults: any}}
 */
export function experimentOf(hw) {
  if (typeof hw.trainingRelations !== 'function' || typeof hw.headsNeededDefaults !== 'function') {
    throw new PageError('errors.grid.noRelations');
  }
  return { catalogue: hw.trainingRelations(), defaults: hw.headsNeededDefaults() };
}

/**
 * Read a list of relation names ("previous,first,two-back"): 1 to MAX_RELATIONS distinct names
 * of the catalogue. Throws an Error saying what was wrong and what is allowed.
 * @param {string} text
 * @param {Relation[]} catalogue
 * @returns {Relation[]}
 */
export function parseRelations(text, catalogue) {
  const names = String(text).split(',').map((s) => s.trim()).filter(Boolean);
  const list = catalogue.map((r) => r.name);
  if (names.length === 0) throw new PageError('errors.grid.none', { list }, 'relations');
  if (names.length > MAX_RELATIONS) throw new PageError('errors.grid.tooMany', { count: names.length, max: MAX_RELATIONS, list }, 'relations');
  const out = [];
  for (const name of names) {
    const r = catalogue.find((c) => c.name === name);
    if (!r) throw new PageError('errors.grid.unknown', { name: name.slice(0, 40), list }, 'relations');
    if (out.includes(r)) throw new PageError('errors.grid.twice', { name }, 'relations');
    out.push(r);
  }
  return out;
}

/**
 * The experiment's settings for these relations and seed.
 * @param {any} hw
 * @param {string} relationsText
 * @param {number} seed
 * @returns {GridSettings}
 */
export function gridSettings(hw, relationsText, seed) {
  const { catalogue, defaults: d } = experimentOf(hw);
  const relations = parseRelations(relationsText, catalogue);
  // The full grid's rows: the student's relations first, then the experiment's own order.
  const byName = (/** @type {string} */ n) => /** @type {Relation} */ (catalogue.find((c) => c.name === n));
  const rest = [...d.gridRelations.map(byName), ...catalogue].filter((r, k, all) => r && !relations.includes(r) && all.indexOf(r) === k);
  const order = [...relations, ...rest].slice(0, MAX_RELATIONS);
  return {
    relations, order, catalogue, seed, headCounts: d.headCounts, solved: d.solvedAccuracy, tokenLabels: d.tokenLabels,
    seqLen: d.seqLen, vocab: d.vocab, dModel: d.dModel, learningRate: d.learningRate, batchSize: d.batchSize,
    steps: d.steps, evalSize: d.evalSize,
  };
}

/**
 * The default probe: the training section's (all letters different where the vocabulary allows).
 * @param {GridSettings} s
 */
export function defaultProbe(s) {
  return probeTokens(s.seqLen, s.vocab);
}

/**
 * Read the student's probe: letters of the vocabulary (spaces and commas between them are
 * optional), 1 to seqLen of them. Throws an Error saying which letter or length is wrong and
 * what is allowed.
 * @param {string} text
 * @param {GridSettings} s
 * @returns {number[]}
 */
export function parseProbe(text, s) {
  const letters = String(text).toUpperCase().replace(/[\s,]+/g, '');
  const first = s.tokenLabels[0];
  const last = s.tokenLabels[s.tokenLabels.length - 1];
  if (letters.length === 0) throw new PageError('errors.probe.empty', { max: s.seqLen, first, last });
  const bad = [...letters].find((c) => !s.tokenLabels.includes(c));
  if (bad !== undefined) throw new PageError('errors.probe.letter', { letter: bad, first, last });
  if (letters.length > s.seqLen) throw new PageError('errors.probe.tooLong', { count: letters.length, max: s.seqLen });
  return [...letters].map((c) => s.tokenLabels.indexOf(c));
}

/**
 * The smallest head count from which every larger one solves the row too (null: none does).
 * @param {{numHeads: number, worst: number|null}[]} row  in head order, all done
 * @param {number} solved  the accuracy that counts as solved
 */
export function headsNeeded(row, solved) {
  let need = null;
  for (let k = row.length - 1; k >= 0; k -= 1) {
    if (/** @type {number} */ (row[k].worst) >= solved) need = row[k].numHeads;
    else break;
  }
  return need;
}

/**
 * A row's cliff in words, from its numbers: "3 relations need 4 heads: 1 head 0.27, 2 heads 0.81,
 * 4 heads 1.00, 8 heads 1.00".
 * @param {number} rows  D
 * @param {{numHeads: number, worst: number|null}[]} row  in head order, all done
 * @param {number} solved
 * @param {string} [lang]
 */
export function cliffSentence(rows, row, solved, lang = SOURCE) {
  const need = headsNeeded(row, solved);
  const list = row.map((c) => t('train.summary.item', { heads: headsWord(c.numHeads, lang), value: (/** @type {number} */ (c.worst)).toFixed(2) }, lang))
    .join(t('common.listSeparator', {}, lang));
  if (need === null) return t('headsNeeded.cliffNone', { count: rows, list }, lang);
  return t('headsNeeded.cliff', { count: rows, heads: headsWord(need, lang), list }, lang);
}

export class GridSession extends RunSet {
  /** @param {{hw: any, compute?: any}} store  the training module (module.js) */
  constructor(store) {
    super(store, 'hw-heads steps', { keepParameters: true });
    /** @type {GridSettings|null} */
    this.settings = null;
    /** @type {Map<string, Cell>} */
    this.cells = new Map();
    /** @type {'idle'|'running'|'done'|'error'} */
    this.status = 'idle';
    /** @type {string|null} */
    this.error = null;
    /** @type {string|null} the cell the student opened */
    this.opened = null;
    /** whether the run under way (or the last one) is the full grid */
    this.full = false;
    /** performance.now() when the current run was asked for, and when its last cell was done */
    this.startedAt = 0;
    this.finishedAt = 0;
    /** how many cells the run under way trains at once (the training module's Workers) */
    this.lanes = 1;
  }

  /**
   * Use these relations and seed (the models of other settings are disposed).
   * @param {string} relationsText
   * @param {number} seed
   */
  configure(relationsText, seed) {
    const s = gridSettings(this.hw, relationsText, seed);
    for (const c of this.cells.values()) c.dispose();
    this.settings = s;
    this.cells = new Map();
    if (this.probe.length === 0 || this.probe.length > s.seqLen || this.probe.some((t) => t >= s.vocab)) {
      this.probe = defaultProbe(s);
    }
    this.probeKey = this.probe.join(' ');
    for (let d = 1; d <= MAX_RELATIONS; d += 1) {
      const relations = d === s.relations.length ? s.relations : s.order.slice(0, d);
      for (const numHeads of s.headCounts) {
        const c = new Cell(d, relations, {
          relations: relations.map((r) => r.name), numHeads, dModel: s.dModel, seed: s.seed,
          seqLen: s.seqLen, vocab: s.vocab, learningRate: s.learningRate, batchSize: s.batchSize, evalSize: s.evalSize,
        });
        this.cells.set(c.key, c);
      }
    }
    this.status = 'idle';
    this.error = null;
    this.full = false;
    this.opened = null;
    this._emit('state');
  }

  /**
   * Configure unless these are the settings already.
   * @param {string} relationsText
   * @param {number} seed
   */
  ensure(relationsText, seed) {
    const s = this.settings;
    if (s && s.seed === seed && s.relations.map((r) => r.name).join(',') === parseRelations(relationsText, s.catalogue).map((r) => r.name).join(',')) return;
    this.configure(relationsText, seed);
  }

  /** The row D (its cells in head order). @param {number} d */
  row(d) {
    return [...this.cells.values()].filter((c) => c.rows === d);
  }

  /** The rows the page shows: the chosen one, or all of them once the full grid is asked for. */
  shownRows() {
    const s = /** @type {GridSettings} */ (this.settings);
    if (!this.full) return [s.relations.length];
    return Array.from({ length: MAX_RELATIONS }, (_, k) => k + 1);
  }

  /**
   * Cells grouped by row, the rows in their first cell's order.
   * @param {Cell[]} cells
   * @returns {Cell[][]}
   */
  byRow(cells) {
    /** @type {Map<number, Cell[]>} */
    const rows = new Map();
    for (const c of cells) rows.set(c.rows, [...(rows.get(c.rows) || []), c]);
    return [...rows.values()];
  }

  /** The cells a run trains, in order: the chosen row first. @param {boolean} full */
  plan(full) {
    const s = /** @type {GridSettings} */ (this.settings);
    const rows = full ? [s.relations.length, ...Array.from({ length: MAX_RELATIONS }, (_, k) => k + 1).filter((d) => d !== s.relations.length)] : [s.relations.length];
    return rows.flatMap((d) => this.row(d));
  }

  /**
   * Open a cell (null: follow the one training, else the last one done).
   * @param {string|null} key
   */
  open(key) {
    this.opened = key;
    this._emit('shown');
  }

  /** The cell whose inside is shown: the opened one, else the one training, else the last done. */
  shown() {
    if (this.opened && this.cells.has(this.opened)) return /** @type {Cell} */ (this.cells.get(this.opened));
    const cells = this.plan(this.full);
    return cells.find((c) => c.status === 'training' || c.status === 'evaluating')
      || [...cells].reverse().find((c) => c.status === 'done')
      || cells[0];
  }

  /**
   * Train the chosen row (full: every row) to the step budget; cells already done are kept.
   * @param {boolean} full
   */
  start(full) {
    if (!this.settings || this.status === 'running') return;
    this.full = this.full || full;
    const todo = this.plan(full).filter((c) => c.status !== 'done');
    if (todo.length === 0) return;
    this.status = 'running';
    this.error = null;
    this.startedAt = performance.now();
    this.finishedAt = 0;
    this._emit('state');
    this._run(todo);
  }

  /** Same settings, nothing trained. */
  reset() {
    if (!this.settings) return;
    this.configure(this.settings.relations.map((r) => r.name).join(','), this.settings.seed);
  }

  /** Free every trainer. */
  dispose() {
    for (const c of this.cells.values()) c.dispose();
    this.cells = new Map();
    this.settings = null;
  }

  /**
   * A new probe: every model's attention is taken on it again.
   * @param {number[]} tokens
   */
  setProbe(tokens) {
    return super.setProbe(tokens, this.cells.values(), (c) => c.status !== 'training' && c.status !== 'evaluating');
  }

  /**
   * A done cell's timeline on the current probe (RunSet.retake).
   * @param {Cell} c
   */
  retake(c) {
    return super.retake(c, c.status === 'done');
  }

  /**
   * Train the cells, as many at once as the training module has Workers (each model on its own
   * Worker, see compute.js's Pool; on the main thread one after another), in plan order.
   * @param {Cell[]} todo
   */
  async _run(todo) {
    const s = /** @type {GridSettings} */ (this.settings);
    const compute = this.store.compute;
    if (compute) await (compute.warm ? compute.warm() : compute.start());
    const lanes = compute && compute.mode === 'worker' && 'size' in compute ? Math.min(compute.size, todo.length) : 1;
    this.lanes = lanes;
    // Side by side, each row's models go costliest (most heads) first, so that the row's last
    // cell is not a big model started when the others are done.
    const queue = lanes > 1 ? this.byRow(todo).flatMap((row) => row.sort((a, b) => b.numHeads - a.numHeads)) : todo.slice();
    let failed = false;
    const lane = async (/** @type {unknown} */ _, /** @type {number} */ k) => {
      while (queue.length > 0 && !failed) {
        const c = /** @type {Cell} */ (queue.shift());
        if (!c.remote) c.lane = k;
        try {
          await this._trainCell(c);
        } catch (e) {
          if (isDisposed(e) || c.disposed) return false;
          c.status = 'error';
          c.error = errorOf(e);
          this.error = c.error;
          this.status = 'error';
          failed = true;
          this._emit('state');
          return false;
        }
      }
      return !failed;
    };
    const done = await Promise.all(Array.from({ length: lanes }, lane));
    if (s !== this.settings || !done.every(Boolean)) return;
    this.status = 'done';
    this.finishedAt = performance.now();
    this._emit('progress');
    this._emit('state');
  }

  /** @param {Cell} c */
  async _trainCell(c) {
    const s = /** @type {GridSettings} */ (this.settings);
    c.status = 'training';
    this._emit('state');
    if (!c.remote) {
      await c.open(this.store);
      await c.snapshot(this.currentProbe());
    }
    await this.train([c], {
      to: s.steps,
      every: snapshotEvery(s.steps),
      // The pace counts the chosen row's steps: the default experiment takes REAL_TIME_MS in
      // real time, and the full grid as long per row.
      // Cells trained side by side share that time.
      pacedSteps: s.steps * Math.ceil(this.row(s.relations.length).length / this.lanes),
    });
    c.status = 'evaluating';
    await c.evaluateHeads();
    c.worst = Math.min(...(/** @type {import('./python.js').Evaluation} */ (c.evaluation)).relationAccuracy);
    c.status = 'done';
    this._emit('progress');
  }
}

/** The one grid of a store, shared by the section, its Python block and the challenge's numbers. */
export const gridFor = perStore((training) => new GridSession(training));
