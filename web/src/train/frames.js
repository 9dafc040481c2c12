// What the training sections' elements share: how they redraw (on the next animation frame,
// once per frame however many events arrive, and while their models train at most once per
// DRAW_INTERVAL_MS, so that style, layout and paint stay small next to the training itself; each
// draw a User Timing measure read by `npm run bench`, an error shown in the widget, not thrown),
// and their seed field.

import { errorOf } from '../shared/state/errors.js';
import { settingField } from '../shared/ui/forms.js';
import { measure } from './model-run.js';

/** While training, a section is redrawn at most this often (ms): 10 frames a second. */
export const DRAW_INTERVAL_MS = 100;

export class FrameDrawer {
  /**
   * @param {object} o
   * @param {string} o.name          the measure's name, "hw-train draw"
   * @param {() => void} o.draw
   * @param {() => boolean} o.busy   whether the models are training now
   * @param {(error: unknown) => void} o.fail  show a drawing error (a coded error, or what was thrown)
   */
  constructor({ name, draw, busy, fail }) {
    this.name = name;
    this.draw = draw;
    this.busy = busy;
    this.fail = fail;
    this.frame = 0;
    this.timer = 0;
    this.lastDraw = 0;
  }

  schedule() {
    if (this.frame || this.timer) return;
    const wait = this.lastDraw + DRAW_INTERVAL_MS - performance.now();
    if (wait > 0 && this.busy()) {
      this.timer = window.setTimeout(() => {
        this.timer = 0;
        this.schedule();
      }, wait);
      return;
    }
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const t0 = performance.now();
      this.lastDraw = t0;
      try {
        this.draw();
        measure(this.name, t0);
      } catch (e) {
        console.error(`${this.name}:`, e);
        this.fail(errorOf(e));
      }
    });
  }
}

/**
 * A section's seed field (settingField: its range from the settings table).
 * @param {{store: any}} el
 * @param {'trainSeed'|'headsSeed'|'inductionSeed'} name  the store's setting
 * @param {string} label
 * @param {string} hint
 */
export function seedField(el, name, label, hint) {
  return settingField(el, name, label, hint);
}
