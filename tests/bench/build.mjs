// What the bench measures, built: the native forward (CMake presets `bench` and
// `native-baseline`), the WASM module and the page (npm run build:wasm, build:web).
import {spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {join} from 'node:path';

import {log, root} from './common.mjs';

function run(cmd, args, opts = {}) {
  log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, {cwd: root, stdio: 'inherit', ...opts});
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status})`);
}

/**
 * The WASM module and the page. webMayFail: a failed page build is a note, not an error (the
 * page's sections then measure what dist/ holds).
 */
export function buildPage({webMayFail = false} = {}) {
  run('npm', ['run', '--silent', 'build:wasm']);
  if (!webMayFail) {
    run('npm', ['run', '--silent', 'build:web']);
    return;
  }
  if (!existsSync(join(root, 'web', 'build.mjs'))) return;
  try {
    run('npm', ['run', '--silent', 'build:web']);
  } catch (e) {
    log(`note: ${e.message}; the page measurements use whatever dist/ holds.`);
  }
}

/** Everything the whole run times. */
export function buildAll() {
  for (const preset of ['bench', 'native-baseline']) {
    run('cmake', ['--preset', preset], {stdio: ['ignore', 'ignore', 'inherit']});
    run('cmake', ['--build', '--preset', preset, '-j2']);
  }
  buildPage({webMayFail: true});
}
