/** Account passwords: scrypt with a salt per hash, checked in constant time, rules as NIST puts them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashPassword, passwordProblem, PasswordError, verifyPassword } from '../../../../src/core/accounts/passwords.js';

describe('passwords', () => {
  test('a hash verifies its password only; two hashes of one password differ (salt)', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    assert.notEqual(a, b);
    assert.ok(!a.includes('correct'));
    assert.equal(await verifyPassword('correct horse battery', a), true);
    assert.equal(await verifyPassword('correct horse battery', b), true);
    assert.equal(await verifyPassword('correct horse batter', a), false);
    assert.equal(await verifyPassword('', a), false);
  });

  test('unicode is compared normalised (é typed as one or two code points)', async () => {
    const h = await hashPassword('caf\u00e9 au lait');
    assert.equal(await verifyPassword('cafe\u0301 au lait', h), true);
  });

  test('8 to 1024 characters, nothing else asked; a malformed stored hash verifies nothing', async () => {
    assert.match(passwordProblem('short') ?? '', /at least 8/);
    assert.equal(passwordProblem('12345678'), null);
    assert.match(passwordProblem('x'.repeat(1025)) ?? '', /at most 1024/);
    await assert.rejects(hashPassword('short'), PasswordError);
    for (const bad of ['', 'scrypt$15$8$1$abc', 'bcrypt$x$y$z$a$b', 'scrypt$40$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      assert.equal(await verifyPassword('12345678', bad), false, bad);
    }
  });
});
