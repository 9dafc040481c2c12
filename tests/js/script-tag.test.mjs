// dist/headwise.js loaded the way a course page would: a classic <script src> in headless
// Chromium, from file://, with and without a strict Content-Security-Policy.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

import { DIST_JS } from './helpers.mjs';

const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run']
};
const CSP = 'default-src \'self\'; script-src \'self\' \'wasm-unsafe-eval\'';
// Emscripten 3.1.6's loader first fetch()es the module's own data: URI and only decodes the
// base64 itself when that fails. Under CSP the fetch is refused (a connect-src violation and two
// console errors) and loading still succeeds; allowing data: in connect-src keeps it clean.
const CSP_DATA = CSP + '; connect-src \'self\' data:';

// Runs in the page, from a file of its own (a strict CSP allows no inline script). It records
// CSP violations, then the lesson's numbers and one error as seen by page code.
const CHECK_JS = `'use strict';
window.cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});
window.checked = createHeadwise().then(function (h) {
  var r = h.seedExperiment({seed: 7, tokens: 5, dModel: 8, numHeads: 2});
  var error = null;
  try {
    h.seedExperiment({seed: 7, tokens: 5, dModel: 10, numHeads: 4});
  } catch (e) {
    error = {isError: e instanceof Error, message: e.message};
  }
  return {
    total: h.parameterCount({embedDim: 8, numHeads: 2, bias: false}).total,
    head0: r.headWeights[0][0],
    head1: r.headWeights[1][0],
    allclose: h.compareHeads({headWeights: r.headWeights})[0].allclose,
    error: error
  };
});
window.checked.then(function (v) {
  document.body.setAttribute('data-result', JSON.stringify(v));
}, function (e) {
  document.body.setAttribute('data-result', JSON.stringify({failed: String(e)}));
});
`;

function page(title, csp) {
  return '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    (csp ? '<meta http-equiv="Content-Security-Policy" content="' + csp + '">\n' : '') +
    '<title>' + title + '</title>\n<script src="headwise.js"></script>\n' +
    '<script src="check.js" defer></script>\n</head>\n<body></body>\n</html>\n';
}

const round3 = (row) => row.map((v) => Math.round(v * 1000) / 1000 + 0);

function assertLessonResult(result) {
  assert.equal(result.total, 256);
  assert.deepEqual(round3(result.head0), [0, 0, 0.424, 0.576, 0]);
  assert.deepEqual(round3(result.head1), [0, 0, 0, 0, 1]);
  assert.equal(result.allclose, false);
  assert.deepEqual(result.error, {
    isError: true, message: 'seedExperiment: d_model (10) must be divisible by num_heads (4)'
  });
}

describe('a classic <script src> in headless Chromium, from file://', { timeout: 90000 }, () => {
  let browser;
  let dir;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'headwise-script-'));
    copyFileSync(DIST_JS, join(dir, 'headwise.js'));
    writeFileSync(join(dir, 'check.js'), CHECK_JS);
    writeFileSync(join(dir, 'plain.html'), page('headwise, no CSP', null));
    writeFileSync(join(dir, 'strict-csp.html'), page('headwise, strict CSP', CSP));
    writeFileSync(join(dir, 'strict-csp-data.html'), page('headwise, strict CSP, data:', CSP_DATA));
    browser = await chromium.launch(CHROMIUM);
  });

  after(async () => {
    if (browser) await browser.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Opens a page, collecting console errors, page errors and CSP violations.
  async function open(file) {
    const context = await browser.newContext();
    const p = await context.newPage();
    const problems = [];
    p.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.type() + ': ' + m.text());
    });
    p.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
    await p.goto(pathToFileURL(join(dir, file)).href);
    const result = JSON.parse(await p.locator('body[data-result]')
      .getAttribute('data-result', { timeout: 30000 }));
    return { context, page: p, problems, result };
  }

  test('createHeadwise is a global; the lesson\'s numbers; errors are Errors', async () => {
    const { context, page: p, problems, result } = await open('plain.html');
    try {
      assertLessonResult(result);
      assert.equal(await p.evaluate(() => typeof createHeadwise), 'function');
      // The expression from the lesson, evaluated in the page.
      assert.equal(await p.evaluate('createHeadwise().then(h => h.parameterCount(' +
        '{embedDim:8,numHeads:2,bias:false}).total)'), 256);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('under ' + CSP + ': loads and gives the lesson\'s numbers', async () => {
    const { context, result } = await open('strict-csp.html');
    try {
      assertLessonResult(result);
    } finally {
      await context.close();
    }
  });

  test('under ' + CSP + ': no console errors, no CSP violations', async () => {
    const { context, page: p, problems } = await open('strict-csp.html');
    try {
      assert.deepEqual(await p.evaluate(() => window.cspViolations), []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('under ' + CSP_DATA + ': clean, and the lesson\'s numbers', async () => {
    const { context, page: p, problems, result } = await open('strict-csp-data.html');
    try {
      assertLessonResult(result);
      assert.deepEqual(await p.evaluate(() => window.cspViolations), []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
