/**
 * The agent protocol, agent side (docs/agent-protocol.md): a remote agent reaches its server only over HTTP(S)
 * with the server's URL and a token of its location. Requests that fail on the way (server restarting, network
 * gone) are retried; the server's own refusals are not.
 */
import { hostname } from 'node:os';
import type { RunsFile } from '../core/tests/runs.js';
import type { PhaseReport } from '../core/tests/phases.js';
import { readPlainOptions } from '../core/options/stored-options.js';
import type { Catalog } from '../core/catalog/catalog.js';
import type { JourneyProgress, RunResult } from '../runner/types.js';
import {
  AGENT_ID_HEADER, AGENT_PREFIX, AGENT_PROTOCOL, AGENT_PROTOCOL_HEADER, AGENT_VERSION, CHECKSUM_HEADER,
  type ClaimResponse, type HelloResponse, type ProtocolError,
} from './protocol.js';
import { bundleChecksum, encodeBundle } from './result-bundle.js';
import { jobFor, type AgentInfo, type AgentTransport, type Job } from './transport.js';

/** The server refused the agent for good (bad token, protocol it does not speak): the agent must stop. */
export class AgentRefused extends Error {}

/** An answer of the server other than success. */
class ServerAnswer extends Error {
  constructor(readonly status: number, readonly code: string | undefined, message: string) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface HttpTransportOptions {
  server: string;
  token: string;
  catalog: Catalog;
  /** How long a claim waits on the server for work before it asks again. */
  claimWaitMs?: number;
  /** How long an upload (or any request that must land) keeps being retried while the server is unreachable. */
  retryForMs?: number;
  /** Told when the server refused the agent for good (exits the process in the CLI). */
  onRefused?: (err: AgentRefused) => void;
}

export class HttpTransport implements AgentTransport {
  private readonly base: string;
  private lastInfo?: { agentId: string; info: AgentInfo };
  /** When the server last answered (not with a 5xx): what the agent node's readiness tells. */
  private lastAnswer: number | undefined;

  constructor(private readonly o: HttpTransportOptions) {
    this.base = o.server.replace(/\/+$/, '') + AGENT_PREFIX;
  }

  private async request(method: string, path: string, body?: unknown, timeoutMs = 60_000, agentId?: string): Promise<{ status: number; json: unknown }> {
    const binary = Buffer.isBuffer(body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.o.token}`,
      [AGENT_PROTOCOL_HEADER]: String(AGENT_PROTOCOL),
      'content-type': binary ? 'application/octet-stream' : 'application/json',
    };
    if (binary) {
      headers[CHECKSUM_HEADER] = bundleChecksum(body);
      headers[AGENT_ID_HEADER] = agentId ?? '';
    }
    const res = await fetch(this.base + path, {
      method, headers, body: binary ? new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length) : JSON.stringify(body ?? {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (res.status < 500) this.lastAnswer = Date.now();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.status >= 400) {
      const e = (json as ProtocolError | undefined)?.error;
      const message = e?.message ?? `HTTP ${res.status} from ${this.base}${path}`;
      if (res.status === 401 || res.status === 426) {
        const refused = new AgentRefused(`the server refused this agent: ${message}`);
        this.o.onRefused?.(refused);
        throw refused;
      }
      throw new ServerAnswer(res.status, e?.code, message);
    }
    return { status: res.status, json };
  }

  /** Has the server answered within the last `ms` (heartbeats and claims ask it every few seconds)? */
  answeredWithin(ms: number): boolean {
    return this.lastAnswer !== undefined && Date.now() - this.lastAnswer <= ms;
  }

  /** Retries what failed on the way or with a 5xx (server restarting) for up to retryForMs; not the server's 4xx. */
  private async reliably<T>(what: () => Promise<T>): Promise<T> {
    const until = Date.now() + (this.o.retryForMs ?? 600_000);
    for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        return await what();
      } catch (err) {
        const retryable = !(err instanceof AgentRefused) && (!(err instanceof ServerAnswer) || err.status >= 500 || err.code === 'checksum');
        if (!retryable || Date.now() + delay > until) throw err;
        await sleep(delay);
      }
    }
  }

  /** Signs in: the server checks the token and the protocol and says which location this agent serves. */
  async sayHello(agentId: string, info: AgentInfo): Promise<HelloResponse> {
    this.lastInfo = { agentId, info };
    const { json } = await this.request('POST', '/hello', {
      agent_id: agentId, version: AGENT_VERSION, hostname: hostname(), browsers: info.browsers, slots: info.slots,
    });
    return json as HelloResponse;
  }

  async heartbeat(agentId: string, info: AgentInfo): Promise<void> {
    try {
      await this.request('POST', '/heartbeat', { agent_id: agentId });
    } catch (err) {
      // The server forgot us (a day offline, or a database restored): say hello again.
      if (err instanceof ServerAnswer && err.code === 'unknown_agent') await this.sayHello(agentId, info);
      else throw err;
    }
  }

  async claim(agentId: string): Promise<Job | null> {
    const waitMs = this.o.claimWaitMs ?? 20_000;
    let res;
    try {
      res = await this.request('POST', '/claim', { agent_id: agentId, wait_ms: waitMs }, waitMs + 30_000);
    } catch (err) {
      if (err instanceof AgentRefused) throw err;
      if (err instanceof ServerAnswer && err.code === 'unknown_agent' && this.lastInfo) await this.sayHello(agentId, this.lastInfo.info);
      else await sleep(1000); // the server is unreachable: do not spin
      throw err;
    }
    if (res.status === 204) return null;
    const claimed = res.json as ClaimResponse;
    return jobFor(claimed.test_id, readPlainOptions(JSON.stringify(claimed.options)), this.o.catalog);
  }

  async renew(agentId: string, testId: string, _leaseMs?: number, phase?: PhaseReport): Promise<boolean> {
    const { json } = await this.request('POST', `/tests/${encodeURIComponent(testId)}/renew`,
      { agent_id: agentId, ...(phase ? { phase: phase.phase, run: phase.run } : {}) }, 10_000);
    return (json as { held: boolean }).held;
  }

  async complete(agentId: string, testId: string, result: RunResult, runs?: RunsFile): Promise<boolean> {
    const bundle = encodeBundle({ result, runs });
    try {
      await this.reliably(() => this.request('PUT', `/tests/${encodeURIComponent(testId)}/result`, bundle, 300_000, agentId));
      return true;
    } catch (err) {
      // Not stored, and nothing to send again: the test went elsewhere, or ended in error for want of storage.
      if (err instanceof ServerAnswer && (err.code === 'lease_lost' || err.code === 'out_of_storage')) return false;
      throw err;
    }
  }

  async fail(agentId: string, testId: string, message: string, progress?: JourneyProgress): Promise<boolean> {
    const sent = progress && { completed: progress.completed, screenshot: progress.screenshot?.toString('base64') };
    const { json } = await this.reliably(() => this.request('POST', `/tests/${encodeURIComponent(testId)}/fail`,
      { agent_id: agentId, message, ...(sent ? { progress: sent } : {}) }));
    return (json as { held: boolean }).held;
  }

  async release(agentId: string, testId: string): Promise<void> {
    await this.request('POST', `/tests/${encodeURIComponent(testId)}/release`, { agent_id: agentId }, 10_000);
  }
}
