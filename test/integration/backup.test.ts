// lane: pairs 50
/**
 * `webgauge backup` of a running service and `webgauge restore` into an empty data directory, as an operator runs
 * them (child processes of src/main.ts).
 *
 * SQLite: a real service completes a real Lighthouse test (video, filmstrip, images, PDFs asked for: most kinds of
 * resource a report has), then is backed up while a second test is loading (its lease renewed meanwhile: the service
 * writes during the copy) and a third waits in the queue. The backup is restored into a new data directory and a
 * second service started on it answers every report of the backup byte for byte as the first did: the report, each
 * resource its links name, each filmstrip frame. Both services build links from one WEBGAUGE_PUBLIC_URL, so no part
 * of an answer depends on which service gave it: nothing is left out of the comparison.
 *
 * PostgreSQL (WEBGAUGE_TEST_PG_URL): seeded reports and files (no browser), the key in WEBGAUGE_SECRET_KEY; the
 * printed pg_dump and pg_restore commands are run as printed.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { createApp, type App } from '../../src/app.js';
import { isUnfinishedWrite } from '../../src/artifacts/store.js';
import { loadConfig } from '../../src/config.js';
import { storeOptions } from '../../src/core/options/stored-options.js';
import { migrations } from '../../src/store/migrations/index.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { startChildService, type ChildService } from '../helpers/child-service.js';
import { call, freshPgDatabase, startServer, waitForTest, type TestServer } from '../helpers/server.js';
import { accountIdOf, seedPage } from '../helpers/seed.js';
import { webgaugeArgs } from '../helpers/webgauge-command.js';

/** How many migrations a database made today has, and the last one's name (the backup says both). */
const MIGRATIONS = Object.keys(migrations).length;
const LAST_MIGRATION = Object.keys(migrations).sort().at(-1)!;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Every link of both services starts here (WEBGAUGE_PUBLIC_URL); requests go to the service's own address. */
const PUBLIC = 'https://webgauge.example';

interface Ran { code: number | null; out: string; err: string }

/** `webgauge ARGS` in a child process, with a clean store configuration plus `env`. */
function webgauge(args: string[], env: Record<string, string>, input?: string): Promise<Ran> {
  const child = spawn(process.execPath, webgaugeArgs(args), {
    env: { ...process.env, WEBGAUGE_DATABASE_URL: '', WEBGAUGE_SECRET_KEY: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(input ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out, err })));
}

/** A command line as the shell runs it (the printed pg_dump / pg_restore). */
function shell(line: string): Ran {
  const r = spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A refusal as the operator sees it: exit 2, the message alone (no stack trace). */
function assertRefused(r: Ran, message: RegExp): void {
  assert.equal(r.code, 2, `exit code (stdout: ${r.out}, stderr: ${r.err})`);
  assert.match(r.err, message);
  assert.match(r.err, /^webgauge: /);
  assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
}

/** Every file and folder under a root with its mode, size and modification time; '<absent>' when there is none. */
async function snapshot(root: string): Promise<string[]> {
  const names = await readdir(root, { recursive: true }).catch(() => null);
  if (!names) return ['<absent>'];
  const lines = await Promise.all(names.map(async (name) => {
    const s = await stat(join(root, name));
    return `${name} ${s.mode.toString(8)} ${s.isFile() ? s.size : '-'} ${s.mtimeMs}`;
  }));
  return lines.sort();
}

/** Files under a root (relative paths) and their total size. */
async function filesUnder(root: string): Promise<{ files: string[]; bytes: number }> {
  const files: string[] = [];
  let bytes = 0;
  for (const name of await readdir(root, { recursive: true })) {
    const s = await stat(join(root, name));
    if (!s.isFile()) continue;
    files.push(name);
    bytes += s.size;
  }
  return { files: files.sort(), bytes };
}

interface Answer { status: number; body: Buffer }

async function get(url: string, key: string): Promise<Answer> {
  const res = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }, redirect: 'manual' });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** A link of the public address, asked of the service at `base`. */
function local(link: string, base: string): string {
  assert.ok(link.startsWith(`${PUBLIC}/`), `a link from WEBGAUGE_PUBLIC_URL: ${link}`);
  return base + link.slice(PUBLIC.length);
}

/**
 * Everything a report answers, by name: the report itself, each resource its `links` name (`self` is the report),
 * each filmstrip frame. A PDF not generated yet answers 302 while it renders: with `waitForPdfs` it is asked again
 * until it is there (the service keeps it with the report's files); otherwise the first answer is the answer.
 */
async function reportAnswers(base: string, key: string, id: string, waitForPdfs = false): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  const report = await get(`${base}/api/2.0/reports/${id}`, key);
  answers.set('report', report);
  if (report.status !== 200) return answers;
  const links = JSON.parse(report.body.toString()).data.links as Record<string, string>;
  for (const [name, link] of Object.entries(links)) {
    if (name === 'self') continue;
    let answer = await get(local(link, base), key);
    for (let tries = 0; waitForPdfs && answer.status === 302 && tries < 200; tries++) {
      await sleep(250);
      answer = await get(local(link, base), key);
    }
    answers.set(name, answer);
    if (name === 'filmstrip' && answer.status === 200) {
      for (const frame of JSON.parse(answer.body.toString()).frames as { id: string; url: string }[]) {
        answers.set(`filmstrip frame ${frame.id}`, await get(local(frame.url, base), key));
      }
    }
  }
  return answers;
}

function assertSameAnswers(restored: Map<string, Answer>, original: Map<string, Answer>, what: string): void {
  assert.deepEqual([...restored.keys()], [...original.keys()], `${what}: the same links`);
  for (const [name, before] of original) {
    const after = restored.get(name)!;
    assert.equal(after.status, before.status, `${what}, ${name}: status (${after.body.toString().slice(0, 300)})`);
    assert.ok(after.body.equals(before.body), `${what}, ${name}: ${before.body.length} bytes before the backup, ${after.body.length} after the restore, not the same`);
  }
}

/** A service started on restored data, in this process (API only: no agent runs the restored queue). */
async function startRestored(env: Record<string, string>): Promise<{ app: App; base: string }> {
  const app = await createApp(loadConfig({
    WEBGAUGE_PUBLIC_URL: PUBLIC, WEBGAUGE_AGENT_SLOTS: '0', WEBGAUGE_PORT: '0', WEBGAUGE_LOG_LEVEL: 'silent', ...env,
  }));
  return { app, base: await app.server.listen({ host: '127.0.0.1', port: 0 }) };
}

const manifestOf = async (dir: string) => JSON.parse(await readFile(join(dir, 'webgauge-backup.json'), 'utf8'));

describe('SQLite: backup of a running service, restore, a second service on the restored data', () => {
  let scratch: string;
  let site: FixtureSite;
  let service: ChildService;
  let restoredService: { app: App; base: string } | undefined;
  const dataDir = () => join(scratch, 'data');
  const backupDir = () => join(scratch, 'backup');
  const restoredDir = () => join(scratch, 'restored');
  const serviceEnv = { WEBGAUGE_PUBLIC_URL: PUBLIC, WEBGAUGE_RUN_GUARD: '0', WEBGAUGE_PDF_WAIT_MS: '60000' };
  const base = (s: ChildService) => s.api.replace(/\/api\/2\.0$/, '');
  let reportId: string;
  let original: Map<string, Answer>;
  let secondKey: string;
  let running: string;
  let waiting: string;
  const atBackup: { pages?: Buffer; credits?: number; accounts?: string } = {};

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'webgauge-backup-test-'));
    // A short lease: the agent renews it every 2 s, so the service writes to its database during the backup.
    [site, service] = await Promise.all([startFixtureSite(), startChildService(dataDir(), { ...serviceEnv, WEBGAUGE_LEASE_MS: '6000' })]);

    const [started, second] = await Promise.all([
      call(service, 'POST', '/tests', { key: service.key, body: { data: { type: 'test', attributes: {
        url: site.url('/gallery'), report: 'lighthouse', video: 1,
        // Stored sealed under the service's key: analysis-options answers them only where that key is.
        httpauth_username: 'backup-user', httpauth_password: 'backup-pass-0815', cookies: ['backup=cookie-value'],
      } } } }),
      webgauge(['account', 'create', '--email', 'second@example.test', '--plan', 'basic', '--password-stdin'], { WEBGAUGE_DATA_DIR: dataDir() }, 'second-password\n'),
    ]);
    assert.equal(started.status, 202, started.text);
    assert.equal(second.code, 0, second.err);
    secondKey = second.out.trim().split('\n').at(-1)!;
    reportId = started.body.data.id;
    const done = await waitForTest(service, service.key, reportId, 120_000);
    assert.equal(done.body.data.attributes.state, 'completed', done.text);
    // Asked for now, so that the PDFs and the optimized images are made and kept: they are part of the backup.
    original = await reportAnswers(base(service), service.key, reportId, true);
  });

  after(async () => {
    await restoredService?.app.close();
    await service?.stop();
    await site?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  test('the report to be backed up answers every resource (the comparison below has something to compare)', () => {
    for (const name of ['report', 'har', 'screenshot', 'lighthouse', 'lighthouse_html', 'filmstrip', 'filmstrip frame 0', 'video',
      'report_pdf', 'report_pdf_full', 'optimized_images', 'resource_summary', 'analysis_options', 'report_url']) {
      assert.equal(original.get(name)?.status, 200, `${name}: ${original.get(name)?.body.toString().slice(0, 200)}`);
    }
    assert.match(original.get('analysis_options')!.body.toString(), /backup-pass-0815/);
  });

  test('backup while a test runs and another waits: exit 0, a summary, a manifest, private files, nothing half-written', async (t) => {
    site.switchable.delayMs = 15_000; // the running test waits on its page while the backup runs
    const queue = async () => {
      const res = await call(service, 'POST', '/tests', { key: service.key, body: { data: { type: 'test', attributes: { url: site.url('/switchable'), report: 'lighthouse' } } } });
      assert.equal(res.status, 202, res.text);
      return res.body.data.id as string;
    };
    running = await queue();
    waiting = await queue();
    const state = async (id: string) => (await call(service, 'GET', `/tests/${id}`, { key: service.key })).body.data.attributes.state;
    for (let i = 0; (await state(running)) !== 'started'; i++) {
      assert.ok(i < 200, 'the second test starts');
      await sleep(100);
    }

    const t0 = performance.now();
    const backup = await webgauge(['backup', '--to', backupDir()], { WEBGAUGE_DATA_DIR: dataDir() });
    const wall = performance.now() - t0;
    assert.equal(backup.code, 0, backup.err);
    assert.equal(await state(running), 'started', 'the backup ran while the test was running');
    assert.equal(await state(waiting), 'queued');
    site.switchable.delayMs = 0;
    atBackup.pages = (await get(`${service.api}/pages`, service.key)).body;
    atBackup.credits = (await call(service, 'GET', '/status', { key: service.key })).body.data.attributes.api_credits;

    assert.match(backup.out, /^Backed up .* \(sqlite\) to .* in \d+\.\d+ s:$/m);
    assert.match(backup.out, new RegExp(`database {4}webgauge\\.sqlite, .*, through SQLite's online backup: 2 accounts, 1 report; ${MIGRATIONS} migrations, the last ${LAST_MIGRATION}`));
    assert.match(backup.out, /secret key {2}secret\.key: keep it with the database/);
    const manifest = await manifestOf(backupDir());
    const copied = await filesUnder(join(backupDir(), 'artifacts'));
    assert.deepEqual({ ...manifest, created: undefined }, {
      format: 'webgauge-backup', version: 1, engine: 'sqlite', created: undefined,
      migrations: Object.keys(migrations),
      counts: { accounts: 2, reports: 1, artifact_files: copied.files.length, artifact_bytes: copied.bytes },
      database: { file: 'webgauge.sqlite' },
      secret_key: { included: true, source: 'file', file: 'secret.key', check: manifest.secret_key.check },
    });
    assert.match(backup.out, new RegExp(`artifacts {3}${copied.files.length} files`));
    assert.ok(Date.now() - Date.parse(manifest.created) < wall + 60_000, 'created is when the backup was taken');
    assert.ok(copied.files.some((f) => f.startsWith(`${reportId}/filmstrip/`)) && copied.files.includes(`${reportId}/report.pdf`));
    assert.deepEqual(copied.files.filter((f) => f.split('/').some(isUnfinishedWrite)), [], 'no write under way was copied');
    assert.deepEqual(await readFile(join(backupDir(), 'secret.key')), await readFile(join(dataDir(), 'secret.key')));

    assert.equal((await stat(backupDir())).mode & 0o777, 0o700);
    for (const name of ['webgauge.sqlite', 'secret.key', 'webgauge-backup.json']) {
      assert.equal((await stat(join(backupDir(), name))).mode & 0o777, 0o600, name);
    }
    assert.deepEqual((await readdir(backupDir())).sort(), ['artifacts', 'secret.key', 'webgauge-backup.json', 'webgauge.sqlite'],
      'one database file: no -wal or -shm beside it');
    const copy = new SQLite(join(backupDir(), 'webgauge.sqlite'), { readonly: true });
    try {
      assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete');
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      copy.close();
    }
    t.diagnostic(`webgauge backup of the running service: ${Math.round(wall)} ms wall, the command's start included`);
  });

  test('restore into an empty data directory: migrated, integrity checked, and says what it restored', async () => {
    atBackup.accounts = (await webgauge(['account', 'list'], { WEBGAUGE_DATA_DIR: dataDir() })).out;
    await service.stop(); // its part is done: the restored service alone is compared against what it answered
    const restored = await webgauge(['restore', '--from', backupDir()], { WEBGAUGE_DATA_DIR: restoredDir() });
    assert.equal(restored.code, 0, restored.err);
    assert.match(restored.out, /^Restored the sqlite backup of \S+ from .* into .*restored in \d+\.\d+ s:$/m);
    assert.match(restored.out, new RegExp(`database {4}2 accounts, 1 report; ${MIGRATIONS} migrations, up to date; integrity check: ok`));
    const manifest = await manifestOf(backupDir());
    assert.match(restored.out, new RegExp(`artifacts {3}${manifest.counts.artifact_files} files, .* \\(as the manifest lists\\)`));
    assert.deepEqual(await filesUnder(join(restoredDir(), 'artifacts')), await filesUnder(join(backupDir(), 'artifacts')));
    assert.equal((await stat(join(restoredDir(), 'secret.key'))).mode & 0o777, 0o600);
    assert.equal((await stat(restoredDir())).mode & 0o777, 0o700);
  });

  test('refused with exit 2 and changing nothing: backup into a non-empty folder, restore into a non-empty data directory or from a folder that is no backup', async () => {
    const occupied = join(scratch, 'occupied');
    await mkdir(occupied);
    await writeFile(join(occupied, 'keep.txt'), 'mine');
    const notRestored = join(scratch, 'not-restored');
    const [occupiedBefore, restoredBefore] = [await snapshot(occupied), await snapshot(restoredDir())];
    const [intoOccupied, overRestored, fromData] = await Promise.all([
      webgauge(['backup', '--to', occupied], { WEBGAUGE_DATA_DIR: dataDir() }),
      webgauge(['restore', '--from', backupDir()], { WEBGAUGE_DATA_DIR: restoredDir() }),
      webgauge(['restore', '--from', dataDir()], { WEBGAUGE_DATA_DIR: notRestored }),
    ]);
    assertRefused(intoOccupied, /occupied is not empty: give --to a new or empty folder/);
    assert.deepEqual(await snapshot(occupied), occupiedBefore);
    assertRefused(overRestored, /the data directory .*restored already holds a database .*webgauge\.sqlite.*, artifacts .*, a key .*secret\.key.*nothing was changed/);
    assert.deepEqual(await snapshot(restoredDir()), restoredBefore);
    assertRefused(fromData, /data is not a Webgauge backup: it has no webgauge-backup\.json/);
    assert.deepEqual(await snapshot(notRestored), ['<absent>']);
  });

  test('the restored service answers every report of the backup byte for byte, and its accounts, keys and queue are back', async () => {
    restoredService = await startRestored({ WEBGAUGE_DATA_DIR: restoredDir() });
    const again = { api: `${restoredService.base}/api/2.0` };
    const pages = await get(`${again.api}/pages`, service.key);
    assert.equal(pages.status, 200);
    assert.ok(pages.body.equals(atBackup.pages!), `the page list as at the backup:\n${pages.body}\n${atBackup.pages}`);
    // The page list wraps each page as {data: {...}} (spec 2).
    const listed = JSON.parse(pages.body.toString()).data.map((p: { data: { attributes: { latest_report: string } } }) => p.data.attributes.latest_report);
    assert.deepEqual(listed, [reportId], 'the one report the backup holds');
    // PDFs included: kept with the report, they are answered at once, not generated again (and not charged).
    assertSameAnswers(await reportAnswers(restoredService.base, service.key, reportId), original, `report ${reportId}`);

    const status = await call(again, 'GET', '/status', { key: service.key });
    assert.equal(status.status, 200, 'the owner\'s key (stored hashed) still works');
    assert.equal(status.body.data.attributes.api_credits, atBackup.credits);
    assert.equal((await call(again, 'GET', '/status', { key: secondKey })).status, 200, 'the second account\'s key too');
    const accounts = await webgauge(['account', 'list'], { WEBGAUGE_DATA_DIR: restoredDir() });
    assert.equal(accounts.out, atBackup.accounts);
    assert.match(accounts.out, /second@example\.test\tplan=basic/);
    // The queue as it was: the waiting test waits; the running one is started until its lease runs out, then queued.
    const stateOf = async (id: string) => (await call(again, 'GET', `/tests/${id}`, { key: service.key })).body.data.attributes.state;
    assert.equal(await stateOf(waiting), 'queued');
    assert.ok(['started', 'queued'].includes(await stateOf(running)));
  });
});

describe('PostgreSQL: backup with the key in the environment, the printed pg_dump and pg_restore, a service on the restore', {
  skip: process.env.WEBGAUGE_TEST_PG_URL ? false : 'WEBGAUGE_TEST_PG_URL is not set',
}, () => {
  const key = randomBytes(32).toString('base64');
  const password = 'pg-backup-pass';
  let scratch: string;
  let server: TestServer;
  let target: Awaited<ReturnType<typeof freshPgDatabase>> | undefined;
  let restored: { app: App; base: string } | undefined;
  let withSecrets: string;
  let plain: string;
  const backupDir = () => join(scratch, 'backup');
  const restoredDir = () => join(scratch, 'restored');
  const pgTools = spawnSync('pg_dump', ['--version']).status === 0 && spawnSync('pg_restore', ['--version']).status === 0;
  let original: Map<string, Answer>[];

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'webgauge-backup-pg-test-'));
    server = await startServer({ engine: 'postgres', env: { WEBGAUGE_SECRET_KEY: key, WEBGAUGE_PUBLIC_URL: PUBLIC } });
    const { store } = server.app;
    const accountId = await accountIdOf(store, server.key);
    const seeded = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/with-secrets' });
    withSecrets = seeded.reportId;
    plain = (await seedPage(store, accountId, { url: 'http://127.0.0.1:9/plain' })).reportId;
    await store.db.updateTable('reports').set({
      options: storeOptions(store.box, { ...seeded.options, httpauth_username: 'u', httpauth_password: password, cookies: ['pg=cookie'] }),
      resources: JSON.stringify(['screenshot.jpg', 'net.har']),
    }).where('id', '=', withSecrets).execute();
    const artifacts = server.app.artifacts;
    await artifacts.put(`${withSecrets}/screenshot.jpg`, randomBytes(50_000));
    await artifacts.put(`${withSecrets}/net.har`, JSON.stringify({ log: { version: '1.2', entries: [] } }));
    // Kept PDFs, as a generation leaves them: served as they are, no browser needed.
    for (const id of [withSecrets, plain]) {
      await artifacts.put(`${id}/report.pdf`, randomBytes(3000));
      await artifacts.put(`${id}/report-full.pdf`, randomBytes(4000));
    }
    original = await Promise.all([withSecrets, plain].map((id) => reportAnswers(server.base, server.key, id)));
  });

  after(async () => {
    await restored?.app.close();
    await server?.close();
    await target?.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const storeEnv = () => ({ WEBGAUGE_DATA_DIR: server.config.dataDir, WEBGAUGE_DATABASE_URL: server.config.databaseUrl! });

  test('the seeded reports answer their files and their secrets (the comparison has something to compare)', () => {
    for (const name of ['report', 'screenshot', 'har', 'report_pdf', 'report_pdf_full', 'analysis_options', 'report_url']) {
      assert.equal(original[0]!.get(name)?.status, 200, name);
    }
    assert.match(original[0]!.get('analysis_options')!.body.toString(), new RegExp(password));
  });

  test('backup: the artifacts copied, the key left in the environment and said so, the pg_dump command printed and noted', async () => {
    const backup = await webgauge(['backup', '--to', backupDir()], { ...storeEnv(), WEBGAUGE_SECRET_KEY: key });
    assert.equal(backup.code, 0, backup.err);
    assert.match(backup.out, new RegExp(`database {4}NOT COPIED \\(PostgreSQL: take its dump below\\); it holds 1 account, 2 reports; ${MIGRATIONS} migrations`));
    assert.match(backup.out, /secret key {2}NOT IN THE BACKUP: it is in WEBGAUGE_SECRET_KEY\. Keep that key with this backup/);
    const command = /^ {2}(pg_dump .*)$/m.exec(backup.out)?.[1];
    assert.ok(command, backup.out);
    const manifest = await manifestOf(backupDir());
    assert.equal(manifest.engine, 'postgres');
    assert.equal(manifest.database.command, command);
    assert.equal(manifest.database.file, 'webgauge.pgdump');
    assert.equal(command, `pg_dump --format=custom --file=${join(backupDir(), 'webgauge.pgdump')} --dbname=${server.config.databaseUrl}`);
    assert.deepEqual({ ...manifest.secret_key, check: undefined, note: undefined }, { included: false, source: 'environment', check: undefined, note: undefined });
    assert.match(manifest.secret_key.note, /WEBGAUGE_SECRET_KEY, not in this backup: keep it with the backup/);
    const files = await filesUnder(join(server.config.dataDir, 'artifacts'));
    assert.equal(files.files.length, 6);
    assert.deepEqual(manifest.counts, { accounts: 1, reports: 2, artifact_files: 6, artifact_bytes: files.bytes });
    const written = await filesUnder(backupDir());
    assert.deepEqual(written.files, [...files.files.map((f) => `artifacts/${f}`), 'webgauge-backup.json'].sort());
    for (const file of written.files) assert.ok(!(await readFile(join(backupDir(), file))).includes(key), `the key is not in ${file}`);

    if (!pgTools) return;
    const dumped = shell(command!);
    assert.equal(dumped.code, 0, dumped.err);
    assert.ok((await stat(join(backupDir(), 'webgauge.pgdump'))).size > 1000);
  });

  test('restore refuses, writing nothing: without the key, with another key, into a database that is not empty', async () => {
    target = await freshPgDatabase();
    const into = { WEBGAUGE_DATA_DIR: restoredDir(), WEBGAUGE_DATABASE_URL: target.url };
    const [noKey, otherKey, notEmpty] = await Promise.all([
      webgauge(['restore', '--from', backupDir()], into),
      webgauge(['restore', '--from', backupDir()], { ...into, WEBGAUGE_SECRET_KEY: randomBytes(32).toString('base64') }),
      webgauge(['restore', '--from', backupDir()], { ...into, WEBGAUGE_DATABASE_URL: server.config.databaseUrl!, WEBGAUGE_SECRET_KEY: key }),
    ]);
    assertRefused(noKey, /had its secret key in WEBGAUGE_SECRET_KEY, so the backup does not hold it: set WEBGAUGE_SECRET_KEY to that key/);
    assertRefused(otherKey, /WEBGAUGE_SECRET_KEY is set to another key than the backed-up service's/);
    assertRefused(notEmpty, /the database at .* is not empty \(\d+ tables\): restore into a new, empty database/);
    assert.deepEqual(await snapshot(restoredDir()), ['<absent>']);
  });

  test('restore into an empty data directory and database with the printed pg_restore: the service answers as before', { skip: !pgTools && 'pg_dump or pg_restore is not on PATH' }, async () => {
    const restore = await webgauge(['restore', '--from', backupDir()], { WEBGAUGE_DATA_DIR: restoredDir(), WEBGAUGE_DATABASE_URL: target!.url, WEBGAUGE_SECRET_KEY: key });
    assert.equal(restore.code, 0, restore.err);
    assert.match(restore.out, /database {4}NOT YET: restore the dump with the command below/);
    assert.match(restore.out, /artifacts {3}6 files, .* \(as the manifest lists\)/);
    assert.match(restore.out, /secret key {2}from WEBGAUGE_SECRET_KEY \(checked against the backup's\)/);
    const command = /^ {2}(pg_restore .*)$/m.exec(restore.out)?.[1];
    assert.equal(command, `pg_restore --no-owner --exit-on-error --dbname=${target!.url} ${join(backupDir(), 'webgauge.pgdump')}`);
    const pgRestored = shell(command!);
    assert.equal(pgRestored.code, 0, pgRestored.err);

    restored = await startRestored({ WEBGAUGE_DATA_DIR: restoredDir(), WEBGAUGE_DATABASE_URL: target!.url, WEBGAUGE_SECRET_KEY: key });
    const address = restored.base;
    const answers = await Promise.all([withSecrets, plain].map((id) => reportAnswers(address, server.key, id)));
    answers.forEach((a, i) => assertSameAnswers(a, original[i]!, `report ${[withSecrets, plain][i]}`));
    const accounts = await Promise.all([storeEnv(), { WEBGAUGE_DATA_DIR: restoredDir(), WEBGAUGE_DATABASE_URL: target!.url }]
      .map((env) => webgauge(['account', 'list'], { ...env, WEBGAUGE_SECRET_KEY: key })));
    assert.equal(accounts[0]!.code, 0, accounts[0]!.err);
    assert.equal(accounts[1]!.out, accounts[0]!.out, 'the accounts, as listed');
    assert.equal((await call({ api: `${address}/api/2.0` }, 'GET', '/status', { key: server.key })).status, 200, 'the owner\'s key works');
  });
});
