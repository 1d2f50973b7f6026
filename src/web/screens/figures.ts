/** Small pieces of figures the app's lists and charts share. */
import { deviceClassOf, deviceClassSpec } from '../../core/vocabulary/device-classes.js';
import { readOptions, StoredOptionsError } from '../../core/options/stored-options.js';
import type { SecretBox } from '../../store/secret-box.js';
import { bandsText, figure, formatFigure, headingOf, rate, RATING_WORDS, type FigureName, type RatedFigure } from '../../analysis/figures.js';
import { GRADE_COLOUR } from '../../report/page.js';
import { esc } from '../kit.js';

/** Black or white text, whichever reads better on `hex` (WCAG relative luminance). */
export function inkOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with white (1.05 / (l + .05)) against contrast with black ((l + .05) / .05).
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#fff' : '#111';
}

/** A report's grade as a coloured letter with its percentage for screen readers. */
export function gradeBox(r: { service_grade: string | null; service_score: number | null }): string {
  if (!r.service_grade) return '<span class="muted">–</span>';
  const bg = GRADE_COLOUR[r.service_grade] ?? '#667085';
  return `<span class="gradebox" style="background:${bg};color:${inkOn(bg)}" title="${r.service_score}%">${esc(r.service_grade)}</span>` +
    `<span class="muted"> ${r.service_score}%</span>`;
}

/** Column headings of figures of the one table, by their short names ("LCP", "Fully loaded"), numbers aligned. */
export const figureHeads = (...names: FigureName[]): string =>
  names.map((n) => `<th scope="col" class="num">${esc(headingOf(figure(n)))}</th>`).join('');

/**
 * A rated figure's table cell, coloured by its band (the one table's limits, the report's Web Vitals colours) and
 * titled with the band in words and its limits; no value is a dash.
 */
export function ratedCell(name: RatedFigure, v: number | null | undefined): string {
  const f = figure(name);
  if (v === null || v === undefined || !Number.isFinite(v)) return '<td class="num">–</td>';
  const r = rate(name, v);
  return `<td class="num rated-${r}" title="${esc(`${RATING_WORDS[r]} (${bandsText(name)})`)}">${esc(formatFigure(f.unit, v))}</td>`;
}

/** "2026-11-25 14:02" (UTC, to the minute): when, in the app's tables and headings. */
export const utcMinute = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/** "1 page", "1,200 pages". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/**
 * The title of a test's journey (its stored options), or undefined for a test of one URL. Options that cannot be read
 * give no title: a list that names journeys must not fail on one damaged row.
 */
/** A test's device in words when it is a phone ("Phone (mid-tier)"); undefined for a desktop or options that do not read. */
export function phoneLabel(box: SecretBox, storedOptions: string, cpuThrottle: boolean): string | undefined {
  try {
    const cls = deviceClassOf(readOptions(box, storedOptions), cpuThrottle);
    return cls === 'desktop' ? undefined : deviceClassSpec(cls).label;
  } catch (err) {
    if (err instanceof StoredOptionsError) return undefined;
    throw err;
  }
}

export function journeyTitle(box: SecretBox, storedOptions: string): string | undefined {
  try {
    return readOptions(box, storedOptions).journey?.title;
  } catch (err) {
    if (err instanceof StoredOptionsError) return undefined;
    throw err;
  }
}
