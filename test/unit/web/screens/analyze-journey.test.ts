/**
 * A journey in the web app without a browser: Analyze's fields as POST /tests attributes (the recording pasted or as a
 * file, the secrets' lines, the measured step), the form's multipart body, and the report's steps table and filmstrip.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../../src/core/errors.js';
import { createCatalog } from '../../../../src/core/catalog/catalog.js';
import { PLANS } from '../../../../src/core/accounts/plans.js';
import { parseTestOptions } from '../../../../src/core/options/options.js';
import type { JourneySummary } from '../../../../src/core/reports/journey-summary.js';
import { attributesFromForm } from '../../../../src/web/screens/analyze.js';
import { journeyFields, secretsFromForm } from '../../../../src/web/screens/analyze-journey.js';
import { FormFields } from '../../../../src/web/session.js';
import { filmBySteps, journeySteps } from '../../../../src/report/journey.js';
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

const JOURNEY: JourneySummary = {
  title: 'Shop checkout',
  measured_step: 5,
  steps: [
    { index: 1, steps: [1], name: 'Shop checkout: navigate https://shop.example/app/login', mode: 'navigation', url: 'https://shop.example/app/login',
      start: 0, duration: 236, measured: false, figures: { performance_score: 100, time_to_first_byte: 59, first_contentful_paint: 356, page_requests: 1, page_bytes: 769 } },
    { index: 2, steps: [2, 3, 4], name: 'Shop checkout: click "aria/Email", change "aria/Email"', mode: 'timespan', url: 'https://shop.example/app/login',
      start: 6391, duration: 1420, measured: false, figures: { total_blocking_time: 0, cumulative_layout_shift: 0, page_requests: 0, page_bytes: 0, duration: 1420 } },
    { index: 5, steps: [5], name: 'Shop checkout: click "aria/Sign in"', mode: 'navigation', url: 'https://shop.example/app/dashboard',
      start: 10803, duration: 818, measured: true, figures: { performance_score: 98, time_to_first_byte: 751, interaction_to_next_paint: 1 }, warnings: ['<b>slow</b>'] },
  ],
};

describe("a journey's report", () => {
  it('lists every step with its mode and figures; the measured step is marked and said in words', () => {
    const html = journeySteps(JOURNEY);
    const rows = html.split('<tr').slice(2);
    assert.equal(rows.length, 3, 'a row per measured step');
    assert.match(rows[0]!, /^>.*>1<\/td><th scope="row" class="step-name">navigate https:\/\/shop\.example\/app\/login</, 'the title is not repeated in each name');
    assert.match(rows[0]!, /data-label="TTFB">59 ms</);
    assert.match(rows[1]!, />2–4</, 'a timespan names the recording steps it covers');
    assert.match(rows[1]!, /data-label="INP">no interaction</, 'a timespan without interaction says so');
    assert.match(rows[1]!, /class="num none" data-label="TTFB">–</, 'a timespan has no TTFB');
    assert.ok(rows[2]!.startsWith(' class="measured">'), 'the measured row is marked');
    assert.match(rows[2]!, /<strong class="measured-tag">Measured step<\/strong>/);
    assert.equal(rows.filter((r) => r.includes('Measured step')).length, 1, 'one step only');
    assert.match(html, /the measured step, recording step 5: click &quot;aria\/Sign in&quot;/);
    assert.ok(html.includes('&lt;b&gt;slow&lt;/b&gt;'), 'warnings are text');
  });

  it("cuts the film at the steps' marks: each frame goes with the last step begun when it was shown", () => {
    const frames = [0, 260, 6393, 9000, 10826, 11976].map((t) => ({ timestamp: t, src: `/f/${t}.jpg` }));
    const marks = JOURNEY.steps.map((s) => ({ index: s.index, name: s.name, mode: s.mode, start: s.start, end: s.start + s.duration }));
    const html = filmBySteps(frames, marks, JOURNEY, (f) => `[${f.timestamp}]`);
    const groups = html.split('<div class="film-step">').slice(1);
    assert.equal(groups.length, 3);
    assert.deepEqual(groups.map((g) => [...g.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]))), [[0, 260], [6393, 9000], [10826, 11976]]);
    assert.match(groups[1]!, /<h3 id="film-step-2">Timespan at 6\.39 s: click &quot;aria\/Email&quot;, change &quot;aria\/Email&quot; <small>recording steps 2–4, 1\.42 s<\/small>/);
  });
});
