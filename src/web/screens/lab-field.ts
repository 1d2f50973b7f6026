/**
 * Lab beside field (issue 51) on the report and the page view: each lab figure that has a field twin beside this
 * site's own visitors' p75 of that URL and device (core/field/lab-field.ts), flagged in words where the two differ
 * markedly, each field figure linked to its view on the Field screen; Google's CrUX beside them when the operator set
 * it up, labelled as Google's and never mixed with ours.
 */
import { fieldFigure, figure, formatFigure, rateField, RATING_WORDS, type FieldFigureName, type FigureName } from '../../analysis/figures.js';
import { compareLabField, FIELD_MIN_VIEWS, LAB_FIELD_DAYS, type UrlField } from '../../core/field/lab-field.js';
import type { DeviceClass } from '../../core/vocabulary/device-classes.js';
import type { CruxRecord } from '../../core/field/crux.js';
import { esc } from '../kit.js';
import { plural } from './figures.js';



/** The rows: the field figures in the table's order with their lab twins, then TBT, the lab's alone. */
const ROWS: { field?: FieldFigureName; lab?: FigureName; note?: string }[] = [
  { field: 'lcp', lab: 'largest_contentful_paint' },
  { field: 'inp', note: 'Field only: a lab load has no interaction (TBT, below, is its stand-in).' },
  { field: 'cls', lab: 'cumulative_layout_shift' },
  { field: 'fcp', lab: 'first_contentful_paint' },
  { field: 'ttfb', lab: 'time_to_first_byte' },
  { lab: 'total_blocking_time', note: 'Lab only: visitors\' pages measure no TBT (INP, above, is what they live).' },
];

/** What the figures are of: "this URL's 1,234 page views", or its template's, said. */
function basisWords(f: UrlField): string {
  const device = f.device === 'mobile' ? 'mobile' : 'desktop';
  const site = `field site <a href="/field/${esc(encodeURIComponent(f.site.id))}">${esc(f.site.name)}</a>`;
  if (f.basis === 'path') {
    return `This site's own visitors on ${device} over the last ${LAB_FIELD_DAYS} days (${site}): ${esc(plural(f.pathViews, 'page view'))} of this URL.`;
  }
  if (f.basis === 'template') {
    return `This URL had ${esc(plural(f.pathViews, 'page view'))} on ${device} in the last ${LAB_FIELD_DAYS} days, fewer than ${FIELD_MIN_VIEWS}: ` +
      `the figures are its template <code>${esc(f.template ?? '')}</code>'s (${esc(plural(f.templateViews, 'page view'))}; ${site}).`;
  }
  return `Too few to judge: this URL had ${esc(plural(f.pathViews, 'page view'))} on ${device} in the last ${LAB_FIELD_DAYS} days` +
    (f.template ? ` and its template <code>${esc(f.template)}</code> ${esc(plural(f.templateViews, 'page view'))}` : '') +
    `; ${FIELD_MIN_VIEWS} are needed (${site}).`;
}

function cruxWords(c: CruxRecord | null | undefined, cruxSetUp: boolean): string {
  if (!cruxSetUp) {
    return '<p class="muted lf-crux-note">Google\'s CrUX figures are not shown: the operator sets <code>WEBGAUGE_CRUX_API_KEY</code> ' +
      'to show them beside these (docs/field.md, "Google\'s CrUX").</p>';
  }
  if (!c) return '<p class="muted lf-crux-note">Google\'s CrUX has no record of this URL or its origin for this device.</p>';
  return `<p class="muted lf-crux-note">Google's CrUX: Chrome users ${c.formFactor === 'PHONE' ? 'on phones' : 'on desktops'} over ` +
    `${esc(c.collectionPeriod.first)} to ${esc(c.collectionPeriod.last)}, ` +
    (c.scope === 'url' ? 'this URL\'s record.' : `no record of this URL: <strong>the origin's</strong> (${esc(c.key)}).`) + ' Google\'s figures, not this site\'s own.</p>';
}

function fieldCell(f: UrlField | undefined, name: FieldFigureName): string {
  if (!f) return '<td class="num">–</td>';
  const m = f.figures.metrics[name];
  if (m.p75 === null) return '<td class="num muted">no views</td>';
  const spec = fieldFigure(name);
  const few = m.n < FIELD_MIN_VIEWS;
  const rating = rateField(name, m.p75);
  const title = `${RATING_WORDS[rating]}; ${m.n.toLocaleString('en')} page views measured it`;
  return `<td class="num"><a href="${esc(f.href)}" title="${esc(title)}"${few ? '' : ` class="rated-${rating}"`}>${esc(formatFigure(spec.unit, m.p75))}</a>` +
    `<span class="lf-n">${esc(plural(m.n, 'view'))}${few ? ', too few' : ''}</span></td>`;
}

function cruxCell(c: CruxRecord | null | undefined, name: FieldFigureName | undefined): string {
  const m = name && c ? c.metrics[name] : undefined;
  if (!m) return '<td class="num">–</td>';
  const rating = rateField(name!, m.p75);
  return `<td class="num rated-${rating}" title="${esc(RATING_WORDS[rating])}">${esc(formatFigure(fieldFigure(name!).unit, m.p75))}</td>`;
}

export interface LabFieldInput {
  /** The lab figures (a report's columns). */
  lab: Partial<Record<FigureName, number | null>>;
  deviceClass: DeviceClass;
  url: string;
  field: UrlField | undefined;
  /** Google's CrUX record for the URL and form factor: undefined when not set up. */
  crux?: CruxRecord | null;
  cruxSetUp: boolean;
  /** "this test" on a report, "the newest report" on a page view. */
  labName: string;
}

/** The "Lab and field" card. */
export function labFieldCard(i: LabFieldInput): string {
  const heading = '<h3 id="lab-field">Lab and field</h3>';
  const f = i.field;
  let intro: string;
  if (f) {
    intro = `<p>${basisWords(f)}</p>`;
  } else {
    let origin = i.url;
    try {
      origin = new URL(i.url).origin;
    } catch { /* the URL as given */ }
    intro = `<p>No figures of this site's own visitors: no field site of this account collects page views from ${esc(origin)}. ` +
      `<a href="/field">Set one up on the Field screen</a> and paste its snippet into the site's pages to see them beside the lab's.</p>`;
  }
  const showCrux = Boolean(i.cruxSetUp && i.crux);
  // Without ours nor Google's there is nothing to set beside the lab.
  if (!f && !showCrux) return `<div class="card lab-field" role="region" aria-labelledby="lab-field">${heading}${intro}${cruxWords(i.crux, i.cruxSetUp)}</div>`;
  const judged = f !== undefined && f.basis !== 'too-few';
  const columns = 2 + (f ? 1 : 0) + (showCrux ? 1 : 0);
  const rows = ROWS.map((row) => {
    const spec = row.lab ? figure(row.lab) : undefined;
    const name = row.field ? fieldFigure(row.field).short : spec!.short ?? spec!.label;
    const labValue = row.lab ? i.lab[row.lab] : undefined;
    const hasLab = labValue !== null && labValue !== undefined && Number.isFinite(labValue);
    const labCell = row.lab && hasLab ? `<td class="num">${esc(formatFigure(spec!.unit, labValue!))}</td>` : '<td class="num">–</td>';
    let verdict = row.note ? `<span class="muted">${esc(row.note)}</span>` : '';
    // The flag holds the lab against this site's own visitors only (Google's figures are shown, never judged with ours).
    const m = f && row.field ? f.figures.metrics[row.field] : undefined;
    if (row.field && row.lab && judged && m && m.p75 !== null && m.n >= FIELD_MIN_VIEWS && hasLab) {
      const gap = compareLabField(row.field, labValue!, m.p75);
      verdict = `<span class="lf-flag lf-${gap.direction}">${gap.direction === 'alike' ? '' : `<strong>${gap.direction === 'lab-better' ? 'Lab more optimistic' : 'Lab more pessimistic'}:</strong> `}${esc(gap.words)}</span>`;
    }
    const ours = f ? (row.field ? fieldCell(f, row.field) : '<td class="num">–</td>') : '';
    // The verdict on a row of its own under the figures: three narrow columns fit a phone, a sentence beside them does not.
    return `<tbody class="lf-metric"><tr><th scope="row" class="lf-name">${esc(name)}</th>${labCell}${ours}` +
      `${showCrux ? cruxCell(i.crux, row.field) : ''}</tr>` +
      (verdict ? `<tr class="lf-verdict"><td colspan="${columns}">${verdict}</td></tr>` : '') + '</tbody>';
  }).join('');
  return `<div class="card lab-field" role="region" aria-labelledby="lab-field">${heading}${intro}` +
    `<div class="tablewrap"><table class="list lf-table"><thead><tr><th scope="col">Figure</th><th scope="col" class="num">Lab (${esc(i.labName)})</th>` +
    `${f ? '<th scope="col" class="num">This site\'s visitors (p75)</th>' : ''}${showCrux ? '<th scope="col" class="num">Google\'s CrUX (p75)</th>' : ''}` +
    `</tr></thead>${rows}</table></div>${cruxWords(i.crux, i.cruxSetUp)}</div>`;
}
