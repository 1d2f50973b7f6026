/**
 * A test on its way: queued (with how many are ahead), started, then the report opens; or the error. The
 * screen follows the test through server-sent events (GET /tests/{id}/events): the server pushes a change the
 * moment this process sees it (core/tests/test-signal.ts) and re-reads the test every few seconds for changes made by
 * another node. Without script the screen reloads itself every 5 s.
 */
import { getTest, queuePosition, testNotFound, type TestRow } from '../../core/tests/tests.js';
import { testsChanged } from '../../core/tests/test-signal.js';
import { couldBeId } from '../../core/ids.js';
import { newNonce, secureHeaders, visitorOf } from '../session.js';
import { esc, seeOther, shell, type WebKit } from '../kit.js';
import { failureScreenshotKey, readFailure, type StoredFailure } from '../../core/tests/journey-failure.js';
import { ApiError } from '../../core/errors.js';
import { ms } from '../../report/format.js';
import { recordingStepsLabel, STEP_MODE, stepName } from '../../report/journey.js';
import { journeyTitle } from './figures.js';
import type { Db } from '../../store/db.js';

/** How often a follower re-reads its test when nothing in this process said it changed. */
const REREAD_MS = 5_000;
/** A stream ends after this long (the browser reconnects on its own; no connection is held forever). */
const STREAM_MAX_MS = 10 * 60_000;

export interface TestStateEvent {
  state: string;
  position?: number;
  error?: string;
  report?: string;
  label: string;
}

export async function testStateEvent(db: Db, t: TestRow): Promise<TestStateEvent> {
  switch (t.state) {
    case 'queued': {
      const position = await queuePosition(db, t);
      return { state: t.state, position, label: position === 0 ? 'Queued: next in line' : `Queued: ${position} test${position === 1 ? '' : 's'} ahead` };
    }
    case 'started':
      return { state: t.state, label: 'Started: the page is loading in the browser' };
    case 'completed':
      return { state: t.state, label: 'Completed: opening the report', report: t.report_id ? `/reports/${t.report_id}` : undefined };
    default:
      return { state: 'error', label: 'The test failed', error: t.error ?? 'The test ended in error.' };
  }
}

/** What a failed journey got through: the steps that completed, and the screen the moment it failed. */
function failedJourney(testId: string, title: string, failure: StoredFailure): string {
  const items = failure.completed.map((c) => `<li><b>${esc(stepName(title, c.name))}</b><span class="failed-step-facts">${STEP_MODE[c.mode]}, ` +
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
    const ev = await testStateEvent(ctx.store.db, test);
    const running = ev.state === 'queued' || ev.state === 'started';
    const journey = journeyTitle(ctx.store.box, test.options);
    const failure = journey !== undefined && ev.state === 'error' ? await readFailure(ctx.artifacts, test.id) : undefined;
    // A journey that fails while followed is shown again, with the steps it completed (the script reloads the screen).
    const body = `<h1>Testing <span class="url">${esc(test.url)}</span></h1>
${journey !== undefined ? `<p class="progress-journey">Journey <b>“${esc(journey)}”</b></p>` : ''}
<div class="card" data-events="/tests/${esc(test.id)}/events" data-current="${esc(ev.state)}"${journey !== undefined ? ' data-reload-on-error' : ''}>
<p class="state" role="status" aria-live="polite" data-state>${esc(ev.label)}</p>
<p class="${ev.error ? 'error' : 'muted'}" data-detail>${esc(ev.error ?? '')}</p>
${running ? '<p class="muted">This page follows the test; the report opens when it completes.</p>' : ''}</div>
${failure ? failedJourney(test.id, journey ?? '', failure) : ''}
<p><a href="/">Analyze another page</a></p>`;
    return shell(v, nonce, { title: 'Test progress', active: 'analyze', body,
      head: running ? '<noscript><meta http-equiv="refresh" content="5"></noscript>' : undefined });
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
    try {
      while (!gone.signal.aborted && current && Date.now() < until) {
        const ev = await testStateEvent(ctx.store.db, current);
        const data = JSON.stringify(ev);
        if (data !== last) {
          res.write(`event: state\ndata: ${data}\n\n`);
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
