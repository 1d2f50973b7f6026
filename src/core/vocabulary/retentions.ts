/**
 * How long a report is kept (spec 4.1 `retention`, months): the one table. The options parser, stored options,
 * the API's schema and the app's menu read it.
 */
import { orList } from '../../lib/words.js';

export interface RetentionSpec {
  months: number;
  /** What POST /tests gives when `retention` is not given. */
  default?: true;
}

export const RETENTIONS = [
  { months: 1, default: true },
  { months: 6 },
  { months: 12 },
  { months: 24 },
] as const satisfies readonly RetentionSpec[];

export type Retention = (typeof RETENTIONS)[number]['months'];

/** 1, 6, 12, 24. */
export const RETENTION_MONTHS: readonly Retention[] = RETENTIONS.map((r) => r.months);

export const DEFAULT_RETENTION: Retention = RETENTIONS.find((r: RetentionSpec) => r.default)!.months as Retention;

/** "1, 6, 12 or 24". */
export const RETENTION_WORDS = orList(RETENTION_MONTHS);

/** As the app's menu shows a retention: "1 month", "6 months". */
export const retentionLabel = (months: number): string => `${months} month${months === 1 ? '' : 's'}`;
