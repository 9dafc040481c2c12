// The wire codec: how a result crosses between the Worker and the page without copies. Each of a
// result's tensors (the module's `result.typed`, flat data + shape; a trainer's attention() as
// its `typed`) is posted as {data, shape}, its buffer transferred, and the result is rebuilt in
// the API's form on the other side (createHeadwise.result, createHeadwise.nested). Widgets read
// rows and heads as views (`run.typed.headWeights.head(h).row(i)`); a nested field is made only
// when read. The other way, Tensors among a remote object's call arguments (a trainer's
// setParameters) are transferred to the Worker: the caller hands their buffers over.
//
// toWire is stringified into the Worker's source (dispatcher.js): it stays self-contained.

/** @typedef {typeof import('../../../../cpp/api')} CreateHeadwise  the module's factory, with its Tensor */

/**
 * A value to post: each API result becomes its fields with its tensors in place of their
 * nested arrays (result.typed), an array result with a tensor as its `typed` becomes
 * {nested: tensor}, and every tensor's buffer is transferred.
 * @param {any} v
 * @param {Transferable[]} transfer
 * @param {CreateHeadwise['Tensor']} Tensor  the module's tensor type
 * @returns {any}
 */
export function toWire(v, transfer, Tensor) {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
  if (v instanceof Tensor) {
    // A view of a larger buffer (a head of a stack) is sent as a copy of its own numbers.
    const whole = v.data.byteOffset === 0 && v.data.buffer.byteLength === v.data.byteLength;
    const t = whole ? v : v.copy();
    if (!transfer.includes(t.data.buffer)) transfer.push(t.data.buffer);
    return { data: t.data, shape: t.shape };
  }
  if (Array.isArray(v)) {
    const t = /** @type {any} */ (v).typed;
    return t instanceof Tensor ? { nested: toWire(t, transfer, Tensor) } : v.map((x) => toWire(x, transfer, Tensor));
  }
  const typed = Object.prototype.propertyIsEnumerable.call(v, 'typed') ? null : v.typed;
  /** @type {Record<string, any>} */
  const out = {};
  for (const key of Object.keys(v)) {
    out[key] = toWire(typed && typed[key] instanceof Tensor ? typed[key] : v[key], transfer, Tensor);
  }
  return out;
}

/**
 * A posted value back in the API's form: {data, shape} becomes a Tensor, {nested: tensor} the
 * tensor's nested arrays with it as their `typed`, and an object holding tensors an API result
 * (nested arrays made when read, the tensors as `typed`).
 * @param {any} v
 * @param {CreateHeadwise} H  createHeadwise (its Tensor and result)
 * @returns {any}
 */
export function fromWire(v, H) {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) return v.map((x) => fromWire(x, H));
  const keys = Object.keys(v);
  if (keys.length === 2 && ArrayBuffer.isView(v.data) && Array.isArray(v.shape)) return new H.Tensor(v.data, v.shape);
  if (keys.length === 1 && keys[0] === 'nested') return H.nested(fromWire(v.nested, H));
  /** @type {Record<string, any>} */
  const out = {};
  let tensors = false;
  for (const key of keys) {
    out[key] = fromWire(v[key], H);
    if (out[key] instanceof H.Tensor) tensors = true;
  }
  return tensors ? H.result(out) : out;
}
