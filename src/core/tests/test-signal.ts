import { QueueSignal } from './queue-signal.js';

/**
 * Wakes whoever follows a test in this process (the web app's live progress) when a test here was claimed,
 * completed, failed or handed back. Changes made by another node are seen by the followers' own slow re-read.
 */
export const testsChanged = new QueueSignal();
