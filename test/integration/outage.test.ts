// lane: pairs 40
/**
 * The service's bad days, as an operator has them, on the real service (`webgauge serve` in a child process, its log
 * read), its data directory on a real small filesystem (tmpfs). Two services, one per engine, each taken through its
 * outages in turn:
 * - PostgreSQL (a server of the test's own, stopped and started for real) stopped while a test runs and two wait;
 *   a SQLite file locked by another process. Every request that needs the database answers 503 E50300 with
 *   Retry-After, the web app shows its page that says so (driven in Chromium, desktop and phone), /healthz stays 200
 *   and /readyz says why it is not ready; nothing answers 500, the process stays up, the log says once that the
 *   database went away and once that it came back, and every test completes afterwards.
 * - The data directory fills up while a test runs: the test ends in error saying the service is out of storage
 *   (refunded), the log names the path and ENOSPC once, /readyz reports the low space and new tests are refused with
 *   503 until space is freed, and nothing stored before is damaged.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { startChildService, type ChildService } from '../helpers/child-service.js';
import { ownPostgresUnavailable, startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import { call, errorOf, waitForTest, type Res } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../helpers/small-disk.js';
import { createHash } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { checkScreen, heading, launchBrowser, newTab } from '../helpers/browser.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The service's root (health and web app) from its API address. */
const rootOf = (svc: ChildService) => svc.api.replace(/\/api\/2\.0$/, '');
const health = async (svc: ChildService, path: '/healthz' | '/readyz') => {
  const res = await fetch(rootOf(svc) + path);
  return { status: res.status, body: (await res.json()) as { status: string; reasons?: string[] }, retryAfter: res.headers.get('retry-after') };
};

/** The spec's answer to a request while the database is away. */
function assertUnavailable(res: Res, what: string): void {
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
  const e = errorOf(res);
  assert.equal(e.code, 'E50300', what);
  assert.equal(e.title, 'Application server temporarily unavailable', what);
  assert.match(e.detail ?? '', /database is unavailable/, what);
  assert.ok(Number(res.headers.get('retry-after')) >= 1, `${what}: Retry-After ${res.headers.get('retry-after')}`);
}

/** WEBGAUGE_OUTAGE_LOG=DIR keeps each service's log there (to read after a failure). */
function keepLog(svc: ChildService | undefined, name: string): void {
  const dir = process.env.WEBGAUGE_OUTAGE_LOG;
  if (dir && svc) writeFileSync(join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.log`), svc.output());
}

/** The log lines (pino JSON) with this message. */
const lines = (svc: ChildService, msg: string) => svc.output().split('\n').filter((l) => l.includes(`"msg":"${msg}"`));

/**
 * The log says the outage once and its end once; between the two, no stack trace and no 500. The end's line comes
 * through the child's stdout, which may arrive after the HTTP answer that showed the database back: it is waited for.
 */
async function assertOutageLoggedOnce(svc: ChildService): Promise<void> {
  await until('the log to say the database is back', async () => lines(svc, 'database available again').length > 0, 3000).catch(() => undefined);
  assert.equal(lines(svc, 'database unavailable: requests that need it answer 503 until it is back').length, 1, svc.output().slice(-4000));
  assert.equal(lines(svc, 'database available again').length, 1, svc.output().slice(-4000));
  const out = svc.output();
  const during = out.slice(out.indexOf('database unavailable'), out.indexOf('database available again'));
  assert.doesNotMatch(during, /"stack"/, 'no stack trace while the database was away');
  assert.doesNotMatch(out, /"statusCode":500|E50000|unexpected error/, 'nothing answered 500');
  assert.equal(svc.proc.exitCode, null, 'the service is still running');
}


/** Every resource a report links to (its PDF aside: made on request), by name: a hash of its bytes. */
async function resourceHashes(svc: ChildService, reportId: string): Promise<Record<string, string>> {
  const report = await call(svc, 'GET', `/reports/${reportId}`, { key: svc.key });
  assert.equal(report.status, 200, report.text);
  const out: Record<string, string> = {};
  for (const [name, href] of Object.entries(report.body.data.links as Record<string, string>)) {
    if (name === 'self' || name.startsWith('report_pdf')) continue;
    const res = await fetch(href, { headers: { authorization: `Basic ${Buffer.from(`${svc.key}:`).toString('base64')}` } });
    assert.equal(res.status, 200, `${name}: ${res.status}`);
    out[name] = createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex');
  }
  out.report = createHash('sha256').update(report.text).digest('hex');
  return out;
}

const testBody = (url: string) => ({ data: { type: 'test', attributes: { url, report: 'none' } } });

/**
 * A service on a 40 MiB filesystem of its own (low space judged below 1 MiB there, so that a test can start on a
 * disk about to fill), with the fixture site and a browser to look at its pages.
 */
interface Rig {
  disk: SmallDisk;
  svc: ChildService;
}

async function startRig(name: string, env: Record<string, string>): Promise<Rig> {
  const disk = await mountSmallDisk(40);
  try {
    const svc = await startChildService(join(disk.dir, 'data'), { WEBGAUGE_MIN_FREE_MB: '1', WEBGAUGE_RUN_GUARD: '0', WEBGAUGE_LOG_LEVEL: 'info', ...env });
    return { disk, svc };
  } catch (err) {
    await disk.unmount();
    throw new Error(`${name}: ${(err as Error).message}`);
  }
}

async function stopRig(rig: Rig | undefined, name: string): Promise<void> {
  if (!rig) return;
  keepLog(rig.svc, name);
  await rig.svc.stop();
  await rig.disk.unmount();
}

let site: FixtureSite;
let browser: Browser;
before(async () => {
  [site, browser] = await Promise.all([startFixtureSite(), launchBrowser()]);
});
after(async () => {
  await Promise.all([site?.close(), browser?.close()]);
});

/**
 * The disk fills while a test with Lighthouse (hundreds of KiB of files) loads its page: the test ends in error,
 * refunded, and everything after it as the file's head says. `earlier`: a report stored before, checked unharmed.
 */
async function diskFills(rig: Rig, earlier: string, engine: 'sqlite' | 'postgres'): Promise<void> {
  const { svc, disk } = rig;
  const stored = await resourceHashes(svc, earlier);
  const credits = async () => (await call(svc, 'GET', '/status', { key: svc.key })).body.data.attributes.api_credits as number;
  const creditsBefore = await credits();

  const doomed = await call(svc, 'POST', '/tests', { key: svc.key, body: { data: { type: 'test', attributes: { url: site.url('/?full'), report: 'lighthouse' } } } });
  assert.equal(doomed.status, 202, doomed.text);
  const id = doomed.body.data.id as string;
  await until('the test to start', async () => (await call(svc, 'GET', `/tests/${id}`, { key: svc.key })).body.data.attributes.state === 'started');
  // 96 KiB are left: room for the database's rows, not for the report's files. SQLite (WAL) appends every write's pages to
  // its log, which grows on the disk until a checkpoint starts it over: the rows written after the fill (lease renewals,
  // heartbeats, the test's phases, its failure) took new space there, and on a CI run ate the 96 KiB before the failure
  // was written (the test stayed started). The log checkpointed and restarted first, they reuse its space already taken.
  if (engine === 'sqlite') {
    const wal = new SQLite(join(disk.dir, 'data', 'webgauge.sqlite'));
    try {
      wal.pragma('busy_timeout = 5000');
      wal.pragma('wal_checkpoint(RESTART)');
    } finally {
      wal.close();
    }
  }
  const free = await disk.fill(96 * 1024);
  const failed = await waitForTest(svc, svc.key, id);
  assert.equal(failed.body.data.attributes.state, 'error', failed.text);
  assert.match(failed.body.data.attributes.error, /could not be stored: the service is out of storage/);
  assert.equal(await credits(), creditsBefore, 'the test was refunded');

  const said = lines(svc, 'out of storage: a write under the data directory failed with ENOSPC (no space left on device); tests cannot be stored until space is freed');
  assert.equal(said.length, 1, svc.output().slice(-3000));
  assert.ok(said[0]!.includes(`"path":"${join(disk.dir, 'data', 'artifacts')}`), said[0]);
  assert.doesNotMatch(svc.output(), /internal error of the test agent|unexpected error|run failed unexpectedly/);

  const ready = await health(svc, '/readyz');
  assert.equal(ready.status, 503);
  assert.deepEqual(ready.body.reasons, ['the service is low on storage']);
  const refused = await call(svc, 'POST', '/tests', { key: svc.key, body: testBody(site.url('/')) });
  assert.equal(refused.status, 503, refused.text);
  assert.equal(errorOf(refused).code, 'E50300');
  assert.match(errorOf(refused).detail ?? '', /low on storage .* nothing was charged/);
  assert.equal(refused.headers.get('retry-after'), '60');
  assert.equal(await credits(), creditsBefore, 'nothing was charged');

  // Nothing stored before is damaged: the database passes its check, every earlier resource is byte for byte the same.
  if (engine === 'sqlite') {
    const check = new SQLite(join(disk.dir, 'data', 'webgauge.sqlite'), { readonly: true });
    try {
      assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      check.close();
    }
  }
  assert.deepEqual(await resourceHashes(svc, earlier), stored);

  await free();
  await until('/readyz to be 200', async () => (await health(svc, '/readyz')).status === 200, 5000);
  // The line is written before /readyz answers, but the child's stdout may be read after its HTTP answer.
  await until('the log to say storage is back', async () => lines(svc, 'storage available again').length > 0, 3000).catch(() => undefined);
  assert.equal(lines(svc, 'storage available again').length, 1, svc.output().slice(-3000));
}

describe('SQLite', { skip: smallDiskUnavailable() }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig('sqlite', {});
  });
  after(() => stopRig(rig, 'sqlite'));

  test('the data directory fills while a test runs: the test ends in error saying so, refunded; new tests get 503 until space is freed; nothing stored is damaged', async () => {
    const { svc } = rig;
    const first = await call(svc, 'POST', '/tests', { key: svc.key, body: testBody(site.url('/')) });
    assert.equal(first.status, 202, first.text);
    assert.equal((await waitForTest(svc, svc.key, first.body.data.id)).status, 303);
    await diskFills(rig, first.body.data.id, 'sqlite');
    const after = await call(svc, 'POST', '/tests', { key: svc.key, body: testBody(site.url('/?after')) });
    assert.equal(after.status, 202, after.text);
    assert.equal((await waitForTest(svc, svc.key, after.body.data.id)).status, 303, 'a test after space was freed completes');
  });

  test('the file locked by another process: requests answer 503 while the lock is held, and the lock released ends the outage', async () => {
    const { svc, disk } = rig;
    // Another process (a careless `sqlite3 webgauge.sqlite`, a copy tool) takes the write lock and keeps it.
    const locker: ChildProcess = spawn(process.execPath, ['-e', `const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('BEGIN IMMEDIATE');
      process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`, join(disk.dir, 'data', 'webgauge.sqlite')], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => locker.stdout!.once('data', () => resolve()));
      const body = testBody('http://127.0.0.1:9/');
      assertUnavailable(await call(svc, 'POST', '/tests', { key: svc.key, body }), 'POST /tests, the first');
      // Once the lock is known, a write waits briefly (200 ms) instead of the usual busy timeout (5 s: SQLite's wait
      // blocks the process); the bound is that timeout, as a request on a machine busy with other loads may take a second.
      const t0 = Date.now();
      assertUnavailable(await call(svc, 'POST', '/tests', { key: svc.key, body }), 'POST /tests, again');
      assert.ok(Date.now() - t0 < 5000, `the second refusal took ${Date.now() - t0} ms: the usual busy timeout, not the outage's`);
      // A read is served when it writes nothing now (the key's rate limit is written now and then), else refused the same way.
      const read = await call(svc, 'GET', '/status', { key: svc.key });
      if (read.status !== 200) assertUnavailable(read, 'GET /status');
      const ready = await health(svc, '/readyz');
      assert.equal(ready.status, 503);
      assert.match(ready.body.reasons?.join() ?? '', /database unavailable: the database file is locked by another process/);
    } finally {
      locker.kill('SIGKILL');
    }
    await until('/readyz to be 200', async () => (await health(svc, '/readyz')).status === 200, 10_000);
    const res = await call(svc, 'POST', '/tests', { key: svc.key, body: testBody('http://127.0.0.1:9/') });
    assert.equal(res.status, 202, res.text);
    await assertOutageLoggedOnce(svc);
  });
});

describe('PostgreSQL', { skip: ownPostgresUnavailable() ?? smallDiskUnavailable() }, () => {
  let pgServer: OwnPostgres;
  let rig: Rig;
  let completed: string;
  before(async () => {
    pgServer = await startOwnPostgres();
    rig = await startRig('postgres', { WEBGAUGE_DATABASE_URL: pgServer.url });
  });
  after(async () => {
    await stopRig(rig, 'postgres');
    await pgServer?.destroy();
  });

  test('stopped while a test runs and two wait: every request answers 503 with Retry-After, the web app says so, /readyz tells why; afterwards every test completes', async () => {
    const { svc } = rig;
    const web = webSession({ base: rootOf(svc) });
    const cookie = await web.signIn(svc.key);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(svc, 'POST', '/tests', { key: svc.key, body: testBody(site.url(`/?outage=${i}`)) });
      assert.equal(res.status, 202, res.text);
      ids.push(res.body.data.id);
    }
    await until('the first test to start', async () => (await call(svc, 'GET', `/tests/${ids[0]}`, { key: svc.key })).body.data.attributes.state === 'started');
    assert.equal((await health(svc, '/readyz')).status, 200);

    await pgServer.stop();
    const stoppedAt = Date.now();
    assertUnavailable(await call(svc, 'GET', '/status', { key: svc.key }), 'GET /status');
    assertUnavailable(await call(svc, 'GET', `/tests/${ids[1]}`, { key: svc.key }), 'GET /tests/{id}');
    assertUnavailable(await call(svc, 'POST', '/tests', { key: svc.key, body: testBody(site.url('/')) }), 'POST /tests');
    assertUnavailable(await call(svc, 'GET', '/pages', { key: svc.key }), 'GET /pages');
    assert.deepEqual((await health(svc, '/healthz')).body, { status: 'ok' });
    const ready = await health(svc, '/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.status, 'unavailable');
    assert.match(ready.body.reasons?.join() ?? '', /^database unavailable/);
    assert.ok(Number(ready.retryAfter) >= 1);
    assert.doesNotMatch(JSON.stringify(ready.body), /127\.0\.0\.1|postgres:|5432|@/, '/readyz names no address or account');

    // A person in the web app reads the same, on a page of the app (desktop and phone, checked like every screen).
    const screen = await web.get(cookie, '/pages');
    assert.equal(screen.status, 503);
    const tab = await newTab(browser);
    await tab.setCookie({ name: cookie.split('=')[0]!, value: cookie.split('=').slice(1).join('='), url: rootOf(svc) });
    const res = await tab.goto(`${rootOf(svc)}/pages`, { waitUntil: 'load' });
    assert.equal(res?.status(), 503);
    assert.equal(res?.headers()['retry-after'], '5');
    assert.equal(await heading(tab), 'Webgauge is unavailable');
    assert.match(await tab.$eval('[role=alert]', (e) => e.textContent ?? ''), /database is unavailable right now; nothing was changed/);
    assert.equal(await tab.$eval('::-p-aria(Try again)', (a) => a.getAttribute('href')), '/pages');
    await checkScreen(tab, 'database unavailable');
    await tab.close();

    // The outage lasts past the running test's load: its result is kept and handed over once the database is back.
    await sleep(Math.max(0, 8000 - (Date.now() - stoppedAt)));
    await pgServer.start();
    const backAt = Date.now();
    await until('the API to answer', async () => (await call(svc, 'GET', '/status', { key: svc.key })).status === 200, 10_000);
    const answeredAfterMs = Date.now() - backAt;
    for (const id of ids) {
      const done = await waitForTest(svc, svc.key, id, 120_000);
      assert.equal(done.body.data.attributes.state, 'completed', `${id}: ${done.text}`);
    }
    completed = ids[0]!;
    await until('/readyz to be 200', async () => (await health(svc, '/readyz')).status === 200, 5000);
    await assertOutageLoggedOnce(svc);
    process.stdout.write(`# PostgreSQL back: the API answered ${answeredAfterMs} ms after the server was started again\n`);
  });

  test('the data directory fills while a test runs: the test ends in error saying so, refunded; new tests get 503 until space is freed; nothing stored is damaged', async () => {
    assert.ok(completed, 'the outage test completed a report first');
    await diskFills(rig, completed, 'postgres');
    const res = await call(rig.svc, 'POST', '/tests', { key: rig.svc.key, body: testBody('http://127.0.0.1:9/') });
    assert.equal(res.status, 202, 'tests are taken again');
  });
});
