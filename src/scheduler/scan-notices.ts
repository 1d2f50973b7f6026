/**
 * What a completed scan tells (docs/scans.md "Alerts on a site"): the webhook `scan.completed` on every completion,
 * and for each alert condition that triggered or resolved the webhook `scan.alert` and, when SMTP is configured, an
 * e-mail to the account's address, as page alerts are mailed (scheduler/test-events.ts). Built before the transaction
 * that completes the scan and queued in it (core/scans/completion.ts): exactly once across processes, in the outbox,
 * signed and retried like every delivery.
 */
import { siteFigureValues } from '../analysis/named-site-figures.js';
import { scanSite, type SiteFigures } from '../analysis/site-figures.js';
import { toSecondsOrNull } from '../core/clock.js';
import { conditionText } from '../core/scans/alert-conditions.js';
import type { AlertVerdict, ScanNotices } from '../core/scans/scan-alerts.js';
import { scanProgress, type ScanRow } from '../core/scans/scans.js';
import { readScanFigures } from '../core/scans/scan-readers.js';
import { queueEmail, queueWebhookEvent } from '../notify/outbox.js';
import { scanAlertMail } from '../notify/scan-mail.js';
import { deviceInWords } from '../core/vocabulary/device-names.js';
import { accountById } from '../store/accounts.js';
import type { Db, Store } from '../store/db.js';

export interface ScanNoticesOptions {
  store: Store;
  /** The service's public address (WEBGAUGE_PUBLIC_URL, else where it listens): `origin` for the app, `api` for the API. */
  links(): { origin: string; api: string };
  /** Alert e-mail is queued only when SMTP is configured. */
  email: boolean;
  /** Called after deliveries were queued (wakes the dispatcher). */
  queued(): void;
}

/** The site figures of the table (analysis/named-site-figures.ts) by name: what conditions and budgets are written with. */
function figureSummary(figures: SiteFigures | null, failed: number): Record<string, number | null> {
  return { pages_measured: figures?.pages_measured ?? 0, ...siteFigureValues({ figures, pages: { failed } }) };
}

export function scanNotices(o: ScanNoticesOptions): ScanNotices {
  return {
    queued: o.queued,
    async prepare(scan: ScanRow, verdicts: readonly AlertVerdict[]) {
      const { store } = o;
      const links = o.links();
      const api = (id: string) => `${links.api}/scans/${id}`;
      const app = (id: string) => `${links.origin}/scans/${id}`;
      const reportPage = (id: string | null) => (id ? `${links.origin}/reports/${id}` : null);
      const site = scanSite(scan);
      const pages = await scanProgress(store.db, scan.id);
      const figures = readScanFigures(scan.figures);
      const about = {
        id: scan.id, url: scan.url, site, source: scan.source, device_class: scan.device_class, scan_set: scan.scan_set,
        schedule: scan.schedule_id, state: scan.state,
        created: toSecondsOrNull(scan.created), finished: toSecondsOrNull(scan.finished),
      };
      const completed = {
        scan: {
          ...about,
          pages: { total: pages.total, completed: pages.completed, failed: pages.failed },
          figures: figureSummary(figures, pages.failed),
          alerts: verdicts.map((v) => ({ kind: v.kind, figure: v.figure, operator: v.operator, value: v.value, holds: v.holds,
            measured: v.measured, change: v.change, message: v.message })),
        },
        links: { scan: api(scan.id), pages: `${api(scan.id)}/pages`, app: app(scan.id) },
      };
      const changed = verdicts.filter((v) => v.change !== null);
      const alerts = changed.map((v) => {
        const previous = v.previous_scan;
        const compared = v.compared_with ?? previous;
        const pageLinks = v.pages.map((p) => ({ ...p, report_page: reportPage(p.report) }));
        return {
          v, pageLinks, previous, compared,
          payload: {
            state: v.change, alert: { ...v, pages: pageLinks }, scan: about,
            previous_scan: previous ? { id: previous, links: { scan: api(previous), app: app(previous) } } : null,
            links: { scan: api(scan.id), app: app(scan.id), ...(compared ? { compare: `${api(compared)}/compare/${scan.id}` } : {}) },
          },
        };
      });
      const account = o.email && changed.length ? await accountById(store.db, scan.account_id) : undefined;
      return async (trx: Db) => {
        await queueWebhookEvent(trx, scan.account_id, 'scan.completed', completed);
        for (const { v, pageLinks, previous, compared, payload } of alerts) {
          await queueWebhookEvent(trx, scan.account_id, 'scan.alert', payload);
          if (!account) continue;
          await queueEmail(trx, scan.account_id, 'scan.alert', scanAlertMail({
            to: account.email, state: v.change!, site, device: deviceInWords(scan.device_class), condition: conditionText(v), message: v.message,
            pages: pageLinks.map((p) => ({ url: p.url, why: p.why, link: p.report_page })), morePages: v.more_pages, notes: v.notes,
            scanLink: app(scan.id), previousScanLink: previous ? app(previous) : null,
            compareLink: compared ? `${app(compared)}/compare/${scan.id}` : null,
          }));
        }
      };
    },
  };
}
