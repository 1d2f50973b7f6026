/**
 * What a failed journey leaves for its test's progress screen: the steps that completed and the screen the moment it
 * failed, kept beside the test (artifacts `tests/<id>/…`, removed with the test after 24 hours). Scrubbed of the test's
 * secrets like every file of a report.
 */
import type { ArtifactStore } from '../../artifacts/store.js';
import { anyObject, readJsonArtifact } from '../../artifacts/store.js';
import type { Store } from '../../store/db.js';
import { findTest } from '../../store/tests.js';
import type { JourneyProgress } from '../../runner/types.js';
import { secretScrubber, testSecrets } from '../options/secrets.js';
import { readOptions } from '../options/stored-options.js';

export type { JourneyProgress };

/** Where a test's failure is kept (apart from report folders, which are named by the report ID alone). */
export const failurePrefix = (testId: string): string => `tests/${testId}`;
const FAILURE_JSON = (testId: string) => `${failurePrefix(testId)}/failure.json`;
export const failureScreenshotKey = (testId: string): string => `${failurePrefix(testId)}/failure.jpg`;

/** The progress as kept: the steps that completed, and whether there is a screenshot. */
export interface StoredFailure {
  completed: JourneyProgress['completed'];
  screenshot: boolean;
}

const MAX_SCREENSHOT = 8 * 1024 * 1024;

/**
 * The progress an agent reported, checked (an agent's upload), or undefined when it is not one. JPEG only: the
 * screenshot is served as image/jpeg.
 */
export function checkedProgress(v: unknown): JourneyProgress | undefined {
  if (!anyObject<Record<string, unknown>>(v)) return undefined;
  const { completed, screenshot } = v;
  if (!Array.isArray(completed) || completed.length > 50) return undefined;
  const steps = completed.every((c) => anyObject<Record<string, unknown>>(c) && Number.isInteger(c.index) &&
    Array.isArray(c.steps) && c.steps.every(Number.isInteger) && typeof c.name === 'string' && c.name.length <= 2000 &&
    (c.mode === 'navigation' || c.mode === 'timespan') && (c.url === undefined || typeof c.url === 'string') &&
    typeof c.duration === 'number');
  if (!steps) return undefined;
  const jpeg = Buffer.isBuffer(screenshot) && screenshot.length <= MAX_SCREENSHOT && screenshot[0] === 0xff && screenshot[1] === 0xd8
    ? screenshot : undefined;
  return { completed: completed as JourneyProgress['completed'], screenshot: jpeg };
}

/** Keeps a failed journey's progress beside its test, scrubbed of the test's secrets. */
export async function storeFailure(store: Store, artifacts: ArtifactStore, testId: string, progress: JourneyProgress): Promise<void> {
  const test = await findTest(store.db, testId);
  if (!test) return;
  const scrub = secretScrubber(testSecrets(readOptions(store.box, test.options)));
  const kept: StoredFailure = { completed: scrub.json(progress.completed), screenshot: progress.screenshot !== undefined };
  const files = new Map<string, Buffer | string>([['failure.json', JSON.stringify(kept)]]);
  if (progress.screenshot) files.set('failure.jpg', progress.screenshot);
  await artifacts.putFolder(failurePrefix(testId), files);
}

/** A failed test's kept progress, if it was a journey that got somewhere. */
export async function readFailure(artifacts: ArtifactStore, testId: string): Promise<StoredFailure | undefined> {
  const stored = await readJsonArtifact(artifacts, FAILURE_JSON(testId), anyObject<StoredFailure>);
  return stored.state === 'ok' && Array.isArray(stored.value.completed) ? stored.value : undefined;
}
