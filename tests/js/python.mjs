// Running a generated Python script as a student would: saved to a file in a folder of its own
// and run there by Debian's interpreter (/usr/bin/python3, which sees python3-numpy and
// python3-torch, not a pyenv one on PATH). Shared by the node tests (tests/js) and the browser
// tests (tests/browser) of the "Reproduce it in Python" blocks; tests/browser/python-blocks.test.mjs
// runs its hundred scripts through a fork server of its own instead.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PYTHON = '/usr/bin/python3';

/**
 * Run `source` saved as `name` (`python3 name args…`, in its folder); its standard output. A
 * script that fails fails the test with its standard error.
 * @param {string} source
 * @param {object} [o]
 * @param {string} [o.name]      the file's name
 * @param {string[]} [o.args]    its command-line arguments
 * @param {number} [o.timeout]   ms
 * @param {Record<string, string>} [o.env]  added to this process's environment
 * @returns {string}
 */
export function runPython(source, { name = 'script.py', args = [], timeout = 600000, env = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'headwise-python-'));
  try {
    const file = join(dir, name);
    writeFileSync(file, source);
    const r = spawnSync(PYTHON, [file, ...args], { encoding: 'utf8', timeout, cwd: dir, env: { ...process.env, ...env } });
    assert.equal(r.status, 0, `python3 ${name} failed (${r.signal || r.status}):\n${r.stderr}`);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
