// dist/headwise.h5p as an H5P platform takes it: uploaded to @lumieducation/h5p-server (its
// package validation, its file-type whitelist, its library and h5p.json schemas), saved as content
// (its semantics enforcement keeps every parameter the package sets), and rendered by its player,
// whose page model must load H5P.Headwise's script. The same server refuses the package with a
// .wasm file added, as the whitelist says it must. The package is played in browsers by
// tests/browser/h5p.test.mjs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { H5PConfig, H5PPlayer, fs as h5pfs } from '@lumieducation/h5p-server';
import { zip } from '../../web/build-scorm.mjs';
import { LIBRARY_FOLDER } from '../../web/build-h5p.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGE = join(ROOT, 'dist', 'headwise.h5p');
const USER = { id: 'teacher', name: 'A teacher', email: 'teacher@example.org', type: 'local' };

/** The package's entries, read with Python's zipfile (an independent reader). */
function entries(file) {
  const out = execFileSync('/usr/bin/python3', ['-c', `
import base64, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps([[i.filename, base64.b64encode(z.read(i)).decode()] for i in z.infolist()]))`, file], { maxBuffer: 1 << 28 });
  return JSON.parse(out).map(([name, data]) => ({ name, data: Buffer.from(data, 'base64') }));
}

let dir;
/** A fresh server's editor (its file storage under dir/<name>). */
async function server(name) {
  const config = new H5PConfig(undefined);
  const base = join(dir, name);
  return { config, editor: h5pfs(config, join(base, 'libraries'), join(base, 'tmp'), join(base, 'content')) };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'headwise-h5p-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('dist/headwise.h5p in @lumieducation/h5p-server', () => {
  test('is accepted, installs H5P.Headwise, saves its parameters unchanged and renders with its script', async () => {
    const { config, editor } = await server('accepts');
    const uploaded = await editor.uploadPackage(await readFile(PACKAGE), USER);
    assert.deepEqual(uploaded.installedLibraries.map((l) => `${l.newVersion.machineName}-${l.newVersion.majorVersion}.${l.newVersion.minorVersion}`), [LIBRARY_FOLDER]);
    assert.equal(uploaded.metadata.mainLibrary, 'H5P.Headwise');
    assert.equal(uploaded.parameters.widget, 'lesson');
    assert.equal(typeof uploaded.parameters.masteryScore, 'number');
    // Saving runs the server's semantics enforcement: every parameter the package sets survives it.
    const params = { ...uploaded.parameters, widget: 'quiz', settings: { seed: 11, bias: true, labels: 'a,b' }, locked: 'seed', theme: 'dark', lang: 'es', masteryScore: 60 };
    const id = await editor.saveOrUpdateContent(undefined, params, uploaded.metadata, `${LIBRARY_FOLDER.replace('-', ' ')}`, USER);
    const saved = await editor.contentManager.getContentParameters(id, USER);
    assert.deepEqual(saved, params);
    const player = new H5PPlayer(editor.libraryStorage, editor.contentStorage, config);
    player.setRenderer((model) => model);
    const model = /** @type {any} */ (await player.render(id, USER));
    assert.ok(model.scripts.some((s) => s.split('?')[0].endsWith(`/${LIBRARY_FOLDER}/h5p-headwise.js`)), `the player loads the library's script: ${model.scripts.join(', ')}`);
    const cid = model.integration.contents[`cid-${id}`];
    assert.equal(cid.library, 'H5P.Headwise 1.0');
    assert.deepEqual(JSON.parse(cid.jsonContent), params);
  });

  test('the same package with a .wasm file in its library is refused by the whitelist', async () => {
    const { editor } = await server('refuses');
    const files = entries(PACKAGE);
    files.push({ name: `${LIBRARY_FOLDER}/headwise.wasm`, data: Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) });
    await assert.rejects(editor.uploadPackage(zip(files), USER), (e) => {
      assert.match(e.message, new RegExp(`^package-validation-failed:not-in-whitelist \\(filename: ${LIBRARY_FOLDER}/headwise\\.wasm`));
      return true;
    });
  });
});
