/**
 * What the response bodies tell the legacy rules, worked out once per report: the text of CSS, JS and HTML
 * (for YSlow's scans), their minified and gzipped sizes, and images re-encoded in their own format. The
 * smaller outputs are kept for pagespeed-files.tar, so the archive holds exactly what the rules promised.
 *
 * Minifiers: terser (JS: whitespace, comments, local names; no compression passes, so behaviour is kept),
 * lightningcss (CSS), a conservative whitespace/comment pass for HTML. Images: sharp, same format —
 * JPEG re-encoded with mozjpeg at quality 85, PNG losslessly at the highest zlib effort, WebP at quality 80,
 * GIF (animation kept) at the highest effort; other formats are not touched. Bounded by AnalyseOptions.
 */
import { gzipSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import { minify as terser } from 'terser';
import { transform as lightningcss } from 'lightningcss';
import type { BodyStore } from '../facts.js';
import { isCompressible, isOk, kindOf, mimeType, type HarLike } from '../har.js';

export type BodyKind = 'html' | 'css' | 'js' | 'image';

export interface AnalysedBody {
  url: string;
  kind: BodyKind;
  mimeType: string;
  /** Decoded body bytes. */
  bytes: number;
  /** Source text of HTML, CSS and JS. */
  text?: string;
  /** Size after minification (text) or re-encoding (images); undefined when that failed or was not tried. */
  optimisedBytes?: number;
  /** gzip (level 6) size of a compressible body. */
  gzipBytes?: number;
  /** The minified or re-encoded body, kept only when it is smaller. Not for HTML. */
  output?: Buffer;
  /** Why there is no optimisedBytes (minifier error, unsupported format). */
  note?: string;
}

export interface AnalysedBodies {
  byUrl: Map<string, AnalysedBody>;
  /** URLs whose body the store did not have. */
  missing: string[];
  /** URLs left out by the limits of AnalyseOptions. */
  skipped: string[];
}

export interface AnalyseOptions {
  maxImages?: number;
  maxImageBytes?: number;
  maxTextBytes?: number;
}

const DEFAULTS: Required<AnalyseOptions> = { maxImages: 60, maxImageBytes: 8 * 1024 * 1024, maxTextBytes: 3 * 1024 * 1024 };

const bodyKind = (kind: ReturnType<typeof kindOf>): BodyKind | undefined =>
  kind === 'document' ? 'html' : kind === 'stylesheet' ? 'css' : kind === 'script' ? 'js' : kind === 'image' ? 'image' : undefined;

export async function analyseBodies(har: HarLike, store: BodyStore, options: AnalyseOptions = {}): Promise<AnalysedBodies> {
  const limits = { ...DEFAULTS, ...options };
  const result: AnalysedBodies = { byUrl: new Map(), missing: [], skipped: [] };
  let images = 0;
  for (const e of har.log.entries) {
    const kind = bodyKind(kindOf(e));
    const url = e.request.url;
    if (!kind || !isOk(e) || result.byUrl.has(url) || url.startsWith('data:')) continue;
    let body: Buffer | undefined;
    try {
      body = await store.get(url);
    } catch {
      body = undefined;
    }
    if (!body) {
      result.missing.push(url);
      continue;
    }
    const mime = mimeType(e);
    if (kind === 'image') {
      if (images >= limits.maxImages || body.length > limits.maxImageBytes) {
        result.skipped.push(url);
        continue;
      }
      images++;
      result.byUrl.set(url, await analyseImage(url, mime, body));
    } else {
      if (body.length > limits.maxTextBytes) {
        result.skipped.push(url);
        continue;
      }
      const analysed = await analyseText(url, kind, mime, body);
      if (isCompressible(e)) analysed.gzipBytes = gzipSync(body, { level: 6 }).length;
      result.byUrl.set(url, analysed);
    }
  }
  return result;
}

export async function analyseText(url: string, kind: Exclude<BodyKind, 'image'>, mime: string, body: Buffer): Promise<AnalysedBody> {
  const text = body.toString('utf8');
  const analysed: AnalysedBody = { url, kind, mimeType: mime, bytes: body.length, text };
  try {
    const minified = kind === 'js' ? await minifyJs(text) : kind === 'css' ? minifyCss(url, body) : minifyHtml(text);
    analysed.optimisedBytes = Buffer.byteLength(minified);
    if (kind !== 'html' && analysed.optimisedBytes < body.length) analysed.output = Buffer.from(minified);
  } catch (err) {
    analysed.note = `could not be minified: ${(err as Error).message.split('\n')[0].slice(0, 200)}`;
  }
  return analysed;
}

async function minifyJs(text: string): Promise<string> {
  const out = await terser(text, { compress: false, mangle: true, format: { comments: 'some' } });
  if (typeof out.code !== 'string') throw new Error('terser returned nothing');
  return out.code;
}

function minifyCss(url: string, body: Buffer): string {
  const out = lightningcss({ filename: url, code: body, minify: true, errorRecovery: true });
  return Buffer.from(out.code).toString('utf8');
}

/**
 * Removes comments (not IE conditional ones) and collapses runs of whitespace outside <pre>, <textarea>,
 * <script> and <style>: only what HTML's own whitespace rules make safe. An estimate of MinifyHTML's saving.
 */
export function minifyHtml(html: string): string {
  const parts = html.split(/(<(pre|textarea|script|style)\b[\s\S]*?<\/\2\s*>)/i);
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (i % 3 === 1) out += part; // protected element, verbatim
    else if (i % 3 === 0) out += part.replace(/<!--(?!\[if|<!|>)[\s\S]*?-->/g, '').replace(/\s{2,}/g, (ws) => (ws.includes('\n') ? '\n' : ' '));
    // i % 3 === 2 is the captured tag name, already inside the protected part
  }
  return out;
}

const REENCODERS: Record<string, (img: Sharp) => Sharp> = {
  jpeg: (img) => img.rotate().jpeg({ quality: 85, mozjpeg: true }),
  png: (img) => img.png({ compressionLevel: 9, effort: 10, adaptiveFiltering: true }),
  webp: (img) => img.webp({ quality: 80, effort: 6 }),
  gif: (img) => img.gif({ effort: 10 }),
};

export async function analyseImage(url: string, mime: string, body: Buffer): Promise<AnalysedBody> {
  const analysed: AnalysedBody = { url, kind: 'image', mimeType: mime, bytes: body.length };
  try {
    const { format, pages } = await sharp(body, { failOn: 'none' }).metadata();
    const reencode = format ? REENCODERS[format] : undefined;
    if (!reencode) {
      analysed.note = `${format ?? 'unknown'} images are not re-encoded`;
      return analysed;
    }
    const output = await reencode(sharp(body, { failOn: 'none', animated: (pages ?? 1) > 1 })).toBuffer();
    analysed.optimisedBytes = output.length;
    if (output.length < body.length) analysed.output = output;
  } catch (err) {
    analysed.note = `could not be decoded: ${(err as Error).message.slice(0, 200)}`;
  }
  return analysed;
}
