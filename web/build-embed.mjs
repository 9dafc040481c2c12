// Builds the embedding side of dist/ (called by build.mjs):
//   headwise-elements.js   the <mha-*> custom elements (IIFE; loads headwise-lesson.js next to itself)
//   headwise-elements.css  the lesson's styles for shadow roots (styles.css and train.css, joined as
//                          build-styles.mjs says, with :root/html/body turned into :host) followed
//                          by src/embed/elements.css
//   embed.html, embed-page.js, embed-page.css   the iframe embed (one widget from the query string)
//   headwise-embed.js      the host-page helper that sizes embed iframes and relays their events
//   gallery.html, gallery.js, gallery.css       every widget with its copy-paste snippets

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { cataloguesPlugin, fillTemplate } from './build-i18n.mjs';
import { readStylesheet } from './build-styles.mjs';

/**
 * esbuild plugin for dist/train.js: its imports of src/shared/ and src/lesson/ become the modules
 * of the bundle that loads it (app.js or headwise-elements.js), which src/train/loader.js puts
 * under Symbol.for('headwise.trainingHost'); so the training section shares the page's store,
 * element base and Compute instead of carrying copies. A module the loader does not offer fails
 * the build.
 * @param {string} web  the web/ folder
 * @returns {import('esbuild').Plugin}
 */
export function trainingHostPlugin(web) {
  const src = join(web, 'src');
  const loader = readFileSync(join(src, 'train', 'loader.js'), 'utf8');
  return {
    name: 'headwise-training-host',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.namespace !== 'file') return undefined;
        const path = resolve(args.resolveDir, args.path);
        const key = relative(src, path).split(sep).join('/');
        if (!/^(shared|lesson)\//.test(key)) return undefined;
        if (!loader.includes(`'${key}':`)) {
          return { errors: [{ text: `src/train imports ${key}, which src/train/loader.js does not offer to train.js (add it to HOST)` }] };
        }
        return { path: key, namespace: 'headwise-host' };
      });
      b.onLoad({ filter: /.*/, namespace: 'headwise-host' }, (args) => ({
        contents: `const host = globalThis[Symbol.for('headwise.trainingHost')];
if (!host || !host[${JSON.stringify(args.path)}]) throw new Error('train.js must be loaded by app.js or headwise-elements.js');
module.exports = host[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
    },
  };
}

/**
 * The lesson page's <main> element, to be rendered by <mha-lesson>.
 * @param {string} html
 */
export function lessonMarkup(html) {
  const start = html.indexOf('<main');
  const end = html.indexOf('</main>');
  if (start < 0 || end < start) throw new Error('web/index.html has no <main> element for <mha-lesson>');
  return `<hw-status></hw-status>\n${html.slice(start, end + '</main>'.length)}`;
}

/**
 * Every `N rem` outside @media preludes becomes `calc(N * var(--hw-rem))`. Inside a shadow root
 * `rem` would be the host document's root size (125 % in some site themes); --hw-rem is
 * registered as a <length> by headwise-elements.js and set to 1em on :host, so it computes to
 * the host element's own font size in px and inherits as px: the widget scales with the text
 * around it, not with the page's root.
 * @param {string} css
 */
export function hostRelativeRem(css) {
  return css.replace(/(@media[^{]*\{)|(-?\d*\.?\d+)rem\b/g, (match, media, n) => (media ? media : `calc(${n} * var(--hw-rem))`));
}

/** The selector of each theme: an element's `theme` attribute, or the system's scheme for `auto`. */
const DARK_FORCED = ':host([theme="dark" i])';
const DARK_AUTO = ':host(:not([theme="light" i]):not([theme="dark" i]))';

/**
 * The rules of every `@media [screen and] (prefers-color-scheme: dark)` block apply to widgets
 * with theme="dark" always, and to those with no theme (or theme="auto") when the system is dark
 * (on screen: printed, widgets are light).
 * A rule's selector `:host` stays `:host(…)`; any other selector is prefixed with it.
 * @param {string} css
 */
export function themedCss(css) {
  const blocks = [];
  const rest = css.replace(/@media\s*(?:screen\s+and\s*)?\(prefers-color-scheme:\s*dark\)\s*\{((?:[^{}]*\{[^{}]*\})*)\s*\}/g, (_, body) => {
    blocks.push(body);
    return '';
  });
  if (blocks.length === 0) throw new Error('styles.css has no prefers-color-scheme: dark block to turn into widget themes');
  /** @param {string} host */
  const under = (host) => blocks.join('\n').replace(/([^{}]+)\{([^{}]*)\}/g, (_, selectors, body) => {
    const scoped = selectors.split(',').map((sel) => {
      const t = sel.trim();
      return t === ':host' ? host : `${host} ${t}`;
    }).join(',\n');
    return `\n${scoped} {${body}}`;
  });
  return [
    rest,
    '/* Themes: theme="light", theme="dark", or "auto" (the default) following the system. */',
    ':host([theme="light" i]) { color-scheme: light; }',
    `${DARK_FORCED} { color-scheme: dark; }`,
    under(DARK_FORCED),
    '@media screen and (prefers-color-scheme: dark) {',
    under(DARK_AUTO),
    '}',
  ].join('\n');
}

/**
 * styles.css for a shadow root: the page-level selectors (:root, html, body) become :host, and
 * :host starts from `all: initial` so nothing inherited from the host page leaks in, except the
 * font size: the widget's text is sized from the text around it.
 * @param {string} css
 */
export function shadowCss(css) {
  const scoped = css.replace(/(^|[\s,{}])(:root|html|body)(?=\s*[{,])/g, '$1:host');
  return [
    '/* Headwise widgets inside shadow roots: generated from styles.css and elements.css by web/build-embed.mjs. */',
    ':host { all: initial; display: block; font-size: inherit; --hw-rem: 1em; }',
    ':host([hidden]) { display: none !important; }',
    '',
    themedCss(hostRelativeRem(scoped)),
    // Last, so that the page's own body rule (font-size in rem, now in --hw-rem) does not size the
    // host: that would make --hw-rem depend on itself, and the browser drop it for its initial 16px.
    ':host { font-size: inherit; }',
  ].join('\n');
}

/**
 * embed.html admits its inline script by hash: refuse to build if the two have drifted apart.
 * @param {string} html
 */
export function checkInlineScriptHashes(html) {
  const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  if (!policy) throw new Error('web/embed.html has no Content-Security-Policy <meta> element');
  for (const [, body] of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
    const hash = `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
    if (!policy.includes(hash)) {
      throw new Error(`web/embed.html: its inline script hashes to ${hash}, which its Content-Security-Policy does not list (script-src must name the script's current hash)`);
    }
  }
}

/**
 * @param {{web: string, dist: string, catalogues: import('./build-i18n.mjs').Language[], indexHtml: string}} o
 *   indexHtml: the lesson page with its English filled in (build.mjs), for <mha-lesson>
 */
export async function buildEmbed({ web, dist, catalogues, indexHtml }) {
  const src = join(web, 'src');
  const common = /** @type {const} */ ({
    bundle: true, format: 'iife', target: ['es2020'], sourcemap: false, minify: true, legalComments: 'none', logLevel: 'warning',
  });
  const markup = lessonMarkup(indexHtml);
  const en = catalogues[0].data;
  await Promise.all([
    build({
      ...common,
      entryPoints: [join(src, 'embed', 'mha-elements.js')],
      outfile: join(dist, 'headwise-elements.js'),
      define: { __HEADWISE_LESSON_MARKUP__: JSON.stringify(markup) },
      plugins: [cataloguesPlugin(catalogues)],
    }),
    // The iframe page's own few sentences: only the embed.* keys of each catalogue.
    build({
      ...common, entryPoints: [join(src, 'embed', 'embed-page.js')], outfile: join(dist, 'embed-page.js'),
      plugins: [cataloguesPlugin(catalogues, { keep: (key) => key.startsWith('embed.') })],
    }),
    build({ ...common, entryPoints: [join(src, 'embed', 'embed-host.js')], outfile: join(dist, 'headwise-embed.js') }),
    build({ ...common, entryPoints: [join(src, 'embed', 'gallery.js')], outfile: join(dist, 'gallery.js') }),
  ]);
  const styles = await readStylesheet(web, 'styles.css');
  // The training section's rules too: the page loads them with the section, but a shadow root
  // has this one stylesheet.
  const training = await readStylesheet(web, 'train.css');
  const extra = await readFile(join(src, 'embed', 'elements.css'), 'utf8');
  await writeFile(join(dist, 'headwise-elements.css'), shadowCss(`${styles}\n${training}\n${extra}`));
  const embedHtml = await readFile(join(web, 'embed.html'), 'utf8');
  checkInlineScriptHashes(embedHtml);
  await writeFile(join(dist, 'embed.html'), fillTemplate(embedHtml, en));
  for (const file of ['embed-page.css', 'gallery.html', 'gallery.css']) {
    await copyFile(join(web, file), join(dist, file));
  }
  return ['headwise-elements.js', 'headwise-elements.css', 'embed.html', 'embed-page.js', 'embed-page.css', 'headwise-embed.js', 'gallery.html', 'gallery.js', 'gallery.css'];
}
