// <hw-export>: take the current run away as files — per-head weights (CSV, JSON), the head tables
// (PNG) and the Python that reproduces them (.py). Attribute `formats`: which buttons to show
// ("csv json png py" by default). Files are made when a button is pressed, from the module's
// result for the current settings.

import { HwElement, define } from '../shared/ui/element.js';
import { h } from '../shared/ui/dom.js';
import { fileStem, headsCanvas, pngBlob, pythonScript, saveFile, weightsCsv, weightsJson } from './export.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

export const EXPORT_FORMATS = /** @type {const} */ (['csv', 'json', 'png', 'py']);


class HwExport extends HwElement {
  static get observedAttributes() {
    return ['formats'];
  }

  build() {
    this.classList.add('hw-export');
    /** @type {Record<string, HTMLButtonElement>} */
    this.buttons = {};
    const row = h('div', { class: 'hw-export-row', role: 'group', 'aria-label': this.t('export.group') }, [
      h('span', { class: 'hw-export-title', text: this.t('export.title') }),
    ]);
    // Each button's words: export.<format>.text and export.<format>.label (its accessible name).
    for (const format of EXPORT_FORMATS) {
      const button = /** @type {HTMLButtonElement} */ (h('button', {
        type: 'button', class: 'hw-button hw-button-quiet hw-export-button', 'data-export': format, 'aria-label': this.t(`export.${format}.label`), text: this.t(`export.${format}.text`),
      }));
      button.addEventListener('click', () => this.save(format));
      this.buttons[format] = button;
      row.appendChild(button);
    }
    this.message = h('p', { class: 'hw-export-status', role: 'status', 'data-testid': 'export-status' });
    this.appendChild(row);
    this.appendChild(this.message);
    this.showFormats();
  }

  attributeChangedCallback() {
    if (this._built) this.showFormats();
  }

  showFormats() {
    const wanted = (this.getAttribute('formats') ?? EXPORT_FORMATS.join(' ')).split(/[\s,]+/).filter(Boolean);
    for (const [format, button] of Object.entries(this.buttons)) button.hidden = !wanted.includes(format);
    this.hidden = !EXPORT_FORMATS.some((f) => wanted.includes(f));
  }

  /**
   * @param {typeof EXPORT_FORMATS[number]} format
   */
  async save(format) {
    const store = this.store;
    if (!store.hw) return;
    const ex = store.experiment();
    const run = ex.result;
    if (!run) {
      this.message.textContent = ex.error ? this.t('export.invalidBecause', { reason: this.say(ex.error) }) : this.t('export.invalid');
      return;
    }
    const stem = fileStem(run);
    const query = Math.min(store.state.query, run.tokens - 1);
    try {
      /** @type {[Blob, string]} */
      let file;
      if (format === 'csv') file = [new Blob([weightsCsv(run, store.state)], { type: 'text/csv' }), `${stem}-weights.csv`];
      else if (format === 'json') file = [new Blob([weightsJson(run, store.state, store.hw.version)], { type: 'application/json' }), `${stem}-weights.json`];
      else if (format === 'png') file = [await pngBlob(headsCanvas(run, store.state)), `${stem}-heads.png`];
      else file = [new Blob([pythonScript(run, query)], { type: 'text/x-python' }), `${stem}.py`];
      saveFile(file[0], file[1], this);
      this.message.textContent = this.t('export.started', { file: file[1] });
    } catch (e) {
      this.message.textContent = this.t('export.failed', { reason: this.say(e) });
    }
  }
}

define('hw-export', HwExport);
