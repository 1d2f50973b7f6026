// lane: pairs 70
/**
 * report=legacy end to end through the HTTP API with real Chromium runs: PageSpeed and YSlow scores and JSON,
 * pagespeed-files.tar, and what each report type exposes (lighthouse,legacy: both; legacy: no Lighthouse fields;
 * none: no scores at all).
 *
 * Three browser runs, on SQLite only: a run costs seconds, and what these runs add to the store (two integer
 * columns and three artifacts) is engine-neutral SQL that flow.test.ts and pages-lists.test.ts already exercise
 * on both engines.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileArtifactStore } from '../../src/artifacts/store.js';
import { clock } from '../../src/core/clock.js';
import { ARTIFACT, artifactKey } from '../../src/core/reports/reports.js';
import type { StructureReport } from '../../src/analysis/grade.js';
import { FIXTURE, startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { assertError } from '../helpers/assertions.js';
import { call, startServer, waitForTest, type Res, type TestServer } from '../helpers/server.js';

interface PagespeedRule { rule_name: string; rule_score: number | null; weight: number; offenders: string[] }
interface YslowRule { score: number | 'n/a'; weight: number; components: string[] }

/** The files of a POSIX ustar archive: name → data. */
function untar(buf: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let off = 0;
  while (off + 512 <= buf.length) {
    const header = buf.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, len: number) => header.subarray(from, from + len).toString('utf8').replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    files.set(name, buf.subarray(off + 512, off + 512 + size));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

describe('report=legacy with real runs (sqlite)', () => {
  let site: FixtureSite;
  let server: TestServer;
  let artifacts: FileArtifactStore;
  const ids: Record<'faulty' | 'none' | 'legacy', string> = { faulty: '', none: '', legacy: '' };
  const reports: Record<string, Res> = {};
  const faulty = (path: string) => site.url(path);

  before(async () => {
    site = await startFixtureSite();
    server = await startServer({ engine: 'sqlite', agentSlots: 1 });
    artifacts = new FileArtifactStore(join(server.config.dataDir, 'artifacts'));
    // The faulty page loads over a link with 100 ms of latency: on an unthrottled localhost load Lighthouse
    // estimates no saving for render-blocking resources (its simulation sees no round trip to save).
    const runs: [keyof typeof ids, string, Record<string, unknown>][] = [
      ['faulty', FIXTURE.faulty.path, { report: 'lighthouse,legacy', throttle: '20000/5000/100' }],
      ['none', '/', { report: 'none' }],
      ['legacy', '/', { report: 'legacy' }],
    ];
    for (const [name, path, attrs] of runs) {
      const res = await call(server, 'POST', '/tests', {
        key: server.key, body: { data: { type: 'test', attributes: { url: site.url(path), ...attrs } } },
      });
      assert.equal(res.status, 202, res.text);
      ids[name] = res.body.data.id;
    }
    for (const name of Object.keys(ids) as (keyof typeof ids)[]) {
      const done = await waitForTest(server, server.key, ids[name], 120_000);
      assert.equal(done.status, 303, done.text);
      reports[name] = await call(server, 'GET', `/reports/${ids[name]}`, { key: server.key });
      assert.equal(reports[name]!.status, 200, reports[name]!.text);
      const a = reports[name]!.body.data.attributes;
      process.stderr.write(`[legacy] ${name}: grade ${a.service_grade ?? '-'} structure ${a.structure_score ?? '-'} ` +
        `performance ${a.performance_score ?? '-'} pagespeed ${a.pagespeed_score ?? '-'} yslow ${a.yslow_score ?? '-'}\n`);
    }
  });

  after(async () => {
    clock.reset();
    await server?.close();
    await site?.close();
  });

  const resource = (id: string, name: string) => call(server, 'GET', `/reports/${id}/resources/${name}`, { key: server.key });

  describe('lighthouse,legacy of the faulty page', () => {
    let pagespeed: { score: number; rule_results: PagespeedRule[] };
    let yslow: { o: number; g: Record<string, YslowRule> };
    const rule = (id: string) => {
      const r = pagespeed.rule_results.find((x) => x.rule_name === id);
      assert.ok(r, `pagespeed.json has ${id}`);
      return r;
    };

    before(async () => {
      const ps = await resource(ids.faulty, 'pagespeed.json');
      assert.equal(ps.status, 200, ps.text);
      assert.match(ps.headers.get('content-type') ?? '', /application\/json/);
      pagespeed = ps.body;
      const ys = await resource(ids.faulty, 'yslow');
      assert.equal(ys.status, 200, ys.text);
      yslow = ys.body;
    });

    it('has both the Lighthouse and the legacy scores, as integers 0-100', () => {
      const a = reports.faulty!.body.data.attributes;
      for (const k of ['pagespeed_score', 'yslow_score', 'performance_score', 'structure_score', 'service_score']) {
        assert.ok(Number.isInteger(a[k]) && a[k] >= 0 && a[k] <= 100, `${k}: ${a[k]}`);
      }
      assert.match(a.service_grade, /^[A-F]$/);
      assert.equal(a.pagespeed_score, pagespeed.score);
      assert.equal(a.yslow_score, yslow.o);
      const l = reports.faulty!.body.data.links;
      for (const [link, name] of [['pagespeed', 'pagespeed.json'], ['yslow', 'yslow.json'], ['pagespeed_files', 'pagespeed-files.tar'],
        ['lighthouse', 'lighthouse.json'], ['filmstrip', 'filmstrip.json']]) {
        assert.equal(l[link!], `${server.api}/reports/${ids.faulty}/resources/${name}`, link);
      }
    });

    it('pagespeed.json and yslow.json give every rule its score, weight and offenders', () => {
      assert.ok(pagespeed.rule_results.length >= 20);
      for (const r of pagespeed.rule_results) {
        assert.ok(r.rule_score === null || (Number.isInteger(r.rule_score) && r.rule_score >= 0 && r.rule_score <= 100), `${r.rule_name}: ${r.rule_score}`);
        assert.ok([1, 2, 3].includes(r.weight), r.rule_name);
        assert.ok(Array.isArray(r.offenders), r.rule_name);
      }
      assert.ok(Object.keys(yslow.g).length >= 20);
      for (const [id, r] of Object.entries(yslow.g)) {
        assert.ok(r.score === 'n/a' || (Number.isInteger(r.score) && r.score >= 0 && r.score <= 100), `${id}: ${r.score}`);
        assert.ok(Number.isInteger(r.weight) && r.weight > 0, id);
        assert.ok(Array.isArray(r.components), id);
      }
    });

    it('the known faults lower the right rules, naming their culprits', () => {
      const f = FIXTURE.faulty;
      const names = (list: string[], path: string, what: string) =>
        assert.ok(list.some((o) => o.includes(faulty(path))), `${what} names ${path}: ${JSON.stringify(list)}`);
      const lowers = (score: number | null | 'n/a', what: string) =>
        assert.ok(typeof score === 'number' && score < 100, `${what} is lowered: ${score}`);
      for (const [ps, ys, path] of [
        ['EnableGzipCompression', 'ycompress', f.uncompressedScript],
        ['ServeScaledImages', 'yimgnoscale', f.scaledImage],
        ['LeverageBrowserCaching', 'yexpires', f.uncachedResource],
        ['AvoidRenderBlocking', 'ycsstop', f.bodyStylesheet],
        ['MinifyJavaScript', 'yminify', f.uncompressedScript],
      ] as const) {
        lowers(rule(ps).rule_score, ps);
        names(rule(ps).offenders, path, ps);
        lowers(yslow.g[ys]!.score, ys);
        names(yslow.g[ys]!.components, path, ys);
      }
      lowers(rule('MinifyCss').rule_score, 'MinifyCss');
      names(rule('MinifyCss').offenders, f.bodyStylesheet, 'MinifyCss');
      // Only the culprit: every other resource of the page is cached for a year.
      assert.deepEqual(yslow.g.yexpires!.components.filter((c) => c.includes('/faulty/')).length, 1);
    });

    it('the corresponding Lighthouse structure audits score below 1', async () => {
      const raw = await artifacts.get(artifactKey(ids.faulty, ARTIFACT.structure));
      assert.ok(raw, 'structure.json is stored');
      const structure = JSON.parse(raw.toString('utf8')) as StructureReport;
      assert.equal(structure.score, reports.faulty!.body.data.attributes.structure_score);
      const score = (id: string) => structure.audits.find((a) => a.id === id)?.score;
      const f = FIXTURE.faulty;
      // Lighthouse 13's insights: the scaled-down photo, the banner without a cache header, the stylesheet in the body.
      // (The uncompressed script has no Lighthouse 13 audit: document-latency-insight judges the document's compression
      // alone; PageSpeed's EnableGzipCompression above still names it.)
      for (const [id, culprit] of [['image-delivery-insight', f.scaledImage], ['cache-insight', f.uncachedResource],
        ['render-blocking-insight', f.bodyStylesheet]] as const) {
        const audit = structure.audits.find((a) => a.id === id);
        assert.ok(audit && typeof audit.score === 'number' && audit.score < 1, `${id}: ${audit?.score}`);
        assert.ok(audit.items.some((i) => i.url === faulty(culprit)), `${id} names ${culprit}: ${JSON.stringify(audit.items)}`);
      }
      assert.equal(structure.lighthouse_version, '13.5.0');
      assert.equal(reports.faulty!.body.data.attributes.lighthouse_version, '13.5.0');
      // Our own audits count too: the fixture site is not on a CDN.
      assert.equal(score('use-cdn'), 0);
      assert.equal(score('avoid-bad-requests'), 1);
    });

    it('pagespeed-files.tar holds a smaller image and the minified JS and CSS', async () => {
      const res = await fetch(`${server.api}/reports/${ids.faulty}/resources/pagespeed-files.tar`, {
        headers: { authorization: `Basic ${Buffer.from(`${server.key}:`).toString('base64')}` },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/x-tar');
      const files = untar(Buffer.from(await res.arrayBuffer()));
      const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as
        { files: { path: string; url: string; kind: string; original_bytes: number; optimised_bytes: number }[] };
      const entry = (path: string) => {
        const e = manifest.files.find((x) => x.url === faulty(path));
        assert.ok(e, `the archive has ${path}: ${JSON.stringify(manifest.files.map((x) => x.url))}`);
        assert.ok(e.optimised_bytes < e.original_bytes, path);
        assert.equal(files.get(e.path)?.length, e.optimised_bytes, e.path);
        return e;
      };
      assert.match(entry(FIXTURE.faulty.scaledImage).path, /^images\/.*\.jpg$/);
      assert.match(entry(FIXTURE.faulty.uncachedResource).path, /^images\/.*\.png$/);
      const js = entry(FIXTURE.faulty.uncompressedScript);
      assert.match(js.path, /^js\//);
      assert.doesNotMatch(files.get(js.path)!.toString('utf8'), /Adds two numbers/, 'comments are gone');
      new Function(files.get(js.path)!.toString('utf8')); // still JavaScript
      const css = entry(FIXTURE.faulty.bodyStylesheet);
      assert.match(css.path, /^css\//);
      assert.match(files.get(css.path)!.toString('utf8'), /\.block-number-0\{/);
    });

    it('pagespeed-files.tar is gone 24 hours after the report was created; the JSON stays', async () => {
      clock.advance(24 * 3600 * 1000 + 1000);
      assertError(await resource(ids.faulty, 'pagespeed-files.tar'), 404, 'E40416');
      const r = await call(server, 'GET', `/reports/${ids.faulty}`, { key: server.key });
      assert.equal(r.body.data.links.pagespeed_files, undefined);
      assert.ok(r.body.data.links.pagespeed);
      assert.equal((await resource(ids.faulty, 'pagespeed.json')).status, 200);
    });
  });

  describe('report=legacy of the main page', () => {
    it('has the legacy scores and files and nothing of Lighthouse', async () => {
      const { attributes: a, links: l } = reports.legacy!.body.data;
      assert.ok(Number.isInteger(a.pagespeed_score) && a.pagespeed_score >= 0 && a.pagespeed_score <= 100);
      assert.ok(Number.isInteger(a.yslow_score) && a.yslow_score >= 0 && a.yslow_score <= 100);
      for (const k of ['service_grade', 'service_score', 'performance_score', 'structure_score', 'speed_index',
        'largest_contentful_paint', 'time_to_interactive', 'total_blocking_time', 'cumulative_layout_shift']) {
        assert.equal(a[k], undefined, k);
      }
      assert.ok(Number.isInteger(a.fully_loaded_time) && a.page_bytes > 0);
      for (const k of ['lighthouse', 'filmstrip', 'optimized_images']) assert.equal(l[k], undefined, k);
      assert.ok(l.pagespeed && l.yslow && l.pagespeed_files);
      assertError(await resource(ids.legacy, 'lighthouse.json'), 404, 'E40410');
      assertError(await resource(ids.legacy, 'filmstrip.json'), 404, 'E40409');
      assert.equal((await resource(ids.legacy, 'yslow.json')).status, 200);
    });
  });

  describe('report=none of the main page', () => {
    it('has browser timings and bytes, no score and no Lighthouse or legacy resource', async () => {
      const { attributes: a, links: l } = reports.none!.body.data;
      for (const k of ['service_grade', 'service_score', 'performance_score', 'structure_score', 'pagespeed_score',
        'yslow_score', 'speed_index', 'largest_contentful_paint', 'time_to_interactive', 'total_blocking_time',
        'cumulative_layout_shift']) {
        assert.equal(a[k], undefined, k);
      }
      for (const k of ['html_bytes', 'page_bytes', 'page_requests', 'time_to_first_byte', 'onload_time', 'fully_loaded_time']) {
        assert.ok(Number.isInteger(a[k]), k);
      }
      assert.ok(a.html_bytes >= FIXTURE.htmlBytes, `html_bytes ${a.html_bytes}`);
      for (const k of ['lighthouse', 'filmstrip', 'pagespeed', 'yslow', 'pagespeed_files', 'optimized_images']) assert.equal(l[k], undefined, k);
      assertError(await resource(ids.none, 'lighthouse.json'), 404, 'E40410');
      assertError(await resource(ids.none, 'pagespeed.json'), 404, 'E40413');
      assertError(await resource(ids.none, 'yslow.json'), 404, 'E40414');
      assertError(await resource(ids.none, 'pagespeed-files.tar'), 404, 'E40415');
    });
  });
});
