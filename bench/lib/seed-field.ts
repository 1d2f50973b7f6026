/**
 * Real visitors for the benches that show field figures beside the lab (web, scan): a field site of `origin` made
 * through the API, `perPath` page views of each path sent through the real beacon endpoint, spread over the last
 * `days` days (the views' times moved back before the rollup job counts them), then counted.
 */
import { sql } from 'kysely';
import { call, type TestServer } from '../../test/helpers/server.js';
import { sendFieldViews, type FieldView } from '../../test/helpers/field-views.js';

export async function seedFieldSite(server: TestServer, origin: string, paths: readonly string[], perPath: number, days = 28): Promise<string> {
  const res = await call(server, 'POST', '/field_sites', { key: server.key, body: { data: { type: 'field_site', attributes: { name: 'Bench', origins: [origin] } } } });
  if (res.status !== 201) throw new Error(`field site: ${res.status} ${res.text}`);
  const siteId = res.body.data.id as string;
  const views: FieldView[] = [];
  let k = 0;
  for (const path of paths) {
    for (let i = 0; i < perPath; i++, k++) {
      views.push({ url: `${origin}${path}`, device: k % 3 === 0 ? 'mobile' : 'desktop', lcp: 900 + ((k * 7919) % 4000), cls: ((k * 17) % 30) / 100,
        fcp: 500 + ((k * 131) % 2000), ttfb: 80 + ((k * 37) % 900), ...(k % 2 ? { inp: 40 + ((k * 53) % 400) } : {}) });
    }
  }
  await sendFieldViews(server.base, siteId, views, 32);
  await sql`update field_views set received = received - (id % ${days}) * 86400000 where site_id = ${siteId}`.execute(server.app.store.db);
  await server.app.field.rollup.flush();
  return siteId;
}

/** A signed-in session's cookie (the app's screens). */
export async function appCookie(server: TestServer): Promise<string> {
  const res = await fetch(`${server.base}/sign-in`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.base },
    body: new URLSearchParams({ api_key: server.key }).toString(),
  });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  if (!cookie) throw new Error(`sign-in gave no cookie (${res.status})`);
  return cookie;
}
