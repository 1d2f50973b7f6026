/**
 * The agent protocol's result bundle (agent/result-bundle.ts): a run's result carried exactly, binary parts as bytes; a
 * damaged or foreign bundle refused, never half read.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BundleError, bundleChecksum, decodeBundle, encodeBundle } from '../../../src/agent/result-bundle.js';
import type { RunResult } from '../../../src/runner/types.js';

function result(): RunResult {
  return {
    finalUrl: 'https://example.com/', userAgent: 'UA', phases: { load: 1200 },
    metrics: { performance_score: 91, onload_time: 1234.5 } as RunResult['metrics'],
    har: { log: { version: '1.2', entries: [] } } as unknown as RunResult['har'],
    lighthouse: { audits: { 'largest-contentful-paint': { numericValue: 1500.25 } } },
    screenshot: Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x01]),
    filmstrip: [{ timestamp: 0, jpeg: Buffer.from('frame-0') }, { timestamp: 100, jpeg: Buffer.alloc(0) }],
    video: Buffer.alloc(70_000, 7),
    bodies: new Map([['https://example.com/app.js', Buffer.from('console.log(1)')]]),
    warnings: ['a warning'],
  };
}

describe('the result bundle', () => {
  test('carries a result exactly: buffers, maps, numbers, nested JSON; binary parts are not base64', () => {
    const r = result();
    const bundle = encodeBundle({ result: r, runs: { count: 1, median_run: 2, runs: [] } });
    assert.ok(bundle.length < 70_000 + 2_000, `${bundle.length} bytes: the video went in as bytes`);
    const back = decodeBundle(bundle);
    assert.deepEqual(back.result, r);
    assert.ok(Buffer.isBuffer(back.result.screenshot) && Buffer.isBuffer(back.result.filmstrip[1]!.jpeg));
    assert.ok(back.result.bodies instanceof Map);
    assert.deepEqual(back.runs, { count: 1, median_run: 2, runs: [] });
  });

  test('a damaged or foreign bundle is refused with the reason, never half read', () => {
    const bundle = encodeBundle({ result: result() });
    assert.notEqual(bundleChecksum(bundle), bundleChecksum(Buffer.concat([bundle, Buffer.from([0])])));
    assert.throws(() => decodeBundle(Buffer.from('{"result":{}}')), (e) => e instanceof BundleError && /WGR1/.test(e.message));
    assert.throws(() => decodeBundle(bundle.subarray(0, 100)), BundleError);
    assert.throws(() => decodeBundle(bundle.subarray(0, bundle.length - 10)), (e) => e instanceof BundleError && /outside the bundle/.test(e.message));
    const noShot = encodeBundle({ result: { ...result(), screenshot: undefined as unknown as Buffer } });
    assert.throws(() => decodeBundle(noShot), (e) => e instanceof BundleError && /screenshot/.test(e.message));
  });
});

