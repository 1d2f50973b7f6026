import { CruxClient } from './core/field/crux.js';
import { FieldAlertJob } from './scheduler/field-alerts.js';
import { chmodSync, mkdirSync } from 'node:fs';
import { Agent } from './agent/agent.js';
import { InProcessTransport } from './agent/in-process-transport.js';
import { HostQualityCheck } from './agent/host-check.js';
import { launchAheadFor, runnerSettings, withRunnerSettings } from './agent/runner-settings.js';
import { buildServer } from './api/server.js';
import { registerWebApp } from './web/routes.js';
import type { AppContext } from './context/app-context.js';
import { artifactsRoot, FileArtifactStore, type ArtifactStore } from './artifacts/store.js';
import type { Config } from './config.js';
import { createCatalog } from './core/catalog/catalog.js';
import { authenticate } from './core/accounts/accounts.js';
import { PrincipalCache } from './core/accounts/auth-cache.js';
import { RateLimiter, sweepRateLimits } from './core/accounts/ratelimit.js';
import { failQueuedPastTimeout, reapExpiredLeases } from './core/tests/tests.js';
import { ensureLocalLocation, LocationDirectory, LOCAL_LOCATION_ID, onlineWindowMs } from './core/catalog/locations.js';
import { QueueSignal } from './core/tests/queue-signal.js';
import { ServiceMetrics } from './context/service-metrics.js';
import { sealStoredOptions } from './core/options/stored-options.js';
import { runTest, warmRunner } from './runner/run.js';
import { browserSandbox, dataDirTag, removeOrphanedBrowsers } from './runner/browser.js';
import { MonitorScheduler } from './scheduler/monitor.js';
import { ExpirySweeper } from './scheduler/sweep.js';
import { TestEventsJob } from './scheduler/test-events.js';
import { eventResources } from './api/event-resources.js';
import { DeliveryDispatcher } from './notify/dispatcher.js';
import { smtpMailer } from './notify/email.js';
import type { RunResult, RunSpec } from './runner/types.js';
import { openStore, type Store } from './store/db.js';
import { findFirefox } from './runner/firefox/launch.js';
import { processOwner, ScanDiscoveryJob, ScanFollowJob } from './scheduler/scans.js';
import { scanNotices } from './scheduler/scan-notices.js';
import { Links } from './context/links.js';
import { ScanScheduleJob } from './scheduler/scan-schedules.js';
import { FieldIngest } from './core/field/ingest.js';
import { FieldRollupJob } from './core/field/rollup.js';
import { BEACON_PATH } from './api/field-beacon.js';
import { fieldSnippetTag } from './web/field-snippet.js';

/** How often the beacons taken are counted into the field rollups: figures are this fresh. */
const FIELD_ROLLUP_MS = 5_000;

export interface App {
  server: Awaited<ReturnType<typeof buildServer>>;
  store: Store;
  artifacts: ArtifactStore;
  agent?: Agent;
  /** Monitoring and expiry schedulers; tests stop them to drive `tick()`/`sweep()` by hand. */
  monitor: MonitorScheduler;
  sweeper: ExpirySweeper;
  /** Alert checks and notifications of finished tests, and the outbox's sender (tests drive them by hand too). */
  testEvents: TestEventsJob;
  dispatcher: DeliveryDispatcher;
  /** Follows the scans' pages (tests drive it by hand with drain()). */
  scanFollow: ScanFollowJob;
  /** Starts the scheduled scans (tests stop it to drive `tick()` by hand). */
  scanSchedules: ScanScheduleJob;
  /** Field data's group commit and rollup job (tests call `rollup.flush()` to read figures at once). */
  field: AppContext['field'];
  /** Stop taking work, hand running tests back to the queue, close everything. */
  close(): Promise<void>;
}

export interface AppOverrides {
  /** The page load; tests and benchmarks use the real runner too, this only allows wrapping it. */
  run?: (spec: RunSpec) => Promise<RunResult>;
  /**
   * Whether the agent launches browsers ahead of its loads (and reads the host in them): by default when `run` is
   * the real runner; a benchmark that wraps the real runner says yes.
   */
  launchAhead?: boolean;
  sqliteFile?: string;
  /** The artifact store; the files under the data folder by default. */
  artifacts?: ArtifactStore;
  /** Where the server's log lines go (standard output by default): a test reads what the service warned of. */
  logStream?: { write(line: string): void };
}

export async function createApp(config: Config, overrides: AppOverrides = {}): Promise<App> {
  // Keys, artifacts and the database live here: nobody else on the machine, the browser's user included, reads it.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(config.dataDir, 0o700);
  // Checked before anything is opened: a missing browser user stops the start with what to do.
  const sandbox = browserSandbox({ enabled: config.browserSandbox, userName: config.browserUser, tag: dataDirTag(config.dataDir) });
  // So is a CA file the browser cannot be given. Only a node that runs tests needs it.
  const runsTests = config.agent && config.agentSlots > 0;
  const settings = runsTests
    ? await runnerSettings({ adblockLists: config.adblockLists, extraCaCerts: config.extraCaCerts, tag: sandbox.tag })
    : undefined;
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sqliteFile: overrides.sqliteFile,
    secretKey: config.secretKey, minFreeMb: config.minFreeMb });
  const artifacts = overrides.artifacts ?? new FileArtifactStore(artifactsRoot(config.dataDir));
  // Locations live in the database (operators add them); location 1 is this node's own, named by its config.
  await ensureLocalLocation(store, config.locationName, config.locationRegion);
  const locations = new LocationDirectory(store, config.agentHeartbeatMs);
  await locations.refresh();
  locations.start();
  const catalog = createCatalog({ locationName: config.locationName, locationRegion: config.locationRegion }, locations);
  const queueSignal = new QueueSignal();
  // Only when an operator scrapes them (their collectors cost a little in every process).
  const metrics = config.metricsToken ? new ServiceMetrics(store, locations) : undefined;
  let agent: Agent | undefined;
  let testEvents: TestEventsJob | undefined;
  let scanDiscovery: ScanDiscoveryJob | undefined;
  let scanFollow: ScanFollowJob | undefined;
  // A queued test wakes the in-process agent and remote agents' waiting claims, whoever queued it.
  const notifyQueued = (): void => {
    agent?.wake();
    queueSignal.notify();
  };
  const ctx: AppContext = {
    config,
    store,
    artifacts,
    catalog,
    principals: new PrincipalCache((key) => authenticate(store.db, config.plans, key), config.authCacheMs),
    rateLimiter: new RateLimiter(store),
    sandbox,
    intake: { store, policy: config.targetPolicy, wake: notifyQueued, wakeScans: () => { scanDiscovery?.wake(); scanFollow?.wake(); } },
    queueSignal,
    notifyFinished: () => testEvents?.wake(),
    locations,
    metrics,
    field: {
      ingest: new FieldIngest(store, { siteRate: config.fieldSiteRate, clientRate: config.fieldClientRate }),
      rollup: new FieldRollupJob(store, { intervalMs: FIELD_ROLLUP_MS, outages: store.health, log: { error: (obj, msg) => server.log.error(obj, msg) } }),
      snippetTag: fieldSnippetTag,
      beaconUrl: (origin, siteId) => `${origin}${BEACON_PATH}/${encodeURIComponent(siteId)}`,
    },
    crux: config.crux ? new CruxClient(config.crux, store.db, { warn: (obj, msg) => server.log.warn(obj, msg) }) : undefined,
  };
  const server = await buildServer(ctx, (app) => registerWebApp(app, ctx), overrides.logStream);
  // An account whose plan left the plans file is warned about in the service's log; so are outages, once each.
  config.plans.useLog(server.log);
  store.health.useLog(server.log);
  // Rows stored before encryption at rest get their secrets sealed (once; later starts find none).
  const sealed = await sealStoredOptions(store);
  if (sealed > 0) server.log.info({ rows: sealed }, 'stored test secrets encrypted');
  if (settings) {
    const launchAhead = overrides.launchAhead ?? !overrides.run;
    // Firefox (Desktop) is offered when a working one is found (WEBGAUGE_FIREFOX_PATH), with Xvfb to film it on.
    const firefox = await findFirefox(config.firefoxPath);
    if ('version' in firefox) server.log.info({ firefox: firefox.version, path: config.firefoxPath }, 'Firefox found: the agent offers it');
    else server.log.info({ firefox: null, path: config.firefoxPath }, `${firefox.missing}: the agent offers Chrome alone`);
    const firefoxPath = 'version' in firefox ? config.firefoxPath : undefined;
    agent = new Agent({
      transport: new InProcessTransport(store, artifacts, catalog, () => testEvents?.wake()),
      location: LOCAL_LOCATION_ID,
      heartbeatMs: config.agentHeartbeatMs,
      slots: config.agentSlots,
      leaseMs: config.leaseMs,
      runTimeoutMs: config.runTimeoutMs,
      chromePath: config.chromePath,
      firefoxPath,
      policy: config.targetPolicy,
      sandbox,
      log: server.log as never,
      run: withRunnerSettings(overrides.run ?? runTest, settings),
      hostCheck: config.runGuard && new HostQualityCheck(config.runGuard, server.log as never),
      ahead: launchAhead ? launchAheadFor(settings, { ...config, firefoxPath: undefined, sandbox, policy: config.targetPolicy }) : undefined,
      firefoxAhead: launchAhead && firefoxPath ? launchAheadFor(settings, { ...config, firefoxPath, sandbox, policy: config.targetPolicy }) : undefined,
      warmRunner: () => warmRunner(config.runTimeoutMs),
      outages: store.health,
    });
  }

  // The lease reaper: a test whose agent died goes back to the queue once, then fails; never stuck in `started`.
  const queueLimits = { queueTimeoutMs: config.queueTimeoutMs, onlineWindowMs: onlineWindowMs(config.agentHeartbeatMs) };
  // While this process was not running, no agent could be heard from: after a start (a restart after kill -9
  // included) the agents get one whole queue timeout and online window to reach it before a location counts as
  // without agents.
  const queueTimeoutFrom = Date.now() + queueLimits.queueTimeoutMs + queueLimits.onlineWindowMs;
  const reap = async () => {
    try {
      const r = await reapExpiredLeases(store);
      if (r.requeued || r.failed) server.log.warn(r, 'expired leases reaped');
      const timedOut = Date.now() < queueTimeoutFrom ? 0 : await failQueuedPastTimeout(store, queueLimits, (id) => catalog.location(id));
      if (timedOut > 0) server.log.warn({ tests: timedOut }, 'tests whose location had no agent online for the whole queue timeout ended in error');
      await sweepRateLimits(store);
    } catch (err) {
      if (!store.health.noticed(err)) server.log.error({ err }, 'sweep failed');
    }
  };
  // After kill -9: browsers and scratch folders of this data directory's dead processes go first.
  const orphans = removeOrphanedBrowsers(sandbox.tag);
  if (orphans > 0) server.log.warn({ orphans }, 'removed browsers and temporary folders left by a killed process');
  if (!sandbox.enabled) {
    server.log.warn('the browser runs WITHOUT its sandbox (WEBGAUGE_BROWSER_SANDBOX=0): a hostile page that ' +
      'exploits Chromium gets the rights of the service user; turn the sandbox on wherever the platform allows it');
  }
  await reap();
  const reaper = setInterval(reap, Math.max(500, Math.floor(config.leaseMs / 2)));
  reaper.unref();
  const log = server.log as never;
  const monitor = new MonitorScheduler({ store, targetPolicy: config.targetPolicy, plans: config.plans, notifyQueued, log });
  const sweeper = new ExpirySweeper({ store, artifacts, log });
  const mailer = config.smtp ? smtpMailer(config.smtp.url, config.smtp.from) : undefined;
  const dispatcher = new DeliveryDispatcher({ store, policy: config.targetPolicy, retryBaseMs: config.webhookRetryBaseMs, mailer, log });
  /** Links in payloads and e-mails: WEBGAUGE_PUBLIC_URL, else the address the server listens on. */
  const listenOrigin = () => {
    const a = server.server.address();
    return a && typeof a === 'object' ? `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : `http://${config.host}:${config.port}`;
  };
  testEvents = new TestEventsJob({
    store, resources: eventResources(store, config, listenOrigin), email: mailer !== undefined, queued: () => dispatcher.wake(), log,
    finished: (t) => {
      metrics?.testFinished(t);
      if (t.scan_id) scanFollow?.wake();
    },
  });
  const scanWork = { store, artifacts, policy: config.targetPolicy, extraCaCerts: config.extraCaCerts, wakeAgents: notifyQueued,
    owner: processOwner(), discoveryTimeLimitMs: config.scanDiscoveryMs, log,
    notices: scanNotices({ store, links: () => new Links({ origin: config.publicUrl ?? listenOrigin() }, config), email: mailer !== undefined,
      queued: () => dispatcher.wake() }) };
  scanDiscovery = new ScanDiscoveryJob(scanWork);
  scanFollow = new ScanFollowJob(scanWork);
  const scanSchedules = new ScanScheduleJob({ intake: ctx.intake, plans: config.plans, catalog, log });
  ctx.field.alerts = new FieldAlertJob(store, { links: () => new Links({ origin: config.publicUrl ?? listenOrigin() }, config),
    email: mailer !== undefined, queued: () => dispatcher.wake() }, { outages: store.health, log });
  monitor.start();
  sweeper.start();
  testEvents.start();
  dispatcher.start();
  scanDiscovery.start();
  scanFollow.start();
  scanSchedules.start();
  ctx.field.rollup.start();
  ctx.field.alerts.start();
  if (agent) {
    // Location 1 offers its browsers from the first request on.
    await agent.announce();
    agent.startHeartbeats();
    await locations.refresh();
    // The service is ready when its agent is warm: the first test after a start is like the others.
    await agent.warmUp();
    agent.start();
  }

  let closed = false;
  return {
    server,
    store,
    artifacts,
    agent,
    monitor,
    sweeper,
    testEvents,
    dispatcher,
    scanFollow,
    scanSchedules,
    field: ctx.field,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(reaper);
      locations.stop();
      await monitor.stop();
      await scanSchedules.stop();
      await sweeper.stop();
      await scanDiscovery!.stop();
      await scanFollow!.stop();
      await agent?.stop();
      await testEvents!.stop();
      await dispatcher.stop();
      mailer?.close();
      // Graceful for in-flight requests, but bounded: a client holding a keep-alive socket (say, an unread
      // response body) must not keep the server from stopping.
      const force = setTimeout(() => server.server.closeAllConnections(), 3000);
      await server.close();
      clearTimeout(force);
      // Beacons answered are committed already; the counts of refusals still waiting are committed now.
      await ctx.field.ingest.close();
      await ctx.field.rollup.stop();
      await ctx.field.alerts?.stop();
      await store.close();
      await settings?.close();
    },
  };
}
