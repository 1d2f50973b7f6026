/**
 * The field snippet (issue 50, point 2): built by `npm run build` (scripts/build-field-snippet.ts) from the web-vitals
 * package's attribution build and our glue (web/field-snippet/glue.js) into dist/web/field/snippet.js, and served by
 * the service under a name that changes with its content, cached for a year like the app's assets, loadable from any
 * origin (customers' pages load it).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

const CANDIDATES = ['./field/snippet.js', '../../dist/web/field/snippet.js'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

function findSnippet(): string {
  const file = CANDIDATES.find((f) => existsSync(f));
  if (!file) throw new Error(`the field snippet is not built (looked for ${CANDIDATES.join(', ')}); run npm run build`);
  return file;
}

export const FIELD_SNIPPET_FILE = findSnippet();
const snippet = readFileSync(FIELD_SNIPPET_FILE);
export const FIELD_SNIPPET_PATH = `/assets/field.${createHash('sha256').update(snippet).digest('hex').slice(0, 12)}.js`;

/** Compressed once, at start: every visitor of every site fetches it (about 5.5 KB brotli, 6.0 KB gzip, 16.7 KB plain). */
const encoded = {
  br: brotliCompressSync(snippet, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  gzip: gzipSync(snippet, { level: 9 }),
};

/** The encoding to send for an Accept-Encoding header: brotli, else gzip, else none. */
export function snippetEncoding(accept: string | undefined): 'br' | 'gzip' | undefined {
  const asked = (accept ?? '').toLowerCase().split(',').map((e) => e.trim().split(';'));
  const takes = (name: string) => asked.some(([e, q]) => e === name && !/^q=0(\.0*)?$/.test((q ?? '').trim()));
  return takes('br') ? 'br' : takes('gzip') ? 'gzip' : undefined;
}

export function registerFieldSnippet(app: FastifyInstance): void {
  app.get(FIELD_SNIPPET_PATH, async (req, reply) => {
    reply.header('Cache-Control', 'public, max-age=31536000, immutable').header('X-Content-Type-Options', 'nosniff')
      .header('Access-Control-Allow-Origin', '*').header('Cross-Origin-Resource-Policy', 'cross-origin').header('Vary', 'Accept-Encoding')
      .type('text/javascript; charset=utf-8');
    const encoding = snippetEncoding(req.headers['accept-encoding']);
    return encoding ? reply.header('Content-Encoding', encoding).send(encoded[encoding]) : reply.send(snippet);
  });
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The one tag to paste: the site's ID, and its settings the browser needs where they are not the defaults. */
export function fieldSnippetTag(origin: string, site: { id: string; sampleRate: number; keepQuery: boolean; honourGpc: boolean }): string {
  let tag = `<script async src="${attr(origin + FIELD_SNIPPET_PATH)}" data-site="${attr(site.id)}"`;
  if (site.sampleRate !== 100) tag += ` data-sample="${site.sampleRate}"`;
  if (site.keepQuery) tag += ' data-query="keep"';
  if (!site.honourGpc) tag += ' data-gpc="ignore"';
  return `${tag}></script>`;
}
