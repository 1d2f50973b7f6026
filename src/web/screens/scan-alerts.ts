/**
 * A scan's alerts in the app (docs/scans.md "Alerts on a site"): on the scan's screen, its conditions while it runs
 * and their verdicts once it completed (a triggered one in red, with the pages to blame linked to their reports);
 * on the new-scan form, the conditions one per line ("lcp_p75 > 2500", "pages_worse 0"), turned into the API's
 * `alert_conditions` for its parser to judge (core/scans/alert-conditions.ts).
 */
import { ALERT_KINDS, conditionApplies, conditionText, FIGURE_OPERATORS } from '../../core/scans/alert-conditions.js';
import type { AlertVerdict } from '../../core/scans/alert-verdicts.js';
import type { ScanView } from '../../core/scans/scan-export.js';
import { OPERATOR_SYMBOLS } from '../../core/vocabulary/alert-operators.js';
import { esc } from '../kit.js';
import { pathOnSite, scanSite } from '../../analysis/site-figures.js';

/** The operators a line may use: the API's names, their symbols, and >= and <= as typed. */
const OPERATOR_WORDS: Record<string, string> = {
  ...Object.fromEntries(FIGURE_OPERATORS.flatMap((o) => [[o, o], [OPERATOR_SYMBOLS[o], o]])), '>=': 'gte', '<=': 'lte',
};

/** The form's lines as `alert_conditions` ("lcp_p75 > 2500", "grade_drop 2", "template_worse"); the API's parser judges them. */
export function conditionsFromLines(lines: readonly string[]): Record<string, unknown>[] {
  return lines.map((given) => {
    // "phone-mid: lcp_p75 > 4000": a condition of one device (the API's parser judges the device's name).
    const of = /^([A-Za-z][\w-]*)\s*:\s*(.+)$/.exec(given);
    const line = of ? of[2]! : given;
    const device = of ? { device: of[1] } : {};
    return { ...conditionOfLine(line), ...device };
  });
}

/** One line's condition ("lcp_p75 > 2500", "grade_drop 2", "template_worse"); anything else as a figure the API names. */
function conditionOfLine(line: string): Record<string, unknown> {
  const figure = /^(\S+?)\s*(>=|<=|[><≥≤])\s*(\S+)$/.exec(line) ?? /^(\S+)\s+(gte|gt|lte|lt)\s+(\S+)$/.exec(line);
  if (figure) return { figure: figure[1], operator: OPERATOR_WORDS[figure[2]!], value: figure[3] };
  const [first, value, ...rest] = line.split(/\s+/);
  if ((ALERT_KINDS as readonly string[]).includes(first!) && rest.length === 0) return { kind: first, ...(value === undefined ? {} : { value }) };
  return { figure: line };
}

/** What the form's field says of the lines it takes. */
export const CONDITIONS_HINT = 'One per line, checked when the scan completes: a site figure, an operator and a value ' +
  '(<code>lcp_p75 &gt; 2500</code>, <code>poor_lcp_pages &gt; 0</code>, <code>performance_median &lt; 70</code>), or a change since the ' +
  'site’s previous scan (<code>grade_drop 2</code>, <code>pages_worse 0</code>, <code>template_worse</code>); a device first for that ' +
  'device’s scan only (<code>phone-mid: lcp_p75 &gt; 4000</code>). A change of verdict is sent to the webhooks of <code>scan.alert</code> and by e-mail.';

function status(v: AlertVerdict): [string, string] {
  if (v.holds === null) return ['quiet', 'Not evaluated'];
  if (v.change === 'triggered') return ['triggered', 'Triggered'];
  if (v.change === 'resolved') return ['resolved', 'Resolved'];
  return v.holds ? ['holds', 'Still holds'] : ['quiet', 'Does not hold'];
}

function verdictItem(s: ScanView, v: AlertVerdict): string {
  const [kind, word] = status(v);
  const pages = v.pages.length
    ? `<ul class="scan-alert-pages">${v.pages.map((p) => {
      const path = esc(pathOnSite(scanSite(s), p.url));
      return `<li>${p.report ? `<a href="/reports/${esc(p.report)}">${path}</a>` : path}: ${esc(p.why)}</li>`;
    }).join('')}${v.more_pages > 0 ? `<li class="muted">and ${v.more_pages} more</li>` : ''}</ul>`
    : '';
  const templates = v.templates.length
    ? `<ul class="scan-alert-pages">${v.templates.map((t) => `<li><code>${esc(t.template)}</code>: ${esc(t.reasons.join(', '))}</li>`).join('')}</ul>`
    : '';
  const links = [
    v.compared_with ? `<a href="/scans/${esc(v.compared_with)}/compare/${esc(s.id)}">Compare with the previous scan</a>` : '',
    v.previous_scan ? `<a href="/scans/${esc(v.previous_scan)}">The scan it follows</a>` : '',
  ].filter(Boolean).join(' · ');
  return `<li class="card scan-alert scan-alert-${kind}"><p class="scan-alert-head"><span class="scan-alert-state">${word}</span> ` +
    `<b>${esc(conditionText(v))}</b></p><p>${esc(v.outcome)}</p>${templates}${pages}` +
    `${v.notes.map((n) => `<p class="muted">${esc(n)}</p>`).join('')}${links ? `<p class="muted">${links}</p>` : ''}</li>`;
}

/** The scan's alerts section: nothing without conditions; the conditions while it runs; their verdicts once completed. */
export function alertsPart(s: ScanView): string {
  const conditions = s.settings.alert_conditions.filter((c) => conditionApplies(c, s.deviceClass));
  if (conditions.length === 0) return '';
  let content: string;
  if (s.alerts === null) {
    content = `<div class="card"><p class="muted">${s.state === 'discovering' || s.state === 'running'
      ? 'Checked when the scan completes:' : 'Not checked: the scan did not complete.'}</p>` +
      `<ul>${conditions.map((c) => `<li>${esc(conditionText(c))}</li>`).join('')}</ul></div>`;
  } else {
    const triggered = s.alerts.filter((v) => v.change === 'triggered').length;
    content = `${triggered ? `<p class="error" role="status">${triggered === 1 ? 'An alert' : `${triggered} alerts`} triggered with this scan.</p>` : ''}` +
      `<ul class="scan-alerts">${s.alerts.map((v) => verdictItem(s, v)).join('')}</ul>`;
  }
  return `<section class="scan-section" id="alerts" aria-labelledby="scan-alerts-h"><h2 id="scan-alerts-h">Alerts</h2>${content}</section>`;
}
