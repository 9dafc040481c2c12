// The experiment of "How many heads does it take?": a task built from D relations, trained with
// 1, 2, 4 and 8 heads at the same d_model (so the same parameter count), and on request the whole
// grid D = 1…4 × h = 1, 2, 4, 8. One model per cell (an ExperimentRun), trained as many at once
// as the training module has Workers (one after another on the main thread), so the grid fills in
// cell by cell; each keeps its curves, its timeline on the student's probe and, when done, the
// heads × relations ablation matrix. Declared here (with what is its own: the cells, the rows,
// the whole grid on request, the cliff), run by the experiment controller (experiment.js), drawn
// by <hw-heads-needed>.

import { Experiment, ExperimentRun, modelSettings, trainerOptions } from './experiment.js';
import { perStore } from './training-module.js';
import { probeTokens } from './timeline.js';
import { t } from '../shared/i18n/i18n.js';
import { SOURCE } from '../shared/i18n/language-tags.js';
import { headsWord } from './verdict.js';
import { PageError } from '../shared/state/errors.js';
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

/** A cell of the grid: one model of D relations and a head count. */
export class Cell extends ExperimentRun {
  /**
   * @param {number} rows  D, the number of relations
   * @param {Relation[]} relations
   * @param {import('../../../cpp/api').CreateTrainerOptions} options  hw.createTrainer's options
   */
  constructor(rows, relations, options) {
    super(options, { key: `${rows}:${options.numHeads}` });
    this.rows = rows;
    this.relations = relations;
    /** @type {number|null} the worst relation's held-out accuracy */
    this.worst = null;
  }
}

/**
 * The relations the module offers and the experiment's settings (chosen by the sweep in
 * cpp/tools, see cpp/TRAINING.md).
 * @param {import('../../../cpp/api').Headwise} hw
 * @returns {{catalogue: Relation[], defaults: import('../../../cpp/api').HeadsNeededDefaults}}
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
  /** @type {Relation[]} */
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
 * @param {import('../../../cpp/api').Headwise} hw
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
    ...modelSettings(d),
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

/** @type {import('./experiment.js').Declaration<GridSettings>} */
export const GRID = {
  name: 'hw-heads',
  settings: gridSettings,
  same: (s, relationsText, seed) => s.seed === seed
    && s.relations.map((r) => r.name).join(',') === parseRelations(relationsText, s.catalogue).map((r) => r.name).join(','),
  runs: (s) => {
    const cells = [];
    for (let d = 1; d <= MAX_RELATIONS; d += 1) {
      const relations = d === s.relations.length ? s.relations : s.order.slice(0, d);
      for (const numHeads of s.headCounts) {
        cells.push(new Cell(d, relations, { relations: relations.map((r) => r.name), numHeads, ...trainerOptions(s) }));
      }
    }
    return cells;
  },
  probe: defaultProbe,
  keepProbe: true,
  keepParameters: true,
  sideBySide: true,
  // The pace counts the chosen row's steps: the default experiment takes REAL_TIME_MS in real
  // time, and the full grid as long per row. Cells trained side by side share that time.
  pace: (s, exp) => ({ pacedSteps: s.steps * Math.ceil(s.headCounts.length / exp.lanes) }),
  measure: (c, s) => {
    void s;
    /** @type {Cell} */ (c).worst = Math.min(...(/** @type {import('./python.js').Evaluation} */ (c.evaluation)).relationAccuracy);
  },
};

/** @extends {Experiment<GridSettings>} */
export class GridSession extends Experiment {
  /** @param {import('./training-module.js').TrainingModule} store  the training module (training-module.js) */
  constructor(store) {
    super(store, GRID);
    /** @type {string|null} the cell the student opened */
    this.opened = null;
    /** whether the training under way (or the last) is the full grid */
    this.full = false;
  }

  /** @returns {Cell[]} */
  get models() {
    return /** @type {Cell[]} */ (this.runs);
  }

  /** @type {Map<string, Cell>} every cell by its key "D:h" */
  get cells() {
    if (this._cellsOf !== this.runs) {
      /** @type {unknown} */
      this._cellsOf = this.runs;
      this._cells = new Map(this.models.map((c) => [c.key, c]));
    }
    return /** @type {Map<string, Cell>} */ (this._cells);
  }

  /**
   * Use these relations and seed (the models of other settings are disposed).
   * @param {string} relationsText
   * @param {number} seed
   */
  configure(relationsText, seed) {
    // Not shown until asked for again; set before the controller's "state" event.
    const full = this.full;
    const opened = this.opened;
    this.full = false;
    this.opened = null;
    try {
      super.configure(relationsText, seed);
    } catch (e) {
      this.full = full;
      this.opened = opened;
      throw e;
    }
  }

  /** The row D (its cells in head order). @param {number} d */
  row(d) {
    return this.models.filter((c) => c.rows === d);
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
   * Each cell trains alone (a group of one), the chosen row first.
   * @param {boolean} [full]
   */
  groups(full = false) {
    return this.plan(full).map((c) => [c]);
  }

  /**
   * Side by side, each row's models go costliest (most heads) first, so that the row's last cell
   * is not a big model started when the others are done.
   * @param {Cell[][]} groups
   * @param {number} lanes
   */
  queue(groups, lanes) {
    if (lanes <= 1) return groups;
    return this.byRow(groups.map((g) => g[0])).flatMap((row) => row.sort((a, b) => b.numHeads - a.numHeads)).map((c) => [c]);
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
   * @param {boolean} [full]
   */
  start(full = false) {
    if (this.settings && !this.busy) this.full = this.full || full;
    super.start(full);
  }
}

/** The one grid of a store, shared by the section, its Python block and the challenge's numbers. */
export const gridFor = perStore((training) => new GridSession(training));
