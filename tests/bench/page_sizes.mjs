// The bytes of the page, raw and gzip -9: everything dist/ serves, what the lesson page loads
// at first, and what the training section loads on demand.
import {spawnSync} from 'node:child_process';
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {basename, join, relative, resolve} from 'node:path';
import {gzipSync} from 'node:zlib';

import {log, root} from './common.mjs';

function walk(dir) {
  const files = [];
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    const p = join(dir, e.name);
    if (e.isDirectory())
      files.push(...walk(p));
    else if (e.isFile())
      files.push(p);
  }
  return files;
}

// gzip -9 of a file (GNU gzip when installed, else zlib at level 9).
function gzipSize(file, data) {
  const r = spawnSync('gzip', ['-9', '-c', '-n', file], {maxBuffer: 1 << 28});
  return r.status === 0 ? r.stdout.length : gzipSync(data, {level: 9}).length;
}

function sizes(files) {
  let raw = 0;
  let gz = 0;
  const each = files.map((f) => {
    const data = readFileSync(f);
    const g = gzipSize(f, data);
    raw += data.length;
    gz += g;
    return {file: relative(root, f), raw: data.length, gzip: g};
  });
  return {raw, gzip: gz, files: each};
}

/** Every file under `dir`, with its size. */
export const dirSizes = (dir) => sizes(walk(dir));

/**
 * The bytes the lesson page loads: at first load (every response for index.html, the reader at
 * the top), and then the training section's, loaded on demand once the reader scrolls to it.
 */
export async function pageSizes(browser, baseUrl) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const loaded = new Set();
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.origin === new URL(baseUrl).origin)
      loaded.add(resolve(root, '.' + decodeURIComponent(u.pathname)));
  });
  await page.goto(`${baseUrl}/dist/index.html`, {waitUntil: 'networkidle'});
  await page.waitForSelector('hw-head-weights[data-ready]', {state: 'attached', timeout: 60000});
  await page.waitForTimeout(1000);
  const first = [...loaded].filter((f) => existsSync(f));
  await page.evaluate(() => document.querySelector('#train').scrollIntoView({behavior: 'instant'}));
  await page.waitForSelector('hw-train[data-ready] #train-run:not([disabled])', {timeout: 120000});
  await page.waitForLoadState('networkidle');
  const onDemand = [...loaded].filter((f) => existsSync(f) && !first.includes(f));
  await context.close();
  return {page: sizes(first), training: sizes(onDemand)};
}

export const kb = (b) => (b / 1000).toFixed(1);

export function logPageSizes(p) {
  const list = (s) => s.files.map((f) => `${basename(f.file)} ${kb(f.gzip)}`).join(', ');
  if (p.page)
    log(`  the lesson page at first load (what index.html loads, ${p.page.files.length} files): ${
        kb(p.page.raw)} KB raw, ${kb(p.page.gzip)} KB gzipped (${list(p.page)})`);
  if (p.training)
    log(`  the training section, loaded on demand (${p.training.files.length} files): ${
        kb(p.training.raw)} KB raw, ${kb(p.training.gzip)} KB gzipped (${list(p.training)})`);
}
