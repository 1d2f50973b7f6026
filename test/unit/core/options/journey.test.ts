/**
 * Journeys, from the recording in POST /tests to the load's steps; placed by its main module, core/options/journey.ts
 * (the recording's rules, through parseTestOptions), since one set-up (the fixture shop's recordings) serves every
 * part: a Recorder recording read by @puppeteer/replay's parser, checked against our rules (each refusal naming its
 * step), measured as Lighthouse's replay groups steps, charged per measured step; its steps at run time
 * (runner/journey/recording.ts), its secrets scrubbed in every form (core/options/secrets.ts), and the load's steps
 * (runner/load/context.ts stepPlan, runner/journey/result.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../../../src/core/errors.js';
import { parseTestOptions, type OptionsContext } from '../../../../src/core/options/options.js';
import { createCatalog } from '../../../../src/core/catalog/catalog.js';
import { PLANS } from '../../../../src/core/accounts/plans.js';
import { testCost } from '../../../../src/core/accounts/pricing.js';
import { base64Forms, REMOVED, secretScrubber, testSecrets } from '../../../../src/core/options/secrets.js';
import { describeStep, fillSecrets, measuredSteps } from '../../../../src/runner/journey/recording.js';
import { journeyHar, timespanFigures } from '../../../../src/runner/journey/result.js';
import { stepPlan } from '../../../../src/runner/load/context.js';
import { loadConditions } from '../../../../src/core/options/conditions.js';
import { shopRecordings, SHOP } from '../../../fixtures/site/shop.js';

const ctx: OptionsContext = {
  plan: PLANS.pro, catalog: createCatalog({ locationName: 'Local', locationRegion: 'Local' }),
  defaultLocation: '1', defaultBrowser: '3',
};
const ORIGIN = 'https://shop.example';
const rec = shopRecordings(ORIGIN);
const secrets = { SHOP_PASSWORD: SHOP.password };
const parse = (attrs: Record<string, unknown>) => parseTestOptions(attrs, ctx);

/** The E40004 detail of a refused request (and that it was E40004). */
function refusal(attrs: Record<string, unknown>): string {
  try {
    parse(attrs);
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 'E40004', err.detail);
    return err.detail ?? '';
  }
  assert.fail('the request was accepted');
}

const withStep = (i: number, step: unknown) => {
  const steps = [...rec.checkout.steps] as unknown[];
  steps[i] = step;
  return { journey: { ...rec.checkout, steps }, journey_secrets: secrets };
};

describe('a Recorder recording in POST /tests', () => {
  test('is taken as the panel exports it, as an object or as its JSON text; url is its first navigation', () => {
    for (const journey of [rec.checkout, JSON.stringify(rec.checkout)]) {
      const o = parse({ journey, journey_secrets: secrets });
      assert.equal(o.url, `${ORIGIN}/app/login`);
      assert.equal(o.journey?.title, 'Shop checkout');
      assert.equal(o.journey?.steps.length, rec.checkout.steps.length);
      assert.deepEqual(o.journey_secrets, secrets);
      // The last navigation step (the checkout click) by default.
      assert.equal(o.journey_measured_step, 8);
    }
  });

  test('is measured as Lighthouse\'s replay groups it: each navigation alone, the interactions between as one timespan', () => {
    assert.deepEqual(measuredSteps(rec.checkout as never), [
      { mode: 'navigation', steps: [1] },
      { mode: 'timespan', steps: [2, 3, 4] },
      { mode: 'navigation', steps: [5] },
      { mode: 'timespan', steps: [6, 7] },
      { mode: 'navigation', steps: [8] },
    ]);
  });

  test('is charged a test\'s credits for each measured step, times runs; a plain test is unchanged', () => {
    const o = parse({ journey: rec.checkout, journey_secrets: secrets });
    assert.equal(testCost(o), 5);
    assert.equal(testCost({ ...o, runs: 2, video: 1 }), 10.9);
    assert.equal(testCost(parse({ url: 'https://example.com/' })), 1);
  });

  test('journey_measured_step names a navigation step', () => {
    assert.equal(parse({ journey: rec.checkout, journey_secrets: secrets, journey_measured_step: 5 }).journey_measured_step, 5);
    assert.match(refusal({ journey: rec.checkout, journey_secrets: secrets, journey_measured_step: 6 }),
      /^journey_measured_step 6 is not a navigation step/);
    assert.match(refusal({ journey: rec.checkout, journey_secrets: secrets, journey_measured_step: 99 }),
      /^journey_measured_step must be the index of a step of the journey \(0 to 8\)/);
  });

  test('clients that never send journey see the options they always saw', () => {
    const o = parse({ url: 'https://example.com/' });
    assert.equal('journey' in o, false);
    assert.equal('journey_secrets' in o, false);
    assert.equal('journey_measured_step' in o, false);
  });
});

describe('refusals: E40004 naming the step, for what Webgauge cannot honour', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['text that is not JSON', { journey: '{"title": "x", steps: [' }, /^journey is not a Chrome DevTools Recorder recording: its text is not JSON/],
    ['an object without title', { journey: { steps: [{ type: 'navigate', url: ORIGIN }] } }, /^journey is not a Chrome DevTools Recorder recording: Recording is missing `title`/],
    ['a list', { journey: [1, 2] }, /^journey must be a Chrome DevTools Recorder recording/],
    ['a step replay cannot parse', withStep(3, { type: 'change', selectors: [['#email']] }), /^journey\.steps\[3\]: Step\.value is not a string/],
    ['an unknown step type', withStep(3, { type: 'teleport' }), /^journey\.steps\[3\]: /],
    ['customStep', withStep(6, { type: 'customStep', name: 'x', parameters: {} }), /^journey\.steps\[6\]: customStep cannot be replayed/],
    ['emulateNetworkConditions', withStep(2, { type: 'emulateNetworkConditions', download: 1000, upload: 1000, latency: 40 }),
      /^journey\.steps\[2\]: emulateNetworkConditions .*throttle/],
    ['another tab', withStep(6, { ...rec.checkout.steps[6], target: 'https://shop.example/popup' }), /^journey\.steps\[6\]: the step acts on another tab/],
    ['close', withStep(7, { type: 'close' }), /^journey\.steps\[7\]: close would end/],
    ['a setViewport after the first step', withStep(7, rec.checkout.steps[0]), /^journey\.steps\[7\]: setViewport may only be the first step/],
    ['a navigate to javascript:', withStep(1, { type: 'navigate', url: 'javascript:alert(1)' }), /^journey\.steps\[1\]: url must use http or https, not javascript/],
    ['a navigate with credentials', withStep(1, { type: 'navigate', url: 'https://u:p@shop.example/' }), /^journey\.steps\[1\]: url must not contain credentials/],
    ['a secret in a host', withStep(1, { type: 'navigate', url: 'https://{{secrets.SHOP_PASSWORD}}.example/' }), /^journey\.steps\[1\]: /],
    ['a step timeout above 30 s', withStep(6, { ...rec.checkout.steps[6], timeout: 30_001 }), /^journey\.steps\[6\]: Timeout is not between 1 and 30000 milliseconds/],
    ['a recording timeout above 30 s', { journey: { ...rec.checkout, timeout: 60_000 }, journey_secrets: secrets }, /^journey is not a Chrome DevTools Recorder recording: Timeout is not between/],
    ['a secret that is not given', { journey: rec.checkout }, /^journey\.steps\[4\]\.value: \{\{secrets\.SHOP_PASSWORD\}\} names no secret/],
    ['a password typed in clear', withStep(4, { type: 'change', value: 'hunter22', selectors: [['aria/Password'], ['#password']] }),
      /^journey\.steps\[4\]: the value typed into a password field must come from journey_secrets/],
    ['a first step that is not a navigation', { journey: { title: 't', steps: [rec.checkout.steps[2]] } }, /^journey\.steps\[0\]: a journey starts in a new tab/],
    ['more than 50 steps', { journey: { title: 't', steps: Array.from({ length: 51 }, () => rec.checkout.steps[1]) } }, /^journey has 51 steps; a recording may have at most 50/],
    ['more than 256 KB', { journey: { title: 'x'.repeat(300 * 1024), steps: [rec.checkout.steps[1]] } }, /^journey is 30\d KB; a recording may be at most 256 KB/],
    ['an unused secret', { journey: rec.checkout, journey_secrets: { ...secrets, OTHER: 'x' } }, /^journey_secrets OTHER is not used by any step/],
    ['a secret that is not a string', { journey: rec.checkout, journey_secrets: { SHOP_PASSWORD: 42 } }, /^journey_secrets\.SHOP_PASSWORD must be a string/],
    ['secrets without a journey', { url: ORIGIN, journey_secrets: secrets }, /^journey_secrets was given without journey/],
    ['a url that is not its first navigation', { journey: rec.checkout, journey_secrets: secrets, url: 'https://elsewhere.example/' }, /is not the journey's first navigation/],
    ['a report other than lighthouse', { journey: rec.checkout, journey_secrets: secrets, report: 'none' }, /^report "none" cannot measure a journey/],
    ['a setViewport and a resolution option', { journey: rec.checkout, journey_secrets: secrets, browser_width: 800, browser_height: 600 }, /^journey\.steps\[0\] is a setViewport, and browser_width/],
  ];
  for (const [what, attrs, detail] of cases) {
    test(what, () => assert.match(refusal(attrs), detail));
  }

  test('no refusal quotes a secret', () => {
    for (const [, attrs] of cases) {
      const detail = (() => { try { parse(attrs); return ''; } catch (err) { return (err as ApiError).detail ?? ''; } })();
      assert.equal(detail.includes(SHOP.password), false, detail);
      assert.equal(detail.includes('hunter22'), false, detail);
    }
  });
});

describe('steps at run time', () => {
  test('placeholders are filled from the secrets, anywhere in a step, spaces allowed inside the braces', () => {
    const step = { type: 'change', value: 'x{{ secrets.A }}y', selectors: [['#{{secrets.B}}']] };
    assert.deepEqual(fillSecrets(step, { A: '1', B: '2' }), { type: 'change', value: 'x1y', selectors: [['#2']] });
  });

  test('a step is named by what it acts on, never by a value it types', () => {
    assert.equal(describeStep(rec.checkout.steps[4] as never), 'change "aria/Password"');
    assert.equal(describeStep(rec.checkout.steps[6] as never), 'click "aria/Add to cart"');
    assert.equal(describeStep(rec.checkout.steps[1] as never), `navigate ${ORIGIN}/app/login`);
  });
});

describe('the secret scrubber with journey secrets', () => {
  const scrub = secretScrubber(testSecrets({ journey_secrets: secrets }));
  const forms = [SHOP.password, encodeURIComponent(SHOP.password), new URLSearchParams({ p: SHOP.password }).toString().slice(2),
    Buffer.from(SHOP.password).toString('base64'),
    Buffer.from(`${SHOP.email}:${SHOP.password}`).toString('base64'), Buffer.from(`xy${SHOP.password}z`).toString('base64url')];

  test('removes the secret plain, URL-encoded and inside base64 at every alignment', () => {
    for (const form of forms) {
      const out = scrub.text(`before ${form} after`);
      assert.ok(out.includes(REMOVED), `${form} -> ${out}`);
      for (const core of base64Forms(SHOP.password)) assert.equal(out.includes(core), false, out);
      assert.equal(out.includes(SHOP.password), false);
    }
  });

  test('leaves other text alone', () => {
    assert.equal(scrub.text('a plain sentence about horses'), 'a plain sentence about horses');
  });
});

describe('the load\'s steps (runner/load/context.ts stepPlan, runner/journey/result.ts)', () => {
  test('a plain test is the one-navigation case of the same path', () => {
    const plan = stepPlan({ conditions: { url: 'https://example.com/' } as never });
    assert.equal(plan.journey, false);
    assert.deepEqual(plan.measured, [{ mode: 'navigation', steps: [0] }]);
    assert.equal(plan.reportStep, 0);
    assert.deepEqual(plan.recording.steps, [{ type: 'navigate', url: 'https://example.com/' }]);
  });

  test('a journey reports the navigation it names', () => {
    const o = parse({ journey: rec.checkout, journey_secrets: secrets, journey_measured_step: 5 });
    const plan = stepPlan({ conditions: loadConditions(o) });
    assert.equal(plan.journey, true);
    assert.equal(plan.reportStep, 2, 'the third measured step: nav 1, timespan 2-4, nav 5');
    assert.deepEqual(plan.secrets, secrets);
  });

  test('one HAR: a page per step, named and begun as the step, each entry referring to its step\'s page', () => {
    const entry = (url: string) => ({ request: { url }, response: {} }) as never;
    const har = (urls: string[]) => ({ log: { version: '1.2', pages: [{ id: 'page_1' }], entries: urls.map(entry) } }) as never;
    const merged = journeyHar([
      { har: har(['https://a/']), name: 'T: navigate https://a/', startedAt: Date.UTC(2026, 0, 1), pageTimings: { onContentLoad: 10, onLoad: 20 } },
      { har: har([]), name: 'T: click "x"', startedAt: Date.UTC(2026, 0, 1, 0, 0, 5), pageTimings: { onContentLoad: -1, onLoad: -1 } },
      { har: har(['https://a/cart', 'https://a/x.js']), name: 'T: click "y"', startedAt: Date.UTC(2026, 0, 1, 0, 0, 9), pageTimings: { onContentLoad: 1, onLoad: 2 } },
    ]);
    assert.deepEqual(merged.log.pages, [
      { id: 'page_1', startedDateTime: '2026-01-01T00:00:00.000Z', title: 'T: navigate https://a/', pageTimings: { onContentLoad: 10, onLoad: 20 } },
      { id: 'page_2', startedDateTime: '2026-01-01T00:00:05.000Z', title: 'T: click "x"', pageTimings: { onContentLoad: -1, onLoad: -1 } },
      { id: 'page_3', startedDateTime: '2026-01-01T00:00:09.000Z', title: 'T: click "y"', pageTimings: { onContentLoad: 1, onLoad: 2 } },
    ]);
    assert.deepEqual(merged.log.entries.map((e) => `${e.pageref} ${e.request.url}`), ['page_1 https://a/', 'page_3 https://a/cart', 'page_3 https://a/x.js']);
  });

  test('a timespan\'s figures: INP, TBT and CLS from Lighthouse, requests and bytes from its HAR entries', () => {
    const lhr = { audits: { 'interaction-to-next-paint': { numericValue: 432.6 }, 'total-blocking-time': { numericValue: 351 },
      'cumulative-layout-shift': { numericValue: 0.012345 } } } as never;
    const entries = [{ response: { _transferSize: 300, bodySize: 100, headersSize: 50 } }, { response: { bodySize: 40, headersSize: 60 } }] as never;
    assert.deepEqual(timespanFigures(lhr, entries, 812.4), { interaction_to_next_paint: 433, total_blocking_time: 351,
      cumulative_layout_shift: 0.0123, page_requests: 2, page_bytes: 400, duration: 812 });
    // Without an interaction there is no INP: absent, not 0.
    assert.equal('interaction_to_next_paint' in timespanFigures({ audits: {} } as never, [], 5), false);
  });
});
