// Entry point of dist/headwise-elements.js: the lesson's widgets as public custom elements for
// other people's pages (<mha-heads>, <mha-params>, <mha-exercise-seeds>, <mha-exercise-dmodel>,
// <mha-exercise-torch>, <mha-quiz>, <mha-python>, <mha-lesson>).
//
// Each <mha-*> element renders the page's own hw-* widgets inside a shadow root (styled by
// headwise-elements.css, linked from the shadow root, so styles cross in neither direction), fed by
// its own store whose state comes from the element's attributes. All of them share one load of
// headwise.js and one module instance. Answers in a quiz are reported with a "headwise-quiz"
// event that bubbles out of the shadow root.

import './hw-controls.js';
import './hw-pipeline.js';
import './hw-head-weights.js';
import './hw-param-table.js';
import './hw-reference-table.js';
import './hw-exercise-seeds.js';
import './hw-exercise-dmodel.js';
import './hw-exercise-torch.js';
import './hw-challenge.js';
import './hw-quiz.js';
import './hw-python.js';
import './hw-fact.js';
import './hw-status.js';
import './hw-export.js';
import { defineEmbedElements } from './mha.js';

defineEmbedElements();
