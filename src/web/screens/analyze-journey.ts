/**
 * Analyze's journey fields: a Chrome DevTools Recorder recording (pasted, or its file), the secrets its
 * `{{secrets.NAME}}` placeholders take, and the measured step. They become POST /tests's `journey`, `journey_secrets`
 * and `journey_measured_step` as they are given; core's parser (core/options/journey.ts) checks them and says what is
 * wrong in the API's words. Secrets are write-only: never written back into a page, not even after an error.
 *
 * Without script the form posts the file (multipart) and it replaces the pasted text; with script (client/app.ts) the
 * file is read into "Recording" at once and its input emptied, so what is sent is what the person sees.
 */
import { ApiError } from '../../core/errors.js';
import { JOURNEY_LIMITS } from '../../core/options/journey.js';
import type { FormFields } from '../session.js';
import { esc, formField } from '../kit.js';

/** The form's names (the API's attribute names, and the file's own). */
export const JOURNEY_FIELD = { recording: 'journey', file: 'journey_file', secrets: 'journey_secrets', measuredStep: 'journey_measured_step' } as const;

/** The recording the form gives: a chosen file replaces the pasted text; blank is none. */
export function recordingText(form: FormFields): string | undefined {
  const text = [form.get(JOURNEY_FIELD.file), form.get(JOURNEY_FIELD.recording)].find((t) => t !== undefined && t.trim() !== '');
  return text;
}

/**
 * "Secrets" as journey_secrets: one NAME=value per line, the value exactly as typed after the first "=". A line that
 * is no such pair, or a name given twice, is refused here (the object core checks cannot show either); a value is
 * never quoted.
 */
export function secretsFromForm(text: string | undefined): Record<string, string> | undefined {
  const secrets: Record<string, string> = {};
  const lineOf = new Map<string, number>();
  (text ?? '').split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const eq = line.indexOf('=');
    const name = eq < 0 ? '' : line.slice(0, eq).trim();
    if (name === '') throw new ApiError('E40004', `Secrets: line ${i + 1} is not NAME=value; write one secret per line: its name, "=" and its value`);
    const first = lineOf.get(name);
    if (first !== undefined) throw new ApiError('E40004', `Secrets: ${name} is given twice (lines ${first} and ${i + 1}); give each name once`);
    lineOf.set(name, i + 1);
    secrets[name] = line.slice(eq + 1);
  });
  return lineOf.size > 0 ? secrets : undefined;
}

/**
 * The recording and its secrets as POST /tests attributes (none when not given). journey_measured_step is an integer
 * option: Analyze's other fields of that kind carry it.
 */
export function journeyAttributes(form: FormFields): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  const recording = recordingText(form);
  if (recording !== undefined) a.journey = recording;
  const secrets = secretsFromForm(form.get(JOURNEY_FIELD.secrets));
  if (secrets) a.journey_secrets = secrets;
  return a;
}

/** Whether the person gave any of the journey's fields (the part opens again to show them). */
export const journeyGiven = (form: FormFields): boolean =>
  Object.values(JOURNEY_FIELD).some((k) => (form.get(k) ?? '').trim() !== '');

/** The journey part of the Analyze form; after an error, what was given comes back, but never the secrets. */
export function journeyFields(form: FormFields): string {
  const { recording, file, secrets, measuredStep } = JOURNEY_FIELD;
  const secretsGiven = (form.get(secrets) ?? '').trim() !== '';
  const secretsHint = 'one <code>NAME=value</code> per line, for the recording’s <code>{{secrets.NAME}}</code>; write-only: never shown again' +
    (secretsGiven ? '. <strong>Type them again: the secrets you gave were not sent back.</strong>' : '');
  return `<details class="card journey"${journeyGiven(form) ? ' open' : ''}><summary>Journey</summary>
<p class="muted">Measure several steps (sign in, then the dashboard…) from a Chrome DevTools Recorder recording: in the Recorder panel, ` +
    `export it as JSON. With a recording, leave URL empty: its first navigation is the page.</p>
${formField(`f-${recording}`, 'Recording', (d) => `<textarea id="f-${recording}" name="${recording}" rows="6" spellcheck="false"${d}>${esc(recordingText(form) ?? '')}</textarea>`,
    `the recording’s JSON text (up to ${JOURNEY_LIMITS.steps} steps, ${JOURNEY_LIMITS.bytes / 1024} KB)`)}
${formField(`f-${file}`, 'Recording file', (d) => `<input id="f-${file}" name="${file}" type="file" accept=".json,application/json" data-fills="f-${recording}"${d}><span class="hint" role="status" data-read-note></span>`,
    'or the exported file: it replaces the text above')}
<div class="row">${formField(`f-${secrets}`, 'Secrets', (d) => `<textarea id="f-${secrets}" name="${secrets}" rows="2" spellcheck="false" autocomplete="off"${d}></textarea>`,
    secretsHint)}
${formField(`f-${measuredStep}`, 'Measured step', (d) => `<input id="f-${measuredStep}" name="${measuredStep}" type="number" min="0" max="${JOURNEY_LIMITS.steps - 1}" step="1" value="${esc(form.get(measuredStep) ?? '')}"${d}>`,
    'optional: the index (from 0) of the navigation step whose load gives the report’s figures and grade; by default the last')}</div>
<button class="btn" type="submit">Analyze the journey</button></details>`;
}
