/**
 * `npm run bench -- alerts`: how the `regression` alert condition behaves on real reports of the fixture's
 * /switchable page (server-side delay BENCH_ALERTS_BASE_MS, default 200 ms), through the whole service:
 * 1. false alarms: BENCH_ALERTS_STEADY (default 30) reports of the unchanged page, with regression conditions
 *    (value 0.1) on time_to_first_byte, onload_time and fully_loaded_time; every report after the first
 *    REGRESSION.recent + REGRESSION.baselineMin is a check;
 * 2. detection: the page made 20 % slower (the delay × 1.2 + what the rest of TTFB costs), and the number of
 *    reports until the time_to_first_byte condition triggers (at most 12);
 * 3. a bootstrap over the measured steady values (2000 sequences of the same length, drawn with replacement):
 *    the share of sequences with at least one false alarm, which the few real sequences cannot estimate.
 */
import { regressionVerdict, REGRESSION } from '../src/core/alerts/alerts.js';
import { startFixtureSite } from '../test/fixtures/site/server.js';
import { call, startServer, waitForTest } from '../test/helpers/server.js';

const BASE = Number(process.env.BENCH_ALERTS_BASE_MS ?? 200);
const STEADY = Number(process.env.BENCH_ALERTS_STEADY ?? 30);
const METRICS = ['time_to_first_byte', 'onload_time', 'fully_loaded_time'] as const;

async function main() {
  const site = await startFixtureSite();
  const server = await startServer({ engine: 'sqlite', agentSlots: 1, allowPrivateTargets: false, env: { WEBGAUGE_ALLOW_TARGETS: '127.0.0.1' } });
  const key = server.key;
  const url = site.url('/switchable');
  const values: Record<string, number[]> = Object.fromEntries(METRICS.map((m) => [m, []]));
  let pageId = '';
  const run = async () => {
    const res = await call(server, 'POST', '/tests', { key, body: { data: { type: 'test', attributes: { url, report: 'none' } } } });
    if (res.status !== 202) throw new Error(`POST /tests: ${res.status} ${res.text}`);
    const done = await waitForTest(server, key, res.body.data.id);
    if (done.status !== 303) throw new Error(`test did not complete: ${done.text}`);
    await server.app.testEvents.drain();
    pageId = done.body.data.attributes.page;
    const report = (await call(server, 'GET', `/reports/${res.body.data.id}`, { key })).body.data.attributes;
    for (const m of METRICS) values[m].push(report[m]);
  };
  const triggered = async () => {
    const events = (await call(server, 'GET', `/pages/${pageId}/performance_alert_events?page[size]=500`, { key })).body.data as
      { attributes: { metric: string; state: string } }[];
    return events.filter((e) => e.attributes.state === 'triggered');
  };
  try {
    site.switchable.delayMs = BASE;
    await run();
    for (const metric of METRICS) {
      const r = await call(server, 'POST', `/pages/${pageId}/performance_alert_conditions`, { key,
        body: { data: { type: 'performance_alert_condition', attributes: { metric, operator: 'regression', value: 0.1 } } } });
      if (r.status !== 201) throw new Error(r.text);
    }
    for (let i = 1; i < STEADY; i++) await run();
    const checks = Math.max(0, STEADY - (REGRESSION.recent + REGRESSION.baselineMin) + 1);
    const falseAlarms = await triggered();
    console.log(`\n/switchable at ${BASE} ms server delay, ${STEADY} reports of the unchanged page (report=none, SQLite, 1 slot)`);
    console.log(`windows: recent ${REGRESSION.recent}, baseline ${REGRESSION.baselineMin}-${REGRESSION.baselineMax}, p < ${REGRESSION.alpha}, value 0.1`);
    for (const m of METRICS) {
      const v = [...values[m]].sort((a, b) => a - b);
      const n = falseAlarms.filter((e) => e.attributes.metric === m).length;
      console.log(`${m.padEnd(20)} median ${v[v.length >> 1]} ms, range ${v[0]}-${v[v.length - 1]} ms: ${n} false alarm(s) in ${checks} checks`);
    }

    // 20 % slower: TTFB's median plus 20 % of it as extra server delay.
    const ttfb = [...values.time_to_first_byte].sort((a, b) => a - b)[values.time_to_first_byte.length >> 1];
    site.switchable.delayMs = BASE + Math.round(ttfb * 0.2);
    let after = 0;
    let detected = 0;
    while (after < 12) {
      await run();
      after++;
      if ((await triggered()).some((e) => e.attributes.metric === 'time_to_first_byte')) {
        detected = after;
        break;
      }
    }
    const slow = values.time_to_first_byte.slice(STEADY);
    console.log(`after a 20 % slowdown (delay ${site.switchable.delayMs} ms, TTFB ${slow.join(', ')} ms): ` +
      (detected ? `time_to_first_byte regression triggered on report ${detected} after the change` : `not triggered within ${after} reports`));

    // Bootstrap: sequences drawn from the steady values, checked like the service checks them.
    let rng = 12345;
    const rand = () => ((rng = (rng * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const m of METRICS) {
      const pool = values[m].slice(0, STEADY);
      let withAlarm = 0;
      let alarms = 0;
      let total = 0;
      for (let s = 0; s < 2000; s++) {
        const seq = Array.from({ length: STEADY }, () => pool[Math.floor(rand() * pool.length)]);
        let any = false;
        for (let end = REGRESSION.recent + REGRESSION.baselineMin; end <= STEADY; end++) {
          const newestFirst = seq.slice(0, end).reverse();
          const v = regressionVerdict(newestFirst, m, 0.1);
          total++;
          if (v?.holds) {
            alarms++;
            any = true;
          }
        }
        if (any) withAlarm++;
      }
      console.log(`bootstrap ${m.padEnd(20)} ${(alarms / total * 100).toFixed(2)} % of checks hold, ${(withAlarm / 20).toFixed(1)} % of ${STEADY}-report sequences have one`);
    }
  } finally {
    await server.close();
    await site.close();
  }
}

await main();
