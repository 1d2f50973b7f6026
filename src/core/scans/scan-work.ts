/**
 * A scan's work after POST /scans (scans.ts), stage by stage, each in its own file, run by every API process's loops
 * (scheduler/scans.ts):
 *   1. discovery-run.ts   a scan waiting for discovery claimed under a lease, its pages discovered (src/discovery: a
 *                         fetch of text through the target policy, never a page load)
 *   2. queueing.ts        the discovered pages queued as ordinary tests in one transaction, the unused credits given back
 *   3. following.ts       each page follows its test as it starts and finishes (page-artifacts.ts reads its runs)
 *   4. completion.ts      a scan with no page left to run completed: its site figures (page-artifacts.ts reads the
 *                         pages' structure audits and HARs), its alert verdicts (scan-alerts.ts), its notices
 * This file holds what the stages are handed.
 */
import type { TargetPolicy } from '../../net/policy.js';
import type { ArtifactStore } from '../../artifacts/store.js';
import type { Store } from '../../store/db.js';
import type { ScanNotices } from './scan-alerts.js';

export interface ScanWorkContext {
  store: Store;
  artifacts: ArtifactStore;
  policy: TargetPolicy;
  extraCaCerts?: readonly string[];
  /** Wakes the agents: tests were queued. */
  wakeAgents(): void;
  /** This process, as the holder of a discovery's lease. */
  owner: string;
  /** A discovery's time limit (WEBGAUGE_SCAN_DISCOVERY_MS). */
  discoveryTimeLimitMs: number;
  log?: { warn(obj: object, msg: string): void };
  /** Told of each scan that completed (its webhooks and alert e-mail); none: nothing is queued. */
  notices?: ScanNotices;
}

/** What following the scans' pages (and completing them) needs. */
export type FollowContext = Pick<ScanWorkContext, 'store' | 'artifacts' | 'log' | 'notices'>;
