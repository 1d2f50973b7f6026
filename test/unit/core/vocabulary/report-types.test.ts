/**
 * The report types' and the retentions' tables (core/vocabulary/report-types.ts, retentions.ts) and the API schema and
 * the parser that read them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REPORT_TYPE_NAMES } from '../../../../src/core/vocabulary/report-types.js';
import { RETENTION_MONTHS } from '../../../../src/core/vocabulary/retentions.js';
import { TEST_SCHEMAS } from '../../../../src/api/schemas/tests.js';
import { propertiesOf } from '../../../helpers/schemas.js';

test('report types and retentions: the API schema and the parser use the tables', () => {
  assert.deepEqual([...REPORT_TYPE_NAMES], ['lighthouse', 'legacy', 'lighthouse,legacy', 'none']);
  assert.deepEqual([...RETENTION_MONTHS], [1, 6, 12, 24]);
  const retention = propertiesOf(TEST_SCHEMAS.TestAttributesInput).retention;
  assert.deepEqual(retention.anyOf![0].enum, [...RETENTION_MONTHS]);
});
