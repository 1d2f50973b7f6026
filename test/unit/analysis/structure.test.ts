import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grade, STRUCTURE_AUDITS, structureScore } from '../../../src/analysis/grade.js';
import { avoidBadRequests } from '../../../src/analysis/structure/avoid-bad-requests.js';
import { avoidEmptySrc } from '../../../src/analysis/structure/avoid-empty-src.js';
import { enableKeepAlive } from '../../../src/analysis/structure/enable-keep-alive.js';
import { STRUCTURE_AUDIT_LIST, structureReport, weightedScore } from '../../../src/analysis/structure/index.js';
import { LIGHTHOUSE_STRUCTURE_AUDITS, scoreLighthouseAudit } from '../../../src/analysis/structure/lighthouse-audits.js';
import { noDuplicateRequests } from '../../../src/analysis/structure/no-duplicate-requests.js';
import { useCdn } from '../../../src/analysis/structure/use-cdn.js';
import { doc, entry, facts, har } from './fixtures.js';

describe('Lighthouse structure audits', () => {
  it('takes Lighthouse\'s score for scored audits', () => {
    assert.equal(scoreLighthouseAudit({ score: 0.5, scoreDisplayMode: 'metricSavings' }).score, 0.5);
    assert.equal(scoreLighthouseAudit({ score: 1, scoreDisplayMode: 'binary' }).score, 1);
    assert.equal(scoreLighthouseAudit({ score: 0.73, scoreDisplayMode: 'numeric' }).score, 0.73);
  });

  it('leaves out audits that are missing, not applicable, errored or manual', () => {
    assert.equal(scoreLighthouseAudit(undefined).score, null);
    assert.equal(scoreLighthouseAudit({ score: null, scoreDisplayMode: 'notApplicable' }).score, null);
    assert.equal(scoreLighthouseAudit({ score: null, scoreDisplayMode: 'error' }).score, null);
    assert.equal(scoreLighthouseAudit({ score: 0, scoreDisplayMode: 'manual' }).score, null);
    assert.equal(scoreLighthouseAudit({ score: 1, scoreDisplayMode: 'informative' }).score, null);
  });

  it('counts an audit that turns informative when it passes as passed', () => {
    assert.equal(scoreLighthouseAudit({ score: 1, scoreDisplayMode: 'informative' }, 'informative-means-pass').score, 1);
    assert.equal(scoreLighthouseAudit({ score: 0.5, scoreDisplayMode: 'metricSavings' }, 'informative-means-pass').score, 0.5);
  });

  it('scores long tasks by how many Lighthouse listed', () => {
    const tasks = (n: number) => ({ score: 1, scoreDisplayMode: 'informative', details: { type: 'table', items: Array(n).fill({}) } });
    assert.equal(scoreLighthouseAudit(tasks(0), 'count-items').score, 1);
    assert.equal(scoreLighthouseAudit(tasks(3), 'count-items').score, 0.7);
    assert.equal(scoreLighthouseAudit(tasks(20), 'count-items').score, 0);
    assert.equal(scoreLighthouseAudit({ score: null, scoreDisplayMode: 'error' }, 'count-items').score, null);
  });

  it('names only real Lighthouse 12 performance audits, each once', () => {
    const ids = LIGHTHOUSE_STRUCTURE_AUDITS.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ['render-blocking-resources', 'uses-text-compression', 'uses-long-cache-ttl', 'dom-size', 'font-display',
      'third-party-summary', 'uses-http2', 'long-tasks', 'redirects', 'unused-css-rules', 'unminified-javascript']) {
      assert.ok(ids.includes(id), id);
    }
  });
});

describe('use a CDN', () => {
  it('is the share of the site\'s static bytes served by a CDN', () => {
    const out = useCdn.run({ facts: facts(), har: har(doc(),
      entry('https://www.example.com/app.js', { type: 'script', transfer: 3000, headers: { 'cf-ray': 'x' } }),
      entry('https://www.example.com/hero.png', { type: 'image', transfer: 1000 }),
    ) });
    assert.equal(out.score, 0.75);
    assert.deepEqual(out.offenders, ['www.example.com']);
  });

  it('does not apply to an all-third-party page', () => {
    const out = useCdn.run({ facts: facts(), har: har(doc(),
      entry('https://www.google-analytics.com/analytics.js', { type: 'script' }),
      entry('https://ads.example.net/banner.png', { type: 'image' }),
    ) });
    assert.equal(out.score, null);
  });

  it('does not apply without images, scripts or styles of the site, nor without a HAR', () => {
    assert.equal(useCdn.run({ facts: facts(), har: har(doc()) }).score, null);
    assert.equal(useCdn.run({ facts: facts() }).score, null);
    assert.equal(useCdn.run({ har: har() }).score, null);
  });

  it('ignores failed responses', () => {
    const out = useCdn.run({ facts: facts(), har: har(doc(), entry('https://www.example.com/gone.png', { type: 'image', status: 404 })) });
    assert.equal(out.score, null);
  });
});

describe('avoid bad requests', () => {
  it('loses 0.2 per 4xx or 5xx response', () => {
    const out = avoidBadRequests.run({ har: har(doc(), entry('https://www.example.com/a.png', { status: 404 }),
      entry('https://api.example.com/x', { status: 500 })) });
    assert.equal(out.score, 0.6);
    assert.deepEqual(out.offenders, ['404 https://www.example.com/a.png', '500 https://api.example.com/x']);
  });

  it('is 1 with no bad request, 0 with five, n/a without a HAR', () => {
    assert.equal(avoidBadRequests.run({ har: har(doc()) }).score, 1);
    const five = Array.from({ length: 6 }, (_, i) => entry(`https://www.example.com/${i}`, { status: 404 }));
    assert.equal(avoidBadRequests.run({ har: har(doc(), ...five) }).score, 0);
    assert.equal(avoidBadRequests.run({}).score, null);
  });
});

describe('avoid empty src', () => {
  it('is 0 with any empty src or href and 1 without', () => {
    assert.equal(avoidEmptySrc.run({ facts: facts({ emptySrc: ['img'] }) }).score, 0);
    assert.equal(avoidEmptySrc.run({ facts: facts() }).score, 1);
    assert.equal(avoidEmptySrc.run({}).score, null);
  });
});

describe('enable keep-alive', () => {
  it('is the share of HTTP/1.x responses from repeated hosts that kept the connection', () => {
    const out = enableKeepAlive.run({ har: har(doc(),
      entry('https://www.example.com/a.js', { headers: { connection: 'close' } }),
      entry('https://www.example.com/b.js'),
      entry('https://www.example.com/c.js'),
    ) });
    assert.equal(out.score, 0.75);
  });

  it('does not apply to HTTP/2 or to hosts asked only once', () => {
    assert.equal(enableKeepAlive.run({ har: har(doc({ httpVersion: 'h2' }), entry('https://www.example.com/a.js', { httpVersion: 'h2' })) }).score, null);
    assert.equal(enableKeepAlive.run({ har: har(doc(), entry('https://other.example.net/a.js', { headers: { connection: 'close' } })) }).score, null);
  });
});

describe('no duplicate requests', () => {
  it('loses 0.25 per extra full download of the same URL', () => {
    const js = 'https://www.example.com/a.js';
    const out = noDuplicateRequests.run({ har: har(doc(), entry(js), entry(js), entry(js)) });
    assert.equal(out.score, 0.5);
    assert.deepEqual(out.offenders, [`${js} (3 times)`]);
  });

  it('does not count a redirect and its target, or POSTs', () => {
    const url = 'https://www.example.com/api';
    assert.equal(noDuplicateRequests.run({ har: har(entry(url, { status: 302, redirectTo: '/x' }), entry(url)) }).score, 1);
    assert.equal(noDuplicateRequests.run({ har: har(entry(url, { method: 'POST' }), entry(url, { method: 'POST' })) }).score, 1);
  });
});

describe('structure score', () => {
  it('is round(100 × Σ weight × score / Σ weight) over the scored audits', () => {
    assert.equal(weightedScore([{ weight: 3, score: 0 }, { weight: 1, score: 1 }, { weight: 2, score: null }]), 25);
    assert.equal(weightedScore([{ weight: 2, score: null }]), undefined);
  });

  it('weights Lighthouse audits by impact, high 3, medium 2, low 1', () => {
    const audits = {
      'render-blocking-resources': { score: 0, scoreDisplayMode: 'metricSavings' }, // high
      'unminified-css': { score: 0.5, scoreDisplayMode: 'metricSavings' }, // medium
      'dom-size': { score: 1, scoreDisplayMode: 'metricSavings' }, // low
    };
    assert.equal(structureScore(audits), Math.round((100 * (3 * 0 + 2 * 0.5 + 1)) / 6));
  });

  it('adds our own audits when the HAR and the facts are given', () => {
    const audits = { 'uses-text-compression': { score: 1, scoreDisplayMode: 'metricSavings' } }; // high 3 × 1
    const page = har(doc(), entry('https://www.example.com/a.png', { type: 'image', status: 404 }));
    // + avoid-bad-requests 2 × 0.8, avoid-empty-src 2 × 1, keep-alive 1 × 1, no-duplicate-requests 1 × 1; use-cdn n/a
    assert.equal(structureScore(audits, page, facts()), Math.round((100 * (3 + 1.6 + 2 + 1 + 1)) / 9));
  });

  it('copes with a HAR without entries', () => {
    const report = structureReport({ 'dom-size': { score: 1, scoreDisplayMode: 'metricSavings' } }, har(), facts());
    assert.equal(report.score, 100);
    assert.equal(report.audits.find((a) => a.id === 'use-cdn')?.score, null);
    assert.equal(report.audits.find((a) => a.id === 'enable-keep-alive')?.score, null);
  });

  it('is absent without Lighthouse, but still reports our audits', () => {
    const report = structureReport(undefined, har(doc()), facts());
    assert.equal(report.score, undefined);
    assert.equal(report.audits.find((a) => a.id === 'avoid-bad-requests')?.score, 1);
    assert.equal(structureScore({}), undefined);
  });

  it('lists every audit once with a known impact, and grades 60/40', () => {
    const ids = STRUCTURE_AUDIT_LIST.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const impact of Object.values(STRUCTURE_AUDITS)) assert.ok(['high', 'medium', 'low'].includes(impact));
    assert.deepEqual(grade(100, 50), { grade: 'B', score: 80 });
    assert.deepEqual(grade(89, 90.5), { grade: 'B', score: 90 });
    assert.equal(grade(49, 49).grade, 'F');
  });
});
