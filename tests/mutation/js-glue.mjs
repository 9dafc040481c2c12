// Prepares the JS mutation run (npm run test:mutation:js): links the WebAssembly module once
// more, exactly as the wasm preset does but without the JS API (cpp/api/) appended, into
// build/mutation/js/headwise-glue.js. Stryker then builds each sandbox's dist/headwise.js as
// that glue + the API joined from the sandbox's instrumented cpp/api/ (tests/mutation/js-assemble.mjs):
// what `--extern-post-js` does with it, so no mutant needs a link through em++.
//
// Needs the wasm tree (npm run build:wasm). The glue is relinked only when the wasm build or
// the loader is newer than it.
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TREE = join(ROOT, 'build', 'wasm');
const OUT_DIR = join(ROOT, 'build', 'mutation', 'js');
const GLUE = join(OUT_DIR, 'headwise-glue.js');
const STUB = join(OUT_DIR, 'no-api.js');

const linkTxt = join(TREE, 'CMakeFiles', 'headwise.dir', 'link.txt');
if (!existsSync(linkTxt)) {
  console.error('js-glue: no WebAssembly build tree; run `npm run build:wasm` first');
  process.exit(1);
}
const mtime = (f) => (existsSync(f) ? statSync(f).mtimeMs : 0);
const inputs = [linkTxt, join(ROOT, 'dist', 'headwise.js'), join(ROOT, 'cpp', 'loader.js')];
if (mtime(GLUE) > Math.max(...inputs.map(mtime))) {
  console.log('js-glue: build/mutation/js/headwise-glue.js is up to date');
  process.exit(0);
}
mkdirSync(OUT_DIR, {recursive: true});
writeFileSync(STUB, '// (the JS API is appended by tests/mutation/js-assemble.mjs)\n');
// The link line of the wasm preset, with the API replaced by the stub and another output.
const argv = readFileSync(linkTxt, 'utf8').trim().split(/\s+/);
const api = argv.indexOf('--extern-post-js');
const out = argv.indexOf('-o');
if (api < 0 || out < 0) {
  console.error(`js-glue: unexpected link line in ${linkTxt}`);
  process.exit(1);
}
argv[api + 1] = STUB;
argv[out + 1] = GLUE;
console.log('js-glue: linking build/mutation/js/headwise-glue.js');
const r = spawnSync(argv[0], argv.slice(1), {
  cwd: TREE, stdio: 'inherit', env: {...process.env, NODE_PATH: '/usr/share/nodejs'},
});
process.exit(r.status ?? 1);
