/**
 * HTTP Range requests (RFC 9110 §14) for video.mp4, on the API and on the public report page alike: one byte
 * range (`bytes=0-499`, `bytes=500-`, `bytes=-500`) is answered 206 with Content-Range; several ranges are
 * answered with the whole file (200, which the RFC allows); a malformed header or a range that lies wholly
 * past the end is 416 (the API's E41600) with `Content-Range: bytes *\/<size>`.
 */
import type { FastifyReply } from 'fastify';
import type { ArtifactStore } from '../artifacts/store.js';

export type RangeAnswer =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable'; reason: string };

export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!m) return { kind: 'unsatisfiable', reason: `"${header}" is not a byte range; use e.g. "bytes=0-1023"` };
  const specs = m[1].split(',').map((s) => s.trim()).filter(Boolean);
  const parsed = specs.map((s) => /^(\d*)\s*-\s*(\d*)$/.exec(s));
  if (specs.length === 0 || parsed.some((p) => !p || (p[1] === '' && p[2] === ''))) {
    return { kind: 'unsatisfiable', reason: `"${header}" is not a valid byte range; use e.g. "bytes=0-1023", "bytes=1024-" or "bytes=-1024"` };
  }
  for (const p of parsed) {
    if (p![1] !== '' && p![2] !== '' && Number(p![2]) < Number(p![1])) {
      return { kind: 'unsatisfiable', reason: `"${header}": the last byte comes before the first` };
    }
  }
  if (specs.length > 1) return { kind: 'full' };
  const [, first, last] = parsed[0]!;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable', reason: `"${header}" asks for no bytes` };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return { kind: 'unsatisfiable', reason: `"${header}" starts past the end of the ${size}-byte file` };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'partial', start, end };
}

/**
 * Sends a stored file honouring Range; calls `refuse` (which throws or answers 416) for an unsatisfiable range.
 */
export async function sendRanged(reply: FastifyReply, artifacts: ArtifactStore, key: string, size: number,
  type: string, range: string | undefined, refuse: (reason: string) => FastifyReply): Promise<FastifyReply> {
  reply.header('Accept-Ranges', 'bytes').type(type);
  const answer = parseRange(range, size);
  if (answer.kind === 'unsatisfiable') {
    reply.header('Content-Range', `bytes */${size}`);
    return refuse(answer.reason);
  }
  if (answer.kind === 'full') return reply.code(200).header('Content-Length', String(size)).send(artifacts.stream(key));
  const { start, end } = answer;
  return reply.code(206)
    .header('Content-Range', `bytes ${start}-${end}/${size}`)
    .header('Content-Length', String(end - start + 1))
    .send(artifacts.stream(key, { start, end }));
}
