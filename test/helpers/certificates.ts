/**
 * Certificates made in the test, as a company makes them for its staging sites: a private CA, and server
 * certificates it signs (for a name, possibly expired, possibly for another name). RSA 2048, SHA-256.
 */
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface Issued {
  /** PEM of the certificate. */
  cert: string;
  /** PEM of its private key. */
  key: string;
}

export interface PrivateCa extends Issued {
  /** A server certificate for `names` (DNS names or IP addresses), valid for a day unless told otherwise. */
  issue(names: string[], validity?: { from: Date; to: Date }): Issued;
}

const DAY = 86_400_000;

/** An RSA key pair made by Node (forge's own generator is pure JavaScript and takes seconds). */
function keyPair(): { publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  return { publicKey: forge.pki.publicKeyFromPem(publicKey) as forge.pki.rsa.PublicKey,
    privateKey: forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey };
}

function serial(): string {
  // Positive, 16 bytes.
  return `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
}

export function makePrivateCa(commonName = 'Webgauge Test Staging CA'): PrivateCa {
  const keys = keyPair();
  const ca = forge.pki.createCertificate();
  ca.publicKey = keys.publicKey;
  ca.serialNumber = serial();
  ca.validity.notBefore = new Date(Date.now() - DAY);
  ca.validity.notAfter = new Date(Date.now() + 30 * DAY);
  const subject = [{ name: 'commonName', value: commonName }, { name: 'organizationName', value: 'Webgauge tests' }];
  ca.setSubject(subject);
  ca.setIssuer(subject);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(keys.privateKey, forge.md.sha256.create());

  return {
    cert: forge.pki.certificateToPem(ca),
    key: forge.pki.privateKeyToPem(keys.privateKey),
    issue(names, validity = { from: new Date(Date.now() - DAY), to: new Date(Date.now() + DAY) }) {
      const leafKeys = keyPair();
      const leaf = forge.pki.createCertificate();
      leaf.publicKey = leafKeys.publicKey;
      leaf.serialNumber = serial();
      leaf.validity.notBefore = validity.from;
      leaf.validity.notAfter = validity.to;
      leaf.setSubject([{ name: 'commonName', value: names[0] }]);
      leaf.setIssuer(ca.subject.attributes);
      leaf.setExtensions([
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: names.map((n) => (/^[\d.]+$/.test(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
        { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
      ]);
      leaf.sign(keys.privateKey, forge.md.sha256.create());
      return { cert: forge.pki.certificateToPem(leaf), key: forge.pki.privateKeyToPem(leafKeys.privateKey) };
    },
  };
}
