/**
 * A completed scan's alert conditions judged (docs/scans.md "Alerts on a site"), as pure functions: a figure against
 * its threshold from the one table of site figures (analysis/named-site-figures.ts), which names the pages it blames; a
 * change since the site's previous completed scan from the comparison of the two (analysis/scan-comparison-rules.ts: the
 * Mann-Whitney test of the runs, or stated thresholds), which names the pages and templates that got worse. Then each
 * verdict against the condition's last verdict on an earlier scan: triggered when it holds and did not, resolved when
 * it held and no longer does.
 */
import { formatSiteAgainst, siteBudget, type BudgetedPage, type BudgetedScan } from '../../analysis/named-site-figures.js';
import type { ComparedPage, Reason, ScanComparison } from '../../analysis/scan-comparison-types.js';
import { pathOnSite, type SiteFigures } from '../../analysis/site-figures.js';
import { dayAndMinute } from '../../lib/dates.js';
import { plural } from '../../lib/words.js';
import { conditionKey, conditionText, type AlertCondition } from './alert-conditions.js';

/** Pages (and templates) a message names at most; the rest are counted ("and 3 more"). */
export const NAMED_MAX = 10;

export interface NamedPage {
  url: string;
  template: string;
  /** The page's report in this scan (null: it failed). */
  report: string | null;
  /** Why it is named: "LCP 4.60 s is over the 2.50 s limit on LCP p75", "grade B → D". */
  why: string;
}

export interface NamedTemplate {
  template: string;
  /** Its pages measured in both scans. */
  pages: number;
  /** What got worse and on what basis. */
  reasons: string[];
}

export interface AlertVerdict extends AlertCondition {
  /** Whether the condition holds on this scan; null: not evaluated (`outcome` says why). */
  holds: boolean | null;
  /** The figure's value; of a comparison kind, how many pages (templates) it counted. */
  measured: number | null;
  /** The condition, its outcome and the pages (templates) to blame, at most NAMED_MAX of them. */
  message: string;
  /** The message without the pages: the condition and its outcome. */
  outcome: string;
  pages: NamedPage[];
  /** Pages to blame beyond `pages`. */
  more_pages: number;
  /** template_worse: the templates that got worse (at most NAMED_MAX). */
  templates: NamedTemplate[];
  /** Comparison kinds: the scan compared with (the site's previous completed scan), and what the comparison's notes say. */
  compared_with: string | null;
  notes: string[];
  /** triggered: holds now and not at its last verdict on an earlier scan; resolved: held then, not now; null: no change. */
  change: 'triggered' | 'resolved' | null;
  /** The earlier scan whose verdict of the same condition this one follows (null: none evaluated it). */
  previous_scan: string | null;
}

/** A page of the scan: its state, its report and its report's figures. */
export type AlertPage = BudgetedPage & { url: string; template: string; report_id: string | null };

/** The scan judged: its site, its figures and page counts as the site figures' table reads them, and its pages. */
export interface ScanForAlerts extends BudgetedScan {
  site: string;
  figures: SiteFigures;
  pages_list: readonly AlertPage[];
}

/** The comparison with the site's previous completed scan (its ID, and when it ran: texts name it by date), or why there is none. */
export type PreviousComparison = { scan: string; at: number; comparison: ScanComparison } | { none: string };

const HOLDS = (op: AlertCondition['operator'], v: number, limit: number): boolean =>
  op === 'gt' ? v > limit : op === 'gte' ? v >= limit : op === 'lt' ? v < limit : v <= limit;

/** The pages named (NAMED_MAX at most) and how many more there are. */
function blamed(named: readonly NamedPage[]): { pages: NamedPage[]; more_pages: number } {
  const pages = named.slice(0, NAMED_MAX);
  return { pages, more_pages: named.length - pages.length };
}

type Judged = Pick<AlertVerdict, 'holds' | 'measured' | 'outcome' | 'pages' | 'more_pages' | 'templates' | 'compared_with' | 'notes'>;

const NOTHING = { pages: [], more_pages: 0, templates: [], compared_with: null, notes: [] };

function judgeFigure(c: AlertCondition, scan: ScanForAlerts): Judged {
  const b = siteBudget(c.figure ?? '')!;
  const value = b.value(scan);
  if (value === undefined) {
    return { ...NOTHING, holds: null, measured: null,
      outcome: `${conditionText(c)} was not evaluated: the scan has no ${b.short} (no page measured it).` };
  }
  // The value and the threshold never print alike when they differ (2.50 s (2,504 ms) against 2.50 s (2,500 ms)).
  const [shownValue, shownLimit] = b.unit === 'pages' ? [plural(value, 'page'), undefined] : formatSiteAgainst(b.unit, value, c.value);
  const what = conditionText(c, shownLimit);
  const shown = `${b.label} is ${shownValue}`;
  const holds = HOLDS(c.operator, value, c.value);
  // Pages are to blame when the condition points at the figure's wrong side (over a max, under a min).
  const wrongSide = b.direction === 'max' ? c.operator === 'gt' || c.operator === 'gte' : c.operator === 'lt' || c.operator === 'lte';
  const named: NamedPage[] = [];
  if (holds && wrongSide) {
    for (const p of scan.pages_list) {
      const why = b.blames(p, c.value, c.operator === 'gte' || c.operator === 'lte');
      if (why) named.push({ url: p.url, template: p.template, report: p.report_id, why });
    }
  }
  return { ...NOTHING, holds, measured: value, outcome: `${what} ${holds ? 'holds' : 'does not hold'}: ${shown}.`, ...blamed(named) };
}

const reasonText = (r: Reason): string => `${r.text} [${r.basis}: ${r.why}]`;
const namedOf = (p: ComparedPage, why: string): NamedPage => ({ url: p.url, template: p.template, report: p.after.report, why });

function judgeComparison(c: AlertCondition, scan: ScanForAlerts, previous: PreviousComparison): Judged {
  const what = conditionText(c);
  if ('none' in previous) return { ...NOTHING, holds: null, measured: null, outcome: `${what} was not evaluated: ${previous.none}` };
  const { comparison: cmp } = previous;
  const base = { ...NOTHING, compared_with: previous.scan, notes: cmp.notes };
  // The scan compared with, as people know it: by when it ran (its ID is the verdict's compared_with).
  const then = `the scan of ${dayAndMinute(previous.at)}`;
  const since = `since ${then}`;
  if (cmp.pages.length === 0) {
    return { ...base, holds: null, measured: null, outcome: `${what} was not evaluated: no page was measured in both this scan and ${then}.` };
  }
  const leftOut = cmp.pages.filter((p) => p.changes.grade === null && p.before.grade && p.after.grade).length;
  const gradesNote = leftOut > 0 ? ` Grades of ${leftOut} of ${plural(cmp.pages.length, 'page')} measured in both are left out: ` +
    'their reports were made by Lighthouse versions that read different structure audits.' : '';
  let measured: number;
  let named: NamedPage[];
  let templates: NamedTemplate[] = [];
  let counted: string;
  if (c.kind === 'grade_drop') {
    const compared = cmp.pages.filter((p) => p.changes.grade !== null);
    if (compared.length === 0) return { ...base, holds: null, measured: null, outcome: `${what} was not evaluated: no page's grade compares ${since}.${gradesNote}` };
    named = compared.filter((p) => p.changes.grade! >= c.value)
      .map((p) => namedOf(p, `grade ${p.before.grade} → ${p.after.grade}, ${plural(p.changes.grade!, 'letter')} down`));
    measured = named.length;
    counted = `the grade of ${plural(named.length, 'page')} of ${compared.length} fell ${plural(c.value, 'letter')} or more ${since}`;
  } else if (c.kind === 'pages_worse') {
    named = cmp.pages.filter((p) => p.verdict === 'worse')
      .map((p) => namedOf(p, p.reasons.filter((r) => r.direction === 'worse').map(reasonText).join(', ')));
    measured = named.length;
    counted = `${plural(named.length, 'page')} of ${cmp.pages.length} got significantly worse ${since}`;
  } else {
    const worse = cmp.templates.filter((t) => t.verdict === 'worse');
    templates = worse.slice(0, NAMED_MAX).map((t) => ({ template: t.template, pages: t.pages,
      reasons: t.reasons.filter((r) => r.direction === 'worse').map(reasonText) }));
    named = cmp.pages.filter((p) => worse.some((t) => t.template === p.template)).map((p) => namedOf(p, `template ${p.template}`));
    measured = worse.length;
    const more = worse.length > templates.length ? `; and ${worse.length - templates.length} more` : '';
    const which = templates.map((t) => `${t.template}: ${t.reasons.join(', ')}`).join('; ');
    counted = `${plural(worse.length, 'template')} of ${cmp.templates.length} got significantly worse as a whole ${since}` +
      (templates.length ? ` (${which}${more})` : '');
  }
  // A grade that fell by `value` letters is enough; the counts must be more than `value`.
  const holds = c.kind === 'grade_drop' ? measured > 0 : measured > c.value;
  const outcome = `${what} ${holds ? 'holds' : 'does not hold'}: ${counted}.${c.kind === 'template_worse' ? '' : gradesNote}`;
  return { ...base, holds, measured, outcome, ...blamed(named), templates };
}

/** Every condition judged on the scan (the comparison is read only by the comparison kinds); no change yet. */
export function judgeConditions(conditions: readonly AlertCondition[], scan: ScanForAlerts, previous: PreviousComparison): AlertVerdict[] {
  return conditions.map((c) => {
    const j = c.kind === 'figure' ? judgeFigure(c, scan) : judgeComparison(c, scan, previous);
    const pages = j.pages.map((p) => `${pathOnSite(scan.site, p.url)}: ${p.why}`).join('; ') + (j.more_pages > 0 ? `; and ${j.more_pages} more` : '');
    return { ...c, ...j, message: j.pages.length ? `${j.outcome} Pages: ${pages}.` : j.outcome, change: null, previous_scan: null };
  });
}

/** An earlier scan's verdicts (scans.alerts), newest scan first. */
export interface EarlierVerdicts {
  scan: string;
  verdicts: readonly Pick<AlertVerdict, 'kind' | 'figure' | 'operator' | 'value' | 'holds'>[];
}

/**
 * Each verdict against the same condition's last evaluated verdict on an earlier scan of the site (`earlier`, newest
 * first): triggered when it holds and did not (or was never evaluated), resolved when it held and does not now.
 */
export function withChanges(verdicts: readonly AlertVerdict[], earlier: readonly EarlierVerdicts[]): AlertVerdict[] {
  return verdicts.map((v) => {
    const key = conditionKey(v);
    let last: { scan: string; holds: boolean } | undefined;
    for (const e of earlier) {
      const found = e.verdicts.find((x) => conditionKey(x) === key && x.holds !== null);
      if (found) {
        last = { scan: e.scan, holds: found.holds! };
        break;
      }
    }
    const change = v.holds === true && !last?.holds ? 'triggered' : v.holds === false && last?.holds ? 'resolved' : null;
    return { ...v, change, previous_scan: last?.scan ?? null };
  });
}
