/**
 * optimized-images.tar (spec 4.2, Lighthouse reports): every image of the page, as the browser received it
 * during the test, re-encoded smaller with sharp. Built lazily on the first request (not in the test slot) and
 * kept; available for 24 hours after the report was created (spec 8), then 404 E40412 and the sources are
 * removed.
 *
 * Each image keeps its format (JPEG: mozjpeg quality 85; PNG: lossless, highest zlib effort; WebP quality 80;
 * GIF, animated too; AVIF quality 50), is turned upright by its EXIF orientation, converted to sRGB and
 * stripped of metadata; `?format=webp` or `?format=avif` asks for that modern format instead (a separate
 * archive). An image goes in only when the result is smaller; manifest.json, the archive's first file, lists
 * every image: its archive path, URL and both sizes, or why it was left out (already optimal, a format
 * sharp does not write, such as SVG or ICO, or undecodable).
 */
import sharp, { type Metadata, type Sharp } from 'sharp';
import { tar, type TarFile } from '../../analysis/legacy/tar.js';
import { objectWithArray, readJsonArtifact, type ArtifactStore } from '../../artifacts/store.js';
import { ApiError } from '../errors.js';
import { ARTIFACT, artifactKey, optimizedImagesState, type ImageIndex, type ReportRow } from './reports.js';

export { OPTIMIZED_IMAGES_TTL_MS, optimizedImagesState } from './reports.js';

export const MODERN_FORMATS = ['webp', 'avif'] as const;
export type ModernFormat = (typeof MODERN_FORMATS)[number];

export interface OptimizedImagesManifest {
  files: { path: string; url: string; format: string; original_bytes: number; optimised_bytes: number }[];
  omitted: { url: string; reason: string }[];
}

type Encoder = (img: Sharp) => Sharp;
const SAME_FORMAT: Record<string, Encoder> = {
  jpeg: (img) => img.jpeg({ quality: 85, mozjpeg: true }),
  png: (img) => img.png({ compressionLevel: 9, effort: 10, adaptiveFiltering: true }),
  webp: (img) => img.webp({ quality: 80, effort: 6 }),
  gif: (img) => img.gif({ effort: 10 }),
  heif: (img) => img.avif({ quality: 50, effort: 4 }),
};
const TO_FORMAT: Record<ModernFormat, Encoder> = {
  webp: (img) => img.webp({ quality: 80, effort: 6 }),
  avif: (img) => img.avif({ quality: 50, effort: 4 }),
};
const EXTENSION: Record<string, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif', heif: 'avif', avif: 'avif' };

export type ImagesOutcome =
  | { ok: true; tar: Buffer }
  | { ok: false; reason: 'not-applicable' | 'expired' };

/** Short, safe archive name keeping a readable stem: images/003-logo.webp. */
function archiveName(index: number, url: string, ext: string): string {
  let base = 'image';
  try {
    base = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '') || 'image';
  } catch {
    // keep "image"
  }
  const stem = base.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'image';
  return `images/${String(index).padStart(3, '0')}-${stem}.${ext}`;
}

async function optimise(body: Buffer, format: ModernFormat | undefined): Promise<{ data: Buffer; format: string } |
  { omitted: string }> {
  let meta: Metadata;
  try {
    meta = await sharp(body, { failOn: 'none' }).metadata();
  } catch {
    return { omitted: 'not an image sharp can decode' };
  }
  if (meta.format === 'heif' && meta.compression !== 'av1') return { omitted: 'HEIC images are not re-encoded' };
  const source = meta.format ?? '';
  if (!SAME_FORMAT[source]) return { omitted: `${meta.format ?? 'unknown'} is not re-encoded (not a raster format sharp writes)` };
  const animated = (meta.pages ?? 1) > 1;
  const encode = format && !(format === 'avif' && animated) ? TO_FORMAT[format] : SAME_FORMAT[source];
  const out = format && encode === TO_FORMAT[format] ? format : source;
  // rotate(): turn upright by the EXIF orientation before the metadata goes.
  const data = await encode(sharp(body, { failOn: 'none', animated }).rotate()).toBuffer();
  return { data, format: out };
}

/** Builds the archive from the captured sources. */
export async function buildOptimizedImages(artifacts: ArtifactStore, reportId: string, format?: ModernFormat,
  mtime?: number): Promise<Buffer> {
  const stored = await readJsonArtifact(artifacts, artifactKey(reportId, ARTIFACT.imageIndex), objectWithArray<ImageIndex>('images'));
  if (stored.state === 'damaged') throw new ApiError('E40411', 'The stored images of this report are damaged and cannot be read; run a new test.');
  const index = stored.state === 'ok' ? stored.value : { images: [] };
  const manifest: OptimizedImagesManifest = { files: [], omitted: [] };
  const files: TarFile[] = [];
  let n = 0;
  for (const img of index.images) {
    const body = await artifacts.get(artifactKey(reportId, ARTIFACT.image(Number(img.id))));
    if (!body) {
      manifest.omitted.push({ url: img.url, reason: 'the image is no longer stored' });
      continue;
    }
    const result = await optimise(body, format).catch((err: Error) => ({ omitted: `re-encoding failed: ${err.message}` }));
    if ('omitted' in result) {
      manifest.omitted.push({ url: img.url, reason: result.omitted });
    } else if (result.data.length >= body.length) {
      manifest.omitted.push({ url: img.url, reason: 'already optimal: the re-encoded image is not smaller' });
    } else {
      const path = archiveName(++n, img.url, EXTENSION[result.format] ?? result.format);
      files.push({ name: path, data: result.data });
      manifest.files.push({ path, url: img.url, format: result.format, original_bytes: body.length,
        optimised_bytes: result.data.length });
    }
  }
  files.unshift({ name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest, null, 2)) });
  return tar(files, mtime);
}

const building = new Map<string, Promise<Buffer>>();

/**
 * The archive for a report: the kept one, or built now (one build per report and format at a time; a second
 * request waits for the first). After the 24 hours the sources and any archive are removed.
 */
export async function optimizedImages(artifacts: ArtifactStore, report: ReportRow, now: number,
  format?: ModernFormat): Promise<ImagesOutcome> {
  const state = optimizedImagesState(report, now);
  if (state === 'expired') {
    await removeImageSources(artifacts, report.id);
    return { ok: false, reason: 'expired' };
  }
  if (state === 'not-applicable') return { ok: false, reason: 'not-applicable' };
  const key = artifactKey(report.id, ARTIFACT.optimizedImages(format));
  const kept = await artifacts.get(key);
  if (kept) return { ok: true, tar: kept };
  let build = building.get(key);
  if (!build) {
    build = (async () => {
      const data = await buildOptimizedImages(artifacts, report.id, format, Math.floor(report.created / 1000));
      await artifacts.put(key, data);
      return data;
    })().finally(() => building.delete(key));
    building.set(key, build);
  }
  return { ok: true, tar: await build };
}

/** Removes the image sources and archives of a report (past its 24 hours). */
export async function removeImageSources(artifacts: ArtifactStore, reportId: string): Promise<void> {
  await artifacts.removePrefix(`${reportId}/images`);
  await Promise.all([undefined, ...MODERN_FORMATS].map((f) =>
    artifacts.removePrefix(artifactKey(reportId, ARTIFACT.optimizedImages(f)))));
}
