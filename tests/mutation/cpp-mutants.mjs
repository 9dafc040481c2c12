// Mutation testing of the C++ core: how many wrong versions of cpp/headwise/*.cpp does the
// Catch2 suite catch?
//
//   node tests/mutation/cpp-mutants.mjs [--files gemm,attention] [--limit N] [--jobs N]
//                                       [--list] [--no-asan] [--record] [--survivors] [--resume]
//                                       [--keep-reviewed]
//   (npm run test:mutation)
//
// 1. Mutants. Every cpp/headwise/*.cpp (new files are picked up by themselves) is scanned with
//    its comments, string and character literals, preprocessor lines, asserts and throw
//    expressions (the messages) blanked out, and one-place changes are made:
//      boundary   <  <=  >  >=  swapped for their neighbour (< for <=, ...)
//      relational == for != and back
//      arithmetic + - * / swapped (+ for -, * for /, ...; also +=, -=, *=, /=)
//      constant   a number n becomes n + 1
//      statement  an expression statement (assignment, call, continue, break) deleted
//      negation   the condition of an if or while negated
//    Binary operators are recognised by the spaces around them (the code is clang-formatted),
//    which keeps template brackets, pointers and unary minus out. The list is deterministic:
//    file by file in name order, then by position.
// 2. Builds. The sources are copied once into build/mutation/src and built there twice, a
//    native Release tree and an AddressSanitizer tree (the asan preset's flags). The worktree's
//    files are never written. A mutant is one recompiled object (the tree's own compile
//    command, on a mutated copy) and one relink of the Catch2 binary into a per-job directory.
//    An object identical to the unmutated one is "equivalent (same object code)": the
//    compiler proved the change changes nothing, and no test is run.
// 3. Tests. The Catch2 binary (what ctest runs, test by test) runs with --abort and a timeout;
//    a failure, crash or timeout kills the mutant (test cases tagged as one file's own, see
//    OWN_TESTS, run only for that file's mutants). A mutant that survives and touches memory
//    indexing (gemm.cpp, or a line with [], data, pointers, load/store, fill, a loop bound
//    rows() / cols() / size(), or the bound, start or step of any for or while loop) is run again
//    under AddressSanitizer + UBSan.
// 4. Review. Survivors that are truly equivalent are listed once, with the reason, in
//    tests/mutation/equivalent-cpp.json ({file, line, mutation, reason}: the line's text, so
//    that entries follow the code when lines move). The score counts only mutants that could
//    be killed: killed / (all - not built - equivalent). Entries that match no mutant any
//    more are reported as stale.
// Output: the score per file and every survivor; build/mutation/result.json; with --record
// also tests/mutation/last-result-cpp.txt.
import {spawn} from 'node:child_process';
import {createHash} from 'node:crypto';
import {
  existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import {cpus} from 'node:os';
import {basename, dirname, join, relative} from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORK = join(ROOT, 'build', 'mutation');
const SRC = join(WORK, 'src');
const EQUIVALENT_FILE = join(ROOT, 'tests', 'mutation', 'equivalent-cpp.json');
const RECORD_FILE = join(ROOT, 'tests', 'mutation', 'last-result-cpp.txt');

// ---- options ----------------------------------------------------------------------------------

function parseArgs(argv) {
  const o = {files: null, limit: Infinity, jobs: 2, list: false, asan: true, record: false,
             survivors: false, resume: false, keepReviewed: false};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--files') o.files = value().split(',').map((f) => basename(f).replace(/\.cpp$/, ''));
    else if (a === '--limit') o.limit = positive(a, value());
    else if (a === '--jobs') o.jobs = positive(a, value());
    else if (a === '--list') o.list = true;
    else if (a === '--no-asan') o.asan = false;
    else if (a === '--record') o.record = true;
    else if (a === '--survivors') o.survivors = true;
    else if (a === '--resume') o.resume = true;
    else if (a === '--keep-reviewed') o.keepReviewed = true;
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown option ${a}`);
  }
  return o;
}

function positive(name, text) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) usage(`${name} must be a positive integer, got ${text}`);
  return n;
}

function usage(error) {
  if (error) console.error(`cpp-mutants: ${error}`);
  console.error('usage: node tests/mutation/cpp-mutants.mjs [--files a,b] [--limit N] ' +
                '[--jobs N] [--list] [--no-asan] [--record] [--survivors [--keep-reviewed]] [--resume]');
  process.exit(error ? 2 : 0);
}

// ---- scanning ---------------------------------------------------------------------------------

// The source with comments, string/char literals and preprocessor lines replaced by spaces
// (newlines kept, so offsets and line numbers are the original's); strings marks where the
// literals were.
function codeView(text) {
  const out = text.split('');
  const strings = new Uint8Array(text.length);
  let i = 0;
  const blank = (from, to, isString) => {
    for (let k = from; k < to; k++) {
      if (out[k] !== '\n') out[k] = ' ';
      if (isString) strings[k] = 1;
    }
  };
  let lineStart = true;
  while (i < text.length) {
    const c = text[i];
    if (lineStart && /^[ \t]*#/.test(text.slice(i, text.indexOf('\n', i) + 1 || undefined))) {
      let end = i;
      do {  // continuation lines
        end = text.indexOf('\n', end);
        if (end < 0) end = text.length;
        else if (text[end - 1] === '\\') end++;
        else break;
      } while (end < text.length);
      blank(i, end, false);
      i = end;
      continue;
    }
    lineStart = c === '\n';
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      blank(i, end < 0 ? text.length : end, false);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2) + 2;
      blank(i, end, false);
      i = end;
    } else if (c === '"' || c === '\'') {
      let k = i + 1;
      while (k < text.length && text[k] !== c) k += text[k] === '\\' ? 2 : 1;
      blank(i, k + 1, true);
      i = k + 1;
    } else {
      i++;
    }
  }
  return {code: out.join(''), strings};
}

// Index of the bracket matching the one at open (same kind), or -1.
function matching(code, open) {
  const pairs = {'(': ')', '[': ']', '{': '}'};
  const close = pairs[code[open]];
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === code[open]) depth++;
    else if (code[i] === close && --depth === 0) return i;
  }
  return -1;
}

// Ranges [from, to) that are never mutated: throw expressions (their messages), assert and
// static_assert calls.
function excludedRanges(code) {
  const ranges = [];
  for (const m of code.matchAll(/\bthrow\b/g)) {
    let depth = 0;
    let i = m.index;
    for (; i < code.length; i++) {
      if (code[i] === '(') depth++;
      else if (code[i] === ')') depth--;
      else if (code[i] === ';' && depth === 0) break;
    }
    ranges.push([m.index, i + 1]);
  }
  for (const m of code.matchAll(/\b(static_assert|assert)\s*\(/g)) {
    ranges.push([m.index, matching(code, m.index + m[0].length - 1) + 1]);
  }
  return ranges;
}

// Top-level statements: [from, to] with code[to] === ';', split at ; { } outside parentheses.
function statements(code) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (depth === 0 && (c === '{' || c === '}')) start = i + 1;
    else if (depth === 0 && c === ';') {
      out.push([start, i]);
      start = i + 1;
    }
  }
  return out;
}

const BOUNDARY = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'};
const RELATIONAL = {'==': '!=', '!=': '=='};
const ARITHMETIC = {
  '+': '-', '-': '+', '*': '/', '/': '*', '%': '*', '+=': '-=', '-=': '+=', '*=': '/=', '/=': '*=',
};

// Every mutant of one file: {file, offset, length, replacement, operator, from, to}.
function mutantsOf(file, text) {
  const {code, strings} = codeView(text);
  const excluded = excludedRanges(code);
  const inExcluded = (at) => excluded.some(([a, b]) => at >= a && at < b);
  const stmts = statements(code);
  const statementAt = (at) => stmts.find(([a, b]) => at >= a && at <= b);
  const hasString = ([a, b]) => strings.subarray(a, b).some((x) => x === 1);
  const found = [];
  const add = (offset, original, replacement, operator) => {
    if (inExcluded(offset)) return;
    found.push({file, offset, length: original.length, original, replacement, operator});
  };

  // Binary operators, recognised by a space on each side.
  for (const m of code.matchAll(/(?<= )(<=|>=|==|!=|\+=|-=|\*=|\/=|<|>|\+|-|\*|\/|%)(?= )/g)) {
    const op = m[1];
    if (BOUNDARY[op]) add(m.index, op, BOUNDARY[op], 'boundary');
    if (RELATIONAL[op]) add(m.index, op, RELATIONAL[op], 'relational');
    if (ARITHMETIC[op]) {
      // String concatenation (a message) cannot be subtracted: skip statements with literals.
      const s = statementAt(m.index);
      if (op === '+' && s && hasString(s)) continue;
      add(m.index, op, ARITHMETIC[op], 'arithmetic');
    }
  }
  // Numbers: n -> n + 1, suffixes kept.
  for (const m of code.matchAll(/(?<![\w.])(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)([uUlLfF]*)(?![\w.])/g)) {
    const [whole, digits, suffix] = m;
    let next;
    if (/^\d+$/.test(digits)) next = String(BigInt(digits) + 1n);
    else {
      next = String(Number(digits) + 1);
      if (!/[.eE]/.test(next)) next += '.0';
    }
    add(m.index, whole, next + suffix, 'constant');
  }
  // Conditions of if and while, negated.
  for (const m of code.matchAll(/\b(if|while)\s*\(/g)) {
    const open = m.index + m[0].length - 1;
    const close = matching(code, open);
    if (close < 0) continue;
    const cond = text.slice(open + 1, close);
    add(open + 1, cond, `!(${cond})`, 'negation');
  }
  // Expression statements (assignments, calls, continue, break), deleted.
  for (const [from, to] of stmts) {
    let begin = from;
    // Skip the header of if / for / while / else that owns an unbraced statement.
    for (;;) {
      const rest = code.slice(begin, to);
      const head = /^\s*(?:else\s+)?(if|for|while)\s*\(/.exec(rest);
      if (head) {
        const close = matching(code, begin + head[0].length - 1);
        if (close < 0 || close > to) break;
        begin = close + 1;
        continue;
      }
      const els = /^\s*else\b/.exec(rest);
      if (els) {
        begin += els[0].length;
        continue;
      }
      break;
    }
    const body = code.slice(begin, to).trim();
    if (!body) continue;
    const assignment = /^[\w.:>\-\[\]()*]+(?:\s*\[[^\]]*\])?\s*(?:=|\+=|-=|\*=|\/=|\|=|&=)\s/.test(body) &&
                       !/^[\w:]+\s+[\w]/.test(body);
    const call = /^[\w.:>\-]+(?:<[^;]*>)?\s*\(/.test(body) && /\)$/.test(body) &&
                 !/^(return|delete|new)\b/.test(body);
    const jump = /^(continue|break)$/.test(body);
    if (!(assignment || call || jump)) continue;
    const offset = begin + (code.slice(begin, to).length - code.slice(begin, to).trimStart().length);
    add(offset, text.slice(offset, to + 1), '{}', 'statement');
  }
  found.sort((a, b) => a.offset - b.offset || a.operator.localeCompare(b.operator));
  // Where the mutant is, and how to name it stably (the line's text, not its number).
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const counts = new Map();
  for (const mu of found) {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1] <= mu.offset) line++;
    mu.line = line + 1;
    mu.column = mu.offset - lineStarts[line] + 1;
    mu.lineText = text.slice(lineStarts[line], (lineStarts[line + 1] ?? text.length + 1) - 1).trim();
    const shortFrom = mu.original.replace(/\s+/g, ' ');
    mu.mutation = `${shortFrom.length > 40 ? shortFrom.slice(0, 40) + '…' : shortFrom} -> ` +
                  `${mu.replacement.length > 40 ? '(negated)' : mu.replacement}`;
    const key = `${mu.lineText}\u0000${mu.mutation}`;
    const seen = counts.get(key) ?? 0;
    counts.set(key, seen + 1);
    mu.occurrence = seen + 1;  // the same change on the same line text, counted
    mu.id = `${file}:${mu.line}:${mu.column}:${mu.operator}`;
    // A loop's bound or start usually indexes the lines below it (which the line's own text
    // does not show): those count as memory mutants too.
    mu.memory = file === 'gemm.cpp' ||
                /\[|\bdata\b|\.data\(\)|\bload\(|\bstore\(|std::fill|memcpy|\b(src|dst|out|row|tail|p)\b|\.(rows|cols|size)\(\)/.test(mu.lineText) ||
                (/^(for|while) \(/.test(mu.lineText) && (mu.operator === 'boundary' || mu.operator === 'constant' || mu.operator === 'arithmetic'));
  }
  return found;
}

// ---- processes --------------------------------------------------------------------------------

let stopping = false;
const running = new Set();

function run(cmd, args, {cwd = ROOT, timeout = 0, env = process.env} = {}) {
  return new Promise((resolve) => {
    if (stopping) return resolve({code: -1, output: 'stopped'});
    const child = spawn(cmd, args, {cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true});
    running.add(child);
    let output = '';
    const keep = (d) => {
      output += d;
      if (output.length > 200000) output = output.slice(-100000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = timeout ? setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch {}
    }, timeout) : null;
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      running.delete(child);
      resolve({code: code ?? -1, signal, timedOut, output});
    });
  });
}

function stopAll() {
  stopping = true;
  for (const child of running) {
    try { process.kill(-child.pid, 'SIGKILL'); } catch {}
  }
}
// Ctrl-C (or SIGTERM) stops the run; the mutants finished so far are reported as usual.
let onStop = () => process.exit(130);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.error(`\ncpp-mutants: ${signal}: stopping; the worktree was never modified`);
    stopAll();
    onStop();
  });
}

async function must(cmd, args, opts) {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    console.error(r.output.slice(-4000));
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.code})`);
  }
  return r;
}

// Splits a shell command line as CMake writes them (no quoting beyond plain words expected;
// quoted words are kept together).
function words(line) {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]);
}

// ---- the build trees --------------------------------------------------------------------------

const TREES = {
  native: {dir: join(WORK, 'native'), args: ['-DCMAKE_BUILD_TYPE=Release']},
  asan: {
    dir: join(WORK, 'asan'),
    args: [
      '-DCMAKE_BUILD_TYPE=Debug',
      '-DCMAKE_CXX_FLAGS=-O1 -fsanitize=address,undefined -fno-sanitize-recover=all ' +
          '-fno-omit-frame-pointer -g',
      '-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined',
      '-DHEADWISE_WERROR=OFF',
    ],
    env: {ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=1',
          UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1'},
  },
};

// A snapshot of the sources: edits to the worktree during a run change nothing here. Only
// files whose content differs are written (and stale ones removed), so that the trees rebuild
// incrementally from one run to the next.
function sync(from, to) {
  if (statSync(from).isDirectory()) {
    mkdirSync(to, {recursive: true});
    const names = readdirSync(from);
    for (const name of readdirSync(to)) {
      if (!names.includes(name)) rmSync(join(to, name), {recursive: true, force: true});
    }
    for (const name of names) sync(join(from, name), join(to, name));
  } else {
    const content = readFileSync(from);
    mkdirSync(dirname(to), {recursive: true});  // a first run has no build/mutation/src yet
    if (!existsSync(to) || !readFileSync(to).equals(content)) writeFileSync(to, content);
  }
}

function copySources() {
  // Everything the CMakeLists.txt configures without options (cpp/tools's tools too).
  for (const part of ['CMakeLists.txt', 'cpp', join('tests', 'cpp'), join('tests', 'fixtures'),
                      join('tests', 'train')]) {
    sync(join(ROOT, part), join(SRC, part));
  }
}

async function prepareTree(name, jobs) {
  const t = TREES[name];
  await must('cmake', ['-S', SRC, '-B', t.dir, '-DCMAKE_EXPORT_COMPILE_COMMANDS=ON', ...t.args]);
  await must('cmake', ['--build', t.dir, '--target', 'headwise_tests', '-j', String(jobs)]);
  const commands = JSON.parse(readFileSync(join(t.dir, 'compile_commands.json'), 'utf8'));
  t.compile = new Map();
  for (const c of commands) {
    if (!c.file.startsWith(join(SRC, 'cpp', 'headwise') + '/')) continue;
    const argv = c.arguments ?? words(c.command);
    t.compile.set(basename(c.file), {dir: c.directory, argv, object: join(c.directory, objectOf(argv))});
  }
  // The test binary's link line, with the core library replaced by its objects.
  const link = words(readFileSync(join(t.dir, 'CMakeFiles', 'headwise_tests.dir', 'link.txt'), 'utf8')
                        .split('\n')[0]);
  t.link = link;
  t.binary = join(t.dir, 'headwise_tests');
  t.objects = new Map([...t.compile].map(([file, c]) => [file, readFileSync(c.object)]));
}

function objectOf(argv) {
  return argv[argv.indexOf('-o') + 1];
}

// argv with -o and the source file replaced, without -Werror: a mutant that only draws a
// warning (a variable it left unused) is still a program the tests must catch.
function compileArgs(c, source, object) {
  const argv = c.argv.filter((a) => a !== '-Werror');
  argv[argv.indexOf('-o') + 1] = object;
  const at = argv.indexOf('-c');
  argv[at + 1] = source;
  return argv;
}

function linkArgs(t, replaced, object, binary) {
  const out = [];
  const argv = t.link;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '-o') {
      out.push('-o', binary);
      i++;
    } else if (/libheadwise_core\.a$/.test(argv[i])) {
      for (const [file, c] of t.compile) out.push(file === replaced ? object : c.object);
    } else {
      out.push(argv[i]);
    }
  }
  return out;
}

// ---- one mutant -------------------------------------------------------------------------------

async function build(t, slot, mu, text) {
  const dir = join(WORK, 'jobs', `${slot}-${t === TREES.asan ? 'asan' : 'native'}`);
  mkdirSync(join(dir, 'cpp', 'headwise'), {recursive: true});
  const source = join(dir, 'cpp', 'headwise', mu.file);  // same name: same object when equal
  writeFileSync(source, text);
  const object = join(dir, mu.file + '.o');
  const c = t.compile.get(mu.file);
  const compiled = await run(c.argv[0], compileArgs(c, source, object).slice(1), {cwd: c.dir});
  if (compiled.code !== 0) return {built: false, output: compiled.output};
  const same = Buffer.compare(readFileSync(object), t.objects.get(mu.file)) === 0;
  if (same) return {built: true, same};
  const binary = join(dir, 'headwise_tests');
  const linked = await run(t.link[0], linkArgs(t, mu.file, object, binary).slice(1), {cwd: t.dir});
  if (linked.code !== 0) return {built: false, output: linked.output};
  return {built: true, same: false, binary};
}

// Test cases that exercise one source file alone, by tag: a mutant elsewhere cannot change what
// they check, so they are skipped for it. The formatter's ([format], number_string in shape.cpp,
// which calls nothing outside that file) compare 200,000 values with glibc and take most of the
// suite's time.
const OWN_TESTS = {'[format]': 'shape.cpp'};

async function test(t, binary, timeout, file = null) {
  const skip = Object.entries(OWN_TESTS).filter(([, f]) => file !== null && f !== file).map(([tag]) => `~${tag}`);
  const r = await run(binary, ['--abort', ...(skip.length ? [skip.join('')] : [])], {
    cwd: t.dir, timeout, env: {...process.env, ...(t.env ?? {})},
  });
  if (r.timedOut) return {passed: false, how: 'timeout'};
  if (r.code === 0) return {passed: true};
  const failed = /^(.*\.cpp:\d+): FAILED:/m.exec(r.output) ?? /^(\S.*)\n-{10,}/m.exec(r.output);
  const sanitizer = /ERROR: AddressSanitizer: ([\w-]+)|runtime error: ([^\n]+)/.exec(r.output);
  return {
    passed: false,
    how: sanitizer ? `sanitizer: ${sanitizer[1] ?? sanitizer[2]}` :
         r.signal ? `signal ${r.signal}` : 'test failed',
    where: failed ? basename(failed[1]) : '',
  };
}

async function evaluate(mu, slot, sources, opts, timeouts) {
  const text = sources.get(mu.file);
  const mutated = text.slice(0, mu.offset) + mu.replacement + text.slice(mu.offset + mu.length);
  const started = Date.now();
  const nat = await build(TREES.native, slot, mu, mutated);
  if (!nat.built) return {status: 'not built', ms: Date.now() - started};
  if (nat.same) return {status: 'equivalent', how: 'same object code', ms: Date.now() - started};
  const r = await test(TREES.native, nat.binary, timeouts.native, mu.file);
  if (!r.passed) return {status: 'killed', how: r.how, where: r.where, ms: Date.now() - started};
  if (opts.asan && mu.memory) {
    const a = await build(TREES.asan, slot, mu, mutated);
    if (a.built && !a.same) {
      const ra = await test(TREES.asan, a.binary, timeouts.asan, mu.file);
      if (!ra.passed) {
        return {status: 'killed', how: `asan lane: ${ra.how}`, where: ra.where,
                ms: Date.now() - started};
      }
    }
  }
  return {status: 'survived', ms: Date.now() - started};
}

// ---- report -----------------------------------------------------------------------------------

function loadEquivalents() {
  if (!existsSync(EQUIVALENT_FILE)) return [];
  const list = JSON.parse(readFileSync(EQUIVALENT_FILE, 'utf8'));
  for (const e of list) {
    if (!e.file || !e.line || !e.mutation || !e.reason) {
      throw new Error(`${relative(ROOT, EQUIVALENT_FILE)}: every entry needs file, line, ` +
                      `mutation and reason: ${JSON.stringify(e)}`);
    }
  }
  return list;
}

function matchesEntry(mu, e) {
  return e.file === mu.file && e.line === mu.lineText && e.mutation === mu.mutation &&
         (e.occurrence ?? 1) === mu.occurrence;
}

// User + system time of every finished child process (the CPU the run took, whatever else
// the machine was doing): fields cutime and cstime of /proc/self/stat, in clock ticks.
function childCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

function pct(killed, killable) {
  return killable ? `${(100 * killed / killable).toFixed(1)} %` : '-';
}

function report(mutants, results, equivalents, opts, seconds, generated) {
  const lines = [];
  const byFile = new Map();
  for (const mu of mutants) {
    const r = results.get(mu.id);
    if (!r) continue;
    const f = byFile.get(mu.file) ?? {total: 0, killed: 0, survived: 0, notBuilt: 0, same: 0,
                                      reviewed: 0};
    f.total++;
    if (r.status === 'killed') f.killed++;
    else if (r.status === 'not built') f.notBuilt++;
    else if (r.status === 'equivalent') f.same++;
    else if (r.status === 'reviewed') f.reviewed++;
    else f.survived++;
    byFile.set(mu.file, f);
  }
  const all = {total: 0, killed: 0, survived: 0, notBuilt: 0, same: 0, reviewed: 0};
  lines.push('file               mutants  killed  survived  not built  equivalent  killable  score');
  const row = (name, f) => {
    const killable = f.killed + f.survived;
    lines.push(`${name.padEnd(18)} ${String(f.total).padStart(7)} ${String(f.killed).padStart(7)} ` +
               `${String(f.survived).padStart(9)} ${String(f.notBuilt).padStart(10)} ` +
               `${`${f.same}+${f.reviewed}`.padStart(11)} ${String(killable).padStart(9)}  ` +
               `${pct(f.killed, killable)}`);
  };
  for (const [file, f] of [...byFile].sort()) {
    row(file, f);
    for (const k of Object.keys(all)) all[k] += f[k];
  }
  row('all', all);
  lines.push('(equivalent: same object code + reviewed in tests/mutation/equivalent-cpp.json)');
  const survivors = mutants.filter((mu) => results.get(mu.id)?.status === 'survived');
  lines.push('', `survivors (${survivors.length}):`);
  for (const mu of survivors) {
    lines.push(`  ${mu.file}:${mu.line}:${mu.column} [${mu.operator}] ${mu.mutation}` +
               `${mu.occurrence > 1 ? ` (#${mu.occurrence})` : ''}`);
    lines.push(`      ${mu.lineText}`);
  }
  const tested = mutants.filter((mu) => results.has(mu.id));
  // Stale: no mutant the generator makes now matches the entry (a sample need not test it).
  const stale = equivalents.filter((e) => !generated.some((mu) => matchesEntry(mu, e)) &&
                                          (!opts.files || opts.files.includes(e.file.replace(/\.cpp$/, ''))));
  if (stale.length) {
    lines.push('', `stale entries in equivalent-cpp.json (match no mutant; update them): ${stale.length}`);
    for (const e of stale) lines.push(`  ${e.file}: ${e.line}  ${e.mutation}`);
  }
  lines.push('', `${opts.survivors ? `${opts.retested} survivors of ${tested.length}` : tested.length} ` +
             `mutants ${opts.survivors ? 're-tested' : ''} in ${Math.round(seconds)} s of real time, ` +
             `${Math.round(childCpuSeconds())} s of CPU time in compilers, linkers and tests ` +
             `(${opts.jobs} jobs${opts.asan ? ', ASan for surviving memory mutants' : ', no ASan'})`);
  return {text: lines.join('\n'), all};
}

// ---- main -------------------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const dir = join(ROOT, 'cpp', 'headwise');
  let files = readdirSync(dir).filter((f) => f.endsWith('.cpp')).sort();
  if (opts.files) {
    const unknown = opts.files.filter((f) => !files.includes(`${f}.cpp`));
    if (unknown.length) usage(`no cpp/headwise/${unknown[0]}.cpp`);
    files = files.filter((f) => opts.files.includes(f.replace(/\.cpp$/, '')));
  }
  const sources = new Map(files.map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
  const generated = files.flatMap((f) => mutantsOf(f, sources.get(f)));
  let mutants = generated;
  // --survivors: the mutants of the last run (build/mutation/result.json), of which only the
  // survivors are tested again (e.g. after adding tests); the others keep their result.
  // (--keep-reviewed: survivors listed in equivalent-cpp.json keep their result too.)
  // --resume: the same, but every mutant generated now is in the run, and only those without a
  // result in build/mutation/result.json are tested (a run that was stopped, or one file at a
  // time); with --survivors as well, the survivors are tested again too.
  const previous = new Map();
  if (opts.survivors || opts.resume) {
    const file = join(WORK, 'result.json');
    const last = existsSync(file) || !opts.resume ? JSON.parse(readFileSync(file, 'utf8')) : [];
    const key = (m) => `${m.file}\u0000${m.line}\u0000${m.mutation}\u0000${m.occurrence}`;
    const byKey = new Map(last.map((m) => [key(m), m]));
    if (!opts.resume) mutants = mutants.filter((mu) => byKey.has(key({...mu, line: mu.lineText})));
    for (const mu of mutants) {
      const m = byKey.get(key({...mu, line: mu.lineText}));
      if (!m) continue;
      if (!opts.survivors || (m.status !== 'survived' && (opts.keepReviewed || m.status !== 'reviewed'))) {
        previous.set(mu.id, {status: m.status, how: m.how, where: m.where, ms: m.ms});
      }
    }
  }
  if (opts.limit < mutants.length) {
    // An even spread over the whole list, still deterministic.
    const step = mutants.length / opts.limit;
    mutants = Array.from({length: opts.limit}, (_, i) => mutants[Math.floor(i * step)]);
  }
  if (opts.list) {
    for (const mu of mutants) {
      console.log(`${mu.id} ${mu.memory ? 'mem ' : ''}${mu.mutation}\n    ${mu.lineText}`);
    }
    console.log(`${mutants.length} mutants`);
    return;
  }
  const equivalents = loadEquivalents();
  // Carried-over survivors follow today's review file.
  for (const mu of mutants) {
    const r = previous.get(mu.id);
    if (!r || (r.status !== 'survived' && r.status !== 'reviewed')) continue;
    const reviewed = equivalents.find((e) => matchesEntry(mu, e));
    previous.set(mu.id, reviewed ? {...r, status: 'reviewed', reason: reviewed.reason}
                                 : {...r, status: 'survived', reason: undefined});
  }
  const t0 = Date.now();
  console.log(`cpp-mutants: ${mutants.length} mutants in ${files.length} files; ` +
              `building the trees in ${relative(ROOT, WORK)}/`);
  mkdirSync(WORK, {recursive: true});
  copySources();
  await prepareTree('native', opts.jobs);
  if (opts.asan) await prepareTree('asan', opts.jobs);
  // Baselines: the unmutated suite must pass; a mutant gets 4x its time (+ 20 s) before it
  // counts as hanging.
  const timeouts = {};
  for (const name of opts.asan ? ['native', 'asan'] : ['native']) {
    const t = TREES[name];
    const s = Date.now();
    const r = await test(t, t.binary, 0);
    if (!r.passed) throw new Error(`the unmutated ${name} suite fails; fix it first`);
    timeouts[name] = 4 * (Date.now() - s) + 20000;
    console.log(`cpp-mutants: ${name} suite passes in ${((Date.now() - s) / 1000).toFixed(1)} s`);
  }
  console.log(`cpp-mutants: set-up took ${Math.round((Date.now() - t0) / 1000)} s`);

  const results = new Map(previous);
  // Tested in a fixed pseudo-random order (by a hash of each id), so that a run stopped early
  // has still sampled every file; reported in file order.
  const hash = (mu) => createHash('sha1').update(mu.id).digest('hex');
  const order = mutants.filter((mu) => !results.has(mu.id))
                      .sort((a, b) => (hash(a) < hash(b) ? -1 : 1));
  opts.retested = order.length;
  let next = 0;
  let done = 0;
  const saveResults = () => {
    writeFileSync(join(WORK, 'result.json'), JSON.stringify(mutants.filter((mu) => results.has(mu.id))
      .map((mu) => ({id: mu.id, file: mu.file, line: mu.lineText, mutation: mu.mutation,
                     occurrence: mu.occurrence, operator: mu.operator, ...results.get(mu.id)})),
    null, 1));
  };
  const finish = () => {
    process.stdout.write('\n');
    const seconds = (Date.now() - t0) / 1000;
    const {text, all} = report(mutants, results, equivalents, opts, seconds, generated);
    const wronglyListed = mutants.filter((mu) => results.get(mu.id)?.note);
    let out = text;
    if (results.size < mutants.length) {
      out += `\n\nstopped early: ${results.size} of ${mutants.length} mutants tested`;
    }
    if (wronglyListed.length) {
      out += '\n\nlisted as equivalent but killed (remove from equivalent-cpp.json):\n' +
             wronglyListed.map((mu) => `  ${mu.file}: ${mu.lineText}  ${mu.mutation}`).join('\n');
    }
    console.log(out);
    saveResults();
    if (opts.record) {
      const header = `# node tests/mutation/cpp-mutants.mjs ${process.argv.slice(2).join(' ')}\n` +
                     `# ${new Date().toISOString().slice(0, 16)} UTC, ${cpus().length} cores, ` +
                     `sources ${createHash('sha256').update([...sources.values()].join('')).digest('hex').slice(0, 12)}\n`;
      writeFileSync(RECORD_FILE, header + out + '\n');
    }
    const killable = all.killed + all.survived;
    return killable && all.killed / killable >= 0.95 ? 0 : 1;
  };
  onStop = () => process.exit(finish() === 0 ? 130 : 130);
  const worker = async (slot) => {
    while (next < order.length && !stopping) {
      const mu = order[next++];
      const reviewed = equivalents.find((e) => matchesEntry(mu, e));
      let r = await evaluate(mu, slot, sources, opts, timeouts);
      if (r.status === 'survived' && reviewed) r = {...r, status: 'reviewed', reason: reviewed.reason};
      if (r.status === 'killed' && reviewed) {
        r.note = 'listed as equivalent but killed: remove the entry';
      }
      if (stopping) break;  // a stopped run's last results are not results
      results.set(mu.id, r);
      done++;
      const mark = {killed: '.', survived: 'S', 'not built': 'x', equivalent: '=', reviewed: 'r'};
      process.stdout.write(mark[r.status] + (done % 80 === 0 ? ` ${done}\n` : ''));
      if (done % 20 === 0) saveResults();  // what a killed run keeps for --resume
    }
  };
  await Promise.all(Array.from({length: opts.jobs}, (_, i) => worker(i)));
  process.exitCode = finish();
}

main().catch((e) => {
  stopAll();
  console.error(`cpp-mutants: ${e.message}`);
  process.exit(2);
});
