// "Reproduce it in Python", run for real. For each setting, the built page is opened as a student
// opens it; every code block it shows is taken from it with the text under it ("It prints
// (computed on this page)"), run with Debian's NumPy and PyTorch (/usr/bin/python3), and its
// output compared with that text character for character. The embed's "Python (.py)" download
// is run too: it must print the page's boxes one after the other. The blocks include each head's
// circuits (#circuits-numpy, <hw-head-circuits>: ranks and the sum of W_OV). Where more than one
// BLAS is installed (Debian's libblas.so.3 alternatives: reference BLAS, OpenBLAS, …), every
// script runs under each, since the last bits of a product depend on the BLAS and the page's
// text must not.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ENGINE, shareBrowser, withPage } from './helpers.mjs';

/**
 * The Python blocks' text is computed by the page's WebAssembly module, the same in every engine,
 * and their check runs every script under every BLAS: once, in Chromium, is enough. Elsewhere the
 * whole file is skipped, visibly, with that reason.
 */
const ONLY_CHROMIUM = ENGINE === 'chromium' ? {}
  : { skip: `${ENGINE}: the Python output does not depend on the browser; checked in Chromium only` };

/** Debian's interpreter, which sees python3-numpy and python3-torch (not a pyenv one on PATH). */
const PYTHON = process.env.HEADWISE_PYTHON || '/usr/bin/python3';
const here = dirname(fileURLToPath(import.meta.url));

/**
 * The settings, as the lesson's permalinks write them. Together they cover the defaults, bias,
 * a causal mask, 1, 3, 4, 8, 16 and 32 heads, 1 and 16 tokens (NumPy wraps the printed rows),
 * a query token other than 0, and seeds at both ends of the range.
 */
const SETTINGS = [
  '',
  '#seed=42&tokens=6&d_model=12&heads=3&bias=1',
  '#seed=123&tokens=7&d_model=8&heads=4&causal=1',
  '#seed=0&tokens=5&d_model=16&heads=8&query=4',
  '#seed=4294967295&tokens=1&d_model=8&heads=2',
  '#seed=2024&tokens=16&d_model=8&heads=2&causal=1&query=15',
  '#seed=99991&tokens=16&d_model=24&heads=4&bias=1&query=7',
  '#seed=1&tokens=9&d_model=6&heads=1&bias=1&causal=1',
  '#seed=31337&tokens=4&d_model=64&heads=16&bias=1&causal=1&query=3',
  '#seed=5&tokens=3&d_model=32&heads=32',
];

/** Each libblas.so.3 Debian offers here, as a directory to put first on LD_LIBRARY_PATH. */
function blasDirs() {
  let listed = '';
  try {
    const triplet = execFileSync('gcc', ['-dumpmachine'], { encoding: 'utf8' }).trim();
    listed = execFileSync('update-alternatives', ['--list', `libblas.so.3-${triplet}`], { encoding: 'utf8' });
  } catch {
    // No alternatives registered: the one libblas.so.3 the loader finds.
  }
  const dirs = listed.split('\n').filter((p) => p && existsSync(p)).map((p) => dirname(p));
  return dirs.length ? dirs : [null];
}
const BLAS = blasDirs();

let scratch;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'headwise-python-'));
});
after(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

let browser;
let server;
// (No browser is started where every test is skipped.)
if (!ONLY_CHROMIUM.skip) shareBrowser((b, s) => { browser = b; server = s; });

let scriptCount = 0;

/**
 * python-fork.py under one BLAS: one interpreter that has imported NumPy and PyTorch, forking a
 * fresh copy of itself for each script (a python3 start and PyTorch's import cost about 2.5 s
 * of CPU per script, and this file runs about a hundred).
 */
class ForkServer {
  /** @param {string|null} blas */
  constructor(blas) {
    const env = { PATH: '/usr/bin:/bin', HOME: scratch, LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1' };
    if (blas) env.LD_LIBRARY_PATH = blas;
    this.blas = blas;
    this.pending = new Map();
    this.errors = '';
    this.child = spawn(PYTHON, [join(here, 'python-fork.py')], { env, cwd: scratch, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d) => { this.errors += d; });
    let buffered = '';
    this.child.stdout.on('data', (d) => {
      buffered += d;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const reply = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        this.pending.get(reply.id)?.resolve(reply.code);
        this.pending.delete(reply.id);
      }
    });
    this.child.on('exit', (code, signal) => {
      for (const p of this.pending.values()) p.reject(new Error(`python-fork.py (BLAS ${blas ?? 'default'}) ended (${signal || code}): ${this.errors}`));
      this.pending.clear();
      this.gone = true;
    });
  }

  /**
   * Run the script in `file`; its exit code.
   * @param {string} file
   * @returns {Promise<number>}
   */
  run(file) {
    const id = String((scriptCount += 1));
    return new Promise((resolve, reject) => {
      if (this.gone) {
        reject(new Error(`python-fork.py (BLAS ${this.blas ?? 'default'}) has ended: ${this.errors}`));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, file, stdout: `${file}.out`, stderr: `${file}.err` })}\n`);
    });
  }

  /** Ends the server once the scripts it runs have ended. */
  close() {
    this.child.stdin.end();
  }

  /** Ends the server now (one of its scripts failed or hung). */
  kill() {
    this.child.kill('SIGKILL');
  }
}

/** Idle servers by BLAS, and every server started. */
const idle = new Map();
const servers = [];
after(() => { for (const s of servers) s.close(); });

/**
 * Run a script as a student would, saved to a file and run as `python3 file.py`, with one BLAS
 * (in a fork of an interpreter that has imported NumPy and PyTorch: python-fork.py).
 * @param {string} name
 * @param {string} source
 * @param {string|null} blas
 * @returns {Promise<{stdout: string, stderr: string}>}
 */
async function runPython(name, source, blas) {
  // A file of its own: scripts of one setting may still run while the next one's are queued.
  const file = join(scratch, `${name}-${(scriptCount += 1)}.py`);
  await writeFile(file, source);
  const free = idle.get(blas) || [];
  idle.set(blas, free);
  let server = free.pop();
  if (!server) {
    server = new ForkServer(blas);
    servers.push(server);
  }
  let timer;
  try {
    const code = await Promise.race([
      server.run(file),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('took more than 300 s')), 300000); }),
    ]);
    const [stdout, stderr] = await Promise.all([readFile(`${file}.out`, 'utf8'), readFile(`${file}.err`, 'utf8')]);
    if (code !== 0) throw new Error(`exit code ${code}\n${stderr}`);
    free.push(server);
    return { stdout, stderr };
  } catch (e) {
    server.kill();
    throw new Error(`${name} (BLAS ${blas ?? 'default'}) failed: ${e.message}`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Scripts run two at a time (this machine has two cores), each still a process of its own.
 */
let running = 0;
const waiting = [];
/**
 * runPython, queued behind the scripts already running. The promise is marked as handled at
 * once, so that one that fails before its test awaits it is reported by that test, not as an
 * unhandled rejection.
 * @param {string} name
 * @param {string} source
 * @param {string|null} blas
 * @returns {Promise<{stdout: string, stderr: string}>}
 */
function queuePython(name, source, blas) {
  const p = new Promise((resolve, reject) => {
    const start = () => {
      running += 1;
      runPython(name, source, blas).then(resolve, reject).finally(() => {
        running -= 1;
        waiting.shift()?.();
      });
    };
    if (running < 2) start();
    else waiting.push(start);
  });
  p.catch(() => {});
  return p;
}

/**
 * Equal, character for character; on failure, name the first line that differs.
 * @param {string} actual
 * @param {string} expected
 * @param {string} what
 */
function assertSameText(actual, expected, what) {
  if (actual === expected) return;
  const a = actual.split('\n');
  const e = expected.split('\n');
  let i = 0;
  while (i < Math.min(a.length, e.length) && a[i] === e[i]) i += 1;
  assert.fail(`${what}: line ${i + 1} differs\n  python: ${JSON.stringify(a[i])}\n  page:   ${JSON.stringify(e[i])}`);
}

/**
 * Every code block under `root` (a page: all of them but the training script's, whichever section shows them) with the
 * text shown under it.
 * @param {any|import('./engine.mjs').Page} root
 */
function readBlocks(root) {
  // The training scripts' blocks (#python-train, #python-heads) print only once their runs have
  // been trained; tests/browser/train.test.mjs and heads-needed.test.mjs train them and run those
  // blocks in PyTorch, line for line.
  return root.locator('section.hw-code-block:has(pre.hw-code code):not(:has(#python-train)):not(:has(#python-heads))').evaluateAll((sections) => sections.map((s) => ({
    id: s.querySelector('pre.hw-code:not(.hw-code-output)')?.id ?? '',
    title: s.querySelector('h3')?.textContent ?? '',
    code: s.querySelector('pre.hw-code:not(.hw-code-output) code')?.textContent ?? null,
    output: s.querySelector('pre.hw-code-output')?.textContent ?? null,
  })));
}

/**
 * The blocks under `root` once every output is final (none still says it is being computed).
 * @param {any|import('./engine.mjs').Page} root
 */
async function settledBlocks(root) {
  const end = Date.now() + 60000;
  for (;;) {
    const blocks = await readBlocks(root);
    if (blocks.length && blocks.every((b) => b.output && !/^Computing/.test(b.output))) return blocks;
    if (Date.now() > end) return blocks;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The page's unrounded values behind the printed lines: the query row of every head, the pairwise
 * divergences, and max |difference| / max |output| of exercise 3's cross-check.
 * @param {import('./engine.mjs').Page} page
 */
function printedValues(page) {
  return page.evaluate(() => {
    const store = /** @type {any} */ (document.querySelector('hw-controls')).store;
    const run = store.experiment().result;
    const query = Math.min(store.state.query, run.tokens - 1);
    const hw = store.hw;
    const packed = hw.packLessonWeights(run.bias
      ? { wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo, bq: run.bq, bk: run.bk, bv: run.bv, bo: run.bo }
      : { wq: run.wq, wk: run.wk, wv: run.wv, wo: run.wo });
    const options = {
      embedDim: run.dModel, numHeads: run.numHeads, inProjWeight: packed.inProjWeight, outProjWeight: packed.outProjWeight,
      query: run.x, key: run.x, value: run.x, needWeights: false,
    };
    if (run.bias) Object.assign(options, { inProjBias: packed.inProjBias, outProjBias: packed.outProjBias });
    if (run.causal) options.attnMask = run.x.map((_, i) => run.x.map((__, j) => j > i));
    const torch = hw.torchMultiheadAttention(options);
    const zeros = run.output.map((row) => row.map(() => 0));
    return {
      rows: run.headWeights.map((w) => w[query]),
      divergences: run.numHeads >= 2 ? hw.compareHeads({ headWeights: run.headWeights }).map((p) => p.meanJsDivergence) : [],
      residual: hw.maxAbsDiff({ a: torch.attnOutput, b: run.output }) / hw.maxAbsDiff({ a: run.output, b: zeros }),
    };
  });
}

/**
 * How far x lies from the nearest point where rounding it to `unit` would change, in units.
 * @param {number} x
 * @param {number} unit
 */
function fromRoundingEdge(x, unit) {
  const scaled = x / unit;
  return Math.abs(scaled - Math.floor(scaled) - 0.5);
}

/** A permalink as embed.html's query string (it takes the permalink's names). */
const embedUrl = (hash) => `/embed.html?widget=python${hash ? `&${hash.slice(1)}` : ''}`;

for (const hash of SETTINGS) {
  describe(`the Python blocks at ${hash || 'the defaults'}`, ONLY_CHROMIUM, () => {
    let blocks;
    let script;
    let values;
    /** @type {{blocks: Promise<{stdout: string, stderr: string}>[], download: Promise<{stdout: string, stderr: string}>}[]} */
    let runs;

    before(async () => {
      await withPage(browser, server, 'http', hash, async (page) => {
        blocks = await settledBlocks(page);
        values = await printedValues(page);
        // The same settings in the embed, whose "Python (.py)" button saves the whole script.
        await page.goto(server.url(embedUrl(hash)));
        const widget = page.locator('mha-python');
        await widget.locator('hw-python section.hw-code-block').first().waitFor({ timeout: 30000 });
        const embedded = await settledBlocks(widget);
        assert.deepEqual(embedded, blocks.filter((b) => b.id.startsWith('python-')), 'the embed shows the lesson page\'s blocks');
        const file = await page.download(() => widget.locator('button[data-export="py"]').click());
        assert.match(file.name, /^headwise-seed\d+-n\d+-d\d+-h\d+(-bias)?(-causal)?\.py$/);
        script = file.bytes.toString('utf8');
      });
      // Every script under every BLAS, started now and awaited by the tests below.
      runs = BLAS.map((blas, k) => ({
        blocks: blocks.map((b) => queuePython(`${b.id}-${k}`, b.code, blas)),
        download: queuePython(`download-${k}`, script, blas),
      }));
    });

    test('the page shows the NumPy, parameter and PyTorch blocks, each with its output', () => {
      const ids = blocks.map((b) => b.id);
      for (const id of ['python-numpy', 'python-params', 'python-torch', 'circuits-numpy']) assert.ok(ids.includes(id), `${id} is shown`);
      for (const b of blocks) {
        assert.ok(b.code && b.code.length > 100, `${b.id} has code`);
        assert.ok(b.output && b.output.length > 10, `${b.id} has an output`);
      }
    });

    // A match proves little if a printed value could round the other way with another BLAS, whose
    // results differ from these in the last bits (about 1e-16 relative). So every rounded value
    // must lie well away from a rounding edge, and the residual well below its bound.
    test('no printed value is near a rounding edge', () => {
      for (const [head, row] of values.rows.entries()) {
        for (const [key, w] of row.entries()) {
          // np.round(w, 3): the edges are at k/1000 + 0.0005.
          assert.ok(fromRoundingEdge(w, 1e-3) > 1e-9, `head ${head}, key ${key}: ${w} is within 1e-12 of a rounding edge`);
        }
      }
      for (const d of values.divergences) {
        // format(d, '.3g'): the edges are halfway between 3-significant-digit values.
        if (d === 0) continue;
        const unit = 10 ** (Math.floor(Math.log10(d)) - 2);
        assert.ok(fromRoundingEdge(d, unit) > 1e-6, `divergence ${d} is near a rounding edge of 3 significant digits`);
      }
      assert.ok(values.residual < 1e-13, `max |difference| / max |output| is ${values.residual}, not far below 1e-12`);
    });

    for (const [k, blas] of BLAS.entries()) {
      const label = blas ? ` (libblas.so.3 from ${blas})` : '';

      test(`every block prints exactly its box${label}`, async () => {
        for (const [i, b] of blocks.entries()) {
          const { stdout, stderr } = await runs[k].blocks[i];
          assert.equal(stderr, '', `${b.id} writes nothing to stderr`);
          // print() ends every line with a newline; the box shows the lines.
          assertSameText(stdout, `${b.output}\n`, `${b.title}${label}`);
        }
      });

      test(`the downloaded .py prints the three boxes${label}`, async () => {
        const { stdout, stderr } = await runs[k].download;
        assert.equal(stderr, '', 'the script writes nothing to stderr');
        const byId = Object.fromEntries(blocks.map((b) => [b.id, b.output]));
        const expected = `${byId['python-numpy']}\n${byId['python-torch']}\n${byId['python-params']}\n`;
        assertSameText(stdout, expected, `the .py download${label}`);
      });
    }
  });
}
