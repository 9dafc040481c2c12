// A static server on loopback for the benches: the project's files (dist/ and the bench page),
// cross-origin isolated, so that performance.now() in the page resolves 5 µs instead of 100 µs.
//   const server = await serve(root);   // http://127.0.0.1:${server.address().port}/dist/...
// With {gzip: true, isolate: false} it serves as a plain static host does (the load bench's
// Lighthouse runs): text gzipped for a client that accepts it, no isolation headers.
import {createReadStream, existsSync, statSync} from 'node:fs';
import http from 'node:http';
import {extname, resolve, sep} from 'node:path';
import {createGzip} from 'node:zlib';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain'
};

/** What a static host compresses. */
const TEXT = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.json', '.ts']);

/**
 * @param {string} root  the folder served (nothing outside it)
 * @param {{gzip?: boolean, isolate?: boolean}} [options]  gzip text; send COOP/COEP (default)
 * @returns {Promise<http.Server>} listening on 127.0.0.1, a port of its own
 */
export function serve(root, {gzip = false, isolate = true} = {}) {
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = resolve(root, '.' + path);
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    const zip = gzip && TEXT.has(extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] || '');
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
      'Cache-Control': 'no-store',
      ...(isolate ? {'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp'} : {}),
      ...(zip ? {'Content-Encoding': 'gzip', Vary: 'Accept-Encoding'} : {}),
    });
    const body = createReadStream(file);
    if (zip) body.pipe(createGzip()).pipe(res);
    else body.pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}
