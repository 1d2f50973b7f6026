/**
 * A journey in Analyze without a browser (web/screens/analyze-journey.ts): its fields as POST /tests attributes (the
 * recording pasted or as a file, the secrets' lines, the measured step), and the form's multipart body (FormFields of
 * web/session.ts, attributesFromForm of analyze.ts, the file winning over the pasted text). The report's steps are
 * report/journey.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../../src/core/errors.js';
import { createCatalog } from '../../../../src/core/catalog/catalog.js';
import { PLANS } from '../../../../src/core/accounts/plans.js';
import { parseTestOptions } from '../../../../src/core/options/options.js';
import { attributesFromForm } from '../../../../src/web/screens/analyze.js';
import { journeyFields, secretsFromForm } from '../../../../src/web/screens/analyze-journey.js';
import { FormFields } from '../../../../src/web/session.js';
import { shopRecordings, SHOP } from '../../../fixtures/site/shop.js';

const rec = shopRecordings('https://shop.example');
const form = (fields: Record<string, string>) => new FormFields(new URLSearchParams(fields).toString());
const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 'E40004');
    return err.detail ?? '';
  }
  return assert.fail('accepted');
};

/** A multipart/form-data body as a browser sends it, handed over as text (the service's catch-all parser). */
function multipart(parts: [string, string, string?][]): FastifyRequest {
  const boundary = '----webgaugeBoundary7MA4YWxkTrZu0gW';
  const body = parts.map(([name, value, filename]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"` +
    `${filename !== undefined ? `; filename="${filename}"\r\nContent-Type: application/json` : ''}\r\n\r\n${value}\r\n`).join('') + `--${boundary}--\r\n`;
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body } as unknown as FastifyRequest;
}

describe("Analyze's journey fields", () => {
  it('become journey, journey_secrets and journey_measured_step, which core parses: URL may be left empty', () => {
    const a = attributesFromForm(form({ url: '', journey: JSON.stringify(rec.checkout), journey_secrets: `SHOP_PASSWORD=${SHOP.password}\n`, journey_measured_step: '5' }));
    assert.deepEqual(a, { journey: JSON.stringify(rec.checkout), journey_secrets: { SHOP_PASSWORD: SHOP.password }, journey_measured_step: '5' });
    const o = parseTestOptions(a, { plan: PLANS.pro, catalog: createCatalog({ locationName: 'Local', locationRegion: 'Local' }), defaultLocation: '1', defaultBrowser: '3' });
    assert.equal(o.url, 'https://shop.example/app/login');
    assert.equal(o.journey_measured_step, 5);
    assert.deepEqual(o.journey_secrets, { SHOP_PASSWORD: SHOP.password });
  });

  it('leave a journey out entirely when none of them is filled', () => {
    const a = attributesFromForm(form({ url: 'https://example.com/', journey: '  \n', journey_secrets: '\n\n', journey_measured_step: ' ' }));
    assert.deepEqual(a, { url: 'https://example.com/' });
  });

  it('read Secrets as one NAME=value per line: the value exactly as typed after the first "=", blank lines skipped', () => {
    assert.deepEqual(secretsFromForm('A=1\r\n\r\n B = x=y \nC='), { A: '1', B: ' x=y ', C: '' });
    assert.equal(secretsFromForm(''), undefined);
    assert.equal(secretsFromForm(undefined), undefined);
  });

  it('refuse a Secrets line that is no NAME=value, or a name given twice, naming the line and never its text', () => {
    const noPair = refusal(() => secretsFromForm('A=1\nhunter2'));
    assert.match(noPair, /^Secrets: line 2 is not NAME=value/);
    assert.ok(!noPair.includes('hunter2'), noPair);
    const noName = refusal(() => secretsFromForm('=hunter2'));
    assert.match(noName, /^Secrets: line 1 is not NAME=value/);
    assert.ok(!noName.includes('hunter2'), noName);
    const twice = refusal(() => secretsFromForm('PW=one\n\nPW=two'));
    assert.equal(twice, 'Secrets: PW is given twice (lines 1 and 3); give each name once');
  });

  it('show again what was given after an error, except the secrets, and say to type those again', () => {
    const html = journeyFields(form({ journey: '{"title":"<x>"}', journey_secrets: `SHOP_PASSWORD=${SHOP.password}`, journey_measured_step: '5' }));
    assert.ok(html.includes('{&quot;title&quot;:&quot;&lt;x&gt;&quot;}</textarea>'), 'the recording, escaped');
    assert.ok(html.includes('value="5"'), 'the measured step');
    assert.ok(!html.includes(SHOP.password) && !html.includes('SHOP_PASSWORD'), 'no secret, not even its name');
    assert.match(html, /Type them again/);
    assert.match(html, /<details class="card journey" open>/, 'the part is open');
    assert.doesNotMatch(journeyFields(form({})), /Type them again| open>/);
  });
});

describe('the Analyze form as multipart/form-data (a recording file without script)', () => {
  it('reads every field; a chosen file replaces the pasted text; an empty file input is no file', async () => {
    const file = JSON.stringify(rec.checkout);
    const f = await FormFields.of(multipart([['csrf', 'token'], ['url', ''], ['journey', 'pasted text'], ['journey_file', file, 'shop.json'], ['runs', '2']]));
    assert.equal(f.get('csrf'), 'token');
    assert.equal(f.get('journey_file'), file);
    assert.equal(attributesFromForm(f).journey, file, 'the file wins over the pasted text');
    const empty = await FormFields.of(multipart([['csrf', 'token'], ['journey', 'pasted'], ['journey_file', '', '']]));
    assert.equal(empty.has('journey_file'), false);
    assert.equal(attributesFromForm(empty).journey, 'pasted');
  });

  it('keeps the text of the file as sent (UTF-8), and reads a malformed body as a form without fields', async () => {
    const f = await FormFields.of(multipart([['journey_file', '{"title":"Café ✓"}', 'r.json']]));
    assert.equal(f.get('journey_file'), '{"title":"Café ✓"}');
    const broken = { headers: { 'content-type': 'multipart/form-data; boundary=nope' }, body: 'garbage' } as unknown as FastifyRequest;
    assert.equal((await FormFields.of(broken)).get('csrf'), undefined);
    const urlencoded = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=a&url=b' } as unknown as FastifyRequest;
    assert.equal((await FormFields.of(urlencoded)).get('url'), 'b');
  });
});

