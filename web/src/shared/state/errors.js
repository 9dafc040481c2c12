// Which control an error message from the WASM module belongs to. The module's messages name
// the offending option (snake_case from the C++ core, camelCase from the JS layer), e.g.
// "seedExperiment: d_model (10) must be divisible by num_heads (4)".

import { SETTING } from './settings.js';

/** Controls (their ids from the settings table) in the order used when a message names several and none was just changed. */
const PATTERNS = /** @type {[string, RegExp][]} */ ([
  [SETTING.numHeads.control, /\bnum_heads\b|\bnumHeads\b/],
  [SETTING.dModel.control, /\bd_model\b|\bdModel\b|\bembed_dim\b|\bembedDim\b/],
  [SETTING.tokens.control, /\btokens\b/],
  [SETTING.seed.control, /\bseed\b/],
]);

/**
 * The message without the "methodName: " prefix the JS layer adds.
 * @param {string} message
 */
export function stripMethod(message) {
  return message.replace(/^[A-Za-z]+: /, '');
}

/**
 * Controls named by a message, in priority order.
 * @param {string} message
 * @returns {string[]}
 */
export function controlsNamed(message) {
  const body = stripMethod(message);
  return PATTERNS.filter(([, re]) => re.test(body)).map(([id]) => id);
}

/**
 * The control an error belongs to: the one the student changed last if the message names it,
 * otherwise the first named one, otherwise `fallback`.
 * @param {string} message
 * @param {string|null} lastChanged
 * @param {string} [fallback]
 */
export function controlFor(message, lastChanged, fallback = 'general') {
  const named = controlsNamed(message);
  if (lastChanged && named.includes(lastChanged)) return lastChanged;
  return named[0] || fallback;
}

/**
 * The message of anything thrown.
 * @param {unknown} e
 */
export function messageOf(e) {
  if (e instanceof Error) return e.message;
  return String(e);
}
