// The lesson-only module (dist/headwise-lesson.js) in place of cpp/api/into.js and
// cpp/api/training.js: no option into and no training; wrap() then gives the training methods
// an error that names dist/headwise.js (lessonOnly, in cpp/api/lesson.js).

var intoArrays = null;
var installTraining = null;
