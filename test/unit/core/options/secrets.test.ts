/**
 * A test's secrets and the scrubber that removes them from everything kept (core/options/secrets.ts): short ones as
 * whole components, long ones anywhere, user info, credential headers and cookies, errors.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LITERAL_MIN, REMOVED, scrubError, secretScrubber, testSecrets } from '../../../../src/core/options/secrets.js';

const secrets = testSecrets({
  httpauth_username: 'wg',
  httpauth_password: 'pw7',
  cookies: ['lang=en', 'k=Zq; Path=/', 'sid=long-cookie-secret-4711', 'spaced=a b!'],
});
const scrub = secretScrubber(secrets);

describe('testSecrets', () => {
  test('the password, base64 of user:password and every cookie value (without attributes)', () => {
    assert.deepEqual(secrets.values.sort(),
      ['Zq', 'a b!', 'd2c6cHc3', 'en', 'long-cookie-secret-4711', 'pw7'].sort());
    assert.deepEqual(secrets.cookies.map((c) => c.name), ['lang', 'k', 'sid', 'spaced']);
  });
});

describe('secretScrubber: short secrets, as whole components', () => {
  test('query and fragment parameter values, plain and percent-encoded', () => {
    assert.equal(scrub.text('http://h.test/p?pw=pw7&x=1'), `http://h.test/p?pw=${REMOVED}&x=1`);
    assert.equal(scrub.text('/pixel.gif?c=Zq'), `/pixel.gif?c=${REMOVED}`);
    assert.equal(scrub.text('pixel.gif?s=a%20b%21'), `pixel.gif?s=${REMOVED}`);
    assert.equal(scrub.text('pixel.gif?s=a+b%21'), `pixel.gif?s=${REMOVED}`);
    assert.equal(scrub.text('http://h.test/#token=Zq'), `http://h.test/#token=${REMOVED}`);
    assert.equal(scrub.text('http://h.test/p?Zq'), `http://h.test/p?${REMOVED}`);
  });

  test('path segments of URLs and absolute paths, not of prose nor the host', () => {
    assert.equal(scrub.text('http://h.test/seg/Zq/img.gif'), `http://h.test/seg/${REMOVED}/img.gif`);
    assert.equal(scrub.text('<img src="/en/x.gif">'), `<img src="/${REMOVED}/x.gif">`);
    assert.equal(scrub.text('see and/en here'), 'see and/en here');
    assert.equal(scrub.text('http://en/x'), 'http://en/x');
  });

  test('a test cookie as name=value anywhere; a whole string equal to a secret', () => {
    assert.equal(scrub.text('Cookie: lang=en; k=Zq'), `Cookie: lang=${REMOVED}; k=${REMOVED}`);
    assert.equal(scrub.text('alang=en'), 'alang=en');
    assert.equal(scrub.text('Zq'), REMOVED);
    assert.equal(scrub.text('pw7'), REMOVED);
  });

  test('ordinary text that merely contains a short secret is left alone', () => {
    const prose = 'Content-Length: 1200; the content encoding is gzip; en-US; Zqx; apw7';
    assert.equal(scrub.text(prose), prose);
    assert.equal(scrub.text('http://h.test/content/enable?q=envelope'), 'http://h.test/content/enable?q=envelope');
  });
});

describe('secretScrubber: long secrets anywhere, user info, headers', () => {
  test(`secrets of ${LITERAL_MIN}+ characters are removed inside any text, plain and encoded`, () => {
    assert.equal(scrub.text('hello long-cookie-secret-4711 world'), `hello ${REMOVED} world`);
    assert.equal(scrub.text('Basic d2c6cHc3'), `Basic ${REMOVED}`);
    const enc = secretScrubber(testSecrets({ cookies: ['s=ä long secret'] }));
    assert.equal(enc.text(`x=${encodeURIComponent('ä long secret')}y`), `x=${REMOVED}y`);
  });

  test('user:password@ is removed from URLs, whatever the password', () => {
    assert.equal(secretScrubber(testSecrets({})).text('see http://u:p@h.test/x'), 'see http://h.test/x');
  });

  test('JSON: credential headers and HAR cookies always, keys and nested strings, input untouched', () => {
    const har = {
      request: {
        url: 'http://h.test/?c=Zq',
        headers: [{ name: 'Authorization', value: 'Basic xyz' }, { name: 'Cookie', value: 'other=1' },
          { name: 'Accept', value: 'text/html' }],
        cookies: [{ name: 'other', value: '1', path: '/' }],
      },
      response: { headers: [{ name: 'location', value: '/landing/pw7' }, { name: 'X-Echo', value: 'en' }] },
      byUrl: { 'http://h.test/?c=Zq': 1 },
      n: 3,
    };
    const copy = structuredClone(har);
    const out = scrub.json(har);
    assert.deepEqual(har, copy, 'the input is not modified');
    assert.equal(out.request.url, `http://h.test/?c=${REMOVED}`);
    assert.deepEqual(out.request.headers.map((h) => h.value), [REMOVED, REMOVED, 'text/html']);
    assert.deepEqual(out.request.cookies, [{ name: 'other', value: REMOVED, path: '/' }]);
    assert.deepEqual(out.response.headers.map((h) => h.value), [`/landing/${REMOVED}`, REMOVED]);
    assert.deepEqual(Object.keys(out.byUrl), [`http://h.test/?c=${REMOVED}`]);
    assert.equal(out.n, 3);
    const none = secretScrubber(testSecrets({})).json(har);
    assert.equal(none.request.headers[0]!.value, REMOVED, 'with no test secrets, Authorization still goes');
    assert.equal(none.request.url, 'http://h.test/?c=Zq');
  });

  test('errors: message and stack', () => {
    const e = scrubError(scrub, new Error('net::ERR at http://h.test/?p=pw7'));
    assert.equal(e.message, `net::ERR at http://h.test/?p=${REMOVED}`);
    assert.ok(!e.stack?.includes('p=pw7'));
  });
});
