/**
 * The report types of a test (spec 4.1 `report`): the one table. The options parser, stored options, the
 * API's description and the app's report menu read it.
 */
import { orList } from '../../lib/words.js';

export interface ReportTypeSpec {
  name: string;
  /** As the app's report menu shows it. */
  label: string;
  /** Position in the app's menu (1 first). */
  menu: number;
  /** What POST /tests gives when `report` is not given, with a browser that runs Lighthouse. */
  default?: true;
  /** The same with a browser that runs no Lighthouse (Firefox): its test runs the legacy kind. */
  defaultWithoutLighthouse?: true;
}

export const REPORT_TYPES = [
  { name: 'lighthouse', label: 'Lighthouse', menu: 1, default: true },
  { name: 'legacy', label: 'Legacy only', menu: 3, defaultWithoutLighthouse: true },
  { name: 'lighthouse,legacy', label: 'Lighthouse and legacy (PageSpeed, YSlow)', menu: 2 },
  { name: 'none', label: 'Metrics only (no report)', menu: 4 },
] as const satisfies readonly ReportTypeSpec[];

export type ReportType = (typeof REPORT_TYPES)[number]['name'];

/** The names in the API's order: lighthouse, legacy, lighthouse,legacy, none. */
export const REPORT_TYPE_NAMES: readonly ReportType[] = REPORT_TYPES.map((r) => r.name);

export const DEFAULT_REPORT_TYPE: ReportType = REPORT_TYPES.find((r: ReportTypeSpec) => r.default)!.name;

/** The report type of a test that names none, by whether its browser runs Lighthouse (its `lighthouse` flag). */
export function defaultReportType(lighthouse: boolean): ReportType {
  return lighthouse ? DEFAULT_REPORT_TYPE : REPORT_TYPES.find((r: ReportTypeSpec) => r.defaultWithoutLighthouse)!.name;
}

/** Whether a report type has Lighthouse's part (its audits, scores and resources): lighthouse, lighthouse,legacy. */
export const hasLighthouse = (report: string): boolean => report.includes('lighthouse');

/** "lighthouse, legacy, lighthouse,legacy or none", as the API's messages list them. */
export const REPORT_TYPE_WORDS = orList(REPORT_TYPE_NAMES);

/** The app's menu order. */
export const REPORT_TYPE_MENU: readonly ReportTypeSpec[] = [...REPORT_TYPES].sort((a, b) => a.menu - b.menu);
