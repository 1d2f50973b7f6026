/**
 * The shape of two scans compared (docs/scans.md "Compare two scans"): what the rule (scan-comparison-rules.ts) reads
 * of each scan and its pages, and what it answers: the API's comparison resource, the app's screen, the gate's
 * regressions and the site alerts all read these types.
 */
import type { SiteFigure } from './figures.js';
import type { PageFigures, SiteFigures, SitePage } from './site-figures.js';

/** A figure the comparison judges: the one table's site figures. */
export type ComparedMetric = SiteFigure;

/** A page of a scan as its row keeps it (store/scans.ts), its report's figures and its runs' values. */
export interface ComparePageInput extends SitePage {
  position: number;
  state: string;
  error: string | null;
  lighthouse_version: string | null;
  /** The kept runs' values of each figure, when the page's test loaded it more than once. */
  run_values: Partial<Record<string, number[]>> | null;
}

export interface CompareScanInput {
  id: string;
  /** When the scan was started (ms). */
  created: number;
  url: string;
  site: string | null;
  state: string;
  /** The test options that change figures, as the API names and gives them (null: not set). */
  conditions: Readonly<Record<string, string | number | null>>;
  figures: SiteFigures | null;
  pages: readonly ComparePageInput[];
}

export type Verdict = 'worse' | 'better' | 'unchanged';
export type Basis = 'test' | 'threshold';

/** Why a page or a template is worse or better: one figure's change. */
export interface Reason {
  metric: ComparedMetric | 'grade';
  direction: 'worse' | 'better';
  basis: Basis;
  /** The figures compared: the reports' (the medians of the runs under a test, of the pages for a template); a grade's letters. */
  before: number | string;
  after: number | string;
  /** after − before; for the grade, letters fallen (negative: risen). */
  change: number;
  /** The least change that counted. */
  threshold: number;
  /** The test's one-sided p, and the values on each side (runs of a page, pages of a template). */
  p?: number;
  n?: [number, number];
  /** "LCP 1.80 s → 2.90 s" */
  text: string;
  /** "+1.10 s, threshold 500 ms" or "Mann-Whitney p = 0.004 over 5 and 5 runs" */
  why: string;
}

export interface PageSide extends PageFigures {
  report: string | null;
  lighthouse_version: string | null;
  /** The runs behind the figures (1 when the page was loaded once). */
  runs: number;
}

export interface ComparedPage {
  url: string;
  template: string;
  verdict: Verdict;
  /** test: its figures were tested over their runs; threshold: one run a side (or too few runs for the test). */
  basis: Basis;
  before: PageSide;
  after: PageSide;
  /** after − before of each figure (null where a side has none); grade: letters fallen (null: not compared). */
  changes: Record<ComparedMetric, number | null> & { grade: number | null };
  /** Worse first, then better. */
  reasons: Reason[];
}

export interface OtherPage {
  url: string;
  template: string;
  state: string;
  error: string | null;
  side: PageSide;
}

export interface FailedPage {
  url: string;
  template: string;
  before: { state: string; error: string | null; report: string | null };
  after: { state: string; error: string | null; report: string | null };
}

export interface ComparedTemplate {
  template: string;
  /** Matched pages of the template. */
  pages: number;
  verdict: Verdict;
  reasons: Reason[];
}

/** A site figure of both scans (`figures`), side by side. */
export interface SiteFigureRow {
  figure: string;
  label: string;
  unit: 'score' | 'ms' | 'cls' | 'count';
  better: 'higher' | 'lower';
  before: number | null;
  after: number | null;
  change: number | null;
}

export interface ScanComparison {
  /** What a reader must know first: different test options, Lighthouse versions, sites, order, a cancelled scan. */
  notes: string[];
  /** Whether grades were compared on every matched page (false: some pages' reports read different structure audits). */
  grades_compared: boolean;
  counts: { matched: number; worse: number; better: number; unchanged: number; new: number; gone: number; failed: number };
  figures: { before: SiteFigures | null; after: SiteFigures | null };
  site_figures: SiteFigureRow[];
  /** Matched pages: worse first (the most reasons first), then better, then unchanged, each in the after scan's order. */
  pages: ComparedPage[];
  /** Only in the after scan, and only in the before scan. */
  new_pages: OtherPage[];
  gone_pages: OtherPage[];
  /** In both scans, not measured in one of them (failed, or cancelled). */
  failed_pages: FailedPage[];
  /** Templates of the matched pages: worse first. */
  templates: ComparedTemplate[];
  rules: {
    alpha: number;
    thresholds: Record<ComparedMetric, number>;
    grade_letters: number;
    tested_share: number;
    template_test_min_pages: number;
  };
}
