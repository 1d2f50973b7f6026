/**
 * The app's charts (web/charts.ts): time axes and round tops, points, the figure's drawing, the alert flags placed over
 * their points (with web/screens/page-alerts.ts alertMarkers), and the marks where Lighthouse changed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axisEnds, day, layout, lineChart, markerName, niceCeil, roundTop, versionChanges, VIEW, when, type ChartMetric } from '../../../src/web/charts.js';
import { alertMarkers } from '../../../src/web/screens/page-alerts.js';
import type { AlertEventRow } from '../../../src/core/alerts/alerts.js';
import type { ReportRow } from '../../../src/core/reports/reports.js';

const score: ChartMetric = { title: 'Performance', label: 'performance', format: (v) => `${v}%`, max: 100 };
const timing: ChartMetric = { title: 'LCP', label: 'LCP', format: (v) => `${v} ms`, minTop: 1000 };
const T = Date.UTC(2026, 10, 25, 14, 2);
const H = 3_600_000;

describe('web charts', () => {
  it('writes times in UTC to the second as "14:02:00 25 Nov 2026"', () => {
    assert.equal(when(T), '14:02:00 25 Nov 2026');
    assert.equal(when(Date.UTC(2027, 0, 3, 4, 5, 9)), '04:05:09 3 Jan 2027');
    assert.equal(day(T), '25 Nov');
  });

  it('labels the time axis with days, or times of day over a short span', () => {
    assert.deepEqual(axisEnds(T, T + 5 * 86_400_000), ['25 Nov', '30 Nov']);
    assert.deepEqual(axisEnds(T, T + H), ['14:02', '15:02 25 Nov']);
    assert.deepEqual(axisEnds(T, T + 12 * H), ['14:02 25 Nov', '02:02 26 Nov']);
  });

  it('rounds axis tops up to 1, 2, 2.5 or 5 times a power of ten', () => {
    assert.equal(niceCeil(1), 1);
    assert.equal(niceCeil(1.3), 2);
    assert.equal(niceCeil(2.2), 2.5);
    assert.equal(niceCeil(3100), 5000);
    assert.equal(niceCeil(7), 10);
    assert.equal(niceCeil(0.07), 0.1);
    assert.equal(niceCeil(1000), 1000);
  });

  it('places points oldest to newest across the plot, skipping null values', () => {
    const { top, placed } = layout(score, [
      { href: '/reports/c', time: T + 2 * H, value: 100 },
      { href: '/reports/a', time: T, value: 0 },
      { href: '/reports/b', time: T + H, value: null },
    ]);
    assert.equal(top, 100);
    assert.deepEqual(placed.map((p) => p.href), ['/reports/a', '/reports/c']);
    assert.equal(placed[0].x, VIEW.left);
    assert.equal(placed[1].x, VIEW.width - VIEW.right);
    assert.equal(placed[0].y, VIEW.height - VIEW.bottom);
    assert.equal(placed[1].y, VIEW.top);
  });

  it('scales a free axis to a round top above the largest value, with a floor', () => {
    assert.equal(layout(timing, [{ href: '/r', time: T, value: 3100 }]).top, 5000);
    assert.equal(layout(timing, [{ href: '/r', time: T, value: 0 }]).top, 1000);
  });

  it('tops a bytes axis at a round number of KB or MB, not of bytes (1.00 MB, not 976.6 KB)', () => {
    assert.equal(roundTop(1_000_000, true), 1_048_576);
    assert.equal(roundTop(300_000, true), 500 * 1024);
    assert.equal(roundTop(700, true), 1024);
    assert.equal(roundTop(300, true), 500);
    assert.equal(roundTop(1_000_000, false), 1_000_000);
  });

  it('draws the rating bands inside the axis as named dashed lines, and says them in the summary', () => {
    const lcp: ChartMetric = { ...timing, bands: { good: 2500, poor: 4000 } };
    const low = lineChart(lcp, [{ href: '/r', time: T, value: 1200 }]);
    assert.equal(low.match(/<g class="band /g)?.length, undefined, 'a 2,000 ms axis reaches neither band');
    assert.match(low, /aria-label="LCP over 1 report, [^"]*; good ≤ 2500 ms, poor &gt; 4000 ms"/);
    const high = lineChart(lcp, [{ href: '/r', time: T, value: 4100 }]);
    assert.deepEqual([...high.matchAll(/<g class="band band-(\w+)"><line [^>]*\/><text [^>]*>([^<]*)<\/text><\/g>/g)].map((m) => [m[1], m[2]]),
      [['good', 'good 2500 ms'], ['poor', 'poor 4000 ms']]);
  });

  it('draws a figure with the metric, the latest value, axis labels, a line and a named link per point', () => {
    const html = lineChart(score, [
      { href: '/reports/a', time: T - H, value: 70 },
      { href: '/reports/b', time: T, value: 87 },
    ]);
    assert.match(html, /^<figure class="chart card"><figcaption><h3>Performance <span class="chart-latest">87%<\/span><\/h3><\/figcaption>/);
    assert.match(html, /<svg role="img" aria-label="Performance over 2 reports, from 13:02:00 25 Nov 2026 to 14:02:00 25 Nov 2026: latest 87%, lowest 70%, highest 87%" viewBox="0 0 320 136">/);
    assert.match(html, />100%<\/text>/);
    assert.match(html, />0%<\/text>/);
    assert.match(html, /<polyline class="line" points="[\d., ]+"\/>/);
    assert.match(html, /<a href="\/reports\/b" aria-label="14:02:00 25 Nov 2026: performance 87%"><title>14:02:00 25 Nov 2026: performance 87%<\/title><circle /);
    assert.equal(html.match(/<a /g)?.length, 2);
    // The links are not inside the image (axe: nested-interactive), but in a group over it.
    assert.match(html, /<svg role="img"[^>]*>(?:(?!<a ).)*<\/svg><svg class="points" role="group" aria-label="Performance of each report"/);
  });

  it('still draws one point, centred, without a line', () => {
    const html = lineChart(score, [{ href: '/reports/a', time: T, value: 50 }]);
    assert.match(html, /<svg role="img"/);
    assert.doesNotMatch(html, /polyline/);
    assert.match(html, new RegExp(`<circle cx="${VIEW.left + (VIEW.width - VIEW.left - VIEW.right) / 2}" cy="`));
    assert.match(html, /over 1 report, 14:02:00 25 Nov 2026/);
  });

  it('says so when no report has the figure', () => {
    const html = lineChart(score, [{ href: '/reports/a', time: T, value: null }]);
    assert.doesNotMatch(html, /<svg/);
    assert.match(html, /No performance figures/);
  });

  it('flags each alert that triggered on a charted report: a named image over its point, in the group of points', () => {
    const points = [
      { href: '/reports/a', time: T - 2 * H, value: 90 },
      { href: '/reports/b', time: T - H, value: 60 },
      { href: '/reports/c', time: T, value: 88 },
    ];
    const html = lineChart(score, points, [{ time: T - H, value: 60 }]);
    const name = 'Alert triggered: Performance 60% at 13:02:00 25 Nov 2026';
    assert.equal(markerName(score, { time: T - H, value: 60 }), name);
    const x = layout(score, points).placed[1].x;
    assert.equal(x, VIEW.left + (VIEW.width - VIEW.left - VIEW.right) / 2);
    const marker = html.match(/<g class="marker" role="img" aria-label="([^"]+)"><title>([^<]+)<\/title><line x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)" y2="([\d.]+)"\/><path d="M([\d.]+) 1h10l-5 9z"\/><\/g>/);
    assert.ok(marker, html);
    assert.deepEqual([marker[1], marker[2]], [name, name], 'named, and titled (a tooltip on hover)');
    assert.deepEqual([Number(marker[3]), Number(marker[4]), Number(marker[6])], [x, x, x - 5], 'a line down the plot and a flag above it, at the point');
    assert.equal(Number(marker[5]), VIEW.height - VIEW.bottom, 'the line reaches the time axis');
    // In the group over the drawing (not inside role="img"), drawn before the points so they stay on top and clickable.
    assert.match(html, /<svg class="points" role="group" aria-label="Performance of each report" [^>]*><g class="markers"><g class="marker"(?:(?!<a ).)*<\/g><\/g><a href="\/reports\/a"/);
    assert.match(html, /<svg role="img" aria-label="Performance over 3 reports[^"]*; 1 alert triggered"/);
  });

  it('leaves out flags outside the charted reports\' span, and draws none without alerts', () => {
    const points = [{ href: '/reports/a', time: T - H, value: 70 }, { href: '/reports/b', time: T, value: 87 }];
    const outside = lineChart(score, points, [{ time: T - 2 * H, value: 50 }, { time: T + H, value: 50 }]);
    assert.doesNotMatch(outside, /class="marker/);
    assert.doesNotMatch(outside, /alert/);
    assert.equal(lineChart(score, points), lineChart(score, points, []));
    const two = lineChart(score, points, [{ time: T, value: 87 }, { time: T - H, value: 70 }]);
    assert.equal(two.match(/<g class="marker"/g)?.length, 2);
    assert.match(two, /; 2 alerts triggered"/);
    // One report: its flag is at its centred point.
    const one = lineChart(score, [points[1]], [{ time: T, value: 87 }]);
    assert.match(one, new RegExp(`<line x1="${VIEW.left + (VIEW.width - VIEW.left - VIEW.right) / 2}" `));
    // No figures at all: no chart, no flag.
    assert.doesNotMatch(lineChart(score, [{ href: '/reports/a', time: T, value: null }], [{ time: T, value: 1 }]), /marker/);
  });

  it('places the page view\'s flags by metric at their report\'s time, only for reports it charts', () => {
    const event = (id: string, metric: string, report: string, state = 'triggered') =>
      ({ id, metric, report_id: report, state, value: 4000, created: T + 5 * H }) as AlertEventRow;
    const reports = [{ id: 'r1', created: T }, { id: 'r2', created: T - H }] as ReportRow[];
    const markers = alertMarkers([
      event('e1', 'fully_loaded_time', 'r1'), event('e2', 'fully_loaded_time', 'r2'), event('e3', 'performance_score', 'r2'),
      event('e4', 'fully_loaded_time', 'gone'), event('e5', 'fully_loaded_time', 'r1', 'resolved'),
    ], reports);
    assert.deepEqual(Object.fromEntries(markers), {
      fully_loaded_time: [{ time: T, value: 4000 }, { time: T - H, value: 4000 }],
      performance_score: [{ time: T - H, value: 4000 }],
    });
  });

  it('marks where the Lighthouse that made the reports changed, and breaks a structure line where its audits changed', () => {
    const points = ['12.8.2', '12.8.2', null, '13.5.0', '13.5.0', '13.6.0'].map((lighthouse, i) =>
      ({ href: `/reports/r${i}`, time: T + i * H, value: 80 - i, lighthouse }));
    assert.deepEqual(versionChanges(points).map((c) => [c.index, c.from, c.to, c.auditsChanged]),
      [[3, '12.8.2', '13.5.0', true], [5, '13.5.0', '13.6.0', false]]);
    const structure = lineChart({ ...score, title: 'Structure', byAuditSet: true }, points);
    assert.equal(structure.match(/<polyline/g)?.length, 2, 'one line before the change of audits, one after');
    assert.match(structure, /<g class="lh-change" role="img" aria-label="Lighthouse 12\.8\.2 → 13\.5\.0 from 17:02:00 25 Nov 2026: structure before and after read other audits and do not compare">/);
    assert.match(structure, /aria-label="Lighthouse 13\.5\.0 → 13\.6\.0 from 19:02:00 25 Nov 2026"><title>[^<]+<\/title><line [^>]+\/><text [^>]+>LH 13\.6<\/text>/);
    assert.match(structure, /; Lighthouse 12\.8\.2 → 13\.5\.0 from 17:02:00 25 Nov 2026: structure before and after/, 'the summary says so too');
    const lcp = lineChart(timing, points);
    assert.equal(lcp.match(/<polyline/g)?.length, 1, 'a metric Lighthouse 13 kept is one line');
    assert.equal(lcp.match(/class="lh-change"/g)?.length, 2);
    assert.doesNotMatch(lineChart(timing, points.slice(0, 2)), /lh-change/);
  });

  it('escapes what it writes', () => {
    const html = lineChart({ ...score, title: '<b>', label: '"x"' }, [{ href: '/reports/a"b', time: T, value: 1 }], [{ time: T, value: 1 }]);
    assert.doesNotMatch(html, /<b>|"x"|a"b/);
    assert.match(html, /aria-label="Alert triggered: &lt;b&gt; 1%/);
  });

  it('a line beside the points (visitors\' p75 per day) shares the axes: it widens the time axis and the top, is named and keyed', () => {
    const points = [{ href: '/r/1', time: T, value: 1200 }, { href: '/r/2', time: T + 24 * H, value: 1300 }];
    const line = { name: "Visitors' p75 per day (this URL, desktop)", className: 'line-field', points: [{ time: T - 48 * H, value: 3600 }, { time: T + 24 * H, value: 3400 }] };
    const { top, placed, placeLine, from, to } = layout(timing, points, [line]);
    assert.equal(top, 5000, 'the top fits the line');
    assert.equal(from, T - 48 * H);
    assert.equal(to, T + 24 * H);
    assert.equal(placeLine(line)[0]!.x, VIEW.left, 'the line starts the axis');
    assert.ok(placed[0]!.x > VIEW.left, 'the first report is placed after it');
    const svg = lineChart(timing, points, [], 'report', [line]);
    assert.match(svg, /<g class="line-field"><polyline points="/);
    assert.match(svg, /Visitors&#39; p75 per day \(this URL, desktop\): 2 points, latest 3400 ms/);
    assert.match(svg, /<p class="chart-legend"><span class="key-lab">Lab reports<\/span><span class="key-line-field">Visitors&#39; p75 per day/);
    assert.doesNotMatch(lineChart(timing, points), /chart-legend/, 'no legend without a line');
  });
});

