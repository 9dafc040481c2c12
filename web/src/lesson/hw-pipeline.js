// <hw-pipeline>: the lesson's pipeline drawn with the shapes of the current run:
// X → Q, K, V (n, d_model) → split into heads (n, d_head) → attention per head → concat → ·Wo.

import { HwElement, define } from '../shared/ui/element.js';
import { h, morph } from '../shared/ui/dom.js';

/** @typedef {import('../shared/state/store.js').Store} Store */

/** Heads drawn in full; beyond this the middle ones are elided. */
const SHOWN_HEADS = 4;

/**
 * @param {string} name  an array's name (Q, weights₀), or a word in the widget's language
 * @param {string} shape
 * @param {string} [kind]
 * @param {boolean} [word]  the name is a word, not an identifier
 */
function box(name, shape, kind = '', word = false) {
  return h('div', { class: `hw-box ${kind}` }, [
    h('span', { class: 'hw-box-name', translate: word ? null : 'no', text: name }),
    h('span', { class: 'hw-box-shape', text: shape }),
  ]);
}

/**
 * @param {string} text
 * @param {boolean} [formula]  the text is a formula (Q·Kᵀ, · Wo), not words
 */
function arrow(text, formula = false) {
  return h('div', { class: 'hw-arrow' }, [h('span', { translate: formula ? 'no' : null, text })]);
}

class HwPipeline extends HwElement {
  build() {
    this.computes = ['experiment'];
    this.staleNote = h('p', { class: 'hw-stale', role: 'status', hidden: true });
    this.diagram = h('figure', { class: 'hw-pipeline', 'data-testid': 'pipeline' });
    this.appendChild(this.staleNote);
    this.appendChild(this.diagram);
  }

  /** @param {Store} store */
  update(store) {
    const ex = store.experiment();
    const run = ex.result || ex.lastGood;
    this.markStale(this.staleNote, !ex.result && !ex.pending && Boolean(run));
    if (!run) return;
    // Shapes only: a new seed draws nothing.
    if (!this.changed('diagram', [run.tokens, run.dModel, run.numHeads, run.bias, run.causal])) return;
    const n = run.tokens;
    const d = run.dModel;
    const dh = run.dHead;
    const numHeads = run.numHeads;
    const nd = `(${n}, ${d})`;
    const ndh = `(${n}, ${dh})`;

    /** @type {number[]} */
    let heads = [];
    for (let i = 0; i < numHeads; i += 1) heads.push(i);
    const elided = numHeads > SHOWN_HEADS;
    if (elided) heads = [0, 1, -1, numHeads - 1];

    const columns = heads.map((head) => {
      if (head < 0) {
        return h('div', { class: 'hw-head-col hw-head-col-elided', role: 'group', 'aria-label': this.t('pipeline.diagram.elidedLabel', { last: numHeads - 2 }) }, [
          h('span', { class: 'hw-elided', text: this.t('pipeline.diagram.elided', { count: numHeads - 3 }) }),
        ]);
      }
      return h('div', { class: 'hw-head-col', 'data-head': String(head) }, [
        h('p', { class: 'hw-head-col-title', text: this.t('pipeline.diagram.head', { head }) }),
        box(`Q${sub(head)} K${sub(head)} V${sub(head)}`, ndh, 'hw-box-split'),
        arrow('softmax(Q·Kᵀ/√' + dh + ')', true),
        box(`weights${sub(head)}`, `(${n}, ${n})`, 'hw-box-weights'),
        arrow('· V' + sub(head), true),
        box(`out${sub(head)}`, ndh, 'hw-box-split'),
      ]);
    });

    morph(this.diagram, [
      h('div', { class: 'hw-pipe-row' }, [box('X', nd, 'hw-box-input')]),
      arrow(this.t(run.bias ? 'pipeline.diagram.projectBias' : 'pipeline.diagram.project', { d })),
      h('div', { class: 'hw-pipe-row hw-pipe-qkv' }, [box('Q', nd), box('K', nd), box('V', nd)]),
      arrow(this.t('pipeline.diagram.split', { d, count: numHeads, dHead: dh })),
      h('div', { class: 'hw-pipe-row hw-pipe-heads' }, columns),
      arrow(this.t('pipeline.diagram.concat', { count: numHeads })),
      h('div', { class: 'hw-pipe-row' }, [box('concat', nd)]),
      arrow(`· Wo (${d} × ${d})${run.bias ? ' + bo' : ''}`, true),
      h('div', { class: 'hw-pipe-row' }, [box(this.t('pipeline.diagram.output'), nd, 'hw-box-output', true)]),
      h('figcaption', { class: 'hw-hint', text: this.t(run.causal ? 'pipeline.diagram.captionCausal' : 'pipeline.diagram.caption', { n, d, numHeads, dHead: dh }) }),
    ]);
  }
}

/** @param {number} i */
function sub(i) {
  const digits = '₀₁₂₃₄₅₆₇₈₉';
  return String(i).split('').map((c) => digits[Number(c)]).join('');
}

define('hw-pipeline', HwPipeline);
