// The store of one embedded widget (<mha-*>, and so the iframe embed). It is the page's Store
// without URL-hash sync, sharing one WASM module with the other widgets on the page, and with
// locks: a locked field keeps the value the host gave it, whatever a control or a click asks.

import { Store } from '../shared/state/store.js';
import { errorOf } from '../shared/state/errors.js';

/** @typedef {import('../shared/state/store.js').State} State */

export class EmbedStore extends Store {
  /**
   * @param {Partial<State>} state  the starting state (also where "reset" returns to)
   * @param {() => Promise<import('../../../cpp/api').Headwise>} load  resolves to the module instance
   */
  constructor(state, load) {
    super({ syncHash: false, state });
    this._load = load;
    /** @type {Set<string>} state fields the student cannot change */
    this.locked = new Set();
    /** @type {'light'|'dark'|'auto'} the widget's colours (read by prefersDark in shared/ui/color.js) */
    this.theme = 'auto';
    /** @type {State} */
    this.resetState = { ...this.state, labels: this.state.labels.slice() };
  }

  async loadModule() {
    try {
      this.hw = await this._load();
    } catch (e) {
      this.loadError = errorOf(e);
    }
  }

  /**
   * A change from the widget's own controls: locked fields are left out.
   * @param {Partial<State>} patch
   * @param {string|null} [source]
   */
  set(patch, source = null) {
    /** @type {Record<string, any>} */
    const allowed = {};
    for (const [field, value] of Object.entries(patch)) {
      if (!this.locked.has(field)) allowed[field] = value;
    }
    super.set(allowed, source);
  }

  /**
   * A change from the host page (an attribute): applied even to locked fields.
   * @param {Partial<State>} patch
   */
  setFromHost(patch) {
    super.set(patch, null);
  }
}
