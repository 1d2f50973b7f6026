/**
 * The structure audits (src/analysis/structure/, tested as one folder): Lighthouse's audits read as Lighthouse 12
 * scored them (lighthouse-audits.ts, lighthouse-details.ts), each audit of our own from its file (use-cdn.ts,
 * avoid-bad-requests.ts, avoid-empty-src.ts, enable-keep-alive.ts, no-duplicate-requests.ts), and the structure score
 * of index.ts with its grade (analysis/grade.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grade, STRUCTURE_AUDITS, structureScore } from '../../../src/analysis/grade.js';
import { avoidBadRequests } from '../../../src/analysis/structure/avoid-bad-requests.js';
import { avoidEmptySrc } from '../../../src/analysis/structure/avoid-empty-src.js';
import { enableKeepAlive } from '../../../src/analysis/structure/enable-keep-alive.js';
import {
  readStructureReport, sameStructureAudits, STRUCTURE_AUDIT_LIST, STRUCTURE_AUDIT_LISTS, structureAuditSet, structureReport, weightedScore,
} from '../../../src/analysis/structure/index.js';
import {
  DOM_ELEMENTS_PASS, LIGHTHOUSE_12_AUDITS, LIGHTHOUSE_13_AUDITS, scoreLighthouseAudit,
} from '../../../src/analysis/structure/lighthouse-audits.js';
import { lighthouseItems, lighthouseSavings } from '../../../src/analysis/structure/lighthouse-details.js';
import { noDuplicateRequests } from '../../../src/analysis/structure/no-duplicate-requests.js';
import { useCdn } from '../../../src/analysis/structure/use-cdn.js';
import { doc, entry, facts, har } from '../../fixtures/analysis.js';

describe('Lighthouse structure audits', () => {
  it('takes Lighthouse\'s score for scored audits', () => {
    assert.equal(scoreLighthouseAudit({ score: 1, scoreDisplayMode: 'metricSavings' }).score, 1);
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
    assert.equal(scoreLighthouseAudit({ score: 0.5, scoreDisplayMode: 'metricSavings' }, 'informative-means-pass').score, 0);
  });

  it('scores a failed metricSavings audit 0 whether or not this load\'s estimated saving rounded to nothing', () => {
    // "Improve image delivery" on an unchanged page: the same bytes to save, an LCP saving of 50 ms on one load and of
    // 0 on the next, which Lighthouse scores 0 and 0.5 (bench/stability.bench.ts).
    const image = (lcp: number, score: number) => ({ score, scoreDisplayMode: 'metricSavings', metricSavings: { FCP: 0, LCP: lcp },
      details: { type: 'table', items: [{ url: 'https://example.com/hero.jpg', wastedBytes: 58_448, totalBytes: 80_000 }] } });
    assert.equal(scoreLighthouseAudit(image(50, 0)).score, 0);
    assert.equal(scoreLighthouseAudit(image(0, 0.5)).score, 0);
    assert.equal(structureScore({ 'image-delivery-insight': image(50, 0) }), structureScore({ 'image-delivery-insight': image(0, 0.5) }));
    assert.equal(scoreLighthouseAudit({ score: 0.9, scoreDisplayMode: 'metricSavings' }).score, 1, 'Lighthouse\'s pass threshold passes');
    assert.equal(scoreLighthouseAudit({ score: 0.89, scoreDisplayMode: 'metricSavings' }).score, 0);
  });

  it('scores long tasks by how many Lighthouse listed', () => {
    const tasks = (n: number) => ({ score: 1, scoreDisplayMode: 'informative', details: { type: 'table', items: Array(n).fill({}) } });
    assert.equal(scoreLighthouseAudit(tasks(0), 'count-items').score, 1);
    assert.equal(scoreLighthouseAudit(tasks(3), 'count-items').score, 0.7);
    assert.equal(scoreLighthouseAudit(tasks(20), 'count-items').score, 0);
    assert.equal(scoreLighthouseAudit({ score: null, scoreDisplayMode: 'error' }, 'count-items').score, null);
  });

  it('names only real Lighthouse 12 performance audits, each once', () => {
    const ids = LIGHTHOUSE_12_AUDITS.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ['render-blocking-resources', 'uses-text-compression', 'uses-long-cache-ttl', 'dom-size', 'font-display',
      'third-party-summary', 'uses-http2', 'long-tasks', 'redirects', 'unused-css-rules', 'unminified-javascript']) {
      assert.ok(ids.includes(id), id);
    }
  });

  it('maps every Lighthouse 12 audit to Lighthouse 13: kept, replaced by one insight (its impact kept), or removed', () => {
    const before = new Map(LIGHTHOUSE_12_AUDITS.map((a) => [a.id, a]));
    const after = new Map(LIGHTHOUSE_13_AUDITS.map((a) => [a.id, a]));
    assert.equal(after.size, LIGHTHOUSE_13_AUDITS.length, 'each Lighthouse 13 audit once');
    const replacedBy = new Map<string, string>();
    for (const a of LIGHTHOUSE_13_AUDITS) {
      for (const old of a.replaces ?? []) {
        assert.ok(before.has(old), `${a.id} replaces ${old}, an audit the structure score read`);
        assert.ok(!replacedBy.has(old), `${old} is replaced once`);
        replacedBy.set(old, a.id);
      }
      // An insight keeps the highest impact of what it replaces; a kept audit keeps its own.
      const was = (a.replaces ?? [a.id]).map((id) => before.get(id)?.impact);
      const rank = { high: 3, medium: 2, low: 1 } as const;
      assert.equal(a.impact, was.reduce((m, i) => (i && rank[i] > rank[m!] ? i : m), 'low' as 'high' | 'medium' | 'low'), a.id);
    }
    const removed = [...before.keys()].filter((id) => !after.has(id) && !replacedBy.has(id));
    assert.deepEqual(removed.sort(), ['no-document-write', 'offscreen-images', 'third-party-facades', 'uses-passive-event-listeners']);
    // As Lighthouse's own replacesAudits says (core/audits/insights/*.js), and its blog for the two that declare none.
    assert.equal(replacedBy.get('uses-text-compression'), 'document-latency-insight');
    assert.equal(replacedBy.get('uses-responsive-images'), 'image-delivery-insight');
    assert.equal(replacedBy.get('lcp-lazy-loaded'), 'lcp-discovery-insight');
    assert.equal(replacedBy.get('uses-http2'), 'modern-http-insight');
    assert.equal(replacedBy.get('legacy-javascript'), 'legacy-javascript-insight');
    assert.equal(replacedBy.get('uses-rel-preconnect'), 'network-dependency-tree-insight');
  });

  it('reads a result with the audits of the Lighthouse that made it', () => {
    assert.equal(structureAuditSet('12.8.2'), '12');
    assert.equal(structureAuditSet('13.5.0'), '13');
    assert.equal(structureAuditSet(undefined), '13');
    assert.ok(sameStructureAudits('13.0.1', '13.5.0'));
    assert.ok(!sameStructureAudits('12.8.2', '13.5.0'));
    const failing = { score: 0, scoreDisplayMode: 'metricSavings' };
    const of12 = structureReport({ 'uses-text-compression': failing, 'document-latency-insight': { score: 1, scoreDisplayMode: 'metricSavings' } },
      undefined, undefined, '12.8.2');
    assert.equal(of12.audit_set, '12');
    assert.equal(of12.score, 0);
    assert.ok(!of12.audits.some((a) => a.id === 'document-latency-insight'));
    const of13 = structureReport({ 'uses-text-compression': failing, 'document-latency-insight': { score: 1, scoreDisplayMode: 'metricSavings' } },
      undefined, undefined, '13.5.0');
    assert.deepEqual([of13.audit_set, of13.lighthouse_version, of13.score], ['13', '13.5.0', 100]);
    assert.deepEqual(STRUCTURE_AUDIT_LIST.map((a) => a.id), STRUCTURE_AUDIT_LISTS['13'].map((a) => a.id));
  });

  it('reads Lighthouse 13\'s DOM size as Lighthouse 12 scored it: passed up to 818 elements', () => {
    const dom = (elements: number, mode: string) => scoreLighthouseAudit({ score: mode === 'informative' ? null : 1, scoreDisplayMode: mode,
      numericValue: elements }, 'dom-elements').score;
    assert.equal(dom(DOM_ELEMENTS_PASS, 'numeric'), 1);
    assert.equal(dom(3000, 'numeric'), 0.5);
    assert.equal(dom(3000, 'informative'), 0, 'the insight saw the size cost large style or layout updates');
    assert.equal(scoreLighthouseAudit({ score: 1, scoreDisplayMode: 'numeric' }, 'dom-elements').score, null);
  });

  it('reads Lighthouse 13\'s third parties as Lighthouse 12 scored them: passed up to 250 ms of their main-thread time', () => {
    const parties = (...ms: number[]) => scoreLighthouseAudit({ score: null, scoreDisplayMode: ms.length ? 'informative' : 'numeric',
      details: { type: 'table', items: ms.map((mainThreadTime) => ({ entity: 'x', mainThreadTime })) } }, 'third-party-time').score;
    assert.equal(parties(), 1);
    assert.equal(parties(100, 150), 1);
    assert.equal(parties(200, 51), 0);
  });

  it('names what an insight names and what fixing it saves', () => {
    const audit = {
      score: 0, scoreDisplayMode: 'metricSavings', metricSavings: { FCP: 300, LCP: 450, CLS: 0 },
      details: { type: 'table', items: [
        { url: 'https://a.example/app.css', totalBytes: 9000, wastedMs: 300 },
        { node: { type: 'node', snippet: '<img src="hero.png">' }, url: 'https://a.example/hero.png', wastedBytes: 52_000 },
        { url: 'https://a.example/app.css', totalBytes: 9000, wastedMs: 300 },
      ], debugData: { type: 'debugdata', wastedBytes: 52_000 } },
    };
    assert.deepEqual(lighthouseItems(audit), [
      { url: 'https://a.example/app.css', total_bytes: 9000, wasted_ms: 300 },
      { url: 'https://a.example/hero.png', element: '<img src="hero.png">', wasted_bytes: 52_000 },
    ]);
    assert.deepEqual(lighthouseSavings(audit), { ms: 450, bytes: 52_000, metrics: { FCP: 300, LCP: 450, CLS: 0 } });
    // A checklist names the checks that failed; a list holds several details; a network tree its URLs.
    const checklist = { type: 'list', items: [
      { type: 'checklist', items: { a: { label: 'Avoids redirects', value: true }, b: { label: 'No compression applied', value: false } } },
      { type: 'node', snippet: '<img loading="lazy">' },
      { type: 'list-section', value: { type: 'network-tree', chains: { x: { url: 'https://a.example/', children: { y: { url: 'https://a.example/b.css', children: {} } } } } } },
    ] };
    assert.deepEqual(lighthouseItems({ details: checklist }), [{ label: 'No compression applied' }, { element: '<img loading="lazy">' },
      { url: 'https://a.example/' }, { url: 'https://a.example/b.css' }]);
    assert.equal(lighthouseSavings({ metricSavings: { LCP: 0 } })?.ms, undefined);
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
      'render-blocking-insight': { score: 0, scoreDisplayMode: 'metricSavings' }, // high
      'unminified-css': { score: 0.5, scoreDisplayMode: 'numeric' }, // medium
      'font-display-insight': { score: 1, scoreDisplayMode: 'metricSavings' }, // low
    };
    assert.equal(structureScore(audits), Math.round((100 * (3 * 0 + 2 * 0.5 + 1)) / 6));
  });

  it('adds our own audits when the HAR and the facts are given', () => {
    const audits = { 'document-latency-insight': { score: 1, scoreDisplayMode: 'metricSavings' } }; // high 3 × 1
    const page = har(doc(), entry('https://www.example.com/a.png', { type: 'image', status: 404 }));
    // + avoid-bad-requests 2 × 0.8, avoid-empty-src 2 × 1, keep-alive 1 × 1, no-duplicate-requests 1 × 1; use-cdn n/a
    assert.equal(structureScore(audits, page, facts()), Math.round((100 * (3 + 1.6 + 2 + 1 + 1)) / 9));
    const bad = structureReport(audits, page, facts()).audits.find((a) => a.id === 'avoid-bad-requests')!;
    assert.deepEqual(bad.items, [{ label: '404 https://www.example.com/a.png' }]);
  });

  it('copes with a HAR without entries', () => {
    const report = structureReport({ 'font-display-insight': { score: 1, scoreDisplayMode: 'metricSavings' } }, har(), facts());
    assert.equal(report.score, 100);
    assert.equal(report.audits.find((a) => a.id === 'use-cdn')?.score, null);
    assert.equal(report.audits.find((a) => a.id === 'enable-keep-alive')?.score, null);
  });

  it('reads a structure.json of a report made before Lighthouse 13 in today\'s shape', () => {
    const old = { score: 71, audits: [
      { id: 'uses-text-compression', title: 'Enable text compression', impact: 'high', weight: 3, source: 'lighthouse', score: 0,
        displayValue: 'Potential savings of 20 KiB', offenders: ['https://a.example/app.js'] },
      { id: 'avoid-empty-src', title: 'Avoid empty src or href', impact: 'medium', weight: 2, source: 'webgauge', score: 1 },
    ] };
    assert.deepEqual(readStructureReport(old), { score: 71, audit_set: '12', audits: [
      { id: 'uses-text-compression', title: 'Enable text compression', impact: 'high', weight: 3, source: 'lighthouse', score: 0,
        display_value: 'Potential savings of 20 KiB', items: [{ url: 'https://a.example/app.js' }] },
      { id: 'avoid-empty-src', title: 'Avoid empty src or href', impact: 'medium', weight: 2, source: 'webgauge', score: 1, items: [] },
    ] });
    const today = structureReport({ 'font-display-insight': { score: 1, scoreDisplayMode: 'metricSavings' } }, undefined, undefined, '13.5.0');
    assert.deepEqual(readStructureReport(JSON.parse(JSON.stringify(today))), JSON.parse(JSON.stringify(today)));
    assert.equal(readStructureReport({ audits: 'x' }), undefined);
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
