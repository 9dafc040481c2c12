// The public JS API of the WebAssembly modules, put together from its parts (run by CMake before
// em++ links a module; em++ appends the result with --extern-post-js, after Emscripten's
// factory).
//
// The raw Embind functions take flat typed arrays and return every result as {data, shape}
// (cpp/bindings/marshal.hpp); the API checks every option's type, flattens nested arrays, turns
// {error} results into real Error objects, and wraps each returned {data, shape} in the one
// tensor type (Tensor: flat data + shape), whose shape alone says whether it is a vector, a
// matrix or a stack. Results are plain objects whose tensors are row-major nested arrays made on
// first read (large results cost nothing until used), with the tensors as result.typed.
//
// Each part is a file of plain declarations; here they are joined, in order, inside one
// function, so that they share its scope and nothing but createHeadwise reaches the page:
//   checks.js        option checking and the coded Error
//   tensors.js       Tensor and the results
//   into.js          multiHeadAttention's option into               } dist/headwise.js; the
//   training.js      the trainer, and installTraining               } lesson-only module has
//   text-model.js    hw.textModel                                   } no-training.js instead
//   text-trainer.js  hw.createTextTrainer                           }
//   lesson.js        wrap(): the API object
//   factory.js       createHeadwise: the feature checks, then wrap
//
//   node cpp/api/assemble.mjs <out.js> [--lesson-only]
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The parts of each module's API, in the order they are joined. */
export const PARTS = {
  full: ['checks.js', 'tensors.js', 'into.js', 'training.js', 'text-model.js', 'text-trainer.js', 'lesson.js', 'factory.js'],
  lesson: ['checks.js', 'tensors.js', 'no-training.js', 'lesson.js', 'factory.js'],
};

/**
 * The API's text for one module.
 * @param {'full' | 'lesson'} which
 * @param {string} [dir] where the parts are (another copy of cpp/api/, as mutation testing's)
 * @returns {string}
 */
export function assemble(which, dir = HERE) {
  const parts = PARTS[which];
  if (!parts) throw new Error(`assemble: no module "${which}" (full or lesson)`);
  return '// The public JS API (cpp/api/, joined by cpp/api/assemble.mjs).\n(function () {\n\'use strict\';\n' +
    parts.map((p) => `\n// ---- cpp/api/${p} ----\n` + readFileSync(join(dir, p), 'utf8')).join('') +
    '})();\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [out, ...flags] = process.argv.slice(2);
  if (!out || flags.some((f) => f !== '--lesson-only')) {
    console.error('usage: node cpp/api/assemble.mjs <out.js> [--lesson-only]');
    process.exit(2);
  }
  mkdirSync(dirname(out), {recursive: true});
  writeFileSync(out, assemble(flags.includes('--lesson-only') ? 'lesson' : 'full'));
}
