/**
 * The agent protocol, server side (docs/agent-protocol.md): remote agents sign in with a token of their location,
 * say hello, claim tests of their location (long-poll), renew leases, upload results (checksummed, stored whole or
 * not at all, idempotent), report failures and hand tests back. JSON in and out, errors as {error: {code, message}}.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { completeWork, claimWork, failWork } from '../../core/tests/agent-work.js';
import { DATABASE_RETRY_AFTER_S } from '../../core/errors.js';
import { checkedProgress, type JourneyProgress } from '../../core/tests/journey-failure.js';
import { agentBrowsers, agentSeen, agentTokenLocation, announceAgent, isAgentOf } from '../../core/catalog/locations.js';
import { releaseTest, renewLease } from '../../core/tests/tests.js';
import { checkedPhaseReport, TEST_PHASES, type PhaseReport } from '../../core/tests/phases.js';
import {
  AGENT_ID_HEADER, AGENT_PREFIX, AGENT_PROTOCOL, AGENT_PROTOCOL_HEADER, CHECKSUM_HEADER, MAX_CLAIM_WAIT_MS, MAX_RESULT_BYTES,
  type ClaimResponse, type HelloResponse, type ProtocolError,
} from '../../agent/protocol.js';
import { bundleChecksum, BundleError, decodeBundle } from '../../agent/result-bundle.js';
import type { AppContext } from '../../context/app-context.js';

class ProtocolFailure extends Error {
  constructor(readonly status: number, readonly code: ProtocolError['error']['code'], message: string) {
    super(message);
  }
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

function field<T>(body: unknown, name: string, check: (v: unknown) => v is T, what: string): T {
  const v = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (!check(v)) throw new ProtocolFailure(400, 'input', `${name} must be ${what}`);
  return v;
}
const isId = (v: unknown): v is string => typeof v === 'string' && ID.test(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= 1024;
const isIds = (v: unknown): v is string[] => Array.isArray(v) && v.length <= 16 && v.every(isId);

function json(req: FastifyRequest): unknown {
  if (typeof req.body !== 'string' || req.body === '') return {};
  try {
    return JSON.parse(req.body);
  } catch {
    throw new ProtocolFailure(400, 'input', 'the body is not JSON');
  }
}

export function registerAgentProtocol(app: FastifyInstance, ctx: AppContext): void {
  const { store, locations: directory } = ctx;

  /** The token's location; the protocol version checked first (an old agent is told to upgrade, not "bad token"). */
  async function signedIn(req: FastifyRequest): Promise<{ tokenId: string; location: string }> {
    const protocol = req.headers[AGENT_PROTOCOL_HEADER];
    if (protocol !== String(AGENT_PROTOCOL)) {
      throw new ProtocolFailure(426, 'protocol', `this server speaks agent protocol ${AGENT_PROTOCOL}; the agent sent ` +
        `${protocol === undefined ? 'none' : JSON.stringify(protocol)}: run an agent of the server's version`);
    }
    const auth = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const who = m ? await agentTokenLocation(store.db, m[1]!) : undefined;
    if (!who) throw new ProtocolFailure(401, 'token', 'the agent token is wrong or revoked (webgauge agent token create --location ID makes one)');
    return who;
  }

  /**
   * A request of an agent at work: signed in, naming itself (`agent_id` in the JSON body, or the header of a result
   * upload), and known to have said hello with a token of the same location.
   */
  async function agentRequest(req: FastifyRequest, fromHeader = false): Promise<{ location: string; agentId: string; body: unknown }> {
    const { location } = await signedIn(req);
    const body = fromHeader ? undefined : json(req);
    const agentId = fromHeader ? req.headers[AGENT_ID_HEADER] : field(body, 'agent_id', isId, 'an ID');
    if (!isId(agentId)) throw new ProtocolFailure(400, 'input', `the ${AGENT_ID_HEADER} header must name the agent`);
    if (!(await isAgentOf(store.db, agentId, location))) throw new ProtocolFailure(404, 'unknown_agent', `agent ${agentId} has not said hello to this service`);
    return { location, agentId, body };
  }

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: MAX_RESULT_BYTES }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err, req, reply) => {
      if (err instanceof ProtocolFailure) return reply.code(err.status).send({ error: { code: err.code, message: err.message } });
      const status = (err as { statusCode?: number }).statusCode;
      if (status && status >= 400 && status < 500) return reply.code(status).send({ error: { code: 'input', message: (err as Error).message } });
      // The database away or the disk full: said once by the store's health; the agent retries.
      if (store.health.noticed(err)) {
        return reply.code(503).header('Retry-After', String(DATABASE_RETRY_AFTER_S))
          .send({ error: { code: 'unavailable', message: 'the service\'s database or storage is unavailable for now; try again' } });
      }
      req.log.error({ err }, 'agent protocol request failed');
      return reply.code(500).send({ error: { code: 'internal', message: 'internal error of the service; try again' } });
    });

    scope.post('/hello', async (req, reply) => {
      const who = await signedIn(req);
      const body = json(req);
      const agentId = field(body, 'agent_id', isId, 'an ID (letters, digits, - and _)');
      await announceAgent(store.db, {
        agentId, location: who.location, tokenId: who.tokenId,
        version: field(body, 'version', isText, 'a version string'),
        hostname: field(body, 'hostname', isText, 'the agent machine\'s name'),
        browsers: field(body, 'browsers', isIds, 'a list of browser IDs'),
        slots: field(body, 'slots', isCount, 'the number of tests the agent runs at once'),
      });
      await directory.refresh();
      const loc = ctx.catalog.location(who.location);
      req.log.info({ agentId, location: who.location }, 'agent said hello');
      const answer: HelloResponse = {
        protocol: AGENT_PROTOCOL,
        location: { id: who.location, name: loc?.name ?? who.location, region: loc?.region ?? '' },
        lease_ms: ctx.config.leaseMs,
        heartbeat_ms: ctx.config.agentHeartbeatMs,
      };
      return reply.send(answer);
    });

    scope.post('/heartbeat', async (req, reply) => {
      const { agentId } = await agentRequest(req);
      await agentSeen(store.db, agentId);
      return reply.send({});
    });

    scope.post('/claim', async (req, reply) => {
      const { location, agentId, body } = await agentRequest(req);
      const waitMs = Math.min(MAX_CLAIM_WAIT_MS, field(body, 'wait_ms', (v): v is number => typeof v === 'number' && v >= 0, 'milliseconds ≥ 0'));
      // The agent gone (connection closed) stops the wait: a test is never leased to a claim nobody reads.
      const gone = new AbortController();
      // The response's close (not the request's: that one fires once the body is read) tells of a lost connection.
      reply.raw.once('close', () => gone.abort());
      const deadline = Date.now() + waitMs;
      // The browsers the agent announced at hello and in its heartbeats.
      const browsers = await agentBrowsers(store.db, agentId);
      for (;;) {
        const work = await claimWork(store, location, agentId, ctx.config.leaseMs, browsers);
        if (work) {
          await agentSeen(store.db, agentId);
          const answer: ClaimResponse = { test_id: work.testId, options: work.options };
          return reply.send(answer);
        }
        const left = deadline - Date.now();
        if (left <= 0 || gone.signal.aborted) return reply.code(204).send();
        // Woken at once by a test queued on this node; tests queued on other nodes are found within 250 ms.
        await ctx.queueSignal.wait(Math.min(250, left), gone.signal);
      }
    });

    scope.post('/tests/:id/renew', async (req, reply) => {
      const { agentId, body } = await agentRequest(req);
      const { id } = req.params as { id: string };
      const phase = phaseOf(body);
      const held = ID.test(id) && (await renewLease(store.db, id, agentId, ctx.config.leaseMs, phase));
      await agentSeen(store.db, agentId);
      return reply.send({ held });
    });

    scope.put('/tests/:id/result', async (req, reply) => {
      const { agentId } = await agentRequest(req, true);
      const { id } = req.params as { id: string };
      if (!Buffer.isBuffer(req.body)) throw new ProtocolFailure(400, 'input', 'the result is an application/octet-stream bundle');
      const sum = req.headers[CHECKSUM_HEADER];
      if (typeof sum !== 'string' || sum.toLowerCase() !== bundleChecksum(req.body)) {
        throw new ProtocolFailure(400, 'checksum', `the bundle's SHA-256 is not the ${CHECKSUM_HEADER} header's: it was damaged on the way; send it again`);
      }
      let upload;
      try {
        upload = decodeBundle(req.body);
      } catch (err) {
        if (err instanceof BundleError) throw new ProtocolFailure(400, 'bundle', err.message);
        throw err;
      }
      const done = ID.test(id) ? await completeWork(store, ctx.artifacts, id, agentId, upload.result, upload.runs) : 'lost';
      if (done === 'lost') throw new ProtocolFailure(409, 'lease_lost', `agent ${agentId} no longer holds test ${id}: its lease ran out and the test went back to the queue`);
      ctx.notifyFinished();
      // The test ended in error (refunded): the agent is done with it, there is nothing to send again.
      if (done === 'out_of_storage') throw new ProtocolFailure(409, 'out_of_storage', `the service is out of storage: test ${id} ended in error`);
      return reply.send({ stored: true });
    });

    // A failed journey's screenshot travels with the failure (base64 in JSON).
    scope.post('/tests/:id/fail', { bodyLimit: 12 * 1024 * 1024 }, async (req, reply) => {
      const { agentId, body } = await agentRequest(req);
      const message = field(body, 'message', (v): v is string => typeof v === 'string' && v.length > 0 && v.length <= 2000, 'the error for the user (1 to 2000 characters)');
      const { id } = req.params as { id: string };
      const progress = progressOf((body as { progress?: unknown }).progress);
      const held = ID.test(id) && (await failWork(store, ctx.artifacts, id, agentId, message, progress));
      if (held) ctx.notifyFinished();
      return reply.send({ held });
    });

    scope.post('/tests/:id/release', async (req, reply) => {
      const { agentId } = await agentRequest(req);
      const { id } = req.params as { id: string };
      if (ID.test(id)) await releaseTest(store.db, id, agentId);
      ctx.intake.wake();
      return reply.send({});
    });

    scope.setNotFoundHandler((_req: FastifyRequest, reply: FastifyReply) =>
      reply.code(404).send({ error: { code: 'input', message: 'no such agent protocol request (docs/agent-protocol.md)' } }));
  }, { prefix: AGENT_PREFIX });
}

/** The phase a renewal reports (`phase` and `run`, both or neither), checked; absent: none. */
function phaseOf(body: unknown): PhaseReport | undefined {
  const { phase, run } = (typeof body === 'object' && body !== null ? body : {}) as { phase?: unknown; run?: unknown };
  if (phase === undefined && run === undefined) return undefined;
  const report = checkedPhaseReport(phase, run);
  if (!report) throw new ProtocolFailure(400, 'input', `phase must be one of ${TEST_PHASES.join(', ')}, with run the load it is in (1 to 100)`);
  return report;
}

/** A failed journey's progress as the agent sends it (its screenshot in base64), checked; absent: none. */
function progressOf(v: unknown): JourneyProgress | undefined {
  if (v === undefined) return undefined;
  const sent = v as { screenshot?: unknown };
  const screenshot = typeof sent?.screenshot === 'string' ? Buffer.from(sent.screenshot, 'base64') : undefined;
  const progress = checkedProgress(typeof v === 'object' && v !== null ? { ...v, screenshot } : v);
  if (!progress) {
    throw new ProtocolFailure(400, 'input', 'progress must be {completed: [{index, steps, name, mode, url?, duration}], screenshot?: base64 JPEG}');
  }
  return progress;
}
