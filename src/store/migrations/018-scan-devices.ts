import type { Kysely, Migration } from 'kysely';

/**
 * A scan per device (issue 49, point 4): a scan's results are keyed by the device its pages ran as, never by its URL.
 * - `scans.device_class`: the device class every page of the scan runs as (core/vocabulary/device-classes.ts). The
 *   site's history, "the previous scan", a comparison and the alerts' earlier verdicts are those of the same device.
 * - `scans.scan_set`: the ID shared by the scans one request started, one per device (siblings); null for a scan of
 *   one device.
 * - `scan_schedules.devices`: the device classes each slot scans (JSON array, in the order asked), one scan each.
 *
 * Rows written before keep what their options say: a class named (device_class), else a simulated device in a
 * browser that can slow its CPU is a mid-tier phone (every browser but Firefox, ID "1", the catalogue's only one
 * without CPU throttling), as the options parser reads such a test today (defaultDeviceClass), else a desktop.
 */
const FIREFOX = '1';

function deviceOf(options: string, browser: string): string {
  let o: { device_class?: unknown; simulate_device?: unknown };
  try {
    o = JSON.parse(options) as typeof o;
  } catch {
    return 'desktop';
  }
  if (typeof o.device_class === 'string') return o.device_class;
  return typeof o.simulate_device === 'string' && browser !== FIREFOX ? 'phone-mid' : 'desktop';
}

export const m018ScanDevices: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('scans').addColumn('device_class', 'text', (c) => c.notNull().defaultTo('desktop')).execute();
    await db.schema.alterTable('scans').addColumn('scan_set', 'text').execute();
    await db.schema.alterTable('scan_schedules').addColumn('devices', 'text', (c) => c.notNull().defaultTo('["desktop"]')).execute();
    await db.schema.createIndex('scans_scan_set').on('scans').columns(['scan_set']).execute();
    for (const table of ['scans', 'scan_schedules'] as const) {
      const rows = await db.selectFrom(table).select(['id', 'options', 'browser'])
        .where((eb) => eb.or([eb('options', 'like', '%"simulate_device"%'), eb('options', 'like', '%"device_class"%')])).execute() as
        { id: string; options: string; browser: string }[];
      for (const r of rows) {
        const device = deviceOf(r.options, r.browser);
        if (device === 'desktop') continue;
        await db.updateTable(table).set(table === 'scans' ? { device_class: device } : { devices: JSON.stringify([device]) })
          .where('id', '=', r.id).execute();
      }
    }
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('scans_scan_set').execute();
    await db.schema.alterTable('scan_schedules').dropColumn('devices').execute();
    await db.schema.alterTable('scans').dropColumn('scan_set').execute();
    await db.schema.alterTable('scans').dropColumn('device_class').execute();
  },
};
