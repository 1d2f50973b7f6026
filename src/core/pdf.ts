/**
 * report.pdf (spec 4.2, 7, 8): our own report page rendered to PDF by Chromium, on request.
 *
 * - Plan: a plan without PDFs is 403 E40301, without full PDFs (`full=1`) 403 E40302; the Viewer role is
 *   refused before this (403 E40301, api/routes/reports.ts).
 * - Credits: 0.2 for the PDF, 0.3 for the full PDF (PDF_COST, FULL_PDF_COST), charged when a generation starts
 *   (402 E40201 when the balance is short) and refunded if it fails. The file is kept with the report's other
 *   files, so asking again, by anyone holding the key, serves it without charging again.
 * - Parallel limit: an account may have `plan.parallelPdfs` generations running; one more is 429 E42903. A
 *   request for a PDF already being generated joins that generation instead (and is not charged).
 * - Slow generation: a request waits up to `waitMs` for the file; past that it is answered with a redirect to
 *   its own URL (the route sends 302), and the follow-up request waits again or gets the file.
 * - Failure: 500 E50001 for the request waiting on it, or for the next request for that PDF within a minute
 *   (the one following a redirect); after that, asking again starts (and charges) a new generation.
 * - No browser to render with: 404 E40407 (PDF unavailable), nothing charged.
 * Generations run in this process: the parallel limit and the joining are per API process.
 */
import { access, constants } from 'node:fs/promises';
import type { ArtifactStore } from '../artifacts/store.js';
import type { Store } from '../store/db.js';
import { adjustCredits, fromTenths, refilledCredits, tenths, type Principal } from './accounts.js';
import { ApiError } from './errors.js';
import { FULL_PDF_COST, PDF_COST } from './pricing.js';
import { ARTIFACT, artifactKey, type ReportRow } from './reports.js';

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
  accountId: string;
  promise: Promise<Buffer>;
  /** Set when the generation failed: kept for a minute so the redirected follow-up learns of it. */
  failedAt?: number;
}

const FAILURE_MEMORY_MS = 60_000;

export class PdfService {
  private readonly generations = new Map<string, Generation>();

  constructor(private readonly o: PdfServiceOptions) {}

  /** PDF generations running now for an account. */
  running(accountId: string): number {
    let n = 0;
    for (const g of this.generations.values()) if (g.accountId === accountId && g.failedAt === undefined) n++;
    return n;
  }

  async request(principal: Principal, report: ReportRow, full: boolean, pageUrl: string, log: PdfLog): Promise<PdfAnswer> {
    const { plan } = principal;
    if (!plan.pdf) throw new ApiError('E40301', `The ${plan.name} plan does not include PDF reports.`);
    if (full && !plan.fullPdf) {
      throw new ApiError('E40302', `The ${plan.name} plan does not include full PDF reports; ask for report.pdf without full=1.`);
    }
    const key = artifactKey(report.id, ARTIFACT.pdf(full));
    const kept = await this.o.artifacts.get(key);
    if (kept) return { kind: 'file', data: kept };

    let generation = this.generations.get(key);
    if (generation?.failedAt !== undefined) {
      this.generations.delete(key);
      if (Date.now() - generation.failedAt < FAILURE_MEMORY_MS) {
        throw new ApiError('E50001', 'The PDF could not be generated; the credits were refunded. Ask again to retry.');
      }
      generation = undefined;
    }
    if (!generation) generation = await this.start(principal, report, full, key, pageUrl, log);
    return this.wait(key, generation);
  }

  private async start(principal: Principal, report: ReportRow, full: boolean, key: string, pageUrl: string, log: PdfLog):
    Promise<Generation> {
    const { plan } = principal;
    if (this.running(principal.accountId) >= plan.parallelPdfs) {
      throw new ApiError('E42903', `The ${plan.name} plan generates ${plan.parallelPdfs} PDF${plan.parallelPdfs > 1 ? 's' : ''} ` +
        'at a time; ask again when the current PDF requests have completed.');
    }
    try {
      await access(this.o.chromePath, constants.X_OK);
    } catch {
      throw new ApiError('E40407', 'PDF reports are unavailable on this server: it has no browser to render them with.');
    }
    const cost = tenths(full ? FULL_PDF_COST : PDF_COST);
    const { store } = this.o;
    await store.db.transaction().execute(async (trx) => {
      if (store.engine === 'postgres') {
        await trx.selectFrom('accounts').select('id').where('id', '=', principal.accountId).forUpdate().execute();
      }
      const credits = await refilledCredits(trx, principal.accountId);
      if (credits.tenths < cost) {
        throw new ApiError('E40201', `A ${full ? 'full ' : ''}PDF report costs ${fromTenths(cost)} credits and the account ` +
          `has ${fromTenths(credits.tenths)}; credits refill at ${new Date(credits.nextRefill).toISOString()}.`);
      }
      await adjustCredits(trx, principal.accountId, -cost);
    });
    // Another request may have started the same PDF while we were charging: join it and give ours back.
    const raced = this.generations.get(key);
    if (raced && raced.failedAt === undefined) {
      await adjustCredits(store.db, principal.accountId, cost);
      return raced;
    }

    const generation: Generation = {
      accountId: principal.accountId,
      promise: (async () => {
        const data = await this.o.render(report, full, pageUrl);
        await this.o.artifacts.put(key, data);
        return data;
      })(),
    };
    this.generations.set(key, generation);
    generation.promise.then(
      () => this.generations.delete(key),
      async () => {
        generation.failedAt = Date.now();
        await adjustCredits(store.db, principal.accountId, cost).catch((err: unknown) =>
          // The account keeps the charge for a PDF it did not get: the operator must be able to find and fix it.
          log.error({ err, account: principal.accountId, credits: fromTenths(cost), report: report.id },
            'refunding a failed PDF generation failed'));
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
      throw new ApiError('E50001', 'The PDF could not be generated; the credits were refunded. Ask again to retry.');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for every running generation (server shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.generations.values()].map((g) => g.promise));
  }
}
