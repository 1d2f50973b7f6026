/**
 * The `resource-summary` resource (newer variant of the spec; its shape is not given there, this is ours,
 * documented in docs/api.md "Report resources"): the requests of the load (the HAR's entries) per content type, with transfer
 * bytes (what came over the network: headers and the possibly compressed body) and decoded bytes (the body
 * after decompression), all integers.
 *
 *   {
 *     "total": { "requests": 5, "transfer_bytes": 37254, "decoded_bytes": 36517 },
 *     "content_types": [
 *       { "type": "html", "requests": 1, "transfer_bytes": 3165, "decoded_bytes": 3000 },
 *       ...
 *     ]
 *   }
 *
 * `type` is one of html, css, javascript, image, font, json, media, other, decided by the response's MIME type
 * (the resource type Chromium gave the request when the MIME type says nothing). Every type is listed, in that
 * order, with zeros when the page had none, so clients can read a type without searching.
 */
export const CONTENT_TYPES = ['html', 'css', 'javascript', 'image', 'font', 'json', 'media', 'other'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export interface ResourceCounts {
  requests: number;
  transfer_bytes: number;
  decoded_bytes: number;
}

export interface ResourceSummary {
  total: ResourceCounts;
  content_types: ({ type: ContentType } & ResourceCounts)[];
}

/** The part of a HAR entry the summary reads. */
export interface SummaryEntry {
  _resourceType?: string;
  response: { headersSize?: number; bodySize?: number; _transferSize?: number;
    content: { size?: number; mimeType?: string } };
}

export function contentTypeOf(mimeType: string | undefined, resourceType?: string): ContentType {
  const m = (mimeType ?? '').toLowerCase().split(';')[0]!.trim();
  if (m === 'text/html' || m === 'application/xhtml+xml') return 'html';
  if (m === 'text/css') return 'css';
  if (/(java|ecma)script|^text\/jsx?$|^application\/x-javascript$/.test(m)) return 'javascript';
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('font/') || /font|woff|opentype|truetype/.test(m)) return 'font';
  if (m === 'application/json' || m.endsWith('+json') || m === 'text/json') return 'json';
  if (m.startsWith('video/') || m.startsWith('audio/') || m === 'application/vnd.apple.mpegurl') return 'media';
  switch ((resourceType ?? '').toLowerCase()) {
    case 'document': return 'html';
    case 'stylesheet': return 'css';
    case 'script': return 'javascript';
    case 'image': return 'image';
    case 'font': return 'font';
    case 'media': return 'media';
  }
  return 'other';
}

const nonNegative = (n: number | undefined): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

export function resourceSummary(entries: readonly SummaryEntry[]): ResourceSummary {
  const zero = (): ResourceCounts => ({ requests: 0, transfer_bytes: 0, decoded_bytes: 0 });
  const byType = new Map<ContentType, ResourceCounts>(CONTENT_TYPES.map((t) => [t, zero()]));
  const total = zero();
  for (const e of entries) {
    const r = e.response;
    const transfer = nonNegative(r._transferSize ?? nonNegative(r.bodySize) + nonNegative(r.headersSize));
    const decoded = nonNegative(r.content.size);
    for (const c of [byType.get(contentTypeOf(r.content.mimeType, e._resourceType))!, total]) {
      c.requests += 1;
      c.transfer_bytes += Math.round(transfer);
      c.decoded_bytes += Math.round(decoded);
    }
  }
  return { total, content_types: CONTENT_TYPES.map((type) => ({ type, ...byType.get(type)! })) };
}
