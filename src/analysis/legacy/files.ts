/**
 * pagespeed-files.tar: the page's images re-encoded in their own format (sharp), and its CSS and JavaScript
 * minified (lightningcss, terser), each only when the result is smaller, with manifest.json saying which
 * file is which URL, the sizes, and why anything was left out. The same work as the PageSpeed rules
 * (bodies.ts), so pass legacyAnalysis's `bodies` to avoid doing it twice.
 */
import type { BodyStore } from '../facts.js';
import type { HarLike } from '../har.js';
import { analyseBodies, type AnalysedBodies, type AnalyseOptions, type BodyKind } from './bodies.js';
import { tar, type TarFile } from './tar.js';

export interface PagespeedFilesManifest {
  files: { path: string; url: string; kind: BodyKind; original_bytes: number; optimised_bytes: number }[];
  omitted: { url: string; reason: string }[];
}

const FOLDER: Record<Exclude<BodyKind, 'html'>, string> = { image: 'images', css: 'css', js: 'js' };

/** A short, safe archive name that keeps the file's extension: images/003-logo.png. */
export function archiveName(folder: string, index: number, url: string): string {
  let base = 'file';
  try {
    base = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '') || 'file';
  } catch {
    // keep "file"
  }
  base = base.replace(/[^A-Za-z0-9._-]+/g, '_');
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot).slice(0, 10) : '';
  const stem = (dot > 0 ? base.slice(0, dot) : base).slice(0, 60);
  return `${folder}/${String(index).padStart(3, '0')}-${stem}${ext}`;
}

export async function buildPagespeedFiles(har: HarLike, bodies: BodyStore,
  options: {
    analysed?: AnalysedBodies; limits?: AnalyseOptions; mtime?: number;
    /** Applied to every URL, name and CSS/JS text that goes into the archive (the test's secret scrubber). */
    scrub?: (text: string) => string;
  } = {}): Promise<Buffer> {
  const analysed = options.analysed ?? await analyseBodies(har, bodies, options.limits);
  const scrub = options.scrub ?? ((text: string) => text);
  const manifest: PagespeedFilesManifest = { files: [], omitted: [] };
  const files: TarFile[] = [];
  let index = 0;
  for (const body of analysed.byUrl.values()) {
    if (body.kind === 'html') continue;
    if (!body.output) {
      manifest.omitted.push({ url: scrub(body.url), reason: body.note ?? 'already optimal: the optimised version is not smaller' });
      continue;
    }
    const path = archiveName(FOLDER[body.kind], ++index, scrub(body.url));
    const data = body.kind === 'image' || !options.scrub ? body.output : Buffer.from(scrub(body.output.toString('utf8')));
    files.push({ name: path, data });
    manifest.files.push({ path, url: scrub(body.url), kind: body.kind, original_bytes: body.bytes, optimised_bytes: data.length });
  }
  for (const url of analysed.missing) manifest.omitted.push({ url: scrub(url), reason: 'response body not captured' });
  for (const url of analysed.skipped) manifest.omitted.push({ url: scrub(url), reason: 'over the size or count limit' });
  files.unshift({ name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest, null, 2)) });
  return tar(files, options.mtime);
}
