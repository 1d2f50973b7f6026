/**
 * How a test's options are stored (tests, reports and pages rows): as JSON, with the secret fields (the HTTP
 * auth password and the cookies) sealed by the store's SecretBox into one `sealed` field. Rows written before
 * encryption hold them in the clear; they are read as they are, and sealed at start (sealStoredOptions).
 * Every read of stored options goes through readOptions.
 */
import type { Store } from '../store/db.js';
import type { SecretBox } from '../store/secret-box.js';
import { rewriteOptions, rowsMaybeHoldingSecrets } from '../store/stored-options.js';
import type { AnalysisOptions } from './analysis-options.js';
import { optionsFingerprint } from './options.js';

interface Secrets {
  httpauth_password?: string;
  cookies: string[];
}

type Stored = Omit<AnalysisOptions, keyof Secrets> & Partial<Secrets> & { sealed?: string };

export function storeOptions(box: SecretBox, options: AnalysisOptions): string {
  const { httpauth_password, cookies, ...rest } = options;
  if (httpauth_password === undefined && cookies.length === 0) return JSON.stringify(options);
  const secrets: Secrets = { cookies };
  if (httpauth_password !== undefined) secrets.httpauth_password = httpauth_password;
  return JSON.stringify({ ...rest, sealed: box.seal(JSON.stringify(secrets)) });
}

export function readOptions(box: SecretBox, text: string): AnalysisOptions {
  const { sealed, ...stored } = JSON.parse(text) as Stored;
  if (sealed === undefined) return { ...stored, cookies: stored.cookies ?? [] } as AnalysisOptions;
  const secrets = JSON.parse(box.open(sealed)) as Secrets;
  const options = { ...stored, cookies: secrets.cookies } as AnalysisOptions;
  if (secrets.httpauth_password !== undefined) options.httpauth_password = secrets.httpauth_password;
  return options;
}

/**
 * The page fingerprint of options as stored: cookies enter it as keyed MACs, since a plain hash of the options
 * would let anyone holding the database try short cookie values against it. Options without cookies keep the
 * plain fingerprint.
 */
export function storedFingerprint(box: SecretBox, options: AnalysisOptions): string {
  if (options.cookies.length === 0) return optionsFingerprint(options);
  return optionsFingerprint({ ...options, cookies: options.cookies.map((c) => box.mac(c)) });
}

/** Whether a stored value still holds secrets in the clear (written before encryption at rest). */
function holdsClearSecrets(text: string): boolean {
  try {
    const o = JSON.parse(text) as Stored;
    return o.sealed === undefined && (o.httpauth_password !== undefined || (o.cookies?.length ?? 0) > 0);
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
