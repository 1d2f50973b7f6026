/**
 * Scheduled scans in the app (docs/scans.md "Scheduled scans"): "Repeat" on the New scan form (Once starts a scan by
 * POST /scans' rules; a frequency makes a schedule by POST /scan_schedules' rules, its first scan started now), and
 * the account's schedules on the Scans screen: each one's site, frequency, next scan, last scan, the last slot that
 * was skipped and why, with Pause or Resume and Delete. Every rule is core's (core/scans/scan-schedules.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mayChange } from '../../core/accounts/roles.js';
import { ApiError } from '../../core/errors.js';
import { couldBeId } from '../../core/ids.js';
import type { Attrs, OptionsContext } from '../../core/options/options.js';
import { parseScanRequest } from '../../core/scans/scan-request.js';
import {
  changeScanSchedule, createScanSchedule, listScanSchedules, parseScheduleRequest, removeScanSchedule, scheduleNotFound, scheduleViews,
  type ScheduleView,
} from '../../core/scans/scan-schedules.js';
import { requestScan } from '../../core/scans/scans.js';
import { FREQUENCIES, frequencySpec, type Frequency, type FrequencySpec } from '../../core/vocabulary/frequencies.js';
import { actionButton, errorScreen, esc, formField, seeOther, selected, type WebKit } from '../kit.js';
import type { FormFields, Visitor } from '../session.js';
import { utcMinute } from './figures.js';
import { deviceLabel, STATE_NAMES } from './scan-view.js';

/** The Repeat menu's value for a scan started once. */
export const ONCE = 'once';

/** "Repeat": Once, then the frequencies of the plan (the frequencies table's labels); the field carries the API's `frequency`. */
export function repeatField(v: Visitor, form: FormFields): string {
  const plan = v.principal.plan;
  const chosen = form.get('frequency') ?? ONCE;
  const offered = FREQUENCIES.filter((f: FrequencySpec) => f.every !== undefined && (f.planFlag === undefined || plan[f.planFlag]));
  const options = [`<option value="${ONCE}"${selected(chosen === ONCE)}>Once</option>`,
    ...offered.map((f) => `<option value="${f.name}"${selected(chosen === f.name)}>${f.label}</option>`)].join('');
  return formField('f-frequency', 'Repeat', (d) => `<select id="f-frequency" name="frequency"${d}>${options}</select>`,
    'Once: one scan now. Otherwise one now, then again at that interval with the same settings (so the same pages), each reserving its credits');
}

/**
 * The New scan form sent, as the API's attributes: Once (or no Repeat) starts a scan as POST /scans does; a frequency
 * makes a schedule as POST /scan_schedules does. The ID of the scan started now.
 */
export async function startFromForm(kit: WebKit, v: Visitor, attrs: Attrs, repeat: string | undefined): Promise<string> {
  const { ctx } = kit;
  const parsing: OptionsContext = { plan: v.principal.plan, catalog: ctx.catalog, defaultLocation: ctx.catalog.defaultLocation,
    defaultBrowser: ctx.catalog.defaultBrowser };
  if (repeat === undefined || repeat === ONCE) {
    const { devices, settings } = parseScanRequest(attrs, parsing);
    return (await requestScan(ctx.intake, v.principal, devices, settings)).scan.id;
  }
  const { started } = await createScanSchedule(ctx.intake, v.principal, parseScheduleRequest({ ...attrs, frequency: repeat }, parsing));
  return started.scan.id;
}

const timeTag = (t: number) => `<time datetime="${new Date(t).toISOString()}">${esc(utcMinute(t))}</time>`;
const frequencyLabel = (f: string) => (FREQUENCIES.some((x) => x.name === f) ? frequencySpec(f as Frequency).label : f);

function scheduleRow(v: Visitor, s: ScheduleView): string {
  const next = s.nextRun === null ? '<span class="muted">Paused</span>' : timeTag(s.nextRun);
  const last = s.lastScanId === null ? '<span class="muted">none yet</span>'
    : s.lastScanState === null ? '<span class="muted">no longer kept</span>'
      : `<a href="/scans/${esc(s.lastScanId)}">${esc(STATE_NAMES[s.lastScanState] ?? s.lastScanState)}</a>`;
  const skipped = s.skippedAt !== null && s.skipReason
    ? `${timeTag(s.skippedAt)}<span class="schedule-skip">${esc(s.skipReason)}</span>` : '<span class="muted">–</span>';
  const what = `${s.url} (${frequencyLabel(s.frequency).toLowerCase()})`;
  // Under the site, so that a narrow screen shows them without scrolling the table sideways.
  const actions = mayChange(v.principal)
    ? `<div class="schedule-actions">${s.nextRun === null
      ? actionButton(v, `/scan_schedules/${s.id}/resume`, 'Resume', { style: 'secondary small', name: `Resume ${what}` })
      : actionButton(v, `/scan_schedules/${s.id}/pause`, 'Pause', { style: 'secondary small', name: `Pause ${what}` })}` +
      actionButton(v, `/scan_schedules/${s.id}/delete`, 'Delete', { style: 'danger small', name: `Delete ${what}`,
        confirm: `Delete the schedule of ${s.url}? No more scans of it start; its scans stay.` }) + '</div>'
    : '';
  return `<tr><td class="url">${esc(s.url)}${actions}</td><td>${esc(s.devices.map(deviceLabel).join(', '))}</td>` +
    `<td>${esc(frequencyLabel(s.frequency))}</td><td>${next}</td><td>${last}</td>` +
    `<td class="schedule-skipped">${skipped}</td></tr>`;
}

/** The account's schedules (all of them, newest first). */
export async function schedulesPart(kit: WebKit, v: Visitor): Promise<string> {
  const { store } = kit.ctx;
  const views = await scheduleViews(store, await listScanSchedules(store, v.principal.accountId));
  let content: string;
  if (views.length === 0) {
    content = `<div class="card"><p class="scan-empty">No scan repeats yet.${mayChange(v.principal)
      ? ' Pick a frequency under Repeat to scan a site again and again.' : ''}</p></div>`;
  } else {
    content = `<div class="card tablewrap"><table class="list schedules-list"><thead><tr><th scope="col">Site</th><th scope="col">Devices</th>` +
      `<th scope="col">Repeat</th>` +
      `<th scope="col">Next scan (UTC)</th><th scope="col">Last scan</th><th scope="col">Last skipped</th></tr></thead>` +
      `<tbody>${views.map((s) => scheduleRow(v, s)).join('')}</tbody></table></div>`;
  }
  return `<section id="schedules" class="scan-schedules" aria-labelledby="scan-schedules-h"><h2 id="scan-schedules-h">Scheduled scans</h2>${content}</section>`;
}

export function registerScanScheduleScreens(kit: WebKit): void {
  const { ctx } = kit;
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;
  /** A missing schedule's screen says "Scan schedule not found" (the API's E40400 is titled for tests). */
  const act = (run: (v: Visitor, id: string) => Promise<unknown>) =>
    async (req: FastifyRequest, reply: FastifyReply, v: Visitor, _form: FormFields, nonce: string) => {
      try {
        if (!couldBeId(idOf(req))) throw scheduleNotFound(idOf(req));
        await run(v, idOf(req));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return errorScreen(reply, v, nonce, 404, 'Scan schedule not found', err.detail ?? err.title);
        throw err;
      }
      return seeOther(reply, '/scans#schedules');
    };
  kit.action('/scan_schedules/:id/pause', act((v, id) => changeScanSchedule(ctx.store, v.principal, id, { paused: true })));
  kit.action('/scan_schedules/:id/resume', act((v, id) => changeScanSchedule(ctx.store, v.principal, id, { paused: false })));
  kit.action('/scan_schedules/:id/delete', act((v, id) => removeScanSchedule(ctx.store, v.principal, id)));
}
