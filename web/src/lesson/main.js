// Entry point: registers every Headwise element and starts the shared store (URL hash + the
// WASM module). The same bundle serves the lesson page and any page that embeds one element.

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
import '../train/hw-train.js';
import '../train/hw-train-python.js';
import { getStore } from '../shared/store.js';

getStore();
