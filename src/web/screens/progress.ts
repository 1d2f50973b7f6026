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

export function registerProgress(kit: WebKit): void {
  const { app, ctx } = kit;

  kit.screen('/tests/:id', async (req, reply, v, nonce) => {
    const { id } = req.params as { id: string };
    const test = couldBeId(id) ? await getTest(ctx.store.db, v.principal.accountId, id) : undefined;
    if (!test) throw testNotFound(id);
    if (test.state === 'completed' && test.report_id) return seeOther(reply, `/reports/${test.report_id}`);
    const ev = await testStateEvent(ctx.store.db, test);
    const running = ev.state === 'queued' || ev.state === 'started';
    const body = `<h1>Testing <span class="url">${esc(test.url)}</span></h1>
<div class="card" data-events="/tests/${esc(test.id)}/events" data-current="${esc(ev.state)}">
<p class="state" role="status" aria-live="polite" data-state>${esc(ev.label)}</p>
<p class="${ev.error ? 'error' : 'muted'}" data-detail>${esc(ev.error ?? '')}</p>
<p class="muted">This page follows the test; the report opens when it completes.</p></div>
<p><a href="/">Analyze another page</a></p>`;
    return shell(v, nonce, { title: 'Test progress', active: 'analyze', body,
      head: running ? '<noscript><meta http-equiv="refresh" content="5"></noscript>' : undefined });
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
