// How long each browser test file typically takes in each engine, which tests/browser/run.mjs
// uses only to start the longest files first. Every tests/browser/*.test.mjs has a figure in each
// engine (tests/js/browser-runner.test.mjs checks it); a file added without one counts as 30 s.

/**
 * Seconds each file took in one whole clean-clone CI run (`CI=true bash .ci/run`, 2-core machine):
 * Chromium's files one at a time, Firefox's and WebKit's two at a time from one queue. Only their
 * order matters; a file that now shares the queue takes longer than it did alone.
 */
export const TYPICAL_SECONDS = {
  chromium: {
    'a11y.test.mjs': 60, 'bad-input.test.mjs': 50, 'circuits.test.mjs': 8, 'compute.test.mjs': 6,
    'csp.test.mjs': 13, 'embed-file.test.mjs': 4, 'embed.test.mjs': 8, 'engine.test.mjs': 4,
    'exercises.test.mjs': 22, 'h5p.test.mjs': 4, 'heads-needed.test.mjs': 54, 'hosts.test.mjs': 35,
    'i18n.test.mjs': 42, 'induction.test.mjs': 45, 'injection.test.mjs': 24, 'inplace.test.mjs': 34,
    'layout.test.mjs': 21, 'lesson.test.mjs': 26, 'load.test.mjs': 28, 'long-session.test.mjs': 19,
    'motion.test.mjs': 8, 'no-worker.test.mjs': 4, 'own-text.test.mjs': 106, 'path.test.mjs': 18,
    'print.test.mjs': 6, 'python-blocks.test.mjs': 14, 'responsive.test.mjs': 11,
    'sandbox.test.mjs': 3, 'scorm.test.mjs': 11, 'sentence.test.mjs': 22,
    'train-on-demand.test.mjs': 16, 'train.test.mjs': 29, 'wcag22.test.mjs': 8,
  },
  firefox: {
    'a11y.test.mjs': 84, 'bad-input.test.mjs': 73, 'circuits.test.mjs': 11, 'compute.test.mjs': 12,
    'csp.test.mjs': 22, 'embed-file.test.mjs': 7, 'embed.test.mjs': 17, 'engine.test.mjs': 12,
    'exercises.test.mjs': 28, 'h5p.test.mjs': 7, 'heads-needed.test.mjs': 60, 'hosts.test.mjs': 72,
    'i18n.test.mjs': 50, 'induction.test.mjs': 26, 'injection.test.mjs': 34, 'inplace.test.mjs': 27,
    'layout.test.mjs': 38, 'lesson.test.mjs': 38, 'load.test.mjs': 28, 'long-session.test.mjs': 13,
    'motion.test.mjs': 15, 'no-worker.test.mjs': 7, 'own-text.test.mjs': 34, 'path.test.mjs': 23,
    'print.test.mjs': 1, 'python-blocks.test.mjs': 1, 'responsive.test.mjs': 22,
    'sandbox.test.mjs': 7, 'scorm.test.mjs': 26, 'sentence.test.mjs': 38,
    'train-on-demand.test.mjs': 21, 'train.test.mjs': 43, 'wcag22.test.mjs': 14,
  },
  webkit: {
    'a11y.test.mjs': 142, 'bad-input.test.mjs': 94, 'circuits.test.mjs': 12, 'compute.test.mjs': 5,
    'csp.test.mjs': 36, 'embed-file.test.mjs': 4, 'embed.test.mjs': 35, 'engine.test.mjs': 8,
    'exercises.test.mjs': 59, 'h5p.test.mjs': 5, 'heads-needed.test.mjs': 126, 'hosts.test.mjs': 53,
    'i18n.test.mjs': 87, 'induction.test.mjs': 50, 'injection.test.mjs': 50, 'inplace.test.mjs': 40,
    'layout.test.mjs': 39, 'lesson.test.mjs': 44, 'load.test.mjs': 32, 'long-session.test.mjs': 24,
    'motion.test.mjs': 15, 'no-worker.test.mjs': 6, 'own-text.test.mjs': 111, 'path.test.mjs': 38,
    'print.test.mjs': 1, 'python-blocks.test.mjs': 1, 'responsive.test.mjs': 25,
    'sandbox.test.mjs': 9, 'scorm.test.mjs': 18, 'sentence.test.mjs': 50,
    'train-on-demand.test.mjs': 31, 'train.test.mjs': 91, 'wcag22.test.mjs': 25,
  },
};
