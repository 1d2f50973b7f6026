/**
 * The one reader of each JSON column of a scan's work (core/scans/scan-readers.ts): what it writes reads back as it
 * was; null (where the column may be null), a value that is not JSON and a value of the wrong shape read as the
 * reader's stated fallback; rows older than the column read as absent.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { siteFigures } from '../../../../src/analysis/site-figures.js';
import type { AlertVerdict } from '../../../../src/core/scans/alert-verdicts.js';
import {
  readDiscoveryErrors, readRunValues, readScanAlerts, readScanFigures, readSkipped,
} from '../../../../src/core/scans/scan-readers.js';

const figures = siteFigures([
  { url: 'https://shop.example/', template: '/', report_id: 'r1', grade: 'B', performance_score: 88, largest_contentful_paint: 2100,
    total_blocking_time: 120, cumulative_layout_shift: 0.02, fully_loaded_time: 3000 },
], new Map(), new Map());

const verdict: AlertVerdict = {
  kind: 'figure', figure: 'lcp_p75', operator: 'gt', value: 2500, holds: false, measured: 2100,
  message: 'lcp_p75 > 2500 ms does not hold.', outcome: 'lcp_p75 > 2500 ms does not hold.', pages: [], more_pages: 0, templates: [],
  compared_with: null, notes: [], change: null, previous_scan: null,
};

describe('scans.figures', () => {
  test('the site figures written read back as they were', () => {
    assert.deepEqual(readScanFigures(JSON.stringify(figures)), figures);
  });
  test('none yet (null), a value that is not JSON, and JSON that is not an object read as null', () => {
    assert.equal(readScanFigures(null), null);
    assert.equal(readScanFigures('{"pages_measured": 3'), null);
    assert.equal(readScanFigures('[1, 2]'), null);
    assert.equal(readScanFigures('null'), null);
  });
});

describe('scans.alerts', () => {
  test('the verdicts written read back as they were; a completed scan without conditions has []', () => {
    assert.deepEqual(readScanAlerts(JSON.stringify([verdict])), [verdict]);
    assert.deepEqual(readScanAlerts('[]'), []);
  });
  test('not judged yet, or a scan completed before the column existed (null), a value that is not JSON, and JSON that is not a list read as null', () => {
    assert.equal(readScanAlerts(null), null);
    assert.equal(readScanAlerts('[{"kind": "figure"'), null);
    assert.equal(readScanAlerts('{"kind": "figure"}'), null);
  });
});

describe('scans.skipped', () => {
  test('the counts by reason written read back as they were; {} before discovery ended', () => {
    assert.deepEqual(readSkipped('{"excluded": 3, "over_max_pages": 40}'), { excluded: 3, over_max_pages: 40 });
    assert.deepEqual(readSkipped('{}'), {});
  });
  test('a value that is not JSON, and JSON that is not an object read as {}', () => {
    assert.deepEqual(readSkipped('{"excluded": '), {});
    assert.deepEqual(readSkipped('[3]'), {});
    assert.deepEqual(readSkipped('null'), {});
  });
});

describe('scans.discovery_errors', () => {
  test('the errors written read back as they were; a value that is not JSON, and JSON that is not a list read as []', () => {
    assert.deepEqual(readDiscoveryErrors('["https://shop.example/sitemap.xml: 404"]'), ['https://shop.example/sitemap.xml: 404']);
    assert.deepEqual(readDiscoveryErrors('["https://shop.example/sitemap.xml'), []);
    assert.deepEqual(readDiscoveryErrors('{"error": "x"}'), []);
  });
});

describe('scan_pages.run_values', () => {
  test('the values of the kept runs written read back as they were', () => {
    const values = { largest_contentful_paint: [1000, 1020, 1040], total_blocking_time: [50, 60, 55] };
    assert.deepEqual(readRunValues(JSON.stringify(values)), values);
  });
  test('a page tested once, or finished before the column existed (null), a value that is not JSON, and JSON that is not an object read as null', () => {
    assert.equal(readRunValues(null), null);
    assert.equal(readRunValues('{"largest_contentful_paint": [1000,'), null);
    assert.equal(readRunValues('[1000, 1020]'), null);
    assert.equal(readRunValues('7'), null);
  });
});
