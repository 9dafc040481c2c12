// One member of a text trainer's team, in a Node worker thread (tests/js/text-trainer.test.mjs):
// the module's trainer made from workerData's options, stepped as web/src/shared/compute/team.js
// steps it in a page's Worker, then its held-out evaluation (lane 0) and its saved model file.
import { parentPort, workerData } from 'node:worker_threads';
import { createRequire } from 'node:module';

import { combineNodes, teamMember } from '../../web/src/shared/compute/team.js';

const hw = await createRequire(import.meta.url)('../../dist/headwise.js')();
const { options, lane, nodes, peers, control } = workerData;
const t = hw.createTextTrainer(options);
const member = teamMember({ lane, nodes, peers, control }, combineNodes);
try {
  const start = performance.now();
  while (t.stepsDone < t.steps) await member.steps(t, Math.min(50, t.steps - t.stepsDone));
  const seconds = (performance.now() - start) / 1000;
  const e = lane === 0 ? t.evaluate() : null;
  parentPort.postMessage({
    seconds, steps: t.steps, stepsDone: t.stepsDone, vocab: t.corpus.vocab, warmStart: t.config.warmStart, baselines: t.baselines,
    evaluation: e && { heldOut: e.heldOut, previousWord: e.heads.previousWord, induction: e.heads.induction, shape: e.heads.typed.induction.shape },
    bytes: t.save(),
  });
} finally {
  member.close();
  t.dispose();
}
