/**
 * The monitoring frequencies (spec 4.3): the one table. The API's enums and request pattern, core's parser, slot
 * grid and plan check, the report list's `monitored` filter check and the app's monitoring menu read it.
 */
import { orList } from '../../lib/words.js';

const HOUR = 3_600_000;

export interface FrequencySpec {
  /** The word the API and the pages table use. */
  name: string;
  /** Other spellings POST .../performance_monitor accepts for it. */
  aliases: readonly string[];
  /** As the app's monitoring menu shows it. */
  label: string;
  /** The slot interval: fixed milliseconds, or calendar months. Absent: not monitored. */
  every?: { ms: number } | { months: number };
  /** Offered only on plans with this flag ("hourly may be unavailable on the plan": 403 E40303). */
  planFlag?: 'hourlyMonitoring';
}

export const FREQUENCIES = [
  { name: 'no', aliases: ['none'], label: 'Off' },
  { name: 'hourly', aliases: [], label: 'Hourly', every: { ms: HOUR }, planFlag: 'hourlyMonitoring' },
  { name: 'daily', aliases: [], label: 'Daily', every: { ms: 24 * HOUR } },
  { name: 'weekly', aliases: [], label: 'Weekly', every: { ms: 7 * 24 * HOUR } },
  { name: 'monthly', aliases: [], label: 'Monthly', every: { months: 1 } },
] as const satisfies readonly FrequencySpec[];

export type Frequency = (typeof FREQUENCIES)[number]['name'];
/** A frequency that schedules tests (every one but `no`). */
export type MonitoredFrequency = Exclude<Frequency, 'no'>;

/** The frequency names, in the table's order: no, hourly, daily, weekly, monthly. */
export const FREQUENCY_NAMES: readonly Frequency[] = FREQUENCIES.map((f) => f.name);

/** Every accepted spelling, each name followed by its aliases: no, none, hourly, daily, weekly, monthly. */
export const ACCEPTED_FREQUENCIES: readonly string[] = FREQUENCIES.flatMap((f) => [f.name, ...f.aliases]);

/** Accepted spelling (lower case) → frequency. */
export const FREQUENCY_BY_WORD: Readonly<Record<string, Frequency>> = Object.fromEntries(
  FREQUENCIES.flatMap((f) => [f.name, ...f.aliases].map((w) => [w, f.name])),
);

export const frequencySpec = (f: Frequency): FrequencySpec => FREQUENCIES.find((x) => x.name === f)!;

/** The frequencies a plan offers, as a message lists them: "hourly, daily, weekly or monthly". */
export const planFrequencies = (plan: Readonly<Record<NonNullable<FrequencySpec['planFlag']>, boolean>>): string => orList(
  FREQUENCIES.filter((f: FrequencySpec) => f.every !== undefined && (f.planFlag === undefined || plan[f.planFlag])).map((f) => f.name),
);

/** The frequencies every plan offers, as a message lists them: "daily, weekly or monthly". */
export const EVERY_PLAN_FREQUENCIES = orList(
  FREQUENCIES.filter((f: FrequencySpec) => f.every !== undefined && f.planFlag === undefined).map((f) => f.name),
);
