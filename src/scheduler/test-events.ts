/**
 * What follows a finished test, for every test of every source (API, on-demand, monitored): the page's alert
 * conditions are checked against the new report (core/alerts/alerts.ts), and the notifications are queued in the
 * outbox (webhooks test.completed / test.error / alert.*, alert e-mails) for the dispatcher to send.
 *
 * A finished test carries `events_pending` (set in the transaction that completes or fails it); this job takes
 * the mark in the same transaction as the checks and the queued deliveries, so each test is followed up exactly
 * once, across processes and restarts. A failure here never touches the test or its report.
 */
import { checkConditions, type AlertConditionRow, type AlertEventRow } from '../core/alerts/alerts.js';
import { clock } from '../core/clock.js';
import type { ReportRow } from '../core/reports/reports.js';
import type { TestRow } from '../core/tests/tests.js';
import { alertMail, type MailMessage } from '../notify/email.js';
import { queueEmail, queueWebhookEvent } from '../notify/outbox.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { getValidReport } from '../store/reports.js';
import { takePendingEvents, testsWithPendingEvents } from '../store/tests.js';
import { PeriodicJob } from '../lib/periodic-job.js';

/** The JSON:API resources and links that payloads and e-mails carry (built by api/, which owns the shapes). */
export interface EventResources {
  test(t: TestRow): unknown;
  report(r: ReportRow): Promise<unknown>;
  alertEvent(e: AlertEventRow): unknown;
  links(): { report(id: string): string; reportPage(id: string): string; page(id: string): string };
}

export interface TestEventsOptions {
  store: Store;
  resources: EventResources;
  /** Alert e-mail is queued only when SMTP is configured. */
  email: boolean;
  /** Called after deliveries were queued (wakes the dispatcher). */
  queued?: () => void;
  log?: { error(obj: object, msg: string): void };
  intervalMs?: number;
  /** Told of each finished test this job followed up (exactly once across processes): the metrics count it. */
  finished?: (t: TestRow) => void;
}

const BATCH = 20;

export class TestEventsJob extends PeriodicJob<number> {
  constructor(private readonly o: TestEventsOptions) {
    super({ intervalMs: o.intervalMs ?? 2000, log: o.log, failure: 'test follow-ups failed', outages: o.store.health });
  }

  /** Follow up every finished test waiting; resolves with how many. */
  drain(): Promise<number> {
    return this.run();
  }

  protected async runOnce(): Promise<number> {
    let done = 0;
    for (let round = 0; round < 10; round++) {
      const tests = await testsWithPendingEvents(this.o.store.db, BATCH);
      for (const t of tests) {
        try {
          if (await this.follow(t)) {
            done++;
            this.o.finished?.(t);
          }
        } catch (err) {
          // Never loop on one test: its follow-ups are dropped, logged, and the rest go on.
          this.o.log?.error({ err, testId: t.id }, 'alert checks or notifications of a finished test failed; skipped');
          await this.o.store.db.transaction().execute((trx) => takePendingEvents(trx, t.id));
        }
      }
      if (tests.length < BATCH) break;
    }
    if (done > 0) this.o.queued?.();
    return done;
  }

  private async follow(t: TestRow): Promise<boolean> {
    const { store, resources } = this.o;
    // Everything read outside the transaction first (SQLite has one connection).
    const report = t.state === 'completed' && t.report_id ? await getValidReport(store.db, t.report_id, clock.now()) : undefined;
    const payload = report ? await resources.report(report) : t.state === 'error' ? resources.test(t) : undefined;
    const account = this.o.email && report ? await accountById(store.db, t.account_id) : undefined;
    return store.db.transaction().execute(async (trx) => {
      if (!(await takePendingEvents(trx, t.id))) return false;
      if (t.state === 'error') {
        await queueWebhookEvent(trx, t.account_id, 'test.error', payload);
        return true;
      }
      if (!report) return true;
      await queueWebhookEvent(trx, t.account_id, 'test.completed', payload);
      const events = await checkConditions(trx, report);
      const links = resources.links();
      for (const { event: e, condition } of events) {
        await queueWebhookEvent(trx, t.account_id, e.state === 'triggered' ? 'alert.triggered' : 'alert.resolved', resources.alertEvent(e));
        if (account) await queueEmail(trx, t.account_id, `alert.${e.state}`, this.mail(account.email, report, e, condition, links));
      }
      return true;
    });
  }

  private mail(to: string, report: ReportRow, e: AlertEventRow, c: AlertConditionRow, links: ReturnType<EventResources['links']>): MailMessage {
    return alertMail({
      to, state: e.state, pageUrl: report.url, metric: e.metric, operator: c.operator, value: e.value, threshold: e.threshold, conditionValue: c.value,
      note: e.note,
      reportLink: links.report(report.id), reportPageLink: links.reportPage(report.id), pageLink: links.page(report.page_id),
    });
  }
}
