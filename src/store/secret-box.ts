/**
 * Encryption at rest of the few stored values that are secrets (a test's HTTP auth password and cookies, see
 * core/options/stored-options.ts): AES-256-GCM under one key of the service, so that a database dump or backup alone
 * does not reveal them. The key comes from WEBGAUGE_SECRET_KEY or, by default, from `secret.key` in the data
 * directory, created (mode 0600) at first start. Several nodes sharing one PostgreSQL database must share the
 * key through WEBGAUGE_SECRET_KEY. Losing the key loses the stored secrets only: reports stay readable, but
 * their `analysis-options` and retests can no longer be given the password and cookies.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'v1';
const AAD = Buffer.from('webgauge stored secret v1');

export class SecretKeyError extends Error {}

/** A 32-byte key from its text form: 64 hex digits or base64 (standard or URL-safe) of 32 bytes. */
export function parseSecretKey(text: string, source: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(t) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(t))) {
    throw new SecretKeyError(`${source} must be 32 random bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`)`);
  }
  return key;
}

/** Where a data directory keeps its key when WEBGAUGE_SECRET_KEY is not given. */
export const secretKeyFile = (dataDir: string): string => join(dataDir, 'secret.key');

/** The key given, or the data directory's `secret.key`, created with a new random key if there is none. */
export function loadSecretKey(dataDir: string, given?: string): Buffer {
  if (given) return parseSecretKey(given, 'WEBGAUGE_SECRET_KEY');
  const file = secretKeyFile(dataDir);
  mkdirSync(dataDir, { recursive: true });
  try {
    // wx: never overwrite a key another process just created; that one is read below.
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return parseSecretKey(readFileSync(file, 'utf8'), file);
}

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretKeyError('the secret key must be 32 bytes');
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url; a fresh random IV each time. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(AAD);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** HMAC-SHA256 (hex) under the key: a stable stand-in for a secret where equality is all that matters. */
  mac(text: string): string {
    return createHmac('sha256', this.key).update('webgauge mac v1\0').update(text).digest('hex');
  }

  /** Throws SecretKeyError when the value was sealed under another key or altered. */
  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || data === undefined) {
      throw new SecretKeyError('not a sealed value');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url')).setAAD(AAD);
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError('a stored secret cannot be decrypted with this service\'s secret key ' +
        '(WEBGAUGE_SECRET_KEY or secret.key in the data directory): it was encrypted under another key');
    }
  }
}
