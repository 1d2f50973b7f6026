/**
 * The test options of POST /tests (spec 4.1): the one table. In the order of the normalised options (their JSON,
 * the `analysis-options` resource and the page fingerprint follow it). The options parser (core/options/options.ts), the
 * stored options (core/options/stored-options.ts), the page identity and the app's Analyze form read it.
 */
import type { AnalysisOptions } from '../options/analysis-options.js';
import type { BrowserCapability } from '../catalog/catalog.js';
import { hasLighthouse } from './report-types.js';

export type OptionKind =
  /** The page address. */
  | 'url'
  /** A catalogue ID (location, browser). */
  | 'id'
  /** One of the report types (vocabulary/report-types.ts). */
  | 'report'
  /** One of the retentions (vocabulary/retentions.ts). */
  | 'retention'
  | 'text'
  /** One of the device classes (vocabulary/device-classes.ts). */
  | 'device_class'
  /** `down/up/latency`; the app's connection menu. */
  | 'throttle'
  /** 0 or 1. */
  | 'flag'
  /** A Chrome DevTools Recorder recording (core/options/journey.ts). */
  | 'journey'
  /** Names and values (journey_secrets). */
  | 'secrets'
  /** A list of strings (one per line in the app). */
  | 'list'
  | 'integer'
  | 'number';

export interface OptionSpec {
  name: keyof AnalysisOptions;
  kind: OptionKind;
  /** Only plans with pro analysis options may give it (E40004 otherwise). */
  proOnly?: true;
  /**
   * The browser capability the option needs (GET /browsers), when it is used: given (a flag at 1, a list not
   * empty), or for `report` when `when` says so.
   */
  capability?: BrowserCapability;
  when?: (value: string) => boolean;
  /** Part of the page identity (the fingerprint): equal identities are one page. */
  identity: boolean;
  /** Sealed at rest (stored options), never in the clear in the database. */
  secret?: true;
  /** Never shown again once given, not even in `analysis-options` (journey_secrets). */
  writeOnly?: true;
}

export const OPTIONS = [
  { name: 'url', kind: 'url', identity: true },
  { name: 'location', kind: 'id', identity: true },
  { name: 'browser', kind: 'id', identity: true },
  { name: 'report', kind: 'report', identity: true, capability: 'lighthouse', when: hasLighthouse },
  { name: 'retention', kind: 'retention', identity: false },
  { name: 'httpauth_username', kind: 'text', identity: true, capability: 'http_auth' },
  { name: 'httpauth_password', kind: 'text', identity: false, secret: true },
  { name: 'adblock', kind: 'flag', identity: true, capability: 'adblock' },
  { name: 'cookies', kind: 'list', identity: true, capability: 'cookies', secret: true },
  { name: 'video', kind: 'flag', identity: false, capability: 'video' },
  { name: 'stop_onload', kind: 'flag', identity: true },
  { name: 'throttle', kind: 'throttle', identity: true, capability: 'throttle' },
  { name: 'allow_url', kind: 'list', identity: true, capability: 'filtering' },
  { name: 'block_url', kind: 'list', identity: true, capability: 'filtering' },
  { name: 'dns', kind: 'list', identity: true, proOnly: true, capability: 'dns' },
  { name: 'simulate_device', kind: 'text', identity: true, proOnly: true, capability: 'resolution' },
  { name: 'device_class', kind: 'device_class', identity: true, capability: 'cpu_throttle', when: (v) => v !== 'desktop' },
  { name: 'user_agent', kind: 'text', identity: true, proOnly: true, capability: 'user_agent' },
  { name: 'browser_width', kind: 'integer', identity: true, proOnly: true, capability: 'resolution' },
  { name: 'browser_height', kind: 'integer', identity: true, proOnly: true, capability: 'resolution' },
  { name: 'browser_dppx', kind: 'number', identity: true, proOnly: true, capability: 'resolution' },
  { name: 'browser_rotate', kind: 'flag', identity: true, proOnly: true, capability: 'resolution' },
  { name: 'runs', kind: 'integer', identity: false },
  // A recording is sealed too: the values it types (e-mail addresses, search terms) are the user's data.
  { name: 'journey', kind: 'journey', identity: true, secret: true },
  { name: 'journey_secrets', kind: 'secrets', identity: false, secret: true, writeOnly: true },
  { name: 'journey_measured_step', kind: 'integer', identity: true },
] as const satisfies readonly OptionSpec[];

export type OptionName = (typeof OPTIONS)[number]['name'];
// Every field of AnalysisOptions has a row (and every row is a field: `name` is typed so).
type Unlisted = Exclude<keyof AnalysisOptions, OptionName>;
const everyOptionListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyOptionListed;

/** The secret options, by type: stored-options.ts checks its sealed fields against it. */
export type SecretOption = Extract<(typeof OPTIONS)[number], { secret: true }>['name'];

const rows: readonly OptionSpec[] = OPTIONS;

/** The fixed key order of normalised options: fingerprint and public view follow it, never object order. */
export const OPTION_ORDER: readonly OptionName[] = OPTIONS.map((o) => o.name);
/** The options that define a page (fingerprint): all but those that only change what is produced. */
export const IDENTITY_OPTIONS: readonly OptionName[] = rows.filter((o) => o.identity).map((o) => o.name);
export const NON_IDENTITY_OPTIONS: readonly OptionName[] = rows.filter((o) => !o.identity).map((o) => o.name);
export const SECRET_OPTIONS: readonly OptionName[] = rows.filter((o) => o.secret).map((o) => o.name);
export const WRITE_ONLY_OPTIONS: readonly OptionName[] = rows.filter((o) => o.writeOnly).map((o) => o.name);
/** Pro options, in table order. */
export const PRO_OPTIONS: readonly OptionName[] = rows.filter((o) => o.proOnly).map((o) => o.name);
export const optionsOfKind = (...kinds: OptionKind[]): OptionName[] => rows.filter((o) => kinds.includes(o.kind)).map((o) => o.name);
export const optionSpec = (name: OptionName): OptionSpec => rows.find((o) => o.name === name)!;

/**
 * What each browser capability makes possible, as E40004 names it (spec 2.5), in the order options are checked
 * against the browser. Which options need it is the options table's `capability`.
 */
export const CAPABILITY_NAMES: readonly [BrowserCapability, string][] = [
  ['lighthouse', 'the report type (Lighthouse reports); use report "legacy" or "none" (the default for this browser)'],
  ['http_auth', 'HTTP authentication (httpauth_username)'],
  ['adblock', 'adblock'],
  ['video', 'video'],
  ['cookies', 'cookies'],
  ['throttle', 'throttle'],
  ['filtering', 'URL filtering (allow_url, block_url)'],
  ['dns', 'dns'],
  ['user_agent', 'user_agent'],
  ['cpu_throttle', 'a phone\'s CPU (device_class "phone-mid" or "phone-low")'],
  ['resolution', 'simulate_device or a custom resolution (browser_width, browser_height, browser_dppx, browser_rotate)'],
];

/** Whether normalised options use an option: a flag at 1, a list not empty, any other value given (`when` if set). */
function uses(o: AnalysisOptions, spec: OptionSpec): boolean {
  const v = o[spec.name];
  if (v === undefined) return false;
  if (spec.when) return spec.when(String(v));
  if (spec.kind === 'flag') return v === 1;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

/** The capabilities the options need, each with what it is for, in checking order. */
export function capabilitiesUsed(o: AnalysisOptions): [BrowserCapability, string][] {
  return CAPABILITY_NAMES.filter(([cap]) => rows.some((spec) => spec.capability === cap && uses(o, spec)));
}
