/**
 * How a test's options are stored (tests, reports and pages rows): as JSON, with the secret fields (the HTTP
 * auth password and the cookies) sealed by the store's SecretBox into one `sealed` field. Rows written before
 * encryption hold them in the clear; they are read as they are, and sealed at start (sealStoredOptions).
 * Every read of stored options goes through readOptions.
 */
import type { Store } from '../../store/db.js';
import type { SecretBox } from '../../store/secret-box.js';
import { rewriteOptions, rowsMaybeHoldingSecrets } from '../../store/stored-options.js';
import type { AnalysisOptions, Flag } from './analysis-options.js';
import { optionsFingerprint } from './options.js';
import type { SecretOption } from '../vocabulary/options.js';
import { REPORT_TYPE_NAMES } from '../vocabulary/report-types.js';
import type { Recording } from './journey.js';
import { RETENTION_MONTHS } from '../vocabulary/retentions.js';
import { DEVICE_CLASS_IDS } from '../vocabulary/device-classes.js';

/** The sealed fields: the options table's secret options (checked both ways below). */
interface Secrets {
  httpauth_password?: string;
  cookies: string[];
  journey?: Recording;
  journey_secrets?: Record<string, string>;
}
type SecretMismatch = Exclude<SecretOption, keyof Secrets> | Exclude<keyof Secrets, SecretOption>;
const secretsAreTheTables: [SecretMismatch] extends [never] ? true : SecretMismatch = true;
void secretsAreTheTables;

type Stored = Omit<AnalysisOptions, keyof Secrets> & Partial<Secrets> & { sealed?: string };

/** Stored options that are not what storeOptions writes (a damaged or foreign row). */
export class StoredOptionsError extends Error {}

/** The fields of a parsed JSON object, read with their types checked (the one mapping from text to Stored). */
class Fields {
  private readonly o: Record<string, unknown>;
  constructor(text: string) {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new StoredOptionsError('stored options are not a JSON object');
    this.o = { ...parsed };
  }
  private bad(name: string, what: string): never {
    throw new StoredOptionsError(`stored options: "${name}" is not ${what}`);
  }
  string(name: string): string {
    const v = this.o[name];
    return typeof v === 'string' ? v : this.bad(name, 'a string');
  }
  optionalString(name: string): string | undefined {
    return this.o[name] === undefined ? undefined : this.string(name);
  }
  optionalNumber(name: string): number | undefined {
    const v = this.o[name];
    if (v === undefined) return undefined;
    return typeof v === 'number' && Number.isFinite(v) ? v : this.bad(name, 'a number');
  }
  /** A 0/1 flag; absent in rows written before the option existed: 0. */
  flag(name: string): Flag {
    const v = this.o[name] ?? 0;
    return v === 0 || v === 1 ? v : this.bad(name, '0 or 1');
  }
  /** A list of strings; absent in rows written before the option existed: []. */
  strings(name: string): string[] {
    const v = this.o[name] ?? [];
    if (!Array.isArray(v)) return this.bad(name, 'a list of strings');
    return v.map((x: unknown) => (typeof x === 'string' ? x : this.bad(name, 'a list of strings')));
  }
  /** A recording as core/options/journey.ts accepted it (an object with a title and steps). */
  optionalRecording(name: string): Recording | undefined {
    const v = this.o[name];
    if (v === undefined) return undefined;
    const ok = typeof v === 'object' && v !== null && typeof (v as Recording).title === 'string' && Array.isArray((v as Recording).steps);
    return ok ? v as Recording : this.bad(name, 'a recording');
  }
  /** Names and string values (journey_secrets). */
  optionalStringMap(name: string): Record<string, string> | undefined {
    const v = this.o[name];
    if (v === undefined) return undefined;
    const ok = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
    return ok ? { ...(v as Record<string, string>) } : this.bad(name, 'an object of strings');
  }
  optionalOneOf<T extends string | number>(name: string, allowed: readonly T[]): T | undefined {
    return this.o[name] === undefined ? undefined : this.oneOf(name, allowed);
  }
  oneOf<T extends string | number>(name: string, allowed: readonly T[]): T {
    const found = allowed.find((a) => a === this.o[name]);
    return found !== undefined ? found : this.bad(name, `one of ${allowed.join(', ')}`);
  }
}

/** Optional fields are absent, not undefined, in AnalysisOptions (their JSON and fingerprint depend on it). */
function withOptional<T extends object>(target: T, fields: Partial<T>): T {
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) Object.assign(target, { [k]: v });
  return target;
}

function parseStored(text: string): Stored {
  const f = new Fields(text);
  const stored: Stored = {
    url: f.string('url'),
    location: f.string('location'),
    browser: f.string('browser'),
    report: f.oneOf('report', REPORT_TYPE_NAMES),
    retention: f.oneOf('retention', RETENTION_MONTHS),
    adblock: f.flag('adblock'),
    video: f.flag('video'),
    stop_onload: f.flag('stop_onload'),
    allow_url: f.strings('allow_url'),
    block_url: f.strings('block_url'),
    dns: f.strings('dns'),
    browser_rotate: f.flag('browser_rotate'),
  };
  return withOptional(stored, {
    httpauth_username: f.optionalString('httpauth_username'),
    throttle: f.optionalString('throttle'),
    simulate_device: f.optionalString('simulate_device'),
    device_class: f.optionalOneOf('device_class', DEVICE_CLASS_IDS),
    user_agent: f.optionalString('user_agent'),
    browser_width: f.optionalNumber('browser_width'),
    browser_height: f.optionalNumber('browser_height'),
    browser_dppx: f.optionalNumber('browser_dppx'),
    runs: f.optionalNumber('runs'),
    journey_measured_step: f.optionalNumber('journey_measured_step'),
    httpauth_password: f.optionalString('httpauth_password'),
    journey: f.optionalRecording('journey'),
    journey_secrets: f.optionalStringMap('journey_secrets'),
    cookies: f.optionalString('sealed') === undefined ? f.strings('cookies') : undefined,
    sealed: f.optionalString('sealed'),
  });
}

function parseSecrets(text: string): Secrets {
  const f = new Fields(text);
  return withOptional<Secrets>({ cookies: f.strings('cookies') }, {
    httpauth_password: f.optionalString('httpauth_password'),
    journey: f.optionalRecording('journey'),
    journey_secrets: f.optionalStringMap('journey_secrets'),
  });
}

/** The options without their secrets, and the secrets (undefined when there are none). */
function splitSecrets(options: AnalysisOptions): { rest: Omit<AnalysisOptions, keyof Secrets>; secrets?: Secrets } {
  const { httpauth_password, cookies, journey, journey_secrets, ...rest } = options;
  if (httpauth_password === undefined && cookies.length === 0 && journey === undefined && journey_secrets === undefined) {
    return { rest };
  }
  return { rest, secrets: withOptional<Secrets>({ cookies }, { httpauth_password, journey, journey_secrets }) };
}

export function storeOptions(box: SecretBox, options: AnalysisOptions): string {
  const { rest, secrets } = splitSecrets(options);
  if (!secrets) return JSON.stringify(options);
  return JSON.stringify({ ...rest, sealed: box.seal(JSON.stringify(secrets)) });
}

/** Stored fields and secrets together, as AnalysisOptions. */
function joined(rest: Omit<Stored, keyof Secrets | 'sealed'>, secrets: Partial<Secrets>): AnalysisOptions {
  const { cookies, httpauth_password, journey, journey_secrets } = secrets;
  return withOptional<AnalysisOptions>({ ...rest, cookies: cookies ?? [] }, { httpauth_password, journey, journey_secrets });
}

/** Options sent in the clear (the agent protocol's claim answer): the same typed reading; nothing sealed. */
export function readPlainOptions(text: string): AnalysisOptions {
  const { sealed, cookies, httpauth_password, journey, journey_secrets, ...rest } = parseStored(text);
  if (sealed !== undefined) throw new StoredOptionsError('sealed options cannot be read without the service\'s key');
  return joined(rest, { cookies, httpauth_password, journey, journey_secrets });
}

export function readOptions(box: SecretBox, text: string): AnalysisOptions {
  const { sealed, cookies, httpauth_password, journey, journey_secrets, ...rest } = parseStored(text);
  if (sealed === undefined) return joined(rest, { cookies, httpauth_password, journey, journey_secrets });
  return joined(rest, parseSecrets(box.open(sealed)));
}

/**
 * The page fingerprint of options as stored: cookies enter it as keyed MACs, since a plain hash of the options
 * would let anyone holding the database try short cookie values against it. Options without cookies keep the
 * plain fingerprint.
 */
export function storedFingerprint(box: SecretBox, options: AnalysisOptions): string {
  const { journey } = options;
  if (options.cookies.length === 0 && journey === undefined) return optionsFingerprint(options);
  // A recording enters as a keyed MAC of its JSON, for the same reason (the values it types).
  const sealedJourney = journey && { title: box.mac(JSON.stringify(journey)), steps: [] };
  return optionsFingerprint({ ...options, cookies: options.cookies.map((c) => box.mac(c)), journey: sealedJourney });
}

/** Whether a stored value still holds secrets in the clear (written before encryption at rest). */
function holdsClearSecrets(text: string): boolean {
  try {
    const o = parseStored(text);
    return o.sealed === undefined && (o.httpauth_password !== undefined || (o.cookies?.length ?? 0) > 0 || o.journey !== undefined);
  } catch {
    return false;
  }
}

/**
 * Seals the secrets of rows written before encryption at rest, and gives rows with cookies the keyed
 * fingerprint; returns how many rows it rewrote.
 */
export async function sealStoredOptions(store: Store): Promise<number> {
  let sealed = 0;
  for (const table of ['tests', 'reports', 'pages'] as const) {
    const rows = await rowsMaybeHoldingSecrets(store.db, table);
    for (const row of rows) {
      if (!holdsClearSecrets(row.options)) continue;
      const clear = readOptions(store.box, row.options);
      const options = storeOptions(store.box, clear);
      sealed += await rewriteOptions(store.db, table, row.id, row.options, options, storedFingerprint(store.box, clear));
    }
  }
  return sealed;
}
