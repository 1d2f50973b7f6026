/**
 * What an account has used (the web app's Account screen): tests and credits of the last 24 hours, reports of
 * the last 30 days, and how much of the plan's pages, monitoring slots and tags it holds. A handful of counts,
 * each on an index that starts with the account.
 */
import type { Db } from '../../store/db.js';
import { countMonitoredPages } from '../../store/monitoring.js';
import { countLivePages } from '../../store/pages.js';
import { countReportsSince } from '../../store/reports.js';
import { reservedTenthsOf } from '../../store/scans.js';
import { countTags } from '../../store/tags.js';
import { testUsageSince } from '../../store/tests.js';
import { DAY_MS, fromTenths } from './accounts.js';
import { clock } from '../clock.js';

export interface AccountUsage {
  /** Tests started in the last 24 hours (tests are kept that long) and the credits charged for them. */
  testsDay: number;
  creditsDay: number;
  /** Since `refilledAt` (the last daily refill): tests started and charged (failed ones are refunded, so not counted). */
  testsSinceRefill: number;
  chargedSinceRefillTenths: number;
  /** Credits (tenths) the account's scans hold while they find their pages. */
  reservedTenths: number;
  /** Reports made in the last 30 days. */
  reportsMonth: number;
  pages: number;
  monitoredPages: number;
  tags: number;
}

export async function accountUsage(db: Db, accountId: string, refilledAt: number): Promise<AccountUsage> {
  const now = clock.now();
  const [day, sinceRefill, reservedTenths, reportsMonth, pages, monitoredPages, tags] = await Promise.all([
    testUsageSince(db, accountId, now - DAY_MS),
    testUsageSince(db, accountId, refilledAt),
    reservedTenthsOf(db, accountId),
    countReportsSince(db, accountId, now - 30 * DAY_MS),
    countLivePages(db, accountId),
    countMonitoredPages(db, accountId),
    countTags(db, accountId),
  ]);
  return {
    testsDay: day.tests, creditsDay: fromTenths(day.chargedTenths), testsSinceRefill: sinceRefill.tests,
    chargedSinceRefillTenths: sinceRefill.chargedTenths, reservedTenths, reportsMonth, pages, monitoredPages, tags,
  };
}
