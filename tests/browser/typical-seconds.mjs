// How long each browser test file typically takes in Firefox ESR and in WebKitGTK, which
// tests/browser/run.mjs uses only to start the longest files first (Chromium's files run one after
// another in the order given). Every tests/browser/*.test.mjs has a figure in each engine
// (tests/js/browser-runner.test.mjs checks it); a file added without one counts as 30 s.

/**
 * Seconds each file took in a whole local CI run (run 23, 2026-12-02, Firefox and WebKit side by
 * side; i18n.test.mjs run alone, under a load of 6). embed-file, h5p, induction, sentence and
 * wcag22 were measured later, on the same 2-core machine under a load of about 20
 * (`HEADWISE_BROWSERS=firefox,webkit node tests/browser/run.mjs` on those five with train and
 * heads-needed), and scaled by the ratio of train's and heads-needed's times in the two runs
 * (0.51 in Firefox, 0.22 in WebKit). path.test.mjs's and circuits.test.mjs's figures are estimates from their tests' own
 * sizes (one page load and reload per test; the long training runs in Chromium only);
 * own-text.test.mjs's are from a whole local CI run (its short runs only in these engines).
 */
export const TYPICAL_SECONDS = {
  firefox: {
    'a11y.test.mjs': 74, 'bad-input.test.mjs': 67, 'compute.test.mjs': 23, 'csp.test.mjs': 36,
    'embed.test.mjs': 20, 'engine.test.mjs': 23, 'exercises.test.mjs': 39, 'heads-needed.test.mjs': 48, 'hosts.test.mjs': 89, 'i18n.test.mjs': 64,
    'load.test.mjs': 36, 'print.test.mjs': 1, 'scorm.test.mjs': 32,
    'injection.test.mjs': 49, 'inplace.test.mjs': 36, 'layout.test.mjs': 58, 'lesson.test.mjs': 49,
    'long-session.test.mjs': 20, 'motion.test.mjs': 31, 'no-worker.test.mjs': 14,
    'python-blocks.test.mjs': 1, 'responsive.test.mjs': 37, 'sandbox.test.mjs': 15,
    'train-on-demand.test.mjs': 35, 'train.test.mjs': 63,
    'embed-file.test.mjs': 8, 'h5p.test.mjs': 11, 'induction.test.mjs': 26, 'sentence.test.mjs': 32, 'wcag22.test.mjs': 20,
    'path.test.mjs': 40, 'circuits.test.mjs': 30, 'own-text.test.mjs': 39,
  },
  webkit: {
    'a11y.test.mjs': 132, 'bad-input.test.mjs': 73, 'compute.test.mjs': 9, 'csp.test.mjs': 43,
    'embed.test.mjs': 36, 'engine.test.mjs': 15, 'exercises.test.mjs': 56, 'heads-needed.test.mjs': 93, 'hosts.test.mjs': 70, 'i18n.test.mjs': 82,
    'load.test.mjs': 35, 'print.test.mjs': 1, 'scorm.test.mjs': 21,
    'injection.test.mjs': 38, 'inplace.test.mjs': 44, 'layout.test.mjs': 60, 'lesson.test.mjs': 55,
    'long-session.test.mjs': 37, 'motion.test.mjs': 30, 'no-worker.test.mjs': 12,
    'python-blocks.test.mjs': 1, 'responsive.test.mjs': 51, 'sandbox.test.mjs': 16,
    'train-on-demand.test.mjs': 27, 'train.test.mjs': 54,
    'embed-file.test.mjs': 4, 'h5p.test.mjs': 6, 'induction.test.mjs': 23, 'sentence.test.mjs': 25, 'wcag22.test.mjs': 22,
    'path.test.mjs': 45, 'circuits.test.mjs': 30, 'own-text.test.mjs': 122,
  },
};
