/** A journey's report (report/journey.ts): the steps table and the film cut at the steps. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JourneySummary } from '../../../src/core/reports/journey-summary.js';
import { filmBySteps, journeySteps } from '../../../src/report/journey.js';

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
