/**
 * The one reader of each JSON column of a scan's work (core/scans/scan-readers.ts): what the work writes reads back as
 * it was; null (where the column may be null, as in rows older than the column), a value that is not JSON and JSON of
 * the wrong shape read as the reader's stated fallback.
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

describe('a scan\'s JSON columns read back', () => {
  test('scans.figures: the site figures written', () => {
    assert.deepEqual(readScanFigures(JSON.stringify(figures)), figures);
  });
  test('scans.alerts: the verdicts written; [] for a completed scan without conditions', () => {
    assert.deepEqual(readScanAlerts(JSON.stringify([verdict])), [verdict]);
    assert.deepEqual(readScanAlerts('[]'), []);
  });
  test('scans.skipped: the counts by reason written; {} before discovery ended', () => {
    assert.deepEqual(readSkipped('{"excluded": 3, "over_max_pages": 40}'), { excluded: 3, over_max_pages: 40 });
    assert.deepEqual(readSkipped('{}'), {});
  });
  test('scans.discovery_errors: the errors written', () => {
    assert.deepEqual(readDiscoveryErrors('["https://shop.example/sitemap.xml: 404"]'), ['https://shop.example/sitemap.xml: 404']);
  });
  test('scan_pages.run_values: the values of the kept runs written', () => {
    const values = { largest_contentful_paint: [1000, 1020, 1040], total_blocking_time: [50, 60, 55] };
    assert.deepEqual(readRunValues(JSON.stringify(values)), values);
  });
});

/** Each reader's fallback, and the values that read as it: null (nullable columns), text that is not JSON, JSON of the wrong shape. */
interface Fallback {
  column: string;
  /** The reader; only a nullable column's is given null. */
  read(text: string | null): unknown;
  nullable?: boolean;
  fallback: unknown;
  bad: string[];
}

const FALLBACKS: Fallback[] = [
  // none yet: discovering, running, ended in error
  { column: 'scans.figures', read: readScanFigures, nullable: true, fallback: null, bad: ['{"pages_measured": 3', '[1, 2]', 'null'] },
  // not judged yet, or completed before the column existed (migration 015)
  { column: 'scans.alerts', read: readScanAlerts, nullable: true, fallback: null, bad: ['[{"kind": "figure"', '{"kind": "figure"}'] },
  { column: 'scans.skipped', read: readSkipped, fallback: {}, bad: ['{"excluded": ', '[3]', 'null'] },
  { column: 'scans.discovery_errors', read: readDiscoveryErrors, fallback: [], bad: ['["https://shop.example/sitemap.xml', '{"error": "x"}'] },
  // a page tested once, or finished before the column existed (migration 014)
  { column: 'scan_pages.run_values', read: readRunValues, nullable: true, fallback: null, bad: ['{"largest_contentful_paint": [1000,', '[1000, 1020]', '7'] },
];

describe('a scan\'s JSON columns absent or damaged', () => {
  for (const { column, read, nullable, fallback, bad } of FALLBACKS) {
    test(`${column}: ${nullable ? 'null, ' : ''}text that is not JSON and JSON of another shape read as ${JSON.stringify(fallback)}`, () => {
      if (nullable) assert.deepEqual(read(null), fallback);
      for (const text of bad) assert.deepEqual(read(text), fallback, text);
    });
  }
});
