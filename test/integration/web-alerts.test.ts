// lane: shared
/**
 * A page's alerts on its view over HTTP (no browser; the browser suite adds and deletes one as a person would):
 * the Alerts section and its form, a condition added, refused with the API's message and status (nothing made),
 * changed, disabled and enabled, deleted; the events that seeded reports trigger through core (checkConditions)
 * listed with their reports and flagged on the metric's history chart; the Viewer role read-only and refused with
 * core's words; another account's pages and conditions 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALERT_METRICS, checkConditions, OPERATORS } from '../../src/core/alerts/alerts.js';
import { authenticate } from '../../src/core/accounts/accounts.js';
import { clock } from '../../src/core/clock.js';
import { refreshPage } from '../../src/core/reports/reports.js';
import { metricSpec } from '../../src/core/vocabulary/metrics.js';
import { when } from '../../src/web/charts.js';
import { accountIdOf, addReport, seedPage, type Seeded } from '../helpers/seed.js';
import { call, engines, startServer, type TestServer } from '../helpers/server.js';
import { webSession } from '../helpers/web-session.js';

const HOUR = 3_600_000;

interface Condition { id: string; attributes: { metric: string; operator: string; value: number; consecutive: number; enabled: boolean; state: string } }

for (const engine of engines()) describe(`web app: a page's alerts (${engine})`, () => {
  let server: TestServer;
  let ownerCookie: string;
  let viewerCookie: string;
  let basicCookie: string;
  let accountId: string;
  let a: Seeded;
  let foreign: Seeded;
  let foreignCondition: string;
  let basicKey: string;
  /** The condition the form made (the tests run in order and share it). */
  let made: Condition;

  const { signIn, get, post } = webSession({ get base() { return server.base; } });
  /** The page's conditions as the API lists them. */
  const conditions = async (pageId = a.pageId, key = server.key): Promise<Condition[]> => {
    const res = await call(server, 'GET', `/pages/${pageId}/performance_alert_conditions`, { key });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Condition[];
  };
  const alertsPath = () => `/pages/${a.pageId}/alerts`;
  /** The HTML of the page view's Alerts section. */
  const alertsSection = (html: string) => html.match(/<section class="pv-section" id="alerts"[\s\S]*?<\/section>/)?.[0] ?? '';
  const form = (fields: Record<string, string>) => Object.entries(fields);

  before(async () => {
    server = await startServer({ engine, agentSlots: 0 });
    const store = server.app.store;
    accountId = await accountIdOf(store, server.key);
    const now = Date.now();
    a = await seedPage(store, accountId, { url: 'http://127.0.0.1:9/alerted.html', created: now - 10 * HOUR });
    basicKey = await server.account({ plan: 'basic', email: `basic-${engine}@example.test` });
    foreign = await seedPage(store, await accountIdOf(store, basicKey), { url: 'http://127.0.0.1:9/foreign.html' });
    const fc = await call(server, 'POST', `/pages/${foreign.pageId}/performance_alert_conditions`, {
      key: basicKey, body: { data: { type: 'performance_alert_condition', attributes: { metric: 'page_bytes', operator: 'gt', value: 1 } } },
    });
    assert.equal(fc.status, 201, fc.text);
    foreignCondition = fc.body.data.id;
    const ownerEmail = (await authenticate(store.db, server.config.plans, server.key))!.email;
    const viewer = await server.account({ plan: 'pro', role: 'viewer', teamOf: ownerEmail });
    ownerCookie = await signIn(server.key);
    viewerCookie = await signIn(viewer);
    basicCookie = await signIn(basicKey);
  });

  after(async () => {
    await server?.close();
  });

  it('shows an Alerts section: none yet, and a form whose fields are named Metric, Condition, Value and Consecutive reports', async () => {
    const { status, html } = await get(ownerCookie, `/pages/${a.pageId}`);
    assert.equal(status, 200);
    const part = alertsSection(html);
    assert.match(part, /<h2 id="pv-alerts">Alerts<\/h2>/);
    assert.match(part, /No alerts on this page yet\./);
    assert.match(part, /No alert events yet/);
    assert.match(part, new RegExp(`<form method="post" action="/pages/${a.pageId}/alerts"`));
    for (const [id, label] of [['metric', 'Metric'], ['operator', 'Condition'], ['value', 'Value'], ['consecutive', 'Consecutive reports']]) {
      assert.match(part, new RegExp(`<label for="f-alert-${id}">${label}</label>`), `the ${label} field's label is its name alone`);
    }
    // The hints describe their fields.
    assert.match(part, /<input id="f-alert-value" name="value"[^>]* aria-describedby="f-alert-value-hint">/);
    assert.match(part, /<input id="f-alert-consecutive" name="consecutive" type="number" min="1" max="50"[^>]* aria-describedby="f-alert-consecutive-hint">/);
    // Every metric core alerts on, by its label in the metrics table; every operator.
    const metrics = [...part.matchAll(/<option value="([a-z_]+)"(?: selected)?>([^<]+)<\/option>/g)].filter((m) => metricSpec(m[1]!)).map((m) => [m[1], m[2]]);
    assert.deepEqual(metrics.map((m) => m[0]), [...ALERT_METRICS]);
    assert.ok(metrics.every(([name, text]) => text!.startsWith(metricSpec(name!)!.label)), JSON.stringify(metrics));
    assert.match(part, /<option value="fully_loaded_time" selected>Fully loaded \(ms\)<\/option>/);
    const operators = [...part.matchAll(/<select id="f-alert-operator" name="operator">([\s\S]*?)<\/select>/g)][0]![1]!;
    assert.deepEqual([...operators.matchAll(/value="([a-z]+)"/g)].map((m) => m[1]), [...OPERATORS]);
    assert.match(part, />Add alert<\/button>/);
  });

  it('adds an alert through core: listed with its label, condition, consecutive reports, enabled and OK', async () => {
    const res = await post(ownerCookie, alertsPath(), form({ metric: 'fully_loaded_time', operator: 'gt', value: '3000', consecutive: '2' }));
    assert.equal(res.status, 303, res.html);
    assert.equal(res.location, `/pages/${a.pageId}?saved=alert-added#alerts`);
    const listed = await conditions();
    assert.equal(listed.length, 1);
    made = listed[0]!;
    assert.deepEqual(made.attributes, { ...made.attributes, metric: 'fully_loaded_time', operator: 'gt', value: 3000, consecutive: 2, enabled: true, state: 'ok' });
    const part = alertsSection((await get(ownerCookie, res.location!)).html);
    assert.match(part, /<div class="ok" role="status">Alert added\.<\/div>/);
    const row = part.match(new RegExp(`<tr id="alert-${made.id}">([\\s\\S]*?)</tr>`))?.[1] ?? '';
    const cells = [...row.matchAll(/<td data-label="([^"]+)"[^>]*><span>([\s\S]*?)<\/span><\/td>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(cells, [['Metric', 'Fully loaded'], ['Condition', '&gt; 3.00 s'], ['Consecutive reports', '2'], ['Enabled', 'Yes'], ['State', 'OK']]);
    assert.match(row, new RegExp(`<a class="btn secondary small" href="/pages/${a.pageId}/alerts/${made.id}" aria-label="Edit alert Fully loaded &gt; 3.00 s">Edit</a>`));
    assert.match(row, /aria-label="Disable alert Fully loaded &gt; 3.00 s">Disable<\/button>/);
    // Delete asks first, as the app's other delete buttons do.
    assert.match(row, new RegExp(`<form method="post" action="/pages/${a.pageId}/alerts/${made.id}/delete" data-confirm="Delete the alert “Fully loaded &gt; 3.00 s”\\? Its past events stay listed\\.">`));
    // A regression is said as one; a score's threshold in per cent.
    assert.equal((await post(ownerCookie, alertsPath(), form({ metric: 'page_bytes', operator: 'regression', value: '0.25', consecutive: '' }))).status, 303);
    assert.equal((await post(ownerCookie, alertsPath(), form({ metric: 'performance_score', operator: 'lte', value: '80' }))).status, 303);
    const all = alertsSection((await get(ownerCookie, `/pages/${a.pageId}`)).html);
    assert.match(all, /<span>Page size<\/span><\/td><td data-label="Condition"><span>regression of 25 % or more<\/span>/);
    assert.match(all, /<span>Performance<\/span><\/td><td data-label="Condition"><span>≤ 80%<\/span>/);
    assert.deepEqual((await conditions()).slice(1).map((c) => [c.attributes.metric, c.attributes.operator, c.attributes.value, c.attributes.consecutive]),
      [['page_bytes', 'regression', 0.25, 1], ['performance_score', 'lte', 80, 1]]);
  });

  it('answers a bad value with the API\'s message and status, the form shown again as sent, and nothing made', async () => {
    const before = (await conditions()).length;
    const cases: [Record<string, string>, RegExp][] = [
      [{ metric: 'fully_loaded_time', operator: 'gt', value: 'abc', consecutive: '1' }, /value must be a number, got &quot;abc&quot;\./],
      [{ metric: 'fully_loaded_time', operator: 'gt', value: '', consecutive: '1' }, /value must be a number, got &quot;&quot;\./],
      [{ metric: 'fully_loaded_time', operator: 'gt', value: '3,000' }, /value must be a number, got &quot;3,000&quot;\./],
      [{ metric: 'fully_loaded_time', operator: 'gt', value: '100', consecutive: '0' }, /consecutive must be an integer from 1 to 50 \(reports in a row\), got 0\./],
      [{ metric: 'fully_loaded_time', operator: 'gt', value: '100', consecutive: '1.5' }, /consecutive must be an integer from 1 to 50/],
      [{ metric: 'performance_score', operator: 'regression', value: '5' }, /value of a regression condition is the smallest relative change that matters/],
      [{ metric: 'url', operator: 'gt', value: '1' }, /metric &quot;url&quot; is not a numeric report attribute; use one of service_score, /],
      [{ metric: 'fully_loaded_time', operator: 'between', value: '1' }, /operator &quot;between&quot; is unknown; use one of gt, gte, lt, lte, regression\./],
    ];
    for (const [fields, message] of cases) {
      const res = await post(ownerCookie, alertsPath(), form(fields));
      assert.equal(res.status, 400, JSON.stringify(fields));
      const part = alertsSection(res.html);
      // In the form, as its error summary (kit.ts errorBox).
      assert.match(part, new RegExp(`<div class="error form-error" id="form-error"[^>]* role="alert">Invalid request parameter: ${message.source}`), `${JSON.stringify(fields)}: ${part.match(/role="alert">[^<]*/)?.[0]}`);
      assert.match(part, new RegExp(`<input id="f-alert-value" name="value"[^>]* value="${fields.value}"`), 'the value is shown as sent');
    }
    const shown = alertsSection((await post(ownerCookie, alertsPath(), form({ metric: 'page_requests', operator: 'lt', value: 'x', consecutive: '3' }))).html);
    assert.match(shown, /<option value="page_requests" selected>/);
    assert.match(shown, /<option value="lt" selected>/);
    assert.match(shown, /name="consecutive" type="number"[^>]* value="3"/);
    assert.equal((await conditions()).length, before, 'no condition was made');
  });

  it('changes an alert on its own screen; a bad change is refused with the API\'s message and changes nothing', async () => {
    const path = `${alertsPath()}/${made.id}`;
    const screen = await get(ownerCookie, path);
    assert.equal(screen.status, 200);
    assert.match(screen.html, /<h1>Edit alert<\/h1>/);
    assert.match(screen.html, /<option value="fully_loaded_time" selected>/);
    assert.match(screen.html, /<option value="gt" selected>/);
    assert.match(screen.html, /<input id="f-edit-value" name="value"[^>]* value="3000"/);
    assert.match(screen.html, /<input id="f-edit-consecutive" name="consecutive"[^>]* value="2"/);
    for (const label of ['Metric', 'Condition', 'Value', 'Consecutive reports']) assert.match(screen.html, new RegExp(`<label for="f-edit-[a-z]+">${label}</label>`));
    assert.match(screen.html, />Save alert<\/button>/);

    const bad = await post(ownerCookie, path, form({ metric: 'fully_loaded_time', operator: 'gte', value: '2000', consecutive: '99' }));
    assert.equal(bad.status, 400);
    assert.match(bad.html, /role="alert">Invalid request parameter: consecutive must be an integer from 1 to 50 \(reports in a row\), got 99\./);
    assert.match(bad.html, /<h1>Edit alert<\/h1>/);
    assert.match(bad.html, /<option value="gte" selected>/, 'the form as sent');
    assert.deepEqual((await conditions())[0]!.attributes, made.attributes, 'nothing changed');

    const ok = await post(ownerCookie, path, form({ metric: 'fully_loaded_time', operator: 'gte', value: '2000', consecutive: '1' }));
    assert.equal(ok.status, 303, ok.html);
    assert.equal(ok.location, `/pages/${a.pageId}?saved=alert-saved#alerts`);
    const changed = (await conditions())[0]!;
    assert.deepEqual([changed.attributes.operator, changed.attributes.value, changed.attributes.consecutive], ['gte', 2000, 1]);
    const part = alertsSection((await get(ownerCookie, ok.location!)).html);
    assert.match(part, /role="status">Alert saved\./);
    assert.match(part, /<td data-label="Condition"><span>≥ 2.00 s<\/span>/);
    made = changed;
  });

  it('disables and enables an alert', async () => {
    const path = `${alertsPath()}/${made.id}`;
    const off = await post(ownerCookie, path, [['enabled', 'false']]);
    assert.equal(off.status, 303);
    assert.equal(off.location, `/pages/${a.pageId}?saved=alert-disabled#alerts`);
    assert.equal((await conditions())[0]!.attributes.enabled, false);
    const part = alertsSection((await get(ownerCookie, off.location!)).html);
    assert.match(part, /role="status">Alert disabled/);
    assert.match(part, new RegExp(`<tr id="alert-${made.id}">[\\s\\S]*?<td data-label="Enabled"><span>No</span>[\\s\\S]*?aria-label="Enable alert Fully loaded ≥ 2.00 s">Enable</button>`));
    const on = await post(ownerCookie, path, [['enabled', 'true']]);
    assert.equal(on.location, `/pages/${a.pageId}?saved=alert-enabled#alerts`);
    assert.deepEqual((await conditions())[0]!.attributes, made.attributes, 'enabled again, as it was');
    const odd = await post(ownerCookie, path, [['enabled', 'maybe']]);
    assert.equal(odd.status, 400);
    assert.match(odd.html, /role="alert">Invalid request parameter: enabled must be true or false, got &quot;maybe&quot;\./);
  });

  it('lists the events core records, each with its report, and flags each triggered one on the metric\'s chart', async () => {
    const store = server.app.store;
    const now = Date.now();
    const reports: { id: string; created: number }[] = [];
    try {
      for (const [i, ms] of [2500, 1500, 2600].entries()) {
        const created = now - (5 - i) * HOUR;
        const id = await addReport(store, accountId, a.pageId, a.options, { created });
        await store.db.updateTable('reports').set({ fully_loaded_time: ms }).where('id', '=', id).execute();
        // Core records an event at the clock's now: set it to the report's arrival, as a report an hour after the
        // last would find it (three checks in one millisecond would tie, and the list breaks ties by random id).
        clock.advance(created - clock.now());
        const events = await checkConditions(store.db, { id, page_id: a.pageId, created });
        assert.deepEqual(events.filter((e) => e.event.metric === 'fully_loaded_time').map((e) => e.event.state), [i === 1 ? 'resolved' : 'triggered']);
        reports.push({ id, created });
      }
    } finally {
      clock.reset();
    }
    await refreshPage(store.db, a.pageId);
    const html = (await get(ownerCookie, `/pages/${a.pageId}`)).html;
    const part = alertsSection(html);
    const events = [...part.matchAll(/<tr><td data-label="When \(UTC\)">([\s\S]*?)<\/tr>/g)].map((m) => m[1]!);
    assert.equal(events.length, 3, part);
    // Newest first: the second trigger, the resolution, the first trigger; each links its report.
    for (const [n, [state, report, value]] of ([['Triggered', reports[2]!, '2.60 s'], ['Resolved', reports[1]!, '1.50 s'], ['Triggered', reports[0]!, '2.50 s']] as const).entries()) {
      assert.match(events[n]!, new RegExp(`<td data-label="Event"><span>(<span class="pv-alert-on">)?${state}`), `event ${n}`);
      assert.match(events[n]!, /<td data-label="Metric"><span>Fully loaded<\/span>/);
      assert.match(events[n]!, new RegExp(`<td data-label="Value" class="num"><span>${value} <span class="muted">against 2.00 s</span>`));
      assert.match(events[n]!, new RegExp(`<a href="/reports/${report.id}">Report<span class="visually-hidden"> of ${when(report.created)}</span></a>`));
    }
    assert.match(part, /<td data-label="State"><span><span class="pv-alert-on">Triggered<\/span> since <time datetime="[^"]+">\d\d:\d\d:\d\d \d+ \w+ \d{4}<\/time><\/span>/);
    // The flags: on the Fully loaded chart, one per triggered event, at its report; no other chart has one.
    const chart = html.match(/<figure class="chart card"><figcaption><h3>Fully loaded [\s\S]*?<\/figure>/)?.[0] ?? '';
    const flags = [...chart.matchAll(/<g class="marker" role="img" aria-label="([^"]+)"><title>/g)].map((m) => m[1]);
    assert.deepEqual(flags, [`Alert triggered: Fully loaded 2.50 s at ${when(reports[0]!.created)}`, `Alert triggered: Fully loaded 2.60 s at ${when(reports[2]!.created)}`]);
    assert.match(chart, /<svg role="img" aria-label="Fully loaded over \d+ reports[^"]*; 2 alerts triggered"/);
    assert.equal(html.match(/<g class="marker"/g)?.length, 2, 'no other chart is flagged');
  });

  it('deletes an alert (its events stay listed)', async () => {
    const res = await post(ownerCookie, `${alertsPath()}/${made.id}/delete`);
    assert.equal(res.status, 303);
    assert.equal(res.location, `/pages/${a.pageId}?saved=alert-deleted#alerts`);
    assert.equal((await call(server, 'GET', `/pages/${a.pageId}/performance_alert_conditions/${made.id}`, { key: server.key })).status, 404);
    const part = alertsSection((await get(ownerCookie, res.location!)).html);
    assert.match(part, /role="status">Alert deleted; its past events stay listed\./);
    assert.doesNotMatch(part, new RegExp(`alert-${made.id}`));
    assert.equal(part.match(/<tr><td data-label="When \(UTC\)">/g)?.length, 3);
    assert.equal((await get(ownerCookie, `${alertsPath()}/${made.id}`)).status, 404, 'its edit screen is gone');
  });

  it('shows the Viewer role the alerts and events only, and refuses its posts with core\'s words', async () => {
    const listed = await conditions();
    const { status, html } = await get(viewerCookie, `/pages/${a.pageId}`);
    assert.equal(status, 200);
    const part = alertsSection(html);
    assert.match(part, /<td data-label="Metric"><span>Page size<\/span>/);
    assert.match(part, /The Viewer role can see alerts but not change them\./);
    assert.match(part, /<tr><td data-label="When \(UTC\)">/);
    for (const absent of [/<form/, /<button/, />Edit<\/a>/, /Add alert/, /name="csrf"/]) assert.doesNotMatch(part, absent);
    const id = listed[0]!.id;
    const refusals: [string, [string, string][], string][] = [
      [alertsPath(), form({ metric: 'fully_loaded_time', operator: 'gt', value: 'abc' }), 'create alert conditions'],
      [`${alertsPath()}/${id}`, form({ value: '1' }), 'change alert conditions'],
      [`${alertsPath()}/${id}`, [['enabled', 'false']], 'change alert conditions'],
      [`${alertsPath()}/${id}/delete`, [], 'delete alert conditions'],
    ];
    for (const [path, fields, what] of refusals) {
      const res = await post(viewerCookie, path, fields);
      assert.equal(res.status, 403, path);
      assert.match(res.html, new RegExp(`role="alert">The Viewer role cannot ${what}; ask the team owner for a key with the Owner role\\.`), path);
    }
    const edit = await get(viewerCookie, `${alertsPath()}/${id}`);
    assert.equal(edit.status, 403);
    assert.match(edit.html, /The Viewer role cannot change alert conditions/);
    assert.deepEqual(await conditions(), listed, 'nothing changed');
  });

  it('answers 404 for another account\'s page and conditions, and for unknown ones', async () => {
    const own = (await conditions())[0]!.id;
    const other = `/pages/${foreign.pageId}/alerts`;
    assert.equal((await post(ownerCookie, other, form({ metric: 'fully_loaded_time', operator: 'gt', value: '1' }))).status, 404);
    for (const path of [`${other}/${foreignCondition}`, `${alertsPath()}/${foreignCondition}`, `${alertsPath()}/nope`, `${alertsPath()}/%00`]) {
      assert.equal((await get(ownerCookie, path)).status, 404, `GET ${path}`);
      assert.equal((await post(ownerCookie, path, [['enabled', 'false']])).status, 404, `POST ${path}`);
      assert.equal((await post(ownerCookie, `${path}/delete`)).status, 404, `POST ${path}/delete`);
    }
    // The other account cannot reach this account's alert either, on screens or forms.
    const mine = `${alertsPath()}/${own}`;
    assert.equal((await get(basicCookie, mine)).status, 404);
    assert.equal((await post(basicCookie, `${mine}/delete`)).status, 404);
    assert.equal((await post(basicCookie, alertsPath(), form({ metric: 'fully_loaded_time', operator: 'gt', value: '1' }))).status, 404);
    assert.equal((await conditions(foreign.pageId, basicKey)).length, 1, 'the other account\'s condition is untouched');
    assert.equal((await conditions()).length, 2);
  });
});
