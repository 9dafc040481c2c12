// The training sections' PyTorch scripts, in "Reproduce it in Python":
//   <hw-train-python>  the run of "Watch heads specialise" (its task and seed);
//   <hw-heads-python>  the model of the grid cell shown in "How many heads does it take?".
// Each shows the script and, once the page's own run has reached its step budget, what the
// script prints, formatted from the page's own final numbers. Until then the output box says so
// and offers to run it.

import { HwElement, define } from '../shared/ui/element.js';
import { h, replace, code } from '../shared/ui/dom.js';
import { codeBlock } from '../shared/python/code-block.js';
import { errorOf } from '../shared/state/errors.js';
import { SETTING } from '../shared/state/settings.js';
import { sessionFor } from './session.js';
import { awaitTrainingModule } from './training-module.js';
import { gridFor } from './grid.js';
import { trainingCode, trainingOutput } from './python.js';
import { headsWord } from './verdict.js';

/** @typedef {import('../shared/state/store.js').Store} Store */
/** @typedef {import('./python.js').TrainSettings} TrainSettings */
/** @typedef {import('./python.js').ModelResult} ModelResult */

/**
 * What a block shows for the current state of its run.
 * @typedef {object} Script
 * @property {TrainSettings} settings   the script's settings (a new object only when they change)
 * @property {ModelResult[]|null} results  the final results, once the run is done
 * @property {boolean} busy              the run is training now
 * @property {boolean} started           some steps are trained
 * @property {string} where              the section's name (a key of the catalogues), for "(in …)"
 * @property {string} href
 * @property {() => void} run            train it
 */

/** A PyTorch script block fed by one of the training sections' runs. */
class PythonBlock extends HwElement {
  /** @returns {{id: string, title: string}} the block's id and its title's key */
  get block() {
    throw new Error('a PythonBlock says which block it is');
  }

  build() {
    // The line src/train/loader.js showed while train.js loaded.
    for (const line of this.querySelectorAll(':scope > [data-hw-train-loading]')) line.remove();
    const { id, title: titleKey } = this.block;
    /** @type {object|null} the settings the script was written for */
    this.codeFor = null;
    this.pending = h('div', { class: 'hw-train-pending', 'data-testid': `${id}-pending` });
    const block = codeBlock({
      id, title: this.t(titleKey), lang: this.language,
      after: [this.pending, h('p', { class: 'hw-hint' }, this.tNodes('python.train.hint', { dtype: code('dtype=torch.float64') }))],
    });
    this.codeEl = block.code;
    this.output = block.output;
    this.heading = block.heading;
    this.appendChild(block.el);
    // Kept when the block is drawn again in another language (see keep): the runs it listens to
    // call the same function.
    if (!this.onSession) this.onSession = () => this.refresh();
    /** @type {Set<EventTarget>} */
    if (!this.heard) this.heard = new Set();
  }

  static get keep() {
    return ['onSession', 'heard'];
  }

  /**
   * Listen to a run's events (once).
   * @param {EventTarget} target
   * @param {string[]} types
   */
  hear(target, types) {
    if (this.heard.has(target)) return;
    this.heard.add(target);
    for (const type of types) target.addEventListener(type, this.onSession);
  }

  /**
   * The script for the current state, or a reason there is none (a coded error).
   * @param {Store} store
   * @returns {Script|import('../shared/state/errors.js').ErrorInfo|null}  null: the training module is loading
   */
  script(store) {
    throw new Error(`${store} has no script here`);
  }

  /** @param {Store} store */
  update(store) {
    /** @type {Script|import('../shared/state/errors.js').ErrorInfo|string|null} */
    let found;
    try {
      found = this.script(store);
    } catch (e) {
      found = errorOf(e);
    }
    if (found === null) {
      awaitTrainingModule(this);
      return;
    }
    const { id } = this.block;
    // A reason there is none (an empty field, the module's refusal): said in this block's language.
    if (typeof found !== 'object' || !('settings' in found)) {
      replace(this.pending, [h('p', { class: 'hw-hint', text: this.t('python.train.none', { reason: this.say(found) }) })]);
      this.pendingStatus = '';
      return;
    }
    const sc = found;
    // The settings object is new only when they change, so the script (about 6 KB of text) is
    // written again only then, not on each change of the lesson's own settings.
    if (sc.settings !== this.codeFor) {
      const source = trainingCode(sc.settings);
      if (this.codeEl.textContent !== source) this.codeEl.textContent = source;
      this.codeFor = sc.settings;
    }
    const done = Boolean(sc.results);
    const text = sc.results ? trainingOutput(sc.settings, sc.results) : '';
    if (this.output.textContent !== text) this.output.textContent = text;
    this.output.hidden = !done;
    this.toggleAttribute('data-done', done);
    const status = done ? '' : `${sc.busy}|${sc.started}|${sc.settings.steps}|${sc.where}`;
    if (done) {
      replace(this.pending, []);
    } else if (this.pendingStatus !== status) {
      const button = h('button', { type: 'button', class: 'hw-button', 'data-testid': `${id}-run`, text: this.t(sc.started ? 'python.train.finish' : 'python.train.run') });
      button.addEventListener('click', sc.run);
      replace(this.pending, [
        h('p', { class: 'hw-hint' }, this.tNodes('python.train.pending', {
          steps: sc.settings.steps, link: h('a', { href: sc.href, text: this.t('python.train.where', { section: this.t(sc.where) }) }),
        })),
        sc.busy ? h('p', { class: 'hw-hint', text: this.t('python.train.training') }) : button,
      ]);
    }
    this.pendingStatus = status;
  }
}

class HwTrainPython extends PythonBlock {
  get block() {
    return { id: 'python-train', title: 'python.train.title' };
  }

  /** @param {Store} store */
  script(store) {
    const session = sessionFor(store);
    if (!session) return null;
    this.hear(session, ['state']);
    const missing = store.inputErrors[SETTING.trainSeed.control];
    if (missing) return missing;
    session.ensure(store.state.trainTask, /** @type {number} */ (store.state.trainSeed));
    const st = /** @type {NonNullable<typeof session.settings>} */ (session.settings);
    return {
      settings: st,
      results: session.status === 'done'
        ? session.models.map((m) => ({ numHeads: m.numHeads, parameters: m.parameters, evaluation: /** @type {any} */ (m.evaluation), ablations: m.ablations }))
        : null,
      busy: session.busy,
      started: session.step > 0,
      where: 'train.title',
      href: '#train',
      run: () => session.start(),
    };
  }
}

class HwHeadsPython extends PythonBlock {
  get block() {
    return { id: 'python-heads', title: 'python.heads.title' };
  }

  /** @param {Store} store */
  script(store) {
    const grid = gridFor(store);
    if (!grid) return null;
    this.hear(grid, ['state', 'progress', 'shown']);
    const missing = store.inputErrors[SETTING.headsSeed.control];
    if (missing) return missing;
    grid.ensure(store.state.headsRelations, /** @type {number} */ (store.state.headsSeed));
    const st = /** @type {NonNullable<typeof grid.settings>} */ (grid.settings);
    const c = grid.shown();
    // One settings object per cell and configuration (see update).
    if (!this.cellSettings || this.cellSettings.cell !== c) {
      this.cellSettings = {
        cell: c,
        settings: {
          task: `${c.relations.map((r) => r.name).join(' + ')}, ${headsWord(c.numHeads)}`, relations: c.relations, seed: st.seed, seqLen: st.seqLen,
          vocab: st.vocab, dModel: st.dModel, learningRate: st.learningRate, batchSize: st.batchSize, steps: st.steps,
          evalSize: st.evalSize, headCounts: [c.numHeads],
        },
      };
    }
    this.heading.textContent = this.t('python.heads.cellTitle', { relations: this.t('headsNeeded.relationsCount', { count: c.rows }), heads: headsWord(c.numHeads, this.language) });
    return {
      settings: this.cellSettings.settings,
      results: c.status === 'done'
        ? [{ numHeads: c.numHeads, parameters: c.parameters, evaluation: /** @type {any} */ (c.evaluation), ablations: c.ablations }]
        : null,
      busy: grid.busy,
      started: c.step > 0,
      where: 'headsNeeded.title',
      href: '#heads-needed',
      run: () => grid.start(c.rows !== st.relations.length),
    };
  }
}

define('hw-train-python', HwTrainPython);
define('hw-heads-python', HwHeadsPython);
