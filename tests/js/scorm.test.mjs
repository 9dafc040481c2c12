// The SCORM packages as an LMS receives them (dist/headwise-scorm12.zip, -scorm2004.zip, made by
// web/build-scorm.mjs), read by Python's zipfile and ElementTree rather than by the project's
// own code: a valid zip, imsmanifest.xml at its root with what the specifications require, every
// file listed and present (the languages' files in i18n/), the launch page marked; the build-time
// mastery score, checked; and the lesson's side without a browser: the LMS adapter's search and
// failures (src/shared/platform/lms.js) and the saved work's format and limits (src/page/course.js). The
// packages under a real SCORM run-time are tests/browser/scorm.test.mjs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { LESSON_FILES, buildScorm, lessonFiles, masteryScore } from '../../web/build-scorm.mjs';
import { Lms, findApi, formatDuration, formatTime } from '../../web/src/shared/platform/lms.js';
import { Course, decodeWork, encodeWork, scoreOf, settingsOf } from '../../web/src/page/course.js';
import { DEFAULTS, parseHash } from '../../web/src/shared/state/settings.js';
import { t } from '../../web/src/shared/i18n/i18n.js';

const DIST = join(ROOT, 'dist');

/**
 * Read a package with Python: the zip tested (every CRC), its names, the manifest as a tree
 * ({tag: '{namespace}name', attrib, text, children}), and the launch page's text.
 * @param {string} file
 */
function readPackage(file) {
  const r = spawnSync('/usr/bin/python3', ['-c', `
import json, sys, zipfile, xml.etree.ElementTree as ET
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
def tree(e):
    return {'tag': e.tag, 'attrib': dict(e.attrib), 'text': (e.text or '').strip(), 'children': [tree(c) for c in e]}
root = ET.fromstring(z.read('imsmanifest.xml'))
print(json.dumps({'bad': bad, 'names': z.namelist(), 'manifest': tree(root), 'index': z.read('index.html').decode('utf-8')}))
`, file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const XSI = '{http://www.w3.org/2001/XMLSchema-instance}';
const SPEC = {
  '1.2': {
    file: 'headwise-scorm12.zip',
    cp: 'http://www.imsproject.org/xsd/imscp_rootv1p1p2',
    adlcp: 'http://www.adlnet.org/xsd/adlcp_rootv1p2',
    schemaversion: '1.2',
    scormType: 'scormtype',
    schemas: { 'http://www.imsproject.org/xsd/imscp_rootv1p1p2': 'imscp_rootv1p1p2.xsd', 'http://www.adlnet.org/xsd/adlcp_rootv1p2': 'adlcp_rootv1p2.xsd' },
  },
  2004: {
    file: 'headwise-scorm2004.zip',
    cp: 'http://www.imsglobal.org/xsd/imscp_v1p1',
    adlcp: 'http://www.adlnet.org/xsd/adlcp_v1p3',
    schemaversion: '2004 4th Edition',
    scormType: 'scormType',
    schemas: {
      'http://www.imsglobal.org/xsd/imscp_v1p1': 'imscp_v1p1.xsd',
      'http://www.adlnet.org/xsd/adlcp_v1p3': 'adlcp_v1p3.xsd',
      'http://www.adlnet.org/xsd/adlseq_v1p3': 'adlseq_v1p3.xsd',
      'http://www.adlnet.org/xsd/adlnav_v1p3': 'adlnav_v1p3.xsd',
      'http://www.imsglobal.org/xsd/imsss': 'imsss_v1p0.xsd',
    },
  },
};
const IMSSS = '{http://www.imsglobal.org/xsd/imsss}';

/** @param {any} node @param {string} tag */
const kids = (node, tag) => node.children.filter((c) => c.tag === tag);
/** @param {any} node @param {string} tag */
const only = (node, tag) => {
  const found = kids(node, tag);
  assert.equal(found.length, 1, `one <${tag}> in <${node.tag}>`);
  return found[0];
};

/**
 * What each package must hold, checked on a package read by readPackage.
 * @param {'1.2'|'2004'} version
 * @param {any} pkg
 * @param {number} mastery
 */
function checkPackage(version, pkg, mastery) {
  const s = SPEC[version];
  const cp = (t) => `{${s.cp}}${t}`;
  assert.equal(pkg.bad, null, 'every file\'s CRC is right');
  assert.equal(pkg.names[0], 'imsmanifest.xml');
  // At the root, but the languages' files in i18n/ and the text model's script in models/ (the
  // page loads them from there, beside app.js and train.js).
  const folders = [...new Set(pkg.names.filter((n) => n.includes('/')).map((n) => n.slice(0, n.lastIndexOf('/'))))];
  assert.deepEqual(folders.filter((f) => f !== 'i18n' && f !== 'models'), [], 'no folder but i18n/ and models/');
  assert.ok(pkg.names.every((n) => !n.includes('\\') && /^i18n\/[A-Za-z0-9-]+\.js$|^models\/[a-z0-9]+\.hwtm\.js$|^[^/]+$/.test(n)), `relative names, forward slashes: ${pkg.names.join(', ')}`);
  const m = pkg.manifest;
  assert.equal(m.tag, cp('manifest'));
  assert.ok(m.attrib.identifier, 'the manifest has an identifier');
  // xsi:schemaLocation pairs each namespace with its schema file.
  const loc = m.attrib[`${XSI}schemaLocation`].split(/\s+/);
  assert.equal(loc.length % 2, 0);
  const pairs = Object.fromEntries(loc.flatMap((x, i) => (i % 2 ? [] : [[x, loc[i + 1]]])));
  for (const [uri, xsd] of Object.entries(s.schemas)) assert.equal(pairs[uri], xsd, `schemaLocation for ${uri}`);
  const meta = only(m, cp('metadata'));
  assert.equal(only(meta, cp('schema')).text, 'ADL SCORM');
  assert.equal(only(meta, cp('schemaversion')).text, s.schemaversion);
  // The default organization exists; its one item launches the one SCO resource.
  const orgs = only(m, cp('organizations'));
  const org = kids(orgs, cp('organization')).find((o) => o.attrib.identifier === orgs.attrib.default);
  assert.ok(org, 'organizations/@default names an organization');
  assert.ok(only(org, cp('title')).text.includes('Multi-head attention'));
  const item = only(org, cp('item'));
  assert.ok(only(item, cp('title')).text);
  const resources = kids(only(m, cp('resources')), cp('resource'));
  assert.equal(resources.length, 1);
  const res = resources[0];
  assert.equal(item.attrib.identifierref, res.attrib.identifier);
  assert.equal(res.attrib.type, 'webcontent');
  assert.equal(res.attrib[`{${s.adlcp}}${s.scormType}`], 'sco', `adlcp:${s.scormType}="sco"`);
  assert.equal(res.attrib.href, 'index.html');
  // Every file listed is in the zip, and every file in the zip (but the manifest) is listed.
  const listed = kids(res, cp('file')).map((f) => f.attrib.href);
  assert.deepEqual([...listed].sort(), pkg.names.filter((n) => n !== 'imsmanifest.xml').sort());
  for (const f of LESSON_FILES) assert.ok(listed.includes(f), `${f} is in the package`);
  // Every language but English, as the page loads it when it shows that language.
  const languages = readdirSync(join(ROOT, 'web', 'i18n')).filter((f) => f.endsWith('.json') && f !== 'en.json').map((f) => `i18n/${f.slice(0, -5)}.js`);
  assert.ok(languages.length >= 2, languages.join(', '));
  for (const f of languages) assert.ok(listed.includes(f), `${f} is in the package`);
  // The mastery score.
  if (version === '1.2') {
    assert.equal(only(item, `{${s.adlcp}}masteryscore`).text, String(mastery));
  } else {
    const obj = only(only(only(item, `${IMSSS}sequencing`), `${IMSSS}objectives`), `${IMSSS}primaryObjective`);
    assert.equal(obj.attrib.satisfiedByMeasure, 'true');
    assert.equal(Number(only(obj, `${IMSSS}minNormalizedMeasure`).text), mastery / 100);
  }
  // The launch page says which SCORM it speaks, and loads nothing that is not in the package.
  assert.match(pkg.index, new RegExp(`<html lang="en"[^>]* data-hw-scorm="${version}" data-hw-mastery="${mastery}">`));
  const refs = [...pkg.index.matchAll(/(?:src|href)="([^"#]+)"/g)].map((x) => x[1]);
  assert.ok(refs.length >= 3);
  for (const r of refs) assert.ok(pkg.names.includes(r), `index.html's ${r} is in the package`);
}

for (const version of /** @type {const} */ (['1.2', '2004'])) {
  test(`SCORM ${version}: the package holds a manifest the specification accepts and every file`, () => {
    checkPackage(version, readPackage(join(DIST, SPEC[version].file)), 80);
  });
}

test('the mastery score given at build time reaches both manifests', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'headwise-scorm-'));
  try {
    for (const f of await lessonFiles(DIST)) {
      mkdirSync(dirname(join(tmp, f)), { recursive: true });
      copyFileSync(join(DIST, f), join(tmp, f));
    }
    const files = await buildScorm({ dist: tmp, root: ROOT, mastery: masteryScore('65.5') });
    assert.deepEqual(files, ['headwise-scorm12.zip', 'headwise-scorm2004.zip']);
    checkPackage('1.2', readPackage(join(tmp, files[0])), 65.5);
    checkPackage('2004', readPackage(join(tmp, files[1])), 65.5);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('HEADWISE_MASTERY_SCORE: 0 to 100, default 80; anything else stops the build with a clear error', () => {
  assert.equal(masteryScore(undefined), 80);
  assert.equal(masteryScore(''), 80);
  assert.equal(masteryScore('0'), 0);
  assert.equal(masteryScore('100'), 100);
  assert.equal(masteryScore(' 72.25 '), 72.25);
  for (const bad of ['abc', '101', '-1', '80%', '1e2', '50.125', 'NaN']) {
    assert.throws(() => masteryScore(bad), (e) => e.message === `HEADWISE_MASTERY_SCORE must be a number from 0 to 100 with at most two decimals (the share of the quiz's points needed to pass; default 80), not ${JSON.stringify(bad)}`, bad);
  }
  const r = spawnSync(process.execPath, [join(ROOT, 'web', 'build.mjs')], { env: { ...process.env, HEADWISE_MASTERY_SCORE: '120' }, encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^error: HEADWISE_MASTERY_SCORE must be a number from 0 to 100 .* not "120"$/m);
});

// ---- the adapter: finding the API, failing without throwing ----------------------------------

/** A stand-in window: `props` (e.g. {API}) and a parent; `locked` reads throw, as another origin's do. */
function win(props = {}, parent = null, locked = false) {
  const w = { opener: null };
  Object.defineProperty(w, 'parent', { get: () => parent || w });
  for (const [k, v] of Object.entries(props)) {
    Object.defineProperty(w, k, { get: () => { if (locked) throw new Error('SecurityError: cross-origin'); return v; } });
  }
  return w;
}

test('the API is found in the window, up the parents, then through the opener; a foreign frame ends the search', () => {
  const api = { LMSInitialize: () => 'true' };
  assert.equal(findApi(win({ API: api }), 'API'), api);
  const top = win({ API: api });
  assert.equal(findApi(win({}, win({}, top)), 'API'), api, 'two parents up');
  assert.equal(findApi(win({}, win({}, top)), 'API_1484_11'), null, 'the other version\'s name is not taken');
  const opened = win({});
  opened.opener = win({}, win({ API_1484_11: api }));
  assert.equal(findApi(opened, 'API_1484_11'), api, 'the opener\'s parent');
  assert.equal(findApi(win({}, win({ API: api }, null, true)), 'API'), null, 'a parent that cannot be read');
  // A chain longer than the search: 12 parents up is not searched.
  let w = win({ API: api });
  for (let i = 0; i < 12; i += 1) w = win({}, w);
  assert.equal(findApi(w, 'API'), null);
});

/** A SCORM 1.2 API stand-in that records calls; `failing` methods throw or answer "false". */
function fakeApi(failing = {}) {
  const calls = [];
  const values = { 'cmi.interactions._count': '0' };
  let last = '0';
  const api = {
    calls,
    LMSGetLastError: () => last,
    LMSGetErrorString: (c) => (c === '101' ? 'General Exception' : ''),
  };
  for (const m of ['LMSInitialize', 'LMSFinish', 'LMSCommit', 'LMSSetValue', 'LMSGetValue']) {
    api[m] = (...args) => {
      calls.push([m, ...args]);
      if (failing[m] === 'throw') throw new TypeError('Failed to fetch');
      if (failing[m] === 'false') { last = '101'; return 'false'; }
      last = '0';
      if (m === 'LMSGetValue') return values[args[0]] ?? '';
      if (m === 'LMSSetValue') values[args[0]] = args[1];
      return 'true';
    };
  }
  return { api, values };
}

test('an LMS that throws or answers false never throws into the page; the first failure is reported once', () => {
  for (const [mode, reason] of [['throw', 'it threw Failed to fetch'], ['false', 'error 101, General Exception']]) {
    const { api } = fakeApi({ LMSCommit: mode });
    const told = [];
    const lms = new Lms(api, '1.2', (f) => told.push(f));
    assert.equal(lms.start(), true);
    assert.equal(lms.set('cmi.core.lesson_status', 'incomplete'), true);
    assert.equal(lms.commit(), false);
    assert.equal(lms.commit(), false);
    assert.deepEqual(told.map((f) => ({ call: f.call, reason: f.reason.message })), [{ call: 'LMSCommit("")', reason }]);
    assert.equal(lms.set('cmi.suspend_data', '{}'), true, 'later calls are still made');
    assert.equal(lms.finish(true), true);
    assert.deepEqual(api.calls.filter((c) => c[0] === 'LMSSetValue').map((c) => c[1]), ['cmi.core.lesson_status', 'cmi.suspend_data', 'cmi.core.session_time', 'cmi.core.exit']);
    assert.equal(lms.set('cmi.core.lesson_status', 'passed'), false, 'nothing is sent after the end');
  }
  const broken = new Lms({}, '2004', () => {});
  assert.equal(broken.start(), false);
  assert.deepEqual({ ...broken.failure, reason: broken.failure.reason.message }, { call: 'Initialize("")', reason: 'the course platform\'s API has no Initialize' });
  assert.deepEqual([broken.failure.reason.code, broken.failure.reason.params], ['errors.lms.noMethod', { method: 'Initialize' }]);
});

test('each version\'s time formats', () => {
  assert.equal(formatDuration('1.2', 3723456), '0001:02:03.46');
  assert.equal(formatDuration('2004', 3723456), 'PT1H2M3.46S');
  const d = new Date(Date.UTC(2026, 11, 4, 21, 3, 4, 567));
  assert.equal(formatTime('2004', d), '2026-12-04T21:03:04.56Z');
  assert.match(formatTime('1.2', d), /^\d\d:03:04$/);
});

// ---- the saved work ----------------------------------------------------------------------------

test('suspend_data: the quiz\'s first and latest answers, the settings that differ, the challenge', () => {
  const work = { first: 'Ba-C-', current: 'bc-c-', settings: settingsOf({ ...DEFAULTS, labels: ['the'], seed: 11 }), challenge: 'Two softmaxes, "two" views.' };
  assert.equal(work.settings, 'seed=11&label.0=the');
  const text = encodeWork(work);
  assert.equal(text, '{"v":1,"f":"Ba-C-","a":"bc-c-","s":"seed=11&label.0=the","c":"Two softmaxes, \\"two\\" views."}');
  assert.deepEqual(decodeWork(text, 5), work);
  assert.deepEqual(parseHash(work.settings).labels, ['the']);
  assert.equal(settingsOf({ ...DEFAULTS, labels: [] }), '', 'the lesson\'s own settings take no room');
  assert.deepEqual(scoreOf('BaCaC'), { raw: 60, answered: 5, done: true });
  assert.deepEqual(scoreOf('Ba-C-'), { raw: 40, answered: 3, done: false });
  for (const [bad, why] of [
    ['not json', /JSON|Unexpected/],
    ['{"v":2,"f":"-----","a":"-----"}', /not Headwise's saved work/],
    ['{"v":1,"f":"---","a":"-----"}', /quiz answers are not readable/],
    ['{"v":1,"f":"-----","a":"-----","s":"heads=x"}', /"heads" is not a number/],
    ['{"v":1,"f":"-----","a":"-----","c":5}', /challenge answer is not readable/],
  ]) assert.throws(() => decodeWork(bad, 5), why, bad);
});

test('work longer than SCORM 1.2 keeps is never cut: the challenge answer is left out, and the student told once', () => {
  const { api, values } = fakeApi();
  const lms = new Lms(api, '1.2');
  lms.start();
  const store = { state: { ...DEFAULTS, labels: [] } };
  const course = new Course(lms, /** @type {any} */ (store), /** @type {any} */ ({}), 80, 5);
  const said = [];
  course.say = (key, text) => { if (!said.some((s) => s[0] === key)) said.push([key, text]); };
  course.work.challenge = 'x'.repeat(4000);
  course.save();
  assert.equal(JSON.parse(values['cmi.suspend_data']).c.length, 4000, '4,000 characters fit');
  course.work.challenge = 'y'.repeat(4100);
  course.answered({ question: 2, questionId: 'q2', answer: 2, correct: true, correctAnswer: 2 });
  const saved = JSON.parse(values['cmi.suspend_data']);
  assert.equal(saved.c, undefined, 'the answer is left out whole, not cut');
  assert.equal(saved.f, '-C---', 'the quiz is still saved');
  assert.equal(said.length, 1);
  // Said in the page's language from the catalogue: here, its English.
  assert.match(t(said[0][1].key, said[0][1].params), /^Your answer to the challenge is too long for the course platform to keep \(the saved work would take 41\d\d characters; it keeps 4096\)/);
  course.save();
  assert.equal(said.length, 1, 'told once');
  assert.ok(values['cmi.suspend_data'].length <= 4096);
});
