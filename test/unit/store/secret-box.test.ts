/**
 * The secret box (store/secret-box.ts): AES-256-GCM sealing, the key file made once, and WEBGAUGE_SECRET_KEY checked at
 * start.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { loadSecretKey, parseSecretKey, SecretBox, SecretKeyError } from '../../../src/store/secret-box.js';
import { loadConfig, ConfigError } from '../../../src/config.js';

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox(randomBytes(32));

  test('seals with a fresh IV each time and opens what it sealed', () => {
    const a = box.seal('secret');
    assert.notEqual(a, box.seal('secret'));
    assert.ok(!a.includes('secret'));
    assert.equal(box.open(a), 'secret');
  });

  test('another key or an altered value is refused, never read as something else', () => {
    const sealed = box.seal('secret');
    assert.throws(() => new SecretBox(randomBytes(32)).open(sealed), SecretKeyError);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('x' + Buffer.from(parts[3]!, 'base64url').toString('latin1').slice(1), 'latin1').toString('base64url');
    assert.throws(() => box.open(parts.join('.')), SecretKeyError);
  });

  test('the key file is created once, mode 0600, and read back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'webgauge-key-'));
    try {
      const key = loadSecretKey(dir);
      assert.equal((await stat(join(dir, 'secret.key'))).mode & 0o777, 0o600);
      assert.deepEqual(loadSecretKey(dir), key);
      assert.equal((await readFile(join(dir, 'secret.key'), 'utf8')).trim(), key.toString('base64'));
      const given = randomBytes(32);
      assert.deepEqual(loadSecretKey(dir, given.toString('hex')), given, 'WEBGAUGE_SECRET_KEY wins over the file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('WEBGAUGE_SECRET_KEY must be 32 bytes, hex or base64: a clear start-up error otherwise', () => {
    assert.equal(parseSecretKey(Buffer.alloc(32, 7).toString('base64url'), 'k').length, 32);
    assert.throws(() => parseSecretKey('too short', 'k'), /must be 32 random bytes/);
    assert.throws(() => loadConfig({ WEBGAUGE_SECRET_KEY: 'abc' }), (e: unknown) => e instanceof ConfigError && /WEBGAUGE_SECRET_KEY/.test((e as Error).message));
    assert.equal(loadConfig({ WEBGAUGE_SECRET_KEY: 'ab'.repeat(32) }).secretKey, 'ab'.repeat(32));
  });
});

