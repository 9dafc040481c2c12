// <hw-fact name="h0-t2"></hw-fact>: one number from the lesson's run, computed by the module.

import { HwElement, define } from '../shared/ui/element.js';
import { lessonFacts } from '../shared/state/facts.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

class HwFact extends HwElement {
  static get inline() {
    return true;
  }

  /** @param {Store} store */
  update(store) {
    const name = this.getAttribute('name') || '';
    const facts = lessonFacts(store);
    const value = facts[name];
    const text = value === undefined ? '?' : value;
    if (this.textContent !== text) this.textContent = text;
  }

  refresh() {
    if (!this.store.hw) {
      if (this.textContent === '') this.textContent = '…';
      return;
    }
    super.refresh();
  }
}

define('hw-fact', HwFact);
