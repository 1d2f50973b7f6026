/**
 * Page monitoring (spec 3, 4.3): a page runs as a `monitored` test at its frequency. The schedule lives on the
 * page row: `monitor_anchor` is the origin of the slot grid (anchor + k × interval, calendar months for
 * monthly), `monitor_next_run` the next due slot. The scheduler (src/scheduler/monitor.ts) claims slots.
 */
import { assertOwnerRole } from '../accounts/roles.js';
import type { RootDb, Store } from '../../store/db.js';
import type { Principal } from '../accounts/accounts.js';
import { locationOffers, type Catalog } from '../catalog/catalog.js';
import { clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Plan, PlanRegistry } from '../accounts/plans.js';
import { accountIdentity } from '../../store/accounts.js';
import { lockAccount } from '../../store/locks.js';
import { countMonitoredPages, setSchedule } from '../../store/monitoring.js';
import { findAccountPage } from '../../store/pages.js';

import {
  ACCEPTED_FREQUENCIES, EVERY_PLAN_FREQUENCIES, FREQUENCY_BY_WORD, frequencySpec, type Frequency, type MonitoredFrequency,
} from '../vocabulary/frequencies.js';

export type { Frequency };

const HOUR = 3_600_000;

/** The frequency a client asked for (`none` means `no`), or 400 E4001 naming the frequencies there are. */
export function parseFrequency(raw: unknown): Frequency {
  const word = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
  const f = word !== undefined && Object.hasOwn(FREQUENCY_BY_WORD, word) ? FREQUENCY_BY_WORD[word] : undefined;
  if (!f) {
    const got = raw === undefined ? 'it is missing' : `got ${JSON.stringify(raw)}`;
    throw new ApiError('E4001', `frequency must be one of ${ACCEPTED_FREQUENCIES.join(', ')}; ${got}.`);
  }
  return f;
}

/** `anchor` moved k calendar months, the day clamped to the month's end (Jan 31 → Feb 28/29). */
function addMonths(anchor: number, k: number): number {
  const d = new Date(anchor);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + k;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/**
 * The first slot of the grid strictly after `after`. Slots missed in between are not returned: a page whose
 * slots were missed while the service was down runs once, then continues on its grid.
 */
export function nextSlot(freq: MonitoredFrequency, anchor: number, after: number): number {
  const every = frequencySpec(freq).every!;
  if ('months' in every) {
    // Months are at most 31 days, so slot k0 is never after `after`; walk forward from there.
    const months = every.months;
    let k = Math.max(1, Math.floor((after - anchor) / (months * 31 * 24 * HOUR)));
    while (addMonths(anchor, k * months) <= after) k += 1;
    return addMonths(anchor, k * months);
  }
  const interval = every.ms;
  const k = Math.max(1, Math.floor((after - anchor) / interval) + 1);
  return anchor + k * interval;
}

/** 403 E40303 when the plan does not offer the frequency (hourly: `hourlyMonitoring`); `what` repeats at it ("monitoring"). */
export function assertFrequencyOnPlan(plan: Plan, freq: MonitoredFrequency, what: string): void {
  const { label, planFlag } = frequencySpec(freq);
  if (planFlag !== undefined && !plan[planFlag]) {
    throw new ApiError('E40303', `${label} ${what} is not part of the ${plan.name} plan; use ${EVERY_PLAN_FREQUENCIES}.`);
  }
}

/**
 * Enable, change or disable monitoring of a page (403 E40303 when the plan, location/browser or slots refuse).
 * Enabling schedules the first monitored test one interval from now: the page already has a fresh report.
 * Re-posting the current frequency keeps the schedule; changing it restarts the grid now, keeping a slot that
 * is already due sooner.
 */
export async function setMonitoring(store: Store, catalog: Catalog, p: Principal, pageId: string, freq: Frequency): Promise<void> {
  assertOwnerRole(p, 'change monitoring');
  await store.db.transaction().execute(async (trx) => {
    // Account first, page second: the same lock order as the scheduler's claim, so the two never deadlock.
    await lockAccount(trx, store.engine, p.accountId);
    const page = await findAccountPage(trx, p.accountId, pageId);
    if (!page) throw new ApiError('E40402', `No page with ID ${pageId} in this account.`);
    if (freq === 'no') {
      await setSchedule(trx, pageId, { monitored: 'no', monitor_next_run: null, monitor_anchor: null });
      return;
    }
    const plan = p.plan;
    assertFrequencyOnPlan(plan, freq, 'monitoring');
    const location = catalog.location(page.location);
    if (!location || !locationOffers(catalog, location, page.browser)) {
      throw new ApiError('E40303', `The page's location "${page.location}" and browser "${page.browser}" are no longer offered, so it cannot be monitored.`);
    }
    if (page.monitored === freq && page.monitor_next_run !== null) return;
    if (page.monitored === 'no') {
      if ((await countMonitoredPages(trx, p.accountId)) >= plan.monitoringSlots) {
        throw new ApiError('E40303', `All ${plan.monitoringSlots} monitoring slots of the ${plan.name} plan are in use; stop monitoring another page first.`);
      }
    }
    const now = clock.now();
    const first = nextSlot(freq, now, now);
    const next = page.monitored !== 'no' && page.monitor_next_run !== null ? Math.min(page.monitor_next_run, first) : first;
    await setSchedule(trx, pageId, { monitored: freq, monitor_anchor: now, monitor_next_run: next });
  });
}

/** The principal a monitored test runs as: the page's owning account itself, with its plan and credits. */
export async function accountPrincipal(db: RootDb, plans: PlanRegistry, accountId: string): Promise<Principal | undefined> {
  const row = await accountIdentity(db, accountId);
  if (!row) return undefined;
  return {
    accountId: row.id,
    keyAccountId: row.id,
    apiKey: '',
    email: row.email,
    role: 'owner',
    plan: plans.get(row.plan),
    emailValidated: true,
  };
}
