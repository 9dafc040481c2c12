// Messages shown in the reader's language. Every error message (the C++ core's, cpp/api.js's, the
// page's own: the store, the training sections, the embed's attributes, the course platform's
// adapter) stays in English where it is made: the page routes it by its words (src/shared/state/errors.js
// finds the control a message names), tests assert it, and the JS API documents it. Only where a
// message is shown does it become a sentence of the reader's language, here: each pattern below
// reads one kind of message and names its key (errors.* in web/i18n/en.json, whose English is the
// message itself) and what it quotes. A quoted part marked `*` is a message too, translated in turn.
// A message no pattern reads is shown as it is, in English: never blank.
//
// tests/js/i18n-errors.test.mjs runs every bad input the page can meet through the module and the
// page's own code, and requires each message to be read here and to come out of en.json unchanged.

import { SOURCE, t } from './i18n.js';

/** @typedef {[RegExp, string, string[]]} Pattern  what a message looks like, its key, its parameters (`*`: a message) */

/** @type {Pattern[]} */
const PATTERNS = [
  // The page's own: empty and unreadable fields, links, the main thread's budget.
  [/^Required: enter a number\.$/, 'errors.input.required', []],
  [/^Enter a number\.$/, 'errors.input.notNumber', []],
  [/^This link's settings could not be read \((.*)\), so the page shows the lesson's defaults instead\.$/s, 'errors.hash.notice', ['reason*']],
  [/^the link is too long \((\d+) characters after the #; at most (\d+)\)$/, 'errors.hash.tooLong', ['length', 'max']],
  [/^"(.*)" appears twice$/s, 'errors.hash.twice', ['key']],
  [/^"(.*)" is not a number$/s, 'errors.hash.notNumber', ['key']],
  [/^"(.*)" must be 0 or 1$/s, 'errors.hash.zeroOrOne', ['key']],
  [/^"(.*)" must be a name such as previous-and-first$/s, 'errors.hash.taskName', ['key']],
  [/^"(.*)" must be relation names separated by commas, such as previous,first,two-back$/s, 'errors.hash.relationNames', ['key']],
  [/^"lang" must be a language tag such as es or zh-CN$/, 'errors.hash.lang', []],
  [/^"query" must be a token index$/, 'errors.hash.query', []],
  [/^"(.*)" is out of range$/s, 'errors.hash.range', ['key']],
  [/^"(.*)" must be a whole number from (\d+) to (\d+)$/s, 'errors.hash.whole', ['key', 'min', 'max']],
  [/^"(.*)" is not a setting this page knows$/s, 'errors.hash.unknown', ['key']],
  [/^This page computes on the main thread: (.*)\. So a change may take at most about (\d+) ms, and (\S+) tokens at d_model (\S+) would take about ([\d,]+) ms with the exercises\. Choose fewer tokens or a smaller d_model\.$/s,
    'errors.budget', ['reason*', 'budget', 'tokens', 'dModel', 'cost']],
  // Why the page computes on its main thread (src/shared/compute/compute.js), and a Worker that stopped.
  [/^the page asked for no Worker$/, 'errors.worker.notAsked', []],
  [/^this browser cannot start a Worker here$/, 'errors.worker.cannot', []],
  [/^the module's source is not available for a Worker \(headwise\.js was not post-linked\)$/, 'errors.worker.noSource', []],
  [/^a Worker could not be started \((.*)\), and the page's Content-Security-Policy must allow worker-src blob: for one$/s, 'errors.worker.failed', ['error']],
  [/^the Worker did not start in time$/, 'errors.worker.timeout', []],
  [/^a Worker could not be started here \(a Content-Security-Policy without worker-src blob: forbids it\)$/, 'errors.worker.csp', []],
  [/^the module did not start in the Worker \((.*)\)$/s, 'errors.worker.moduleFailed', ['error']],
  [/^the module did not restart in the Worker \((.*)\)$/s, 'errors.worker.moduleRestart', ['error']],
  [/^the Worker could not be restarted$/, 'errors.worker.restart', []],
  [/^the computation stopped: (.*)$/s, 'errors.worker.stopped', ['reason*']],
  [/^the Worker stopped$/, 'errors.worker.died', []],
  // Loading the modules and the training section.
  [/^headwise\.js did not load \(createHeadwise is missing\)$/, 'errors.load.missing', []],
  [/^(\S+) loaded but did not define createHeadwise$/, 'errors.load.noFactory', ['file']],
  [/^(\S+) could not be loaded$/, 'errors.load.failed', ['url']],
  [/^the module loaded for training has no training API \(it is headwise-lesson\.js, not headwise\.js\)$/, 'errors.load.noTraining', []],
  [/^train\.js loaded but did not define the training section's elements$/, 'errors.load.noElements', []],
  // An embed's attributes (src/embed/mha.js), after their "name: ".
  [/^"(.*)" is not a number\.$/s, 'errors.embed.notNumber', ['value']],
  [/^"(.*)" is not a whole number from (\d+) to (\d+); the page uses one Worker per core\.$/s, 'errors.embed.notWorkers', ['value', 'min', 'max']],
  [/^"(.*)" is not a token index \(0, 1, 2, …\)\.$/s, 'errors.embed.notIndex', ['value']],
  [/^"(.*)" is not a control \(use (.*), all or none\)\.$/s, 'errors.embed.notControl', ['value', 'list']],
  [/^"(.*)" is not a download format \(use (.*), all or none\)\.$/s, 'errors.embed.notFormat', ['value', 'list']],
  [/^"(.*)" is not a theme \(use (.*)\); the system's is used\.$/s, 'errors.embed.notTheme', ['value', 'list']],
  // The training sections (src/train/).
  [/^Training stopped: (.*)$/s, 'errors.train.stopped', ['reason*']],
  [/^"(.*)" is not a training task \(use (.*)\)$/s, 'errors.train.task', ['task', 'list']],
  [/^the trainer was disposed before (\w+)\(\)$/, 'errors.train.disposed', ['method']],
  [/^choose at least one relation \(of (.*)\)$/s, 'errors.grid.none', ['list']],
  [/^(\d+) relations chosen; at most (\d+) \(of (.*)\)$/s, 'errors.grid.tooMany', ['count', 'max', 'list']],
  [/^"(.*)" is not a relation \(use (.*)\)$/s, 'errors.grid.unknown', ['name', 'list']],
  [/^"(.*)" is chosen twice; each relation counts once$/s, 'errors.grid.twice', ['name']],
  [/^this module has no relations to build tasks from \(hw\.trainingRelations is missing\)$/, 'errors.grid.noRelations', []],
  [/^"(.*)" not added: at most (\d+) relations \(uncheck one first\)$/s, 'errors.grid.notAdded', ['name', 'max']],
  [/^choose at least one relation: this one stays until you pick another$/, 'errors.grid.keepOne', []],
  [/^(.*)\. The tables keep the last good probe, (\S*)\.$/s, 'errors.probe.kept', ['reason*', 'probe']],
  [/^type a sequence of 1 to (\d+) letters from (\S+) to (\S+)$/, 'errors.probe.empty', ['max', 'first', 'last']],
  [/^"(.*)" is not in the vocabulary: use the letters (\S+) to (\S+)$/s, 'errors.probe.letter', ['letter', 'first', 'last']],
  [/^(\d+) letters is too long: the models read at most (\d+)$/, 'errors.probe.tooLong', ['count', 'max']],
  // "Heads that work together" (src/train/induction.js, hw-induction.js).
  [/^(.*)\. The tables keep the last good probe: (.+)\.$/s, 'errors.induction.kept', ['reason*', 'probe']],
  [/^type a sequence of 2 to (\d+) tokens from (\S+) to (\S+), separated by spaces$/, 'errors.induction.empty', ['max', 'first', 'last']],
  [/^"(.*)" is not a token of the vocabulary: use (\S+) to (\S+)$/s, 'errors.induction.token', ['token', 'first', 'last']],
  [/^1 token is too short: a probe needs at least 2$/, 'errors.induction.short', []],
  [/^(\d+) tokens is too long: the models read at most (\d+)$/, 'errors.induction.tooLong', ['count', 'max']],
  [/^seed (.*) is not allowed: use a whole number from 0 to 4294967295$/s, 'errors.induction.seed', ['value']],
  [/^this module has no induction task \(hw\.inductionDefaults is missing\)$/, 'errors.induction.missing', []],
  // The course platform's adapter (src/shared/platform/lms.js): how a call failed.
  [/^the course platform's API has no (\w+)$/, 'errors.lms.noMethod', ['method']],
  [/^it answered (.*)$/s, 'errors.lms.answered', ['answer']],
  [/^it threw (.*)$/s, 'errors.lms.threw', ['error']],
  [/^error (\w+), (.*)$/s, 'errors.lms.codeText', ['code', 'text']],
  [/^error (\w+)$/, 'errors.lms.code', ['code']],
  // The module (cpp/api.js and the C++ core), after the method's "name: ".
  [/^(\w+) \((-?\d+)\) must be divisible by num_heads \((-?\d+)\)$/, 'errors.core.divisible', ['name', 'value', 'heads']],
  [/^seed \((-?\d+)\) must be an integer between 0 and 4294967295$/, 'errors.core.seedRange', ['value']],
  [/^(\w+) \((-?\d+)\) must be a positive integer$/, 'errors.core.positive', ['name', 'value']],
  [/^(\w+) \((-?\d+)\) must be at most (\d+)$/, 'errors.core.atMost', ['name', 'value', 'max']],
  [/^(\w+) \((-?\d+)\) must be between (-?\d+) and (-?\d+)$/, 'errors.core.between', ['name', 'value', 'min', 'max']],
  [/^tokens \((\d+)\), d_model \((\d+)\) and num_heads \((\d+)\) would need (\d+) MiB; at most (\d+) MiB is allowed$/, 'errors.core.memory', ['tokens', 'dModel', 'heads', 'need', 'max']],
  [/^relation ("[^"]*"(?:\.\.\.)?) is not a training relation; the relations are (.*)$/s, 'errors.core.relation', ['name', 'list']],
  [/^task ("[^"]*"(?:\.\.\.)?) is not a training task; the tasks are (.*)$/s, 'errors.core.task', ['name', 'list']],
  [/^(\w+) must be an integer, got (.*)$/s, 'errors.api.integer', ['name', 'value']],
  [/^(\w+) \((.*)\) is too large; it must be a safe integer$/, 'errors.api.safe', ['name', 'value']],
  [/^(\w+) must be a number, got (.*)$/s, 'errors.api.number', ['name', 'value']],
  [/^(\w+) must be true or false, got (.*)$/s, 'errors.api.boolean', ['name', 'value']],
  [/^(\w+) must be a whole number of at least 1, got (.*)$/s, 'errors.api.whole', ['name', 'value']],
  [/^this trainer has been disposed; create a new one$/, 'errors.api.disposed', []],
];

/** "seedExperiment: …", "d-model: …": a method's or an attribute's name, kept as it is. */
const PREFIX = /^([A-Za-z][\w-]*): (.+)$/s;

/**
 * @typedef {object} Reading  how a message was read
 * @property {string} key                     its key (errors.*)
 * @property {Record<string, string>} params  what it quotes (a nested message as it was)
 * @property {string[]} nested                the parameters that are messages themselves
 * @property {string} prefix                  the "name: " before it ('' when none)
 */

/**
 * Read a message: which pattern, which quotes. A message preceded by a method's or attribute's
 * name ("seedExperiment: …") is read after it. Null when no pattern reads it.
 * @param {string} message
 * @returns {Reading|null}
 */
export function readError(message) {
  const whole = readBody(message);
  if (whole) return { ...whole, prefix: '' };
  const m = PREFIX.exec(message);
  if (!m) return null;
  const body = readBody(m[2]);
  return body ? { ...body, prefix: `${m[1]}: ` } : null;
}

/**
 * @param {string} text
 * @returns {{key: string, params: Record<string, string>, nested: string[]}|null}
 */
function readBody(text) {
  for (const [re, key, names] of PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    /** @type {Record<string, string>} */
    const params = {};
    const nested = [];
    names.forEach((spec, i) => {
      const name = spec.replace(/\*$/, '');
      params[name] = m[i + 1];
      if (spec.endsWith('*')) nested.push(name);
    });
    return { key, params, nested };
  }
  return null;
}

/**
 * A message as the reader of `lang` reads it: its catalogue sentence, the quoted messages in it
 * translated too; English, as it is, when no pattern reads it (or the language is English).
 * @param {string} message
 * @param {string} lang
 * @param {number} [depth]
 * @returns {string}
 */
export function translateError(message, lang, depth = 0) {
  if (!message || lang === SOURCE || depth > 4) return message;
  const r = readError(message);
  if (!r) return message;
  const params = { ...r.params };
  for (const name of r.nested) params[name] = translateError(params[name], lang, depth + 1);
  const text = t(r.key, params, lang);
  // The method's or attribute's name stays as it is; how it leads the sentence is the language's.
  return r.prefix ? t('errors.prefixed', { name: r.prefix.slice(0, -2), message: text }, lang) : text;
}
