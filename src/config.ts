import { availableParallelism } from 'node:os';
import { accessSync, constants, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TargetPolicy } from './net/policy.js';
import { AUTH_CACHE_MAX_MS } from './core/accounts/auth-cache.js';
import { parsePlansFile, PlanFileError, PlanRegistry } from './core/accounts/plans.js';
import { parseSecretKey, SecretKeyError } from './store/secret-box.js';
import { DEFAULT_HOST_CHECK, type HostCheckSettings } from './agent/host-check.js';
import { DEFAULT_HEARTBEAT_MS } from './core/catalog/locations.js';
import { caCertificates, TrustStoreError } from './runner/trust-store.js';

/** One typed, validated configuration, from WEBGAUGE_* environment variables (CLI flags override). */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Below this much free space (MiB) in dataDir, GET /readyz is 503 and new tests are refused (WEBGAUGE_MIN_FREE_MB). */
  minFreeMb: number;
  /** postgres://… switches the store to PostgreSQL; absent means the SQLite file under dataDir. */
  databaseUrl?: string;
  chromePath: string;
  /** Firefox (Desktop): offered by the agents that find a working one here (WEBGAUGE_FIREFOX_PATH). */
  firefoxPath: string;
  /** What tests may reach besides public addresses (WEBGAUGE_ALLOW_TARGETS, WEBGAUGE_ALLOW_PRIVATE_TARGETS). */
  targetPolicy: TargetPolicy;
  /** Run the browser with its sandbox (WEBGAUGE_BROWSER_SANDBOX=0 opts out, with a warning). */
  browserSandbox: boolean;
  /** The unprivileged user the browser runs as when the service runs as root. */
  browserUser: string;
  agentSlots: number;
  /** Run the in-process agent (default). `serve --no-agent` turns it off for API-only nodes. */
  agent: boolean;
  locationName: string;
  locationRegion: string;
  /** Emit `gtmetrix_grade`/`gtmetrix_score` besides `service_*` (COMPAT.md). */
  legacyBrandFields: boolean;
  /** Honour X-Forwarded-Proto/Host when building links (only when publicUrl is unset). */
  trustProxy: boolean;
  /**
   * The service's own public address (`https://host[:port][/path]`, no trailing slash): every absolute link is
   * built from it. Unset: links follow the request's Host (and X-Forwarded-* with trustProxy).
   */
  publicUrl?: string;
  /** Lease of a claimed test; renewed while it runs. */
  leaseMs: number;
  /**
   * A test queued this long at a location where no agent was online at any moment of that time ends in error,
   * refunded (WEBGAUGE_QUEUE_TIMEOUT_MS); behind busy agents it waits.
   */
  queueTimeoutMs: number;
  /** A scan's discovery (robots.txt, sitemaps, a crawl) ends after this long with what it found (WEBGAUGE_SCAN_DISCOVERY_MS). */
  scanDiscoveryMs: number;
  /** How often agents say they are alive; three missed and an agent is offline (WEBGAUGE_AGENT_HEARTBEAT_MS). */
  agentHeartbeatMs: number;
  /** Bearer token of GET /metrics (WEBGAUGE_METRICS_TOKEN); unset: no metrics endpoint. */
  metricsToken?: string;
  /** How long a process trusts what it read about an API key (core/accounts/auth-cache.ts); 0 = not at all. */
  authCacheMs: number;
  /** Upper bound of one run. */
  runTimeoutMs: number;
  /** The run guard (agent/host-check.ts); undefined when WEBGAUGE_RUN_GUARD=0: every load counts, nothing is measured. */
  runGuard?: HostCheckSettings;
  logLevel: string;
  /** Operator filter-list files for adblock=1 (WEBGAUGE_ADBLOCK_LIST, colon-separated), used with our own list. */
  adblockLists: string[];
  /**
   * CA certificates (PEM) the test browsers trust on top of their own root store (WEBGAUGE_EXTRA_CA_CERTS, a PEM
   * file of one or more: the company CA of staging sites). Read and checked at start.
   */
  extraCaCerts?: string[];
  /** How long a report.pdf request waits for a slow generation before it is redirected to ask again. */
  pdfWaitMs: number;
  /**
   * The key that encrypts stored secrets (WEBGAUGE_SECRET_KEY: 32 bytes, hex or base64); without it the store
   * keeps one in `secret.key` in the data directory. Nodes sharing a PostgreSQL database must share it.
   */
  secretKey?: string;
  /** The built-in plans plus the operator's (WEBGAUGE_PLANS_FILE). */
  plans: PlanRegistry;
  /** Delay before a failed webhook delivery's first retry; doubles each time, for 24 h (WEBGAUGE_WEBHOOK_RETRY_BASE_MS). */
  webhookRetryBaseMs: number;
  /** Alert e-mail (WEBGAUGE_SMTP_URL, e.g. smtp://user:pass@host:587, and WEBGAUGE_SMTP_FROM); none when unset. */
  smtp?: { url: string; from: string };
  /**
   * Field beacons taken per second for one site (WEBGAUGE_FIELD_SITE_RATE; bursts of 5 s of it) and per minute from one
   * client address (WEBGAUGE_FIELD_CLIENT_RATE; bursts of a minute of it): a flood beyond is answered 429 and counted.
   */
  fieldSiteRate: number;
  fieldClientRate: number;
  /**
   * Google's CrUX API (WEBGAUGE_CRUX_API_KEY; unset: nothing is ever asked) at WEBGAUGE_CRUX_BASE_URL (default Google's
   * own; a setting so that tests answer from a local server). Reports, pages and scans then show CrUX's p75 beside ours.
   */
  crux?: { apiKey: string; baseUrl: string };
}

export class ConfigError extends Error {}

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return n;
}

/** A decimal number within bounds. */
function numberVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || n < min || n > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function runGuardVar(env: NodeJS.ProcessEnv): HostCheckSettings | undefined {
  if (!boolVar(env, 'WEBGAUGE_RUN_GUARD', true)) return undefined;
  return {
    minBenchmarkRatio: numberVar(env, 'WEBGAUGE_RUN_MIN_BENCHMARK_RATIO', DEFAULT_HOST_CHECK.minBenchmarkRatio, 0, 1),
    freeCores: numberVar(env, 'WEBGAUGE_RUN_FREE_CORES', DEFAULT_HOST_CHECK.freeCores, 0, 1024),
    maxExtraLoads: intVar(env, 'WEBGAUGE_RUN_EXTRA_LOADS', DEFAULT_HOST_CHECK.maxExtraLoads, 0, 10),
  };
}

function metricsTokenVar(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.WEBGAUGE_METRICS_TOKEN;
  if (token === undefined || token === '') return undefined;
  if (token.length < 16 || /\s/.test(token)) throw new ConfigError('WEBGAUGE_METRICS_TOKEN must be at least 16 characters without spaces (openssl rand -hex 16)');
  return token;
}

export const CRUX_DEFAULT_BASE_URL = 'https://chromeuxreport.googleapis.com/v1';

function cruxVar(env: NodeJS.ProcessEnv): Config['crux'] {
  const apiKey = env.WEBGAUGE_CRUX_API_KEY;
  const base = env.WEBGAUGE_CRUX_BASE_URL || CRUX_DEFAULT_BASE_URL;
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw new ConfigError(`WEBGAUGE_CRUX_BASE_URL must be an http(s) URL such as ${CRUX_DEFAULT_BASE_URL}, got "${base}"`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new ConfigError(`WEBGAUGE_CRUX_BASE_URL must be an http(s) URL, got "${base}"`);
  if (apiKey === undefined || apiKey === '') return undefined;
  // Never echo the key: an error names the variable only.
  if (!/^[A-Za-z0-9_-]{8,200}$/.test(apiKey)) throw new ConfigError('WEBGAUGE_CRUX_API_KEY must be a Google API key (letters, digits, "-" and "_")');
  return { apiKey, baseUrl: base.replace(/\/+$/, '') };
}

function boolVar(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`);
}

/** An absolute http(s) URL without query, fragment or credentials, returned without its trailing slash. */
function publicUrlVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL such as https://gauge.example.com, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must start with http:// or https://, got "${raw}"`);
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) {
    throw new ConfigError(`${name} must not have a query or fragment, got "${raw}"`);
  }
  if (url.username || url.password) throw new ConfigError(`${name} must not contain a user name or password`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Colon-separated paths of files that must exist and be readable now (checked at start, not at first use). */
function readableFiles(env: NodeJS.ProcessEnv, name: string): string[] {
  const paths = (env[name] ?? '').split(':').map((p) => p.trim()).filter(Boolean).map((p) => resolve(p));
  for (const p of paths) {
    try {
      accessSync(p, constants.R_OK);
    } catch {
      throw new ConfigError(`${name}: cannot read the file ${p}`);
    }
  }
  return paths;
}

function targetPolicy(env: NodeJS.ProcessEnv): TargetPolicy {
  try {
    return new TargetPolicy({
      allowAll: boolVar(env, 'WEBGAUGE_ALLOW_PRIVATE_TARGETS', false),
      allowTargets: env.WEBGAUGE_ALLOW_TARGETS ?? '',
    });
  } catch (err) {
    throw err instanceof ConfigError ? err : new ConfigError((err as Error).message);
  }
}

function secretKeyVar(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.WEBGAUGE_SECRET_KEY;
  if (raw === undefined || raw === '') return undefined;
  try {
    parseSecretKey(raw, 'WEBGAUGE_SECRET_KEY');
  } catch (err) {
    if (err instanceof SecretKeyError) throw new ConfigError(err.message);
    throw err;
  }
  return raw;
}

/** The file a variable names, read now (its absolute path and text); undefined when the variable is unset. */
function fileVar(env: NodeJS.ProcessEnv, name: string): { path: string; text: string } | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const path = resolve(raw);
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (err) {
    throw new ConfigError(`${name}: cannot read the file ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** The operator's plans file, read and checked now: a bad file stops the start, naming the plan and field. */
function plansVar(env: NodeJS.ProcessEnv): PlanRegistry {
  const file = fileVar(env, 'WEBGAUGE_PLANS_FILE');
  if (!file) return new PlanRegistry();
  const { path, text } = file;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`WEBGAUGE_PLANS_FILE ${path} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return new PlanRegistry(parsePlansFile(doc));
  } catch (err) {
    if (err instanceof PlanFileError) throw new ConfigError(`WEBGAUGE_PLANS_FILE ${path}: ${err.message}`);
    throw err;
  }
}

/** The operator's CA file, read and checked now: a bad file stops the start, naming the certificate. */
function extraCaCertsVar(env: NodeJS.ProcessEnv): string[] | undefined {
  const file = fileVar(env, 'WEBGAUGE_EXTRA_CA_CERTS');
  if (!file) return undefined;
  try {
    return caCertificates(file.text);
  } catch (err) {
    if (err instanceof TrustStoreError) throw new ConfigError(`WEBGAUGE_EXTRA_CA_CERTS ${file.path} ${err.message}`);
    throw err;
  }
}

function smtpVar(env: NodeJS.ProcessEnv): Config['smtp'] {
  const url = env.WEBGAUGE_SMTP_URL || undefined;
  const from = env.WEBGAUGE_SMTP_FROM || undefined;
  if (!url && !from) return undefined;
  if (!url || !from) throw new ConfigError('WEBGAUGE_SMTP_URL and WEBGAUGE_SMTP_FROM go together: set both to mail alerts, or neither');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('WEBGAUGE_SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587 or smtps://...:465');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new ConfigError('WEBGAUGE_SMTP_URL must start with smtp:// or smtps://');
  if (!/^[^@\s]+@[^@\s]+$/.test(from.replace(/^.*<(.+)>\s*$/, '$1'))) {
    throw new ConfigError(`WEBGAUGE_SMTP_FROM must be an e-mail address (or "Name <address>"), got "${from}"`);
  }
  return { url, from };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const databaseUrl = env.WEBGAUGE_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`WEBGAUGE_DATABASE_URL must start with postgres:// (got "${databaseUrl}"); leave it unset for SQLite`);
  }
  const config: Config = {
    host: env.WEBGAUGE_HOST || '127.0.0.1',
    port: intVar(env, 'WEBGAUGE_PORT', 8080, 0, 65535),
    dataDir: resolve(env.WEBGAUGE_DATA_DIR || './data'),
    minFreeMb: intVar(env, 'WEBGAUGE_MIN_FREE_MB', 500, 0, 10_000_000),
    databaseUrl,
    chromePath: env.WEBGAUGE_CHROME_PATH || '/usr/bin/chromium',
    firefoxPath: env.WEBGAUGE_FIREFOX_PATH || '/usr/bin/firefox-esr',
    targetPolicy: targetPolicy(env),
    browserSandbox: boolVar(env, 'WEBGAUGE_BROWSER_SANDBOX', true),
    browserUser: env.WEBGAUGE_BROWSER_USER || 'webgauge-browser',
    agentSlots: intVar(env, 'WEBGAUGE_AGENT_SLOTS', Math.max(1, Math.floor(availableParallelism() / 2)), 0, 64),
    agent: boolVar(env, 'WEBGAUGE_AGENT', true),
    locationName: env.WEBGAUGE_LOCATION_NAME || 'Local',
    locationRegion: env.WEBGAUGE_LOCATION_REGION || 'Local',
    legacyBrandFields: boolVar(env, 'WEBGAUGE_LEGACY_BRAND_FIELDS', true),
    trustProxy: boolVar(env, 'WEBGAUGE_TRUST_PROXY', false),
    publicUrl: publicUrlVar(env, 'WEBGAUGE_PUBLIC_URL'),
    leaseMs: intVar(env, 'WEBGAUGE_LEASE_MS', 30_000, 1_000, 3_600_000),
    queueTimeoutMs: intVar(env, 'WEBGAUGE_QUEUE_TIMEOUT_MS', 600_000, 1_000, 86_400_000),
    scanDiscoveryMs: intVar(env, 'WEBGAUGE_SCAN_DISCOVERY_MS', 120_000, 1_000, 3_600_000),
    agentHeartbeatMs: intVar(env, 'WEBGAUGE_AGENT_HEARTBEAT_MS', DEFAULT_HEARTBEAT_MS, 100, 600_000),
    metricsToken: metricsTokenVar(env),
    authCacheMs: intVar(env, 'WEBGAUGE_AUTH_CACHE_MS', 2_000, 0, AUTH_CACHE_MAX_MS),
    runTimeoutMs: intVar(env, 'WEBGAUGE_RUN_TIMEOUT_MS', 120_000, 5_000, 3_600_000),
    runGuard: runGuardVar(env),
    logLevel: env.WEBGAUGE_LOG_LEVEL || 'info',
    adblockLists: readableFiles(env, 'WEBGAUGE_ADBLOCK_LIST'),
    extraCaCerts: extraCaCertsVar(env),
    pdfWaitMs: intVar(env, 'WEBGAUGE_PDF_WAIT_MS', 10_000, 0, 120_000),
    secretKey: secretKeyVar(env),
    plans: plansVar(env),
    webhookRetryBaseMs: intVar(env, 'WEBGAUGE_WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    smtp: smtpVar(env),
    fieldSiteRate: intVar(env, 'WEBGAUGE_FIELD_SITE_RATE', 1_000, 1, 10_000_000),
    fieldClientRate: intVar(env, 'WEBGAUGE_FIELD_CLIENT_RATE', 600, 1, 10_000_000),
    crux: cruxVar(env),
  };
  return { ...config, ...overrides };
}
