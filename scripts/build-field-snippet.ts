/**
 * Builds the field snippet (issue 50, point 2): web-vitals' attribution build (its IIFE, which defines `var webVitals`)
 * inside our glue (src/web/field-snippet/glue.js, where WEB_VITALS stands), all in one function, so that nothing
 * leaks into the page's globals and a page view left out never runs it,
 * minified by terser into dist/web/field/snippet.js. Prints its size raw, gzip and brotli: as browsers receive it
 * (brotli, which every browser asks for over HTTPS) it must stay under 6 KB, or the build fails. web-vitals' attribution
 * build alone is 5.4 KB gzip, 4.9 KB brotli; the glue adds about 0.8 KB. Run by `npm run build`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { minify } from 'terser';

const root = resolve(import.meta.dirname, '..');
const LIMIT = 6 * 1024;

export async function buildFieldSnippet(out = join(root, 'dist/web/field/snippet.js')): Promise<{ raw: number; gzip: number; brotli: number }> {
  // The package's exports do not list its IIFE builds: found beside its entry point.
  const pkg = dirname(dirname(createRequire(import.meta.url).resolve('web-vitals')));
  const vitals = readFileSync(join(pkg, 'dist/web-vitals.attribution.iife.js'), 'utf8').replace(/\/\/# sourceMappingURL=.*$/m, '');
  const glue = readFileSync(join(root, 'src/web/field-snippet/glue.js'), 'utf8');
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  if (!glue.includes('WEB_VITALS;')) throw new Error('the glue has no WEB_VITALS; where web-vitals goes');
  const source = `(function(){${glue.replace('WEB_VITALS;', () => vitals)}\n})();`;
  const { code } = await minify(source, { compress: { passes: 2 }, mangle: true, format: { comments: false, preamble: `/* Webgauge field snippet; web-vitals ${version} (Apache-2.0) */` } });
  if (!code) throw new Error('terser produced nothing');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
  const sizes = {
    raw: Buffer.byteLength(code),
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
  if (sizes.brotli > LIMIT) throw new Error(`the field snippet is ${sizes.brotli} bytes brotli: over ${LIMIT}`);
  return sizes;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const s = await buildFieldSnippet();
  console.log(`field snippet: ${s.raw} bytes, ${s.gzip} gzip, ${s.brotli} brotli (limit ${LIMIT} brotli)`);
}
