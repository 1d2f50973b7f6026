/**
 * One recording step replayed on the load's page by @puppeteer/replay's own PuppeteerRunnerExtension (Chrome's replay:
 * locators racing the step's selectors, fills, keys, scrolls, waits), with what Webgauge adds around it:
 * - its `{{secrets.NAME}}` placeholders filled just before it runs (the filled step lives only in memory);
 * - no value of the recording typed into a password field (it would be stored and shown; a secret is not);
 * - navigations left to the load wait (load-wait.ts), which waits for the whole load, not only its load event;
 * - a failure in words that name the step, what it waited for and for how long.
 */
import { PuppeteerRunnerExtension, selectorToPElementSelector, StepType, type Step } from '@puppeteer/replay';
import { Locator, TimeoutError, type Browser, type Frame, type Page } from 'puppeteer-core';
import { describeStep, fillSecrets, isOnlyPlaceholder, type Recording } from './recording.js';

/** The Recorder's own default for a step that names no timeout. */
export const DEFAULT_STEP_TIMEOUT_MS = 5000;

/** A step that could not be done, in the words the user reads (already naming the step). */
export class StepFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepFailure';
  }
}

type WithSelectors = Extract<Step, { selectors?: unknown }>;
const selectorsOf = (step: Step): (string | string[])[] =>
  'selectors' in step && Array.isArray((step as WithSelectors).selectors) ? (step as { selectors: (string | string[])[] }).selectors : [];

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export class StepReplayer {
  private readonly extension: PuppeteerRunnerExtension;

  constructor(browser: Browser, private readonly page: Page, private readonly recording: Recording,
    private readonly secrets: Readonly<Record<string, string>>) {
    this.extension = new PuppeteerRunnerExtension(browser, page, { timeout: DEFAULT_STEP_TIMEOUT_MS });
  }

  /** How long the step may wait: its own timeout, else the recording's, else the Recorder's default. */
  timeoutOf(index: number): number {
    return this.recording.steps[index]?.timeout ?? this.recording.timeout ?? DEFAULT_STEP_TIMEOUT_MS;
  }

  /** `journey step 5 (click "aria/Add to cart")`: how every message about a step begins. */
  name(index: number): string {
    return `journey step ${index} (${describeStep(this.recording.steps[index]!)})`;
  }

  /** The step's URL with its placeholders filled (navigate steps, which the load wait navigates to). */
  urlOf(index: number): string {
    const step = this.recording.steps[index]!;
    if (step.type !== StepType.Navigate) throw new Error(`step ${index} is not a navigate step`);
    return fillSecrets(step, this.secrets).url;
  }

  /** Replays the step; a StepFailure says why it could not be done. */
  async run(index: number): Promise<void> {
    const stored = this.recording.steps[index]!;
    // The step's navigation, if it announces one, is the load wait's to wait for.
    const { assertedEvents: _navigation, ...step } = fillSecrets(stored, this.secrets);
    if (step.type === StepType.Change && !isOnlyPlaceholder((stored as { value: string }).value) &&
      (await this.typesIntoPasswordField(index, step))) {
      throw new StepFailure(`${this.name(index)}: it types a value written in the recording into a password field; ` +
        'give the value in journey_secrets and write {{secrets.NAME}} as the step\'s value');
    }
    try {
      await this.extension.runStep(step as Step, this.recording);
    } catch (err) {
      throw await this.failure(index, step as Step, err);
    }
  }

  /** A step's error (StepFailure or not) in the user's words. */
  async failure(index: number, step: Step, err: unknown): Promise<StepFailure> {
    if (err instanceof StepFailure) return err;
    const timeout = this.timeoutOf(index);
    const message = err instanceof Error ? err.message : String(err);
    const timedOut = err instanceof TimeoutError || /timed? ?out/i.test(message);
    let why: string;
    if (step.type === StepType.WaitForElement) {
      const { operator = '>=', count = 1, visible = true } = step;
      why = `no ${operator} ${count} ${visible ? 'visible ' : 'hidden '}element(s) matched within ${seconds(timeout)}`;
    } else if (step.type === StepType.WaitForExpression) {
      const expression = (this.recording.steps[index] as { expression: string }).expression;
      const shown = expression.length > 80 ? `${expression.slice(0, 79)}…` : expression;
      why = `its expression ${JSON.stringify(shown)} did not become true within ${seconds(timeout)}`;
    } else if (timedOut && selectorsOf(step).length > 0) {
      why = (await this.anyMatches(step))
        ? `an element matched but did not become visible, enabled and still within ${seconds(timeout)}`
        : `no element matched in ${seconds(timeout)}`;
    } else {
      why = timedOut ? `it did not finish within ${seconds(timeout)}` : message.split('\n')[0]!;
    }
    return new StepFailure(`${this.name(index)}: ${why}`);
  }

  /** The frame a step acts in (its `frame` path of child-frame indexes). */
  private frameOf(step: Step): Frame | undefined {
    let frame: Frame | undefined = this.page.mainFrame();
    for (const i of ('frame' in step && Array.isArray(step.frame) ? step.frame : [])) frame = frame?.childFrames()[i];
    return frame;
  }

  /** Whether any of the step's selectors matches an element now. */
  private async anyMatches(step: Step): Promise<boolean> {
    const frame = this.frameOf(step);
    if (!frame) return false;
    for (const selector of selectorsOf(step)) {
      try {
        const found = await frame.$$(selectorToPElementSelector(selector));
        await Promise.all(found.map((h) => h.dispose()));
        if (found.length > 0) return true;
      } catch {
        // a selector the page cannot evaluate matches nothing
      }
    }
    return false;
  }

  /** Whether the element the change step types into is a password field (waits for it as the step would). */
  private async typesIntoPasswordField(index: number, step: Step): Promise<boolean> {
    const frame = this.frameOf(step);
    if (!frame) return false;
    let handle;
    try {
      handle = await Locator.race(selectorsOf(step).map((s) => frame.locator(selectorToPElementSelector(s))))
        .setTimeout(this.timeoutOf(index)).waitHandle();
    } catch (err) {
      throw await this.failure(index, step, err);
    }
    try {
      return await handle.evaluate((el) => el instanceof HTMLInputElement && el.type === 'password');
    } finally {
      await handle.dispose();
    }
  }
}
