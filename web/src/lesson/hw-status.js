// <hw-status>: page-level messages — the module failed to load, or the link's settings could
// not be read — plus the module version once it is running.

import { HwElement, define } from '../shared/ui/element.js';
import { replace, h, setText } from '../shared/ui/dom.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

class HwStatus extends HwElement {
  build() {
    this.box = h('div', { class: 'hw-status-box', role: 'status' });
    this.appendChild(this.box);
  }

  refresh() {
    const store = this.store;
    const messages = [];
    if (store.loadError) {
      messages.push(h('p', { class: 'hw-error', 'data-testid': 'load-error', text: this.t('status.notStarted', { reason: this.say(store.loadError) }) }));
    }
    if (store.notice) {
      messages.push(h('p', { class: 'hw-notice', 'data-testid': 'hash-notice', text: this.say(store.notice) }));
    }
    replace(this.box, messages);
    if (this.hidden !== (messages.length === 0)) this.hidden = messages.length === 0;
    if (this._status && !this._status.hidden) this._status.hidden = true;
  }
}

define('hw-status', HwStatus);

class HwVersion extends HwElement {
  static get inline() {
    return true;
  }

  refresh() {
    const hw = this.store.hw;
    // The module's name and version, as it reports them: an identifier, not a sentence.
    if (!this.hasAttribute('translate')) this.setAttribute('translate', 'no');
    setText(this, hw ? `headwise ${hw.version}` : '');
  }
}

define('hw-version', HwVersion);
