/** Lab beside field's rules (core/field/lab-field.ts): the match of a URL, the flag of a difference, a page's group. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  compareLabField, fieldDeviceOfClass, fieldHref, fieldPasses, fieldPathOf, FIELD_MIN_VIEWS, labFieldGroup, labPasses, templateCandidates, type UrlField,
} from '../../../../src/core/field/lab-field.js';
import { FIELD_FIGURE_NAMES } from '../../../../src/analysis/figures.js';
import type { FieldFigures, MetricFigures } from '../../../../src/core/field/figures.js';

const metric = (p75: number | null, n: number, rating: MetricFigures['rating']): MetricFigures =>
  ({ n, p50: p75, p75, p90: p75, good: null, needsImprovement: null, poor: null, rating });

function figures(over: Partial<Record<string, MetricFigures>>, views = 100): FieldFigures {
  const metrics = Object.fromEntries(FIELD_FIGURE_NAMES.map((m) => [m, over[m] ?? metric(null, 0, null)])) as FieldFigures['metrics'];
  return { views, metrics };
}

const field = (f: FieldFigures, basis: UrlField['basis'] = 'path'): UrlField => ({
  site: { id: 'S', name: 'Shop' }, url: 'https://shop.example/p', path: '/p', device: 'desktop', window: { days: 28, from: 0, to: 1 },
  basis, template: '/p', pathViews: f.views, templateViews: f.views, figures: f, href: '/field/S', daily: [],
});

describe('lab beside field', () => {
  test('a phone test stands for mobile visitors, a desktop test for desktop ones', () => {
    assert.equal(fieldDeviceOfClass('desktop'), 'desktop');
    assert.equal(fieldDeviceOfClass('phone-mid'), 'mobile');
    assert.equal(fieldDeviceOfClass('phone-low'), 'mobile');
  });

  test('a URL\'s path as the beacons keep it: on one of the origins, the query only when the site keeps queries', () => {
    const site = { origins: ['https://shop.example', 'http://localhost:8080'], keepQuery: false };
    assert.equal(fieldPathOf(site, 'https://shop.example/p/1?color=red#top'), '/p/1');
    assert.equal(fieldPathOf({ ...site, keepQuery: true }, 'https://shop.example/p/1?color=red#top'), '/p/1?color=red');
    assert.equal(fieldPathOf(site, 'http://localhost:8080/'), '/');
    assert.equal(fieldPathOf(site, 'https://evil.example/p/1'), undefined);
    assert.equal(fieldPathOf(site, 'http://shop.example/p/1'), undefined, 'another scheme is another origin');
    assert.equal(fieldPathOf(site, 'not a url'), undefined);
  });

  test('the templates a path could count under: the site\'s own pattern alone, else its shape alone and among siblings', () => {
    assert.deepEqual(templateCandidates({ templates: ['/p/:sku'] }, '/p/42'), ['/p/:sku']);
    assert.deepEqual(templateCandidates({ templates: [] }, '/blog/hello'), ['/blog/hello', '/blog/:slug']);
    assert.deepEqual(templateCandidates({ templates: [] }, '/p/123'), ['/p/:id']);
    assert.deepEqual(templateCandidates({ templates: [] }, '/about'), ['/about']);
    assert.deepEqual(templateCandidates({ templates: [] }, '/'), ['/']);
    assert.deepEqual(templateCandidates({ templates: [] }, '/blog/hello?x=1'), ['/blog/hello', '/blog/:slug'], 'a kept query is not part of the shape');
  });

  test('the Field view of a path or a template', () => {
    assert.equal(fieldHref('S1', 'mobile', 28, { path: '/a b' }), '/field/S1?device=mobile&days=28&path=%2Fa+b');
    assert.equal(fieldHref('S1', 'desktop', 7, { template: '/p/:id' }), '/field/S1?device=desktop&days=7&template=%2Fp%2F%3Aid');
  });

  test('a lab figure markedly better or worse than the field\'s p75 is flagged, with the size; a small difference is alike', () => {
    const better = compareLabField('lcp', 1200, 3500);
    assert.equal(better.direction, 'lab-better');
    assert.equal(better.size, 2300);
    assert.match(better.words, /LCP \(1\.20 s\) is 2\.30 s better than visitors' p75 \(3\.50 s\): this test is more optimistic/);
    const worse = compareLabField('lcp', 5000, 2000);
    assert.equal(worse.direction, 'lab-worse');
    assert.match(worse.words, /3\.00 s worse .* more pessimistic/);
    // A quarter of the p75 is the bar: 2,000 against 2,600 is 600 (< 650): alike; 1,900 (700): better.
    assert.equal(compareLabField('lcp', 2000, 2600).direction, 'alike');
    assert.equal(compareLabField('lcp', 1900, 2600).direction, 'lab-better');
    // And the figure's own smallest gap: 40 ms of a 100 ms TTFB is 40 %, but under 100 ms.
    assert.equal(compareLabField('ttfb', 60, 100).direction, 'alike');
    assert.equal(compareLabField('cls', 0.01, 0.04).direction, 'alike', 'CLS 0.03 apart is under 0.05');
    assert.equal(compareLabField('cls', 0.3, 0.05).direction, 'lab-worse');
  });

  test('the lab passes when LCP, CLS and TBT are good; the field when the p75s of LCP, INP and CLS are, each on enough views', () => {
    assert.equal(labPasses({ largest_contentful_paint: 2000, cumulative_layout_shift: 0.05, total_blocking_time: 150 }), true);
    assert.equal(labPasses({ largest_contentful_paint: 2000, cumulative_layout_shift: 0.05, total_blocking_time: 250 }), false);
    assert.equal(labPasses({ largest_contentful_paint: null, cumulative_layout_shift: null, total_blocking_time: null }), null);
    assert.equal(fieldPasses(figures({ lcp: metric(2000, 100, 'good'), cls: metric(0.05, 100, 'good') })), true, 'INP unmeasured is left out');
    assert.equal(fieldPasses(figures({ lcp: metric(2000, 100, 'good'), inp: metric(300, 100, 'needs_improvement') })), false);
    assert.equal(fieldPasses(figures({ lcp: metric(5000, FIELD_MIN_VIEWS - 1, 'poor') })), null, 'too few views to judge');
  });

  test('a page\'s group: good lab / poor field, poor lab / good field, aligned, or no field figures', () => {
    const goodLab = { largest_contentful_paint: 1000, cumulative_layout_shift: 0, total_blocking_time: 0 };
    const poorLab = { largest_contentful_paint: 5000, cumulative_layout_shift: 0, total_blocking_time: 0 };
    const poorField = field(figures({ lcp: metric(4500, 100, 'poor') }));
    const goodField = field(figures({ lcp: metric(1500, 100, 'good') }));
    assert.equal(labFieldGroup(goodLab, poorField), 'good-lab-poor-field');
    assert.equal(labFieldGroup(poorLab, goodField), 'poor-lab-good-field');
    assert.equal(labFieldGroup(goodLab, goodField), 'aligned');
    assert.equal(labFieldGroup(poorLab, poorField), 'aligned');
    assert.equal(labFieldGroup(goodLab, undefined), 'no-field');
    assert.equal(labFieldGroup(goodLab, field(figures({ lcp: metric(4500, 100, 'poor') }), 'too-few')), 'no-field');
  });
});
