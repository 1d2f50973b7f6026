/**
 * The spec's error table (part 7) in one place. Every failure the service reports maps to one of these
 * codes; `ApiError` carries the code and a detail that tells the user what to fix.
 */
export const ERRORS = {
  E40000: { status: 400, title: 'Unknown request' },
  E40001: { status: 400, title: 'Invalid resource request' },
  E40002: { status: 400, title: 'Request body syntax error' },
  E40003: { status: 400, title: 'Invalid parameter' },
  E40004: { status: 400, title: 'Invalid test parameter' },
  E40005: { status: 400, title: 'Invalid query parameter' },
  E40006: { status: 400, title: 'Unknown filter value' },
  E40007: { status: 400, title: 'Invalid sort value' },
  E40008: { status: 400, title: 'Invalid page parameter' },
  E40009: { status: 400, title: 'Invalid tag name or description' },
  E4001: { status: 400, title: 'Invalid request parameter' },
  E40010: { status: 400, title: 'Invalid beacon' },
  E40100: { status: 401, title: 'Invalid API key' },
  E40201: { status: 402, title: 'Insufficient API credits' },
  E40300: { status: 403, title: 'E-mail address not validated' },
  E40301: { status: 403, title: 'Role has no access to this feature' },
  E40302: { status: 403, title: 'Plan lacks full PDF generation' },
  E40303: { status: 403, title: 'Update not permitted' },
  E40304: { status: 403, title: 'Beacon from a page of another origin' },
  E40305: { status: 403, title: 'Global Privacy Control honoured' },
  E40400: { status: 404, title: 'Test not found' },
  E40401: { status: 404, title: 'Report not found' },
  E40402: { status: 404, title: 'Page not found' },
  E40403: { status: 404, title: 'Browser not found' },
  E40404: { status: 404, title: 'Location not found' },
  E40405: { status: 404, title: 'Screenshot not found' },
  E40406: { status: 404, title: 'HAR not found' },
  E40407: { status: 404, title: 'Resource not found' },
  E40408: { status: 404, title: 'Simulated device not found' },
  E40409: { status: 404, title: 'Filmstrip unavailable' },
  E40410: { status: 404, title: 'Lighthouse JSON unavailable' },
  E40411: { status: 404, title: 'Optimized images unavailable' },
  E40412: { status: 404, title: 'Optimized images expired' },
  E40413: { status: 404, title: 'PageSpeed JSON unavailable' },
  E40414: { status: 404, title: 'YSlow JSON unavailable' },
  E40415: { status: 404, title: 'PageSpeed files unavailable' },
  E40416: { status: 404, title: 'PageSpeed files expired' },
  E40417: { status: 404, title: 'Tag not found' },
  E40418: { status: 404, title: 'Field site not found' },
  E40419: { status: 404, title: 'Field alert condition not found' },
  E40500: { status: 405, title: 'Method not allowed' },
  // Statuses the spec's table has no code for, named in its pattern: answers of the HTTP layer (api/errors.ts).
  E40800: { status: 408, title: 'Request timeout' },
  E41300: { status: 413, title: 'Request body too large' },
  E41500: { status: 415, title: 'Unsupported media type' },
  E41600: { status: 416, title: 'Range not satisfiable' },
  E42900: { status: 429, title: 'Too many tests pending' },
  E42901: { status: 429, title: 'Rate limit exceeded' },
  E42902: { status: 429, title: 'Another report list query is running' },
  E42903: { status: 429, title: 'Too many PDF requests' },
  E42904: { status: 429, title: 'Too many beacons' },
  E43100: { status: 431, title: 'Request header fields too large' },
  E50000: { status: 500, title: 'Internal server error' },
  E50001: { status: 500, title: 'Error generating the PDF' },
  E50002: { status: 500, title: 'Error generating Lighthouse JSON' },
  E50200: { status: 502, title: 'Application server temporarily unavailable' },
  E50300: { status: 503, title: 'Application server temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * One refused entry of a list attribute (a URL of `urls`, a condition of `alert_conditions`...): the list's name, the
 * entry's index in it (from 0) and why, as the detail says it (naming the entry `list[index]`). A form that sends a list
 * one entry a line names the line from it.
 */
export interface EntryProblem {
  list: string;
  index: number;
  detail: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    /** Extra response headers, e.g. Retry-After or the rate-limit reset. */
    readonly headers: Record<string, string> = {},
    /** Every refused entry of a list, when the detail is about them (eachEntry). */
    readonly entries: readonly EntryProblem[] = [],
  ) {
    super(detail ?? ERRORS[code].title);
    this.name = 'ApiError';
    this.status = ERRORS[code].status;
    this.title = ERRORS[code].title;
  }
}

/**
 * Each entry of the list `list` checked by `check` (given the entry, its name `list[i]` and its index), every refusal
 * gathered: one error names every bad entry, not only the first (its detail lists them in order; `entries` holds each).
 * A refusal of another code than the first's, or any other error, ends the check at once.
 */
export function eachEntry<T, E = unknown>(list: string, items: readonly E[], check: (item: E, at: string, index: number) => T): T[] {
  const out: T[] = [];
  const problems: EntryProblem[] = [];
  let code: ErrorCode | undefined;
  items.forEach((item, index) => {
    try {
      out.push(check(item, `${list}[${index}]`, index));
    } catch (err) {
      if (!(err instanceof ApiError) || (code !== undefined && err.code !== code)) throw err;
      code = err.code;
      problems.push({ list, index, detail: err.detail ?? err.title });
    }
  });
  if (code === undefined) return out;
  const detail = problems.length === 1 ? problems[0].detail
    : `${problems.length} entries of ${list} are refused: ${problems.map((p) => p.detail).join('; ')}`;
  throw new ApiError(code, detail, {}, problems);
}

/** Is `v` a plain JSON object (not null, not an array)? */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value the client gave, as an error detail quotes it: JSON, cut at 80 characters. */
export const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

/** How long a client waits before asking again when the database is away (seconds; health.ts tries it every second). */
export const DATABASE_RETRY_AFTER_S = 5;
/** ... and when the service is out of storage (an operator has to free space). */
export const STORAGE_RETRY_AFTER_S = 60;

/** The database away or the disk full (store/health.ts), as every edge answers it: 503 with Retry-After, never a 500. */
export function outageError(outage: { kind: 'database' | 'storage' }): ApiError {
  return outage.kind === 'database'
    ? new ApiError('E50300', "The service's database is unavailable right now; nothing was changed. Try again in a few seconds.",
      { 'Retry-After': String(DATABASE_RETRY_AFTER_S) })
    : new ApiError('E50300', 'The service is out of storage; nothing was changed. Try again later (the operator has been told in the log).',
      { 'Retry-After': String(STORAGE_RETRY_AFTER_S) });
}
