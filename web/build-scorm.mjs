// The SCORM packages, made by web/build.mjs from what it has built into dist/:
//   dist/headwise-scorm12.zip     SCORM 1.2
//   dist/headwise-scorm2004.zip   SCORM 2004 4th edition
// Each holds imsmanifest.xml at its root and one SCO, the lesson page (index.html, marked with
// its SCORM version and mastery score so that src/page/course.js talks to the LMS), with every
// file the page loads: nothing is fetched from elsewhere. The mastery score (the share of the
// quiz's points needed to pass, 0–100) is HEADWISE_MASTERY_SCORE at build time, 80 by default.
// The zip is written here (deflate from node:zlib), so the build needs no archiver.

import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';

/** The mastery score when HEADWISE_MASTERY_SCORE is not set. */
export const DEFAULT_MASTERY_SCORE = 80;

/** The files the lesson page loads (index.html first: the SCO's launch page), besides its languages
 * (the text model as the script the page loads; its .hwtm is for Node and servers). */
export const LESSON_FILES = ['index.html', 'app.js', 'styles.css', 'headwise-lesson.js', 'headwise.js', 'train.js', 'train.css', 'models/sotu.hwtm.js', 'favicon.png'];

/**
 * Every file the lesson page may load: LESSON_FILES and each language's file (i18n/<tag>.js,
 * loaded when the page shows that language), as dist/ holds them.
 * @param {string} dist
 * @returns {Promise<string[]>}
 */
export async function lessonFiles(dist) {
  const languages = (await readdir(join(dist, 'i18n')).catch(() => [])).filter((f) => f.endsWith('.js')).sort();
  return [...LESSON_FILES, ...languages.map((f) => `i18n/${f}`)];
}

const TITLE = 'Headwise · Module 08: Multi-head attention';
const IDS = { manifest: 'headwise-module-08', organization: 'headwise', item: 'item-lesson', resource: 'resource-lesson' };

/**
 * The mastery score given at build time, checked.
 * @param {string|undefined} text  HEADWISE_MASTERY_SCORE
 * @returns {number}
 */
export function masteryScore(text) {
  if (text === undefined || text.trim() === '') return DEFAULT_MASTERY_SCORE;
  const t = text.trim();
  const n = Number(t);
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(t) || !(n >= 0 && n <= 100)) {
    throw new Error(`HEADWISE_MASTERY_SCORE must be a number from 0 to 100 with at most two decimals (the share of the quiz's points needed to pass; default ${DEFAULT_MASTERY_SCORE}), not ${JSON.stringify(text)}`);
  }
  return n;
}

/** @param {string} s */
const xml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A manifest: one organization, one item, one SCO resource listing every file.
 * @param {{namespaces: [string, string][], schemas: [string, string][], schemaversion: string,
 *   item: string, scormType: string, files: string[]}} m
 *   namespaces: [prefix ('' for the default), URI]; schemas: [namespace URI, XSD file];
 *   item: what the item holds after its title; scormType: the attribute's name in this version
 */
function manifest({ namespaces, schemas, schemaversion, item, scormType, files }) {
  const ns = namespaces.map(([p, uri]) => `\n    xmlns${p ? `:${p}` : ''}="${uri}"`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${IDS.manifest}" version="1.0"${ns}
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="${schemas.map((s) => s.join(' ')).join(' ')}">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>${schemaversion}</schemaversion>
  </metadata>
  <organizations default="${IDS.organization}">
    <organization identifier="${IDS.organization}">
      <title>${xml(TITLE)}</title>
      <item identifier="${IDS.item}" identifierref="${IDS.resource}" isvisible="true">
        <title>${xml(TITLE)}</title>
${item}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="${IDS.resource}" type="webcontent" adlcp:${scormType}="sco" href="${xml(files[0])}">
${files.map((f) => `      <file href="${xml(f)}"/>`).join('\n')}
    </resource>
  </resources>
</manifest>
`;
}

/**
 * imsmanifest.xml for SCORM 1.2 (IMS CP 1.1.2 with ADL's adlcp_rootv1p2).
 * @param {number} mastery
 * @param {string[]} files  the launch page first
 */
export function manifest12(mastery, files) {
  return manifest({
    namespaces: [['', 'http://www.imsproject.org/xsd/imscp_rootv1p1p2'], ['adlcp', 'http://www.adlnet.org/xsd/adlcp_rootv1p2']],
    schemas: [
      ['http://www.imsproject.org/xsd/imscp_rootv1p1p2', 'imscp_rootv1p1p2.xsd'],
      ['http://www.imsglobal.org/xsd/imsmd_rootv1p2p1', 'imsmd_rootv1p2p1.xsd'],
      ['http://www.adlnet.org/xsd/adlcp_rootv1p2', 'adlcp_rootv1p2.xsd'],
    ],
    schemaversion: '1.2',
    item: `        <adlcp:masteryscore>${mastery}</adlcp:masteryscore>`,
    scormType: 'scormtype',
    files,
  });
}

/**
 * imsmanifest.xml for SCORM 2004 4th edition. The mastery score is the primary objective's
 * minimum normalized measure, satisfied by measure (the LMS gives it to the SCO as
 * cmi.scaled_passing_score); the SCO sets completion and success itself.
 * @param {number} mastery
 * @param {string[]} files  the launch page first
 */
export function manifest2004(mastery, files) {
  return manifest({
    namespaces: [
      ['', 'http://www.imsglobal.org/xsd/imscp_v1p1'], ['adlcp', 'http://www.adlnet.org/xsd/adlcp_v1p3'],
      ['adlseq', 'http://www.adlnet.org/xsd/adlseq_v1p3'], ['adlnav', 'http://www.adlnet.org/xsd/adlnav_v1p3'],
      ['imsss', 'http://www.imsglobal.org/xsd/imsss'],
    ],
    schemas: [
      ['http://www.imsglobal.org/xsd/imscp_v1p1', 'imscp_v1p1.xsd'],
      ['http://www.adlnet.org/xsd/adlcp_v1p3', 'adlcp_v1p3.xsd'],
      ['http://www.adlnet.org/xsd/adlseq_v1p3', 'adlseq_v1p3.xsd'],
      ['http://www.adlnet.org/xsd/adlnav_v1p3', 'adlnav_v1p3.xsd'],
      ['http://www.imsglobal.org/xsd/imsss', 'imsss_v1p0.xsd'],
    ],
    schemaversion: '2004 4th Edition',
    item: `        <imsss:sequencing>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="quiz" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>${(mastery / 100).toFixed(4).replace(/\.?0+$/, '')}</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>
          <imsss:deliveryControls tracked="true" completionSetByContent="true" objectiveSetByContent="true"/>
        </imsss:sequencing>`,
    scormType: 'scormType',
    files,
  });
}

// ---- a zip writer: local headers, deflated (or stored) data, the central directory -----------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** @param {Buffer} buf */
export function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A date in MS-DOS form (local time, 2-second steps), as zip stores it.
 * @param {Date} d
 */
function dosTime(d) {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((Math.max(1980, d.getFullYear()) - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/**
 * A zip archive of the given files (names in UTF-8, flag bit 11; each deflated unless that
 * would make it larger).
 * @param {{name: string, data: Buffer}[]} entries
 * @param {Date} [when]
 * @returns {Buffer}
 */
export function zip(entries, when = new Date()) {
  const { time, date } = dosTime(when);
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name, 'utf8');
    const deflated = deflateRawSync(data, { level: 9 });
    const stored = deflated.length >= data.length;
    const body = stored ? data : deflated;
    const crc = crc32(data);
    // The fields a local header (from byte 4) and a central one (from byte 6) share.
    const fields = (/** @type {Buffer} */ b, /** @type {number} */ at) => {
      b.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
      b.writeUInt16LE(0x0800, at + 2); // names in UTF-8
      b.writeUInt16LE(stored ? 0 : 8, at + 4);
      b.writeUInt16LE(time, at + 6);
      b.writeUInt16LE(date, at + 8);
      b.writeUInt32LE(crc, at + 10);
      b.writeUInt32LE(body.length, at + 14);
      b.writeUInt32LE(data.length, at + 18);
      b.writeUInt16LE(nameBuf.length, at + 22);
    };
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    fields(head, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, zip 2.0
    fields(central, 6);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(head, nameBuf, body);
    centrals.push(central, nameBuf);
    offset += head.length + nameBuf.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/**
 * The lesson page as the package's SCO: marked with its SCORM version and mastery score.
 * @param {string} html
 * @param {'1.2'|'2004'} version
 * @param {number} mastery
 */
export function markLaunchPage(html, version, mastery) {
  const marked = html.replace(/<html( [^>]*)?>/, (_, attrs = '') => `<html${attrs} data-hw-scorm="${version}" data-hw-mastery="${mastery}">`);
  if (marked === html) throw new Error('build-scorm: index.html has no <html> element to mark as the SCORM launch page');
  return marked;
}

/**
 * Write both packages into dist/.
 * @param {{dist: string, root: string, mastery?: number, when?: Date}} options
 * @returns {Promise<string[]>} the files written (names in dist/)
 */
export async function buildScorm({ dist, root, mastery = masteryScore(process.env.HEADWISE_MASTERY_SCORE), when }) {
  const contents = new Map();
  for (const f of await lessonFiles(dist)) contents.set(f, await readFile(join(dist, f)));
  contents.set('LICENSE.txt', await readFile(join(root, 'LICENSE')));
  const files = [...contents.keys()];
  const written = [];
  for (const [version, name, manifest] of /** @type {const} */ ([
    ['1.2', 'headwise-scorm12.zip', manifest12],
    ['2004', 'headwise-scorm2004.zip', manifest2004],
  ])) {
    const entries = [{ name: 'imsmanifest.xml', data: Buffer.from(manifest(mastery, files), 'utf8') }];
    for (const [f, data] of contents) {
      entries.push({ name: f, data: f === 'index.html' ? Buffer.from(markLaunchPage(data.toString('utf8'), version, mastery), 'utf8') : data });
    }
    await writeFile(join(dist, name), zip(entries, when));
    written.push(name);
  }
  return written;
}
