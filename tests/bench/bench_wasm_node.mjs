// build/wasm/headwise-bench.js (dist/headwise.js plus the benchmark's hooks) in Node, timed by
// wasm_bench.js. Line protocol (stdin -> stdout) as
// bench_native.cpp's, with the timing mode last:
//   info                                       -> {"impl":"wasm", ...}
//   time <n> <d> <h> <samples> <batch> core|api -> {"times_ms":[...], "check":{...}}
//   quit
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import {createInterface} from 'node:readline';
import {fileURLToPath} from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const createHeadwise = require(join(root, 'build', 'wasm', 'headwise-bench.js'));
const bench = await require('./wasm_bench.js').setup(createHeadwise);

const lines = createInterface({input: process.stdin});
for await (const line of lines) {
  const [op, ...args] = line.trim().split(/\s+/);
  if (op === 'quit') break;
  let reply;
  try {
    if (op === 'info') {
      reply = bench.info();
    } else if (op === 'time') {
      const [n, d, h, samples, batch] = args.slice(0, 5).map(Number);
      reply = bench.time(n, d, h, samples, batch, args[5] || 'core');
    } else {
      reply = {error: 'unknown command'};
    }
  } catch (e) {
    reply = {error: String(e && e.message || e)};
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
}
process.exit(0);
