/**
 * The operator's own certificate authorities (WEBGAUGE_EXTRA_CA_CERTS, a PEM file as Node's NODE_EXTRA_CA_CERTS):
 * staging sites inside a company network carry certificates of the company's CA, which no browser trusts. Chromium
 * on Linux trusts, on top of its own root store, the CA certificates of the NSS database in `$HOME/.pki/nssdb`; the
 * test browser's home is its fresh profile (browser.ts). So the database is made once, when the service or agent
 * starts (certutil, Debian's libnss3-tools), and copied into every profile: each load still starts from a fresh
 * profile, and the browser's own user owns its copy. Certificates the browser rejects for any other reason
 * (expired, another name, a weak key) are still rejected: trust in a root is all this adds.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chownSync, cpSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class TrustStoreError extends Error {}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The CA certificates of a PEM file's text, each re-encoded as PEM; throws TrustStoreError saying what is wrong
 * (no certificate, one that does not parse, one that is not a CA).
 */
export function caCertificates(pem: string): string[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    throw new TrustStoreError('holds no PEM certificate (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)');
  }
  return blocks.map((block, i) => {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(block);
    } catch (err) {
      throw new TrustStoreError(`certificate ${i + 1} of ${blocks.length} does not parse: ${(err as Error).message}`);
    }
    if (!cert.ca) {
      throw new TrustStoreError(`certificate ${i + 1} of ${blocks.length} (${oneLine(cert.subject)}) is not a CA ` +
        'certificate (basicConstraints CA:TRUE): name the certificate of the authority that signed the site\'s, not the site\'s own');
    }
    return cert.toString();
  });
}

const oneLine = (subject: string): string => subject.split('\n').filter(Boolean).join(', ');

/** An NSS database of trusted CAs, ready to be copied into browser profiles. */
export interface TrustStore {
  /** The database folder (cert9.db, key4.db, pkcs11.txt). */
  readonly dir: string;
  /** How many CA certificates it trusts. */
  readonly count: number;
  /** The certificates (PEM), for what the runner fetches itself (after-load-fetch.ts). */
  readonly certificates: readonly string[];
  close(): Promise<void>;
}

function certutil(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('certutil', args, { timeout: 30_000 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new TrustStoreError(missing
        ? 'needs certutil to give the browser the certificates: install Debian\'s libnss3-tools (scripts/install.sh does)'
        : `certutil ${args[0]} failed: ${String(stderr).trim() || err.message}`));
    });
  });
}

/**
 * Makes the database in a temporary folder named like the service's scratch folders (`webgauge-run-<tag>-<pid>-`),
 * so that a restart after kill -9 removes it with them (browser.ts removeOrphanedBrowsers).
 */
export async function buildTrustStore(certificates: readonly string[], tag: string): Promise<TrustStore> {
  const dir = await mkdtemp(join(tmpdir(), `webgauge-run-${tag}-${process.pid}-trust-`));
  try {
    const db = `sql:${dir}`;
    await certutil(['-N', '-d', db, '--empty-password']);
    for (const [i, pem] of certificates.entries()) {
      const file = join(dir, `ca-${i + 1}.pem`);
      await writeFile(file, pem);
      // C,,: a trusted CA for TLS servers (not for e-mail or code signing).
      await certutil(['-A', '-d', db, '-n', `webgauge-extra-ca-${i + 1}`, '-t', 'C,,', '-i', file]);
      await rm(file);
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { dir, count: certificates.length, certificates: [...certificates], close: () => rm(dir, { recursive: true, force: true }) };
}

/** Copies the database into a browser's home (`<home>/.pki/nssdb`), owned by the browser's user when it has one. */
export function installTrustStore(store: TrustStore, home: string, owner?: { uid: number; gid: number }): void {
  const pki = join(home, '.pki');
  const nssdb = join(pki, 'nssdb');
  mkdirSync(pki, { mode: 0o700 });
  cpSync(store.dir, nssdb, { recursive: true });
  if (owner) {
    for (const path of [pki, nssdb, ...readdirSync(nssdb).map((f) => join(nssdb, f))]) chownSync(path, owner.uid, owner.gid);
  }
}
