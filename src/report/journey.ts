/**
 * A journey's parts of the report (page, app and PDF): its steps as a table with their figures, the measured step
 * highlighted and named in words, and the filmstrip cut at the step boundaries. Also the words for a step that the
 * app's progress screen uses for a journey that failed.
 */
import type { JourneyStepSummary, JourneySummary } from '../core/reports/journey-summary.js';
import { figure, formatFigure, headingOf, type FigureName } from '../analysis/figures.js';
import { esc, ms } from './format.js';

/** Lighthouse's words for a step's mode, as a person reads them. */
export const STEP_MODE: Record<JourneyStepSummary['mode'], string> = { navigation: 'Navigation', timespan: 'Timespan' };

/** The recording steps a measured step covers: "5", "2–4" (indices from 0, as journey_measured_step counts). */
export function recordingSteps(steps: readonly number[]): string {
  if (steps.length === 0) return '–';
  const [first, last] = [Math.min(...steps), Math.max(...steps)];
  return first === last ? String(first) : `${first}–${last}`;
}

/** "recording step 5", "recording steps 2–4". */
export const recordingStepsLabel = (steps: readonly number[]): string =>
  `recording step${steps.length > 1 ? 's' : ''} ${recordingSteps(steps)}`;

/** A step's name without the recording's title, which Lighthouse puts before every step's name. */
export function stepName(title: string, name: string): string {
  return title && name.startsWith(`${title}: `) ? name.slice(title.length + 2) : name;
}

/** A column of a figure of the one table: its short name as the heading, its label as the title, printed as its unit. */
const column = (name: FigureName, head = headingOf(figure(name))): (typeof COLUMNS)[number] => {
  const f = figure(name);
  return { head, title: f.label, show: (s) => fig(s, name, (v) => formatFigure(f.unit, v)) };
};
/** The figures of the table: a navigation's are a page load's, a timespan's its interactions' (– where none). */
const COLUMNS: { head: string; title: string; show: (s: JourneyStepSummary) => string }[] = [
  { head: 'Score', title: 'Lighthouse performance score', show: (s) => fig(s, 'performance_score', (v) => formatFigure('score', v)) },
  column('time_to_first_byte'),
  column('first_contentful_paint'),
  column('largest_contentful_paint'),
  {
    // Measured in a timespan only (not a report's figure): Lighthouse's INP of the step's interactions.
    head: 'INP', title: 'Interaction to next paint',
    show: (s) => (s.mode === 'timespan' && s.figures.interaction_to_next_paint === undefined ? 'no interaction' : fig(s, 'interaction_to_next_paint', ms)),
  },
  column('total_blocking_time'),
  column('cumulative_layout_shift'),
  column('page_requests'),
  column('page_bytes', 'Transferred'),
  { head: 'Duration', title: 'How long the step took', show: (s) => ms(s.duration) },
];

function fig(s: JourneyStepSummary, key: string, show: (v: number) => string): string {
  const v = s.figures[key];
  return v === undefined ? '–' : show(v);
}

/** The steps table: one row per measured step, the measured one marked (row colour and words). */
export function journeySteps(j: JourneySummary): string {
  const measured = j.steps.find((s) => s.measured);
  const rows = j.steps.map((s) => {
    const cells = COLUMNS.map((c) => {
      const v = c.show(s);
      return `<td class="num${v === '–' ? ' none' : ''}" data-label="${c.head}">${esc(v)}</td>`;
    }).join('');
    const warnings = s.warnings?.length ? `<ul class="step-warnings">${s.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>` : '';
    return `<tr${s.measured ? ' class="measured"' : ''}><td class="step-no" data-label="Recording steps">${esc(recordingSteps(s.steps))}</td>` +
      `<th scope="row" class="step-name">${esc(stepName(j.title, s.name))}` +
      `${s.measured ? ' <strong class="measured-tag">Measured step</strong>' : ''}` +
      `<span class="step-url">${esc(s.url)}</span>${warnings}</th>` +
      `<td data-label="Mode">${STEP_MODE[s.mode]}</td>${cells}</tr>`;
  }).join('');
  const note = measured
    ? `The report’s grade and figures are those of the measured step, ${esc(recordingStepsLabel(measured.steps))}: ${esc(stepName(j.title, measured.name))} (highlighted below).`
    : 'No step is marked as measured.';
  return `<section class="journey-part"><h2>Journey <small>“${esc(j.title)}”: ${j.steps.length} measured step${j.steps.length === 1 ? '' : 's'}</small></h2>` +
    `<div class="card"><p class="journey-note">${note} A navigation step is a page load; a timespan step is the interactions ` +
    `between two of them. Recording steps count from 0, as <code>journey_measured_step</code> does.</p>` +
    `<div class="steps-wrap" tabindex="0" role="group" aria-label="Journey steps"><table class="steps"><thead><tr><th scope="col" title="Recording steps">Steps</th><th scope="col">Step</th>` +
    `<th scope="col">Mode</th>${COLUMNS.map((c) => `<th scope="col" class="num" title="${c.title}">${c.head}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows}</tbody></table></div></div></section>`;
}

export interface FilmFrame {
  timestamp: number;
  src: string;
}

/** A step's place on the film (filmstrip.json's `steps`: ms since the journey's first navigation started). */
export interface FilmStep {
  index: number;
  name: string;
  mode: string;
  start: number;
  end: number;
}

/**
 * The film cut at the step boundaries: each frame goes with the last step that had begun when it was shown (the frames
 * between two steps show the page the earlier one left). `figure` draws one frame.
 */
export function filmBySteps(frames: readonly FilmFrame[], marks: readonly FilmStep[], journey: JourneySummary | undefined,
  figure: (f: FilmFrame) => string): string {
  const ordered = [...marks].sort((a, b) => a.start - b.start);
  return ordered.map((mark, i) => {
    const next = ordered[i + 1];
    const shown = frames.filter((f) => (i === 0 || f.timestamp >= mark.start) && (!next || f.timestamp < next.start));
    const mode = STEP_MODE[mark.mode as JourneyStepSummary['mode']] ?? mark.mode;
    const covers = journey?.steps.find((s) => s.index === mark.index)?.steps ?? [mark.index];
    // The row scrolls sideways when it is long: focusable, so that the keyboard can scroll it too.
    const id = `film-step-${mark.index}`;
    return `<div class="film-step"><h3 id="${id}">${esc(mode)} at ${esc(ms(mark.start))}: ${esc(stepName(journey?.title ?? '', mark.name))} ` +
      `<small>${recordingStepsLabel(covers)}, ${esc(ms(mark.end - mark.start))}</small></h3>` +
      `<div class="film" tabindex="0" role="group" aria-labelledby="${id}">${shown.map(figure).join('') || '<p class="muted">No frame: the screen did not change.</p>'}</div></div>`;
  }).join('');
}
