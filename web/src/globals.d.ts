// What the type check of web/src (web/tsconfig.json) cannot read from the code itself.

/** The lesson page's <main>, put in by the build (web/build-embed.mjs's esbuild `define`). */
declare const __HEADWISE_LESSON_MARKUP__: string;

/** The two functions of Node's fs that src/shared/i18n/catalogues.js (read by Node tests only) uses. */
declare module 'node:fs' {
  export function readFileSync(path: URL | string, encoding: 'utf8'): string;
  export function readdirSync(path: URL | string): string[];
}
