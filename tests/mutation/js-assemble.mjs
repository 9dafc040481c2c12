// Stryker's build step, run inside each sandbox (see tests/mutation/stryker.config.json):
// dist/headwise.js = the module's glue (tests/mutation/js-glue.mjs) + this sandbox's
// instrumented cpp/api/ parts, joined by cpp/api/assemble.mjs and appended as em++'s
// --extern-post-js appends them. Every mutant of the API is in that one file, switched on by
// Stryker's __STRYKER_ACTIVE_MUTANT__.
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

// The sandbox lives under the project's build/mutation/: walk up to the prepared glue.
let dir = process.cwd();
let glue = null;
for (;;) {
  const candidate = join(dir, 'build', 'mutation', 'js', 'headwise-glue.js');
  if (existsSync(candidate)) {
    glue = candidate;
    break;
  }
  if (dirname(dir) === dir) break;
  dir = dirname(dir);
}
if (!glue) {
  console.error('js-assemble: no build/mutation/js/headwise-glue.js; run tests/mutation/js-glue.mjs');
  process.exit(1);
}
// The sandbox's own parts, joined as the full module's (dist/headwise.js) are.
const {assemble} = await import(pathToFileURL(resolve('cpp', 'api', 'assemble.mjs')).href);
const api = assemble('full', resolve('cpp', 'api'));
mkdirSync('dist', {recursive: true});
// Wrapped as cpp/postlink.mjs wraps the real file (in the function headwiseModule), so that
// createHeadwise.moduleSource() has the source text to give, as in dist/.
writeFileSync(join('dist', 'headwise.js'),
              'var createHeadwise = (function headwiseModule() {\n' + readFileSync(glue, 'utf8') + '\n' +
              api + '\nreturn createHeadwise;\n})();\n');
