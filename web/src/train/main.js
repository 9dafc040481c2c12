// Entry point of dist/train.js: the training section ("Watch heads specialise" and its PyTorch
// script) and "Your own sentence" (src/text/, which reads its own model, loaded on demand), loaded on demand by src/train/loader.js, which app.js and headwise-elements.js hold.
// Defining the elements upgrades the ones already on the page (and in embeds' shadow roots); each
// then loads the full module (training-module.js) and trains with it.

import './hw-train.js';
import './hw-train-python.js';
import './hw-heads-needed.js';
import './hw-induction.js';
import '../text/hw-sentence.js';
