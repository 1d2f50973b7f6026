/**
 * `journey` of POST /tests: a Chrome DevTools Recorder recording, taken as the panel exports it (an object, or that
 * object as JSON text), read by @puppeteer/replay's own parser, then checked against what Webgauge can measure
 * honestly. Its `{{secrets.NAME}}` placeholders are filled from `journey_secrets` at run time only. Every refusal is
 * E40004 with a detail that names the step (`journey.steps[3]: …`); nothing is created.
 */
import { parse, parseStep, StepType, type Step, type UserFlow } from '@puppeteer/replay';
import { ApiError, isObject, show } from '../errors.js';
import { hasControlCharacter } from '../ids.js';
import {
  defaultMeasuredStep, fillSecrets, isOnlyPlaceholder, measuredSteps, placeholdersOf, type Recording,
} from '../../runner/journey/recording.js';

export type { Recording };

/** Limits of a recording (docs/journeys.md "Refused"). */
export const JOURNEY_LIMITS = { steps: 50, bytes: 256 * 1024, secrets: 20, secretChars: 1024 } as const;

const bad = (detail: string) => new ApiError('E40004', detail);
/** What a placeholder is replaced with to check a URL's shape (two, to tell whether it stands in the host). */
const STAND_INS = new Proxy({}, { get: () => 'secret', has: () => true }) as Record<string, string>;
const OTHER_STAND_INS = new Proxy({}, { get: () => 'other', has: () => true }) as Record<string, string>;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** What a recording asks of a test, once checked. */
export interface ParsedJourney {
  journey: Recording;
  secrets?: Record<string, string>;
  /** Index of the navigation step the report's figures come from. */
  measuredStep: number;
  /** The URL of its first navigation: the test's and the page's `url`. */
  url: string;
}

/**
 * A selector that names a password field (the Recorder writes `aria/Password`, `#password`, `[name="passwd"]`...): a
 * value typed there must come from journey_secrets. The runner checks the field's real type as well.
 */
const PASSWORD_SELECTOR = /pass(?:word|wd|code|phrase)|passwort|kennwort|contrase|\bpwd\b|type\s*=\s*["']?password/i;

/** The recording as an object: given as one, or as the JSON text the Recorder exports. */
function recordingObject(v: unknown): { value: unknown; bytes: number } {
  if (typeof v === 'string') {
    const bytes = Buffer.byteLength(v);
    if (bytes > JOURNEY_LIMITS.bytes) throw tooLarge(bytes);
    try {
      return { value: JSON.parse(v), bytes };
    } catch (err) {
      throw bad(`journey is not a Chrome DevTools Recorder recording: its text is not JSON (${(err as Error).message}); ` +
        'export the recording from the Recorder panel as JSON');
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(v) ?? '');
  if (bytes > JOURNEY_LIMITS.bytes) throw tooLarge(bytes);
  return { value: v, bytes };
}

const tooLarge = (bytes: number) =>
  bad(`journey is ${Math.ceil(bytes / 1024)} KB; a recording may be at most ${JOURNEY_LIMITS.bytes / 1024} KB`);

/** @puppeteer/replay's parser, one step at a time so a refusal names its step. */
function readRecording(v: unknown): UserFlow {
  if (!isObject(v) || Array.isArray(v)) {
    throw bad(`journey must be a Chrome DevTools Recorder recording (an object with "title" and "steps", or its JSON ` +
      `text); got ${show(v)}`);
  }
  const { steps } = v as { steps?: unknown };
  if (!Array.isArray(steps)) throw bad('journey is not a Chrome DevTools Recorder recording: it has no "steps" list');
  if (steps.length === 0) throw bad('journey has no steps; record at least a navigation');
  if (steps.length > JOURNEY_LIMITS.steps) {
    throw bad(`journey has ${steps.length} steps; a recording may have at most ${JOURNEY_LIMITS.steps}`);
  }
  let head: UserFlow;
  try {
    head = parse({ ...v, steps: [] });
  } catch (err) {
    throw bad(`journey is not a Chrome DevTools Recorder recording: ${(err as Error).message}`);
  }
  const parsed: Step[] = steps.map((step, i) => {
    try {
      return JSON.parse(JSON.stringify(parseStep(step, i))) as Step;
    } catch (err) {
      throw bad(`journey.steps[${i}]: ${(err as Error).message}`);
    }
  });
  return { ...head, steps: parsed };
}

/** Why Webgauge cannot honour a step, or undefined when it can. */
function refusal(step: Step, i: number): string | undefined {
  switch (step.type) {
    case StepType.CustomStep:
      return 'customStep cannot be replayed (Chrome\'s replay does nothing for it); remove the step';
    case StepType.EmulateNetworkConditions:
      return 'emulateNetworkConditions cannot change the link during a journey: the test\'s `throttle` names the link ' +
        'for every step; remove the step and give throttle';
    case StepType.Close:
      return 'close would end the journey\'s only tab; remove the step';
    case StepType.SetViewport:
      return i === 0 ? undefined : 'setViewport may only be the first step (the screen stays the same for every step, ' +
        'so that their figures compare); move it to the start or remove it';
  }
  if ('target' in step && step.target !== undefined && step.target !== 'main') {
    return `the step acts on another tab (target ${show(step.target)}); a journey runs in its one tab: record it there`;
  }
  return undefined;
}

function checkSecrets(v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (!isObject(v) || Array.isArray(v)) {
    throw bad(`journey_secrets must be an object of names and values such as {"PASSWORD": "…"}; got a ${Array.isArray(v) ? 'list' : typeof v}`);
  }
  const entries = Object.entries(v);
  if (entries.length > JOURNEY_LIMITS.secrets) throw bad(`journey_secrets has ${entries.length} entries; at most ${JOURNEY_LIMITS.secrets}`);
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    // Never quote a value: it is a secret.
    if (!SECRET_NAME.test(name)) {
      throw bad(`journey_secrets: ${show(name)} is not a secret name; use letters, digits and _ (not first), at most 64`);
    }
    if (typeof value !== 'string') throw bad(`journey_secrets.${name} must be a string`);
    if (value.length === 0) throw bad(`journey_secrets.${name} is empty`);
    if (value.length > JOURNEY_LIMITS.secretChars) throw bad(`journey_secrets.${name} is longer than ${JOURNEY_LIMITS.secretChars} characters`);
    if (hasControlCharacter(value)) throw bad(`journey_secrets.${name} must not contain control characters`);
    out[name] = value;
  }
  return entries.length > 0 ? out : undefined;
}

function checkMeasuredStep(v: unknown, journey: Recording): number {
  if (v === undefined || v === null || v === '') return defaultMeasuredStep(journey);
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n >= journey.steps.length) {
    throw bad(`journey_measured_step must be the index of a step of the journey (0 to ${journey.steps.length - 1}); got ${show(v)}`);
  }
  const navigation = measuredSteps(journey).some((m) => m.mode === 'navigation' && m.steps[0] === n);
  if (!navigation) {
    throw bad(`journey_measured_step ${n} is not a navigation step (a navigate step, or one the Recorder saw navigate: ` +
      'assertedEvents); its figures are a timespan\'s, not a page load\'s: name a navigation step');
  }
  return n;
}

/**
 * Checks a recording and its secrets. `checkUrl` is the single test's URL rule (scheme, no credentials), applied to
 * every navigate step; the target policy, which needs DNS, is applied when the test is requested (core/tests).
 */
export function parseJourney(
  a: Readonly<Record<string, unknown>>,
  checkUrl: (url: unknown) => string,
): ParsedJourney {
  const { value } = recordingObject(a.journey);
  const journey = readRecording(value);
  const secrets = checkSecrets(a.journey_secrets);
  let url: string | undefined;
  for (const [i, step] of journey.steps.entries()) {
    const why = refusal(step, i);
    if (why) throw bad(`journey.steps[${i}]: ${why}`);
    for (const { name, path } of placeholdersOf(step)) {
      if (!secrets || !(name in secrets)) {
        throw bad(`journey.steps[${i}].${path}: {{secrets.${name}}} names no secret; give it in journey_secrets ` +
          `({"${name}": "…"})`);
      }
    }
    if (step.type === StepType.Navigate) {
      try {
        // A URL with a secret in it is checked with a stand-in (and kept as written, so the placeholder stays whole).
        const withSecret = placeholdersOf(step.url).length > 0;
        const checked = checkUrl(withSecret ? fillSecrets(step.url, STAND_INS) : step.url);
        if (withSecret && new URL(checked).host !== new URL(checkUrl(fillSecrets(step.url, OTHER_STAND_INS))).host) {
          throw bad('a secret may stand in the path or query of a URL, not in its host');
        }
        if (!withSecret) step.url = checked;
      } catch (err) {
        if (err instanceof ApiError) throw bad(`journey.steps[${i}]: ${err.detail}`);
        throw err;
      }
    }
    if (step.type === StepType.Change && !isOnlyPlaceholder(step.value) && step.selectors.flat().some((s) => PASSWORD_SELECTOR.test(s))) {
      throw bad(`journey.steps[${i}]: the value typed into a password field must come from journey_secrets: write ` +
        '"{{secrets.NAME}}" as its value and give {"NAME": "…"} in journey_secrets (a recording is stored and shown; a secret is not)');
    }
    if (url === undefined && step.type !== StepType.SetViewport) {
      if (step.type !== StepType.Navigate) {
        throw bad(`journey.steps[${i}]: a journey starts in a new tab, so its first step (after setViewport) must be a ` +
          `navigate step; got ${step.type}`);
      }
      url = step.url;
    }
  }
  if (url === undefined) throw bad('journey has no navigate step; record at least a navigation');
  if (secrets) {
    const used = new Set(journey.steps.flatMap((s) => placeholdersOf(s).map((p) => p.name)));
    const unused = Object.keys(secrets).filter((n) => !used.has(n));
    if (unused.length > 0) throw bad(`journey_secrets ${unused.join(', ')} ${unused.length > 1 ? 'are' : 'is'} not used by any step; remove ${unused.length > 1 ? 'them' : 'it'} or write {{secrets.NAME}} where it belongs`);
  }
  return { journey, secrets, measuredStep: checkMeasuredStep(a.journey_measured_step, journey), url };
}

/**
 * How many measurements one run of a test makes: one page load, or each step of a journey Lighthouse measures. Each is
 * charged a test's credits, and each has the run time limit.
 */
export const measurementsPerRun = (o: { journey?: Pick<Recording, 'steps'> }): number =>
  (o.journey ? measuredSteps(o.journey).length : 1);
