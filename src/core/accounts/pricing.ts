/**
 * Credit prices (spec part 8). Prices are kept in integer tenths of a credit so that sums such as
 * 1.1 + 0.9 + 1.8 do not drift (0.1 has no exact binary form); only the returned value is a decimal.
 */
import { runCount, type AnalysisOptions, type ReportType, type Retention } from '../options/analysis-options.js';
import { measurementsPerRun } from '../options/journey.js';

const REPORT_TENTHS: Record<ReportType, number> = {
  lighthouse: 10,
  legacy: 7,
  'lighthouse,legacy': 11,
  none: 6,
};

/** One month is included; longer retention costs extra. */
const RETENTION_TENTHS: Record<Retention, number> = { 1: 0, 6: 4, 12: 9, 24: 18 };

const VIDEO_TENTHS = 9;

/** Credits charged when a PDF report is requested. */
export const PDF_COST = 0.2;
/** Credits charged when a full PDF report is requested. */
export const FULL_PDF_COST = 0.3;

/** The price of a test in tenths of a credit (an integer), for callers that keep balances in tenths. */
type Priced = Pick<AnalysisOptions, 'report' | 'video' | 'retention' | 'runs' | 'journey'>;

export function testCostTenths(o: Priced): number {
  const report = REPORT_TENTHS[o.report];
  const retention = RETENTION_TENTHS[o.retention];
  // Options come normalised from parseTestAttributes; anything else is a programming error.
  if (report === undefined || retention === undefined) {
    throw new Error(`testCost: unnormalised options (report ${String(o.report)}, retention ${String(o.retention)})`);
  }
  // Each run (and each measured step of a journey's run) is a test's worth of work; the video is of the one run the
  // report shows, so it is charged once.
  return (report + retention) * runCount(o) * measurementsPerRun(o) + (o.video === 1 ? VIDEO_TENTHS : 0);
}

/** The credits a test costs, rounded to one decimal (e.g. 3.8 for lighthouse + video + 24 months). */
export function testCost(o: Priced): number {
  return Math.round(testCostTenths(o)) / 10;
}
