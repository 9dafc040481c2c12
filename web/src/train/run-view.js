// The run view: what every training section shows of its experiment (experiment.js), built once
// here. The buttons, the step counter with the "took" line, the run's error, the pace field, the
// loss and accuracy curves with their legend, the timeline, and the drawing once per frame; the
// section places these parts in its own layout and draws only what is its own (the grid, the
// probe, the tables, the verdicts). Every string comes from the catalogues.
//
//   this.view = new RunView(this, {
//     id: 'induction', measure: INDUCTION.name,
//     buttons: [{ name: 'run', text: 'induction.run', onClick: (exp) => exp.start() }, RESET],
//     onScrub: () => this.schedule(),
//   });
//   this.appendChild(this.view.controls([seedField.wrap]));      // fields, buttons and counter, error
//   …  this.view.curves, this.view.legend, this.view.timeline.wrap wherever the section wants them
//   // in update(): this.view.adopt(exp); in draw():
//   this.view.layoutCurves(exp, { series: names, loss: {…}, accuracy: {…} });  // when the models change
//   this.view.drawRun(exp, { counter: this.t('induction.counter', {step, steps}), took: true });
//   this.view.drawCurves(exp.runs);

import { h, replace, setText } from '../shared/ui/dom.js';
import { showError } from '../shared/ui/forms.js';
import { stopped } from '../shared/state/errors.js';
import { Curves, SERIES } from './curves.js';
import { FrameDrawer } from './frames.js';
import { Timeline, paceField } from './timeline.js';

/** @typedef {import('./experiment.js').Experiment<any>} Experiment */
/** @typedef {import('./experiment.js').ExperimentRun} ExperimentRun */

/**
 * A button of the run's controls. Its id and test id are "<section id>-<name>" unless given.
 * @typedef {object} ButtonDef
 * @property {string} name      'run', 'step', 'reset', 'grid'
 * @property {string} text      its catalogue key
 * @property {boolean} [quiet]  drawn as a secondary button
 * @property {string} [testid]
 * @property {(exp: Experiment) => void} onClick  (only once the experiment is there)
 */

/** The Reset button every section has: the same settings, nothing trained. */
export const RESET = /** @type {ButtonDef} */ ({ name: 'reset', text: 'train.run.reset', quiet: true, onClick: (exp) => exp.reset() });

/**
 * @typedef {object} Axis
 * @property {string} title   the figure's caption (catalogue key's text)
 * @property {number} [yMax]
 * @property {number[]} [yTicks]
 */

export class RunView {
  /**
   * @param {any} el  the section's element (an HwElement: t(), language, session, onSession)
   * @param {object} o
   * @param {string} o.id          the section's id prefix: 'train', 'heads', 'induction'
   * @param {string} o.measure     the declaration's name: the drawing's User Timing measure is "<name> draw"
   * @param {ButtonDef[]} o.buttons
   * @param {() => void} o.onScrub  the timeline moved
   * @param {string} [o.errorTestid]  the run error's test id
   */
  constructor(el, { id, measure, buttons, onScrub, errorTestid }) {
    this.el = el;
    this.id = id;
    /** @type {Record<string, HTMLButtonElement>} */
    this.buttons = {};
    for (const b of buttons) {
      const button = /** @type {HTMLButtonElement} */ (h('button', {
        type: 'button', class: b.quiet ? 'hw-button hw-button-quiet' : 'hw-button', id: `${id}-${b.name}`,
        'data-testid': b.testid || `${id}-${b.name}`, text: el.t(b.text),
      }));
      button.addEventListener('click', () => { if (el.session) b.onClick(el.session); });
      // Until the training module has loaded there is nothing to train (drawButtons enables them).
      button.toggleAttribute('disabled', true);
      this.buttons[b.name] = button;
    }
    this.counter = h('p', { class: 'hw-train-counter', 'data-testid': `${id}-counter`, role: 'status', 'aria-live': 'off' });
    this.error = h('p', { class: 'hw-error', 'data-error-for': id, role: 'alert', hidden: true });
    if (errorTestid) this.error.dataset.testid = errorTestid;
    this.pace = paceField(`${id}-pace`, (p) => { if (el.session) el.session.setPace(p); }, el.language);
    this.curves = h('div', { class: 'hw-train-curves' });
    this.legend = h('ul', { class: 'hw-train-legend', 'aria-label': el.t('train.models') });
    this.timeline = new Timeline(`${id}-timeline`, onScrub, el.language);
    /** @type {Curves|null} */
    this.loss = null;
    /** @type {Curves|null} */
    this.accuracy = null;
    this.drawer = new FrameDrawer({
      name: `${measure} draw`, draw: () => el.draw(), busy: () => Boolean(el.session) && el.session.status === 'training',
      fail: (m) => el.setStatus(el.t('status.drawFailed', { reason: el.say(m) }), true),
    });
    // Kept when the section is drawn again in another language (the element's `keep`): the
    // experiment's listener stays the same function.
    if (!el.onSession) el.onSession = () => el.schedule();
  }

  /**
   * The controls' block: the section's fields with the pace field, the buttons and the counter,
   * the run's error.
   * @param {Node[]} fields
   */
  controls(fields) {
    return h('div', { class: 'hw-train-controls' }, [
      h('div', { class: 'hw-train-fields' }, [...fields, this.pace.wrap]),
      h('div', { class: 'hw-controls-actions', role: 'group', 'aria-label': this.el.t('train.group') }, [...Object.values(this.buttons), this.counter]),
      this.error,
    ]);
  }

  /**
   * Make `exp` the section's `session` (once): its events schedule a drawing, and the pace field
   * shows its pace.
   * @param {Experiment} exp
   * @param {string[]} [types]
   */
  adopt(exp, types = ['progress', 'state']) {
    const el = this.el;
    if (exp === el.session) return;
    el.session = exp;
    for (const type of types) exp.addEventListener(type, el.onSession);
    this.pace.select.value = exp.pace;
  }

  schedule() {
    this.drawer.schedule();
  }

  /**
   * New curves and legend for these models (when the models or the theme change).
   * @param {number} steps  the x range
   * @param {object} o
   * @param {string[]} o.series  each model's name, in the runs' order
   * @param {Axis} o.loss
   * @param {Axis} o.accuracy
   */
  layoutCurves(steps, { series, loss, accuracy }) {
    const defs = series.map((label, i) => ({ label, cls: SERIES[i] }));
    const xLabel = this.el.t('train.curves.step');
    this.loss = new Curves({
      title: loss.title, testid: `${this.id}-loss`, yMax: loss.yMax ?? 4, yTicks: loss.yTicks ?? [0, 1, 2, 3, 4], yFormat: String, series: defs, xLabel,
    });
    this.accuracy = new Curves({
      title: accuracy.title, testid: `${this.id}-accuracy`, yMax: 1, yTicks: [0, 0.25, 0.5, 0.75, 1], yFormat: String, series: defs, xLabel,
    });
    this.loss.setX(steps);
    this.accuracy.setX(steps);
    replace(this.curves, [this.loss.figure, this.accuracy.figure]);
    replace(this.legend, series.map((label, i) => h('li', { class: `hw-train-key ${SERIES[i]}` }, [h('span', { class: 'hw-train-swatch', 'aria-hidden': 'true' }), label])));
  }

  /**
   * The curves' points (only series with new ones are drawn).
   * @param {ExperimentRun[]} runs  in the series' order
   */
  drawCurves(runs) {
    runs.forEach((m, i) => {
      if (this.loss) this.loss.update(i, m.steps, m.loss);
      if (this.accuracy) this.accuracy.update(i, m.steps, m.accuracy);
    });
  }

  /**
   * The buttons' state and text.
   * @param {Record<string, {disabled: boolean, text?: string}>} states  by button name
   */
  drawButtons(states) {
    for (const [name, s] of Object.entries(states)) {
      const b = this.buttons[name];
      b.toggleAttribute('disabled', s.disabled);
      // Written only when it changes: a click whose button's text is replaced between press and
      // release is lost (WebKit).
      if (s.text !== undefined) setText(b, this.el.t(s.text));
    }
  }

  /**
   * The experiment's state on the page: the counter (with the time it took, once done, where
   * `took`), the section's data-status and data-running, and what stopped the training.
   * @param {Experiment} exp
   * @param {object} o
   * @param {string} o.counter  the counter's text
   * @param {number} [o.step]   the counter's data-step
   * @param {boolean} [o.took]  add the time the training took once done
   * @param {unknown} [o.error]  the error that stopped training, shown under the buttons as
   *   "Training stopped: …" (default: the experiment's)
   */
  drawRun(exp, { counter, step, took = false, error = exp.error }) {
    const tookText = took && exp.tookMs ? this.el.t('train.took', { seconds: (exp.tookMs / 1000).toFixed(1) }) : '';
    setText(this.counter, `${counter}${tookText}`);
    if (step !== undefined) this.counter.dataset.step = String(step);
    this.el.dataset.status = exp.status;
    this.el.toggleAttribute('data-running', exp.busy);
    this.showError(error ? stopped(error) : null);
  }

  /**
   * An error under the buttons (null: none), in the section's language.
   * @param {unknown} message  a coded error (or what was thrown)
   */
  showError(message) {
    showError(this.error, null, message, this.el.language);
  }
}
