// Entry point of dist/headwise-elements.js: the lesson's widgets as public custom elements for
// other people's pages (<mha-heads>, <mha-params>, <mha-circuits>, <mha-exercise-seeds>, <mha-exercise-dmodel>,
// <mha-exercise-torch>, <mha-quiz>, <mha-python>, <mha-train>, <mha-heads-needed>, <mha-induction>, <mha-sentence>, <mha-lesson>).
//
// Each <mha-*> element renders the page's own hw-* widgets inside a shadow root (styled by
// headwise-elements.css, linked from the shadow root, so styles cross in neither direction), fed by
// its own store whose state comes from the element's attributes. All of them share one load of
// headwise-lesson.js and one module instance. <hw-train>, <hw-heads-needed> and their Python blocks (in
// <mha-train>, <mha-heads-needed> and <mha-lesson>) come from train.js, loaded when they near the viewport (src/train/loader.js).
// Answers in a quiz are reported with a "headwise-quiz" event that bubbles out of the shadow root.

import '../lesson/hw-controls.js';
import '../lesson/hw-pipeline.js';
import '../lesson/hw-head-weights.js';
import '../lesson/hw-param-table.js';
import '../lesson/hw-head-circuits.js';
import '../lesson/hw-reference-table.js';
import '../lesson/hw-exercise-seeds.js';
import '../lesson/hw-exercise-dmodel.js';
import '../lesson/hw-exercise-torch.js';
import '../lesson/hw-challenge.js';
import '../lesson/hw-quiz.js';
import '../lesson/hw-python.js';
import '../lesson/hw-fact.js';
import '../lesson/hw-status.js';
import './hw-export.js';
import { defineEmbedElements } from './mha.js';

defineEmbedElements();
