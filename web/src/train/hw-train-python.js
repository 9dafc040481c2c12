// <hw-train-python>: the PyTorch script that reproduces the training section's run (its task and
// seed) and, once that run has reached its step budget, what the script prints, formatted from
// the page's own final numbers. Until then the output box says so and offers to run it.

import { HwElement, define } from '../shared/element.js';
import { h, replace, copyButton, code } from '../shared/dom.js';
import { messageOf } from '../shared/errors.js';
import { awaitTrainingModule, sessionFor } from './session.js';
import { trainingCode, trainingOutput } from './python.js';

/** @typedef {import('../shared/store.js').Store} Store */
/** @typedef {import('./session.js').TrainSession} TrainSession */

const ID = 'python-train';

class HwTrainPython extends HwElement {
  build() {
    // The line src/train/loader.js showed while train.js loaded.
    for (const line of this.querySelectorAll(':scope > [data-hw-train-loading]')) line.remove();
    this.codeEl = h('code', { class: 'language-python' });
    /** @type {object|null} the session's settings the script was written for */
    this.codeFor = null;
    this.output = h('pre', { class: 'hw-code hw-code-output', 'data-testid': `${ID}-output`, tabindex: '0' });
    this.pending = h('div', { class: 'hw-train-pending', 'data-testid': `${ID}-pending` });
    this.title = 'PyTorch: train the models of "Watch heads specialise"';
    this.appendChild(h('section', { class: 'hw-code-block' }, [
      h('h3', { text: this.title }),
      copyButton(this.codeEl, `Copy: ${this.title}`),
      h('pre', { class: 'hw-code', id: ID, 'data-testid': ID, tabindex: '0' }, [this.codeEl]),
      h('p', { class: 'hw-output-label', text: 'It prints (computed on this page):' }),
      this.output,
      this.pending,
      h('p', { class: 'hw-hint' }, [
        'Float64 throughout, the weights and batches drawn by NumPy as the page draws them, so the run is the page\'s, step for step. ',
        'Accuracies are exact fractions of the held-out targets; losses and weights are rounded so that the last bits of your BLAS cannot show. ',
        'It needs NumPy and PyTorch 1.12 or later (', code('dtype=torch.float64'), ') and takes a few seconds.',
      ]),
    ]));
    /** @type {TrainSession|null} */
    this.session = null;
    this.onSession = () => this.refresh();
  }

  /** @param {Store} store */
  update(store) {
    const session = sessionFor(store);
    if (!session) {
      awaitTrainingModule(this);
      return;
    }
    if (session !== this.session) {
      this.session = session;
      session.addEventListener('state', this.onSession);
    }
    if (store.inputErrors['train-seed']) return;
    try {
      session.ensure(store.state.trainTask, /** @type {number} */ (store.state.trainSeed));
    } catch (e) {
      replace(this.pending, [h('p', { class: 'hw-hint', text: `No training script for these settings: ${messageOf(e)}` })]);
      this.pendingStatus = '';
      return;
    }
    const st = /** @type {NonNullable<TrainSession['settings']>} */ (session.settings);
    // The session replaces its settings object on every change and never edits one, so the
    // script (about 6 KB of text) is written again only then, not on each change of the
    // lesson's own settings, which every widget hears.
    if (st !== this.codeFor) {
      const source = trainingCode(st);
      if (this.codeEl.textContent !== source) this.codeEl.textContent = source;
      this.codeFor = st;
    }
    const done = session.status === 'done';
    const text = done
      ? trainingOutput(st, session.models.map((m) => ({ numHeads: m.numHeads, parameters: m.parameters, evaluation: /** @type {any} */ (m.evaluation), ablations: m.ablations })))
      : '';
    if (this.output.textContent !== text) this.output.textContent = text;
    this.output.hidden = !done;
    this.toggleAttribute('data-done', done);
    if (done) {
      replace(this.pending, []);
    } else if (this.pendingStatus !== session.status) {
      const button = h('button', { type: 'button', class: 'hw-button', 'data-testid': `${ID}-run`, text: session.step > 0 ? 'Finish the training' : 'Run the training' });
      button.addEventListener('click', () => session.start());
      replace(this.pending, [
        h('p', { class: 'hw-hint' }, [
          `What it prints appears here once the page's own run reaches step ${st.steps} `,
          h('a', { href: '#train', text: '(in "Watch heads specialise")' }),
          '.',
        ]),
        session.status === 'running' || session.status === 'finishing' ? h('p', { class: 'hw-hint', text: 'Training…' }) : button,
      ]);
    }
    this.pendingStatus = done ? '' : session.status;
  }
}

define('hw-train-python', HwTrainPython);
