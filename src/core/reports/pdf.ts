/**
 * report.pdf (spec 4.2, 7, 8): our own report page rendered to PDF by Chromium, on request.
 *
 * - Role and plan: the Viewer role is refused first (403 E40301: a PDF spends credits), then a plan without PDFs
 *   (403 E40301) and one without full PDFs (`full=1`, 403 E40302).
 * - Credits: 0.2 for the PDF, 0.3 for the full PDF (PDF_COST, FULL_PDF_COST), charged when a generation starts
 *   (402 E40201 when the balance is short) and refunded if it fails. The file is kept with the report's other
 *   files, so asking again, by anyone holding the key, serves it without charging again.
 * - Parallel limit: an account may have `plan.parallelPdfs` generations running; one more is 429 E42903. A
 *   request for a PDF already being generated joins that generation instead (and is not charged). Both hold
 *   across API processes sharing the database: a generation's slot is a row of pdf_generations (migration 004),
 *   taken in the transaction that charges it, renewed while it runs, deleted when it ends; the row of a process
 *   that died stops counting SLOT_TTL_MS after its last renewal.
 * - Slow generation: a request waits up to `waitMs` for the file; past that it is answered with a redirect to
 *   its own URL (the route sends 302), and the follow-up request waits again or gets the file.
 * - Failure: 500 E50001 for the request waiting on it, or for the next request for that PDF within a minute
 *   (the one following a redirect); after that, asking again starts (and charges) a new generation.
 * - No browser to render with: 404 E40407 (PDF unavailable), nothing charged.
 */
import { access, constants } from 'node:fs/promises';
import type { ArtifactStore } from '../../artifacts/store.js';
import type { Store } from '../../store/db.js';
import { adjustCredits, fromTenths, spendCredits, tenths, type Principal } from '../accounts/accounts.js';
import { clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { assertOwnerRole } from '../accounts/roles.js';
import { newId } from '../ids.js';
import { FULL_PDF_COST, PDF_COST } from '../accounts/pricing.js';
import { ARTIFACT, artifactKey, type ReportRow } from './reports.js';
import { countPdfSlots, freePdfSlot, lockAccount, pdfSlotExpiry, renewPdfSlot, takePdfSlot } from '../../store/locks.js';

/** Where a generation's failures that no request can answer for (a refund that did not go through) are logged. */
export interface PdfLog {
  error(obj: object, msg: string): void;
}

/** Renders a report to PDF; `pageUrl` is the report's public page, printed in the footer when it is absolute. */
export type PdfRenderer = (report: ReportRow, full: boolean, pageUrl: string) => Promise<Buffer>;

export interface PdfServiceOptions {
  store: Store;
  artifacts: ArtifactStore;
  render: PdfRenderer;
  /** The browser the renderer launches; its absence makes PDFs unavailable (E40407). */
  chromePath: string;
  /** How long a request waits for a generation before it is redirected to try again. */
  waitMs: number;
}

export type PdfAnswer = { kind: 'file'; data: Buffer } | { kind: 'pending' };

interface Generation {
  promise: Promise<Buffer>;
  /** Settles once the generation's bookkeeping (slot freed, refund) is done too. */
  settled?: Promise<void>;
  /** Set when the generation failed: kept for a minute so the redirected follow-up learns of it. */
  failedAt?: number;
}

const FAILURE_MEMORY_MS = 60_000;
/** A generation's slot row lives this long past its last renewal (a process that died frees it then). */
export const SLOT_TTL_MS = 60_000;
const SLOT_RENEW_MS = SLOT_TTL_MS / 3;
/** How often a request waiting on another process's generation looks for the file. */
const ELSEWHERE_POLL_MS = 200;

const failed = () => new ApiError('E50001', 'The PDF could not be generated; the credits were refunded. Ask again to retry.');

export class PdfService {
  /** Generations this process runs (and, for a minute, those that failed). */
  private readonly generations = new Map<string, Generation>();
  /** Starts in progress, so that a second request for the same PDF in this process waits and joins. */
  private readonly starting = new Map<string, Promise<unknown>>();

  constructor(private readonly o: PdfServiceOptions) {}

  async request(principal: Principal, report: ReportRow, full: boolean, pageUrl: string, log: PdfLog): Promise<PdfAnswer> {
    assertOwnerRole(principal, 'create PDF reports');
    const { plan } = principal;
    if (!plan.pdf) throw new ApiError('E40301', `The ${plan.name} plan does not include PDF reports.`);
    if (full && !plan.fullPdf) {
      throw new ApiError('E40302', `The ${plan.name} plan does not include full PDF reports; ask for report.pdf without full=1.`);
    }
    const key = artifactKey(report.id, ARTIFACT.pdf(full));
    for (;;) {
      const kept = await this.o.artifacts.get(key);
      if (kept) return { kind: 'file', data: kept };

      const generation = this.generations.get(key);
      if (generation?.failedAt !== undefined) {
        this.generations.delete(key);
        if (Date.now() - generation.failedAt < FAILURE_MEMORY_MS) throw failed();
      } else if (generation) {
        return this.wait(key, generation);
      }
      const pending = this.starting.get(key);
      if (pending) {
        await pending.catch(() => undefined);
        continue;
      }
      const start = this.start(principal, report, full, key, pageUrl, log);
      this.starting.set(key, start);
      let started: Generation | 'elsewhere';
      try {
        started = await start;
      } finally {
        this.starting.delete(key);
      }
      if (started !== 'elsewhere') return this.wait(key, started);
      const answer = await this.waitElsewhere(key);
      if (answer !== 'abandoned') return answer;
    }
  }

  /**
   * Take a slot and charge for it in one transaction, then start rendering. 'elsewhere' when another process is
   * generating this PDF already (nothing charged).
   */
  private async start(principal: Principal, report: ReportRow, full: boolean, key: string, pageUrl: string, log: PdfLog):
    Promise<Generation | 'elsewhere'> {
    const { plan } = principal;
    try {
      await access(this.o.chromePath, constants.X_OK);
    } catch {
      throw new ApiError('E40407', 'PDF reports are unavailable on this server: it has no browser to render them with.');
    }
    const cost = tenths(full ? FULL_PDF_COST : PDF_COST);
    const { store } = this.o;
    const token = newId();
    const charged = await store.db.transaction().execute(async (trx) => {
      // PostgreSQL: the account row lock puts the slot count and the charge of concurrent requests in a row.
      // SQLite: the first statement writes, so the transaction holds the one write lock from its start.
      await lockAccount(trx, store.engine, principal.accountId);
      const now = clock.now();
      if (!(await takePdfSlot(trx, key, principal.accountId, token, now, now + SLOT_TTL_MS))) return undefined;
      if ((await countPdfSlots(trx, principal.accountId, now)) > plan.parallelPdfs) {
        throw new ApiError('E42903', `The ${plan.name} plan generates ${plan.parallelPdfs} PDF${plan.parallelPdfs > 1 ? 's' : ''} ` +
          'at a time; ask again when the current PDF requests have completed.', { 'Retry-After': '5' });
      }
      return (await spendCredits(trx, principal, cost, `A ${full ? 'full ' : ''}PDF report`)).chargedTenths;
    });
    if (charged === undefined) return 'elsewhere';

    const renewer = setInterval(() => {
      renewPdfSlot(store.db, key, token, clock.now() + SLOT_TTL_MS)
        .catch((err: unknown) => log.error({ err, account: principal.accountId, report: report.id }, 'renewing a PDF slot failed'));
    }, SLOT_RENEW_MS);
    renewer.unref();
    const generation: Generation = {
      promise: (async () => {
        const data = await this.o.render(report, full, pageUrl);
        await this.o.artifacts.put(key, data);
        return data;
      })(),
    };
    this.generations.set(key, generation);
    const freeSlot = async () => {
      clearInterval(renewer);
      // After the file is stored (or the refund made): whoever sees the slot gone finds the outcome.
      await freePdfSlot(store.db, key, token)
        .catch((err: unknown) => log.error({ err, account: principal.accountId, report: report.id }, 'freeing a PDF slot failed'));
    };
    generation.settled = generation.promise.then(
      async () => {
        this.generations.delete(key);
        await freeSlot();
      },
      async () => {
        generation.failedAt = Date.now();
        if (charged > 0) await adjustCredits(store.db, principal.accountId, charged).catch((err: unknown) =>
          // The account keeps the charge for a PDF it did not get: the operator must be able to find and fix it.
          log.error({ err, account: principal.accountId, credits: fromTenths(charged), report: report.id },
            'refunding a failed PDF generation failed'));
        await freeSlot();
        setTimeout(() => {
          if (this.generations.get(key) === generation) this.generations.delete(key);
        }, FAILURE_MEMORY_MS).unref();
      },
    );
    return generation;
  }

  private async wait(key: string, generation: Generation): Promise<PdfAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), this.o.waitMs)));
    try {
      const outcome = await Promise.race([generation.promise, timeout]);
      if (outcome === 'pending') return { kind: 'pending' };
      return { kind: 'file', data: outcome };
    } catch {
      // This request reports the failure: the next one starts afresh.
      if (this.generations.get(key) === generation) this.generations.delete(key);
      throw failed();
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Another process generates this PDF: wait for its file up to `waitMs`. Its slot gone without a file means it
   * failed (that process refunded the charge); its slot expired means that process died ('abandoned': start anew).
   */
  private async waitElsewhere(key: string): Promise<PdfAnswer | 'abandoned'> {
    const deadline = Date.now() + this.o.waitMs;
    for (;;) {
      const slotExpires = await pdfSlotExpiry(this.o.store.db, key);
      const data = await this.o.artifacts.get(key);
      if (data) return { kind: 'file', data };
      if (slotExpires === undefined) throw failed();
      if (slotExpires <= clock.now()) return 'abandoned';
      if (Date.now() >= deadline) return { kind: 'pending' };
      await new Promise((resolve) => setTimeout(resolve, Math.min(ELSEWHERE_POLL_MS, Math.max(0, deadline - Date.now()))));
    }
  }

  /** Waits for every running generation (server shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.generations.values()].map((g) => g.settled));
  }
}
