/**
 * The frequencies' table (core/vocabulary/frequencies.ts) and what reads it: the API, the report list, the app.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACCEPTED_FREQUENCIES, FREQUENCIES, FREQUENCY_NAMES } from '../../../../src/core/vocabulary/frequencies.js';
import { PAGE_SCHEMAS } from '../../../../src/api/schemas/pages.js';
import { PAGES_LIST } from '../../../../src/core/vocabulary/lists.js';
import { FREQUENCY_NAMES as APP_FREQUENCY_NAMES } from '../../../../src/web/screens/pages.js';
import { propertiesOf } from '../../../helpers/schemas.js';

test('frequencies: the API, the report list and the app use the table', () => {
  assert.deepEqual([...FREQUENCY_NAMES], ['no', 'hourly', 'daily', 'weekly', 'monthly']);
  assert.deepEqual([...ACCEPTED_FREQUENCIES], ['no', 'none', 'hourly', 'daily', 'weekly', 'monthly']);
  assert.deepEqual(propertiesOf(PAGE_SCHEMAS.Page, 'attributes').monitored.enum, [...FREQUENCY_NAMES]);
  // The pages list's filter (store/list-query.ts, below core) must name the same frequencies.
  assert.deepEqual([...(PAGES_LIST.attrs.monitored?.values ?? [])], [...FREQUENCY_NAMES]);
  assert.deepEqual(Object.keys(APP_FREQUENCY_NAMES), [...FREQUENCY_NAMES]);
  assert.equal(APP_FREQUENCY_NAMES.no, 'Off');
  assert.deepEqual(FREQUENCIES.filter((f) => 'planFlag' in f).map((f) => f.name), ['hourly']);
});
