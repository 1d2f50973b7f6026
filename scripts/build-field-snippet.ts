/**
 * Builds the field snippet (issue 50, point 2): web-vitals' attribution build (its IIFE, which defines `var webVitals`)
 * inside our glue (src/web/field-snippet/glue.js, where WEB_VITALS stands), all in one function, so that nothing
 * reaches the page's globals and a page view left out never runs it; minified by terser into dist/web/field/snippet.js.
 * Prints its size raw, gzip and brotli; over 6 KB either way compressed, the build fails. web-vitals' attribution build
 * alone is 5.4 KB gzip (4.9 KB brotli), which left the glue too little: its soft navigations are taken out (see
 * SOFT_NAVS), and the whole is 5.8 KB gzip, 5.3 KB brotli. Run by `npm run build`; the browser test
 * (test/integration/field-snippet.test.ts) builds it from the sources too.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { minify } from 'terser';

const root = resolve(import.meta.dirname, '..');
/** The most the snippet may weigh compressed, gzip and brotli alike. */
export const SNIPPET_LIMIT = 6 * 1024;

/**
 * web-vitals' test for soft navigations (checkSoftNavsEnabled: the browser supports them and the caller asked with
 * `reportSoftNavs`), in its minified IIFE. The snippet never asks, and a beacon cannot carry a soft navigation anyway
 * (beacon.ts's navigation types): the test is replaced by `false`, and terser drops every branch behind it (0.26 KB
 * gzip). Found exactly once, or the build fails (a new web-vitals: look again).
 */
const SOFT_NAVS = /(\b\w+=)(\w+)=>globalThis\.PerformanceObserver\?\.supportedEntryTypes\?\.includes\("soft-navigation"\)&&[^,]*?\2\.reportSoftNavs(?=,)/g;

export interface BuiltSnippet { code: string; raw: number; gzip: number; brotli: number }

export async function buildFieldSnippet(out: string | null = join(root, 'dist/web/field/snippet.js')): Promise<BuiltSnippet> {
  // The package's exports do not list its IIFE builds: found beside its entry point.
  const pkg = dirname(dirname(createRequire(import.meta.url).resolve('web-vitals')));
  const iife = readFileSync(join(pkg, 'dist/web-vitals.attribution.iife.js'), 'utf8').replace(/\/\/# sourceMappingURL=.*$/m, '');
  const found = iife.match(SOFT_NAVS)?.length ?? 0;
  if (found !== 1) throw new Error(`web-vitals' soft navigation test found ${found} times in its IIFE, not once`);
  const vitals = iife.replace(SOFT_NAVS, '$1()=>!1');
  if (!/^var webVitals=/.test(vitals)) throw new Error('web-vitals\' attribution IIFE no longer starts with var webVitals=');
  const glue = readFileSync(join(root, 'src/web/field-snippet/glue.js'), 'utf8');
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  if (!glue.includes('WEB_VITALS;')) throw new Error('the glue has no WEB_VITALS; where web-vitals goes');
  // A function's body, not a module: `var webVitals` stays local, and so does every name of the glue.
  const source = `(()=>{${glue.replace('WEB_VITALS;', () => vitals)}\n})();`;
  const { code } = await minify(source, { ecma: 2020, compress: { passes: 3 }, mangle: true,
    format: { comments: false, preamble: `/* Webgauge field snippet; web-vitals ${version} (Apache-2.0) */` } });
  if (!code) throw new Error('terser produced nothing');
  const built = {
    code,
    raw: Buffer.byteLength(code),
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
  if (built.gzip > SNIPPET_LIMIT || built.brotli > SNIPPET_LIMIT) {
    throw new Error(`the field snippet is ${built.gzip} bytes gzip, ${built.brotli} brotli: over ${SNIPPET_LIMIT}`);
  }
  if (out) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
  }
  return built;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const s = await buildFieldSnippet();
  console.log(`field snippet: ${s.raw} bytes, ${s.gzip} gzip, ${s.brotli} brotli (limit ${SNIPPET_LIMIT} each compressed)`);
}
