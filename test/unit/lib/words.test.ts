/** Words for figures an operator reads (lib/words.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteSize } from '../../../src/lib/words.js';

test('byteSize reads as an operator expects', () => {
  assert.deepEqual([0, 1, 1023, 1024, 1536, 5 * 1024 ** 2, 3.25 * 1024 ** 3].map(byteSize),
    ['0 bytes', '1 byte', '1023 bytes', '1.0 KiB', '1.5 KiB', '5.0 MiB', '3.3 GiB']);
});
