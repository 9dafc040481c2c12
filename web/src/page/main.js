// Entry point: registers every Headwise element and starts the shared store (URL hash + the
// WASM module) in the page's language. The same bundle serves the lesson page and any page that
// embeds one element.
// The training section's elements come from dist/train.js, loaded when the reader nears them
// (src/train/loader.js).

// First: the page's language is known before any widget draws (src/page/language.js); then
// the lesson page's first load holds every widget as it is defined, and starts them in slices,
// nearest the reader first (first-load.js).
import { followStore, languageSettled } from './language.js';
import './first-load.js';
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
import { watchTraining } from '../train/loader.js';
import { scriptBase } from '../shared/platform/scripts.js';
import { getStore } from '../shared/state/store.js';
import { startCourse } from './course.js';
import { watchPrint } from './print.js';
import { startPagePath } from './path.js';

/** Where app.js was loaded from, and so train.js and headwise.js (read while this script runs). */
const BASE = scriptBase('app.js');

const store = getStore();
followStore(store);
// In a SCORM package with its LMS there (course.js); nothing anywhere else.
const course = startCourse(store);
// The contents, the reader's place and progress (path.js): kept in this browser, or by the LMS.
startPagePath(Boolean(course), languageSettled);
watchPrint();
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => watchTraining(document, BASE, { styles: true }), { once: true });
} else {
  watchTraining(document, BASE, { styles: true });
}
