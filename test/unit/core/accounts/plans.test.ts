/**
 * Plans (core/accounts/plans.ts): the plans file (extends, fields), the registry's fallback to basic, and
 * WEBGAUGE_PLANS_FILE read at start.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../../src/config.js';
import { parsePlansFile, PLANS, PlanFileError, PlanRegistry } from '../../../../src/core/accounts/plans.js';

const refused = (doc: unknown, ...parts: string[]) =>
  assert.throws(() => parsePlansFile(doc), (err: Error) => {
    assert.ok(err instanceof PlanFileError, String(err));
    for (const part of parts) assert.ok(err.message.includes(part), `"${err.message}" should mention ${part}`);
    return true;
  });

describe('plans file: extends', () => {
  test('a plan is what it extends with its own fields on top', () => {
    const plans = parsePlansFile({ team: { extends: 'pro', rate_limit: 5000, concurrent_tests: 16 } });
    assert.deepEqual(plans.team, { ...PLANS.pro, name: 'team', rateLimit: 5000, concurrentTests: 16 });
  });

  test('chains through other plans of the file, in any order', () => {
    const plans = parsePlansFile({
      big: { extends: 'team', unlimited_credits: true, max_runs: 20 },
      team: { extends: 'pro', daily_credits: 250.5 },
    });
    assert.equal(plans.big.dailyCredits, 250.5);
    assert.equal(plans.big.unlimitedCredits, true);
    assert.equal(plans.big.maxRuns, 20);
    assert.equal(plans.big.fullPdf, true, 'from pro');
    assert.equal(plans.team.unlimitedCredits, false);
  });

  test('without extends: a built-in is overridden in place, a new plan starts from basic (the file\'s basic if it has one)', () => {
    const plans = parsePlansFile({ pro: { max_tags: 50 }, basic: { daily_credits: 1 }, small: { max_tags: 3 } });
    assert.deepEqual(plans.pro, { ...PLANS.pro, maxTags: 50 });
    assert.deepEqual(plans.basic, { ...PLANS.basic, dailyCredits: 1 });
    assert.deepEqual(plans.small, { ...PLANS.basic, name: 'small', dailyCredits: 1, maxTags: 3 });
    assert.equal(parsePlansFile({ x: { extends: 'basic' } }).x.dailyCredits, 5, 'the built-in basic when the file has none');
  });

  test('built-in defaults include max_runs (basic 3, pro 9) and no unlimited credits', () => {
    assert.equal(PLANS.basic.maxRuns, 3);
    assert.equal(PLANS.pro.maxRuns, 9);
    assert.equal(PLANS.pro.unlimitedCredits, false);
  });

  test('unknown and circular extends are refused, naming the plan', () => {
    refused({ team: { extends: 'gold' } }, 'plan "team"', '"gold"', 'basic, pro');
    refused({ a: { extends: 'b' }, b: { extends: 'a' } }, 'plan "a"', 'a → b → a');
    refused({ a: { extends: 'a' } }, 'plan "a"', 'circle');
    refused({ basic: { extends: 'x' }, x: {} }, 'circle');
    refused({ a: { extends: 3 } }, 'plan "a"', '"extends"');
  });
});

describe('plans file: fields', () => {
  test('unknown fields, wrong types, negative and fractional numbers are refused, naming plan and field', () => {
    refused({ team: { rateLimit: 5 } }, 'plan "team"', 'unknown field "rateLimit"', 'rate_limit');
    refused({ team: { rate_limit: '5000' } }, 'plan "team"', '"rate_limit"', 'integer ≥ 1', '"5000"');
    refused({ team: { rate_limit: 0 } }, '"rate_limit"');
    refused({ team: { rate_limit: Number.MAX_SAFE_INTEGER } }, '"rate_limit"', 'at most 1000000000', String(Number.MAX_SAFE_INTEGER));
    refused({ team: { concurrent_tests: -1 } }, '"concurrent_tests"', 'integer ≥ 0');
    refused({ team: { max_tags: 2.5 } }, '"max_tags"');
    refused({ team: { daily_credits: -5 } }, '"daily_credits"', '≥ 0');
    refused({ team: { daily_credits: 0.25 } }, '"daily_credits"', 'one decimal');
    refused({ team: { pdf: 1 } }, '"pdf"', 'true or false');
    refused({ team: { unlimited_credits: 'yes' } }, '"unlimited_credits"');
    refused({ team: { max_runs: null } }, '"max_runs"');
  });

  test('the file and each plan must be objects; plan names are restricted', () => {
    refused([], 'JSON object');
    refused('team', 'JSON object');
    refused({ team: 5 }, 'plan "team"', 'object');
    refused({ 'a b': {} }, 'plan "a b"', 'plan name');
    refused({ '': {} }, 'plan ""');
  });

  test('every snake_case field sets its limit', () => {
    const p = parsePlansFile({ all: {
      daily_credits: 7, initial_credits: 8, unlimited_credits: true, concurrent_tests: 9, rate_limit: 10, rate_window_seconds: 11,
      pro_analysis_options: true, pro_locations: true, pdf: false, full_pdf: true, whitelabel_pdf: true, parallel_pdfs: 12,
      max_tags: 13, monitoring_slots: 14, hourly_monitoring: true, max_runs: 15, max_scan_pages: 16,
    } }).all;
    assert.deepEqual(p, {
      name: 'all', dailyCredits: 7, initialCredits: 8, unlimitedCredits: true, concurrentTests: 9, rateLimit: 10, rateWindowSeconds: 11,
      proAnalysisOptions: true, proLocations: true, pdf: false, fullPdf: true, whitelabelPdf: true, parallelPdfs: 12,
      maxTags: 13, monitoringSlots: 14, hourlyMonitoring: true, maxRuns: 15, maxScanPages: 16,
    });
  });
});

describe('PlanRegistry', () => {
  test('a plan that is not known falls back to basic, warning once per plan name', () => {
    const warnings: unknown[] = [];
    const plans = new PlanRegistry(parsePlansFile({ basic: { rate_limit: 7 } }));
    plans.useLog({ warn: (obj) => warnings.push(obj) });
    assert.equal(plans.get('gone').rateLimit, 7, "the registry's basic");
    assert.equal(plans.get('gone').name, 'basic');
    plans.get('also-gone');
    assert.equal(warnings.length, 2);
    assert.deepEqual(plans.names(), ['basic', 'pro']);
    assert.equal(plans.has('gone'), false);
  });
});

describe('WEBGAUGE_PLANS_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webgauge-plans-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  test('unset: the built-in plans only', () => {
    assert.deepEqual(loadConfig({}).plans.names(), ['basic', 'pro']);
  });

  test('a good file adds its plans', () => {
    const plans = loadConfig({ WEBGAUGE_PLANS_FILE: file('good.json', '{"team":{"extends":"pro","rate_limit":5000}}') }).plans;
    assert.deepEqual(plans.names(), ['basic', 'pro', 'team']);
    assert.equal(plans.get('team').rateLimit, 5000);
  });

  test('a missing, unparsable or invalid file stops the start with a message naming the variable, file, plan and field', () => {
    const cases: [string, string[]][] = [
      [join(dir, 'missing.json'), ['cannot read', 'missing.json']],
      [file('broken.json', '{"team":'), ['broken.json', 'not valid JSON']],
      [file('bad.json', '{"team":{"extends":"pro","rate_limit":-1}}'), ['bad.json', 'plan "team"', '"rate_limit"']],
    ];
    for (const [path, parts] of cases) {
      assert.throws(() => loadConfig({ WEBGAUGE_PLANS_FILE: path }), (err: Error) => {
        assert.ok(err instanceof ConfigError, String(err));
        assert.ok(err.message.startsWith('WEBGAUGE_PLANS_FILE'), err.message);
        for (const part of parts) assert.ok(err.message.includes(part), `"${err.message}" should mention ${part}`);
        return true;
      });
    }
  });
});
