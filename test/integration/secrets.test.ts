// lane: alone
/**
 * A test's secrets (HTTP auth password, cookie values, however short) reach no artifact, no log line and no
 * database row in the clear, even when the page echoes them into its URLs, a link and a redirect's Location;
 * `analysis-options` still returns them. And under HTTP auth the document's figures are those of the
 * authorized response, not the 401 challenge plus the page. One Lighthouse + legacy run, through the service
 * as an operator runs it (a child process whose every log line is read).
 */
import assert from 'node:assert/strict';
import { pdfText } from '../helpers/pdf-text.js';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FIXTURE, startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { startChildService, type ChildService } from '../helpers/child-service.js';
import { call } from '../helpers/server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const username = 'wg';
const password = 'pw7';
/** Short values that also occur inside ordinary text ("en" in "Content-Length"), and one long value. */
const cookies: Record<string, string> = { lang: 'en', k: 'Zq', sid: 'cookie-secret-value-0815' };
const basic = Buffer.from(`${username}:${password}`).toString('base64');
const shortSecrets = [password, cookies.lang!, cookies.k!];
const longSecrets = [cookies.sid!, basic];

/** Every URL-like component of a text, decoded: path segments, query and fragment names' values. */
function urlComponents(text: string): string[] {
  const out: string[] = [];
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  for (const token of text.match(/[^\s"'<>\\]+/g) ?? []) {
    const [beforeHash = '', fragment] = token.split('#', 2);
    const [path = '', query] = beforeHash.split('?', 2);
    if (/^(?:[a-z]+:)?\/\//i.test(path) || path.startsWith('/')) {
      out.push(...path.replace(/^[a-z]+:\/\/[^/]*/i, '').split('/').map(decode));
    }
    for (const part of [query, fragment]) {
      if (part === undefined) continue;
      for (const p of part.split(/[&;]/)) out.push(decode(p.includes('=') ? p.slice(p.indexOf('=') + 1) : p));
    }
  }
  return out;
}

/** What of the test's secrets a text gives away; empty when nothing. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const s of longSecrets) if (text.includes(s)) found.push(s);
  const components = new Set(urlComponents(text));
  for (const s of shortSecrets) if (components.has(s)) found.push(`${s} as a URL component`);
  for (const [name, value] of Object.entries(cookies)) {
    if (new RegExp(`(^|[^\\w-])${name}=${value}($|[;&\\s"',])`).test(text)) found.push(`${name}=${value}`);
  }
  return found;
}

describe('a test\'s secrets stay secret; html_bytes under HTTP auth', () => {
  let site: FixtureSite;
  let dataDir: string;
  let service: ChildService;
  let id: string;
  let report: any;
  let analysisOptions: any;
  const artifacts: Record<string, string> = {};
  let pdf: Buffer;
  let logs: string;
  let siteRequests: string[];

  before(async () => {
    site = await startFixtureSite();
    dataDir = await mkdtemp(join(tmpdir(), 'webgauge-secrets-'));
    service = await startChildService(dataDir);
    const from = site.requests.length;
    const started = await call(service, 'POST', '/tests', {
      key: service.key,
      body: { data: { type: 'test', attributes: {
        url: `http://fixture.test:${site.port}/secret-echo`,
        dns: ['fixture.test:127.0.0.1'],
        report: 'lighthouse,legacy',
        httpauth_username: username,
        httpauth_password: password,
        cookies: Object.entries(cookies).map(([k, v]) => `${k}=${v}`),
      } } },
    });
    assert.equal(started.status, 202, started.text);
    id = started.body.data.id;
    for (let i = 0; ; i++) {
      const res = await call(service, 'GET', `/tests/${id}`, { key: service.key });
      const state = res.body?.data?.attributes?.state;
      if (state === 'error') assert.fail(`the test failed: ${res.body.data.attributes.error}`);
      if (state === 'completed') break;
      if (i > 600) assert.fail('the test did not finish');
      await sleep(250);
    }
    siteRequests = site.requests.slice(from).map((r) => r.path);
    const get = (path: string) => call(service, 'GET', path, { key: service.key });
    report = (await get(`/reports/${id}`)).body.data;
    analysisOptions = (await get(`/reports/${id}/resources/analysis-options`)).body;
    for (const name of ['net.har', 'lighthouse.json', 'pagespeed.json', 'yslow.json', 'filmstrip.json', 'resource-summary']) {
      const res = await get(`/reports/${id}/resources/${name}`);
      assert.equal(res.status, 200, `${name}: ${res.text.slice(0, 200)}`);
      artifacts[name] = res.text;
    }
    artifacts['test'] = (await get(`/tests/${id}`)).text;
    artifacts['report page'] = await (await fetch(report.links.report_url)).text();
    for (let i = 0; ; i++) {
      const res = await fetch(`${service.api}/reports/${id}/resources/report.pdf`, {
        headers: { authorization: `Basic ${Buffer.from(`${service.key}:`).toString('base64')}` }, redirect: 'manual' });
      if (res.status === 200) {
        pdf = Buffer.from(await res.arrayBuffer());
        break;
      }
      assert.equal(res.status, 302, `report.pdf: ${res.status}`);
      if (i > 60) assert.fail('report.pdf never came');
      await sleep(500);
    }
    await service.stop();
    logs = service.output();
  });

  after(async () => {
    await service?.stop();
    await site?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('the page did echo every secret into its URLs and a redirect (so the checks below can fail)', () => {
    const echoed = siteRequests.join('\n');
    for (const s of [...shortSecrets, cookies.sid!]) {
      assert.ok(siteRequests.some((p) => urlComponents(p).includes(s)), `the page requested a URL holding ${s}: ${echoed}`);
    }
    assert.ok(siteRequests.some((p) => p.startsWith('/redirect?to=')), 'a redirect whose Location holds them');
    const har = JSON.parse(artifacts['net.har']!);
    assert.ok(har.log.entries.some((e: any) => e.response.status === 302), 'the redirect is in the HAR');
  });

  for (const name of ['net.har', 'lighthouse.json', 'pagespeed.json', 'yslow.json', 'filmstrip.json', 'resource-summary',
    'report page', 'test']) {
    test(`${name} gives no secret away`, () => {
      assert.deepEqual(leaks(artifacts[name]!), []);
    });
  }

  test('the HAR is scrubbed, not mangled: headers and URLs keep everything but the secrets', () => {
    const har = JSON.parse(artifacts['net.har']!);
    const main = har.log.entries.find((e: any) => e.request.url.endsWith('/secret-echo'));
    assert.ok(main.response.headers.some((h: any) => h.name === 'Content-Length' && h.value === String(FIXTURE.secretEchoBytes)));
    for (const h of main.request.headers) {
      if (['authorization', 'cookie'].includes(h.name.toLowerCase())) assert.equal(h.value, '[removed]');
    }
    assert.ok(har.log.entries.some((e: any) => /\/style\.css\?pw=\[removed\]&lang=\[removed\]&k=\[removed\]&sid=\[removed\]$/
      .test(decodeURIComponent(e.request.url))), 'the stylesheet URL keeps its shape');
  });

  test('report.pdf gives no secret away', async (t) => {
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    const text = await pdfText(pdf);
    if (text === undefined) {
      t.skip('pdftotext (poppler-utils) is not installed: only the PDF bytes are checked');
      assert.deepEqual(leaks(pdf.toString('latin1')), []);
      return;
    }
    assert.match(text, /secret-echo/, 'the text was extracted');
    assert.deepEqual(leaks(text), []);
  });

  test('no log line gives a secret away (the service logged at trace level)', () => {
    assert.ok(logs.split('\n').filter((l) => l.startsWith('{')).length > 10, 'the service did log');
    assert.match(logs, /test completed/);
    assert.deepEqual(leaks(logs), []);
  });

  test('the database holds the secrets encrypted only', async () => {
    let dump = '';
    for (const f of await readdir(dataDir)) {
      if (f.startsWith('webgauge.sqlite')) dump += (await readFile(join(dataDir, f))).toString('latin1');
    }
    assert.ok(dump.includes('secret-echo'), 'the database file was read');
    for (const s of [password, ...Object.entries(cookies).map(([k, v]) => `${k}=${v}`), cookies.sid!]) {
      assert.ok(!dump.includes(s), `the database file holds ${s}`);
    }
  });

  test('analysis-options returns the secrets as given', () => {
    assert.equal(analysisOptions.httpauth_username, username);
    assert.equal(analysisOptions.httpauth_password, password);
    assert.deepEqual(analysisOptions.cookies, Object.entries(cookies).map(([k, v]) => `${k}=${v}`));
  });

  test('under HTTP auth, the document figures are the authorized response\'s, not the 401 challenge\'s too', () => {
    const a = report.attributes;
    // The challenge (a 227-byte 401, answered after 500 ms) is neither in the bytes nor in the timings.
    assert.ok(a.html_bytes >= FIXTURE.secretEchoBytes && a.html_bytes < FIXTURE.secretEchoBytes + 200,
      `html_bytes ${a.html_bytes} (the body is ${FIXTURE.secretEchoBytes} bytes)`);
    const slow = FIXTURE.secretEchoChallengeDelayMs;
    assert.ok(a.connect_duration < slow / 2, `connect_duration ${a.connect_duration}`);
    assert.ok(a.backend_duration < slow / 2, `backend_duration ${a.backend_duration}`);
    assert.ok(a.time_to_first_byte < slow / 2, `time_to_first_byte ${a.time_to_first_byte}`);
    const har = JSON.parse(artifacts['net.har']!);
    const main = har.log.entries.find((e: any) => e.request.url.endsWith('/secret-echo'));
    assert.equal(main.response.bodySize, FIXTURE.secretEchoBytes);
    assert.ok(main._authChallengeBytes > 0, 'the challenge is accounted for apart');
  });
});
