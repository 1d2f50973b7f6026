/**
 * A run's result as one upload (agent protocol, docs/agent-protocol.md): "WGR1", the length of a JSON part as a
 * 32-bit big-endian integer, the JSON part, then every binary part (screenshot, filmstrip frames, video, images,
 * response bodies) back to back. In the JSON a Buffer is a reference to its bytes and a Map a list of entries, so
 * the result comes back exactly as the runner made it, without base64's third more bytes. The sender puts the
 * SHA-256 of the whole bundle in a header; the server checks it before it reads anything.
 */
import { createHash } from 'node:crypto';
import type { RunsFile } from '../core/tests/runs.js';
import type { RunResult } from '../runner/types.js';

const MAGIC = Buffer.from('WGR1');
// Keys no page can put into a HAR or a Lighthouse result (they hold no object keys of the page's choosing).
const BLOB = '\u0000blob';
const MAP = '\u0000map';

export interface ResultUpload {
  result: RunResult;
  runs?: RunsFile;
}

export class BundleError extends Error {}

export function encodeBundle(upload: ResultUpload): Buffer {
  const blobs: Buffer[] = [];
  let offset = 0;
  const json = JSON.stringify(upload, function (this: Record<string, unknown>, key: string, value: unknown) {
    // Buffer.toJSON has already run on `value`: the original is this[key].
    const original = key === '' ? value : this[key];
    if (Buffer.isBuffer(original)) {
      blobs.push(original);
      const ref = { [BLOB]: [offset, original.length] };
      offset += original.length;
      return ref;
    }
    if (original instanceof Map) return { [MAP]: [...original.entries()] };
    return value;
  });
  const head = Buffer.alloc(8);
  MAGIC.copy(head, 0);
  const body = Buffer.from(json);
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body, ...blobs]);
}

export function bundleChecksum(bundle: Buffer): string {
  return createHash('sha256').update(bundle).digest('hex');
}

const isRef = (v: unknown, key: string): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && key in v;

export function decodeBundle(bundle: Buffer): ResultUpload {
  if (bundle.length < 8 || !bundle.subarray(0, 4).equals(MAGIC)) throw new BundleError('not a result bundle (no WGR1 header)');
  const jsonLength = bundle.readUInt32BE(4);
  if (8 + jsonLength > bundle.length) throw new BundleError('the bundle is shorter than its JSON part says');
  const blobs = bundle.subarray(8 + jsonLength);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bundle.subarray(8, 8 + jsonLength).toString('utf8'), (_key, value: unknown) => {
      if (isRef(value, BLOB)) {
        const ref = value[BLOB];
        if (!Array.isArray(ref) || ref.length !== 2 || !ref.every((n) => Number.isSafeInteger(n) && n >= 0) || ref[0] + ref[1] > blobs.length) {
          throw new BundleError('a binary part lies outside the bundle');
        }
        // A copy: the upload's buffer is not kept alive by one small screenshot.
        return Buffer.from(blobs.subarray(ref[0], ref[0] + ref[1]));
      }
      if (isRef(value, MAP)) {
        const entries = value[MAP];
        if (!Array.isArray(entries)) throw new BundleError('a map part is not a list');
        return new Map(entries as [unknown, unknown][]);
      }
      return value;
    });
  } catch (err) {
    if (err instanceof BundleError) throw err;
    throw new BundleError(`the JSON part does not parse: ${(err as Error).message}`);
  }
  return checkUpload(parsed);
}

/** The shape the server relies on before it hands the result to core (which reads every field it uses). */
function checkUpload(v: unknown): ResultUpload {
  if (typeof v !== 'object' || v === null) throw new BundleError('the JSON part is not an object');
  const { result, runs } = v as { result?: unknown; runs?: unknown };
  if (typeof result !== 'object' || result === null) throw new BundleError('the bundle has no result');
  const r = result as Record<string, unknown>;
  const missing = ['finalUrl', 'userAgent', 'metrics', 'har', 'screenshot', 'filmstrip', 'phases'].filter((k) => r[k] === undefined);
  if (missing.length > 0) throw new BundleError(`the result lacks ${missing.join(', ')}`);
  if (!Buffer.isBuffer(r.screenshot)) throw new BundleError('the screenshot is not a binary part');
  if (!Array.isArray(r.filmstrip)) throw new BundleError('the filmstrip is not a list');
  if (runs !== undefined) {
    const f = runs as Record<string, unknown>;
    if (typeof f !== 'object' || f === null || !Array.isArray(f.runs) || typeof f.count !== 'number' || typeof f.median_run !== 'number') {
      throw new BundleError('runs is not a runs.json');
    }
  }
  return v as ResultUpload;
}
