/**
 * Alert conditions of a page and their checks (issue 12). A condition watches one numeric report metric:
 * - a threshold (`gt`, `gte`, `lt`, `lte` against `value`) triggers on the report that crosses it, once the
 *   last `consecutive` reports all do, and resolves on the first report that no longer does;
 * - `regression` triggers when the page's last REGRESSION.recent reports are worse than the reports before them
 *   (up to REGRESSION.baselineMax, at least REGRESSION.baselineMin) by at least `value` (relative, between the
 *   medians) and the difference is significant (one-sided Mann-Whitney U, p < REGRESSION.alpha); it resolves
 *   when the latest window no longer is. Worse is the metrics table's direction (vocabulary/metrics.ts): larger,
 *   except for scores, where it means smaller.
 * Each change of state is an alert event. Checks run after every report of the page (scheduler/test-events.ts).
 */
import { mannWhitneyU } from '../../analysis/mann-whitney.js';
import { ALPHA } from '../../analysis/noise.js';
import { median } from '../../analysis/statistics.js';
import type { Db } from '../../store/db.js';
import {
  deleteCondition as deleteConditionRow, enabledConditions, getCondition, insertAlertEvent, insertCondition, listConditions, recentMetricValues, updateCondition,
  type AlertConditionRow, type AlertEventRow,
} from '../../store/alerts.js';
import { ALERT_EVENTS_LIST, REPORTS_LIST } from '../vocabulary/lists.js';
import type { Principal } from '../accounts/accounts.js';
import { clock } from '../clock.js';
import { ApiError, show } from '../errors.js';
import { newId } from '../ids.js';
import { ALERTABLE_METRICS, comparesByAuditSet, higherIsBetter } from '../vocabulary/metrics.js';
import { sameStructureAudits } from '../../analysis/structure/index.js';
import { plural } from '../../lib/words.js';
import { cpuBasis, cpuBasisName } from '../reports/device-cpu.js';
import { queryAlertEvents } from '../../store/alerts.js';
import type { ListPage, ListQuery } from '../../store/list-query.js';
import { assertOwnerRole } from '../accounts/roles.js';
import { OPERATORS, type Operator } from '../vocabulary/alert-operators.js';

export type { AlertConditionRow, AlertEventRow };
export { listConditions };

export { OPERATORS, type Operator };

/**
 * The metrics a condition may watch: the metrics table's alertable ones, in the order the report list filters
 * them (the order its messages and the API's description have always listed them in).
 */
export const ALERT_METRICS: readonly string[] = Object.keys(REPORTS_LIST.attrs)
  .filter((k) => (ALERTABLE_METRICS as readonly string[]).includes(k));

export const REGRESSION = { recent: 5, baselineMin: 5, baselineMax: 20, alpha: ALPHA } as const;
export const CONSECUTIVE_MAX = 50;
export const CONDITIONS_PER_PAGE_MAX = 50;

export interface ConditionInput {
  metric?: string;
  operator?: Operator;
  value?: number;
  consecutive?: number;
  enabled?: boolean;
}

export const CONDITION_SHAPE = 'send {"data":{"type":"performance_alert_condition","attributes":{"metric":"fully_loaded_time","operator":"gt","value":3000}}}';

/** A condition's attributes as a client gave them, for a create (metric, operator and value required) or partial update; E4001 says what to fix. */
export function parseConditionInput(a: Readonly<Record<string, unknown>>, mode: 'create' | 'patch', current?: AlertConditionRow): ConditionInput {
  const out: ConditionInput = {};
  if (a.metric !== undefined) {
    if (typeof a.metric !== 'string' || !ALERT_METRICS.includes(a.metric)) {
      throw new ApiError('E4001', `metric ${show(a.metric)} is not a numeric report attribute; use one of ${ALERT_METRICS.join(', ')}.`);
    }
    out.metric = a.metric;
  }
  if (a.operator !== undefined) {
    if (typeof a.operator !== 'string' || !(OPERATORS as readonly string[]).includes(a.operator)) {
      throw new ApiError('E4001', `operator ${show(a.operator)} is unknown; use one of ${OPERATORS.join(', ')}.`);
    }
    out.operator = a.operator as Operator;
  }
  if (a.value !== undefined) {
    if (typeof a.value !== 'number' || !Number.isFinite(a.value)) throw new ApiError('E4001', `value must be a number, got ${show(a.value)}.`);
    out.value = a.value;
  }
  if (a.consecutive !== undefined) {
    if (!Number.isInteger(a.consecutive) || (a.consecutive as number) < 1 || (a.consecutive as number) > CONSECUTIVE_MAX) {
      throw new ApiError('E4001', `consecutive must be an integer from 1 to ${CONSECUTIVE_MAX} (reports in a row), got ${show(a.consecutive)}.`);
    }
    out.consecutive = a.consecutive as number;
  }
  if (a.enabled !== undefined) {
    if (typeof a.enabled !== 'boolean') throw new ApiError('E4001', `enabled must be true or false, got ${show(a.enabled)}.`);
    out.enabled = a.enabled;
  }
  if (mode === 'create') {
    for (const k of ['metric', 'operator', 'value'] as const) {
      if (out[k] === undefined) throw new ApiError('E4001', `${k} is required; ${CONDITION_SHAPE}`);
    }
  }
  // The value's range depends on the operator and metric, old or new.
  const operator = out.operator ?? current?.operator;
  const metric = out.metric ?? current?.metric ?? '';
  const value = out.value ?? current?.value;
  if (operator === 'regression' && value !== undefined) {
    const score = higherIsBetter(metric);
    if (!(value > 0 && (score ? value < 1 : value <= 10))) {
      throw new ApiError('E4001', `value of a regression condition is the smallest relative change that matters (0.1 = 10 %): ` +
        `more than 0 and ${score ? 'less than 1 for a score' : 'at most 10'}, got ${value}.`);
    }
  }
  return out;
}

export function conditionNotFound(id: string): ApiError {
  return new ApiError('E40407', `No alert condition with ID ${show(id)} on this page; GET its performance_alert_conditions lists them.`);
}

export async function requireCondition(db: Db, accountId: string, pageId: string, id: string): Promise<AlertConditionRow> {
  const c = await getCondition(db, accountId, pageId, id);
  if (!c) throw conditionNotFound(id);
  return c;
}

export async function createCondition(db: Db, p: Principal, pageId: string, input: ConditionInput): Promise<AlertConditionRow> {
  assertOwnerRole(p, 'create alert conditions');
  const existing = await listConditions(db, p.accountId, pageId);
  if (existing.length >= CONDITIONS_PER_PAGE_MAX) {
    throw new ApiError('E4001', `This page already has ${existing.length} alert conditions, the most a page may have; delete one first.`);
  }
  const row: AlertConditionRow = {
    id: newId(),
    account_id: p.accountId,
    page_id: pageId,
    metric: input.metric!,
    operator: input.operator!,
    value: input.value!,
    consecutive: input.consecutive ?? 1,
    enabled: input.enabled === false ? 0 : 1,
    state: 'ok',
    created: clock.now(),
  };
  await insertCondition(db, row);
  return row;
}

/** Partial update. A change of what is watched (metric, operator, value) or disabling starts over from `ok`. */
export async function changeCondition(db: Db, p: Pick<Principal, 'role'>, c: AlertConditionRow, input: ConditionInput): Promise<AlertConditionRow> {
  assertOwnerRole(p, 'change alert conditions');
  const next: AlertConditionRow = {
    ...c,
    metric: input.metric ?? c.metric,
    operator: input.operator ?? c.operator,
    value: input.value ?? c.value,
    consecutive: input.consecutive ?? c.consecutive,
    enabled: input.enabled === undefined ? c.enabled : input.enabled ? 1 : 0,
  };
  const rewatched = next.metric !== c.metric || next.operator !== c.operator || next.value !== c.value || next.enabled === 0;
  if (rewatched) next.state = 'ok';
  const { id: _id, account_id: _a, page_id: _p, created: _c, ...set } = next;
  await updateCondition(db, c.id, set);
  return next;
}

/** Deletes a condition (its events stay, history); only the Owner role may. */
export async function deleteCondition(db: Db, p: Pick<Principal, 'role'>, c: AlertConditionRow): Promise<void> {
  assertOwnerRole(p, 'delete alert conditions');
  await deleteConditionRow(db, c.id);
}

/* ---------- checks ---------- */

export interface Verdict {
  holds: boolean;
  /** What was measured: the report's value, or the recent window's median for a regression. */
  value: number;
  /** What it was compared with: the condition's value, or the baseline median moved by the relative change. */
  threshold: number;
  p?: number;
}

/** Threshold: does `v` cross it? */
function crosses(op: Operator, v: number, limit: number): boolean {
  return op === 'gt' ? v > limit : op === 'gte' ? v >= limit : op === 'lt' ? v < limit : v <= limit;
}

/**
 * Regression over values newest first: the first REGRESSION.recent against up to baselineMax before them.
 * Undefined while there are fewer than recent + baselineMin values.
 */
export function regressionVerdict(values: number[], metric: string, relative: number): Verdict | undefined {
  const recent = values.slice(0, REGRESSION.recent);
  const baseline = values.slice(REGRESSION.recent, REGRESSION.recent + REGRESSION.baselineMax);
  if (recent.length < REGRESSION.recent || baseline.length < REGRESSION.baselineMin) return undefined;
  const better = higherIsBetter(metric);
  const mr = median(recent);
  const mb = median(baseline);
  const threshold = better ? mb * (1 - relative) : mb * (1 + relative);
  const bigEnough = better ? mr <= threshold && mr < mb : mr >= threshold && mr > mb;
  const p = mannWhitneyU(recent, baseline, better ? 'less' : 'greater').p;
  return { holds: bigEnough && p < REGRESSION.alpha, value: mr, threshold, p };
}

/**
 * The newest reports scored from the same structure audits as the newest (Lighthouse 12's, or 13's: the grade and
 * the structure score do not compare across them), and when older ones were left out, a note that says so.
 */
export function sameAuditSet<R extends { lighthouse_version: string | null }>(rows: readonly R[]): { rows: R[]; note: string | null } {
  const newest = rows[0]?.lighthouse_version ?? null;
  const cut = rows.findIndex((r) => !sameStructureAudits(r.lighthouse_version, newest));
  if (cut < 0) return { rows: [...rows], note: null };
  return {
    rows: rows.slice(0, cut),
    note: `The last ${plural(cut, 'report')} read the structure audits of Lighthouse ${newest ?? 'of today'}; the reports before ` +
      `read those of Lighthouse ${rows[cut]!.lighthouse_version ?? 'of an unknown version'}, which changed: only the ` +
      `${plural(cut, 'report')} since the change ${cut === 1 ? 'was' : 'were'} compared.`,
  };
}

/**
 * The newest reports whose figures compare with the newest's: those made on the same CPU (a phone's calibrated CPU
 * does not compare with the agent's own: core/reports/device-cpu.ts), and for a figure of the structure audits those
 * read from the same audits; with a note of what was left out, and why.
 */
export function comparableRows<R extends { lighthouse_version: string | null; device_cpu: string | null }>(rows: readonly R[], byAuditSet: boolean):
{ rows: R[]; note: string | null } {
  const cpu = sameCpu(rows);
  if (!byAuditSet) return cpu;
  const audits = sameAuditSet(cpu.rows);
  return { rows: audits.rows, note: [cpu.note, audits.note].filter(Boolean).join(' ') || null };
}

/** The newest reports made on the same CPU as the newest (a phone's calibrated CPU, or the agent's own), and a note when older ones were left out. */
export function sameCpu<R extends { device_cpu: string | null }>(rows: readonly R[]): { rows: R[]; note: string | null } {
  const newest = cpuBasis(rows[0]?.device_cpu);
  const cut = rows.findIndex((r) => cpuBasis(r.device_cpu) !== newest);
  if (cut < 0) return { rows: [...rows], note: null };
  return {
    rows: rows.slice(0, cut),
    note: `The last ${plural(cut, 'report')} ran on ${cpuBasisName(newest)}; the reports before ran on ` +
      `${cpuBasisName(cpuBasis(rows[cut]!.device_cpu))}, so their figures do not compare: only the ${plural(cut, 'report')} since ` +
      `the change ${cut === 1 ? 'was' : 'were'} compared.`,
  };
}

function verdictAt(c: AlertConditionRow, values: number[]): Verdict | undefined {
  if (values.length === 0) return undefined;
  if (c.operator === 'regression') return regressionVerdict(values, c.metric, c.value);
  return { holds: crosses(c.operator as Operator, values[0], c.value), value: values[0], threshold: c.value };
}

/**
 * Check the page's enabled conditions against `report` (just completed) and record each change of state as an
 * event. Returns the new events (the caller notifies them). Runs inside the caller's transaction.
 */
export async function checkConditions(db: Db, report: { id: string; page_id: string; created: number }):
  Promise<{ event: AlertEventRow; condition: AlertConditionRow }[]> {
  const now = clock.now();
  const events: { event: AlertEventRow; condition: AlertConditionRow }[] = [];
  for (const c of await enabledConditions(db, report.page_id)) {
    const window = c.operator === 'regression' ? REGRESSION.recent + REGRESSION.baselineMax : 1;
    const byAuditSet = comparesByAuditSet(c.metric);
    // One report more: whether the one before this check's window ran on another CPU (or read other structure audits).
    const fetched = await recentMetricValues(db, report.page_id, c.metric, report.created, now, window + c.consecutive);
    if (fetched[0]?.id !== report.id) continue; // the metric is not in this report (no Lighthouse run), or it is gone
    const { rows, note } = comparableRows(fetched, byAuditSet);
    const values = rows.slice(0, window + c.consecutive - 1).map((r) => r.value);
    const current = verdictAt(c, values);
    if (!current) continue;
    let next = c.state;
    if (c.state !== 'triggered' && current.holds) {
      // Triggered once the last `consecutive` checks all hold.
      let all = true;
      for (let i = 1; i < c.consecutive && all; i++) all = verdictAt(c, values.slice(i))?.holds === true;
      if (all) next = 'triggered';
    } else if (c.state === 'triggered' && !current.holds) {
      next = 'resolved';
    }
    if (next === c.state) continue;
    const event: AlertEventRow = {
      id: newId(),
      account_id: c.account_id,
      page_id: c.page_id,
      condition_id: c.id,
      report_id: report.id,
      metric: c.metric,
      value: current.value,
      threshold: current.threshold,
      state: next,
      created: now,
      note,
    };
    await insertAlertEvent(db, event);
    await updateCondition(db, c.id, { state: next === 'resolved' ? 'ok' : next });
    events.push({ event, condition: c });
  }
  return events;
}

/** A page of a page's alert events (GET /pages/{id}/performance_alert_events). */
export function listAlertEvents(db: Db, accountId: string, pageId: string, q: ListQuery): Promise<ListPage<AlertEventRow>> {
  return queryAlertEvents(db, accountId, pageId, ALERT_EVENTS_LIST, q);
}
