/**
 * The operator's settings of every load an agent runs, made once when the service or agent starts: the adblock
 * filter lists (WEBGAUGE_ADBLOCK_LIST) and the extra CA certificates (WEBGAUGE_EXTRA_CA_CERTS), as the NSS database
 * each test browser copies into its fresh profile (runner/trust-store.ts).
 */
import { buildTrustStore, type TrustStore } from '../runner/trust-store.js';
import type { RunResult, RunSpec } from '../runner/types.js';
import { LaunchAhead } from '../runner/launch-ahead.js';
import type { BrowserSandbox } from '../runner/browser.js';
import type { TargetPolicy } from '../net/policy.js';

export interface RunnerSettings {
  adblockLists: readonly string[];
  trustStore?: TrustStore;
  /** Removes what was made for them (the trust store's folder). */
  close(): Promise<void>;
}

/** Throws TrustStoreError when the certificates cannot be handed to the browser (certutil missing or failing). */
export async function runnerSettings(o: { adblockLists: readonly string[]; extraCaCerts?: readonly string[]; tag: string }):
Promise<RunnerSettings> {
  const trustStore = o.extraCaCerts?.length ? await buildTrustStore(o.extraCaCerts, o.tag) : undefined;
  return { adblockLists: o.adblockLists, trustStore, close: async () => trustStore?.close() };
}

/**
 * The agent's browsers launched ahead of its loads (runner/launch-ahead.ts), launched as its loads launch theirs:
 * Chromium, or with `firefoxPath` Firefox.
 */
export function launchAheadFor(settings: RunnerSettings, o: { chromePath: string; firefoxPath?: string; sandbox: BrowserSandbox;
  runTimeoutMs: number; policy: TargetPolicy }): LaunchAhead {
  return new LaunchAhead({ chromePath: o.chromePath, firefoxPath: o.firefoxPath, sandbox: o.sandbox, trustStore: settings.trustStore,
    protocolTimeoutMs: o.runTimeoutMs, policy: o.policy });
}

/** The page load with the operator's settings on every run. */
export function withRunnerSettings(run: (spec: RunSpec) => Promise<RunResult>, settings: RunnerSettings) {
  return (spec: RunSpec): Promise<RunResult> =>
    run({ adblockLists: settings.adblockLists, trustStore: settings.trustStore, ...spec });
}
