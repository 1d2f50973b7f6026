// lane: shared
/**
 * A site over time through HTTP on both engines, without a page load (docs/scans.md "Scheduled scans", "Site
 * history"): a schedule created, read, listed, changed, paused, resumed and deleted, its first scan started at once
 * and carrying its ID; bad input refused with nothing created (a credit shortfall included); another account's is a
 * 404; the scheduler, driven by tick() with the clock moved (clock.advance): each slot's scan started once by two
 * schedulers ticking together, missed slots collapsed into one, a slot skipped with its reason when credits are short or
 * the site is refused, the same settings (and so the same sampled pages) each time; and a scan's site history.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { clock } from '../../src/core/clock.js';
import { reportExpiry } from '../../src/core/reports/reports.js';
import { ScanScheduleJob } from '../../src/scheduler/scan-schedules.js';
import { createCatalog } from '../../src/core/catalog/catalog.js';
import { openStore, type Store } from '../../src/store/db.js';
import type { TargetPolicy } from '../../src/net/policy.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server.js';
import { SCAN_SITE } from '../fixtures/site/scan-site.js';
import { call, engines, errorOf, freshPgDatabase, startServer, type TestServer } from '../helpers/server.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import { migrations } from '../../src/store/migrations/index.js';
import { assertData, assertError, creditsOf } from '../helpers/assertions.js';
import { accountIdOf, seedScan, type ScanPageSeed } from '../helpers/seed.js';
import { ALLOW_ALL, PUBLIC_ONLY } from '../helpers/run-spec.js';

/** A database of `engine` migrated up to and including `last`; `latest()` runs it on to the latest migration. */
async function databaseAt(engine: 'sqlite' | 'postgres', last: string) {
  const dir = await mkdtemp(join(tmpdir(), 'webgauge-migrate-'));
  const pgdb = engine === 'postgres' ? await freshPgDatabase() : undefined;
  const db = new Kysely<any>({
    dialect: pgdb ? new PostgresDialect({ pool: new pg.Pool({ connectionString: pgdb.url }) })
      : new SqliteDialect({ database: new SQLite(join(dir, 'webgauge.sqlite')) }),
  });
  const migrator = (upTo?: string) => new Migrator({ db, provider: { getMigrations: async () => (upTo === undefined ? migrations
    : Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= upTo))) as Record<string, Migration> } });
  assert.equal((await migrator(last).migrateToLatest()).error, undefined);
  return {
    db,
    async latest() {
      assert.equal((await migrator().migrateToLatest()).error, undefined);
    },
    async close() {
      await db.destroy();
      await pgdb?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const body = (attributes: Record<string, unknown>, type = 'scan_schedule') => ({ data: { type, attributes } });

let site: FixtureSite;
before(async () => {
  site = await startFixtureSite();
});
after(async () => {
  await site?.close();
});

for (const engine of engines()) {
  describe(`scan schedules and site history, no page load (${engine})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer({ engine, agentSlots: 0 });
      // The app's own scheduler would tick on real time; these tests tick by hand.
      await s.app.scanSchedules.stop();
    });
    after(async () => {
      clock.reset();
      await s?.close();
    });
    // Each test ticks for its own schedules: the earlier ones' are paused.
    afterEach(async () => {
      clock.reset();
      await s.app.store.db.updateTable('scan_schedules').set({ next_run: null }).execute();
    });

    /** A list scan of two fixture pages (report none: 0.6 credits a page), repeating at `frequency`. */
    const listSchedule = (frequency: string, extra: Record<string, unknown> = {}) =>
      body({ url: site.url('/'), source: 'list', urls: ['/', '/gallery'], max_pages: 2, report: 'none', frequency, ...extra });
    const create = async (key: string, b: unknown) => {
      const res = await call(s, 'POST', '/scan_schedules', { key, body: b });
      return { data: assertData(res, 201), meta: res.body.meta, res };
    };
    const scheduleRow = (id: string) => s.app.store.db.selectFrom('scan_schedules').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const scansOf = (scheduleId: string) =>
      s.app.store.db.selectFrom('scans').selectAll().where('schedule_id', '=', scheduleId).orderBy('created').orderBy('id').execute();
    /** A scheduler of this server's store (or another pool of the same database), under `policy`. */
    const scheduler = (store: Store = s.app.store, policy: TargetPolicy = ALLOW_ALL) =>
      new ScanScheduleJob({ intake: { store, policy, wake() {}, wakeScans() {} }, plans: s.config.plans,
        catalog: createCatalog({ locationName: 'Test', locationRegion: 'Test' }) });
    async function waitForDiscovery(key: string, id: string) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const state = (await call(s, 'GET', `/scans/${id}`, { key })).body.data.attributes.state;
        if (state !== 'discovering') return state as string;
        if (Date.now() > deadline) throw new Error(`scan ${id} still discovering`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    test('a schedule starts its first scan now and the next one interval later; read, listed, changed, paused, resumed, deleted (its scans stay); no secret shown', async () => {
      const key = await s.account({ plan: 'pro' });
      const credits = await creditsOf(s, key);
      const before = Date.now();
      const { data, meta, res } = await create(key, listSchedule('Daily', { include: ['/*'], httpauth_username: 'robot', httpauth_password: 'pw-never-shown',
        cookies: ['session=cookie-never-shown'] }));
      assert.equal(res.headers.get('location'), data.links.self);
      assert.equal(data.links.self, `${s.api}/scan_schedules/${data.id}`);
      assert.equal(data.type, 'scan_schedule');
      const a = data.attributes;
      assert.deepEqual([a.url, a.source, a.frequency, a.paused, a.max_pages, a.urls_given, a.include, a.skip_reason],
        [site.url('/'), 'list', 'daily', false, 2, 2, ['/*'], null]);
      assert.ok(a.next_run >= Math.floor(before / 1000) + DAY / 1000 && a.next_run <= Math.floor(Date.now() / 1000) + DAY / 1000, 'the next scan a day later');
      assert.equal(a.options.report, 'none');
      assert.equal(a.options.httpauth_username, 'robot');
      assert.ok(!res.text.includes('never-shown'), 'no secret option is shown');
      assert.equal(a.last_scan_id, meta.scan, 'the first scan, started now');
      assert.equal(meta.credits_reserved, 1.2);
      assert.equal(meta.credits_left, Math.round((credits - 1.2) * 10) / 10);
      const scan = assertData(await call(s, 'GET', `/scans/${meta.scan}`, { key }));
      assert.equal(scan.attributes.schedule_id, data.id);
      const row = await scheduleRow(data.id);
      assert.ok(!row.options.includes('never-shown'), 'sealed at rest');

      assert.deepEqual(assertData(await call(s, 'GET', `/scan_schedules/${data.id}`, { key })), data);
      const list = await call(s, 'GET', '/scan_schedules', { key });
      assert.deepEqual(assertData(list).map((x: any) => x.id), [data.id]);
      assert.equal(list.body.meta.count, 1);

      const patch = (attributes: Record<string, unknown>) => call(s, 'PATCH', `/scan_schedules/${data.id}`, { key, body: body(attributes) });
      clock.advance(HOUR);
      const weekly = assertData(await patch({ frequency: 'weekly' })).attributes;
      assert.equal(weekly.frequency, 'weekly');
      assert.equal(weekly.next_run, a.next_run, 'a slot already due sooner is kept');
      const paused = assertData(await patch({ paused: true })).attributes;
      assert.deepEqual([paused.paused, paused.next_run], [true, null]);
      clock.advance(2 * HOUR);
      const resumed = assertData(await patch({ paused: false })).attributes;
      assert.equal(resumed.paused, false);
      const anchor = (await scheduleRow(data.id)).anchor;
      assert.equal(resumed.next_run, Math.floor((anchor + 7 * DAY) / 1000), 'resumed at the weekly grid\'s next slot');
      for (const [attrs, re] of [[{ url: 'https://example.com/' }, /"url" cannot change/], [{}, /Nothing to change/],
        [{ paused: 'yes' }, /paused must be true or false/], [{ frequency: 'no' }, /POST \/scans starts a scan once/]] as const) {
        assert.match(assertError(await patch(attrs), 400, 'E4001').detail!, re);
      }
      assert.equal((await scheduleRow(data.id)).frequency, 'weekly', 'a refused change changes nothing');

      const deleted = await call(s, 'DELETE', `/scan_schedules/${data.id}`, { key });
      assert.deepEqual(assertData(deleted), { type: 'scan_schedule', id: data.id });
      assertError(await call(s, 'GET', `/scan_schedules/${data.id}`, { key }), 404, 'E40400');
      assert.equal(assertData(await call(s, 'GET', `/scans/${meta.scan}`, { key })).attributes.schedule_id, data.id, 'its scans stay');
    });

    test('bad input is refused with the error POST /scans gives (or the frequency\'s) and creates nothing; credits short: 402, no schedule, no scan', async () => {
      const key = await s.account({ plan: 'basic' });
      const credits = await creditsOf(s, key);
      const cases: [Record<string, unknown>, number, string, RegExp][] = [
        [{ url: site.url('/') }, 400, 'E4001', /frequency must be one of .*it is missing/],
        [{ url: site.url('/'), frequency: 'fortnightly' }, 400, 'E4001', /frequency must be one of/],
        [{ url: site.url('/'), frequency: 'none' }, 400, 'E4001', /repeats nothing: POST \/scans starts a scan once; a schedule repeats daily, weekly or monthly/],
        [{ url: site.url('/'), frequency: 'hourly' }, 403, 'E40303', /Hourly scanning is not part of the basic plan; use daily, weekly or monthly/],
        [{ url: site.url('/'), frequency: 'daily', source: 'spider' }, 400, 'E40004', /source must be one of/],
        [{ url: site.url('/'), frequency: 'daily', max_pages: 101 }, 400, 'E40004', /allows 1 to 100 pages/],
        [{ url: site.url('/'), frequency: 'daily', journey: { title: 'x', steps: [] } }, 400, 'E40004', /journey cannot be scanned/],
        // 10 pages of a lighthouse test (1 credit each) is more than the basic plan's 5 credits.
        [{ url: site.url('/'), frequency: 'daily', max_pages: 10 }, 402, 'E40201', /This scan/],
        [{ url: site.url('/'), frequency: 'daily', devices: ['desktop', 'tablet'] }, 400, 'E40004', /devices\[1\] "tablet" is no device class/],
        // 3 pages a device: one device's 3 credits fit, two devices' 6 do not: refused whole.
        [{ url: site.url('/'), frequency: 'daily', max_pages: 3, devices: ['desktop', 'phone'] }, 402, 'E40201', /These 2 scans/],
      ];
      for (const [attributes, status, code, detail] of cases) {
        const e = assertError(await call(s, 'POST', '/scan_schedules', { key, body: body(attributes) }), status, code);
        assert.match(e.detail!, detail, JSON.stringify(attributes));
      }
      assert.equal((await call(s, 'POST', '/scan_schedules', { key, body: body({ url: site.url('/'), frequency: 'daily' }, 'scan') })).status, 400);
      assert.deepEqual(assertData(await call(s, 'GET', '/scan_schedules', { key })), []);
      assert.deepEqual(assertData(await call(s, 'GET', '/scans', { key })), []);
      assert.equal(await creditsOf(s, key), credits);
    });

    test('another account\'s schedule and history are 404, and not listed', async () => {
      const key = await s.account({ plan: 'pro' });
      const { data, meta } = await create(key, listSchedule('weekly'));
      const stranger = await s.account({ plan: 'pro' });
      for (const [method, path, b] of [['GET', `/scan_schedules/${data.id}`], ['PATCH', `/scan_schedules/${data.id}`, body({ paused: true })],
        ['DELETE', `/scan_schedules/${data.id}`], ['GET', `/scans/${meta.scan}/history`], ['GET', '/scan_schedules/AAAAAAAAAAAA']] as const) {
        assertError(await call(s, method, path, { key: stranger, body: b }), 404, 'E40400');
      }
      assert.deepEqual(assertData(await call(s, 'GET', '/scan_schedules', { key: stranger })), []);
      assert.equal((await scheduleRow(data.id)).next_run !== null, true, 'untouched');
    });

    test('two schedulers ticking together start each slot\'s scan once; the scan has the schedule\'s settings', async () => {
      const key = await s.account({ plan: 'pro' });
      const { data, meta } = await create(key, listSchedule('hourly', { exclude: ['/nothing/*'], sample: 3, retention: 6 }));
      // PostgreSQL: a second connection pool, as a second process would have. SQLite: one writer per file, so the
      // second scheduler shares the store; its ticks still interleave with the first at every await.
      const second = engine === 'postgres' ? await openStore({ databaseUrl: s.config.databaseUrl, dataDir: s.config.dataDir }) : s.app.store;
      try {
        const [a, b] = [s.app.scanSchedules, scheduler(second)];
        let contested = 0;
        for (let slot = 1; slot <= 4; slot++) {
          clock.advance(HOUR);
          const [ra, rb] = await Promise.all([a.tick(), b.tick(), a.tick()]);
          assert.equal(ra.started + rb.started, 1, `slot ${slot}: ${JSON.stringify([ra, rb])}`);
          contested += ra.lost + rb.lost;
          assert.equal((await scansOf(data.id)).length, slot + 1);
        }
        assert.ok(contested > 0, 'both schedulers saw a slot due and one lost the claim');
      } finally {
        if (second !== s.app.store) await second.close();
      }
      const scans = await scansOf(data.id);
      const row = await scheduleRow(data.id);
      assert.equal(row.last_scan_id, scans.at(-1)!.id);
      assert.equal(row.next_run, row.anchor + 5 * HOUR);
      for (const scan of scans) {
        assert.equal(scan.settings, scans[0]!.settings, 'the settings stored once: the same each time');
        assert.equal(scan.url, site.url('/'));
        assert.equal(scan.expires, reportExpiry(scan.created, 6), 'kept as long as its reports (retention 6 months)');
      }
      assert.equal(scans[0]!.id, meta.scan);
      const later = assertData(await call(s, 'GET', `/scans/${scans.at(-1)!.id}`, { key })).attributes;
      assert.deepEqual([later.schedule_id, later.exclude, later.sample, later.max_pages], [data.id, ['/nothing/*'], 3, 2]);
    });

    test('a schedule of two devices starts both scans each slot, siblings, reserved together; credits short for both: the slot is skipped whole', async () => {
      const key = await s.account({ plan: 'pro' });
      const accountId = await accountIdOf(s.app.store, key);
      const credits = await creditsOf(s, key);
      const { data, meta } = await create(key, listSchedule('hourly', { devices: ['desktop', 'phone-mid'] }));
      assert.deepEqual(data.attributes.devices, ['desktop', 'phone-mid']);
      assert.equal(meta.scans.length, 2);
      assert.equal(meta.scan, meta.scans[0]);
      assert.equal(data.attributes.last_scan_id, meta.scans[0], 'the first device\'s scan, which links the other');
      assert.equal(meta.credits_reserved, 2.4, '2 devices × 2 pages × 0.6 credits');
      assert.equal(meta.credits_left, Math.round((credits - 2.4) * 10) / 10);
      const first = await scansOf(data.id);
      assert.deepEqual(first.map((x) => x.device_class).sort(), ['desktop', 'phone-mid']);
      assert.ok(first[0]!.scan_set !== null && first[0]!.scan_set === first[1]!.scan_set);
      const shown = assertData(await call(s, 'GET', `/scans/${meta.scans[1]}`, { key })).attributes;
      assert.deepEqual([shown.device_class, shown.schedule_id, shown.siblings.map((x: any) => x.scan)], ['phone-mid', data.id, [meta.scans[0]]]);

      clock.advance(HOUR);
      assert.equal((await scheduler().tick()).started, 1);
      const second = (await scansOf(data.id)).slice(2);
      assert.deepEqual(second.map((x) => x.device_class).sort(), ['desktop', 'phone-mid'], 'each slot scans every device');
      assert.ok(second[0]!.scan_set !== first[0]!.scan_set && second[0]!.scan_set === second[1]!.scan_set);
      const phoneOptions = JSON.parse(second.find((x) => x.device_class === 'phone-mid')!.options);
      assert.equal(phoneOptions.device_class, 'phone-mid');
      assert.equal(JSON.parse(second.find((x) => x.device_class === 'desktop')!.options).device_class, undefined);

      // Room for one device's scan (1.2 credits) but not both (2.4): neither starts.
      for (const id of [...first, ...second].map((x) => x.id)) await waitForDiscovery(key, id);
      await s.app.store.db.updateTable('accounts').set({ credits_tenths: 20, credits_refilled_at: clock.now() + 10 * DAY }).where('id', '=', accountId).execute();
      clock.advance(HOUR);
      assert.equal((await scheduler().tick()).skipped, 1);
      assert.match((await scheduleRow(data.id)).skip_reason!, /These 2 scans .* costs 2\.4 credits and the account has 2/);
      assert.equal((await scansOf(data.id)).length, 4, 'no scan of either device');
      assert.equal(await creditsOf(s, key), 2);
    });

    test('migration 018 keeps the device of the scans and schedules stored before it', async () => {
      const old = await databaseAt(engine, '017_report_device_cpu');
      try {
        const scan = (id: string, browser: string, options: Record<string, unknown>) => ({
          id, account_id: 'A', url: 'https://example.com/', site: null, source: 'sitemap', state: 'completed', error: null,
          options: JSON.stringify({ url: 'https://example.com/', location: '1', browser, ...options }), settings: '{}', location: '1', browser,
          created: 1, started: null, finished: null, expires: 2, found: 0, skipped: '{}', discovery_errors: '[]', cost_tenths: 1, reserved_tenths: 0,
          lease_owner: null, lease_expires: null, figures: null, schedule_id: null, alerts: null,
        });
        await old.db.insertInto('scans').values([scan('plain', '3', {}), scan('device', '3', { simulate_device: 'pixel-5' }),
          scan('firefox', '1', { simulate_device: 'pixel-5' }), scan('low', '3', { simulate_device: 'pixel-5', device_class: 'phone-low' })]).execute();
        const { site: _site, state: _state, error: _error, started: _started, finished: _finished, expires: _expires, found: _found, skipped: _skipped,
          discovery_errors: _errors, cost_tenths: _cost, reserved_tenths: _reserved, lease_owner: _owner, lease_expires: _lease, figures: _figures,
          schedule_id: _schedule, alerts: _alerts, ...schedule } = scan('s-device', '3', { simulate_device: 'pixel-5' });
        await old.db.insertInto('scan_schedules').values([
          { ...schedule, frequency: 'daily', anchor: 1, next_run: 2, skipped_at: null, skip_reason: null, last_scan_id: null },
          { ...schedule, id: 's-plain', options: '{"url":"https://example.com/"}', frequency: 'daily', anchor: 1, next_run: 2, skipped_at: null,
            skip_reason: null, last_scan_id: null }]).execute();
        await old.latest();
        const scans = await old.db.selectFrom('scans').select(['id', 'device_class', 'scan_set']).orderBy('id').execute();
        assert.deepEqual(scans.map((r: any) => [r.id, r.device_class, r.scan_set]),
          [['device', 'phone-mid', null], ['firefox', 'desktop', null], ['low', 'phone-low', null], ['plain', 'desktop', null]]);
        const schedules = await old.db.selectFrom('scan_schedules').select(['id', 'devices']).orderBy('id').execute();
        assert.deepEqual(schedules.map((r: any) => [r.id, JSON.parse(r.devices)]), [['s-device', ['phone-mid']], ['s-plain', ['desktop']]]);
      } finally {
        await old.close();
      }
    });

    test('slots missed while no scheduler ran collapse into one scan; paused and deleted schedules start none', async () => {
      const key = await s.account({ plan: 'pro' });
      const { data } = await create(key, listSchedule('hourly'));
      const paused = await create(key, listSchedule('hourly'));
      const gone = await create(key, listSchedule('hourly'));
      assertData(await call(s, 'PATCH', `/scan_schedules/${paused.data.id}`, { key, body: body({ paused: true }) }));
      assertData(await call(s, 'DELETE', `/scan_schedules/${gone.data.id}`, { key }));
      const anchor = (await scheduleRow(data.id)).anchor;
      clock.advance(5 * HOUR + 60_000);
      assert.equal((await scheduler().tick()).started, 1, 'five missed slots: one scan');
      assert.equal((await scheduler().tick()).started, 0);
      assert.equal((await scheduleRow(data.id)).next_run, anchor + 6 * HOUR, 'the next slot is on the grid, after now');
      assert.equal((await scansOf(paused.data.id)).length, 1);
      assert.equal((await scansOf(gone.data.id)).length, 1);
    });

    test('credits short, or the site now refused: the slot is skipped with its reason, the next slot kept', async () => {
      const key = await s.account({ plan: 'pro' });
      const accountId = await accountIdOf(s.app.store, key);
      const { data, meta } = await create(key, listSchedule('hourly'));
      // Discovery gives back the credits it did not use: wait for it before emptying the account.
      await waitForDiscovery(key, meta.scan);
      await s.app.store.db.updateTable('accounts').set({ credits_tenths: 0, credits_refilled_at: clock.now() + 10 * DAY }).where('id', '=', accountId).execute();
      clock.advance(HOUR);
      const due = (await scheduleRow(data.id)).next_run!;
      assert.equal((await scheduler().tick()).skipped, 1);
      const shown = assertData(await call(s, 'GET', `/scan_schedules/${data.id}`, { key })).attributes;
      assert.match(shown.skip_reason, /credits/);
      assert.equal(shown.skipped_at, Math.floor(due / 1000));
      assert.equal(shown.next_run, Math.floor((due + HOUR) / 1000), 'the next slot stays on the grid');
      assert.equal(shown.last_scan_id, meta.scan);
      assert.equal((await scansOf(data.id)).length, 1, 'no scan for the skipped slot');

      await s.app.store.db.updateTable('accounts').set({ credits_tenths: 500 }).where('id', '=', accountId).execute();
      clock.advance(HOUR);
      const refused = await scheduler(s.app.store, PUBLIC_ONLY).tick();
      assert.equal(refused.skipped, 1, 'a private address the policy no longer allows');
      assert.match((await scheduleRow(data.id)).skip_reason!, /127\.0\.0\.1/);
      clock.advance(HOUR);
      assert.equal((await scheduler().tick()).started, 1, 'the next slot runs');
      assert.equal((await scansOf(data.id)).length, 2);
    });

    test('each scheduled scan discovers the same pages: the settings stored once sample the same ones', async () => {
      const key = await s.account({ plan: 'pro' });
      const { data, meta } = await create(key, body({ url: site.url(SCAN_SITE.start), sample: 1, report: 'none', frequency: 'daily' }));
      clock.advance(DAY);
      assert.equal((await s.app.scanSchedules.tick()).started, 1);
      const second = (await scheduleRow(data.id)).last_scan_id!;
      const urls = async (id: string) => {
        assert.equal(await waitForDiscovery(key, id), 'running');
        return assertData(await call(s, 'GET', `/scans/${id}/pages?sort=url`, { key })).map((p: any) => p.attributes.url);
      };
      const first = await urls(meta.scan);
      assert.equal(first.length, Object.keys(SCAN_SITE.templates).length, 'one page a template');
      assert.deepEqual(await urls(second), first);
    });

    test('a scan\'s history: the completed scans of its site and source, oldest first, with their site figures; not other sites, sources or accounts', async () => {
      const key = await s.account({ plan: 'pro' });
      const accountId = await accountIdOf(s.app.store, key);
      const origin = 'https://history.example';
      const pages = (lcp: number): ScanPageSeed[] => [
        { url: `${origin}/`, template: '/', grade: 'A', performance_score: 95, largest_contentful_paint: lcp, total_blocking_time: 50, cumulative_layout_shift: 0.01, fully_loaded_time: 2000 },
        { url: `${origin}/p/1`, template: '/p/:id', grade: 'C', performance_score: 70, largest_contentful_paint: lcp + 3000, total_blocking_time: 700, cumulative_layout_shift: 0.3, fully_loaded_time: 4000 },
        { url: `${origin}/p/2`, template: '/p/:id', state: 'failed', error: 'The page answered 500.' },
      ];
      const t0 = clock.now() - 10 * DAY;
      const seeded = [];
      for (const [i, lcp] of [1000, 1200, 1400].entries()) {
        seeded.push((await seedScan(s.app.store, accountId, { url: `${origin}/`, state: 'completed', pages: pages(lcp), created: t0 + i * DAY })).scanId);
      }
      await s.app.store.db.updateTable('scans').set({ schedule_id: 'SCHEDULE0001' }).where('id', '=', seeded[1]!).execute();
      await s.app.store.db.updateTable('scan_pages').set({ lighthouse_version: '13.5.0' }).where('scan_id', '=', seeded[2]!).execute();
      // Not the site's history: another source, another site, a running scan, another account's scan of the site.
      await seedScan(s.app.store, accountId, { url: `${origin}/`, state: 'completed', source: 'crawl', pages: pages(900), created: t0 + DAY / 2 });
      await seedScan(s.app.store, accountId, { url: 'https://other.example/', state: 'completed', pages: pages(900), created: t0 });
      const running = (await seedScan(s.app.store, accountId, { url: `${origin}/`, state: 'running', pages: [{ url: `${origin}/`, template: '/', state: 'started' }] })).scanId;
      // Nor another device's: a site's history is one device's.
      const phone = (await seedScan(s.app.store, accountId, { url: `${origin}/`, state: 'completed', pages: pages(5000), created: t0 + DAY / 3 })).scanId;
      await s.app.store.db.updateTable('scans').set({ device_class: 'phone-mid' }).where('id', '=', phone).execute();
      const stranger = await accountIdOf(s.app.store, await s.account({ plan: 'pro' }));
      await seedScan(s.app.store, stranger, { url: `${origin}/`, state: 'completed', pages: pages(900), created: t0 + DAY });

      for (const from of [seeded[0]!, running]) {
        const res = await call(s, 'GET', `/scans/${from}/history`, { key });
        const points = assertData(res);
        assert.deepEqual(res.body.meta, { site: origin, device_class: 'desktop', source: 'sitemap', count: 3 });
        assert.equal(res.body.links.self, `${s.api}/scans/${from}/history`);
        assert.deepEqual(points.map((p: any) => p.id), seeded, 'oldest first');
        const last = points[2];
        assert.equal(last.type, 'scan_history_point');
        assert.equal(last.links.scan, `${s.api}/scans/${seeded[2]}`);
        const { created, finished, ...rest } = last.attributes;
        assert.equal(created, Math.floor((t0 + 2 * DAY) / 1000));
        assert.equal(finished, created + 60);
        assert.deepEqual(rest, {
          scan: seeded[2], schedule_id: null, pages_measured: 2, lcp_p75: 4400, lcp_median: 2900, cls_p75: 0.3, cls_median: 0.155, tbt_p75: 700,
          tbt_median: 375, fully_loaded_p75: 4000, performance_median: 83, poor_lcp_pages: 1, poor_cls_pages: 1, poor_tbt_pages: 1,
          failed_pages: 1, grades: { A: 1, C: 1 }, lighthouse_versions: ['13.5.0'],
        });
        assert.equal(points[1].attributes.schedule_id, 'SCHEDULE0001');
        assert.deepEqual(points.map((p: any) => p.attributes.lcp_median), [2500, 2700, 2900]);
      }
      const phoneHistory = await call(s, 'GET', `/scans/${phone}/history`, { key });
      assert.deepEqual([phoneHistory.body.meta.device_class, assertData(phoneHistory).map((p: any) => p.id)], ['phone-mid', [phone]]);
      assertError(await call(s, 'GET', '/scans/AAAAAAAAAAAA/history', { key }), 404, 'E40400');
      assert.equal(errorOf(await call(s, 'GET', `/scans/${seeded[0]}/history`, { key: await s.account({ plan: 'pro' }) })).code, 'E40400');
    });
  });
}
