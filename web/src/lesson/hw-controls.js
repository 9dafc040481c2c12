// <hw-controls>: the settings panel. Parses each field into a number and hands it to the store
// unchanged; the module decides what is valid, and its message appears beside the control.

import { HwElement, define } from '../shared/ui/element.js';
import { h, replace, setText } from '../shared/ui/dom.js';
import { SETTING, SETTINGS, defaultLabel, labelOf, lessonSettings } from '../shared/state/settings.js';
import { reflectNumber, settingField, showError } from '../shared/ui/forms.js';

/** @typedef {import('../shared/state/store.js').Store} Store */
/** @typedef {import('../shared/state/store.js').State} State */

/** The panel's number fields: [state field, label key, hint key] from the settings table. */
const FIELDS = SETTINGS.filter((s) => s.panel && s.type === 'number')
  .map((s) => /** @type {const} */ ([/** @type {keyof State} */ (s.name), /** @type {string} */ (s.label), /** @type {string} */ (s.hint)]));
/** The other controls' ids (the settings table's). */
const BIAS = SETTING.bias.control;
const CAUSAL = SETTING.causal.control;
const QUERY = SETTING.query.control;

class HwControls extends HwElement {
  build() {
    /** @type {Record<string, {input: HTMLInputElement, error: HTMLElement, field: keyof State}>} */
    this.fields = {};
    const form = h('form', { class: 'hw-controls', id: 'settings', 'aria-labelledby': 'settings-title' });
    form.addEventListener('submit', (e) => e.preventDefault());
    form.appendChild(h('h2', { id: 'settings-title', class: 'hw-controls-title', text: this.t('controls.title') }));
    form.appendChild(h('p', { class: 'hw-hint', text: this.t('controls.intro') }));

    const grid = h('div', { class: 'hw-controls-grid' });
    for (const [field, label, hint] of FIELDS) {
      const { wrap, input, error, id } = settingField(this, field, this.t(label), this.t(hint));
      this.fields[id] = { input, error, field };
      grid.appendChild(wrap);
    }
    form.appendChild(grid);

    // Checkboxes. Every control here says autocomplete="off": see numberField.
    this.bias = /** @type {HTMLInputElement} */ (h('input', { id: BIAS, name: BIAS, type: 'checkbox', autocomplete: 'off' }));
    this.causal = /** @type {HTMLInputElement} */ (h('input', { id: CAUSAL, name: CAUSAL, type: 'checkbox', autocomplete: 'off' }));
    this.bias.addEventListener('change', () => this.store.set({ bias: this.bias.checked }, BIAS));
    this.causal.addEventListener('change', () => this.store.set({ causal: this.causal.checked }, CAUSAL));
    form.appendChild(h('div', { class: 'hw-checks' }, [
      h('div', { class: 'hw-check' }, [this.bias, h('label', { for: BIAS, text: this.t('controls.bias') })]),
      h('div', { class: 'hw-check' }, [this.causal, h('label', { for: CAUSAL, text: this.t('controls.causal') })]),
    ]));

    // Query token.
    this.query = /** @type {HTMLSelectElement} */ (h('select', { id: QUERY, name: QUERY, autocomplete: 'off' }));
    this.query.addEventListener('change', () => this.store.set({ query: Number(this.query.value) }, QUERY));
    form.appendChild(h('div', { class: 'hw-field' }, [
      h('label', { for: QUERY, text: this.t('controls.query') }),
      this.query,
    ]));

    // Token labels.
    this.labelsBox = h('div', { class: 'hw-labels', id: SETTING.labels.control });
    this.labelsDetails = /** @type {HTMLDetailsElement} */ (h('details', { class: 'hw-labels-details' }, [
      h('summary', { text: this.t('controls.labels.title') }),
      h('p', { class: 'hw-hint', text: this.t('controls.labels.hint') }),
      this.labelsBox,
    ]));
    this.labelsDetails.addEventListener('toggle', () => this.renderLabels(true));
    form.appendChild(this.labelsDetails);

    this.general = h('p', { class: 'hw-error', 'data-error-for': 'general', role: 'alert' });
    form.appendChild(this.general);

    // Its words depend on the store (see update), not read here: the page's store is made once
    // the settings exist, so that a link to #settings finds them.
    const reset = h('button', { type: 'button', class: 'hw-button', id: 'reset' });
    this.resetButton = reset;
    reset.addEventListener('click', () => {
      // An embedding page may give its store its own starting point (store.resetState).
      for (const id of Object.keys(this.fields)) this.store.setInputError(id, null);
      const start = /** @type {any} */ (this.store).resetState;
      this.store.set(start ? { ...start, labels: start.labels.slice() } : lessonSettings(), 'reset');
      this.refreshAll = true;
    });
    form.appendChild(h('div', { class: 'hw-controls-actions' }, [reset]));
    this.appendChild(form);
    this.labelsFor = -1;
  }

  /** @param {Store} store */
  update(store) {
    const s = store.state;
    const errors = store.errors();
    for (const [id, { input, error, field }] of Object.entries(this.fields)) {
      if (this.refreshAll) input.value = String(s[field]);
      else reflectNumber(input, /** @type {number|null} */ (s[field]));
      showError(error, input, errors[id], this.language);
    }
    this.refreshAll = false;
    // An embed's store has its own starting point: the button goes back to the host's settings.
    setText(this.resetButton, this.t(/** @type {any} */ (store).resetState ? 'controls.resetStart' : 'controls.reset'));
    this.bias.checked = s.bias;
    this.causal.checked = s.causal;
    showError(this.general, null, errors.general, this.language);

    // The query menu lists the tokens of the last run that computed.
    const ex = store.experiment();
    const run = ex.result || ex.lastGood;
    const n = run ? run.tokens : 0;
    if (this.changed('query-menu', [n, s.labels.slice(0, n)])) {
      const options = [];
      for (let i = 0; i < n; i += 1) {
        // The index and the student's label: no words to translate.
        options.push(h('option', { value: String(i), translate: 'no', text: `${i} · ${labelOf(s, i)}` }));
      }
      replace(this.query, options);
    }
    const q = Math.min(s.query, Math.max(0, n - 1));
    if (this.query.value !== String(q)) this.query.value = String(q);

    this.renderLabels(false);
  }

  /**
   * Token-label inputs, built when the panel is open (up to the current token count).
   * @param {boolean} force
   */
  renderLabels(force) {
    if (!this.labelsDetails.open) return;
    const s = this.store.state;
    const ex = this.store.experiment();
    const run = ex.result || ex.lastGood;
    const n = run ? run.tokens : 0;
    if (!force && n === this.labelsFor) {
      // Keep values in step (e.g. after a hash change) without disturbing the focused field.
      this.labelsBox.querySelectorAll('input').forEach((input, i) => {
        const focused = /** @type {Document|ShadowRoot} */ (this.getRootNode()).activeElement;
        if (focused !== input && input.value !== labelOf(s, i)) input.value = labelOf(s, i);
      });
      return;
    }
    this.labelsFor = n;
    const rows = [];
    for (let i = 0; i < n; i += 1) {
      const input = /** @type {HTMLInputElement} */ (h('input', {
        id: `label-${i}`, type: 'text', dir: 'auto', autocomplete: 'off', spellcheck: 'false',
        'data-token': String(i),
      }));
      input.value = labelOf(s, i);
      input.addEventListener('input', () => {
        const labels = this.store.state.labels.slice();
        labels[i] = input.value === '' ? defaultLabel(i) : input.value;
        this.store.set({ labels }, 'labels');
      });
      rows.push(h('div', { class: 'hw-label-row' }, [h('label', { for: `label-${i}`, text: this.t('controls.labels.token', { i }) }), input]));
    }
    replace(this.labelsBox, rows);
  }
}

define('hw-controls', HwControls);
