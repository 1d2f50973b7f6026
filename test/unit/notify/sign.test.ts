/** A webhook delivery's signature (notify/sign.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signatureHeader } from '../../../src/notify/sign.js';

test('signature: t and the hex HMAC-SHA256 of "<t>.<body>" keyed with the secret', () => {
  // python3: hmac.new(b'whsec_test', b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
  assert.equal(signatureHeader('whsec_test', '{"a":1}', 1700000000), 't=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789');
});
