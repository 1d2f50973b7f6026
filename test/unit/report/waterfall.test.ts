/**
 * A waterfall row names its request by folders, file name and host (report/waterfall.ts urlParts): where the column is
 * narrow (375 px) the stylesheet cuts the folders first, so rows of one folder stay told apart by their file names.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderWaterfall, urlParts } from '../../../src/report/waterfall.js';

test('folders, file name with its query, host; a file at the root keeps its slash; very long parts cut in their middle', () => {
  assert.deepEqual(urlParts('https://shop.example.com/img/products/p1.jpg'), { dir: '/img/products/', file: 'p1.jpg', host: 'shop.example.com' });
  assert.deepEqual(urlParts('https://a.example/collect?v=2&u=/x/y'), { dir: '', file: '/collect?v=2&u=/x/y', host: 'a.example' });
  assert.deepEqual(urlParts('https://a.example/'), { dir: '', file: '/', host: 'a.example' });
  assert.deepEqual(urlParts('data:x'), { dir: '', file: 'data:x', host: '' });
  const long = urlParts(`https://a.example/${'folder/'.repeat(20)}${'n'.repeat(100)}.js`);
  assert.equal(long.dir.length, 60);
  assert.match(long.dir, /^\/folder\/.*….*folder\/$/);
  assert.match(long.file, /^n+….*\.js$/);
});

test('each row shows its folders and file name apart, the whole URL in its title', () => {
  const html = renderWaterfall([{
    startedDateTime: '2026-12-04T20:00:00.000Z', time: 100, request: { url: 'https://shop.example.com/img/products/p1.jpg?w=2' },
    response: { status: 200, _transferSize: 100, content: {} }, timings: { wait: 80, receive: 20 },
  }], { firstContentfulPaint: 50, domContentLoaded: 60, onload: 90, fullyLoaded: 100 });
  assert.match(html, /<td class="url" title="https:\/\/shop\.example\.com\/img\/products\/p1\.jpg\?w=2"><span class="path"><span class="dir">\/img\/products\/<\/span><span class="file">p1\.jpg\?w=2<\/span><\/span><small>shop\.example\.com<\/small><\/td>/);
});
