/**
 * A test on its way: queued (with how many are ahead), then its phases as its agent reports them (launching, loading,
 * audits, storing: core/tests/phases.ts), the time elapsed and how long a test at its location takes; then the report
 * opens; or the error, with Retest. The screen follows the test through server-sent events (GET /tests/{id}/events): the server pushes a change the
 * moment this process sees it (core/tests/test-signal.ts) and re-reads the test every few seconds for changes made by
 * another node. Without script the screen reloads itself every 5 s.
 */
import { getTest, queuePosition, requestTest, runEstimate, testNotFound, type TestRow } from '../../core/tests/tests.js';
import { currentStep, durationText, estimateText, PROGRESS_STEPS, startedLabel, stepName, type ProgressStep } from '../../core/tests/phases.js';
import { readOptions, StoredOptionsError } from '../../core/options/stored-options.js';
import { runCount } from '../../core/options/analysis-options.js';
import { runnerBrowser } from '../../core/catalog/catalog.js';
import { clock } from '../../core/clock.js';
import { testsChanged } from '../../core/tests/test-signal.js';
import { couldBeId } from '../../core/ids.js';
import { newNonce, secureHeaders, visitorOf } from '../session.js';
import { actionButton, esc, seeOther, shell, type WebKit } from '../kit.js';
import { failureScreenshotKey, readFailure, type StoredFailure } from '../../core/tests/journey-failure.js';
import { ApiError } from '../../core/errors.js';
import { ms } from '../../report/format.js';
import { recordingStepsLabel, STEP_MODE, stepName as journeyStepName } from '../../report/journey.js';
import { journeyTitle } from './figures.js';
import type { Db } from '../../store/db.js';

/** How often a follower re-reads its test when nothing in this process said it changed. */
const REREAD_MS = 5_000;
/** A stream ends after this long (the browser reconnects on its own; no connection is held forever). */
const STREAM_MAX_MS = 10 * 60_000;

export interface TestStateEvent {
  state: string;
  /** Where the test is among PROGRESS_STEPS (queued or started only). */
  step?: ProgressStep;
  position?: number;
  error?: string;
  report?: string;
  label: string;
  /** Since the test was asked for (ms), when the event was made: the screen ticks on from it. */
  elapsed_ms: number;
}

/** What the screen needs of a test besides its row: how many loads it makes, and whether Firefox makes them. */
export interface TestTraits {
  runs: number;
  firefox: boolean;
}

export function testTraits(kit: WebKit, t: TestRow): TestTraits {
  let runs = 1;
  try {
    runs = runCount(readOptions(kit.ctx.store.box, t.options));
  } catch (err) {
    if (!(err instanceof StoredOptionsError)) throw err;
  }
  return { runs, firefox: runnerBrowser(kit.ctx.catalog.browser(t.browser)) === 'firefox' };
}

export async function testStateEvent(db: Db, t: TestRow, traits: TestTraits): Promise<TestStateEvent> {
  const elapsed_ms = Math.max(0, (t.finished ?? clock.now()) - t.created);
  const step = currentStep(t.state, t.phase);
  switch (t.state) {
    case 'queued': {
      const position = await queuePosition(db, t);
      return { state: t.state, step, position, elapsed_ms,
        label: position === 0 ? 'Queued: next in line' : `Queued: ${position} test${position === 1 ? '' : 's'} ahead` };
    }
    case 'started':
      return { state: t.state, step, elapsed_ms, label: startedLabel(t.phase, t.phase_run, traits.runs, traits.firefox) };
    case 'completed':
      return { state: t.state, elapsed_ms, label: 'Completed: opening the report', report: t.report_id ? `/reports/${t.report_id}` : undefined };
    default:
      return { state: 'error', elapsed_ms, label: 'The test failed', error: t.error ?? 'The test ended in error.' };
  }
}

/** The steps of a test's progress, those behind it marked done and the current one as the current step. */
function stepsList(current: ProgressStep | undefined, firefox: boolean): string {
  const at = current ? PROGRESS_STEPS.indexOf(current) : -1;
  return `<ol class="progress-steps" aria-label="Steps of the test" data-steps>${PROGRESS_STEPS.map((step, i) =>
    `<li data-step="${step}"${i < at ? ' class="done"' : i === at ? ' class="current" aria-current="step"' : ''}>${esc(stepName(step, firefox))}</li>`).join('')}</ol>`;
}

/** What a failed journey got through: the steps that completed, and the screen the moment it failed. */
function failedJourney(testId: string, title: string, failure: StoredFailure): string {
  const items = failure.completed.map((c) => `<li><b>${esc(journeyStepName(title, c.name))}</b><span class="failed-step-facts">${STEP_MODE[c.mode]}, ` +
    `${esc(recordingStepsLabel(c.steps))}, ${esc(ms(c.duration))}</span>${c.url ? `<span class="failed-step-url">${esc(c.url)}</span>` : ''}</li>`).join('');
  const steps = failure.completed.length === 0
    ? '<p class="muted">No step completed: the journey failed at its first step.</p>'
    : `<ol class="failed-steps">${items}</ol>`;
  const shot = failure.screenshot
    ? `<figure class="failure-shot"><figcaption>The screen the moment the journey failed</figcaption>` +
      `<img src="/tests/${esc(testId)}/failure.jpg" alt="the page on screen when the journey failed"></figure>`
    : '<p class="muted">No screenshot: the browser could not take one when the journey failed.</p>';
  return `<section class="card failed-journey" aria-labelledby="failed-steps"><h2 id="failed-steps">Steps that completed</h2>${steps}${shot}</section>`;
}

export function registerProgress(kit: WebKit): void {
  const { app, ctx } = kit;

  kit.screen('/tests/:id', async (req, reply, v, nonce) => {
    const { id } = req.params as { id: string };
    const test = couldBeId(id) ? await getTest(ctx.store.db, v.principal.accountId, id) : undefined;
    if (!test) throw testNotFound(id);
    if (test.state === 'completed' && test.report_id) return seeOther(reply, `/reports/${test.report_id}`);
    const traits = testTraits(kit, test);
    const ev = await testStateEvent(ctx.store.db, test, traits);
    const running = ev.state === 'queued' || ev.state === 'started';
    const journey = journeyTitle(ctx.store.box, test.options);
    const failure = journey !== undefined && ev.state === 'error' ? await readFailure(ctx.artifacts, test.id) : undefined;
    const location = ctx.catalog.location(test.location)?.name ?? test.location;
    const estimate = running ? await runEstimate(ctx.store.db, test.location) : undefined;
    const timing = running
      ? `<p class="progress-time">Elapsed <b data-elapsed="${ev.elapsed_ms}">${esc(durationText(ev.elapsed_ms))}</b></p>` +
        `<p class="muted progress-estimate">${esc(estimate ? estimateText(estimate, location)
          : `No test has completed at ${location} lately: there is no estimate of how long one takes yet.`)}</p>` +
        '<p class="muted">This page follows the test; the report opens when it completes.</p>'
      : ev.state === 'error' ? `<p class="muted">Failed after ${esc(durationText(ev.elapsed_ms))}; its credits were given back.</p>` : '';
    const retest = ev.state === 'error' && v.principal.role !== 'viewer'
      ? `<div class="actions">${actionButton(v, `/tests/${test.id}/retest`, 'Retest')}</div>` : '';
    // A test that fails while followed is shown again, as a failed one (the script reloads the screen).
    const body = `<h1>Testing <span class="url">${esc(test.url)}</span></h1>
${journey !== undefined ? `<p class="progress-journey">Journey <b>“${esc(journey)}”</b></p>` : ''}
<div class="card progress-card"${running ? ` data-events="/tests/${esc(test.id)}/events"` : ''} data-current="${esc(ev.state)}">
<p class="state" role="status" aria-live="polite" data-state>${esc(ev.label)}</p>
${running ? stepsList(ev.step, traits.firefox) : ''}
${ev.error ? `<p class="error" data-detail>${esc(ev.error)}</p>` : ''}
${timing}${retest}</div>
${failure ? failedJourney(test.id, journey ?? '', failure) : ''}
<p><a href="/">Analyze another page</a></p>`;
    return shell(v, nonce, { title: 'Test progress', active: 'analyze', body,
      head: running ? '<noscript><meta http-equiv="refresh" content="5"></noscript>' : undefined });
  });

  /** "Retest" of a test that failed (any test of the account): the same options, as a report's Retest. */
  kit.action('/tests/:id/retest', async (req, reply, v) => {
    const { id } = req.params as { id: string };
    const test = couldBeId(id) ? await getTest(ctx.store.db, v.principal.accountId, id) : undefined;
    if (!test) throw testNotFound(id);
    const started = await requestTest(ctx.intake, v.principal, readOptions(ctx.store.box, test.options), 'on-demand');
    return seeOther(reply, `/tests/${started.test.id}`);
  });

  /** The screen when a journey failed: its test's own account only (another gets 404, as for the test). */
  kit.screen('/tests/:id/failure.jpg', async (req, reply, v) => {
    const { id } = req.params as { id: string };
    const test = couldBeId(id) ? await getTest(ctx.store.db, v.principal.accountId, id) : undefined;
    const jpeg = test ? await ctx.artifacts.get(failureScreenshotKey(test.id)) : null;
    if (!test) throw testNotFound(id);
    if (!jpeg) throw new ApiError('E40405', `Test ${id} kept no screenshot: only a journey that fails keeps one, for 24 hours.`);
    return reply.header('Cache-Control', 'private, no-store').type('image/jpeg').send(jpeg);
  });

  app.get('/tests/:id/events', async (req, reply) => {
    const v = await visitorOf(ctx, req);
    const { id } = req.params as { id: string };
    const test = v && couldBeId(id) ? await getTest(ctx.store.db, v.principal.accountId, id) : undefined;
    if (!v || !test) return secureHeaders(reply, newNonce()).code(404).type('text/plain').send(v ? testNotFound(id).detail : 'Sign in first.');
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const until = Date.now() + STREAM_MAX_MS;
    let last = '';
    let current: TestRow | undefined = test;
    const traits = testTraits(kit, test);
    try {
      while (!gone.signal.aborted && current && Date.now() < until) {
        const ev = await testStateEvent(ctx.store.db, current, traits);
        // A new event when the test moved, not when only its elapsed time did (the screen ticks that itself).
        const data = JSON.stringify({ ...ev, elapsed_ms: 0 });
        if (data !== last) {
          res.write(`event: state\ndata: ${JSON.stringify(ev)}\n\n`);
          last = data;
        } else res.write(': still here\n\n');
        if (ev.state === 'completed' || ev.state === 'error') break;
        await testsChanged.wait(REREAD_MS, gone.signal);
        current = await getTest(ctx.store.db, v.principal.accountId, id);
      }
    } catch (err) {
      req.log.warn({ err }, 'test event stream ended');
    }
    res.end();
  });
}
