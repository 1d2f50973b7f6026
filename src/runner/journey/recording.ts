/**
 * A journey: a Chrome DevTools Recorder recording (@puppeteer/replay's UserFlow), as the runner measures it. Pure
 * functions over the recording, shared by core (which checks a recording and charges its measured steps) and the
 * runner (which replays it): which steps Lighthouse measures and how (measuredSteps, as Lighthouse's own replay
 * extension groups them), how a step is named in reports and errors, and the `{{secrets.NAME}}` placeholders.
 * Steps are numbered from 0, as in the recording's `steps` array (and `journey_measured_step`).
 */
import { AssertedEventType, StepType, type Step, type UserFlow } from '@puppeteer/replay';

export type { Step, UserFlow as Recording };

/** Lighthouse's gather modes a journey uses (a snapshot is never made). */
export type StepMode = 'navigation' | 'timespan';

/** One step of Lighthouse's flow: a navigation (one recording step), or a timespan over consecutive interactions. */
export interface MeasuredStep {
  mode: StepMode;
  /** Indexes of the recording's steps it covers (one for a navigation). */
  steps: number[];
}

/** A step that navigates the tab: a `navigate`, or a step the Recorder saw navigate (assertedEvents). */
export function isNavigationStep(step: Step): boolean {
  return step.type === StepType.Navigate ||
    (step.assertedEvents ?? []).some((e) => e.type === AssertedEventType.Navigation);
}

/**
 * The steps Lighthouse measures: each navigation step alone, and every run of other steps between them as one timespan
 * (a setViewport at the start sets the screen and is not measured).
 */
export function measuredSteps(recording: Pick<UserFlow, 'steps'>): MeasuredStep[] {
  const out: MeasuredStep[] = [];
  recording.steps.forEach((step, i) => {
    if (step.type === StepType.SetViewport && i === 0) return;
    if (isNavigationStep(step)) {
      out.push({ mode: 'navigation', steps: [i] });
      return;
    }
    const last = out.at(-1);
    if (last?.mode === 'timespan') last.steps.push(i);
    else out.push({ mode: 'timespan', steps: [i] });
  });
  return out;
}

/** The navigation step whose figures the report gives: the one named, else the last one. */
export function defaultMeasuredStep(recording: Pick<UserFlow, 'steps'>): number {
  const navigations = measuredSteps(recording).filter((s) => s.mode === 'navigation');
  return navigations.at(-1)?.steps[0] ?? 0;
}

const first = (selector: string | string[]): string => (Array.isArray(selector) ? selector.join(' >> ') : selector);
const quoted = (s: string): string => JSON.stringify(s.length > 80 ? `${s.slice(0, 79)}…` : s);

/**
 * A step as reports and errors name it: its type and what it acts on (`click "aria/Add to cart"`), never a value
 * it types or an expression it evaluates (either may hold a secret).
 */
export function describeStep(step: Step): string {
  switch (step.type) {
    case StepType.Navigate:
      return `navigate ${step.url}`;
    case StepType.SetViewport:
      return `setViewport ${step.width}x${step.height}`;
    case StepType.KeyDown:
    case StepType.KeyUp:
      return `${step.type} ${quoted(step.key)}`;
    case StepType.Scroll:
      return 'selectors' in step && step.selectors ? `scroll ${quoted(first(step.selectors[0]))}` : 'scroll';
    default:
      if ('selectors' in step && Array.isArray(step.selectors) && step.selectors.length > 0) {
        return `${step.type} ${quoted(first(step.selectors[0]))}`;
      }
      return step.type;
  }
}

/** A measured step's name in the flow report: the recording's title and its steps. */
export function measuredStepName(title: string, recording: Pick<UserFlow, 'steps'>, measured: MeasuredStep): string {
  const steps = measured.steps.map((i) => describeStep(recording.steps[i]!));
  const shown = steps.length > 3 ? [...steps.slice(0, 3), `… (${steps.length} steps)`] : steps;
  return `${title}: ${shown.join(', ')}`;
}

/** `{{secrets.NAME}}`, spaces allowed inside the braces. */
const PLACEHOLDER = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Every string in a value, with where it stands (`url`, `selectors[0][1]`). */
function* strings(value: unknown, path = ''): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield* strings(v, `${path}[${i}]`);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* strings(v, path ? `${path}.${k}` : k);
  }
}

/** The secret names a step's strings ask for, with where each stands. */
export function placeholdersOf(step: unknown): { name: string; path: string }[] {
  const found: { name: string; path: string }[] = [];
  for (const [path, s] of strings(step)) {
    for (const m of s.matchAll(PLACEHOLDER)) found.push({ name: m[1]!, path });
  }
  return found;
}

/** Whether a string is nothing but one placeholder (a value that comes wholly from a secret). */
export function isOnlyPlaceholder(s: string): boolean {
  return new RegExp(`^${PLACEHOLDER.source}$`).test(s.trim());
}

/** A deep copy of the step with every placeholder filled from the secrets (run time only; never stored). */
export function fillSecrets<T>(step: T, secrets: Readonly<Record<string, string>>): T {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replace(PLACEHOLDER, (all, name: string) => secrets[name] ?? all);
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return fill(step) as T;
}
