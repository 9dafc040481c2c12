// Redraw guards without hand-built keys: a widget (or one of its views) records the values each
// of its parts was drawn from, and draws the part again only when one of them changed.

/**
 * A redraw guard without hand-built keys: whether `values` differ, value by value (arrays
 * element by element), from those `holder` last recorded for `part`; records them if so. The
 * record is an own field of the holder, so a widget drawn again for another language forgets it.
 * @param {any} holder  a widget, or an object standing for one of its views
 * @param {string} part
 * @param {unknown[]} values
 */
export function changed(holder, part, values) {
  if (!holder._drawnFrom) holder._drawnFrom = new Map();
  /** @type {Map<string, unknown[]>} */
  const seen = holder._drawnFrom;
  const last = seen.get(part);
  if (last && same(last, values)) return false;
  seen.set(part, values);
  return true;
}

/**
 * Forget what `holder` recorded for `part` (or for every part): its next changed() is true.
 * @param {any} holder
 * @param {string} [part]
 */
export function forget(holder, part) {
  if (!holder._drawnFrom) return;
  if (part === undefined) holder._drawnFrom.clear();
  else holder._drawnFrom.delete(part);
}

/**
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
function same(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) return Object.is(a, b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (!same(a[i], b[i])) return false;  // holes read as undefined
  return true;
}
