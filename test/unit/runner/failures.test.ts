/** A failed load in the words the user reads (runner/failures.ts): Lighthouse's errors translated. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RunError } from '../../../src/runner/types.js';
import { lighthouseFailure, lighthouseRuntimeFailure, type LoadStanding } from '../../../src/runner/failures.js';

/** A LighthouseError as Lighthouse throws it: an Error with a `code` and a `friendlyMessage`. */
function lighthouseError(code: string): Error {
  return Object.assign(new Error(code), { code, friendlyMessage: `friendly ${code}` });
}

describe('lighthouseFailure: an error of Lighthouse\'s in the words the user reads', () => {
  const standing = (over: Partial<LoadStanding> = {}): LoadStanding =>
    ({ mainDocumentResponded: true, url: 'https://slow.example:8443/page', maxWaitMs: 30_000, ...over });

  test('PAGE_HUNG before the main document responded: the server did not respond, named with its host and port', () => {
    const err = lighthouseFailure(lighthouseError('PAGE_HUNG'), standing({ mainDocumentResponded: false }));
    assert.ok(err instanceof RunError);
    assert.equal(err.message, 'The server at slow.example:8443 did not respond within 30 s');
  });

  test('PAGE_HUNG after the response: the page stopped responding within the load wait\'s limit', () => {
    const err = lighthouseFailure(lighthouseError('PAGE_HUNG'), standing({ maxWaitMs: 18_400 }));
    assert.ok(err instanceof RunError);
    assert.equal(err.message, 'The page did not finish loading within 18 s and stopped responding');
  });

  test('other codes Lighthouse explains become their sentence', () => {
    assert.equal((lighthouseFailure(lighthouseError('NO_FCP'), standing()) as Error).message,
      'The page did not paint any content');
    assert.equal((lighthouseFailure(lighthouseError('DNS_FAILURE'), standing()) as Error).message,
      'The page could not be measured: DNS_FAILURE');
  });

  test('the load\'s own failure, then the run\'s stop, come before Lighthouse\'s code', () => {
    const stopped = new RunError('The test was cancelled');
    const failed = lighthouseFailure(lighthouseError('PAGE_HUNG'),
      standing({ failure: 'The page returned HTTP 503 Service Unavailable', stopped, mainDocumentResponded: false }));
    assert.ok(failed instanceof RunError);
    assert.equal(failed.message, 'The page returned HTTP 503 Service Unavailable');
    assert.equal(lighthouseFailure(lighthouseError('NO_FCP'), standing({ stopped })), stopped);
  });

  test('a RunError, an unknown code and a plain error are left as they are', () => {
    const own = new RunError('The page has no navigation timing (it did not load as a document)');
    assert.equal(lighthouseFailure(own, standing({ failure: 'something else' })), own);
    const unknown = lighthouseError('PROTOCOL_TIMEOUT');
    assert.equal(lighthouseFailure(unknown, standing()), unknown);
    const bug = new TypeError('x is undefined');
    assert.equal(lighthouseFailure(bug, standing()), bug);
  });

  test('a Lighthouse result\'s runtime error', () => {
    assert.equal(lighthouseRuntimeFailure({ code: 'NO_FCP', message: 'x' }, 30_000).message, 'The page did not paint any content');
    assert.equal(lighthouseRuntimeFailure({ code: 'NO_LCP', message: 'No LCP event' }, 30_000).message,
      'The page could not be measured: No LCP event');
    assert.equal(lighthouseRuntimeFailure({ code: 'SOMETHING_NEW', message: 'odd' }, 30_000).message,
      'The page could not be measured: odd');
  });
});
