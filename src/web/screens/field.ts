/**
 * Field: the account's field sites (what real visitors experience) and a site's view (issue 50, point 5). The forms
 * become the API's attributes and go through core's parser and rules (parseFieldSiteInput, createFieldSite...);
 * every figure comes from core/field/figures.ts, the module the API reads too. The Viewer role sees the figures and
 * the snippet but no form.
 */
import type { FastifyReply } from 'fastify';
import { couldBeId } from '../../core/ids.js';
import { assertOwnerRole } from '../../core/accounts/roles.js';
import {
  FIELD_FIGURES, FIELD_FIGURE_NAMES, formatFigure, RATING_WORDS, type FieldFigureName, type FieldFigureSpec, type Rating,
} from '../../analysis/figures.js';
import { FIELD_DEVICES } from '../../core/field/beacon.js';
import { breakdownCsv, seriesCsv } from '../../core/field/export.js';
import {
  parseBreakdown, parseFieldQuery, readFieldAttribution, readFieldBreakdown, readFieldIntake, readFieldSeries, readFieldSummary,
  type AttributionEntry, type BreakdownRow, type FieldFilters, type FieldIntake, type FieldQuery, type MetricFigures,
} from '../../core/field/figures.js';
import {
  changeFieldSite, createFieldSite, DEFAULT_RAW_RETENTION_DAYS, fieldSiteNotFound, listSites, MAX_RAW_RETENTION_DAYS, parseFieldSiteInput,
  removeFieldSite, requireFieldSite, type FieldSite,
} from '../../core/field/sites.js';
import { labPagesOfPaths } from '../../core/field/lab-pages.js';
import { fieldAlertsOfSite } from '../../core/field/field-alerts.js';
import { fieldAlertsSummary } from './field-alerts.js';
import type { FormFields, Visitor } from '../session.js';
import { lineChart, type ChartMetric } from '../charts.js';
import { actionButton, checked, csrfField, errorBox, esc, formField, formLines, formRefusal, seeOther, shell, type WebKit } from '../kit.js';

/** Below this many page views a figure is shown as what it is: a few visits, not a verdict. */
export const FEW_VIEWS = 50;
const WINDOWS = [1, 7, 28, 90] as const;
const DEVICE_WORDS: Record<string, string> = { mobile: 'Mobile', tablet: 'Tablet', desktop: 'Desktop' };
const REFUSALS: [string, string][] = [
  ['foreign_origin', 'from a page of another origin'], ['malformed', 'malformed'], ['too_large', 'too large'],
  ['out_of_bounds', 'with values out of bounds'], ['rate_limited', 'over the rate limit'], ['gpc', 'sent with Global Privacy Control'],
];
const spec = (name: FieldFigureName): FieldFigureSpec => (FIELD_FIGURES as readonly FieldFigureSpec[]).find((f) => f.name === name)!;
const pct = (share: number | null) => (share === null ? '–' : `${Math.round(share * 100)}%`);
const views = (n: number) => `${n.toLocaleString('en')} page view${n === 1 ? '' : 's'}`;

interface SiteForm {
  name: string;
  origins: string;
  sampleRate: string;
  templates: string;
  keepQuery: boolean;
  honourGpc: boolean;
  rawRetentionDays: string;
}

const formOf = (s?: FieldSite): SiteForm => ({
  name: s?.name ?? '', origins: s?.origins.join('\n') ?? '', sampleRate: String(s?.sampleRate ?? 100), templates: s?.templates.join('\n') ?? '',
  keepQuery: s?.keepQuery ?? false, honourGpc: s?.honourGpc ?? true, rawRetentionDays: String(s?.rawRetentionDays ?? DEFAULT_RAW_RETENTION_DAYS),
});

const valuesOf = (form: FormFields): SiteForm => ({
  name: form.get('name') ?? '', origins: form.get('origins') ?? '', sampleRate: form.get('sample_rate') ?? '', templates: form.get('templates') ?? '',
  keepQuery: form.get('keep_query') === 'on', honourGpc: form.get('honour_gpc') === 'on', rawRetentionDays: form.get('raw_retention_days') ?? '',
});

/** The form as the API's attributes: numbers as numbers when they are numbers (the parser says what is wrong otherwise). */
function attributesOf(f: SiteForm): Record<string, unknown> {
  const number = (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
  return {
    name: f.name, origins: formLines(f.origins).entries, sample_rate: number(f.sampleRate), templates: formLines(f.templates).entries,
    keep_query: f.keepQuery, honour_gpc: f.honourGpc, raw_retention_days: number(f.rawRetentionDays),
  };
}

function siteFields(prefix: string, f: SiteForm): string {
  const text = (name: string, label: string, value: string, hint: string, type = 'text', extra = '') => formField(`${prefix}-${name}`, label,
    (d) => `<input id="${prefix}-${name}" name="${name}" type="${type}" value="${esc(value)}" autocomplete="off"${extra}${d}>`, hint);
  const area = (name: string, label: string, value: string, hint: string) => formField(`${prefix}-${name}`, label,
    (d) => `<textarea id="${prefix}-${name}" name="${name}" rows="3"${d}>${esc(value)}</textarea>`, hint);
  const box = (name: string, label: string, on: boolean, hint: string) =>
    `<div class="field check"><input id="${prefix}-${name}" name="${name}" type="checkbox"${checked(on)} aria-describedby="${prefix}-${name}-hint">` +
    `<label for="${prefix}-${name}">${label}</label><span class="hint" id="${prefix}-${name}-hint">${hint}</span></div>`;
  return text('name', 'Name', f.name, 'how the app names the site') +
    area('origins', 'Origins', f.origins, 'one per line, e.g. https://www.example.com: a beacon is taken only from a page of one of them') +
    `<div class="row">${text('sample_rate', 'Sample rate (%)', f.sampleRate, 'the share of page views measured, decided before anything is measured', 'number', ' min="0.01" max="100" step="any"')}` +
    `${text('raw_retention_days', 'Raw retention (days)', f.rawRetentionDays, `single page views kept for the attribution lists, 1 to ${MAX_RAW_RETENTION_DAYS}`, 'number', ` min="1" max="${MAX_RAW_RETENTION_DAYS}" step="1"`)}</div>` +
    area('templates', 'URL templates', f.templates, 'optional, one per line (/blog/:slug, /docs/*), matched before the automatic ones') +
    box('keep_query', 'Keep query strings', f.keepQuery, 'off: query strings are dropped from every URL sent and stored') +
    box('honour_gpc', 'Honour Global Privacy Control', f.honourGpc, 'on: a browser that sends GPC sends nothing');
}

/** The view's own URL with some of its parameters changed (undefined: left out). */
function viewHref(site: FieldSite, q: FieldQuery, change: Partial<Record<'days' | 'device' | 'template' | 'path' | 'connection' | 'browser', string | number | undefined>>): string {
  const params = new URLSearchParams();
  const all = { days: q.days, ...q.filters, ...change };
  for (const [k, v] of Object.entries(all)) {
    if (v === undefined || (k === 'days' && v === 28)) continue;
    params.set(k, String(v));
  }
  const s = params.toString();
  return `/field/${encodeURIComponent(site.id)}${s ? `?${s}` : ''}`;
}

function ratingClass(r: Rating | null): string {
  return r ? ` rated-${r}` : '';
}

/** One metric's card, as CrUX shows it: the p75 coloured by its band, the distribution bar, the shares. */
function metricCard(name: FieldFigureName, m: MetricFigures): string {
  const f = spec(name);
  const few = m.n < FEW_VIEWS;
  const value = m.p75 === null ? '–' : formatFigure(f.unit, m.p75);
  const head = `<h3>${esc(f.title)} <abbr title="${esc(f.title)}">(${esc(f.short)})</abbr></h3>`;
  if (m.n === 0) return `<div class="card field-card">${head}<p class="field-p75">–</p><p class="muted">No page view measured it in this window.</p></div>`;
  const shares: [string, string, number][] = [['good', 'Good', m.good!], ['ni', 'Needs improvement', m.needsImprovement!], ['poor', 'Poor', m.poor!]];
  const bar = `<div class="dist" role="img" aria-label="${esc(shares.map(([, w, s]) => `${w} ${pct(s)}`).join(', '))}">` +
    shares.map(([k, , s]) => (s > 0 ? `<span class="dist-${k}" style="width:${(s * 100).toFixed(2)}%"></span>` : '')).join('') + '</div>';
  const legend = `<ul class="dist-legend">${shares.map(([k, w, s]) => `<li><span class="dist-key dist-${k}" aria-hidden="true"></span>${w} ${pct(s)}</li>`).join('')}</ul>`;
  const bands = `good ≤ ${formatFigure(f.unit, f.bands.good)}, poor > ${formatFigure(f.unit, f.bands.poor)}`;
  const verdict = few
    ? `<p class="muted">p75 of only ${views(m.n)}: too few to judge (${FEW_VIEWS} or more).</p>`
    : `<p class="muted">p75 of ${views(m.n)}: ${RATING_WORDS[m.rating!]} (${bands}).</p>`;
  return `<div class="card field-card">${head}<p class="field-p75${few ? ' few' : ratingClass(m.rating)}">${esc(value)}</p>${bar}${legend}${verdict}</div>`;
}

function chartMetric(name: FieldFigureName): ChartMetric {
  const f = spec(name);
  return { title: `${f.title} (p75)`, label: `${f.short} p75`, format: (v) => formatFigure(f.unit, v), bands: f.bands,
    minTop: f.unit === 'cls' ? 0.1 : 500 };
}

function breakdownTable(site: FieldSite, q: FieldQuery, by: 'template' | 'path' | 'connection' | 'browser', rows: BreakdownRow[],
  labPages: Map<string, string>): string {
  const heading = { template: 'By template', path: 'By path', connection: 'By connection', browser: 'By browser' }[by];
  const id = `by-${by}`;
  if (rows.length === 0) return `<section class="field-section" aria-labelledby="${id}"><h2 id="${id}">${heading}</h2><p class="muted">No page views in this window.</p></section>`;
  const head = `<tr><th scope="col">${by === 'template' ? 'Template' : by === 'path' ? 'Path' : by === 'connection' ? 'Connection' : 'Browser'}</th>` +
    `<th scope="col" class="num">Page views</th>${FIELD_FIGURE_NAMES.map((n) => `<th scope="col" class="num">${esc(spec(n).short)} p75</th>`).join('')}` +
    `${by === 'path' ? '<th scope="col">Lab tests</th>' : ''}</tr>`;
  const body = rows.map((r) => {
    const cells = FIELD_FIGURE_NAMES.map((n) => {
      const m = r.figures.metrics[n];
      const few = m.n > 0 && m.n < FEW_VIEWS;
      return `<td class="num${few ? ' few' : ratingClass(m.rating)}"${few ? ` title="${esc(`only ${views(m.n)}`)}"` : ''}>${esc(m.p75 === null ? '–' : formatFigure(spec(n).unit, m.p75))}</td>`;
    }).join('');
    const lab = by === 'path' ? `<td>${labPages.has(r.value) ? `<a href="/pages/${esc(labPages.get(r.value)!)}" aria-label="${esc(`Lab tests of ${r.value}`)}">Lab tests</a>` : '<span class="muted">none</span>'}</td>` : '';
    return `<tr><th scope="row"><a href="${esc(viewHref(site, q, { [by]: r.value }))}">${esc(r.value)}</a></th><td class="num">${r.figures.views.toLocaleString('en')}</td>${cells}${lab}</tr>`;
  }).join('');
  const csv = `<a href="/field/${esc(site.id)}/breakdown.csv?${esc(new URLSearchParams({ by, days: String(q.days), ...filterParams(q.filters) }).toString())}">CSV</a>`;
  return `<section class="field-section" aria-labelledby="${id}"><h2 id="${id}">${heading} <span class="field-csv">${csv}</span></h2>` +
    `<div class="card tablewrap"><table class="field-table" aria-labelledby="${id}"><thead>${head}</thead><tbody>${body}</tbody></table></div></section>`;
}

const filterParams = (f: FieldFilters): Record<string, string> =>
  Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Record<string, string>;

function attributionList(title: string, id: string, entries: AttributionEntry[], unit: 'time' | 'cls'): string {
  const rows = entries.length === 0 ? '<p class="muted">None in the raw page views of this window.</p>'
    : `<div class="tablewrap"><table class="field-table" aria-labelledby="${id}"><thead><tr><th scope="col">What</th><th scope="col" class="num">Page views</th><th scope="col" class="num">p75</th></tr></thead><tbody>` +
      entries.map((e) => `<tr><td class="field-what">${esc(e.value)}</td><td class="num">${e.count.toLocaleString('en')}</td><td class="num">${esc(formatFigure(unit, e.p75))}</td></tr>`).join('') +
      '</tbody></table></div>';
  return `<div class="card field-attr"><h3 id="${id}">${esc(title)}</h3>${rows}</div>`;
}

/**
 * The live parts of a site's view (the script fetches them again from /field/:id/live every few seconds and when the
 * tab is shown again, each by its id): page views received in the last 5 minutes, the first thing to check after
 * pasting the snippet, and what the window's beacons became: taken, or refused by reason (nothing is cut silently).
 */
function liveParts(intake: FieldIntake, days: number): string {
  const refused = REFUSALS.map(([k, words]) => [intake.refused[k as keyof typeof intake.refused], words] as const).filter(([n]) => n > 0);
  const span = days === 1 ? 'Today' : `In the last ${days} days`;
  return `<p class="field-live-count" id="field-live-count" role="status"><b>${intake.lastFiveMinutes.toLocaleString('en')}</b> ` +
    `page view${intake.lastFiveMinutes === 1 ? '' : 's'} received in the last 5 minutes</p>` +
    `<p class="muted" id="field-live-intake">${span}: ${intake.accepted.toLocaleString('en')} beacon${intake.accepted === 1 ? '' : 's'} taken; ` +
    (refused.length === 0 ? 'none refused.' : `refused: ${refused.map(([n, w]) => `${n.toLocaleString('en')} ${w}`).join(', ')}.`) + '</p>';
}

export function registerFieldScreens(kit: WebKit): void {
  const { ctx } = kit;
  const { store } = ctx;

  async function listScreen(v: Visitor, nonce: string, form?: SiteForm, error?: string): Promise<string> {
    const sites = await listSites(store.db, v.principal.accountId);
    const canEdit = v.principal.role !== 'viewer';
    const list = sites.length === 0
      ? `<div class="card"><p class="muted">No field site yet.${canEdit ? ' Create one below: you get one tag to paste into your pages, and their visitors\u2019 figures appear here.' : ''}</p></div>`
      : `<div class="card tablewrap"><table class="field-table"><thead><tr><th scope="col">Site</th><th scope="col">Origins</th><th scope="col" class="num">Sample rate</th></tr></thead><tbody>` +
        sites.map((s) => `<tr><th scope="row"><a href="/field/${esc(s.id)}">${esc(s.name)}</a></th><td>${s.origins.map(esc).join('<br>')}</td><td class="num">${s.sampleRate}%</td></tr>`).join('') +
        '</tbody></table></div>';
    const create = canEdit
      ? `<section class="field-new" aria-labelledby="new-site"><h2 id="new-site">New field site</h2>
<form method="post" action="/field" class="card field-form">${csrfField(v)}${errorBox(error)}${siteFields('new', form ?? formOf())}
<button type="submit" class="btn">Create field site</button></form></section>`
      : '<p class="muted">The Viewer role can see field sites but not change them.</p>';
    const body = `<h1>Field</h1><p class="muted">What real visitors experience: paste one tag into your pages and each page view sends its
Core Web Vitals to this server: no cookie, no stored address or user agent, nothing to a third party.</p>${list}${create}`;
    return shell(v, nonce, { title: 'Field', active: 'field', body });
  }

  async function siteScreen(v: Visitor, nonce: string, site: FieldSite, query: Record<string, unknown>, origin: string): Promise<string> {
    const q = parseFieldQuery(query);
    // A path is not crossed with connections and browsers (core/field/rollup.ts): a view of a path has no breakdown by
    // them, and a view of a connection or a browser none by path.
    const onPath = q.filters.path !== undefined;
    const crossed = q.filters.connection !== undefined || q.filters.browser !== undefined;
    const none = { rows: [] as BreakdownRow[] };
    const [summary, series, intake, byTemplate, byPath, byConnection, byBrowser, attribution] = await Promise.all([
      readFieldSummary(store.db, site, q), readFieldSeries(store.db, site, q), readFieldIntake(store.db, site, q.days),
      onPath ? none : readFieldBreakdown(store.db, site, q, 'template', 50), onPath || crossed ? none : readFieldBreakdown(store.db, site, q, 'path', 50),
      onPath ? none : readFieldBreakdown(store.db, site, q, 'connection', 10), onPath ? none : readFieldBreakdown(store.db, site, q, 'browser', 10),
      readFieldAttribution(store.db, site, q, 10),
    ]);
    const alerts = await fieldAlertsOfSite(store.db, site.accountId, site.id);
    const labPages = await labPagesOfPaths(store.db, site, byPath.rows.map((r) => r.value));
    const tag = ctx.field.snippetTag(origin, site);
    const live = `<div class="card field-live" data-poll="${esc(`/field/${site.id}/live?days=${q.days}`)}">${liveParts(intake, q.days)}</div>`;
    const snippet = `<section class="field-section" aria-labelledby="snippet-h"><h2 id="snippet-h">Snippet</h2><div class="card">` +
      formField('snippet', 'Snippet', (d) => `<textarea id="snippet" rows="2" readonly${d}>${esc(tag)}</textarea>`,
        'paste it into every page of the site, in &lt;head&gt;; after a change of the sample rate, query strings or GPC, paste it again') +
      `<button type="button" class="btn secondary small" data-copy="snippet">Copy snippet</button></div></section>`;
    const devices = [['All', undefined], ...FIELD_DEVICES.map((d) => [DEVICE_WORDS[d]!, d])] as [string, string | undefined][];
    const toggle = `<nav class="field-toggle" aria-label="Device"><span class="field-toggle-name" aria-hidden="true">Device</span>${devices.map(([w, d]) =>
      `<a href="${esc(viewHref(site, q, { device: d }))}"${q.filters.device === d ? ' aria-current="true"' : ''}>${w}</a>`).join('')}</nav>` +
      `<nav class="field-toggle" aria-label="Window"><span class="field-toggle-name" aria-hidden="true">Window</span>${WINDOWS.map((d) =>
      `<a href="${esc(viewHref(site, q, { days: d }))}"${q.days === d ? ' aria-current="true"' : ''}>${d === 1 ? 'Today' : `${d} days`}</a>`).join('')}</nav>`;
    const active = (['template', 'path', 'connection', 'browser'] as const).filter((k) => q.filters[k] !== undefined);
    const filters = active.length === 0 ? '' : `<p class="field-filters">Showing ${active.map((k) => `${k} <b>${esc(q.filters[k]!)}</b>`).join(', ')} · ` +
      `<a href="${esc(viewHref(site, q, { template: undefined, path: undefined, connection: undefined, browser: undefined }))}">Show the whole site</a></p>`;
    const total = summary.figures.views;
    const cards = `<section class="field-section" aria-labelledby="vitals-h"><h2 id="vitals-h">Real visitors, p75 over ${q.days === 1 ? 'today' : `the last ${q.days} days`}</h2>` +
      `<p class="muted">${views(total)}${q.filters.device ? ` on ${DEVICE_WORDS[q.filters.device]!.toLowerCase()} devices` : ''}. Each figure is the 75th percentile: three visits in four were at least this fast.</p>` +
      (total === 0 ? `<div class="card"><p class="muted">No page view yet in this window. Paste the snippet into the site\u2019s pages, load one, then switch tabs: the beacon is sent when the page is hidden.</p></div>`
        : `<div class="field-cards">${FIELD_FIGURE_NAMES.map((n) => metricCard(n, summary.figures.metrics[n])).join('')}</div>`) + '</section>';
    const points = (name: FieldFigureName) => series.points.map((p) => ({ href: `#day-${new Date(p.day).toISOString().slice(0, 10)}`, time: p.day, value: p.p75[name] }));
    const chart = series.points.length === 0 ? '' : `<section class="field-section" aria-labelledby="daily-h"><h2 id="daily-h">Daily p75 <span class="field-csv">` +
      `<a href="/field/${esc(site.id)}/daily.csv?${esc(new URLSearchParams({ days: String(q.days), ...filterParams(q.filters) }).toString())}">CSV</a></span></h2>` +
      `<div class="field-charts">${FIELD_FIGURE_NAMES.map((n) => lineChart(chartMetric(n), points(n), [], 'day')).join('')}</div>` +
      `<details class="card"><summary>Every day</summary><div class="tablewrap"><table class="field-table"><thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Page views</th>` +
      `${FIELD_FIGURE_NAMES.map((n) => `<th scope="col" class="num">${esc(spec(n).short)} p75</th>`).join('')}</tr></thead><tbody>` +
      series.points.map((p) => { const d = new Date(p.day).toISOString().slice(0, 10); return `<tr id="day-${d}"><th scope="row">${d}</th><td class="num">${p.views.toLocaleString('en')}</td>` +
        FIELD_FIGURE_NAMES.map((n) => `<td class="num">${esc(p.p75[n] === null ? '–' : formatFigure(spec(n).unit, p.p75[n]!))}</td>`).join('') + '</tr>'; }).join('') +
      '</tbody></table></div></details></section>';
    const breakdowns = onPath ? '' : breakdownTable(site, q, 'template', byTemplate.rows, labPages) +
      (crossed ? '' : breakdownTable(site, q, 'path', byPath.rows, labPages)) +
      breakdownTable(site, q, 'connection', byConnection.rows, labPages) + breakdownTable(site, q, 'browser', byBrowser.rows, labPages);
    const attr = `<section class="field-section" aria-labelledby="attr-h"><h2 id="attr-h">What slows real visitors</h2>` +
      `<p class="muted">From the ${views(attribution.views)} of the last ${site.rawRetentionDays} days kept whole (the raw retention), each with the p75 of the page views that named it.</p>` +
      `<div class="field-attrs">${attributionList('LCP elements', 'attr-lcp-el', attribution.lcpElements, 'time')}${attributionList('LCP resources', 'attr-lcp-src', attribution.lcpResources, 'time')}` +
      `${attributionList('INP targets', 'attr-inp-el', attribution.inpTargets, 'time')}${attributionList('INP scripts', 'attr-inp-script', attribution.inpScripts, 'time')}` +
      `${attributionList('CLS shift targets', 'attr-cls', attribution.clsTargets, 'cls')}</div></section>`;
    const settings = v.principal.role !== 'viewer' ? ` · <a href="/field/${esc(site.id)}/settings">Settings</a>` : '';
    const body = `<p class="tag-back"><a href="/field">All field sites</a>${settings}</p><h1>${esc(site.name)}</h1>` +
      `<p class="muted">${site.origins.map(esc).join(', ')} · ${site.sampleRate}% of page views measured</p>${fieldAlertsSummary(site, alerts)}` +
      // Nothing measured in the window: the empty state (pointing at the snippet) alone, not nine empty tables.
      `${live}${snippet}<div class="field-controls">${toggle}</div>${filters}${cards}${chart}${total === 0 && attribution.views === 0 ? '' : breakdowns + attr}`;
    return shell(v, nonce, { title: `Field: ${site.name}`, active: 'field', body });
  }

  async function settingsScreen(v: Visitor, nonce: string, site: FieldSite, form?: SiteForm, error?: string): Promise<string> {
    const body = `<p class="tag-back"><a href="/field/${esc(site.id)}">Back to ${esc(site.name)}</a></p><h1>Settings of ${esc(site.name)}</h1>
<form method="post" action="/field/${esc(site.id)}/settings" class="card field-form">${csrfField(v)}${errorBox(error)}${siteFields('edit', form ?? formOf(site))}
<button type="submit" class="btn">Save</button></form>
<section class="field-delete" aria-labelledby="delete-site"><h2 id="delete-site">Delete</h2><p class="muted">Deleting the site deletes every page view and figure collected for it; its snippet stops being taken.</p>
${actionButton(v, `/field/${site.id}/delete`, 'Delete field site', { style: 'danger', confirm: `Delete the field site “${site.name}” and everything collected for it?` })}</section>`;
    return shell(v, nonce, { title: `Settings of ${site.name}`, active: 'field', body });
  }

  async function ownedSite(v: Visitor, id: string): Promise<FieldSite> {
    if (!couldBeId(id)) throw fieldSiteNotFound(id);
    return requireFieldSite(store.db, v.principal.accountId, id);
  }

  async function attempt(reply: FastifyReply, run: () => Promise<FastifyReply>, again: (message: string) => Promise<string>): Promise<FastifyReply | string> {
    try {
      return await run();
    } catch (err) {
      const refused = formRefusal(reply, err);
      return again(`${refused.title}: ${refused.detail ?? ''}`);
    }
  }

  const idOf = (params: unknown) => (params as { id: string }).id;
  const originOf = (req: { protocol: string; host: string }) => ctx.config.publicUrl ?? `${req.protocol}://${req.host}`;

  kit.screen('/field', async (_req, _reply, v, nonce) => listScreen(v, nonce));

  kit.action('/field', async (_req, reply, v, form, nonce) => {
    assertOwnerRole(v.principal, 'create field sites');
    return attempt(reply, async () => {
      const site = await createFieldSite(store, v.principal, parseFieldSiteInput(attributesOf(valuesOf(form)), 'create'));
      return seeOther(reply, `/field/${encodeURIComponent(site.id)}`);
    }, (message) => listScreen(v, nonce, valuesOf(form), message));
  });

  kit.screen('/field/:id', async (req, _reply, v, nonce) => {
    const site = await ownedSite(v, idOf(req.params));
    return siteScreen(v, nonce, site, req.query as Record<string, unknown>, originOf(req));
  });

  // The live parts alone (an HTML fragment), for the script to take in place.
  kit.screen('/field/:id/live', async (req, reply, v) => {
    const site = await ownedSite(v, idOf(req.params));
    const q = parseFieldQuery(req.query as Record<string, unknown>);
    const html = liveParts(await readFieldIntake(store.db, site, q.days), q.days);
    return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff').send(html);
  });

  kit.screen('/field/:id/settings', async (req, _reply, v, nonce) => {
    const site = await ownedSite(v, idOf(req.params));
    assertOwnerRole(v.principal, 'change field sites');
    return settingsScreen(v, nonce, site);
  });

  kit.action('/field/:id/settings', async (req, reply, v, form, nonce) => {
    const site = await ownedSite(v, idOf(req.params));
    assertOwnerRole(v.principal, 'change field sites');
    return attempt(reply, async () => {
      await changeFieldSite(store, v.principal, site, parseFieldSiteInput(attributesOf(valuesOf(form)), 'patch'));
      ctx.field.ingest.forget(site.id);
      return seeOther(reply, `/field/${encodeURIComponent(site.id)}`);
    }, (message) => settingsScreen(v, nonce, site, valuesOf(form), message));
  });

  kit.action('/field/:id/delete', async (req, reply, v) => {
    const site = await ownedSite(v, idOf(req.params));
    await removeFieldSite(store, v.principal, site);
    ctx.field.ingest.forget(site.id);
    return seeOther(reply, '/field');
  });

  // The downloads, as the API gives them (the app's session, not an API key).
  kit.screen('/field/:id/daily.csv', async (req, reply, v) => {
    const site = await ownedSite(v, idOf(req.params));
    const { points } = await readFieldSeries(store.db, site, parseFieldQuery(req.query as Record<string, unknown>));
    return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="field-${site.id}-daily.csv"`).send(seriesCsv(points));
  });

  kit.screen('/field/:id/breakdown.csv', async (req, reply, v) => {
    const site = await ownedSite(v, idOf(req.params));
    const query = req.query as Record<string, unknown>;
    const by = parseBreakdown(query.by);
    const { rows } = await readFieldBreakdown(store.db, site, parseFieldQuery(query), by);
    return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="field-${site.id}-by-${by}.csv"`).send(breakdownCsv(by, rows));
  });
}
