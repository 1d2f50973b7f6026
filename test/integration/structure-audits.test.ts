// lane: pairs 20
/**
 * Every defect the fixture site can show (test/fixtures/site/defects.ts) against the structure audit that names it:
 * the audit fails on the page with the defect, and passes on the same page without it. Real loads in Chromium of
 * the site on 127.0.0.2 (Lighthouse's insights pass over requests to localhost and 127.0.0.1), Lighthouse 13's result
 * read into the structure section as a report is made (core/reports/report-figures.ts loadFigures). The HTTP/1.1
 * page's twin is the same page over HTTP/2: the site's HTTPS twin, with a certificate of the test's own CA, which the
 * browser is given as an operator's. Two loads at a time: the audits judge what the page is (its headers, markup,
 * bytes and chains), not how fast this machine was, except the server's time, which the slow page sends 1 s late
 * (and the site answers from a process of its own, beside the 600 ms Lighthouse allows).
 * No engine: nothing here is stored.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { StructureAuditResult } from '../../src/analysis/structure/index.js';
import { loadFigures } from '../../src/core/reports/report-figures.js';
import { defaultSandbox } from '../../src/runner/browser.js';
import { runTest } from '../../src/runner/run.js';
import { buildTrustStore, caCertificates, type TrustStore } from '../../src/runner/trust-store.js';
import { DEFECT_PAGES, DEFECTS, defectPath, type Defect } from '../fixtures/site/defects.js';
import { startFixtureSiteProcess, type FixtureSiteProcess } from '../fixtures/site/process.js';
import { makePrivateCa } from '../helpers/certificates.js';
import { analysisOptions, runSpec } from '../helpers/run-spec.js';

const HOST = 'defects.test';

interface Loaded {
  audits: Map<string, StructureAuditResult>;
  errors: string[];
}

describe('each structure audit fails on the page with its defect and passes on the same page without it', () => {
  let site: FixtureSiteProcess;
  let trustStore: TrustStore;
  const loaded = new Map<string, Loaded>();
  const http = (path: string) => `http://${HOST}:${site.port}${path}`;
  const https = (path: string) => `https://${HOST}:${site.securePort}${path}`;
  /** Each defect's page, and its twin without the defect. */
  const pair = (d: Defect): [string, string] =>
    [http(defectPath(d)), d === 'http1' ? https(defectPath('http1')) : http(defectPath('clean'))];

  async function load(url: string): Promise<Loaded> {
    const workDir = await mkdtemp(join(tmpdir(), 'webgauge-defects-'));
    try {
      const result = await runTest({ ...runSpec(analysisOptions(url, { dns: [`${HOST}:127.0.0.2`] }), { testId: 'defects', workDir,
        timeoutMs: 120_000 }), trustStore });
      const structure = loadFigures(result, { report: 'lighthouse' }).structure!;
      const lhr = result.lighthouse as { audits: Record<string, { scoreDisplayMode?: string; errorMessage?: string }> };
      return { audits: new Map(structure.audits.map((a) => [a.id, a])),
        errors: Object.entries(lhr.audits).filter(([, a]) => a.scoreDisplayMode === 'error')
          .map(([id, a]) => `${id} (${a.errorMessage ?? 'no message'})`) };
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  before(async () => {
    const ca = makePrivateCa();
    // Its own process: the server's time is one of the truths (the slow page's), and two loads keep this one's loop busy.
    site = await startFixtureSiteProcess({ host: '127.0.0.2', tls: ca.issue([HOST]) });
    trustStore = await buildTrustStore(caCertificates(ca.cert), defaultSandbox().tag);
    await fetch(`${site.origin}/defects/clean`); // its images, font and bundles are made on the first request
    const urls = [...new Set(DEFECTS.flatMap(pair))];
    const queue = [...urls];
    await Promise.all([0, 1].map(async () => {
      for (let url = queue.shift(); url; url = queue.shift()) loaded.set(url, await load(url));
    }));
  });
  after(async () => {
    await trustStore?.close();
    await site?.close();
  });

  for (const defect of DEFECTS) {
    const { audit, what } = DEFECT_PAGES[defect];
    test(`${defect} (${what}): ${audit}`, () => {
      const [withIt, without] = pair(defect).map((u) => loaded.get(u)!.audits.get(audit)!);
      assert.ok(withIt.score !== null && withIt.score < 1, `fails with the defect: ${JSON.stringify(withIt)}`);
      assert.equal(without!.score, 1, `passes without it: ${JSON.stringify(without)}`);
    });
  }

  test('each failure names its culprit: the resource, the element or the check', () => {
    const items = (d: Defect) => {
      const a = loaded.get(pair(d)[0])!.audits.get(DEFECT_PAGES[d].audit)!;
      return a.items.map((i) => [i.url, i.element, i.label].filter(Boolean).join(' ')).join('\n');
    };
    assert.match(items('render-blocking'), /\/defects\/blocking\.css/);
    assert.match(items('uncompressed'), /No compression applied/);
    assert.match(items('slow-server'), /Server responded slowly \(observed \d+/);
    assert.match(items('redirects'), /Had redirects \(2 redirects/);
    assert.match(items('image'), /\/defects\/hero-large\.jpg/);
    assert.match(items('no-cache'), /\/defects\/hero\.webp\?nocache/);
    assert.match(items('font-display'), /\/defects\/font\.ttf/);
    assert.match(items('lazy-lcp'), /loading=lazy/);
    assert.match(items('http1'), /\/defects\/tile-\d\.png/);
    assert.match(items('legacy-js'), /\/defects\/legacy\.js/);
    assert.match(items('duplicated-js'), /fixture-format/);
    assert.match(items('dom-size'), /Total elements: \d{4}/);
    const image = loaded.get(pair('image')[0])!.audits.get('image-delivery-insight')!;
    assert.ok((image.savings?.bytes ?? 0) > 20_000, `what the image would save: ${JSON.stringify(image.savings)}`);
  });

  test('a failed insight scores 0 whatever this load estimated it would save of LCP (0 or 50 ms from one load to the next)', () => {
    // Lighthouse scores it 0 with an LCP saving and 0.5 when the saving rounds to nothing; the saving is a timing of this
    // load, the failure (the bytes to save) is the page's: on an unchanged page the structure score moved with it.
    const image = loaded.get(pair('image')[0])!.audits.get('image-delivery-insight')!;
    assert.equal(image.score, 0, `failed, and scored as failed: ${JSON.stringify(image.savings)}`);
  });

  test('no audit of these pages\' results ended in error', () => {
    assert.deepEqual([...loaded].filter(([, l]) => l.errors.length).map(([url, l]) => `${url}: ${l.errors.join(', ')}`), []);
  });
});
