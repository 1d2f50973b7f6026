/** A test's options as the store keeps them (core/options/stored-options.ts): its secrets sealed by the secret box. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../../../src/store/secret-box.js';
import { readOptions, storeOptions } from '../../../../src/core/options/stored-options.js';
import type { AnalysisOptions } from '../../../../src/core/options/analysis-options.js';

const options: AnalysisOptions = {
  url: 'http://example.test/', location: '1', browser: '3', report: 'lighthouse', retention: 1, adblock: 0,
  httpauth_username: 'user', httpauth_password: 'pw', cookies: ['a=1', 'b=2; Path=/x'], video: 0, stop_onload: 0,
  allow_url: [], block_url: [], dns: [], browser_rotate: 0,
};

describe('stored options', () => {
  const box = new SecretBox(randomBytes(32));

  test('the password and cookies are sealed; everything else stays readable; reading gives the options back', () => {
    const stored = storeOptions(box, options);
    for (const s of ['pw', 'a=1', 'b=2']) assert.ok(!stored.includes(`"${s}`), `${s} in ${stored}`);
    const parsed = JSON.parse(stored);
    assert.equal(parsed.url, options.url);
    assert.equal(parsed.httpauth_username, 'user');
    assert.equal(parsed.httpauth_password, undefined);
    assert.equal(parsed.cookies, undefined);
    assert.deepEqual(readOptions(box, stored), options);
  });

  test('options without secrets are stored as they are; rows from before encryption are read as they are', () => {
    const plain = { ...options, cookies: [] };
    delete (plain as Partial<AnalysisOptions>).httpauth_password;
    delete (plain as Partial<AnalysisOptions>).httpauth_username;
    assert.equal(storeOptions(box, plain), JSON.stringify(plain));
    assert.deepEqual(readOptions(box, JSON.stringify(options)), options);
  });
});
