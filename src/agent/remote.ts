/**
 * `webgauge agent --server URL --token TOKEN [--slots N]`: an agent in another place. It needs the server's URL and
 * a token of its location, nothing else: no database, no data of the service. It claims tests of its location over
 * HTTP, runs them with the same runner and host-quality check as the in-process agent, uploads results and hands its
 * tests back on SIGTERM. Its network is the one a hostile page would reach into, so it applies its own target policy.
 */
import pino from 'pino';
import type { TargetPolicy } from '../net/policy.js';
import { createCatalog } from '../core/catalog/catalog.js';
import { browserSandbox, dataDirTag, removeOrphanedBrowsers } from '../runner/browser.js';
import { runTest, warmRunner } from '../runner/run.js';
import type { RunResult, RunSpec } from '../runner/types.js';
import { Agent } from './agent.js';
import { AgentRefused, HttpTransport } from './http-transport.js';
import { HostQualityCheck, type HostCheckSettings } from './host-check.js';
import { launchAheadFor, runnerSettings, withRunnerSettings } from './runner-settings.js';
import { findFirefox } from '../runner/firefox/launch.js';
import { onlineWindowMs } from '../core/catalog/locations.js';
import { listenForHealth } from './health-listener.js';

/** What the agent reads of the operator's configuration (config.ts loads it from the agent machine's environment). */
export interface RemoteAgentConfig {
  logLevel: string;
  dataDir: string;
  chromePath: string;
  firefoxPath: string;
  browserSandbox: boolean;
  browserUser: string;
  targetPolicy: TargetPolicy;
  adblockLists: string[];
  extraCaCerts?: string[];
  leaseMs: number;
  agentHeartbeatMs: number;
  runTimeoutMs: number;
  runGuard?: HostCheckSettings;
}

export interface RemoteAgentOptions {
  server: string;
  token: string;
  slots: number;
  config: RemoteAgentConfig;
  /** The page load; the queue bench replaces it with one that returns at once (bench/queue.bench.ts). */
  run?: (spec: RunSpec) => Promise<RunResult>;
  /** How long to keep trying to reach the server at start. */
  connectForMs?: number;
  /** GET /healthz and /readyz on this port (`--health-port`), on `healthHost` (WEBGAUGE_HOST); none: no listener. */
  healthPort?: number;
  healthHost?: string;
}

export class AgentStartError extends Error {}

/** Starts the agent; resolves with a stop function once it said hello and runs. */
export async function startRemoteAgent(o: RemoteAgentOptions): Promise<{ agent: Agent; stop: () => Promise<void>; healthUrl?: string }> {
  let url: URL;
  try {
    url = new URL(o.server);
  } catch {
    throw new AgentStartError(`--server must be the service's URL, such as https://webgauge.example.com, got "${o.server}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AgentStartError('--server must be an http:// or https:// URL');
  if (!o.token) throw new AgentStartError('--token is required (webgauge agent token create --location ID prints one)');
  if (!Number.isSafeInteger(o.slots) || o.slots < 1 || o.slots > 64) throw new AgentStartError('--slots must be an integer from 1 to 64');

  const { config } = o;
  const log = pino({ level: config.logLevel });
  const sandbox = browserSandbox({ enabled: config.browserSandbox, userName: config.browserUser, tag: dataDirTag(config.dataDir) });
  const orphans = removeOrphanedBrowsers(sandbox.tag);
  if (orphans > 0) log.warn({ orphans }, 'removed browsers and temporary folders left by a killed agent');
  const catalog = createCatalog({ locationName: '', locationRegion: '' });
  const transport = new HttpTransport({
    server: url.href, token: o.token, catalog,
    onRefused: (err) => {
      process.stderr.write(`webgauge agent: ${err.message}\n`);
      // Refused for good (token revoked, protocol changed): stop at once, non-zero.
      process.exit(3);
    },
  });
  // The agent's own CA file (WEBGAUGE_EXTRA_CA_CERTS on its machine): the sites it reaches are its network's.
  const runner = await runnerSettings({ adblockLists: config.adblockLists, extraCaCerts: config.extraCaCerts, tag: sandbox.tag });
  const run = withRunnerSettings(o.run ?? runTest, runner);
  // Firefox (Desktop) is offered when a working one is found (WEBGAUGE_FIREFOX_PATH), with Xvfb to film it on.
  const firefoxPath = 'version' in (await findFirefox(config.firefoxPath)) ? config.firefoxPath : undefined;
  // Lease and heartbeat come from the server's hello; the agent is built first for its ID.
  const settings = { leaseMs: config.leaseMs, heartbeatMs: config.agentHeartbeatMs };
  const agent = new Agent({
    transport,
    location: '', // the server knows it from the token
    slots: o.slots,
    get leaseMs() { return settings.leaseMs; },
    get heartbeatMs() { return settings.heartbeatMs; },
    runTimeoutMs: config.runTimeoutMs,
    chromePath: config.chromePath,
    firefoxPath,
    policy: config.targetPolicy,
    sandbox,
    log,
    run,
    idlePollMs: 0, // a claim waits on the server
    hostCheck: o.run || !config.runGuard ? undefined : new HostQualityCheck(config.runGuard, log),
    ahead: o.run ? undefined : launchAheadFor(runner, { ...config, firefoxPath: undefined, sandbox, policy: config.targetPolicy }),
    firefoxAhead: o.run || !firefoxPath ? undefined : launchAheadFor(runner, { ...config, firefoxPath, sandbox, policy: config.targetPolicy }),
    warmRunner: () => warmRunner(config.runTimeoutMs),
  });
  // Ready while the server answers as often as an online agent must (its heartbeats); live from the start.
  let signedIn = false;
  const health = o.healthPort === undefined ? undefined : await listenForHealth(o.healthHost ?? '127.0.0.1', o.healthPort, {
    notReady: () => (!signedIn ? 'the agent has not signed in to its server yet'
      : transport.answeredWithin(onlineWindowMs(settings.heartbeatMs)) ? undefined : 'the agent cannot reach its server'),
  }).catch(async (err: Error) => {
    await runner.close();
    throw new AgentStartError(`--health-port ${o.healthPort}: cannot listen (${err.message})`);
  });
  if (health) log.info({ url: health.url }, 'health checks at /healthz and /readyz');
  const closeHealth = () => new Promise<void>((resolve) => (health ? health.server.close(() => resolve()) : resolve()));
  const until = Date.now() + (o.connectForMs ?? 60_000);
  try {
    for (let delay = 500; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        const hello = await transport.sayHello(agent.id, agent.info);
        settings.leaseMs = hello.lease_ms;
        settings.heartbeatMs = hello.heartbeat_ms;
        log.info({ agent: agent.id, location: hello.location, slots: o.slots }, 'agent signed in; waiting for tests');
        signedIn = true;
        break;
      } catch (err) {
        if (err instanceof AgentRefused) throw new AgentStartError(err.message);
        if (Date.now() + delay > until) throw new AgentStartError(`cannot reach ${url.href}: ${(err as Error).message}`);
        log.warn({ err: (err as Error).message }, 'the server is not reachable yet; trying again');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  } catch (err) {
    await runner.close();
    await closeHealth();
    throw err;
  }
  agent.startHeartbeats();
  await agent.warmUp();
  agent.start();
  return { agent, healthUrl: health?.url, stop: () => agent.stop().finally(() => Promise.all([runner.close(), closeHealth()])).then(() => undefined) };
}
