import type { CruxClient } from '../core/field/crux.js';
import type { FieldAlertJob } from '../scheduler/field-alerts.js';
import type { ArtifactStore } from '../artifacts/store.js';
import type { Config } from '../config.js';
import type { Principal } from '../core/accounts/accounts.js';
import type { PrincipalCache } from '../core/accounts/auth-cache.js';
import type { Catalog } from '../core/catalog/catalog.js';
import type { LocationDirectory } from '../core/catalog/locations.js';
import type { QueueSignal } from '../core/tests/queue-signal.js';
import type { ScanIntake } from '../core/scans/scans.js';
import type { ServiceMetrics } from './service-metrics.js';
import type { RateLimiter } from '../core/accounts/ratelimit.js';
import type { Store } from '../store/db.js';
import type { BrowserSandbox } from '../runner/browser.js';
import type { FieldIngest } from '../core/field/ingest.js';
import type { FieldRollupJob } from '../core/field/rollup.js';

/** What route handlers work with. Nothing here is Fastify-specific. */
export interface AppContext {
  config: Config;
  store: Store;
  artifacts: ArtifactStore;
  catalog: Catalog;
  /** Who an API key is, remembered briefly (core/accounts/auth-cache.ts). */
  principals: PrincipalCache<Principal>;
  rateLimiter: RateLimiter;
  /** Who the browsers of this process (PDFs, the in-process agent) run as. */
  sandbox: BrowserSandbox;
  /**
   * Where tests are requested (core/tests/tests.ts requestTest, which wakes the agents itself); `intake.wake()` tells
   * the in-process agent and waiting remote claims of any other test queued again (a released one).
   */
  /** …and scans (core/scans/scans.ts requestScan wakes the scans' work with `intake.wakeScans()`). */
  intake: ScanIntake;
  /** What remote agents' long-poll claims wait on (intake.wake wakes it). */
  queueSignal: QueueSignal;
  /** A test completed or failed here: its alert checks and webhooks can run now. */
  notifyFinished(): void;
  /** Locations and their online agents (database-backed, refreshed every second). */
  locations: LocationDirectory;
  /** Prometheus metrics (GET /metrics), when WEBGAUGE_METRICS_TOKEN is set. */
  metrics?: ServiceMetrics;
  /** Field data: the beacons' group commit, and the job that counts them into the rollups. */
  field: {
    ingest: FieldIngest;
    rollup: FieldRollupJob;
    /** The one tag to paste for a site, and where its beacons go, on this service's origin (web/field-snippet.ts builds the tag). */
    snippetTag(origin: string, site: { id: string; sampleRate: number; keepQuery: boolean; honourGpc: boolean }): string;
    beaconUrl(origin: string, siteId: string): string;
    /** The hourly judgement of field alert conditions (set once the service's deliveries exist). */
    alerts?: FieldAlertJob;
  };
  /** Google's CrUX, when the operator set a key (config.crux); undefined: nothing is asked. */
  crux?: CruxClient;
}
