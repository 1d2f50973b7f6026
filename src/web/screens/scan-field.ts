/**
 * The scan's site report beside real visitors (issue 51, point 2): the field site's templates with their p75s and
 * shares, and the pages sorted into good lab / poor field, poor lab / good field and aligned (core/scans/scan-field.ts).
 */
import { fieldFigure, formatFigure, rateField, RATING_WORDS, type FieldFigureName } from '../../analysis/figures.js';
import type { CruxRecord } from '../../core/field/crux.js';
import { pathOnSite, scanSite } from '../../analysis/site-figures.js';
import type { ScanView } from '../../core/scans/scan-export.js';
import type { ScanField, ScanFieldPage } from '../../core/scans/scan-field.js';
import { fieldHref, FIELD_MIN_VIEWS, LAB_FIELD_GROUPS } from '../../core/field/lab-field.js';
import type { MetricFigures } from '../../core/field/figures.js';
import { esc, urlLink } from '../kit.js';
import { plural, ratedCell } from './figures.js';

const VITALS: readonly FieldFigureName[] = ['lcp', 'inp', 'cls'];
/** Pages listed per group; the rest counted. */
const GROUP_LIST = 20;

const share = (v: number | null) => (v === null ? '–' : `${Math.round(v * 100)}%`);

/** A field p75, coloured by its band, with its shares beneath; too few views: said. */
function p75Cell(name: FieldFigureName, m: MetricFigures | undefined, href?: string): string {
  if (!m || m.p75 === null) return '<td class="num">–</td>';
  const value = esc(formatFigure(fieldFigure(name).unit, m.p75));
  if (m.n < FIELD_MIN_VIEWS) return `<td class="num muted" title="${esc(`${m.n} page views: too few to judge`)}">${value}<span class="lf-n">too few</span></td>`;
  const shares = `${share(m.good)} good · ${share(m.needsImprovement)} NI · ${share(m.poor)} poor`;
  const shown = href ? `<a href="${esc(href)}" class="rated-${m.rating}">${value}</a>` : `<span class="rated-${m.rating}">${value}</span>`;
  return `<td class="num" title="${esc(`${RATING_WORDS[m.rating!]}; ${m.n.toLocaleString('en')} page views`)}">${shown}<span class="lf-n">${esc(shares)}</span></td>`;
}

const vitalHeads = VITALS.map((n) => `<th scope="col" class="num">${esc(fieldFigure(n).short)} p75</th>`).join('');

function templatesTable(f: ScanField): string {
  if (f.templates.length === 0) {
    return `<p class="muted">No page views on ${esc(f.device)} in the last ${f.days} days.</p>`;
  }
  const rows = f.templates.slice(0, 20).map((t) => `<tr><td class="scan-template">${esc(t.value)}</td><td class="num">${esc(t.figures.views.toLocaleString('en'))}</td>` +
    VITALS.map((n) => p75Cell(n, t.figures.metrics[n], fieldHref(f.site.id, f.device, f.days, { template: t.value }))).join('') + '</tr>').join('');
  return `<div class="tablewrap"><table class="list lf-templates"><caption class="visually-hidden">Real visitors per template</caption><thead><tr><th scope="col">Template</th>` +
    `<th scope="col" class="num">Page views</th>${vitalHeads}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function pageRow(site: string, p: ScanFieldPage): string {
  const page = p.reportId ? urlLink(`/reports/${p.reportId}`, pathOnSite(site, p.url)) : esc(pathOnSite(site, p.url));
  const basis = p.field?.basis === 'template' ? `<span class="lf-n">template ${esc(p.field.template ?? '')}'s</span>` : '';
  return `<tr><td class="url">${page}${basis}</td>${ratedCell('largest_contentful_paint', p.lab.largest_contentful_paint)}` +
    `${ratedCell('cumulative_layout_shift', p.lab.cumulative_layout_shift)}${ratedCell('total_blocking_time', p.lab.total_blocking_time)}` +
    VITALS.map((n) => p75Cell(n, p.field?.figures.metrics[n], p.field?.href)).join('') + '</tr>';
}

function groupsPart(s: ScanView, f: ScanField): string {
  const site = scanSite(s);
  return LAB_FIELD_GROUPS.map((g) => {
    const pages = f.pages.filter((p) => p.group === g.id);
    if (pages.length === 0) return '';
    const head = `<h3 id="lf-group-${g.id}">${esc(g.title)} <span class="muted">(${esc(plural(pages.length, 'page'))})</span></h3><p class="muted">${esc(g.words[0]!.toUpperCase() + g.words.slice(1))}.</p>`;
    if (g.id === 'no-field') return `<div class="lf-group" role="region" aria-labelledby="lf-group-${g.id}">${head}</div>`;
    const more = pages.length > GROUP_LIST ? `<p class="muted">And ${pages.length - GROUP_LIST} more.</p>` : '';
    return `<div class="lf-group" role="region" aria-labelledby="lf-group-${g.id}">${head}<div class="tablewrap"><table class="list lf-pages">` +
      `<caption class="visually-hidden">${esc(g.title)}: lab figures, then visitors' p75s</caption><thead><tr><th scope="col">Page</th>` +
      `<th scope="col" class="num">Lab LCP</th><th scope="col" class="num">Lab CLS</th><th scope="col" class="num">Lab TBT</th>` +
      VITALS.map((n) => `<th scope="col" class="num">Visitors' ${esc(fieldFigure(n).short)}</th>`).join('') +
      `</tr></thead><tbody>${pages.slice(0, GROUP_LIST).map((p) => pageRow(site, p)).join('')}</tbody></table></div>${more}</div>`;
  }).join('');
}

/** Google's CrUX record of the scan's origin, when the operator set CrUX up. */
export interface ScanCrux {
  setUp: boolean;
  record: CruxRecord | null;
}

/** Google's figures for the origin: a card of their own, labelled as Google's, beside (never mixed into) ours. */
function cruxPart(crux: ScanCrux | undefined): string {
  if (!crux?.setUp) {
    return '<p class="muted lf-crux-note">Google\'s CrUX figures are not shown: the operator sets <code>WEBGAUGE_CRUX_API_KEY</code> to show the ' +
      'origin\'s beside these (docs/field.md, "Google\'s CrUX").</p>';
  }
  const c = crux.record;
  if (!c) return '<div class="card"><h3>Google\'s CrUX</h3><p class="muted">Google\'s CrUX has no record of this origin for this device.</p></div>';
  const cells = VITALS.map((n) => {
    const m = c.metrics[n];
    if (!m) return `<td class="num">–</td>`;
    const rating = rateField(n, m.p75);
    return `<td class="num"><span class="rated-${rating}">${esc(formatFigure(fieldFigure(n).unit, m.p75))}</span><span class="lf-n">` +
      `${esc(`${share(m.good)} good · ${share(m.needsImprovement)} NI · ${share(m.poor)} poor`)}</span></td>`;
  }).join('');
  return `<div class="card lf-crux"><h3>Google's CrUX</h3><p class="muted">Chrome users of ${esc(c.key)} ${c.formFactor === 'PHONE' ? 'on phones' : 'on desktops'}, ` +
    `${esc(c.collectionPeriod.first)} to ${esc(c.collectionPeriod.last)}: Google's figures for the whole origin, not this site's own visitors.</p>` +
    `<div class="tablewrap"><table class="list"><caption class="visually-hidden">Google's CrUX p75s of the origin</caption><thead><tr>${vitalHeads}</tr></thead>` +
    `<tbody><tr>${cells}</tr></tbody></table></div></div>`;
}

/** The "Real visitors" section of the site report. */
export function scanFieldPart(s: ScanView, f: ScanField | undefined, crux?: ScanCrux): string {
  const title = '<h2 id="sr-field">Real visitors</h2>';
  if (!f) {
    return `<section class="scan-section" aria-labelledby="sr-field">${title}<div class="card"><p>No figures of this site's own visitors: no field site of this account collects ` +
      `page views from ${esc(scanSite(s))}. <a href="/field">Set one up on the Field screen</a> to see real visitors beside each page's lab test.</p></div>` +
      `${cruxPart(crux)}</section>`;
  }
  const intro = `<p class="muted">This site's own visitors on ${esc(f.device)} over the last ${f.days} days (field site ` +
    `<a href="/field/${esc(encodeURIComponent(f.site.id))}">${esc(f.site.name)}</a>), beside the lab. A page's figures are its own ` +
    `with ${FIELD_MIN_VIEWS} page views or more, else its template's; the lab passes when LCP, CLS and TBT (the lab's stand-in for INP) are good, ` +
    `the field when the p75s of LCP, INP and CLS are.</p>`;
  return `<section class="scan-section" aria-labelledby="sr-field">${title}${intro}` +
    `<div class="card"><h3>Per template</h3>${templatesTable(f)}</div>` +
    `<div class="card lf-groups"><h3 class="visually-hidden">Lab against field</h3>${groupsPart(s, f)}</div>${cruxPart(crux)}</section>`;
}

/** The pages list's field cell: the page's visitors' LCP p75 (its template's when the page has too few views). */
export function pageFieldCell(byUrl: ReadonlyMap<string, ScanFieldPage>, url: string): string {
  const p = byUrl.get(url);
  return p?.field ? p75Cell('lcp', p.field.figures.metrics.lcp, p.field.href) : '<td class="num">–</td>';
}
